"""_shard.py - what a table is made from: the array a rank hands in, read
through its array interface (address, bytes, dtype, or why it cannot be a
shard), and the ranks' dtypes and sizes compared over the communicator."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import numpy

from ._errors import Error
from ._memory import _unshareable


def _contiguous(shape, strides, itemsize):
    """Whether the elements fill one range of bytes from the first: C order,
    Fortran order or any other order of the axes, every stride positive."""
    if strides is None or 0 in shape:
        return True
    expect = itemsize
    for stride, extent in sorted(
        (stride, extent) for extent, stride in zip(shape, strides) if extent != 1
    ):
        if stride != expect:
            return False
        expect *= extent
    return True


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
            raise ValueError(
                f"the array interface's descr {descr} is {described.itemsize} bytes "
                f"an element, its typestr {interface['typestr']!r} "
                f"{dtype.itemsize}"
            )
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
        return (
            0,
            0,
            None,
            (
                f"a {type(array).__name__} is not an array: a shard is an object "
                "with __cuda_array_interface__ or __array_interface__ "
                "(shardtab.empty, a NumPy array, a torch tensor on the GPU)"
            ),
        )
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
        return (
            0,
            0,
            dtype,
            (
                f"the shard is read-only ({kind} says so), and a table lets every "
                "peer write it; pass a writable array"
            ),
        )
    if not _contiguous(shape, interface.get("strides"), dtype.itemsize):
        return (
            0,
            0,
            dtype,
            (
                f"the shard is not one contiguous range of bytes: a strided view "
                f"(shape {shape}, strides {tuple(interface['strides'])} bytes, "
                f"{kind}); pass a C- or Fortran-contiguous array, or a slice a[i:j] "
                "of one"
            ),
        )
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
    for name in (
        ctypes.util.find_library("mpi"),
        "libmpi.so.40",
        "libmpi.so.12",
        "libmpi.so",
    ):
        if name:
            try:
                mpi = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
                break
            except OSError:
                continue
    if mpi is None:
        raise Error(
            1,
            "shardtab: neither mpi4py nor an MPI library to load by ctypes: install mpi4py",
        )
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
    return (
        [
            pickle.loads(raw[r * record : r * record + lengths[r]])
            for r in range(size.value)
        ],
        rank.value,
    )


def _compare_shards(comm, handle, dtype, nbytes):
    """Collective over the communicator: (what to say when this rank's dtype
    is not that of the lowest rank with a readable shard, else None; every
    rank's shard in bytes, None for a rank whose shard could not be read).
    The first is None also where dtype is None: this rank's own problem is
    said already. mpi4py carries the dtypes and sizes (the collectives'
    count=None needs every rank's size); the package's other collectives go
    through the library."""
    key = None if dtype is None else (repr(dtype.descr), str(dtype))
    everyone, my_rank = _allgather(
        comm, handle, (key, None if dtype is None else nbytes)
    )
    sizes = [theirs for _, theirs in everyone]
    known = [(r, k) for r, (k, _) in enumerate(everyone) if k is not None]
    if key is None or not known or known[0][1][0] == key[0]:
        return None, sizes
    first, (_, name) = known[0]
    return (
        f"the ranks' shards hold different dtypes: rank {first}'s {name}, rank "
        f"{my_rank}'s {key[1]} (ranks of the table's communicator); every shard of "
        "a table holds one dtype"
    ), sizes


def _interface_of(array):
    """array's array interface (CUDA's first), or, for an object that has
    neither (a torch tensor in host memory), NumPy's view of it."""
    for name in ("__cuda_array_interface__", "__array_interface__"):
        interface = getattr(array, name, None)
        if interface is not None:
            return interface
    if hasattr(array, "__array__"):
        return numpy.asarray(array).__array_interface__
    raise TypeError(
        f"a {type(array).__name__} is not an array: pass one with "
        "__cuda_array_interface__ or __array_interface__ (a NumPy or CuPy "
        "array, a torch tensor, a view of shardtab.empty)"
    )
