"""check_collectives.py - the Python front's collectives over the table's
shards (Table.all_reduce, .broadcast, .all_gather, .check), on any backend,
one part per run:

  results  float32, float64 and int64 tables; every op ("sum", "min", "max";
           "sum_exact" of floats, against Fraction's exact sum rounded once)
           at counts 0, 1, 7, the rest of the shard given and count=None,
           at offsets 0, 1 and 5 (elements); broadcasts from every root and
           all-gathers at several counts and offsets. Every rank's inputs are
           random (a fixed seed per rank and call, magnitudes over six
           decades, with -0.0, infinities, a NaN, INT64_MIN and INT64_MAX
           among them), and every element of every rank's whole shard is
           compared bit for bit with a plain NumPy reduction computed here
           from the known inputs: in node-rank order inside each node, then in
           node order across nodes (SHARDTAB_RANKS_PER_NODE), float32 summed
           one rank at a time in float32 (on GPUs a plain sum's NaN matches
           any NaN: its bits are the device's adds'), min and max as shardtab_types.h
           defines them (a NaN wins, of two the greater bit pattern; -0.0
           below +0.0); outside the region nothing may change. The
           run also shows that a wrong order would show: at 3 ranks or more
           some float32 sums in rank order differ from the reverse order, and
           across nodes some hierarchical sums differ from the flat order.
  errors   what every rank must get as one agreed shardtab.Error, without a
           hang: an unknown op (on one rank, then on every rank), a dtype
           without collectives (int32, big-endian float64), count=None over
           shards of different sizes or that do not split over the ranks, a
           region past one rank's shard, a stream that is no stream, a count
           that is no int; after each of those the table still works. Then
           calls that differ across ranks (counts, count=None against a
           count, roots), which only the library sees: on the host backend the
           call raises, on GPUs Table.check() does; inside a node that
           stops the table: a later broadcast and all_reduce then raise at
           once, saying the table stopped, that it must be destroyed, and
           why; the stopped table is destroyed.

Rank 0 prints "# collectives python <part>: OK" when every rank agrees.

USAGE  mpiexec -n N python3 check_collectives.py results|errors
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import fractions
import sys
import time

import numpy
from mpi4py import MPI

import shardtab
from rank_verdict import as_host, say, store, verdict

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
last = size - 1
part = sys.argv[1] if len(sys.argv) > 1 else ""
problems = []
LENGTH = 132  # elements of each shard: the rest from offsets 0 and 12 splits over 1 to 4 ranks
DTYPES = ("float32", "float64", "int64")


def inputs(r, call, dtype, length=LENGTH):
    """Rank r's shard before call number `call`: random, from a seed of its
    own, never all ones or zeros; a few special values at fixed places."""
    dtype = numpy.dtype(dtype)
    rng = numpy.random.default_rng([20261201, r, call])
    if dtype.kind == "i":
        v = rng.integers(
            -(2**63), 2**63 - 1, length, dtype=numpy.int64, endpoint=True
        )
        if length < 5:
            return v
        v[2] = -(2**63) if r == 0 else v[2]
        v[3] = 2**63 - 1 if r == size - 1 else v[3]
        return v
    v = (rng.standard_normal(length) * 10.0 ** rng.uniform(-3, 3, length)).astype(dtype)
    if length < 5:
        return v
    v[2] = -0.0 if r == 0 else 0.0  # min/max of zeros of both signs
    v[3] = numpy.inf if r == 1 else v[3]  # inf, and at 3 ranks inf + -inf
    if r == 2:
        v[3] = -numpy.inf
    v[4] = numpy.nan if r == size - 1 else v[4]  # one NaN at that element
    return v


def combine(op, a, b):
    """a op b, element by element, as shardtab_types.h defines it."""
    with numpy.errstate(all="ignore"):
        if op == "sum":
            return a + b  # float32 stays float32; int64 wraps
        if a.dtype.kind == "i":
            return numpy.where(b < a, b, a) if op == "min" else numpy.where(b > a, b, a)
        ua, ub = bits(a), bits(b)
        nan_a, nan_b = numpy.isnan(a), numpy.isnan(b)
        sign_a, sign_b = numpy.signbit(a), numpy.signbit(b)
        if op == "min":
            b_wins = (b < a) | ((b == a) & sign_b & ~sign_a)
        else:
            b_wins = (b > a) | ((b == a) & sign_a & ~sign_b)
        b_wins = numpy.where(nan_a | nan_b, nan_b & (~nan_a | (ub > ua)), b_wins)
        return numpy.where(b_wins, b, a)


def exact_sum(values):
    """sum_exact as shardtab_types.h defines it, element by element, apart from
    the library: the exact sum (fractions.Fraction) rounded once to the dtype,
    ties to even, inf past the range; a NaN among the values gives the greatest
    NaN bit pattern, else +inf and -inf NaN, one of them itself; an exact zero
    +0.0, or -0.0 where every value is -0.0."""
    stacked = numpy.stack([values[r] for r in range(size)])
    ftype = stacked.dtype.type
    out = numpy.empty(stacked.shape[1], dtype=stacked.dtype)
    largest = numpy.finfo(ftype).max
    top = fractions.Fraction(float(largest))
    half_ulp = (top - fractions.Fraction(float(numpy.nextafter(largest, ftype(0))))) / 2
    for i in range(stacked.shape[1]):
        column = stacked[:, i]
        nans = column[numpy.isnan(column)]
        if nans.size:
            out[i] = nans[numpy.argmax(bits(nans))]
            continue
        infs = column[numpy.isinf(column)]
        if infs.size:
            out[i] = infs[0] if numpy.all(infs == infs[0]) else ftype(numpy.nan)
            continue
        exact = sum(fractions.Fraction(float(v)) for v in column)
        if exact == 0:
            minus = bool(numpy.all(numpy.signbit(column)))
            out[i] = ftype(-0.0) if minus else ftype(0.0)
            continue
        if abs(exact) >= top + half_ulp:  # past the range, the tie included
            out[i] = ftype(numpy.inf) if exact > 0 else ftype(-numpy.inf)
            continue
        with numpy.errstate(over="ignore"):
            near = ftype(float(exact))  # within one unit of the correct rounding
        best = None
        for c in (
            near,
            numpy.nextafter(near, ftype(numpy.inf)),
            numpy.nextafter(near, -ftype(numpy.inf)),
        ):
            if not numpy.isfinite(c):
                continue
            gap = abs(fractions.Fraction(float(c)) - exact)
            even = int(bits(numpy.array([c]))[0]) % 2 == 0
            if best is None or gap < best[0] or (gap == best[0] and even):
                best = (gap, even, c)
        out[i] = best[2]
    return out


def reduce_in(op, order, values):
    """values[r] combined over the ranks of `order`, one at a time."""
    acc = None
    for r in order:
        acc = values[r].copy() if acc is None else combine(op, acc, values[r])
    return acc


def bits(array):
    return numpy.ascontiguousarray(array).view(f"u{array.dtype.itemsize}")


def compare(got, want, what, device_nans=None):
    """Every element, bit for bit; False (and a problem) at the first that
    differs. device_nans: the region of a plain sum on a GPU, whose NaNs'
    bits are the adds' (an NVIDIA GPU's float adds give 0x7fffffff, x86's
    0x7fc00000 or 0xffc00000), not the library's rule: a NaN there matches a
    NaN; every other element, bit for bit."""
    if got.shape != want.shape or got.dtype != want.dtype:
        problems.append(
            f"{what}: {got.dtype} {got.shape}, want {want.dtype} {want.shape}"
        )
        return False
    differ = bits(got) != bits(want)
    if device_nans is not None and want.dtype.kind == "f":
        both = numpy.zeros(want.shape, bool)
        both[device_nans] = numpy.isnan(got[device_nans]) & numpy.isnan(
            want[device_nans]
        )
        differ &= ~both
    bad = numpy.flatnonzero(differ)
    if bad.size:
        k = int(bad[0])
        problems.append(
            f"{what}: element {k} (of {bad.size} that differ) is {got[k]!r} "
            f"(0x{int(bits(got)[k]):x}), the plain reduction gives {want[k]!r} "
            f"(0x{int(bits(want)[k]):x})"
        )
        return False
    return True


# ---- results -------------------------------------------------------------------------


class Job:
    """The table's layout: which ranks share a node, in which order."""

    def __init__(self, table):
        where = comm.allgather((table.node_id, table.node_rank))
        self.nodes = [
            [
                r
                for _, r in sorted(
                    (q, r) for r, (n, q) in enumerate(where) if n == node
                )
            ]
            for node in range(table.node_count)
        ]
        self.node_count = table.node_count

    def reduced(self, op, values):
        """The library's order: node-rank order in each node, then node order
        (sum_exact: no order, the exact sum rounded once)."""
        if op == "sum_exact":
            return exact_sum(values)
        per_node = [reduce_in(op, ranks, values) for ranks in self.nodes]
        return reduce_in(op, range(len(per_node)), per_node)


