"""shardtab - the Python front of libshardtab: one pointer table per node,
usable from kernels on every GPU of the node.

    from mpi4py import MPI
    import shardtab
    shardtab.init(MPI.COMM_WORLD)               # binds this rank's device
    a = shardtab.empty(n, dtype="float64")      # shard memory
    with shardtab.Table(MPI.COMM_WORLD, a) as t:  # collective create; destroy on exit
        t.peer(r)                               # node rank r's shard, None off-node
        t.device_table                          # int: this rank's replica, for kernels
        t.all_reduce("sum", offset=0, count=None)  # in place over every rank's shard
        t.check()                               # GPUs: did the node refuse a call?
    shardtab.finalize()

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
import ctypes
import mmap
import operator
import os

import numpy

from ._lib import CreateParams, DeviceInfo, lib

__all__ = ["Error", "init", "finalize", "device", "empty", "Table", "DeviceArray", "agree",
           "peer_mappings"]

SUCCESS = 0
_on_host_backend = None  # set by init: how memory is shown (NumPy or DeviceArray)
ERR_INVALID_ARG = 1
ERR_VERIFY = 11
_BACKEND_HOST = 0


class Error(Exception):
    """A failed call. status: the library's status code; status_name: its
    name; message: the library's message (agreed across the ranks for a
    collective call)."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = lib.shardtab_status_string(status).decode()
        self.message = message
        super().__init__(f"{message} ({self.status_name})")


def _last_error():
    return lib.shardtab_last_error().decode(errors="replace")


def _text(thing):
    """str(thing), or what thing is when even that raises."""
    try:
        return str(thing)
    except Exception as error:  # noqa: BLE001 - a message must come out of anything
        return f"(a {type(thing).__name__} whose str() raised {type(error).__name__})"


def _c_text(text):
    """text as the library's bytes, whatever it holds: a character UTF-8
    cannot encode (a lone surrogate, from a file name or os.fsdecode) is
    written as its escape, so that every message reaches the agreement."""
    return text.encode("utf-8", errors="backslashreplace")


def _record(status, message):
    """Makes message, as _last_error gave it (after this rank's own prefix),
    this thread's last error again, without a second prefix."""
    lib.shardtab_error_set_message(status, b"")
    prefix = _last_error()
    if prefix and message.startswith(prefix):
        message = message[len(prefix):]
    return lib.shardtab_error_set_message(status, _c_text(message))


def _check(status):
    if status != SUCCESS:
        raise Error(status, _last_error())


def _comm_handle(comm):
    """The Fortran handle of an mpi4py communicator (or the int given)."""
    if isinstance(comm, int):
        return comm
    py2f = getattr(comm, "py2f", None)
    if py2f is None:
        raise TypeError(f"shardtab: comm is a {type(comm).__name__}: pass an mpi4py "
                        "communicator (MPI.COMM_WORLD) or its Fortran handle (comm.py2f())")
    return py2f()


# ---- the process ---------------------------------------------------------------

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
    return {"backend": lib.shardtab_backend_name(info.backend).decode(),
            "device": info.device, "visible_devices": info.visible_devices,
            "shared": bool(info.shared), "name": info.name.decode(),
            "pci_bus_id": info.pci_bus_id.decode()}


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


# ---- memory --------------------------------------------------------------------

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

    def __del__(self, _free=lib.shardtab_mem_free, _overlaps=_overlaps_live_table,
                _pending=_pending_frees):
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
    interface = {"shape": (count,), "typestr": dtype.str, "data": (ptr, False), "version": 3}
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
_libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int]
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
            raise Error(ERR_INVALID_ARG, f"shardtab.Table.peer: mapping {length} bytes of the "
                        f"peer's memory again failed (mremap): {os.strerror(error)}")
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
        if isinstance(self._owner, Table) and self._owner._table is None:
            raise Error(ERR_INVALID_ARG, "shardtab.DeviceArray: the table this peer's view came "
                        "from is destroyed, and its memory is no longer mapped here")

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
            raise TypeError("shardtab.DeviceArray: only slices a[i:j] (copy with to_host "
                            "to read elements)")
        first, stop, step = index.indices(self.shape[0])
        if step != 1:
            raise ValueError("shardtab.DeviceArray: a slice with a step is not one contiguous "
                             "range; only a[i:j]")
        count = max(0, stop - first)
        self._live()
        return DeviceArray(self.ptr + first * self.dtype.itemsize, count, self.dtype, self._owner)

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
            raise ValueError(f"shardtab: {values.shape} values for an array of {self.shape}")
        if self.nbytes:
            _check(lib.shardtab_memcpy_to_device(self.ptr, values.ctypes.data, self.nbytes))

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
    allocation = _Allocation(n * dtype.itemsize)
    return _wrap(allocation.ptr, n, dtype, allocation)


