"""_lib.py - loads libshardtab (shared) and declares the C calls the package
makes, with their argument and result types (include/shardtab.h)."""
import ctypes
import ctypes.util
import os

c_status = ctypes.c_int  # shardtab_status_t
c_fint = ctypes.c_int    # MPI_Fint: a C int in Open MPI and MPICH


class CreateParams(ctypes.Structure):
    """shardtab_create_params_t"""
    _fields_ = [("stream", ctypes.c_void_p), ("signal_slots", ctypes.c_int),
                ("wait_timeout_s", ctypes.c_double), ("alignment", ctypes.c_size_t)]


class DeviceInfo(ctypes.Structure):
    """shardtab_device_info_t"""
    _fields_ = [("backend", ctypes.c_int), ("device", ctypes.c_int),
                ("visible_devices", ctypes.c_int), ("shared", ctypes.c_int),
                ("name", ctypes.c_char * 64), ("pci_bus_id", ctypes.c_char * 32)]


def _find():
    """$SHARDTAB_LIBRARY, else the copy installed inside this package, else the
    linker's search path."""
    named = os.environ.get("SHARDTAB_LIBRARY")
    if named:
        return named
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libshardtab.so")
    if os.path.exists(here):
        return here
    found = ctypes.util.find_library("shardtab")
    if found:
        return found
    raise ImportError("shardtab: libshardtab.so is neither in this package nor on the linker's "
                      "path: install the project (cmake --install), or set SHARDTAB_LIBRARY")


lib = ctypes.CDLL(_find(), mode=ctypes.RTLD_GLOBAL)

_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_SZ = ctypes.c_size_t
_I = ctypes.c_int
_S = ctypes.c_char_p
for name, result, args in [
        ("shardtab_init_f", c_status, [c_fint, _I]),
        ("shardtab_finalize", c_status, []),
        ("shardtab_device_info", c_status, [ctypes.POINTER(DeviceInfo)]),
        ("shardtab_backend_name", _S, [_I]),
        ("shardtab_mem_alloc", c_status, [_SZ, _PP]),
        ("shardtab_mem_free", c_status, [_P]),
        ("shardtab_memcpy_to_device", c_status, [_P, _P, _SZ]),
        ("shardtab_memcpy_to_host", c_status, [_P, _P, _SZ]),
        ("shardtab_device_synchronize", c_status, []),
        ("shardtab_create_f", c_status, [c_fint, _P, _SZ, ctypes.POINTER(CreateParams), _PP]),
        ("shardtab_destroy", c_status, [_PP]),
        ("shardtab_node_size", _I, [_P]),
        ("shardtab_node_rank", _I, [_P]),
        ("shardtab_node_id", _I, [_P]),
        ("shardtab_node_count", _I, [_P]),
        ("shardtab_member", _I, [_P, _I]),
        ("shardtab_node_rank_of", _I, [_P, _I]),
        ("shardtab_peer", c_status, [_P, _I, _PP, ctypes.POINTER(_SZ)]),
        ("shardtab_device_table", _P, [_P]),
        ("shardtab_create_ms", ctypes.c_double, [_P]),
        ("shardtab_peers_opened", _I, [_P]),
        ("shardtab_peers_reused", _I, [_P]),
        ("shardtab_peer_mappings", _I, []),
        ("shardtab_agree_f", c_status, [c_fint, c_status]),
        ("shardtab_error_set_message", c_status, [c_status, _S]),
        ("shardtab_last_error", _S, []),
        ("shardtab_status_string", _S, [c_status]),
]:
    function = getattr(lib, name)
    function.restype = result
    function.argtypes = args
