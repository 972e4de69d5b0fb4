"""_table.py - shardtab.Table: the collective create and destroy of a node's
table over each rank's shard, the node as the C API tells it, and the peers'
shards as arrays (the collectives: _collectives.py)."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import ctypes
import weakref

import numpy

from ._collectives import _Collectives, _stream_handle
from ._errors import ERR_INVALID_ARG, SUCCESS, Error, _c_text, _check, _text
from ._lib import CreateParams, c_arg, lib
from ._memory import DeviceArray, _free_pending, _HostView, _Mapping, _table_ranges
from ._process import _comm_handle, _on_host
from ._shard import _compare_shards, _describe


def _query(c_name, doc=None):
    """A read-only property: the C query c_name of the live table."""
    function = getattr(lib, c_name)
    return property(lambda self: function(self._live()), doc=doc)


class Table(_Collectives):
    """Collective over comm: the node's table of shard pointers, with array as
    this rank's shard (any number of tables may lie in one allocation).

    Keyword arguments are shardtab_create_params_t's: signal_slots,
    wait_timeout_s, alignment (bytes; 0: any), stream (an int handle, or
    a stream object as the collectives take it) and label (a str: every rank
    must give rank 0's, which checks that the ranks create their tables in
    the same order).
    Destroy it on every rank: `with` does, or destroy()."""

    def __init__(
        self,
        comm,
        array,
        *,
        signal_slots=0,
        wait_timeout_s=0.0,
        alignment=0,
        stream=None,
        label=None,
    ):
        self._comm = _comm_handle(comm)
        self._table = None
        self._halos = weakref.WeakSet()  # the shardtab.Halo objects open over it
        self._faces = weakref.WeakSet()  # the shardtab.Faces objects open over it
        self._label = None  # the label's bytes, alive while create reads them
        # A local problem must fail every rank, not leave the others in create:
        # whatever goes wrong here (an array interface that raises, a bad
        # typestr, a parameter ctypes will not take) is agreed first.
        dtype = None
        try:
            address, nbytes, dtype, why = _describe(array)
            if label is not None and not isinstance(label, str):
                raise TypeError(f"label is a {type(label).__name__}; pass a str")
            if label is not None and "\0" in label:
                # C reads a label up to its first NUL: "T\0one" paired with "T\0two"
                raise ValueError(
                    f"label {label!r} holds a NUL character (at {label.index(chr(0))}): "
                    "the library reads it as C text, up to the first; pass one without"
                )
            self._label = (
                None if label is None else label.encode("utf-8", "backslashreplace")
            )
            params = CreateParams(
                _stream_handle(stream),
                c_arg(signal_slots, ctypes.c_int, "signal_slots"),
                wait_timeout_s,
                c_arg(alignment, ctypes.c_size_t, "alignment"),
                self._label,
            )
        except Exception as error:  # noqa: BLE001 - every kind goes to the agreement
            why = (
                f"the shard or a parameter could not be read: {type(error).__name__}: "
                f"{_text(error)}"
            )
        sizes = None
        try:  # every rank takes part, whatever it found above
            mismatch, sizes = _compare_shards(
                comm,
                self._comm,
                dtype if why is None else None,
                nbytes if why is None else None,
            )
        except Exception as error:  # noqa: BLE001
            mismatch = (
                f"the ranks' dtypes could not be compared: {type(error).__name__}: "
                f"{_text(error)}"
            )
        why = why if why is not None else mismatch
        status = SUCCESS
        if why is not None:
            status = lib.shardtab_error_set_message(ERR_INVALID_ARG, _c_text(why))
        _check(lib.shardtab_agree_f(self._comm, status))
        table = ctypes.c_void_p()
        _check(
            lib.shardtab_create_f(
                self._comm,
                address if nbytes else None,
                nbytes,
                ctypes.byref(params),
                ctypes.byref(table),
            )
        )
        self._table = table
        self._array = array  # the memory stays while the table lives
        self.dtype = dtype
        self._nbytes = nbytes
        self._shard_bytes = tuple(sizes)  # every rank's, by communicator rank
        self._pending = (
            None  # a collective this rank's library refused (GPUs: see check)
        )
        if nbytes:
            _table_ranges[table.value] = (address, address + nbytes)

    def _live(self):
        if self._table is None or self._table.value is None:
            raise Error(ERR_INVALID_ARG, "shardtab.Table: the table is destroyed")
        return self._table

    # ---- the node, as in the C API
    node_rank = _query("shardtab_node_rank")
    node_size = _query("shardtab_node_size")
    node_id = _query("shardtab_node_id")
    node_count = _query("shardtab_node_count")

    def member(self, node_rank):
        """The communicator rank of node rank node_rank, or -1."""
        return lib.shardtab_member(
            self._live(), c_arg(node_rank, ctypes.c_int, "node_rank")
        )

    def node_rank_of(self, rank):
        """The node rank of communicator rank `rank`, or -1 off this node."""
        return lib.shardtab_node_rank_of(
            self._live(), c_arg(rank, ctypes.c_int, "rank")
        )

    def peer(self, rank):
        """Communicator rank `rank`'s shard as this process maps it, as a 1-D
        array of this shard's dtype (its bytes in memory order); None when that
        rank is on another node. On the host backend the view holds a mapping
        of its own of that memory, valid after the table is destroyed; on GPUs
        a DeviceArray, which raises Error once the table is destroyed."""
        table = self._live()
        rank = c_arg(rank, ctypes.c_int, "rank")
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

    create_ms = _query("shardtab_create_ms")
    peers_opened = _query(
        "shardtab_peers_opened",
        "Peer allocations this create opened (the others were open already).",
    )
    peers_reused = _query("shardtab_peers_reused")

    def destroy(self):
        """Collective: every rank destroys the table, once."""
        table = self._live()
        # every rank closes them alike: in the order they were made
        for halo in sorted(self._halos, key=lambda halo: halo._order):
            halo.close()
        for faces in list(self._faces):  # local: any order
            faces.close()
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
