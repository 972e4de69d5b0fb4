! fortran_example.F90 - the Fortran front at work: each rank fills its shard of
! doubles (uneven lengths), creates the node's table, maps the next node rank's
! shard through it (c_f_pointer) and checks every element; the ranks agree on
! one verdict and rank 0 prints "# verify fortran: OK".
!
! USAGE  mpiexec -n N ./fortran_example [--bad-alignment]
!   --bad-alignment  the last rank hands create a shard 4 bytes off the 8-byte
!                    alignment it asks: every rank gets the same error, rank 0
!                    prints it, all exit 2
! Built twice: with `use mpi_f08` (the communicator's %MPI_VAL goes to the
! library) and, with SHARDTAB_EXAMPLE_USE_MPI defined, with `use mpi`.
! SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
program fortran_example
#ifdef SHARDTAB_EXAMPLE_USE_MPI
  use mpi
#else
  use mpi_f08
#endif
  use, intrinsic :: iso_c_binding, only: c_ptr, c_double, c_size_t, c_int, c_char, c_loc, &
                                         c_f_pointer, c_associated, c_null_ptr
  use, intrinsic :: iso_fortran_env, only: error_unit
  use shardtab
  implicit none
#ifdef SHARDTAB_EXAMPLE_USE_MPI
  integer :: world
#else
  type(MPI_Comm) :: world
#endif
  integer :: comm, rank, nranks, ierr, next_rank, i, bad
  integer(c_int) :: status
  integer(c_size_t) :: n, peer_n, bytes
  type(c_ptr) :: shard, peer
  type(shardtab_table) :: table
  type(shardtab_create_params) :: params
  type(shardtab_device_info) :: info
  real(c_double), allocatable, target :: mine(:), copy(:)
  real(c_double), pointer :: view(:)
  character(len=64) :: arg
  character(len=256) :: why

  shard = c_null_ptr
  call MPI_Init(ierr)
  world = MPI_COMM_WORLD
#ifdef SHARDTAB_EXAMPLE_USE_MPI
  comm = world
#else
  comm = world%MPI_VAL
#endif
  call MPI_Comm_rank(world, rank, ierr)
  call MPI_Comm_size(world, nranks, ierr)
  bad = 0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    if (arg == "--bad-alignment") bad = 1
  end if

  status = shardtab_init(comm)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  status = shardtab_device_info_get(info)

  ! this rank's shard: uneven lengths, values that differ by rank and element
  n = shard_length(rank)
  allocate(mine(n))
  do i = 1, int(n)
    mine(i) = value_of(rank, i)
  end do
  status = shardtab_mem_alloc(n * 8 + 8, shard)   ! 8 spare bytes for --bad-alignment
  if (status == SHARDTAB_SUCCESS) &
    status = shardtab_memcpy_to_device(shard, c_loc(mine), n * 8)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)

  ! the table (collective): 8-byte aligned doubles, as a kernel would need
  params%alignment = 8
  if (bad == 1 .and. rank == nranks - 1) then
    status = shardtab_create(comm, offset(shard, 4), n * 8, table, params)
  else
    status = shardtab_create(comm, shard, n * 8, table, params)
  end if
  if (status /= SHARDTAB_SUCCESS) call fail(status)

  ! the next rank of this node (itself when alone), through the table
  next_rank = shardtab_member(table, mod(shardtab_node_rank(table) + 1, shardtab_node_size(table)))
  peer_n = shard_length(next_rank)
  status = shardtab_peer(table, next_rank, peer, bytes)
  why = ""
  if (status == SHARDTAB_SUCCESS .and. (.not. c_associated(peer) .or. bytes /= peer_n * 8)) then
    write (why, '(a,i0,a,i0,a,i0)') "rank ", rank, ": the table gives rank ", next_rank, &
      " a shard of bytes ", bytes
  end if
  if (status == SHARDTAB_SUCCESS .and. len_trim(why) == 0) then
    if (info%backend == SHARDTAB_BACKEND_HOST) then
      call c_f_pointer(peer, view, [peer_n])      ! the peer's memory itself
    else
      allocate(copy(peer_n))                      ! device memory: read a copy
      status = shardtab_memcpy_to_host(c_loc(copy), peer, bytes)
      view => copy
    end if
  end if
  if (status == SHARDTAB_SUCCESS .and. len_trim(why) == 0) then
    do i = 1, int(peer_n)
      if (view(i) /= value_of(next_rank, i)) then
        write (why, '(a,i0,a,i0,a,i0,a,es24.16,a,es24.16)') "rank ", rank, " read rank ", &
          next_rank, "'s element ", i, " as ", view(i), ", want ", value_of(next_rank, i)
        exit
      end if
    end do
  end if
  if (status == SHARDTAB_SUCCESS .and. len_trim(why) > 0) &
    status = shardtab_error_set(SHARDTAB_ERR_VERIFY, why)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  if (rank == 0) then
    write (*, '(a,a,a,i0,a,i0,a)') "# fortran: backend ", shardtab_backend_name(info%backend), &
      ", ", nranks, " ranks, ", shardtab_node_count(table), " node(s); each read the next node rank's shard"
    write (*, '(a)') "# verify fortran: OK"
  end if

  status = shardtab_destroy(table)
  if (status == SHARDTAB_SUCCESS) status = shardtab_mem_free(shard)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  status = shardtab_finalize()
  deallocate(mine)
  if (allocated(copy)) deallocate(copy)
  call MPI_Finalize(ierr)

contains

  integer(c_size_t) function shard_length(r)
    integer, intent(in) :: r
    shard_length = int(1000 + 37 * r, c_size_t)
  end function

  ! exact in binary: rank * 2^20 + element / 4
  real(c_double) function value_of(r, i)
    integer, intent(in) :: r, i
    value_of = real(r, c_double) * 1048576.0_c_double + real(i, c_double) * 0.25_c_double + 3.0_c_double
  end function

  ! p plus `by` bytes
  type(c_ptr) function offset(p, by)
    type(c_ptr), intent(in) :: p
    integer, intent(in) :: by
    character(kind=c_char), pointer :: bytes_at(:)
    call c_f_pointer(p, bytes_at, [by + 1])
    offset = c_loc(bytes_at(by + 1))
  end function

  ! The agreed failure: rank 0 says it once, every rank leaves with status 2
  ! (the table and memory go with the process; the library's own state is
  ! released by shardtab_finalize).
  subroutine fail(code)
    integer(c_int), intent(in) :: code
    integer(c_int) :: ignored
    if (rank == 0) write (error_unit, '(a,a,a,a,a)') "fortran_example: error: ", &
      shardtab_last_error(), " (", shardtab_status_string(code), ")"
    if (c_associated(table%ptr)) ignored = shardtab_destroy(table)
    if (c_associated(shard)) ignored = shardtab_mem_free(shard)
    ignored = shardtab_finalize()
    call MPI_Finalize(ierr)
    stop 2, quiet=.true.
  end subroutine

end program fortran_example
