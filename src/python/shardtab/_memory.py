"""_memory.py - shard memory and the arrays over it: allocations of the
library, freed when nothing uses them any more; NumPy views on the host
backend (a peer's through a mapping of this process's own); DeviceArray on
GPUs; shardtab.empty."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import ctypes
import mmap
import os

import numpy

from ._errors import ERR_INVALID_ARG, SUCCESS, Error, _check
from ._lib import lib
from ._process import _on_host

# The byte ranges of the live tables made here ({table pointer: (first byte,
# end)}), and the allocations whose last array went while such a table lay in
# them ((pointer, bytes)): the library refused that free, so it waits for the
# last table over them.
_table_ranges = {}
_pending_frees = []


def _overlaps_live_table(first, end):
    return any(a < end and first < b for a, b in _table_ranges.values())


def _free_pending():
    """Frees each waiting allocation that no live table lies in any more."""
    for entry in list(_pending_frees):
        ptr, nbytes = entry
        if not _overlaps_live_table(ptr, ptr + nbytes):
            _pending_frees.remove(entry)
            lib.shardtab_mem_free(ptr)


class _Allocation:
    """Memory of shardtab_mem_alloc, freed when the last array over it goes,
    or, where a table made from another object over it still lives then (the
    library refuses the free), when the last such table is destroyed."""

    def __init__(self, nbytes):
        self.ptr = None  # __del__ runs even when the allocation below fails
        self.nbytes = nbytes
        ptr = ctypes.c_void_p()
        _check(lib.shardtab_mem_alloc(nbytes, ctypes.byref(ptr)))
        self.ptr = ptr.value

    def __del__(
        self,
        _free=lib.shardtab_mem_free,
        _overlaps=_overlaps_live_table,
        _pending=_pending_frees,
    ):
        ptr, self.ptr = self.ptr, None
        if ptr is None:
            return
        # After finalize there is nothing left to free it with (the free fails
        # and no table of this process lies in it any more).
        if _free(ptr) != SUCCESS and _overlaps(ptr, ptr + self.nbytes):
            _pending.append((ptr, self.nbytes))


def _interface(ptr, count, dtype):
    """The array interface (v3) of count elements of dtype at ptr; a record
    dtype's fields go in descr."""
    interface = {
        "shape": (count,),
        "typestr": dtype.str,
        "data": (ptr, False),
        "version": 3,
    }
    if dtype.names is not None:
        interface["descr"] = dtype.descr
    return interface


class _HostView:
    """What NumPy wraps: an address, a length, a dtype, and who keeps it alive."""

    def __init__(self, ptr, count, dtype, owner):
        self.__array_interface__ = _interface(ptr, count, dtype)
        self.owner = owner


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mremap.restype = ctypes.c_void_p
_libc.mremap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_size_t,
    ctypes.c_int,
]
_libc.munmap.restype = ctypes.c_int
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_MREMAP_MAYMOVE = 1
_MAP_FAILED = ctypes.c_void_p(-1).value


