! fortran_halo.F90 - the halo exchange of module shardtab at work on a 2-D
! grid of ranks (MPI_Dims_create's): each rank's block u(1-g:nx+g, 1-g:ny+g)
! of doubles, axis 0 = the first index (x), periodic along x, not along y,
! with corners, lies 64 bytes into its shard; the domain's cuts are uneven.
! Every interior cell starts as a function of its cell in the whole domain
! (never all ones or zeros), every ghost cell as a poison value. After one
! shardtab_halo_exchange every cell is checked exactly: a ghost cell with a
! neighbour holds the function of the cell it mirrors (wrapped along x), the
! others (y's ends) still the poison, the interior unchanged; coord and
! neighbor as the module's header says. The ranks agree on the verdict and
! rank 0 prints "# verify fortran halo: OK".
!
! USAGE  mpiexec -n N ./fortran_halo
! SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
program fortran_halo
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_double, c_size_t, c_int, c_loc, c_associated, &
                                         c_null_ptr
  use, intrinsic :: iso_fortran_env, only: error_unit
  use shardtab
  implicit none
  integer, parameter :: g = 1, offset_doubles = 8
  real(c_double), parameter :: poison = -7.5e300_c_double
  integer :: comm, rank, nranks, ierr, dims(2), cx, cy, whole_x, whole_y, nx, ny, x0, y0
  integer :: i, j, right, said(4)
  integer(c_int) :: status
  integer(c_size_t) :: bytes
  type(c_ptr) :: shard
  type(shardtab_table) :: table
  type(shardtab_halo) :: halo
  type(shardtab_halo_params) :: hp
  real(c_double), allocatable, target :: mem(:)
  real(c_double), allocatable :: want(:, :)
  character(len=256) :: why

  shard = c_null_ptr
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD%MPI_VAL
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  dims = 0
  call MPI_Dims_create(nranks, 2, dims, ierr)

  ! this rank's block: x (the first index) varies fastest over the ranks
  cx = mod(rank, dims(1))
  cy = rank / dims(1)
  whole_x = 5 * dims(1) + 2
  whole_y = 4 * dims(2) + 1
  call cut(whole_x, dims(1), cx, nx, x0)
  call cut(whole_y, dims(2), cy, ny, y0)

  status = shardtab_init(comm, allow_shared_device=.true.)   ! a GPU machine: ranks may share one
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  bytes = int(offset_doubles + (nx + 2 * g) * (ny + 2 * g), c_size_t) * 8
  allocate(mem(offset_doubles + (nx + 2 * g) * (ny + 2 * g)), want(1 - g:nx + g, 1 - g:ny + g))
  status = shardtab_mem_alloc(bytes, shard)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  status = shardtab_create(comm, shard, bytes, table)
  if (status /= SHARDTAB_SUCCESS) call fail(status)

  ! the block as it starts: the interior from the whole domain, ghosts poisoned
  mem = 1.25_c_double
  want = poison
  do j = 1, ny
    do i = 1, nx
      want(i, j) = cell_of(x0 + i - 1, y0 + j - 1)
    end do
  end do
  mem(offset_doubles + 1:) = reshape(want, [size(want)])

  hp%dims = 2
  hp%grid(1:2) = dims
  hp%periodic(1:2) = [1, 0]
  hp%block(1:2) = [int(nx, c_size_t), int(ny, c_size_t)]
  hp%ghost(1:2) = int(g, c_size_t)
  hp%elem_bytes = 8
  hp%offset = int(offset_doubles, c_size_t) * 8
  hp%corners = 1
  status = shardtab_memcpy_to_device(shard, c_loc(mem), bytes)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  status = shardtab_halo_create(table, hp, halo)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  status = shardtab_halo_exchange(halo)
  if (status == SHARDTAB_SUCCESS) status = shardtab_signal_check(table)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)

  ! what each ghost cell must hold: the cell it mirrors, where it has one
  do j = 1 - g, ny + g
    do i = 1 - g, nx + g
      if (i >= 1 .and. i <= nx .and. j >= 1 .and. j <= ny) cycle
      if (y0 + j - 1 < 0 .or. y0 + j - 1 >= whole_y) cycle   ! y's ends: no neighbour
      want(i, j) = cell_of(modulo(x0 + i - 1, whole_x), y0 + j - 1)
    end do
  end do
  status = shardtab_memcpy_to_host(c_loc(mem), shard, bytes)
  why = ""
  if (any(mem(1:offset_doubles) /= 1.25_c_double)) &
    write (why, '(a,i0,a)') "rank ", rank, ": a double before the block changed"
  block
    real(c_double) :: got(1 - g:nx + g, 1 - g:ny + g)
    got = reshape(mem(offset_doubles + 1:), shape(got))
    outer: do j = 1 - g, ny + g
      do i = 1 - g, nx + g
        if (got(i, j) /= want(i, j)) then
          write (why, '(a,i0,a,i0,a,i0,a,es25.17,a,es25.17)') "rank ", rank, ": u(", i, ", ", j, &
            ") is ", got(i, j), ", expected ", want(i, j)
          exit outer
        end if
      end do
    end do outer
  end block
  right = modulo(cx + 1, dims(1)) + cy * dims(1)
  said = [shardtab_halo_coord(halo, 0), shardtab_halo_coord(halo, 1), &
          shardtab_halo_neighbor(halo, 1), shardtab_halo_neighbor(halo, 0, -1)]
  if (said(1) /= cx .or. said(2) /= cy) &
    write (why, '(a,i0,a,2i4)') "rank ", rank, ": shardtab_halo_coord says", said(1:2)
  if (said(3) /= right) write (why, '(a,i0,a,i0,a,i0)') "rank ", rank, &
    ": shardtab_halo_neighbor(halo, 1) is ", said(3), ", expected ", right
  if (cy == 0 .and. said(4) /= -1) write (why, '(a,i0,a,i0)') "rank ", rank, &
    ": shardtab_halo_neighbor(halo, 0, -1) at y's end is ", said(4)
  ! doubles at a 4-byte multiple, a few KiB of ghosts: pushed as LL words
  if (shardtab_halo_form(halo) /= SHARDTAB_HALO_PUSHED_LL .or. shardtab_halo_pushed(halo) /= 1) &
    write (why, '(a,i0,a,i0)') "rank ", rank, ": shardtab_halo_form(halo) is ", &
    shardtab_halo_form(halo)
  if (status == SHARDTAB_SUCCESS .and. len_trim(why) > 0) &
    status = shardtab_error_set(SHARDTAB_ERR_VERIFY, why)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)

  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a)') "# fortran halo: ", nranks, " ranks on a ", &
      dims(1), "x", dims(2), " grid, ", whole_x, "x", whole_y, &
      " cells, every cell checked exactly"
    write (*, '(a)') "# verify fortran halo: OK"
  end if
  call release()

