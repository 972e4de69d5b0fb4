"""_faces.py - shardtab.Faces: the direct faces over a table (shardtab_faces.h):
made from the process grid and each axis's face bytes, then the places (ghost,
dest, offset), who and how (neighbor, node_peer, route), the exchange of the
faces that go through MPI, and close. Each rank's arguments are checked and
agreed before the library's collective create, as the halo's are."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import ctypes
import math
import numbers

from ._collectives import _USER_ADDRESSES, _stream_handle
from ._errors import ERR_INVALID_ARG, Error, _agree_on, _check, _text
from ._lib import HALO_MAX_DIMS, FacesParams, _grid_dims, _per_axis, c_arg, lib
from ._shard import _contiguous, _dtype_of, _interface_of

_ROUTES = {0: "none", 1: "table", 2: "mpi"}  # enum shardtab_faces_route


class Faces:
    """Collective over the table's communicator: direct faces
    (shardtab_faces_create), ghost faces in every rank's shard which each
    neighbour's kernel stores into itself as it computes them. Per-axis
    arguments are in the library's axis order (axis 0: the fastest-varying
    rank coordinate), one int for every axis or a sequence of `dims`:

        grid         ranks along each axis (their product: the communicator's size)
        face_bytes   bytes of one ghost face across each axis (0: none there)
        periodic     the axis wraps around (default False)
        parities     buffers of every face, 1 or 2 (default 2)
        offset_bytes the first face's byte offset in this rank's shard
        through_mpi  every face through MPI, none through the table (a baseline)
        mpi_device   the MPI reads and writes the shard's memory itself (GPU-aware,
                     or the host backend); False (default): staged through the host

    The layout in the shard, the same on every rank: the faces of parity p,
    axis a, side s at offset_bytes + p F + 2 (face_bytes[0] + ... +
    face_bytes[a - 1]) + s face_bytes[a], F = 2 sum(face_bytes) (offset()).
    Side 0 is the low face, filled by the neighbour at coordinate - 1.

    An argument this rank cannot take raises Error on every rank (agreed);
    the library's refusals raise its Error, with its message, on every rank,
    and the table stays usable. The other calls' bad arguments raise on
    this rank alone (ValueError, TypeError). close() is local (no other rank
    takes part); destroying the table closes the faces still open over it."""

    def __init__(
        self,
        table,
        *,
        grid,
        face_bytes,
        periodic=False,
        parities=2,
        offset_bytes=0,
        through_mpi=False,
        mpi_device=False,
        dims=None,
    ):
        self._faces = None
        self._table = table
        live = table._live()
        why = None
        try:
            dims = _grid_dims(grid, dims, "direct faces have")
            self._params = FacesParams(
                dims,
                (ctypes.c_int * HALO_MAX_DIMS)(
                    *_per_axis(grid, dims, "grid", ctypes.c_int)
                ),
                (ctypes.c_int * HALO_MAX_DIMS)(
                    *_per_axis(periodic, dims, "periodic", None)
                ),
                (ctypes.c_size_t * HALO_MAX_DIMS)(
                    *_per_axis(face_bytes, dims, "face_bytes", ctypes.c_size_t)
                ),
                c_arg(parities, ctypes.c_int, "parities"),
                c_arg(offset_bytes, ctypes.c_size_t, "offset_bytes"),
                1 if through_mpi else 0,
                1 if mpi_device else 0,
            )
        except Exception as error:  # noqa: BLE001 - every kind goes to the agreement
            why = f"shardtab.Faces: {_text(error)}"
        _agree_on(table._comm, why, live)
        faces = ctypes.c_void_p()
        _check(
            lib.shardtab_faces_create(
                live, ctypes.byref(self._params), ctypes.byref(faces)
            )
        )
        self._faces = faces
        self.dims = dims
        table._faces.add(self)  # closed by the table's destroy, if still open

    def _live(self):
        if self._faces is None or self._faces.value is None:
            raise Error(ERR_INVALID_ARG, "shardtab.Faces: the faces are closed")
        self._table._live()  # the table's own message once it is destroyed
        return self._faces

    def _where(self, axis, side):
        return c_arg(axis, ctypes.c_int, "axis"), c_arg(side, ctypes.c_int, "side")

    def offset(self, axis, side, parity):
        """Byte offset in the shard of the ghost face (axis, side, parity);
        None for an axis without faces, or a side or parity out of range."""
        at = lib.shardtab_faces_offset(
            ctypes.byref(self._params),
            *self._where(axis, side),
            c_arg(parity, ctypes.c_int, "parity"),
        )
        return None if at == ctypes.c_size_t(-1).value else at

    @property
    def nbytes(self):
        """Bytes the faces take in the shard from offset_bytes on."""
        return lib.shardtab_faces_bytes(ctypes.byref(self._params))

    def ghost(self, axis, side, parity):
        """The address of this rank's ghost face (axis, side, parity) in its
        shard (device memory on GPUs), which the neighbour on that side
        fills; None for bad arguments."""
        return lib.shardtab_faces_ghost(
            self._live(),
            *self._where(axis, side),
            c_arg(parity, ctypes.c_int, "parity"),
        )

    def dest(self, axis, side, parity):
        """The address, through the table, where this rank's face toward
        (axis, side) goes: the neighbour's ghost face (axis, 1 - side,
        parity), for a kernel of this rank to store into; None where the
        route is not "table"."""
        return lib.shardtab_faces_dest(
            self._live(),
            *self._where(axis, side),
            c_arg(parity, ctypes.c_int, "parity"),
        )

    def neighbor(self, axis, side):
        """The communicator rank of the neighbour on (axis, side); -1 where
        there is none."""
        return lib.shardtab_faces_neighbor(self._live(), *self._where(axis, side))

    def node_peer(self, axis, side):
        """That neighbour's node rank, for the signals that tell it a face is
        in place; -1 where the route is not "table"."""
        return lib.shardtab_faces_node_peer(self._live(), *self._where(axis, side))

    def route(self, axis, side):
        """How the face toward (axis, side) moves: "table" (stored through
        the table), "mpi" (exchange()) or "none"."""
        found = lib.shardtab_faces_route(self._live(), *self._where(axis, side))
        if found < 0:
            raise ValueError(f"no face at axis {axis}, side {side}")
        return _ROUTES[found]

    def exchange(self, parity, src, stream=None):
        """Between the neighbours (host-synchronous): this rank's faces whose
        route is "mpi" from src into the neighbours' ghost faces of `parity`,
        and this rank's ghost faces from them (shardtab_faces_exchange).
        src: one entry a face, 2 dims of them in the order (axis 0, side 0),
        (axis 0, side 1), ...: an address (an int), an array of one range of
        at least face_bytes (a NumPy or CuPy array, a torch tensor: on GPUs in
        device memory), or None where the route is not "mpi". stream: None,
        an int handle, or a stream object. Bad arguments raise on this rank
        alone (its neighbours' waits then give up). A neighbour that never
        calls makes this rank's wait give up (Error, ERR_TIMEOUT) and the
        ranks are out of step: end the job."""
        faces = self._live()
        entries = list(src)
        if len(entries) != 2 * self.dims:
            raise ValueError(
                f"src has {len(entries)} entries; {2 * self.dims} faces have "
                f"{self.dims} axes"
            )
        addresses = (ctypes.c_void_p * (2 * HALO_MAX_DIMS))()
        for i, entry in enumerate(entries):
            if entry is not None:
                addresses[i] = self._address(entry, i)
        handle = _stream_handle(stream)
        _check(
            lib.shardtab_faces_exchange(
                faces, c_arg(parity, ctypes.c_int, "parity"), addresses, handle
            )
        )

    def _address(self, entry, i):
        """src[i] as an address: an int (a NumPy integer too), or an array of
        one range of bytes holding face i's."""
        need = self._params.face_bytes[i // 2]
        if isinstance(entry, numbers.Integral) and not isinstance(entry, bool):
            address = int(entry)
            if not 0 <= address < _USER_ADDRESSES:
                raise ValueError(
                    f"src[{i}] is {address}, not an address (0 to "
                    f"2**{_USER_ADDRESSES.bit_length() - 1})"
                )
            return address
        if isinstance(entry, bool):
            raise TypeError(f"src[{i}] is a bool; pass an address or an array")
        interface = _interface_of(entry)
        shape = tuple(int(n) for n in interface["shape"])
        itemsize = _dtype_of(interface).itemsize
        nbytes = itemsize * math.prod(shape)
        if not _contiguous(shape, interface.get("strides"), itemsize):
            raise ValueError(
                f"src[{i}] is not one range of bytes (strides "
                f"{interface.get('strides')}): a face is"
            )
        if nbytes < need:
            raise ValueError(f"src[{i}] holds {nbytes} bytes; face {i} is {need}")
        return interface["data"][0] if interface.get("data") else 0

    def close(self):
        """Frees the faces (local); again: nothing."""
        faces, self._faces = self._faces, None
        if faces is not None and faces.value is not None:
            self._table._faces.discard(self)
            _check(lib.shardtab_faces_destroy(ctypes.byref(faces)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