class _Mapping:
    """Host backend: a second mapping of the pages of a shared mapping
    (mremap with old size 0), this process's own, so that a peer's view stays
    valid memory after its table is destroyed and the library unmaps what it
    opened; unmapped when the last view over it goes."""

    def __init__(self, address, nbytes):
        start = address - address % mmap.PAGESIZE
        length = -(-(address + nbytes - start) // mmap.PAGESIZE) * mmap.PAGESIZE
        base = _libc.mremap(start, 0, length, _MREMAP_MAYMOVE)
        if base is None or base == _MAP_FAILED:
            error = ctypes.get_errno()
            raise Error(
                ERR_INVALID_ARG,
                f"shardtab.Table.peer: mapping {length} bytes of the "
                f"peer's memory again failed (mremap): {os.strerror(error)}",
            )
        self.base, self.length = base, length
        self.address = base + (address - start)

    def __del__(self, _munmap=_libc.munmap):
        base, self.base = getattr(self, "base", None), None
        if base is not None:
            _munmap(base, self.length)


class DeviceArray:
    """A 1-D array in GPU memory: this rank's (from empty) or a peer's (from
    Table.peer). Exposes __cuda_array_interface__ version 3; copies to and
    from NumPy with to_host and from_host."""

    def __init__(self, ptr, count, dtype, owner):
        self.ptr = ptr or 0
        self.shape = (count,)
        self.dtype = numpy.dtype(dtype)
        self.nbytes = count * self.dtype.itemsize
        self._owner = owner

    def _live(self):
        """Raises when this is a view of a peer and its table is destroyed:
        the library no longer maps that memory here."""
        # a peer's view is owned by its Table, whose _table is None once it is
        # destroyed (this rank's own memory is owned by an _Allocation)
        if getattr(self._owner, "_table", False) is None:
            raise Error(
                ERR_INVALID_ARG,
                "shardtab.DeviceArray: the table this peer's view came "
                "from is destroyed, and its memory is no longer mapped here",
            )

    @property
    def __cuda_array_interface__(self):
        self._live()
        interface = _interface(self.ptr, self.shape[0], self.dtype)
        interface["strides"] = None
        return interface

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, index):
        """A contiguous slice a[i:j] (step 1), sharing this memory."""
        if not isinstance(index, slice):
            raise TypeError(
                "shardtab.DeviceArray: only slices a[i:j] (copy with to_host "
                "to read elements)"
            )
        first, stop, step = index.indices(self.shape[0])
        if step != 1:
            raise ValueError(
                "shardtab.DeviceArray: a slice with a step is not one contiguous "
                "range; only a[i:j]"
            )
        count = max(0, stop - first)
        self._live()
        return DeviceArray(
            self.ptr + first * self.dtype.itemsize, count, self.dtype, self._owner
        )

    def to_host(self):
        self._live()
        out = numpy.empty(self.shape, self.dtype)
        if self.nbytes:
            _check(lib.shardtab_memcpy_to_host(out.ctypes.data, self.ptr, self.nbytes))
        return out

    def from_host(self, values):
        self._live()
        values = numpy.ascontiguousarray(values, dtype=self.dtype)
        if values.shape != self.shape:
            raise ValueError(
                f"shardtab: {values.shape} values for an array of {self.shape}"
            )
        if self.nbytes:
            _check(
                lib.shardtab_memcpy_to_device(self.ptr, values.ctypes.data, self.nbytes)
            )

    def __repr__(self):
        return f"shardtab.DeviceArray(0x{self.ptr:x}, shape={self.shape}, dtype={self.dtype})"


def _wrap(ptr, count, dtype, owner):
    """count elements at ptr, as this backend shows memory."""
    if _on_host():
        if count == 0:
            return numpy.empty(0, dtype)
        return numpy.asarray(_HostView(ptr, count, numpy.dtype(dtype), owner))
    return DeviceArray(ptr, count, dtype, owner)


def empty(n, dtype="float64"):
    """n elements of shard memory on this rank's device, uninitialized: a NumPy
    array on the host backend, a DeviceArray on GPUs. Local."""
    dtype = numpy.dtype(dtype)
    if n < 0:
        raise ValueError(f"shardtab.empty: n is {n}")
    why = _unshareable(dtype)
    if why is not None:
        raise ValueError(f"shardtab.empty: {why}")
    nbytes = n * dtype.itemsize
    if nbytes >= 1 << (8 * ctypes.sizeof(ctypes.c_size_t)):
        # ctypes would pass the bytes modulo 2**64
        raise Error(
            ERR_INVALID_ARG,
            f"shardtab.empty: {n} {dtype} elements are {nbytes} bytes, more than "
            "one allocation can hold (a size_t)",
        )
    allocation = _Allocation(nbytes)
    return _wrap(allocation.ptr, n, dtype, allocation)


def _unshareable(dtype):
    """Why elements of dtype cannot be shared with other processes, or None."""
    if dtype.hasobject:
        return (
            f"the dtype {dtype} holds Python objects: pointers into this process, "
            "which no other process can follow; a shard holds plain values"
        )
    if dtype.itemsize == 0:
        return f"the dtype {dtype} has elements of 0 bytes; a shard's elements have at least one"
    return None