# ---- the table -----------------------------------------------------------------

def _contiguous(shape, strides, itemsize):
    """Whether the elements fill one range of bytes from the first: C order,
    Fortran order or any other order of the axes, every stride positive."""
    if strides is None or 0 in shape:
        return True
    expect = itemsize
    for stride, extent in sorted((stride, extent) for extent, stride in zip(shape, strides)
                                 if extent != 1):
        if stride != expect:
            return False
        expect *= extent
    return True


def _unshareable(dtype):
    """Why elements of dtype cannot be shared with other processes, or None."""
    if dtype.hasobject:
        return (f"the dtype {dtype} holds Python objects: pointers into this process, "
                "which no other process can follow; a shard holds plain values")
    if dtype.itemsize == 0:
        return f"the dtype {dtype} has elements of 0 bytes; a shard's elements have at least one"
    return None


def _dtype_of(interface):
    """The dtype an array interface describes: its descr where it has one (a
    record's typestr is only |V<bytes>: the descr names its fields), else its
    typestr; the two must agree on the element's size."""
    dtype = numpy.dtype(interface["typestr"])
    descr = interface.get("descr")
    if descr is not None:
        fields = [tuple(field) for field in descr]
        if len(fields) == 1 and fields[0][0] == "" and len(fields[0]) == 2:
            described = numpy.dtype(fields[0][1])  # one plain element: [('', '<f8')]
        else:
            described = numpy.dtype(fields)
        if described.itemsize != dtype.itemsize:
            raise ValueError(f"the array interface's descr {descr} is {described.itemsize} bytes "
                             f"an element, its typestr {interface['typestr']!r} "
                             f"{dtype.itemsize}")
        dtype = described
    return dtype


def _describe(array):
    """(address, bytes, dtype, why): why says what makes array unfit, else None."""
    interface = getattr(array, "__cuda_array_interface__", None)
    kind = "__cuda_array_interface__"
    if interface is None:
        interface = getattr(array, "__array_interface__", None)
        kind = "__array_interface__"
    if interface is None:
        return 0, 0, None, (f"a {type(array).__name__} is not an array: a shard is an object "
                            "with __cuda_array_interface__ or __array_interface__ "
                            "(shardtab.empty, a NumPy array, a torch tensor on the GPU)")
    dtype = _dtype_of(interface)
    why = _unshareable(dtype)
    if why is not None:
        return 0, 0, None, f"the shard cannot be shared: {why}"
    shape = tuple(interface["shape"])
    count = 1
    for extent in shape:
        count *= extent
    data = interface.get("data")
    address = data[0] if data else 0
    if data and data[1]:
        return 0, 0, dtype, (f"the shard is read-only ({kind} says so), and a table lets every "
                             "peer write it; pass a writable array")
    if not _contiguous(shape, interface.get("strides"), dtype.itemsize):
        return 0, 0, dtype, (f"the shard is not one contiguous range of bytes: a strided view "
                             f"(shape {shape}, strides {tuple(interface['strides'])} bytes, "
                             f"{kind}); pass a C- or Fortran-contiguous array, or a slice a[i:j] "
                             "of one")
    return address, count * dtype.itemsize, dtype, None


