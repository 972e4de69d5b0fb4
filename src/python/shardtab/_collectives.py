"""_collectives.py - the collectives on a stream over a table's shards
(all_reduce, broadcast, all_gather, check): each rank's arguments checked and
agreed before the library's call, and the stream and index arguments read."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import ctypes
import operator

import numpy

from ._errors import (
    ERR_TIMEOUT,
    SUCCESS,
    Error,
    _agree,
    _agree_on,
    _check,
    _last_error,
    _record,
    _text,
)
from ._lib import lib
from ._process import _on_host

# shardtab_types.h: shardtab_type_t and shardtab_op_t
_TYPES = {
    numpy.dtype(numpy.float32): 0,
    numpy.dtype(numpy.float64): 1,
    numpy.dtype(numpy.int64): 2,
}
_OPS = {"sum": 0, "min": 1, "max": 2, "sum_exact": 3}


# A stream handle is a pointer into this process's user space: on 64-bit
# Linux the lower half of the addresses (the upper is the kernel's).
_USER_ADDRESSES = 1 << (8 * ctypes.sizeof(ctypes.c_void_p) - 1)


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
        if stream >= _USER_ADDRESSES:
            # ctypes would keep the low bits: 2**64 + 5 would be stream 5
            raise ValueError(
                f"stream handle {stream} is no stream: a handle is a user-space "
                f"address, below 2**{_USER_ADDRESSES.bit_length() - 1}"
            )
        return stream or None
    raise TypeError(
        f"stream is a {type(stream).__name__}: pass None (the default stream), an "
        "int handle, or a stream object with .cuda_stream, .handle or .ptr "
        "(torch.cuda.Stream, a Numba or CuPy stream)"
    )


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


class _Collectives:
    """Table's collectives. They use what Table.__init__ sets: _comm (the
    communicator's handle), dtype, _nbytes (this rank's shard), _shard_bytes
    (every rank's), _pending (a call this rank's library refused), and
    _live() (the table, or Error once it is destroyed)."""

    def all_reduce(self, op="sum", offset=0, count=None, stream=None):
        """Collective, in place: elements [offset, offset + count) of every
        rank's shard become, element by element, the op ("sum", "min" or
        "max") of every rank's. Sums combine in rank order (inside a node in
        node-rank order, then across nodes in node order: the same bits on
        every rank, every run). Min and max depend on no order, so no layout
        of ranks into nodes changes them: a NaN wins wherever it is (of
        several NaNs, the greatest unsigned bit pattern), -0.0 is below
        +0.0, denormals are kept. "sum_exact" (float32 and float64) is the
        exact sum of every rank's value rounded once: the same bits at any
        rank count and layout (a NaN among them gives the greatest NaN bit
        pattern; else +inf and -inf NaN, one of them itself; an exact zero
        +0.0, or -0.0 where every value is -0.0).

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
        agreement, a bounded MPI agreement of an int, per call): the table stays
        usable. An Error from the library itself, here or in check(), means
        the node stopped: destroy the table."""

        def prepare():
            if not isinstance(op, str) or op not in _OPS:
                raise ValueError(
                    f"unknown op {_text(op)!r}: expected 'sum', 'min' or 'max'"
                )
            return (_OPS[op],), self._region(offset, count, 1)

        self._collective("all_reduce", lib.shardtab_all_reduce, prepare, stream)

    def broadcast(self, root, offset=0, count=None, stream=None):
        """Collective: elements [offset, offset + count) of every rank's
        shard become those of communicator rank root's. offset, count and
        stream as in all_reduce (count=None: the rest of the shard, shards of
        one size only); so are what it has done when it returns, and its
        errors."""

        def prepare():
            who = _index(root, "root")
            if who >= len(self._shard_bytes):
                raise ValueError(
                    f"root {who} is outside the table's {len(self._shard_bytes)} "
                    "ranks"
                )
            return (who,), self._region(offset, count, 1)

        self._collective("broadcast", lib.shardtab_broadcast, prepare, stream)

    def all_gather(self, offset=0, count=None, stream=None):
        """Collective, in place: the region from element offset holds
        size * count elements (size: the ranks of the table's communicator),
        communicator rank r's own count at offset + r * count; afterwards
        every rank's region holds every rank's. count=None: the rest of the
        shard from offset divided by size, where every rank's shard has the
        same size and the division is exact, an error otherwise. stream, what
        it has done when it returns and its errors: as in all_reduce."""

        def prepare():
            return (), self._region(offset, count, len(self._shard_bytes))

        self._collective("all_gather", lib.shardtab_all_gather, prepare, stream)

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
        _check(_agree(self._comm, status, table))

    def _region(self, offset, count, parts):
        """(byte offset, count) of a region of `parts` pieces of count
        elements each from element offset, checked against this rank's shard;
        count=None: what fills every rank's shard from offset."""
        itemsize = self.dtype.itemsize
        first = _index(offset, "offset")
        elements = self._nbytes // itemsize
        if first > elements:
            raise ValueError(
                f"offset {first} is past this rank's shard of {elements} elements"
            )
        if count is None:
            if len(set(self._shard_bytes)) != 1:
                raise ValueError(
                    "count=None needs shards of one size on every rank, and they "
                    "differ: " + self._sizes_text() + "; pass count"
                )
            rest = elements - first
            if rest % parts != 0:
                raise ValueError(
                    f"count=None: the {rest} elements of the shard from offset "
                    f"{first} do not split evenly over the {parts} ranks; pass "
                    "count"
                )
            return first * itemsize, rest // parts
        number = _index(count, "count")
        if number * parts > elements - first:
            what = f"{parts} ranks' {number}" if parts > 1 else f"{number}"
            raise ValueError(
                f"{what} elements from offset {first} need {first + number * parts} "
                f"elements, past this rank's shard of {elements}"
            )
        return first * itemsize, number

    def _sizes_text(self):
        """The ranks' shard sizes, in elements, for a message."""
        itemsize = self.dtype.itemsize
        sizes = [f"rank {r}: {b // itemsize}" for r, b in enumerate(self._shard_bytes)]
        return ", ".join(sizes if len(sizes) <= 8 else sizes[:4] + ["..."] + sizes[-2:])

    def _collective(self, name, function, prepare, stream):
        """The path of every collective: this rank's checks, agreed (no rank
        enters the library unless every rank can), the library's call, and on
        the host backend, where it ran already, its outcome agreed too.
        prepare() checks this rank's arguments and returns the C function's
        (the arguments before its type, the region's byte offset and count):
        function(table, *before, type, offset, count, stream)."""
        table = self._live()
        why = None
        try:
            kind = _TYPES.get(self.dtype)
            if kind is None:
                raise ValueError(
                    f"the table's dtype {self.dtype} has no collectives: float32, "
                    "float64 and int64 have (SHARDTAB_FLOAT, SHARDTAB_DOUBLE, "
                    "SHARDTAB_INT64)"
                )
            before, region = prepare()
            handle = _stream_handle(stream)
        except Exception as error:  # noqa: BLE001 - every kind goes to the agreement
            why = f"shardtab.Table.{name}: {_text(error)}"
        self._agreed_call(why, lambda: function(table, *before, kind, *region, handle))

    def _agreed_call(self, why, call):
        """A collective call of the library over this table (a collective's,
        Halo.exchange's): this rank's problem `why` (None: none) agreed first,
        so that no rank enters the library unless every rank can; then
        call(), the C call, returning its status; on the host backend, where
        it ran already, its outcome agreed too, but not a timeout (the ranks
        may be out of step: it is raised at once). On GPUs a refusal is this
        rank's, kept for check(); across nodes, where the call is
        host-synchronous, the library has agreed it already. Every agreement
        here is bounded by the table's patience (shardtab_table_agree)."""
        table = self._live()
        _agree_on(self._comm, why, table)
        status = call()
        if not _on_host():
            # enqueued; a refusal here has stopped the node, whose other ranks
            # learn it in check(), where this rank's message is the cause
            if status != SUCCESS:
                message = _last_error()
                self._pending = (status, message)
                raise Error(status, message)
            return
        if status == ERR_TIMEOUT:
            _check(status)
        if status == SUCCESS:
            status = lib.shardtab_signal_check(table)
        _check(_agree(self._comm, status, table))
