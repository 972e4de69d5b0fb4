"""_lib.py - loads libshardtab (shared) and declares the C calls the package
makes, with their argument and result types (include/shardtab.h)."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import ctypes
import ctypes.util
import operator
import os

c_status = ctypes.c_int  # shardtab_status_t
c_fint = ctypes.c_int  # MPI_Fint: a C int in Open MPI and MPICH


class CreateParams(ctypes.Structure):
    """shardtab_create_params_t"""

    _fields_ = [
        ("stream", ctypes.c_void_p),
        ("signal_slots", ctypes.c_int),
        ("wait_timeout_s", ctypes.c_double),
        ("alignment", ctypes.c_size_t),
        ("label", ctypes.c_char_p),
    ]


class DeviceInfo(ctypes.Structure):
    """shardtab_device_info_t"""

    _fields_ = [
        ("backend", ctypes.c_int),
        ("device", ctypes.c_int),
        ("visible_devices", ctypes.c_int),
        ("shared", ctypes.c_int),
        ("name", ctypes.c_char * 64),
        ("pci_bus_id", ctypes.c_char * 32),
    ]


HALO_MAX_DIMS = 3  # SHARDTAB_HALO_MAX_DIMS


class HaloParams(ctypes.Structure):
    """shardtab_halo_params_t (include/shardtab_halo.h)"""

    _fields_ = [
        ("dims", ctypes.c_int),
        ("grid", ctypes.c_int * HALO_MAX_DIMS),
        ("periodic", ctypes.c_int * HALO_MAX_DIMS),
        ("block", ctypes.c_size_t * HALO_MAX_DIMS),
        ("ghost", ctypes.c_size_t * HALO_MAX_DIMS),
        ("elem_bytes", ctypes.c_size_t),
        ("offset", ctypes.c_size_t),
        ("stride", ctypes.c_size_t * HALO_MAX_DIMS),
        ("corners", ctypes.c_int),
    ]


class FacesParams(ctypes.Structure):
    """shardtab_faces_params_t (include/shardtab_faces.h)"""

    _fields_ = [
        ("dims", ctypes.c_int),
        ("grid", ctypes.c_int * HALO_MAX_DIMS),
        ("periodic", ctypes.c_int * HALO_MAX_DIMS),
        ("face_bytes", ctypes.c_size_t * HALO_MAX_DIMS),
        ("parities", ctypes.c_int),
        ("offset", ctypes.c_size_t),
        ("through_mpi", ctypes.c_int),
        ("mpi_device", ctypes.c_int),
    ]


def _find():
    """$SHARDTAB_LIBRARY; else the copy beside this package (a wheel's); else the
    library of the prefix the package was installed into (cmake --install:
    _installed.py says where); else the linker's search path."""
    named = os.environ.get("SHARDTAB_LIBRARY")
    if named:
        return named
    package = os.path.dirname(os.path.abspath(__file__))
    here = os.path.join(package, "libshardtab.so")
    if os.path.exists(here):
        return here
    try:
        from ._installed import LIBRARY
    except ImportError:
        LIBRARY = None
    if LIBRARY and os.path.exists(os.path.join(package, LIBRARY)):
        return os.path.normpath(os.path.join(package, LIBRARY))
    found = ctypes.util.find_library("shardtab")
    if found:
        return found
    raise ImportError(
        "shardtab: libshardtab.so is neither beside this package, nor in the prefix "
        "it was installed into, nor on the linker's path: install the project "
        "(cmake --install), or set SHARDTAB_LIBRARY"
    )


lib = ctypes.CDLL(_find(), mode=ctypes.RTLD_GLOBAL)

_ptr = ctypes.c_void_p
_ptr_out = ctypes.POINTER(ctypes.c_void_p)
_size = ctypes.c_size_t
_int = ctypes.c_int
_text = ctypes.c_char_p
for name, result, args in [
    ("shardtab_init_f", c_status, [c_fint, _int]),
    ("shardtab_finalize", c_status, []),
    ("shardtab_device_info", c_status, [ctypes.POINTER(DeviceInfo)]),
    ("shardtab_backend_name", _text, [_int]),
    ("shardtab_mem_alloc", c_status, [_size, _ptr_out]),
    ("shardtab_mem_free", c_status, [_ptr]),
    ("shardtab_memcpy_to_device", c_status, [_ptr, _ptr, _size]),
    ("shardtab_memcpy_to_host", c_status, [_ptr, _ptr, _size]),
    ("shardtab_device_synchronize", c_status, []),
    (
        "shardtab_create_f",
        c_status,
        [c_fint, _ptr, _size, ctypes.POINTER(CreateParams), _ptr_out],
    ),
    ("shardtab_destroy", c_status, [_ptr_out]),
    ("shardtab_node_size", _int, [_ptr]),
    ("shardtab_node_rank", _int, [_ptr]),
    ("shardtab_node_id", _int, [_ptr]),
    ("shardtab_node_count", _int, [_ptr]),
    ("shardtab_member", _int, [_ptr, _int]),
    ("shardtab_node_rank_of", _int, [_ptr, _int]),
    ("shardtab_peer", c_status, [_ptr, _int, _ptr_out, ctypes.POINTER(_size)]),
    ("shardtab_device_table", _ptr, [_ptr]),
    ("shardtab_create_ms", ctypes.c_double, [_ptr]),
    ("shardtab_peers_opened", _int, [_ptr]),
    ("shardtab_peers_reused", _int, [_ptr]),
    ("shardtab_peer_mappings", _int, []),
    ("shardtab_signal_check", c_status, [_ptr]),
    # the collectives on a stream: (table, op, type, byte offset, count, stream),
    # (table, root, type, byte offset, count, stream), (table, type, byte offset,
    # count, stream)
    ("shardtab_all_reduce", c_status, [_ptr, _int, _int, _size, _size, _ptr]),
    ("shardtab_broadcast", c_status, [_ptr, _int, _int, _size, _size, _ptr]),
    ("shardtab_all_gather", c_status, [_ptr, _int, _size, _size, _ptr]),
    # the halo exchange (shardtab_halo.h): create (table, params, out), exchange
    # (halo, stream), destroy (&halo), neighbor (halo, d0, d1, d2), coord (halo, axis),
    # pushed (halo)
    (
        "shardtab_halo_create",
        c_status,
        [_ptr, ctypes.POINTER(HaloParams), _ptr_out],
    ),
    ("shardtab_halo_exchange", c_status, [_ptr, _ptr]),
    ("shardtab_halo_destroy", c_status, [_ptr_out]),
    ("shardtab_halo_neighbor", _int, [_ptr, _int, _int, _int]),
    ("shardtab_halo_coord", _int, [_ptr, _int]),
    ("shardtab_halo_pushed", _int, [_ptr]),
    ("shardtab_halo_form", _int, [_ptr]),
    # the direct faces (shardtab_faces.h): create (table, params, out), exchange (faces,
    # parity, src[6], stream), destroy (&faces); (faces, axis, side[, parity]) each
    (
        "shardtab_faces_create",
        c_status,
        [_ptr, ctypes.POINTER(FacesParams), _ptr_out],
    ),
    (
        "shardtab_faces_exchange",
        c_status,
        [_ptr, _int, ctypes.POINTER(ctypes.c_void_p), _ptr],
    ),
    ("shardtab_faces_destroy", c_status, [_ptr_out]),
    ("shardtab_faces_offset", _size, [ctypes.POINTER(FacesParams), _int, _int, _int]),
    ("shardtab_faces_bytes", _size, [ctypes.POINTER(FacesParams)]),
    ("shardtab_faces_ghost", _ptr, [_ptr, _int, _int, _int]),
    ("shardtab_faces_dest", _ptr, [_ptr, _int, _int, _int]),
    ("shardtab_faces_neighbor", _int, [_ptr, _int, _int]),
    ("shardtab_faces_node_peer", _int, [_ptr, _int, _int]),
    ("shardtab_faces_route", _int, [_ptr, _int, _int]),
    ("shardtab_agree_f", c_status, [c_fint, c_status]),
    ("shardtab_table_agree", c_status, [_ptr, c_status]),
    ("shardtab_error_set_message", c_status, [c_status, _text]),
    ("shardtab_last_error", _text, []),
    ("shardtab_status_string", _text, [c_status]),
    ("shardtab_version", _text, []),
]:
    function = getattr(lib, name)
    function.restype = result
    function.argtypes = args


def c_arg(value, ctype, what):
    """value, an int, checked against the range of the C type ctypes makes it
    (ctypes wraps silently: signal_slots=2**32 + 64 became 64, peer(2**63) rank
    0's shard); a ValueError naming the value given, else the value."""
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError(
                f"{what} is a {type(value).__name__}; pass an int"
            ) from None
    bits = 8 * ctypes.sizeof(ctype)
    signed = ctype(-1).value < 0
    low = -(1 << (bits - 1)) if signed else 0
    high = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    if not low <= value <= high:
        name = {ctypes.c_int: "int", ctypes.c_size_t: "size_t"}.get(
            ctype, ctype.__name__
        )
        raise ValueError(
            f"{what} is {value}, outside the C {name} the library takes ({low} to {high})"
        )
    return value


def _per_axis(value, dims, what, ctype):
    """value (one int for every axis, or a sequence of dims ints) as a list
    of HALO_MAX_DIMS C values, each range-checked (axes past dims: 0)."""
    if isinstance(value, (list, tuple)):
        if len(value) != dims:
            raise ValueError(
                f"{what} has {len(value)} values for a grid of {dims} axes"
            )
        values = list(value)
    else:
        values = [value] * dims
    if ctype is None:  # a flag: anything Python takes for true or false
        values = [1 if bool(v) else 0 for v in values]
        ctype = ctypes.c_int
    checked = [c_arg(v, ctype, f"{what}[{a}]") for a, v in enumerate(values)]
    return checked + [0] * (HALO_MAX_DIMS - dims)


def _grid_dims(grid, dims, has):
    """The axes of a process grid: dims as given, else grid's length (a
    sequence) or 1; a ValueError unless 1 to 3 ("dims is 4; <has> 1 to 3 axes")."""
    if dims is None:
        dims = len(grid) if isinstance(grid, (list, tuple)) else 1
    dims = c_arg(dims, ctypes.c_int, "dims")
    if not 1 <= dims <= HALO_MAX_DIMS:
        raise ValueError(f"dims is {dims}; {has} 1 to 3 axes")
    return dims