calls = 0
checked = 0


def run(t, a, job, dtype, kind, offset, count, op="sum", root=0, stream=None):
    """One call on every rank, its whole shard checked here."""
    global calls, checked
    calls += 1
    values = {r: inputs(r, calls, dtype) for r in range(size)}
    store(a, values[rank])
    resolved = count
    if kind == "all_gather":
        if resolved is None:
            resolved = (LENGTH - offset) // size
        region = slice(offset, offset + size * resolved)
    else:
        if resolved is None:
            resolved = LENGTH - offset
        region = slice(offset, offset + resolved)
    what = (
        f"{kind} of {count if count is not None else 'None'} {dtype}"
        f"{' ' + op if kind == 'all_reduce' else ''}"
        f"{f' from {root}' if kind == 'broadcast' else ''} at element {offset}"
    )
    try:
        if kind == "all_reduce":
            t.all_reduce(op, offset=offset, count=count, stream=stream)
        elif kind == "broadcast":
            t.broadcast(root, offset=offset, count=count, stream=stream)
        else:
            t.all_gather(offset=offset, count=count, stream=stream)
        t.check()  # on GPUs the result is there after this; on the host it always is
    except shardtab.Error as error:
        problems.append(f"{what}: raised {error}")
        return None
    want = values[rank].copy()
    if kind == "all_reduce":
        want[region] = job.reduced(op, {r: v[region] for r, v in values.items()})
    elif kind == "broadcast":
        want[region] = values[root][region]
    else:
        for q in range(size):
            piece = slice(offset + q * resolved, offset + (q + 1) * resolved)
            want[piece] = values[q][piece]
    checked += want.size
    plain_sum = op == "sum" and kind == "all_reduce" and not on_host
    compare(as_host(a), want, what, region if plain_sum else None)
    return values, region


