! fortran_faces.F90 - the direct faces of module shardtab at work on a periodic
! ring of ranks: each face is a row of nx doubles, two parities, 64 bytes into
! the shard. Twice: the faces through the table where the neighbour is on this
! node (through MPI across simulated nodes), then every face through MPI
! (through_mpi, staged). Each rank stores its two faces of one parity where
! shardtab_faces_dest says (route TABLE), or hands them to
! shardtab_faces_exchange (route MPI), its values a function of the rank, side
! and parity (never all ones or zeros); the shard starts as a pattern. Then
! every double of the shard is checked exactly: each ghost face of that parity
! holds the face its neighbour made toward this rank, everything else the
! pattern. neighbor, route, node_peer, ghost and offset as the module's header
! says. The ranks agree on the verdict and rank 0 prints
! "# verify fortran faces: OK".
!
! USAGE  mpiexec -n N ./fortran_faces
! SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
program fortran_faces
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_double, c_size_t, c_int, c_loc, c_associated, &
                                         c_null_ptr, c_intptr_t
  use, intrinsic :: iso_fortran_env, only: error_unit
  use shardtab
  implicit none
  integer, parameter :: nx = 13, offset_doubles = 8, total = offset_doubles + 4 * nx + 5
  integer :: comm, rank, nranks, ierr, pass, routes(2)
  integer(c_int) :: status
  integer(c_size_t), parameter :: bytes = total * 8_c_size_t
  type(c_ptr) :: shard, out
  type(shardtab_table) :: table
  type(shardtab_faces) :: faces
  character(len=256) :: why

  shard = c_null_ptr
  out = c_null_ptr
  why = ""
  routes = 0
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD%MPI_VAL
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)

  status = shardtab_init(comm, allow_shared_device=.true.)   ! a GPU machine: ranks may share one
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  status = shardtab_mem_alloc(bytes, shard)
  if (status == SHARDTAB_SUCCESS) status = shardtab_mem_alloc(2 * nx * 8_c_size_t, out)
  status = shardtab_agree(comm, status)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  status = shardtab_create(comm, shard, bytes, table)
  if (status /= SHARDTAB_SUCCESS) call fail(status)
  do pass = 0, 1
    call one_pass(pass)
  end do

  status = shardtab_agree(comm, merge(SHARDTAB_ERR_VERIFY, SHARDTAB_SUCCESS, why /= ""))
  if (status /= SHARDTAB_SUCCESS) then
    write (error_unit, '(a, i0, 2a)') "fortran_faces: rank ", rank, ": ", trim(why)
    call fail(status)
  end if
  if (rank == 0) then
    write (*, '(a, i0, a, i0, a, i0, a)') "# fortran faces: ", nranks, " ranks, rank 0's routes ", &
      routes(1), " through the table, ", routes(2), " through MPI"
    write (*, '(a)') "# verify fortran faces: OK"
  end if
  call release()

