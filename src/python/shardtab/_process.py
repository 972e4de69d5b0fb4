"""_process.py - this process and the library: init and finalize (the device
binding, and whether memory is host memory), the device's description, the
agreement over a communicator, the peer mappings' count."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import ctypes

from ._errors import ERR_INVALID_ARG, ERR_VERIFY, SUCCESS, Error, _c_text, _check, _text
from ._lib import DeviceInfo, lib

_on_host_backend = None  # set by init: how memory is shown (NumPy or DeviceArray)
_BACKEND_HOST = 0


def _comm_handle(comm):
    """The Fortran handle of an mpi4py communicator (or the int given)."""
    if isinstance(comm, int):
        return comm
    py2f = getattr(comm, "py2f", None)
    if py2f is None:
        raise TypeError(
            f"shardtab: comm is a {type(comm).__name__}: pass an mpi4py "
            "communicator (MPI.COMM_WORLD) or its Fortran handle (comm.py2f())"
        )
    return py2f()


def init(comm, allow_shared_device=False):
    """Collective: binds this rank's device, chosen by its rank inside its node.
    allow_shared_device lets several ranks of a node share one device."""
    global _on_host_backend
    _check(lib.shardtab_init_f(_comm_handle(comm), 1 if allow_shared_device else 0))
    info = DeviceInfo()
    _check(lib.shardtab_device_info(ctypes.byref(info)))
    _on_host_backend = info.backend == _BACKEND_HOST


def finalize():
    """Releases the device binding. Destroy every table first: while a table
    of this process lives, Error is raised (the message names each live
    table) and nothing is released, so the package, the tables and their
    memory stay usable."""
    global _on_host_backend
    _check(lib.shardtab_finalize())
    _on_host_backend = None


def device():
    """This rank's device: a dict of backend, device, name, pci_bus_id, shared."""
    info = DeviceInfo()
    _check(lib.shardtab_device_info(ctypes.byref(info)))
    return {
        "backend": lib.shardtab_backend_name(info.backend).decode(),
        "device": info.device,
        "visible_devices": info.visible_devices,
        "shared": bool(info.shared),
        "name": info.name.decode(),
        "pci_bus_id": info.pci_bus_id.decode(),
    }


def _on_host():
    """Whether this rank's memory is host memory (asked once, at init)."""
    if _on_host_backend is None:
        raise Error(ERR_INVALID_ARG, "shardtab: called before shardtab.init")
    return _on_host_backend


def agree(comm, failure=None):
    """Collective: every rank passes None, or a message saying what failed
    here; if any rank failed, every rank raises Error with the first failing
    rank's message (shardtab_agree)."""
    status = SUCCESS
    if failure is not None:
        status = lib.shardtab_error_set_message(ERR_VERIFY, _c_text(_text(failure)))
    _check(lib.shardtab_agree_f(_comm_handle(comm), status))


def peer_mappings():
    """Peer allocations this process maps now (each once, whatever number of
    tables use it); 0 once every table is destroyed."""
    return lib.shardtab_peer_mappings()