class FakeStream:
    """Stream objects as torch (.cuda_stream) and CuPy (.ptr) hold them: the
    default stream, or the handle given."""

    def __init__(self, name, handle=0):
        setattr(self, name, handle)


def part_results():
    global calls
    offsets = (0, 1, 5)
    for dtype in DTYPES:
        a = shardtab.empty(LENGTH, dtype=dtype)
        with shardtab.Table(comm, a) as t:
            job = Job(t)
            before = len(problems)
            n = calls
            ops = ("sum", "min", "max") + (("sum_exact",) if dtype != "int64" else ())
            for op in ops:
                for offset in offsets:
                    for count in (0, 1, 7, LENGTH - offset, None):
                        run(t, a, job, dtype, "all_reduce", offset, count, op)
            if len(problems) == before:
                say(
                    f"{dtype}: all_reduce, {len(ops)} ops x counts 0, 1, 7, the rest, None x offsets "
                    f"{', '.join(map(str, offsets))}: {calls - n} calls, every element bit for bit"
                )
            before, n = len(problems), calls
            for root in range(size):
                for offset, count in ((0, 0), (0, 1), (3, 7), (0, None), (5, None)):
                    run(t, a, job, dtype, "broadcast", offset, count, root=root)
            if len(problems) == before:
                say(
                    f"{dtype}: broadcast from each of {size} roots, 5 regions: {calls - n} calls"
                )
            before, n = len(problems), calls
            for offset, count in ((0, 0), (0, 1), (2, 7), (0, None), (12, None)):
                run(t, a, job, dtype, "all_gather", offset, count)
            if len(problems) == before:
                say(f"{dtype}: all_gather, 5 regions: {calls - n} calls")
            # the stream argument: an int, and torch's and CuPy's attributes
            before = len(problems)
            for stream in (0, FakeStream("cuda_stream"), FakeStream("ptr")):
                run(t, a, job, dtype, "all_reduce", 0, None, "sum", stream=stream)
            if len(problems) == before and dtype == "float32":
                say("stream=0, an object with .cuda_stream, one with .ptr: taken")
            if dtype == "float32":
                order_matters(job)
        del a


