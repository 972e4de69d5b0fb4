"""_halo.py - shardtab.Halo: the halo exchange over a table (shardtab_halo.h):
made from the decomposition (Halo(table, ...), the library's axes) or from
an array of the padded block (Halo.of_array, the array's axes), then
exchange, neighbor, coord, pushed, form and close. Each rank's arguments are checked and
agreed before the library's collective calls, as the collectives' are."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import ctypes
import itertools

from ._collectives import _stream_handle
from ._errors import ERR_INVALID_ARG, Error, _agree_on, _check, _text
from ._lib import HALO_MAX_DIMS, HaloParams, _grid_dims, _per_axis, c_arg, lib
from ._memory import _table_ranges
from ._shard import _dtype_of, _interface_of


_made = itertools.count()  # halos made in this process, in order


class Halo:
    """Collective over the table's communicator: the halo exchange of a
    block decomposition over the table's shards (shardtab_halo_create).

    Every per-axis argument is in the library's axis order (axis 0 first:
    the fastest-varying rank coordinate and cell index) and is one int for
    every axis or a sequence of `dims` of them:

        grid        ranks along each axis (their product: the communicator's size)
        block       this rank's interior cells along each axis
        ghost       ghost cells on each side (default 1; 0: not exchanged)
        periodic    the axis wraps around (default False)
        elem_bytes  bytes of one cell
        offset_bytes  bytes from the shard's start to cell (0, 0, 0), a ghost cell
        stride      cells between neighbours along each axis (None: packed)
        corners     edges and corners too, not only the faces (default False)

    From an array of the padded block, in its own axis order: Halo.of_array.
    A cell is at offset_bytes + (i0 stride[0] + i1 stride[1] + i2 stride[2])
    * elem_bytes, each i_a in [0, block[a] + 2 ghost[a]).

    An argument this rank cannot take raises Error on every rank (agreed);
    the library's refusals (a grid that does not match the communicator, a
    ghost wider than a neighbour's block, overlapping strides, ranks that
    differ) raise its Error, with its message, on every rank. The table stays
    usable. Close it on every rank (`with`, or close()); destroying the table
    closes the halos still open over it, in the order they were made."""

    def __init__(
        self,
        table,
        *,
        grid,
        block,
        elem_bytes,
        ghost=1,
        periodic=False,
        offset_bytes=0,
        stride=None,
        corners=False,
        dims=None,
    ):
        self._halo = None
        self._table = table
        live = table._live()
        why = None
        try:
            dims = _grid_dims(grid, dims, "a halo has")
            params = HaloParams(
                dims,
                (ctypes.c_int * HALO_MAX_DIMS)(
                    *_per_axis(grid, dims, "grid", ctypes.c_int)
                ),
                (ctypes.c_int * HALO_MAX_DIMS)(
                    *_per_axis(periodic, dims, "periodic", None)
                ),
                (ctypes.c_size_t * HALO_MAX_DIMS)(
                    *_per_axis(block, dims, "block", ctypes.c_size_t)
                ),
                (ctypes.c_size_t * HALO_MAX_DIMS)(
                    *_per_axis(ghost, dims, "ghost", ctypes.c_size_t)
                ),
                c_arg(elem_bytes, ctypes.c_size_t, "elem_bytes"),
                c_arg(offset_bytes, ctypes.c_size_t, "offset_bytes"),
                (ctypes.c_size_t * HALO_MAX_DIMS)(
                    *_per_axis(
                        0 if stride is None else stride,
                        dims,
                        "stride",
                        ctypes.c_size_t,
                    )
                ),
                1 if corners else 0,
            )
        except Exception as error:  # noqa: BLE001 - every kind goes to the agreement
            why = f"shardtab.Halo: {_text(error)}"
        _agree_on(table._comm, why, live)
        halo = ctypes.c_void_p()
        _check(lib.shardtab_halo_create(live, ctypes.byref(params), ctypes.byref(halo)))
        self._halo = halo
        self.dims = dims
        self._order = next(_made)  # the table's destroy closes its halos in this order
        table._halos.add(self)  # closed by the table's destroy, if still open

    @classmethod
    def of_array(cls, table, array, *, grid, ghost=1, periodic=False, corners=False):
        """The halo of `array`, a view of this rank's shard of the table
        holding the padded block (a NumPy or CuPy array, a torch tensor),
        with 1 to 3 axes in C order: its last axis is the library's axis 0,
        so an array u[nz + 2g][ny + 2g][nx + 2g] has x as axis 0. grid,
        ghost and periodic are in the array's axis order too (one value for
        every axis, or one per axis of the array): grid=(pz, py, px), as
        MPI_Dims_create and mpi4py's Create_cart order them. The cell size,
        the block's place in the shard (offset) and its strides come from
        the array; block = shape - 2 ghost along each axis. The array may be
        a strided view (a slice of a bigger array), but it must lie inside
        this rank's shard, with positive strides that are whole cells."""
        why = None
        params = {}
        try:
            interface = _interface_of(array)
            shape = tuple(int(n) for n in interface["shape"])
            dims = len(shape)
            if not 1 <= dims <= HALO_MAX_DIMS:
                raise ValueError(
                    f"the array has {dims} axes (shape {shape}); a halo's block has 1 to 3"
                )
            itemsize = _dtype_of(interface).itemsize
            strides = interface.get("strides")
            if strides is None:  # C-contiguous
                strides, step = [], itemsize
                for n in reversed(shape):
                    strides.insert(0, step)
                    step *= n
            strides = tuple(int(s) for s in strides)
            for axis, s in enumerate(strides):
                if s <= 0 or s % itemsize != 0:
                    raise ValueError(
                        f"the array's stride along its axis {axis} is {s} bytes: a "
                        f"halo takes positive strides of whole cells ({itemsize} bytes)"
                    )

            def reverse(value, what):  # the array's axis order -> the library's
                if isinstance(value, (list, tuple)):
                    if len(value) != dims:
                        raise ValueError(
                            f"{what} has {len(value)} values for an array of {dims} axes"
                        )
                    return tuple(reversed(value))
                return value

            ghosts = reverse(ghost, "ghost")
            ghosts = list(ghosts) if isinstance(ghosts, tuple) else [ghosts] * dims
            extents = tuple(reversed(shape))
            block = []
            for axis in range(dims):
                g = c_arg(ghosts[axis], ctypes.c_size_t, f"ghost[{axis}]")
                if extents[axis] <= 2 * g:
                    raise ValueError(
                        f"the array's axis {dims - 1 - axis} has {extents[axis]} cells, "
                        f"no interior inside {g} ghost cells on each side"
                    )
                block.append(extents[axis] - 2 * g)
            first, end = _shard_range(table)
            address = interface["data"][0] if interface.get("data") else 0
            if not first <= address < end:
                raise ValueError(
                    f"the array (at 0x{address:x}) is not inside this rank's shard "
                    f"of the table (0x{first:x} to 0x{end:x}); pass a view of it"
                )
            params = dict(
                grid=reverse(grid, "grid"),
                block=block,
                ghost=ghosts,
                periodic=reverse(periodic, "periodic"),
                elem_bytes=itemsize,
                offset_bytes=address - first,
                stride=tuple(s // itemsize for s in reversed(strides)),
                corners=corners,
                dims=dims,
            )
        except Exception as error:  # noqa: BLE001 - every kind goes to the agreement
            why = f"shardtab.Halo.of_array: {_text(error)}"
        _agree_on(table._comm, why)  # every rank takes part, whatever it found
        halo = cls(table, **params)
        halo._array = array  # the memory stays while the halo lives
        return halo

    def _live(self):
        if self._halo is None or self._halo.value is None:
            raise Error(ERR_INVALID_ARG, "shardtab.Halo: the halo is closed")
        self._table._live()  # the table's own message once it is destroyed
        return self._halo

    def exchange(self, stream=None):
        """Collective: every ghost cell that has a neighbour filled from that
        neighbour's interior (shardtab_halo_exchange). stream: None (the
        default stream), an int handle, or a stream object (torch.cuda.Stream,
        a CuPy or Numba stream). On the host backend the cells are in place
        when it returns; on GPUs it is enqueued on stream (read the cells
        after it), and whether the node refused it shows in the table's
        check(). A stream that is no stream raises Error on every rank."""
        halo = self._live()
        why, handle = None, None
        try:
            handle = _stream_handle(stream)
        except Exception as error:  # noqa: BLE001 - every kind goes to the agreement
            why = f"shardtab.Halo.exchange: {_text(error)}"
        self._table._agreed_call(why, lambda: lib.shardtab_halo_exchange(halo, handle))

    def neighbor(self, d0, d1=0, d2=0):
        """The communicator rank of the neighbour at offset (d0, d1, d2),
        each -1, 0 or 1, in the library's axis order; -1 where there is none
        (a non-periodic end)."""
        return lib.shardtab_halo_neighbor(
            self._live(),
            c_arg(d0, ctypes.c_int, "d0"),
            c_arg(d1, ctypes.c_int, "d1"),
            c_arg(d2, ctypes.c_int, "d2"),
        )

    def coord(self, axis):
        """This rank's coordinate along the library's axis (0 to 2)."""
        return lib.shardtab_halo_coord(self._live(), c_arg(axis, ctypes.c_int, "axis"))

    @property
    def pushed(self):
        """True where the cells inside the node go into the neighbours'
        inboxes, one way (as LL words, or by put with a flag each); False
        where they are pulled between two node barriers (shardtab_halo_pushed)."""
        return lib.shardtab_halo_pushed(self._live()) == 1

    @property
    def form(self):
        """How the cells inside the node move, the same on every rank:
        "ll" (pushed as LL words), "put" (pushed by put) or "pulled"
        (shardtab_halo_form)."""
        return {0: "pulled", 1: "ll", 2: "put"}[lib.shardtab_halo_form(self._live())]

    def close(self):
        """Collective: every rank closes its halos in the order it made them
        (a pushed halo's inboxes are a table of their own); again: nothing."""
        halo, self._halo = self._halo, None
        if halo is not None and halo.value is not None:
            self._table._halos.discard(self)
            self._array = None
            _check(lib.shardtab_halo_destroy(ctypes.byref(halo)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _shard_range(table):
    """(first byte, end) of this rank's shard of the table."""
    live = table._live()
    found = _table_ranges.get(live.value)
    if found is None:
        raise ValueError("this rank's shard of the table is empty: it holds no block")
    return found