contains

  ! One exchange of parity `pass`: every face through MPI in pass 1.
  subroutine one_pass(pass)
    integer, intent(in) :: pass
    type(shardtab_faces_params) :: fp
    real(c_double), target :: before(total), after(total), face(nx), faces_out(nx, 2)
    type(c_ptr) :: src(2)
    integer :: side, n, route, at, i, peer, node_peer
    integer(c_int) :: s

    fp%dims = 1
    fp%grid(1) = nranks
    fp%periodic(1) = 1
    fp%face_bytes(1) = nx * 8
    fp%parities = 2
    fp%offset = offset_doubles * 8
    fp%through_mpi = pass
    do i = 1, total
      before(i) = pattern(rank, i)
    end do
    s = shardtab_memcpy_to_device(shard, c_loc(before), bytes)
    s = shardtab_agree(comm, s)
    if (s == SHARDTAB_SUCCESS) s = shardtab_faces_create(table, fp, faces)   ! agreed
    if (s /= SHARDTAB_SUCCESS) call fail(s)
    if (shardtab_faces_bytes(fp) /= 4 * nx * 8) call note("shardtab_faces_bytes")
    src = c_null_ptr
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    do side = 0, 1
      n = modulo(rank + merge(1, -1, side == 1), nranks)
      route = shardtab_faces_route(faces, 0, side)
      if (shardtab_faces_neighbor(faces, 0, side) /= n) call note("neighbor")
      peer = shardtab_node_rank_of(table, n)
      node_peer = shardtab_faces_node_peer(faces, 0, side)
      if (pass == 1 .or. peer < 0) then
        if (route /= SHARDTAB_FACES_MPI .or. node_peer /= -1) call note("a route that is not MPI")
      else if (route /= SHARDTAB_FACES_TABLE .or. node_peer /= peer) then
        call note("a route or node peer that is not the table's")
      end if
      at = offset_doubles + pass * 2 * nx + side * nx
      if (shardtab_faces_offset(fp, 0, side, pass) /= at * 8) call note("shardtab_faces_offset")
      if (transfer(shardtab_faces_ghost(faces, 0, side, pass), 0_c_intptr_t) /= &
          transfer(shard, 0_c_intptr_t) + at * 8) call note("shardtab_faces_ghost")
      do i = 1, nx
        face(i) = made(rank, side, pass, i)
      end do
      faces_out(:, side + 1) = face
      if (route == SHARDTAB_FACES_TABLE) then
        s = shardtab_memcpy_to_device(shardtab_faces_dest(faces, 0, side, pass), c_loc(face), &
                                      nx * 8_c_size_t)
        if (s /= SHARDTAB_SUCCESS) call note("a store through the table")
        if (rank == 0) routes(1) = routes(1) + 1
      else
        if (c_associated(shardtab_faces_dest(faces, 0, side, pass))) call note("dest of MPI")
        src(side + 1) = transfer(transfer(out, 0_c_intptr_t) + side * nx * 8, out)
        if (rank == 0) routes(2) = routes(2) + 1
      end if
    end do
    s = shardtab_memcpy_to_device(out, c_loc(faces_out), 2 * nx * 8_c_size_t)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)   ! every store through the table done
    if (s == SHARDTAB_SUCCESS) s = shardtab_faces_exchange(faces, pass, src)
    if (s == SHARDTAB_SUCCESS) s = shardtab_memcpy_to_host(c_loc(after), shard, bytes)
    s = shardtab_agree(comm, s)   ! no rank leaves for release() while the others wait
    if (s /= SHARDTAB_SUCCESS) call fail(s)
    ! what each ghost face of this parity must hold: the neighbour's face toward this rank
    do side = 0, 1
      n = modulo(rank + merge(1, -1, side == 1), nranks)
      at = offset_doubles + pass * 2 * nx + side * nx
      do i = 1, nx
        before(at + i) = made(n, 1 - side, pass, i)
      end do
    end do
    do i = 1, total
      if (after(i) /= before(i)) then
        write (why, '(a, i0, a, i0)') "pass ", pass, ": the shard's double ", i
        exit
      end if
    end do
    s = shardtab_faces_destroy(faces)
    if (c_associated(faces%ptr) .or. s /= SHARDTAB_SUCCESS) call note("shardtab_faces_destroy")
  end subroutine

  ! What rank r makes for its face toward side, of a parity: never all ones or zeros.
  real(c_double) function made(r, side, parity, i)
    integer, intent(in) :: r, side, parity, i
    made = real(r * 1000 + side * 100 + parity * 10, c_double) + real(i, c_double) / 8.0_c_double
  end function

  ! The shard's pattern before a pass.
  real(c_double) function pattern(r, i)
    integer, intent(in) :: r, i
    pattern = -real(r + 1, c_double) * 3.25_c_double - real(i, c_double)
  end function

  subroutine note(what)
    character(len=*), intent(in) :: what
    if (why == "") why = what
  end subroutine

  ! The agreed failure: rank 0 says it once, every rank leaves with status 2.
  subroutine fail(code)
    integer(c_int), intent(in) :: code
    if (rank == 0) write (error_unit, '(5a)') "fortran_faces: error: ", shardtab_last_error(), &
      " (", shardtab_status_string(code), ")"
    call release()
    stop 2, quiet=.true.
  end subroutine

  ! The faces, the table, the buffers and the library gone (each where there is one), MPI ended.
  subroutine release()
    integer(c_int) :: ignored
    ignored = shardtab_faces_destroy(faces)
    if (c_associated(table%ptr)) ignored = shardtab_destroy(table)
    if (c_associated(shard)) ignored = shardtab_mem_free(shard)
    if (c_associated(out)) ignored = shardtab_mem_free(out)
    ignored = shardtab_finalize()
    call MPI_Finalize(ierr)
  end subroutine

end program fortran_faces