def order_matters(job):
    """That the check would see a wrong order: some float32 sums differ."""
    values = {r: inputs(r, 999999, "float32") for r in range(size)}
    flat = reduce_in("sum", range(size), values)
    if size >= 3:
        backwards = reduce_in("sum", reversed(range(size)), values)
        differ = int(numpy.count_nonzero(bits(flat) != bits(backwards)))
        if differ == 0:
            problems.append(
                "no float32 sum in rank order differs from the reverse order: the "
                "inputs cannot tell a wrong order"
            )
        else:
            say(
                f"{differ} of {LENGTH} float32 sums in rank order differ from the reverse "
                "order: a wrong order would show"
            )
    if job.node_count > 1 and max(len(ranks) for ranks in job.nodes) > 1:
        differ = int(
            numpy.count_nonzero(bits(job.reduced("sum", values)) != bits(flat))
        )
        if differ == 0:
            problems.append(
                "no hierarchical float32 sum differs from the flat rank order"
            )
        else:
            say(
                f"{differ} of {LENGTH} float32 sums over {job.node_count} nodes differ from "
                "the flat rank order, and the library gave the hierarchical ones"
            )


# ---- errors --------------------------------------------------------------------------


def expect_error(what, t, action, fragments, at_call=None):
    """action() must end, on every rank, in one shardtab.Error with the same
    message holding every fragment: from the call itself, or, where the call
    returned (GPUs), from t.check(). at_call: where it must come from (True:
    the call; None: either)."""
    start = time.monotonic()
    got, where = ("no error", ""), None
    try:
        action()
        where = "check"
        t.check()
    except shardtab.Error as error:
        got = (error.status_name, error.message)
        where = where or "call"
    took = time.monotonic() - start
    everyone = comm.allgather((got, where))
    if any(g != everyone[0][0] for g, _ in everyone):
        problems.append(f"{what}: the ranks disagree: {everyone}")
    elif got[0] != "invalid argument" or any(f not in got[1] for f in fragments):
        problems.append(
            f"{what}: got {got}, want 'invalid argument' with {fragments!r}"
        )
    elif at_call is not None and any((w == "call") != at_call for _, w in everyone):
        problems.append(
            f"{what}: raised in {[w for _, w in everyone]}, want "
            f"{'the call' if at_call else 'check()'}"
        )
    else:
        say(f"{what}: from {where} in {took:.2f} s: '{got[1]}'")


