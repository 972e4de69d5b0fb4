! fortran_hostile.F90 - the Fortran module given what a careless caller hands
! it, one case a run; the wrappers pass through to C, so
! each answer is the C API's:
!   handles        the queries and status calls on a table never created
!                  (c_null_ptr), on one destroyed (destroy leaves c_null_ptr)
!                  and on a kept copy of a destroyed table: -1, c_null_ptr or
!                  SHARDTAB_ERR_INVALID_ARG naming the call, no crash
!   empty-shard    the last rank's shard is a non-NULL pointer with 0 bytes:
!                  every rank's shardtab_peer gives c_null_ptr and 0 for it
!   finalize-live  shardtab_finalize with a live table is refused; the table
!                  still reads its peer, is destroyed, and finalize then works
! Rank 0 prints "ok:"/"FAIL:" lines and "# fortran hostile <case>: OK".
!
! USAGE  mpiexec -n N ./fortran_hostile handles|empty-shard|finalize-live
! SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
program fortran_hostile
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_size_t, c_associated, c_null_ptr
  use shardtab
  implicit none
  type(MPI_Comm) :: world
  integer :: comm, rank, nranks, ierr, failures, all_failures
  integer(c_int) :: status
  type(shardtab_table) :: table, unset, stale
  type(c_ptr) :: shard, base
  integer(c_size_t) :: bytes
  character(len=32) :: which
  character(len=:), allocatable :: message

  call MPI_Init(ierr)
  world = MPI_COMM_WORLD
  comm = world%MPI_VAL
  call MPI_Comm_rank(world, rank, ierr)
  call MPI_Comm_size(world, nranks, ierr)
  failures = 0
  which = ""
  if (command_argument_count() >= 1) call get_command_argument(1, which)
  status = shardtab_init(comm)
  call check(status == SHARDTAB_SUCCESS, "shardtab_init")

  status = shardtab_mem_alloc(4096_c_size_t, shard)
  status = shardtab_agree(comm, status)
  call check(status == SHARDTAB_SUCCESS, "an allocation of 4096 bytes a rank")

  select case (trim(which))
  case ("handles")
    call bad_handle("never created", unset)
    status = shardtab_create(comm, shard, 64_c_size_t, table)
    call check(status == SHARDTAB_SUCCESS, "a live table")
    call check(shardtab_node_size(table) == nranks, "it answers")
    stale = table
    status = shardtab_destroy(table)
    call check(status == SHARDTAB_SUCCESS .and. .not. c_associated(table%ptr), &
               "destroyed, its handle is c_null_ptr")
    call bad_handle("destroyed", table)
    call bad_handle("a kept copy of a destroyed table", stale)
  case ("empty-shard")
    if (rank == nranks - 1) then
      status = shardtab_create(comm, shard, 0_c_size_t, table)
    else
      status = shardtab_create(comm, shard, 64_c_size_t, table)
    end if
    call check(status == SHARDTAB_SUCCESS, "a table where the last rank gives a shard of 0 bytes")
    base = shard
    bytes = 7
    status = shardtab_peer(table, nranks - 1, base, bytes)
    call check(status == SHARDTAB_SUCCESS .and. .not. c_associated(base) .and. bytes == 0, &
               "every rank sees the last rank's entry as c_null_ptr with 0 bytes")
    if (nranks > 1) then
      status = shardtab_peer(table, 0, base, bytes)
      call check(status == SHARDTAB_SUCCESS .and. c_associated(base) .and. bytes == 64, &
                 "and rank 0's as given")
    end if
    status = shardtab_destroy(table)
    call check(status == SHARDTAB_SUCCESS, "the table is destroyed")
  case ("finalize-live")
    status = shardtab_create(comm, shard, 64_c_size_t, table)
    call check(status == SHARDTAB_SUCCESS, "a live table")
    status = shardtab_finalize()
    message = shardtab_last_error()
    call check(status == SHARDTAB_ERR_INVALID_ARG .and. index(message, "1 live table") > 0, &
               "shardtab_finalize with it live is refused: " // message)
    status = shardtab_peer(table, mod(rank + 1, nranks), base, bytes)
    call check(status == SHARDTAB_SUCCESS .and. c_associated(base) .and. bytes == 64, &
               "the table still gives the next rank's shard")
    status = shardtab_destroy(table)
    call check(status == SHARDTAB_SUCCESS, "the table is destroyed")
  case default
    if (rank == 0) write (*, '(a)') "usage: fortran_hostile handles|empty-shard|finalize-live"
    call MPI_Finalize(ierr)
    stop 2
  end select

  status = shardtab_mem_free(shard)
  call check(status == SHARDTAB_SUCCESS, "the allocation is freed")
  status = shardtab_finalize()
  call check(status == SHARDTAB_SUCCESS, "finalize")
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_MAX, world, ierr)
  if (rank == 0 .and. all_failures == 0) write (*, '(a,a,a)') "# fortran hostile ", trim(which), ": OK"
  call MPI_Finalize(ierr)
  if (all_failures /= 0) stop 1

contains

  ! every rank's own verdict (rank 0 prints its own)
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) failures = failures + 1
    if (rank == 0) then
      if (ok) then
        write (*, '(a,a)') "ok:   ", what
      else
        write (*, '(a,a,a,a)') "FAIL: ", what, ": ", shardtab_last_error()
      end if
    end if
  end subroutine

  ! a status call must be refused, its message naming it
  subroutine refused(what, call, got)
    character(len=*), intent(in) :: what, call
    integer(c_int), intent(in) :: got
    character(len=:), allocatable :: message
    message = shardtab_last_error()
    call check(got == SHARDTAB_ERR_INVALID_ARG .and. index(message, call) > 0, &
               what // ": " // call // " is refused, naming it")
  end subroutine

  subroutine bad_handle(what, t)
    character(len=*), intent(in) :: what
    type(shardtab_table), intent(in) :: t
    integer(c_int) :: answers(8)
    logical :: device_table_null
    answers = [shardtab_node_size(t), shardtab_node_rank(t), shardtab_node_id(t), &
               shardtab_node_count(t), shardtab_member(t, 0), shardtab_node_rank_of(t, 0), &
               shardtab_peers_opened(t), shardtab_peers_reused(t)]
    device_table_null = .not. c_associated(shardtab_device_table(t))
    call check(all(answers == -1) .and. device_table_null, &
               what // ": every query answers -1 (c_null_ptr for the device table)")
    call refused(what, "shardtab_peer", shardtab_peer(t, 0, base, bytes))
    call refused(what, "shardtab_signal_check", shardtab_signal_check(t))
    call refused(what, "shardtab_all_reduce", &
                 shardtab_all_reduce(t, SHARDTAB_SUM, SHARDTAB_DOUBLE, 0_c_size_t, 1_c_size_t))
    call refused(what, "shardtab_broadcast", &
                 shardtab_broadcast(t, 0, SHARDTAB_DOUBLE, 0_c_size_t, 1_c_size_t))
    call refused(what, "shardtab_all_gather", &
                 shardtab_all_gather(t, SHARDTAB_DOUBLE, 0_c_size_t, 1_c_size_t))
  end subroutine

end program fortran_hostile
