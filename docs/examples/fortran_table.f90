! fortran_table.f90 - the table from Fortran (module shardtab): each rank
! writes its shard, reads the next node rank's through the table, then the
! ranks sum their shards with a collective; every element is checked exactly.
!
! USAGE  mpiexec -n N ./fortran_table [--n ELEMENTS]
!   --n  doubles in each rank's shard, at least 2 (default 1000)
! Prints "fortran_table: OK ..." from rank 0 and exits 0; exits 1 when an
! element differs, 2 on bad usage.
!
! The collective's offset is in BYTES and its count in elements, as in C
! (Python's offsets are elements): the sum starts at byte 8, after element 1,
! which it must leave alone.
! SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
program fortran_table
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_double, c_size_t, c_int, c_loc
  use, intrinsic :: iso_fortran_env, only: error_unit
  use shardtab
  implicit none
  integer :: comm, rank, nranks, ierr, next_rank, r, i, wrong, all_wrong
  integer(c_int) :: status
  integer(c_size_t) :: n, bytes
  type(c_ptr) :: shard, peer
  type(shardtab_table) :: table
  real(c_double), allocatable, target :: mine(:), seen(:)
  real(c_double) :: want

  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD%MPI_VAL            ! the library takes the integer handle
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  n = elements_asked()

  ! 1. bind the device, allocate the shard, make the node's table (collective)
  call check(shardtab_init(comm), "shardtab_init")
  call check(shardtab_mem_alloc(n * 8, shard), "shardtab_mem_alloc")
  call check(shardtab_create(comm, shard, n * 8, table), "shardtab_create")

  ! 2. this rank's values, copied into its shard; every rank's in place
  allocate(mine(n), seen(n))
  do i = 1, int(n)
    mine(i) = value_of(rank, i)
  end do
  call check(shardtab_memcpy_to_device(shard, c_loc(mine), n * 8), "shardtab_memcpy_to_device")
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! 3. the next node rank's shard through the table (a copy: on GPUs it is
  !    device memory; on the host backend c_f_pointer(peer, view, [n]) maps it)
  next_rank = shardtab_member(table, mod(shardtab_node_rank(table) + 1, shardtab_node_size(table)))
  call check(shardtab_peer(table, next_rank, peer, bytes), "shardtab_peer")
  call check(shardtab_memcpy_to_host(c_loc(seen), peer, bytes), "shardtab_memcpy_to_host")
  wrong = 0
  do i = 1, int(n)
    if (seen(i) /= value_of(next_rank, i)) call differs("read through the table", next_rank, i, seen(i), &
                                                        value_of(next_rank, i))
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)   ! every rank has read before the shards change

  ! 4. the sum over the ranks, in place: from byte 8 (element 2), n - 1 elements
  status = shardtab_all_reduce(table, SHARDTAB_SUM, SHARDTAB_DOUBLE, 8_c_size_t, n - 1)
  if (status == SHARDTAB_SUCCESS) status = shardtab_stream_synchronize()
  if (status == SHARDTAB_SUCCESS) status = shardtab_signal_check(table)
  call check(shardtab_agree(comm, status), "shardtab_all_reduce")
  call check(shardtab_memcpy_to_host(c_loc(seen), shard, n * 8), "shardtab_memcpy_to_host")
  if (seen(1) /= value_of(rank, 1)) call differs("left alone by the sum", rank, 1, seen(1), &
                                                 value_of(rank, 1))
  do i = 2, int(n)
    want = 0
    do r = 0, nranks - 1
      want = want + value_of(r, i)
    end do
    if (seen(i) /= want) call differs("sum", rank, i, seen(i), want)
  end do

  ! 5. one verdict; then tear down
  call MPI_Allreduce(wrong, all_wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. all_wrong == 0) write (*, '(a,i0,a,a,a,i0,a)') "fortran_table: OK (", &
    nranks, " ranks, backend ", shardtab_backend_name(backend_of()), ", ", n, &
    " doubles a rank, the next node rank's read, the sum from byte 8)"
  if (rank == 0 .and. all_wrong /= 0) write (*, '(a,i0,a)') "fortran_table: FAILED: ", &
    all_wrong, " wrong values (each rank's first on stderr)"
  call check(shardtab_destroy(table), "shardtab_destroy")
  call check(shardtab_mem_free(shard), "shardtab_mem_free")
  call check(shardtab_finalize(), "shardtab_finalize")
  call MPI_Finalize(ierr)
  if (all_wrong /= 0) stop 1, quiet=.true.

contains

  ! rank r's element i: different on every rank and element, exact in a double
  real(c_double) function value_of(r, i)
    integer, intent(in) :: r, i
    value_of = real(r, c_double) * 1048576.0_c_double + real(i, c_double) * 0.25_c_double + 3
  end function

  integer(c_int) function backend_of()
    type(shardtab_device_info) :: info
    call check(shardtab_device_info_get(info), "shardtab_device_info")
    backend_of = info%backend
  end function

  ! --n N, or 1000; bad input: one message from rank 0, and every rank exits 2
  integer(c_size_t) function elements_asked()
    character(len=64) :: arg, value
    integer :: got, io
    elements_asked = 1000
    if (command_argument_count() == 0) return
    call get_command_argument(1, arg)
    value = ""
    if (command_argument_count() == 2) call get_command_argument(2, value)
    read (value, *, iostat=io) got
    if (arg == "--n" .and. command_argument_count() == 2 .and. io == 0) then
      if (got >= 2) then
        elements_asked = got
        return
      end if
    end if
    if (rank == 0) write (error_unit, '(a)') "fortran_table: expected no options or --n N " // &
      "with N from 2 to 2147483647"
    call MPI_Finalize(ierr)
    stop 2, quiet=.true.
  end function

  ! a failed library call ends the job on every rank, with the library's message
  subroutine check(code, call_name)
    integer(c_int), intent(in) :: code
    character(len=*), intent(in) :: call_name
    if (code == SHARDTAB_SUCCESS) return
    write (error_unit, '(a,a,a,a,a,a)') "fortran_table: ", call_name, ": ", &
      shardtab_status_string(code), ": ", shardtab_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine

  ! counts a wrong element; names this rank's first on stderr
  subroutine differs(what, owner, i, got, expected)
    character(len=*), intent(in) :: what
    integer, intent(in) :: owner, i
    real(c_double), intent(in) :: got, expected
    wrong = wrong + 1
    if (wrong == 1) write (error_unit, '(a,i0,a,a,a,i0,a,i0,a,es25.17,a,es25.17)') &
      "fortran_table: rank ", rank, ": ", what, ": rank ", owner, "'s element ", i, " is ", &
      got, ", expected ", expected
  end subroutine

end program fortran_table
