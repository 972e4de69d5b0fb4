"""shardtab - the Python front of libshardtab: one pointer table per node,
usable from kernels on every GPU of the node.

    from mpi4py import MPI
    import shardtab
    shardtab.init(MPI.COMM_WORLD)               # binds this rank's device
    a = shardtab.empty(n, dtype="float64")      # shard memory
    with shardtab.Table(MPI.COMM_WORLD, a) as t:  # collective create; destroy on exit
        t.peer(r)                               # rank r's shard (a communicator rank), None off-node
        t.device_table                          # int: this rank's replica, for kernels
        t.all_reduce("sum", offset=0, count=None)  # in place; offset, count in elements
        t.check()                               # GPUs: did the node refuse a call?
    shardtab.finalize()

The halo exchange over a table's shards (shardtab_halo.h), from an array of
the padded block (C order: the last axis is the library's axis 0):

    u = shard[:(ny + 2) * (nx + 2)].reshape(ny + 2, nx + 2)  # a view of the shard
    with shardtab.Halo.of_array(t, u, grid=(py, px), ghost=1, periodic=(False, True)) as h:
        h.exchange(stream=None)                 # collective: the ghost cells filled
        h.neighbor(1, 0), h.coord(0)            # the library's axes: x first

Direct faces (shardtab_faces.h): ghost faces in each shard that the
neighbours' kernels store into themselves, and the exchange of those that
go through MPI (another node):

    with shardtab.Faces(t, grid=size, face_bytes=nx * 8, periodic=True) as f:
        f.dest(0, 0, p), f.ghost(0, 1, p)       # addresses, for a kernel
        f.route(0, 1)                           # "table", "mpi" or "none"
        f.exchange(p, [first_row, last_row])    # the faces of route "mpi"

Memory is a NumPy array on the host backend, and on GPUs an object with
__cuda_array_interface__ (v3) that torch.as_tensor, CuPy and Numba take. A
Table also takes any array that exposes either interface, as long as it is
one contiguous range of memory the table can share (shardtab.empty, or on a
GPU the runtime's plain allocations: PyTorch's default caching allocator), in
C, Fortran or any order of its axes, writable, of one dtype on every rank, and
of plain values (no Python objects, no 0-byte elements).

Collective calls fail on every rank at once: each raises shardtab.Error with
the same agreed message, so that no rank is left waiting in a collective.
Communicators are mpi4py communicators (their Fortran handle, comm.py2f(),
goes to the library: portable across MPI libraries) or that handle as an int.

A peer's view outlives its table safely: on the host backend it holds a
mapping of its own of the peer's memory; on GPUs a DeviceArray of a destroyed
table raises Error.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
# The package's parts, bottom up: _lib (the C calls), _errors, _process (init,
# the device, agree), _memory (allocations and arrays), _shard (what a table is
# made from), _collectives, _table.
from ._errors import ERR_INVALID_ARG, ERR_VERIFY, SUCCESS, Error
from ._lib import CreateParams, DeviceInfo, lib
from ._memory import DeviceArray, empty
from ._process import agree, device, finalize, init, peer_mappings
from ._halo import Halo
from ._faces import Faces
from ._table import Table

__version__ = lib.shardtab_version().decode()
"""The version of the library the package loaded, "MAJOR.MINOR.PATCH"."""

__all__ = [
    "Error",
    "init",
    "finalize",
    "device",
    "empty",
    "Table",
    "Halo",
    "Faces",
    "DeviceArray",
    "agree",
    "peer_mappings",
]
