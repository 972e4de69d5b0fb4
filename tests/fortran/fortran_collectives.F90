! fortran_collectives.F90 - the collectives of module shardtab at work: each
! rank fills its shard (n doubles, values of many magnitudes from a generator
! seeded by the rank), then, through the table:
!   shardtab_all_reduce  SHARDTAB_SUM of SHARDTAB_DOUBLE over a region from
!                        byte 16 that stops one element short of the end;
!                        every element checked exactly against a sum in rank
!                        order computed here, and the elements around the
!                        region unchanged;
!                        SHARDTAB_MAX of SHARDTAB_INT64 and SHARDTAB_MIN of
!                        SHARDTAB_FLOAT over the same memory, likewise;
!   shardtab_broadcast   from the last rank; shardtab_all_gather of 5 each.
! The ranks agree on each verdict and rank 0 prints "# verify fortran
! collectives: OK". Without SHARDTAB_RANKS_PER_NODE (one node), node-rank
! order is rank order; with SHARDTAB_RANKS_PER_NODE=1 (a node each), node
! order is too.
!
! USAGE  mpiexec -n N ./fortran_collectives [--mismatch]
!   --mismatch  the last rank's sum is one element longer: every rank gets the
!               same error (the ranks' calls differ), rank 0 prints it, all
!               exit 2
! SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
program fortran_collectives
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_double, c_float, c_int64_t, c_size_t, c_int, &
                                         c_loc, c_associated, c_null_ptr
  use, intrinsic :: iso_fortran_env, only: error_unit
  use shardtab
  implicit none
  integer, parameter :: n = 1003, gathered = 5
  integer :: comm, rank, nranks, ierr, i, r, mismatch
  integer(c_int) :: status
  integer(c_size_t) :: count
  type(c_ptr) :: shard
  type(shardtab_table) :: table
  real(c_double), allocatable, target :: mine(:), got(:), want(:)
  integer(c_int64_t), allocatable, target :: imine(:), igot(:), iwant(:)
  real(c_float), allocatable, target :: fmine(:), fgot(:), fwant(:)
  character(len=64) :: arg
  character(len=256) :: why

  shard = c_null_ptr
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD%MPI_VAL
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  mismatch = 0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    if (arg == "--mismatch") mismatch = 1
  end if

  status = shardtab_init(comm)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  allocate(mine(n), got(n), want(n), imine(n), igot(n), iwant(n), fmine(2 * n), fgot(2 * n), &
           fwant(2 * n))
  status = shardtab_mem_alloc(int(n, c_size_t) * 8, shard)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  status = shardtab_create(comm, shard, int(n, c_size_t) * 8, table)
  if (status /= SHARDTAB_SUCCESS) call fail(status)

  ! ---- sum of doubles over elements 3 .. n - 1 (byte 16, n - 3 of them)
  call doubles_of(rank, mine)
  want = mine
  do i = 3, n - 1
    want(i) = double_of(0, i)
    do r = 1, nranks - 1
      want(i) = want(i) + double_of(r, i)      ! rank order, one rank at a time
    end do
  end do
  count = int(n - 3, c_size_t)
  if (mismatch == 1 .and. rank == nranks - 1) count = count + 1
  status = shardtab_memcpy_to_device(shard, c_loc(mine), int(n, c_size_t) * 8)
  if (status == SHARDTAB_SUCCESS) &
    status = shardtab_all_reduce(table, SHARDTAB_SUM, SHARDTAB_DOUBLE, 16_c_size_t, count)
  call finish(status)
  call check_doubles("double sum", "the rank-order sum", "sum of doubles")

  ! ---- max of int64 over the whole shard
  do i = 1, n
    imine(i) = int64_of(rank, i)
    iwant(i) = int64_of(0, i)
    do r = 1, nranks - 1
      iwant(i) = max(iwant(i), int64_of(r, i))
    end do
  end do
  status = shardtab_memcpy_to_device(shard, c_loc(imine), int(n, c_size_t) * 8)
  if (status == SHARDTAB_SUCCESS) &
    status = shardtab_all_reduce(table, SHARDTAB_MAX, SHARDTAB_INT64, 0_c_size_t, int(n, c_size_t))
  call finish(status)
  status = shardtab_memcpy_to_host(c_loc(igot), shard, int(n, c_size_t) * 8)
  why = ""
  do i = 1, n
    if (igot(i) /= iwant(i)) then
      write (why, '(a,i0,a,i0,a,i0,a,i0)') "rank ", rank, ": the int64 max's element ", i, &
        " is ", igot(i), ", want ", iwant(i)
      exit
    end if
  end do
  call verdict(status, why, "max of int64")

  ! ---- min of floats over 2n - 2 of them from byte 4
  do i = 1, 2 * n
    fmine(i) = real(double_of(rank, i), c_float)
    fwant(i) = fmine(i)
    if (i == 1 .or. i == 2 * n) cycle
    fwant(i) = real(double_of(0, i), c_float)
    do r = 1, nranks - 1
      if (real(double_of(r, i), c_float) < fwant(i)) fwant(i) = real(double_of(r, i), c_float)
    end do
  end do
  status = shardtab_memcpy_to_device(shard, c_loc(fmine), int(n, c_size_t) * 8)
  if (status == SHARDTAB_SUCCESS) &
    status = shardtab_all_reduce(table, SHARDTAB_MIN, SHARDTAB_FLOAT, 4_c_size_t, &
                                 int(2 * n - 2, c_size_t))
  call finish(status)
  status = shardtab_memcpy_to_host(c_loc(fgot), shard, int(n, c_size_t) * 8)
  why = ""
  do i = 1, 2 * n
    if (fgot(i) /= fwant(i)) then
      write (why, '(a,i0,a,i0,a,es16.8,a,es16.8)') "rank ", rank, ": the float min's element ", &
        i, " is ", fgot(i), ", want ", fwant(i)
      exit
    end if
  end do
  call verdict(status, why, "min of floats")

  ! ---- broadcast from the last rank: 100 doubles from element 2
  call doubles_of(rank, mine)
  want = mine
  do i = 2, 101
    want(i) = double_of(nranks - 1, i)
  end do
  status = shardtab_memcpy_to_device(shard, c_loc(mine), int(n, c_size_t) * 8)
  if (status == SHARDTAB_SUCCESS) &
    status = shardtab_broadcast(table, nranks - 1, SHARDTAB_DOUBLE, 8_c_size_t, 100_c_size_t)
  call finish(status)
  call check_doubles("broadcast", "want", "broadcast")

  ! ---- all-gather: rank q's 5 doubles at elements q * 5 + 1 ..
  call doubles_of(rank, mine)
  want = mine
  do r = 0, nranks - 1
    do i = r * gathered + 1, (r + 1) * gathered
      want(i) = double_of(r, i)
    end do
  end do
  status = shardtab_memcpy_to_device(shard, c_loc(mine), int(n, c_size_t) * 8)
  if (status == SHARDTAB_SUCCESS) &
    status = shardtab_all_gather(table, SHARDTAB_DOUBLE, 0_c_size_t, int(gathered, c_size_t))
  call finish(status)
  call check_doubles("all-gather", "want", "all-gather")

  if (rank == 0) then
    write (*, '(a,i0,a,i0,a)') "# fortran collectives: ", nranks, " ranks, ", &
      shardtab_node_count(table), " node(s); sum, max, min, broadcast, all-gather checked exactly"
    write (*, '(a)') "# verify fortran collectives: OK"
  end if
  status = shardtab_destroy(table)
  if (status == SHARDTAB_SUCCESS) status = shardtab_mem_free(shard)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  status = shardtab_finalize()
  call MPI_Finalize(ierr)

contains

  ! Rank r's element i: a MINSTD generator seeded by r and i, scaled over six
  ! decades, signs mixed (never all ones or zeros; the sums round).
  real(c_double) function double_of(r, i)
    integer, intent(in) :: r, i
    integer(c_int64_t) :: x
    integer :: k
    x = int(1 + 7919 * r + 104729 * i, c_int64_t)
    do k = 1, 3
      x = mod(48271_c_int64_t * x, 2147483647_c_int64_t)
    end do
    double_of = (real(x, c_double) / 2147483647.0_c_double - 0.5_c_double) * &
                10.0_c_double ** (mod(x, 7_c_int64_t) - 3)
  end function

  subroutine doubles_of(r, values)
    integer, intent(in) :: r
    real(c_double), intent(out) :: values(:)
    integer :: j
    do j = 1, size(values)
      values(j) = double_of(r, j)
    end do
  end subroutine

  ! Rank r's int64 element i: large, of both signs.
  integer(c_int64_t) function int64_of(r, i)
    integer, intent(in) :: r, i
    int64_of = int(double_of(r, i) * 1.0e12_c_double, c_int64_t) * 997_c_int64_t + int(r, c_int64_t)
  end function

  ! After a collective: this rank's own refusal, or what the node found
  ! (shardtab_signal_check waits for the call), agreed by every rank of the
  ! table, bounded by its patience.
  subroutine finish(local)
    integer(c_int), intent(in) :: local
    integer(c_int) :: s
    s = local
    if (s == SHARDTAB_SUCCESS) s = shardtab_signal_check(table)
    s = shardtab_table_agree(table, s)
    if (s /= SHARDTAB_SUCCESS) call fail(s)
  end subroutine

  ! One verdict: this rank's copy status, or what it found wrong, agreed.
  subroutine verdict(local, what_failed, what)
    integer(c_int), intent(in) :: local
    character(len=*), intent(in) :: what_failed, what
    integer(c_int) :: s
    s = local
    if (s == SHARDTAB_SUCCESS .and. len_trim(what_failed) > 0) &
      s = shardtab_error_set(SHARDTAB_ERR_VERIFY, what_failed)
    s = shardtab_agree(comm, s)
    if (s /= SHARDTAB_SUCCESS) call fail(s)
    if (rank == 0) write (*, '(a,a)') "ok: ", what
  end subroutine

  ! After a collective of doubles: the shard read back against want, the first
  ! element that differs named ("the <what>'s element i is x, <against> y"),
  ! then the verdict on <title>.
  subroutine check_doubles(what, against, title)
    character(len=*), intent(in) :: what, against, title
    integer(c_int) :: s
    integer :: j
    s = shardtab_memcpy_to_host(c_loc(got), shard, int(n, c_size_t) * 8)
    why = ""
    do j = 1, n
      if (got(j) /= want(j)) then
        write (why, '(a,i0,a,i0,a,es25.17,a,es25.17)') "rank ", rank, ": the " // what // &
          "'s element ", j, " is ", got(j), ", " // against // " ", want(j)
        exit
      end if
    end do
    call verdict(s, why, title)
  end subroutine

  ! The agreed failure: rank 0 says it once, every rank leaves with status 2.
  subroutine fail(code)
    integer(c_int), intent(in) :: code
    integer(c_int) :: ignored
    if (rank == 0) write (error_unit, '(a,a,a,a,a)') "fortran_collectives: error: ", &
      shardtab_last_error(), " (", shardtab_status_string(code), ")"
    if (c_associated(table%ptr)) ignored = shardtab_destroy(table)
    if (c_associated(shard)) ignored = shardtab_mem_free(shard)
    ignored = shardtab_finalize()
    call MPI_Finalize(ierr)
    stop 2, quiet=.true.
  end subroutine

end program fortran_collectives