contains

  ! The whole domain's cell (x, y), from 0: a MINSTD generator seeded by it.
  real(c_double) function cell_of(x, y)
    integer, intent(in) :: x, y
    integer(8) :: k
    integer :: m
    k = int(1 + 7919 * x + 104729 * y, 8)
    do m = 1, 3
      k = mod(48271_8 * k, 2147483647_8)
    end do
    cell_of = real(k, c_double) / 2147483647.0_c_double - 0.5_c_double
  end function

  ! The cells coordinate c of `parts` holds along an axis of n, and its first.
  subroutine cut(n, parts, c, cells, first)
    integer, intent(in) :: n, parts, c
    integer, intent(out) :: cells, first
    cells = n / parts
    first = c * cells + min(c, mod(n, parts))
    if (c < mod(n, parts)) cells = cells + 1
  end subroutine

  ! The agreed failure: rank 0 says it once, every rank leaves with status 2.
  subroutine fail(code)
    integer(c_int), intent(in) :: code
    if (rank == 0) write (error_unit, '(5a)') "fortran_halo: error: ", shardtab_last_error(), &
      " (", shardtab_status_string(code), ")"
    call release()
    stop 2, quiet=.true.
  end subroutine

  ! The halo, the table, the shard and the library gone (each where there is one), MPI ended.
  subroutine release()
    integer(c_int) :: ignored
    ignored = shardtab_halo_destroy(halo)
    if (c_associated(table%ptr)) ignored = shardtab_destroy(table)
    if (c_associated(shard)) ignored = shardtab_mem_free(shard)
    ignored = shardtab_finalize()
    call MPI_Finalize(ierr)
  end subroutine

end program fortran_halo