def expect_stopped(what, action, fragments):
    """action(), on a stopped table, must raise shardtab.Error on every rank,
    at once: 'stopped after another rank failed' (SHARDTAB_ERR_ABORTED),
    the message saying so and holding every fragment."""
    start = time.monotonic()
    got = ("no error", "")
    try:
        action()
    except shardtab.Error as error:
        got = (error.status_name, error.message)
    took = time.monotonic() - start
    want = [
        "refused: this table stopped at an earlier call; destroy it. It stopped because: "
    ]
    everyone = comm.allgather(got)
    bad = [
        g
        for g in everyone
        if g[0] != "stopped after another rank failed"
        or any(f not in g[1] for f in want + fragments)
    ]
    if bad or took > 1.0:
        problems.append(
            f"{what}: got {bad or everyone} in {took:.2f} s, want a refusal with {fragments!r}"
        )
    else:
        say(f"{what}: refused at once: '{got[1]}'")


def works(t, a, what):
    """A good all-reduce on t still gives the right bits."""
    lengths = comm.allgather(len(a))
    values = {r: inputs(r, 77, t.dtype, lengths[r]) for r in range(size)}
    store(a, values[rank])
    n = min(lengths)
    try:
        t.all_reduce("sum", count=n)
        t.check()
    except shardtab.Error as error:
        problems.append(f"{what}: the table no longer works: {error}")
        return
    want = values[rank].copy()
    job = Job(t)
    want[:n] = job.reduced("sum", {r: v[:n] for r, v in values.items()})
    plain_sum = None if on_host else slice(0, n)
    if compare(as_host(a), want, f"{what}: the all-reduce after", plain_sum):
        say(f"{what}: the table still works after (an all-reduce checked)")


