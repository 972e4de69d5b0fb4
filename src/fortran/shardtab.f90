! shardtab.f90 - the Fortran front of libshardtab: module shardtab, over the C
! API through iso_c_binding. Communicators are Fortran handles: an integer
! with `use mpi`, comm%MPI_VAL with `use mpi_f08`; the library turns them into
! C communicators (MPI_Comm_f2c, src/shardtab/fhandle.c). Every function
! returns the library's status (SHARDTAB_SUCCESS is 0), and a failed
! collective fails on every rank with the same shardtab_last_error().
!
! Pointers stay type(c_ptr): map one with c_f_pointer. A shard lives in
! device memory on a GPU backend (read it there, or copy it with
! shardtab_memcpy_to_host); on the host backend it is ordinary memory.
!
! The halo exchange (shardtab_halo.h): type(shardtab_halo_params) is
! shardtab_halo_params_t, its arrays indexed from 1 for the library's axes
! 0, 1, 2. A Fortran array u(1-g:nx+g, 1-g:ny+g, 1-g:nz+g) maps with axis 0
! = its first index (x, the fastest in memory): block = [nx, ny, nz], ghost =
! [g, g, g], strides 0 (packed), offset the bytes from the shard's start to
! u(1-g, 1-g, 1-g). Ranks lie on the grid with axis 0 varying fastest (comm
! rank r at (mod(r, grid(1)), mod(r / grid(1), grid(2)), r / (grid(1) grid(2)))).
!
! The direct faces (shardtab_faces.h): type(shardtab_faces_params) is
! shardtab_faces_params_t on the same grid; axis and side arguments are the
! library's (0-based: axis 0 to 2, side 0 the low face, 1 the high one;
! parity 0 or 1), and the places are type(c_ptr) for a kernel to store into.
! Destroy the faces before their table.
! SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
module shardtab
  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_double, c_ptr, c_char, &
                                         c_null_ptr, c_null_char, c_associated, c_f_pointer
  implicit none
  private

  ! ---- statuses and backends: the values of include/shardtab.h ----
  integer(c_int), parameter, public :: SHARDTAB_SUCCESS = 0, SHARDTAB_ERR_INVALID_ARG = 1, &
    SHARDTAB_ERR_NO_MEMORY = 2, SHARDTAB_ERR_NO_DEVICE = 3, SHARDTAB_ERR_DEVICE = 4, &
    SHARDTAB_ERR_IPC = 5, SHARDTAB_ERR_PEER_ACCESS = 6, SHARDTAB_ERR_DESCRIPTOR = 7, &
    SHARDTAB_ERR_MPI = 8, SHARDTAB_ERR_UNSUPPORTED = 9, SHARDTAB_ERR_VERIFY = 10, &
    SHARDTAB_ERR_TIMEOUT = 11, SHARDTAB_ERR_ABORTED = 12
  integer(c_int), parameter, public :: SHARDTAB_BACKEND_HOST = 0, SHARDTAB_BACKEND_HIP = 1, &
    SHARDTAB_BACKEND_CUDA = 2
  ! the collectives' element types and operations: include/shardtab_types.h
  integer(c_int), parameter, public :: SHARDTAB_FLOAT = 0, SHARDTAB_DOUBLE = 1, SHARDTAB_INT64 = 2
  integer(c_int), parameter, public :: SHARDTAB_SUM = 0, SHARDTAB_MIN = 1, SHARDTAB_MAX = 2
  ! the exact sum rounded once: the same bits at any rank count (floats and doubles)
  integer(c_int), parameter, public :: SHARDTAB_SUM_EXACT = 3
  ! how a halo's cells move inside the node (shardtab_halo_form): shardtab/halo_types.h
  integer(c_int), parameter, public :: SHARDTAB_HALO_PULLED = 0, SHARDTAB_HALO_PUSHED_LL = 1, &
    SHARDTAB_HALO_PUSHED_PUT = 2

  ! shardtab_create_params_t; the defaults are the C defaults (zeros)
  type, bind(C), public :: shardtab_create_params
    type(c_ptr) :: stream = c_null_ptr        ! hipStream_t / cudaStream_t, or the default
    integer(c_int) :: signal_slots = 0        ! 0: SHARDTAB_SIGNAL_SLOTS_DEFAULT
    real(c_double) :: wait_timeout_s = 0      ! 0: $SHARDTAB_WAIT_TIMEOUT or 10 s
    integer(c_size_t) :: alignment = 0        ! the shard's address must be a multiple
    type(c_ptr) :: label = c_null_ptr         ! a NUL-terminated name (c_loc of a c_char
                                              ! array), rank 0's on every rank, or none
  end type

  ! shardtab_device_info_t
  type, bind(C), public :: shardtab_device_info
    integer(c_int) :: backend, device, visible_devices, shared
    character(kind=c_char) :: name(64), pci_bus_id(32)
  end type

  ! a table: opaque; c_null_ptr before create and after destroy
  type, public :: shardtab_table
    type(c_ptr) :: ptr = c_null_ptr
  end type

  ! shardtab_halo_params_t (include/shardtab_halo.h); element a of each array
  ! is the library's axis a - 1; axes past dims are ignored
  integer, parameter, public :: SHARDTAB_HALO_MAX_DIMS = 3
  type, bind(C), public :: shardtab_halo_params
    integer(c_int) :: dims = 0                              ! 1, 2 or 3
    integer(c_int) :: grid(SHARDTAB_HALO_MAX_DIMS) = 0      ! ranks along each axis
    integer(c_int) :: periodic(SHARDTAB_HALO_MAX_DIMS) = 0  ! nonzero: the axis wraps
    integer(c_size_t) :: block(SHARDTAB_HALO_MAX_DIMS) = 0  ! this rank's interior cells
    integer(c_size_t) :: ghost(SHARDTAB_HALO_MAX_DIMS) = 0  ! ghost cells on each side
    integer(c_size_t) :: elem_bytes = 0                     ! bytes of one cell
    integer(c_size_t) :: offset = 0                         ! bytes to the first (ghost) cell
    integer(c_size_t) :: stride(SHARDTAB_HALO_MAX_DIMS) = 0 ! cells; all 0: packed
    integer(c_int) :: corners = 0                           ! nonzero: edges and corners too
  end type

  ! a halo exchange: opaque; c_null_ptr before create and after destroy
  type, public :: shardtab_halo
    type(c_ptr) :: ptr = c_null_ptr
  end type

  ! shardtab_faces_params_t (include/shardtab_faces.h); element a of each array
  ! is the library's axis a - 1; axes past dims are ignored
  type, bind(C), public :: shardtab_faces_params
    integer(c_int) :: dims = 0                                  ! 1, 2 or 3
    integer(c_int) :: grid(SHARDTAB_HALO_MAX_DIMS) = 0          ! ranks along each axis
    integer(c_int) :: periodic(SHARDTAB_HALO_MAX_DIMS) = 0      ! nonzero: the axis wraps
    integer(c_size_t) :: face_bytes(SHARDTAB_HALO_MAX_DIMS) = 0 ! bytes of one face; 0: none
    integer(c_int) :: parities = 0                              ! buffers of every face: 1 or 2
    integer(c_size_t) :: offset = 0                             ! bytes to the first face
    integer(c_int) :: through_mpi = 0                           ! nonzero: every face by MPI
    integer(c_int) :: mpi_device = 0                            ! nonzero: MPI on the shard itself
  end type
  ! how a face reaches its neighbour (shardtab_faces_route)
  integer(c_int), parameter, public :: SHARDTAB_FACES_NONE = 0, SHARDTAB_FACES_TABLE = 1, &
    SHARDTAB_FACES_MPI = 2

  ! direct faces: opaque; c_null_ptr before create and after destroy
  type, public :: shardtab_faces
    type(c_ptr) :: ptr = c_null_ptr
  end type

  public :: shardtab_init, shardtab_finalize, shardtab_device_info_get, shardtab_backend_name, &
            shardtab_mem_alloc, shardtab_mem_free, shardtab_memcpy_to_device, &
            shardtab_memcpy_to_host, shardtab_device_synchronize, shardtab_create, &
            shardtab_destroy, shardtab_node_size, shardtab_node_rank, shardtab_node_id, &
            shardtab_node_count, shardtab_member, shardtab_node_rank_of, shardtab_peer, &
            shardtab_device_table, shardtab_agree, shardtab_table_agree, shardtab_last_error, &
            shardtab_status_string, shardtab_error_set, shardtab_peers_opened, &
            shardtab_peers_reused, shardtab_peer_mappings, shardtab_signal_check, &
            shardtab_stream_synchronize, shardtab_all_reduce, shardtab_broadcast, &
            shardtab_all_gather, shardtab_halo_create, shardtab_halo_exchange, &
            shardtab_halo_destroy, shardtab_halo_neighbor, shardtab_halo_coord, &
            shardtab_halo_pushed, shardtab_halo_form, shardtab_faces_create, &
            shardtab_faces_exchange, shardtab_faces_destroy, shardtab_faces_offset, &
            shardtab_faces_bytes, shardtab_faces_ghost, shardtab_faces_dest, &
            shardtab_faces_neighbor, shardtab_faces_node_peer, shardtab_faces_route

  interface
    integer(c_int) function c_init(comm, allow_shared) bind(C, name="shardtab_init_f")
      import :: c_int
      integer(c_int), value :: comm, allow_shared
    end function
    integer(c_int) function c_finalize() bind(C, name="shardtab_finalize")
      import :: c_int
    end function
    integer(c_int) function c_device_info(info) bind(C, name="shardtab_device_info")
      import :: c_int, shardtab_device_info
      type(shardtab_device_info), intent(out) :: info
    end function
    type(c_ptr) function c_backend_name(backend) bind(C, name="shardtab_backend_name")
      import :: c_ptr, c_int
      integer(c_int), value :: backend
    end function
    integer(c_int) function c_mem_alloc(bytes, ptr) bind(C, name="shardtab_mem_alloc")
      import :: c_int, c_size_t, c_ptr
      integer(c_size_t), value :: bytes
      type(c_ptr), intent(out) :: ptr
    end function
    integer(c_int) function c_mem_free(ptr) bind(C, name="shardtab_mem_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: ptr
    end function
    integer(c_int) function c_to_device(dst, src, bytes) bind(C, name="shardtab_memcpy_to_device")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function c_to_host(dst, src, bytes) bind(C, name="shardtab_memcpy_to_host")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function c_synchronize() bind(C, name="shardtab_device_synchronize")
      import :: c_int
    end function
    integer(c_int) function c_create(comm, shard, bytes, params, table) &
        bind(C, name="shardtab_create_f")
      import :: c_int, c_ptr, c_size_t, shardtab_create_params
      integer(c_int), value :: comm
      type(c_ptr), value :: shard
      integer(c_size_t), value :: bytes
      type(shardtab_create_params), intent(in) :: params
      type(c_ptr), intent(out) :: table
    end function
    integer(c_int) function c_destroy(table) bind(C, name="shardtab_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: table
    end function
    integer(c_int) function c_node_size(table) bind(C, name="shardtab_node_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
    end function
    integer(c_int) function c_node_rank(table) bind(C, name="shardtab_node_rank")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
    end function
    integer(c_int) function c_node_id(table) bind(C, name="shardtab_node_id")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
    end function
    integer(c_int) function c_node_count(table) bind(C, name="shardtab_node_count")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
    end function
    integer(c_int) function c_member(table, node_rank) bind(C, name="shardtab_member")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
      integer(c_int), value :: node_rank
    end function
    integer(c_int) function c_node_rank_of(table, rank) bind(C, name="shardtab_node_rank_of")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
      integer(c_int), value :: rank
    end function
    integer(c_int) function c_peer(table, rank, base, bytes) bind(C, name="shardtab_peer")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: table
      integer(c_int), value :: rank
      type(c_ptr), intent(out) :: base
      integer(c_size_t), intent(out) :: bytes
    end function
    type(c_ptr) function c_device_table(table) bind(C, name="shardtab_device_table")
      import :: c_ptr
      type(c_ptr), value :: table
    end function
    integer(c_int) function c_agree(comm, status) bind(C, name="shardtab_agree_f")
      import :: c_int
      integer(c_int), value :: comm, status
    end function
    integer(c_int) function c_table_agree(table, status) bind(C, name="shardtab_table_agree")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
      integer(c_int), value :: status
    end function
    type(c_ptr) function c_last_error() bind(C, name="shardtab_last_error")
      import :: c_ptr
    end function
    type(c_ptr) function c_status_string(status) bind(C, name="shardtab_status_string")
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function
    integer(c_int) function c_error_set(status, text) bind(C, name="shardtab_error_set_message")
      import :: c_int, c_char
      integer(c_int), value :: status
      character(kind=c_char), intent(in) :: text(*)
    end function
    integer(c_int) function c_peers_opened(table) bind(C, name="shardtab_peers_opened")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
    end function
    integer(c_int) function c_peers_reused(table) bind(C, name="shardtab_peers_reused")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
    end function
    integer(c_int) function c_peer_mappings() bind(C, name="shardtab_peer_mappings")
      import :: c_int
    end function
    integer(c_int) function c_signal_check(table) bind(C, name="shardtab_signal_check")
      import :: c_int, c_ptr
      type(c_ptr), value :: table
    end function
    integer(c_int) function c_stream_synchronize(stream) bind(C, name="shardtab_stream_synchronize")
      import :: c_int, c_ptr
      type(c_ptr), value :: stream
    end function
    integer(c_int) function c_all_reduce(table, op, datatype, offset, count, stream) &
        bind(C, name="shardtab_all_reduce")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: table, stream
      integer(c_int), value :: op, datatype
      integer(c_size_t), value :: offset, count
    end function
    integer(c_int) function c_broadcast(table, root, datatype, offset, count, stream) &
        bind(C, name="shardtab_broadcast")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: table, stream
      integer(c_int), value :: root, datatype
      integer(c_size_t), value :: offset, count
    end function
    integer(c_int) function c_all_gather(table, datatype, offset, count, stream) &
        bind(C, name="shardtab_all_gather")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: table, stream
      integer(c_int), value :: datatype
      integer(c_size_t), value :: offset, count
    end function
    integer(c_int) function c_halo_create(table, params, halo) bind(C, name="shardtab_halo_create")
      import :: c_int, c_ptr, shardtab_halo_params
      type(c_ptr), value :: table
      type(shardtab_halo_params), intent(in) :: params
      type(c_ptr), intent(out) :: halo
    end function
    integer(c_int) function c_halo_exchange(halo, stream) bind(C, name="shardtab_halo_exchange")
      import :: c_int, c_ptr
      type(c_ptr), value :: halo, stream
    end function
    integer(c_int) function c_halo_destroy(halo) bind(C, name="shardtab_halo_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: halo
    end function
    integer(c_int) function c_halo_neighbor(halo, d0, d1, d2) bind(C, name="shardtab_halo_neighbor")
      import :: c_int, c_ptr
      type(c_ptr), value :: halo
      integer(c_int), value :: d0, d1, d2
    end function
    integer(c_int) function c_halo_coord(halo, axis) bind(C, name="shardtab_halo_coord")
      import :: c_int, c_ptr
      type(c_ptr), value :: halo
      integer(c_int), value :: axis
    end function
    integer(c_int) function c_halo_pushed(halo) bind(C, name="shardtab_halo_pushed")
      import :: c_int, c_ptr
      type(c_ptr), value :: halo
    end function
    integer(c_int) function c_halo_form(halo) bind(C, name="shardtab_halo_form")
      import :: c_int, c_ptr
      type(c_ptr), value :: halo
    end function
    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
    integer(c_int) function c_faces_create(table, params, faces) &
        bind(C, name="shardtab_faces_create")
      import :: c_int, c_ptr, shardtab_faces_params
      type(c_ptr), value :: table
      type(shardtab_faces_params), intent(in) :: params
      type(c_ptr), intent(out) :: faces
    end function
    integer(c_int) function c_faces_exchange(faces, parity, src, stream) &
        bind(C, name="shardtab_faces_exchange")
      import :: c_int, c_ptr
      type(c_ptr), value :: faces, stream
      integer(c_int), value :: parity
      type(c_ptr), intent(in) :: src(*)
    end function
    integer(c_int) function c_faces_destroy(faces) bind(C, name="shardtab_faces_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: faces
    end function
    integer(c_size_t) function c_faces_offset(params, axis, side, parity) &
        bind(C, name="shardtab_faces_offset")
      import :: c_int, c_size_t, shardtab_faces_params
      type(shardtab_faces_params), intent(in) :: params
      integer(c_int), value :: axis, side, parity
    end function
    integer(c_size_t) function c_faces_bytes(params) bind(C, name="shardtab_faces_bytes")
      import :: c_size_t, shardtab_faces_params
      type(shardtab_faces_params), intent(in) :: params
    end function
    type(c_ptr) function c_faces_ghost(faces, axis, side, parity) &
        bind(C, name="shardtab_faces_ghost")
      import :: c_int, c_ptr
      type(c_ptr), value :: faces
      integer(c_int), value :: axis, side, parity
    end function
    type(c_ptr) function c_faces_dest(faces, axis, side, parity) &
        bind(C, name="shardtab_faces_dest")
      import :: c_int, c_ptr
      type(c_ptr), value :: faces
      integer(c_int), value :: axis, side, parity
    end function
    integer(c_int) function c_faces_neighbor(faces, axis, side) &
        bind(C, name="shardtab_faces_neighbor")
      import :: c_int, c_ptr
      type(c_ptr), value :: faces
      integer(c_int), value :: axis, side
    end function
    integer(c_int) function c_faces_node_peer(faces, axis, side) &
        bind(C, name="shardtab_faces_node_peer")
      import :: c_int, c_ptr
      type(c_ptr), value :: faces
      integer(c_int), value :: axis, side
    end function
    integer(c_int) function c_faces_route(faces, axis, side) bind(C, name="shardtab_faces_route")
      import :: c_int, c_ptr
      type(c_ptr), value :: faces
      integer(c_int), value :: axis, side
    end function
  end interface

contains

  ! A C string as an allocatable Fortran string ("" for NULL).
  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! ---- process set-up (collective over comm) ----

  ! Binds this rank's device, chosen by its rank inside its node.
  integer(c_int) function shardtab_init(comm, allow_shared_device) result(status)
    integer, intent(in) :: comm                        ! MPI_COMM_WORLD, or comm%MPI_VAL
    logical, intent(in), optional :: allow_shared_device
    integer(c_int) :: allow
    allow = 0
    if (present(allow_shared_device)) then
      if (allow_shared_device) allow = 1
    end if
    status = c_init(int(comm, c_int), allow)
  end function

  integer(c_int) function shardtab_finalize() result(status)
    status = c_finalize()
  end function

  integer(c_int) function shardtab_device_info_get(info) result(status)
    type(shardtab_device_info), intent(out) :: info
    status = c_device_info(info)
  end function

  function shardtab_backend_name(backend) result(name)
    integer(c_int), intent(in) :: backend
    character(len=:), allocatable :: name
    name = from_c(c_backend_name(backend))
  end function

  ! ---- memory on the bound device (local) ----

  integer(c_int) function shardtab_mem_alloc(bytes, ptr) result(status)
    integer(c_size_t), intent(in) :: bytes
    type(c_ptr), intent(out) :: ptr
    status = c_mem_alloc(bytes, ptr)
  end function

  integer(c_int) function shardtab_mem_free(ptr) result(status)
    type(c_ptr), intent(in) :: ptr
    status = c_mem_free(ptr)
  end function

  integer(c_int) function shardtab_memcpy_to_device(dst, src, bytes) result(status)
    type(c_ptr), intent(in) :: dst, src
    integer(c_size_t), intent(in) :: bytes
    status = c_to_device(dst, src, bytes)
  end function

  integer(c_int) function shardtab_memcpy_to_host(dst, src, bytes) result(status)
    type(c_ptr), intent(in) :: dst, src
    integer(c_size_t), intent(in) :: bytes
    status = c_to_host(dst, src, bytes)
  end function

  integer(c_int) function shardtab_device_synchronize() result(status)
    status = c_synchronize()
  end function

  ! ---- the table (collective over comm) ----

  ! shard: c_loc of memory from shardtab_mem_alloc (anywhere inside it), or
  ! c_null_ptr with bytes 0.
  integer(c_int) function shardtab_create(comm, shard, bytes, table, params) result(status)
    integer, intent(in) :: comm
    type(c_ptr), intent(in) :: shard
    integer(c_size_t), intent(in) :: bytes
    type(shardtab_table), intent(out) :: table
    type(shardtab_create_params), intent(in), optional :: params
    type(shardtab_create_params) :: p
    if (present(params)) p = params
    status = c_create(int(comm, c_int), shard, bytes, p, table%ptr)
  end function

  integer(c_int) function shardtab_destroy(table) result(status)
    type(shardtab_table), intent(inout) :: table
    status = c_destroy(table%ptr)
  end function

  integer(c_int) function shardtab_node_size(table)
    type(shardtab_table), intent(in) :: table
    shardtab_node_size = c_node_size(table%ptr)
  end function

  integer(c_int) function shardtab_node_rank(table)
    type(shardtab_table), intent(in) :: table
    shardtab_node_rank = c_node_rank(table%ptr)
  end function

  integer(c_int) function shardtab_node_id(table)
    type(shardtab_table), intent(in) :: table
    shardtab_node_id = c_node_id(table%ptr)
  end function

  integer(c_int) function shardtab_node_count(table)
    type(shardtab_table), intent(in) :: table
    shardtab_node_count = c_node_count(table%ptr)
  end function

  ! Communicator rank of node rank node_rank (0-based, as in C), or -1.
  integer(c_int) function shardtab_member(table, node_rank)
    type(shardtab_table), intent(in) :: table
    integer, intent(in) :: node_rank
    shardtab_member = c_member(table%ptr, int(node_rank, c_int))
  end function

  ! Node rank of communicator rank `rank`, or -1 when it is on another node.
  integer(c_int) function shardtab_node_rank_of(table, rank)
    type(shardtab_table), intent(in) :: table
    integer, intent(in) :: rank
    shardtab_node_rank_of = c_node_rank_of(table%ptr, int(rank, c_int))
  end function

  ! Rank `rank`'s shard as this process maps it: c_null_ptr and 0 bytes off
  ! the node or for an empty shard.
  integer(c_int) function shardtab_peer(table, rank, base, bytes) result(status)
    type(shardtab_table), intent(in) :: table
    integer, intent(in) :: rank
    type(c_ptr), intent(out) :: base
    integer(c_size_t), intent(out) :: bytes
    status = c_peer(table%ptr, int(rank, c_int), base, bytes)
  end function

  ! The device-resident array of node_size shard pointers, for kernels.
  type(c_ptr) function shardtab_device_table(table)
    type(shardtab_table), intent(in) :: table
    shardtab_device_table = c_device_table(table%ptr)
  end function

  integer(c_int) function shardtab_peers_opened(table)
    type(shardtab_table), intent(in) :: table
    shardtab_peers_opened = c_peers_opened(table%ptr)
  end function

  integer(c_int) function shardtab_peers_reused(table)
    type(shardtab_table), intent(in) :: table
    shardtab_peers_reused = c_peers_reused(table%ptr)
  end function

  integer(c_int) function shardtab_peer_mappings()
    shardtab_peer_mappings = c_peer_mappings()
  end function

  ! ---- signals and collectives on a stream, over the table's shards ----

  ! Local, after the table's stream has drained (it waits for the table's last
  ! barrier or collective itself): did the node refuse a collective, or a
  ! device-side wait give up? Pass the result to shardtab_agree.
  integer(c_int) function shardtab_signal_check(table) result(status)
    type(shardtab_table), intent(in) :: table
    status = c_signal_check(table%ptr)
  end function

  ! Waits for one stream (c_null_ptr, the default, when absent).
  integer(c_int) function shardtab_stream_synchronize(stream) result(status)
    type(c_ptr), intent(in), optional :: stream
    status = c_stream_synchronize(stream_or_default(stream))
  end function

  ! Collective, in place: count elements of datatype (SHARDTAB_FLOAT,
  ! SHARDTAB_DOUBLE, SHARDTAB_INT64) from byte `offset` of every rank's shard
  ! become the op (SHARDTAB_SUM, SHARDTAB_MIN, SHARDTAB_MAX) of every rank's,
  ! in node-rank order (then node order across nodes): the same bits on every
  ! rank. Enqueued on stream (default: the default stream); the host backend
  ! runs it now. A rank whose own checks fail returns its error at once, the
  ! others learn it from shardtab_signal_check: agree on that.
  integer(c_int) function shardtab_all_reduce(table, op, datatype, offset, count, stream) &
      result(status)
    type(shardtab_table), intent(in) :: table
    integer(c_int), intent(in) :: op, datatype
    integer(c_size_t), intent(in) :: offset, count
    type(c_ptr), intent(in), optional :: stream
    status = c_all_reduce(table%ptr, op, datatype, offset, count, stream_or_default(stream))
  end function

  ! Collective: the region of every rank's shard becomes that of
  ! communicator rank `root` (0-based); otherwise as shardtab_all_reduce.
  integer(c_int) function shardtab_broadcast(table, root, datatype, offset, count, stream) &
      result(status)
    type(shardtab_table), intent(in) :: table
    integer, intent(in) :: root
    integer(c_int), intent(in) :: datatype
    integer(c_size_t), intent(in) :: offset, count
    type(c_ptr), intent(in), optional :: stream
    status = c_broadcast(table%ptr, int(root, c_int), datatype, offset, count, &
                         stream_or_default(stream))
  end function

  ! Collective, in place: the region holds size * count elements, communicator
  ! rank r's own count at element r * count; afterwards every rank's holds
  ! every rank's. Otherwise as shardtab_all_reduce.
  integer(c_int) function shardtab_all_gather(table, datatype, offset, count, stream) &
      result(status)
    type(shardtab_table), intent(in) :: table
    integer(c_int), intent(in) :: datatype
    integer(c_size_t), intent(in) :: offset, count
    type(c_ptr), intent(in), optional :: stream
    status = c_all_gather(table%ptr, datatype, offset, count, stream_or_default(stream))
  end function

  ! ---- the halo exchange (collective over the table's communicator) ----

  ! Makes the halo exchange of params' decomposition over the table; a bad
  ! decomposition is refused on every rank with one message
  ! (SHARDTAB_ERR_INVALID_ARG), the table still usable.
  integer(c_int) function shardtab_halo_create(table, params, halo) result(status)
    type(shardtab_table), intent(in) :: table
    type(shardtab_halo_params), intent(in) :: params
    type(shardtab_halo), intent(out) :: halo
    status = c_halo_create(table%ptr, params, halo%ptr)
  end function

  ! Fills every ghost cell that has a neighbour from that neighbour's
  ! interior; enqueued on stream (default: the default stream), the host
  ! backend runs it now.
  integer(c_int) function shardtab_halo_exchange(halo, stream) result(status)
    type(shardtab_halo), intent(in) :: halo
    type(c_ptr), intent(in), optional :: stream
    status = c_halo_exchange(halo%ptr, stream_or_default(stream))
  end function

  ! Local: frees the halo once its last exchange has run.
  integer(c_int) function shardtab_halo_destroy(halo) result(status)
    type(shardtab_halo), intent(inout) :: halo
    status = c_halo_destroy(halo%ptr)
  end function

  ! The communicator rank (0-based) of the neighbour at offset (d0, d1, d2),
  ! each -1, 0 or 1 along the library's axes 0, 1, 2 (the array's first,
  ! second, third index); -1 where there is none.
  integer(c_int) function shardtab_halo_neighbor(halo, d0, d1, d2)
    type(shardtab_halo), intent(in) :: halo
    integer, intent(in) :: d0
    integer, intent(in), optional :: d1, d2
    integer(c_int) :: e1, e2
    e1 = 0
    e2 = 0
    if (present(d1)) e1 = int(d1, c_int)
    if (present(d2)) e2 = int(d2, c_int)
    shardtab_halo_neighbor = c_halo_neighbor(halo%ptr, int(d0, c_int), e1, e2)
  end function

  ! This rank's coordinate (0-based) along the library's axis (0 to 2: the
  ! array's first to third index), -1 for another axis.
  integer(c_int) function shardtab_halo_coord(halo, axis)
    type(shardtab_halo), intent(in) :: halo
    integer, intent(in) :: axis
    shardtab_halo_coord = c_halo_coord(halo%ptr, int(axis, c_int))
  end function

  ! 1 where the halo's cells inside the node are pushed into the neighbours'
  ! inboxes, 0 where they are pulled between two node barriers (shardtab_halo_pushed).
  integer(c_int) function shardtab_halo_pushed(halo)
    type(shardtab_halo), intent(in) :: halo
    shardtab_halo_pushed = c_halo_pushed(halo%ptr)
  end function

  ! How they move (shardtab_halo_form): SHARDTAB_HALO_PUSHED_LL as LL words,
  ! SHARDTAB_HALO_PUSHED_PUT by put with a flag each, SHARDTAB_HALO_PULLED.
  integer(c_int) function shardtab_halo_form(halo)
    type(shardtab_halo), intent(in) :: halo
    shardtab_halo_form = c_halo_form(halo%ptr)
  end function

  ! ---- the direct faces ----

  ! Collective over the table's communicator: the direct faces of params'
  ! decomposition; a bad one is refused on every rank with one message
  ! (SHARDTAB_ERR_INVALID_ARG), the table still usable.
  integer(c_int) function shardtab_faces_create(table, params, faces) result(status)
    type(shardtab_table), intent(in) :: table
    type(shardtab_faces_params), intent(in) :: params
    type(shardtab_faces), intent(out) :: faces
    status = c_faces_create(table%ptr, params, faces%ptr)
  end function

  ! Between the neighbours, host-synchronous: the faces whose route is
  ! SHARDTAB_FACES_MPI of `parity`, this rank's from src(2 a + s + 1) (device
  ! memory; c_null_ptr for faces of other routes) into the neighbours' ghost
  ! faces, and this rank's ghost faces from them.
  integer(c_int) function shardtab_faces_exchange(faces, parity, src, stream) result(status)
    type(shardtab_faces), intent(in) :: faces
    integer, intent(in) :: parity
    type(c_ptr), intent(in) :: src(:)
    type(c_ptr), intent(in), optional :: stream
    type(c_ptr) :: all(2 * SHARDTAB_HALO_MAX_DIMS)
    character(len=96) :: why
    if (size(src) > size(all)) then
      write (why, '(a, i0, a)') "shardtab_faces_exchange: src has ", size(src), &
        " entries; at most 6 faces (3 axes)"
      status = c_error_set(SHARDTAB_ERR_INVALID_ARG, trim(why) // c_null_char)
      return
    end if
    all = c_null_ptr
    all(1:size(src)) = src
    status = c_faces_exchange(faces%ptr, int(parity, c_int), all, stream_or_default(stream))
  end function

  ! Local: frees the faces (their host buffers once the last exchange's copies are done).
  integer(c_int) function shardtab_faces_destroy(faces) result(status)
    type(shardtab_faces), intent(inout) :: faces
    status = c_faces_destroy(faces%ptr)
  end function

  ! Byte offset in the shard of the ghost face (axis, side, parity) of params'
  ! layout, without a table; -1 for an axis without faces or a bad argument.
  integer(c_size_t) function shardtab_faces_offset(params, axis, side, parity)
    type(shardtab_faces_params), intent(in) :: params
    integer, intent(in) :: axis, side, parity
    shardtab_faces_offset = c_faces_offset(params, int(axis, c_int), int(side, c_int), &
                                           int(parity, c_int))
  end function

  ! Bytes the faces take from params%offset on.
  integer(c_size_t) function shardtab_faces_bytes(params)
    type(shardtab_faces_params), intent(in) :: params
    shardtab_faces_bytes = c_faces_bytes(params)
  end function

  ! This rank's ghost face (axis, side, parity) in its shard; c_null_ptr for bad arguments.
  type(c_ptr) function shardtab_faces_ghost(faces, axis, side, parity)
    type(shardtab_faces), intent(in) :: faces
    integer, intent(in) :: axis, side, parity
    shardtab_faces_ghost = c_faces_ghost(faces%ptr, int(axis, c_int), int(side, c_int), &
                                         int(parity, c_int))
  end function

  ! Where this rank's face toward (axis, side) goes: the neighbour's ghost face
  ! (axis, 1 - side, parity) through the table; c_null_ptr where the route is
  ! not SHARDTAB_FACES_TABLE.
  type(c_ptr) function shardtab_faces_dest(faces, axis, side, parity)
    type(shardtab_faces), intent(in) :: faces
    integer, intent(in) :: axis, side, parity
    shardtab_faces_dest = c_faces_dest(faces%ptr, int(axis, c_int), int(side, c_int), &
                                       int(parity, c_int))
  end function

  ! The communicator rank (0-based) of the neighbour on (axis, side); -1 where none.
  integer(c_int) function shardtab_faces_neighbor(faces, axis, side)
    type(shardtab_faces), intent(in) :: faces
    integer, intent(in) :: axis, side
    shardtab_faces_neighbor = c_faces_neighbor(faces%ptr, int(axis, c_int), int(side, c_int))
  end function

  ! That neighbour's node rank, for the signals; -1 where the route is not the table's.
  integer(c_int) function shardtab_faces_node_peer(faces, axis, side)
    type(shardtab_faces), intent(in) :: faces
    integer, intent(in) :: axis, side
    shardtab_faces_node_peer = c_faces_node_peer(faces%ptr, int(axis, c_int), int(side, c_int))
  end function

  ! How the face toward (axis, side) moves: SHARDTAB_FACES_TABLE, _MPI or _NONE.
  integer(c_int) function shardtab_faces_route(faces, axis, side)
    type(shardtab_faces), intent(in) :: faces
    integer, intent(in) :: axis, side
    shardtab_faces_route = c_faces_route(faces%ptr, int(axis, c_int), int(side, c_int))
  end function

  type(c_ptr) function stream_or_default(stream)
    type(c_ptr), intent(in), optional :: stream
    stream_or_default = c_null_ptr
    if (present(stream)) stream_or_default = stream
  end function

  ! ---- errors ----

  ! Collective: the status of the lowest failing rank, whose message becomes
  ! every rank's shardtab_last_error().
  integer(c_int) function shardtab_agree(comm, local) result(status)
    integer, intent(in) :: comm
    integer(c_int), intent(in) :: local
    status = c_agree(int(comm, c_int), local)
  end function

  ! Collective over the table's communicator: shardtab_agree, bounded by the
  ! table's patience (6 x its wait limit): a rank that never comes ends the job.
  integer(c_int) function shardtab_table_agree(table, local) result(status)
    type(shardtab_table), intent(in) :: table
    integer(c_int), intent(in) :: local
    status = c_table_agree(table%ptr, local)
  end function

  function shardtab_last_error() result(message)
    character(len=:), allocatable :: message
    message = from_c(c_last_error())
  end function

  function shardtab_status_string(status) result(name)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: name
    name = from_c(c_status_string(status))
  end function

  ! Records an application error (as the library's own), for shardtab_agree.
  integer(c_int) function shardtab_error_set(status, message) result(result_status)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: message
    result_status = c_error_set(status, trim(message) // c_null_char)
  end function

end module shardtab