def _allgather(comm, handle, value):
    """(every rank's value, this rank's rank) over the communicator: by mpi4py,
    or, where it is missing (a GPU machine with its own MPI and no mpi4py), by
    MPI_Allgather through ctypes on the MPI library the process has loaded,
    each value pickled into a record of a size agreed first."""
    try:
        from mpi4py import MPI
    except ImportError:
        MPI = None
    if MPI is not None:
        if not isinstance(comm, MPI.Comm):
            comm = MPI.Comm.f2py(handle)
        return comm.allgather(value), comm.Get_rank()
    import ctypes.util
    import pickle
    mpi = None
    for name in (ctypes.util.find_library("mpi"), "libmpi.so.40", "libmpi.so.12", "libmpi.so"):
        if name:
            try:
                mpi = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
                break
            except OSError:
                continue
    if mpi is None:
        raise Error(1, "shardtab: neither mpi4py nor an MPI library to load by ctypes: install mpi4py")
    mpi.MPI_Comm_f2c.restype = ctypes.c_void_p
    mpi.MPI_Comm_f2c.argtypes = [ctypes.c_int]
    c_comm = ctypes.c_void_p(mpi.MPI_Comm_f2c(int(handle)))
    # Open MPI's MPI_BYTE and MPI_INT are the addresses of these objects
    byte = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(mpi, "ompi_mpi_byte")))
    rank, size = ctypes.c_int(0), ctypes.c_int(0)
    mpi.MPI_Comm_rank(c_comm, ctypes.byref(rank))
    mpi.MPI_Comm_size(c_comm, ctypes.byref(size))
    mine = pickle.dumps(value)
    lengths = (ctypes.c_int64 * size.value)()
    length = ctypes.c_int64(len(mine))
    mpi.MPI_Allgather(ctypes.byref(length), 8, byte, lengths, 8, byte, c_comm)
    record = max(lengths)
    buffer = (ctypes.c_char * (record * size.value))()
    padded = ctypes.create_string_buffer(mine, record)
    mpi.MPI_Allgather(padded, record, byte, buffer, record, byte, c_comm)
    raw = bytes(buffer)
    return ([pickle.loads(raw[r * record:r * record + lengths[r]]) for r in range(size.value)],
            rank.value)


def _compare_shards(comm, handle, dtype, nbytes):
    """Collective over the communicator: (what to say when this rank's dtype
    is not that of the lowest rank with a readable shard, else None; every
    rank's shard in bytes, None for a rank whose shard could not be read).
    The first is None also where dtype is None: this rank's own problem is
    said already. mpi4py carries the dtypes and sizes (the collectives'
    count=None needs every rank's size); the package's other collectives go
    through the library."""
    key = None if dtype is None else (repr(dtype.descr), str(dtype))
    everyone, my_rank = _allgather(comm, handle, (key, None if dtype is None else nbytes))
    sizes = [theirs for _, theirs in everyone]
    known = [(r, k) for r, (k, _) in enumerate(everyone) if k is not None]
    if key is None or not known or known[0][1][0] == key[0]:
        return None, sizes
    first, (_, name) = known[0]
    return (f"the ranks' shards hold different dtypes: rank {first}'s {name}, rank "
            f"{my_rank}'s {key[1]} (ranks of the table's communicator); every shard of "
            "a table holds one dtype"), sizes


# ---- the collectives on a stream ---------------------------------------------------

# shardtab_types.h: shardtab_type_t and shardtab_op_t
_TYPES = {numpy.dtype(numpy.float32): 0, numpy.dtype(numpy.float64): 1,
          numpy.dtype(numpy.int64): 2}
_OPS = {"sum": 0, "min": 1, "max": 2}


def _stream_handle(stream):
    """The stream as the library takes it (None: the default stream): an int
    (or a ctypes pointer), or an object that holds one in .cuda_stream (torch),
    .handle (Numba) or .ptr (CuPy)."""
    if stream is None:
        return None
    for name in ("cuda_stream", "handle", "ptr"):
        if not isinstance(stream, (int, ctypes.c_void_p)) and hasattr(stream, name):
            stream = getattr(stream, name)
            break
    if isinstance(stream, ctypes.c_void_p):
        return stream.value
    if isinstance(stream, int) and not isinstance(stream, bool):
        if stream < 0:
            raise ValueError(f"stream handle {stream} is negative")
        return stream or None
    raise TypeError(f"stream is a {type(stream).__name__}: pass None (the default stream), an "
                    "int handle, or a stream object with .cuda_stream, .handle or .ptr "
                    "(torch.cuda.Stream, a Numba or CuPy stream)")