def part_errors():
    host = shardtab.device()["backend"] == "host"
    a = shardtab.empty(LENGTH, dtype="float64")
    with shardtab.Table(comm, a) as t:
        nodes = t.node_count
        expect_error(
            "an unknown op on the last rank",
            t,
            lambda: t.all_reduce("prod" if rank == last else "sum"),
            [f"rank {last}", "unknown op 'prod'", "'sum', 'min' or 'max'"],
            True,
        )
        expect_error(
            "an unknown op on every rank",
            t,
            lambda: t.all_reduce("avg"),
            ["unknown op 'avg'"],
            True,
        )
        expect_error(
            "a region past the last rank's shard",
            t,
            lambda: t.all_reduce(offset=LENGTH if rank == last else 0, count=7),
            [f"rank {last}", "past this rank's shard"],
            True,
        )
        expect_error(
            "an all-gather past the shard",
            t,
            lambda: t.all_gather(offset=0, count=LENGTH // size + 1),
            ["past this rank's shard"],
            True,
        )
        expect_error(
            "a broadcast root outside the table",
            t,
            lambda: t.broadcast(size + 1 if rank == 0 else 0, count=3),
            ["rank 0", f"root {size + 1} is outside"],
            True,
        )
        expect_error(
            "a stream that is no stream, on the last rank",
            t,
            lambda: t.broadcast(0, count=3, stream="default" if rank == last else None),
            [f"rank {last}", "stream is a str"],
            True,
        )
        # handles no pointer holds, or only the kernel's half of the address
        # space: once taken as their low 64 bits (2**64 + 5 became stream 5)
        for handle in (
            2**64 + 5,
            2**64,
            2**63,
            FakeStream("cuda_stream", 2**70 + 7),
        ):
            big = handle.cuda_stream if isinstance(handle, FakeStream) else handle
            expect_error(
                f"a stream handle of {big}, on the last rank",
                t,
                lambda: t.all_reduce(count=3, stream=handle if rank == last else None),
                [f"rank {last}", f"stream handle {big} is no stream"],
                True,
            )
        expect_error(
            "a count that is no int",
            t,
            lambda: t.all_reduce(count=7.0),
            ["count is a float"],
            True,
        )
        expect_error(
            "a negative offset",
            t,
            lambda: t.all_gather(offset=-1, count=1),
            ["offset is -1"],
            True,
        )
        works(t, a, "after the refused arguments")
    del a

    for dtype in ("int32", ">f8"):
        b = shardtab.empty(16, dtype=dtype)
        store(b, numpy.arange(16))
        with shardtab.Table(comm, b) as t:
            for name, action in (
                ("all_reduce", lambda: t.all_reduce()),
                ("broadcast", lambda: t.broadcast(0)),
                ("all_gather", lambda: t.all_gather(count=1)),
            ):
                expect_error(
                    f"{name} over {dtype} shards",
                    t,
                    action,
                    [
                        f"Table.{name}",
                        f"dtype {numpy.dtype(dtype)}",
                        "float32",
                        "float64",
                        "int64",
                    ],
                    True,
                )
        del b

    c = shardtab.empty(40 + rank, dtype="int64")
    with shardtab.Table(comm, c) as t:
        if size > 1:
            for name, action in (
                ("all_reduce", lambda: t.all_reduce(count=None)),
                ("broadcast", lambda: t.broadcast(0, offset=2)),
                ("all_gather", lambda: t.all_gather()),
            ):
                expect_error(
                    f"{name} with count=None over shards of 40 + rank elements",
                    t,
                    action,
                    ["count=None", "differ", "rank 0: 40", "rank 1: 41"],
                    True,
                )
        works(t, c, "shards of different sizes, count given")
    del c

    d = shardtab.empty(2 * size + 1, dtype="float32")
    with shardtab.Table(comm, d) as t:
        if size > 1:
            expect_error(
                f"all_gather with count=None over {2 * size + 1} elements",
                t,
                lambda: t.all_gather(),
                ["count=None", "do not split evenly"],
                True,
            )
        works(t, d, f"{2 * size + 1}-element shards")
    del d

    # calls that differ: the library sees them (host: in the call; GPUs: in check)
    if size > 1:
        mismatches = (
            (
                "the last rank's count is 8, the others' 7",
                lambda t: t.all_reduce(count=8 if rank == last else 7),
                ["count 7", "count 8"],
            ),
            (
                "count=None on rank 0, 7 on the others",
                lambda t: t.all_reduce(count=None if rank == 0 else 7),
                [],
            ),
            ("broadcast roots that differ", lambda t: t.broadcast(rank, count=5), []),
            (
                "an all-gather on the last rank, an all-reduce on the others",
                lambda t: t.all_gather(count=3)
                if rank == last
                else t.all_reduce(count=3),
                [],
            ),
        )
        for what, call, details in mismatches:
            e = shardtab.empty(LENGTH, dtype="float64")
            store(e, inputs(rank, 5, "float64"))
            t = shardtab.Table(comm, e)
            expect_error(
                what,
                t,
                lambda: call(t),
                ["disagree"] + (details if nodes == 1 else []),
                True if host or nodes > 1 else None,
            )
            if nodes == 1:  # across nodes MPI refused the call before anything moved
                for later, action in (
                    ("broadcast", lambda: t.broadcast(0, count=3)),
                    ("all_reduce", lambda: t.all_reduce(count=3)),
                ):
                    expect_stopped(f"{what}, then {later}", action, ["disagree"])
            t.destroy()  # a stopped node's table goes
            del e


shardtab.init(comm, allow_shared_device=True)  # a GPU machine: ranks may share one
on_host = shardtab.device()["backend"] == "host"
if part == "results":
    part_results()
    say(f"{calls} calls at {size} ranks, {checked} elements compared bit for bit")
elif part == "errors":
    part_errors()
else:
    if rank == 0:
        print("usage: check_collectives.py results|errors", file=sys.stderr)
    sys.exit(2)

if shardtab.peer_mappings() != 0:
    problems.append(f"{shardtab.peer_mappings()} peer mappings left")
status = verdict(
    comm,
    problems,
    f"# collectives python {part}: OK",
    before=[
        f"# collectives python {part}: backend {shardtab.device()['backend']}, {size} ranks"
    ],
    most=20,
)
shardtab.finalize()
sys.exit(status)