def _index(value, what):
    """value as a non-negative int, or ValueError/TypeError saying why not."""
    if isinstance(value, bool):
        raise TypeError(f"{what} is a bool; pass an int")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} is a {type(value).__name__}; pass an int") from None
    if value < 0:
        raise ValueError(f"{what} is {value}; it must be 0 or more")
    return value


class Table:
    """Collective over comm: the node's table of shard pointers, with array as
    this rank's shard (any number of tables may lie in one allocation).

    Keyword arguments are shardtab_create_params_t's: signal_slots,
    wait_timeout_s, alignment (bytes; 0: any), stream (an int handle, or
    a stream object as the collectives take it) and label (a str: every rank
    must give rank 0's, which checks that the ranks create their tables in
    the same order).
    Destroy it on every rank: `with` does, or destroy()."""

    def __init__(self, comm, array, *, signal_slots=0, wait_timeout_s=0.0, alignment=0,
                 stream=None, label=None):
        self._comm = _comm_handle(comm)
        self._table = None
        self._label = None  # the label's bytes, alive while create reads them
        # A local problem must fail every rank, not leave the others in create:
        # whatever goes wrong here (an array interface that raises, a bad
        # typestr, a parameter ctypes will not take) is agreed first.
        dtype = None
        try:
            address, nbytes, dtype, why = _describe(array)
            if label is not None and not isinstance(label, str):
                raise TypeError(f"label is a {type(label).__name__}; pass a str")
            self._label = None if label is None else label.encode("utf-8", "backslashreplace")
            params = CreateParams(_stream_handle(stream), signal_slots, wait_timeout_s,
                                  alignment, self._label)
        except Exception as error:  # noqa: BLE001 - every kind goes to the agreement
            why = (f"the shard or a parameter could not be read: {type(error).__name__}: "
                   f"{_text(error)}")
        sizes = None
        try:  # every rank takes part, whatever it found above
            mismatch, sizes = _compare_shards(comm, self._comm, dtype if why is None else None,
                                              nbytes if why is None else None)
        except Exception as error:  # noqa: BLE001
            mismatch = (f"the ranks' dtypes could not be compared: {type(error).__name__}: "
                        f"{_text(error)}")
        why = why if why is not None else mismatch
        status = SUCCESS
        if why is not None:
            status = lib.shardtab_error_set_message(ERR_INVALID_ARG, _c_text(why))
        _check(lib.shardtab_agree_f(self._comm, status))
        table = ctypes.c_void_p()
        _check(lib.shardtab_create_f(self._comm, address if nbytes else None, nbytes,
                                     ctypes.byref(params), ctypes.byref(table)))
        self._table = table
        self._array = array  # the memory stays while the table lives
        self.dtype = dtype
        self._nbytes = nbytes
        self._shard_bytes = tuple(sizes)  # every rank's, by communicator rank
        self._pending = None  # a collective this rank's library refused (GPUs: see check)
        if nbytes:
            _table_ranges[table.value] = (address, address + nbytes)

    def _live(self):
        if self._table is None or self._table.value is None:
            raise Error(ERR_INVALID_ARG, "shardtab.Table: the table is destroyed")
        return self._table

    # ---- the node, as in the C API
    @property
    def node_rank(self):
        return lib.shardtab_node_rank(self._live())

    @property
    def node_size(self):
        return lib.shardtab_node_size(self._live())

    @property
    def node_id(self):
        return lib.shardtab_node_id(self._live())

    @property
    def node_count(self):
        return lib.shardtab_node_count(self._live())

    def member(self, node_rank):
        """The communicator rank of node rank node_rank, or -1."""
        return lib.shardtab_member(self._live(), node_rank)

    def node_rank_of(self, rank):
        """The node rank of communicator rank `rank`, or -1 off this node."""
        return lib.shardtab_node_rank_of(self._live(), rank)

    def peer(self, rank):
        """Communicator rank `rank`'s shard as this process maps it, as a 1-D
        array of this shard's dtype (its bytes in memory order); None when that
        rank is on another node. On the host backend the view holds a mapping
        of its own of that memory, valid after the table is destroyed; on GPUs
        a DeviceArray, which raises Error once the table is destroyed."""
        table = self._live()
        base, nbytes = ctypes.c_void_p(), ctypes.c_size_t()
        _check(lib.shardtab_peer(table, rank, ctypes.byref(base), ctypes.byref(nbytes)))
        if lib.shardtab_node_rank_of(table, rank) < 0:
            return None
        count = nbytes.value // self.dtype.itemsize
        if not _on_host():
            return DeviceArray(base.value, count, self.dtype, self)
        if count == 0:
            return numpy.empty(0, self.dtype)
        mapping = _Mapping(base.value, nbytes.value)
        return numpy.asarray(_HostView(mapping.address, count, self.dtype, mapping))

    @property
    def device_table(self):
        """The device address of this rank's replica of the table: node_size
        shard pointers, then node_size signal pads (shardtab_device.h)."""
        return lib.shardtab_device_table(self._live()) or 0

    @property
    def create_ms(self):
        return lib.shardtab_create_ms(self._live())

    @property
    def peers_opened(self):
        """Peer allocations this create opened (the others were open already)."""
        return lib.shardtab_peers_opened(self._live())

    @property
    def peers_reused(self):
        return lib.shardtab_peers_reused(self._live())

    # ---- collectives on a stream, over the table's shards (shardtab.h)

    def all_reduce(self, op="sum", offset=0, count=None, stream=None):
        """Collective, in place: elements [offset, offset + count) of every
        rank's shard become, element by element, the op ("sum", "min" or
        "max") of every rank's, combined in rank order (inside a node in
        node-rank order, then across nodes in node order: the same bits on
        every rank, every run; min and max: a NaN of the first rank wins).

        offset and count are elements of the table's dtype (float32, float64
        or int64; int64 sums wrap). count=None: the rest of the shard from
        offset, where every rank's shard has the same size, an error where
        they differ. stream: None (the default stream), an int handle, or a
        stream object (torch.cuda.Stream, a CuPy or Numba stream); the host
        backend ignores it (but refuses, as every backend does, a value that
        is no stream).

        When it returns, on the host backend the result is in place, and a
        refusal by the library (the ranks' calls differ) has raised Error on
        every rank. On GPUs it is enqueued on stream: read the result after
        the stream, and learn whether the node refused the call (the ranks'
        calls differ: that shows only on the device) from check().

        Every rank calls, in the same order, with the same arguments. An
        argument this rank cannot take (unknown op, a dtype without
        collectives, count=None over unequal shards, a region past the shard)
        raises Error on every rank before anything is enqueued (one host
        agreement, an MPI_Allreduce of an int, per call): the table stays
        usable. An Error from the library itself, here or in check(), means
        the node stopped: destroy the table."""
        def prepare():
            if not isinstance(op, str) or op not in _OPS:
                raise ValueError(f"unknown op {_text(op)!r}: expected 'sum', 'min' or 'max'")
            start, elements = self._region(offset, count, 1)
            return (_OPS[op], start, elements)
        self._collective("all_reduce", prepare,
                         lambda table, args, kind, handle:
                         lib.shardtab_all_reduce(table, args[0], kind, args[1], args[2], handle),
                         stream)

    def broadcast(self, root, offset=0, count=None, stream=None):
        """Collective: elements [offset, offset + count) of every rank's
        shard become those of communicator rank root's. offset, count and
        stream as in all_reduce (count=None: the rest of the shard, shards of
        one size only); so are what it has done when it returns, and its
        errors."""
        def prepare():
            who = _index(root, "root")
            if who >= len(self._shard_bytes):
                raise ValueError(f"root {who} is outside the table's {len(self._shard_bytes)} "
                                 "ranks")
            start, elements = self._region(offset, count, 1)
            return (who, start, elements)
        self._collective("broadcast", prepare,
                         lambda table, args, kind, handle:
                         lib.shardtab_broadcast(table, args[0], kind, args[1], args[2], handle),
                         stream)

    def all_gather(self, offset=0, count=None, stream=None):
        """Collective, in place: the region from element offset holds
        size * count elements (size: the ranks of the table's communicator),
        communicator rank r's own count at offset + r * count; afterwards
        every rank's region holds every rank's. count=None: the rest of the
        shard from offset divided by size, where every rank's shard has the
        same size and the division is exact, an error otherwise. stream, what
        it has done when it returns and its errors: as in all_reduce."""
        def prepare():
            return self._region(offset, count, len(self._shard_bytes))
        self._collective("all_gather", prepare,
                         lambda table, args, kind, handle:
                         lib.shardtab_all_gather(table, kind, args[0], args[1], handle),
                         stream)

    def check(self):
        """Collective: waits for the table's last collective or barrier (on
        whatever stream), then asks whether the node refused a collective
        (the ranks' calls differed) or a device-side wait gave up
        (shardtab_signal_check), and agrees: if any rank found one, or its
        library refused one of its calls since, every rank raises Error with
        the first cause. The way to learn it on GPUs, where the collectives
        are enqueued; on the host backend every collective has done this
        before it returned. After an Error, destroy the table."""
        table = self._live()
        status = lib.shardtab_signal_check(table)
        if self._pending is not None:  # this rank's own refusal is the cause
            status = _record(*self._pending)
            self._pending = None
        _check(lib.shardtab_agree_f(self._comm, status))

    def _region(self, offset, count, parts):
        """(byte offset, count) of a region of `parts` pieces of count
        elements each from element offset, checked against this rank's shard;
        count=None: what fills every rank's shard from offset."""
        itemsize = self.dtype.itemsize
        first = _index(offset, "offset")
        elements = self._nbytes // itemsize
        if first > elements:
            raise ValueError(f"offset {first} is past this rank's shard of {elements} elements")
        if count is None:
            if len(set(self._shard_bytes)) != 1:
                raise ValueError("count=None needs shards of one size on every rank, and they "
                                 "differ: " + self._sizes_text() + "; pass count")
            rest = elements - first
            if rest % parts != 0:
                raise ValueError(f"count=None: the {rest} elements of the shard from offset "
                                 f"{first} do not split evenly over the {parts} ranks; pass "
                                 "count")
            return first * itemsize, rest // parts
        number = _index(count, "count")
        if number * parts > elements - first:
            what = f"{parts} ranks' {number}" if parts > 1 else f"{number}"
            raise ValueError(f"{what} elements from offset {first} need {first + number * parts} "
                             f"elements, past this rank's shard of {elements}")
        return first * itemsize, number

    def _sizes_text(self):
        """The ranks' shard sizes, in elements, for a message."""
        itemsize = self.dtype.itemsize
        sizes = [f"rank {r}: {b // itemsize}" for r, b in enumerate(self._shard_bytes)]
        return ", ".join(sizes if len(sizes) <= 8 else sizes[:4] + ["..."] + sizes[-2:])

    def _collective(self, name, prepare, call, stream):
        """The path of every collective: this rank's checks, agreed (no rank
        enters the library unless every rank can), the library's call, and on
        the host backend, where it ran already, its outcome agreed too."""
        table = self._live()
        why = None
        try:
            kind = _TYPES.get(self.dtype)
            if kind is None:
                raise ValueError(f"the table's dtype {self.dtype} has no collectives: float32, "
                                 "float64 and int64 have (SHARDTAB_FLOAT, SHARDTAB_DOUBLE, "
                                 "SHARDTAB_INT64)")
            args = prepare()
            handle = _stream_handle(stream)
        except Exception as error:  # noqa: BLE001 - every kind goes to the agreement
            why = f"shardtab.Table.{name}: {_text(error)}"
        status = SUCCESS
        if why is not None:
            status = lib.shardtab_error_set_message(ERR_INVALID_ARG, _c_text(why))
        _check(lib.shardtab_agree_f(self._comm, status))
        status = call(table, args, kind, handle)
        if not _on_host():
            # enqueued; a refusal here has stopped the node, whose other ranks
            # learn it in check(), where this rank's message is the cause
            if status != SUCCESS:
                message = _last_error()
                self._pending = (status, message)
                raise Error(status, message)
            return
        if status == SUCCESS:
            status = lib.shardtab_signal_check(table)
        _check(lib.shardtab_agree_f(self._comm, status))

    def destroy(self):
        """Collective: every rank destroys the table, once."""
        table = self._live()
        self._table = None
        key = table.value
        try:
            _check(lib.shardtab_destroy(ctypes.byref(table)))
        finally:
            # only now may the memory go (its last reference may be this one),
            # and what waited for this table to go
            _table_ranges.pop(key, None)
            self._array = None
            _free_pending()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._table is not None:
            self.destroy()
        return False
