"""check_hostile.py - the Python front against what a hostile or careless user
hands it, one case per run:

  pointer-dtypes      a shard of Python objects (dtype object, or a structured
                      dtype with an object field) or of 0-byte elements (|V0)
                      is refused on every rank at once, also an object named
                      by the descr alone; shardtab.empty refuses those dtypes
                      too; a record without objects keeps its fields (host)
  dtype-mismatch      float64 on one rank and int8 on another (or float64 of
                      the other byte order) is refused on every rank, the
                      message naming both dtypes and both ranks; one dtype
                      other than float64 on every rank works
  read-only           a read-only array is refused on every rank; a writable
                      one is taken after
  fortran-order       Fortran-order and transposed arrays (one contiguous
                      range of bytes) are taken, peers read them whole; a
                      non-contiguous part of one is still refused
  view-after-destroy  a peer view used after its table is destroyed: on the
                      host backend it keeps its own mapping, so it still reads
                      the peer's values, even once the peer freed its memory,
                      and the mapping goes with the view; on GPUs it raises
  empty-before-init   shardtab.empty before init raises, and nothing is
                      printed as an ignored exception
  owner-deleted       the owner of a shard's memory dropped while tables over
                      it live: the memory stays while they do, and is freed
                      when the last of them is destroyed (its mappings counted
                      on the host backend)
  unencodable         text that is no valid UTF-8 (a lone surrogate), or that
                      cannot even be made a string, on one rank: every rank
                      raises the agreed error instead of waiting
  finalize-live       shardtab.finalize with a live table raises on every
                      rank, each naming its live table; the package, the table and
                      its memory stay usable, the table is destroyed, and the
                      finalize at the end works
  int-range           N9: integers past the C type ctypes makes them
                      (signal_slots=2**32 + 64 was 64 slots, alignment=2**64 was
                      any, peer(2**63) rank 0's shard) are refused, naming the
                      value given, not the wrapped one
  label-nul           N10: a label with a NUL character is refused (labels
                      compared up to it: 'T\\0one' paired with 'T\\0two')

Rank 0 prints "# hostile python <case>: OK" when every rank agrees.

USAGE  mpiexec -n N python3 check_hostile.py CASE
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import gc
import sys

import numpy
from mpi4py import MPI

import shardtab
from rank_verdict import as_host, say, store, verdict

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
last = size - 1
case = sys.argv[1] if len(sys.argv) > 1 else ""
problems = []


def expect_error(what, make, fragments, status_name="invalid argument"):
    """make() must raise shardtab.Error on every rank, with one message that
    holds every fragment."""
    try:
        table = make()
    except shardtab.Error as error:
        got = (error.status_name, error.message)
    else:
        if isinstance(table, shardtab.Table):
            table.destroy()
        got = ("no error", "")
    everyone = comm.allgather(got)
    if any(g != everyone[0] for g in everyone):
        problems.append(f"{what}: the ranks disagree: {everyone}")
    elif got[0] != status_name or any(f not in got[1] for f in fragments):
        problems.append(f"{what}: got {got}, want {status_name!r} with {fragments!r}")
    else:
        say(f"{what}: '{got[1]}'")


def memfd_mappings():
    """Mappings of shardtab memory in this process (its own, its peers')."""
    with open("/proc/self/maps") as maps:
        return sum("memfd:shardtab-" in line for line in maps)


def settled_mappings(mine):
    """memfd_mappings() once a table has been made and destroyed: the library
    keeps its signal-pad chunk for the next table until finalize, and that
    mapping is not a table's leftover."""
    with shardtab.Table(comm, mine):
        pass
    return memfd_mappings()


class Holder:
    """Another library's array over shardtab memory: an interface and no
    reference to whatever owns the memory."""

    def __init__(self, kind, interface):
        setattr(self, kind, interface)


def interface_of(array):
    """(name, a copy of the dict) of array's interface."""
    for kind in ("__cuda_array_interface__", "__array_interface__"):
        found = getattr(array, kind, None)
        if found is not None:
            return kind, dict(found)
    raise TypeError(f"{type(array).__name__} has no array interface")


def holder(array, **changes):
    """A Holder of array's memory with some of its interface changed."""
    kind, interface = interface_of(array)
    interface.update(changes)
    return Holder(kind, interface)


def values(r, count):
    """Rank r's element i, exact in binary, different for every rank and element."""
    return r * 1048576.0 + numpy.arange(count, dtype=numpy.float64) * 0.25 + 3.0


def check_peers(t, count_of, what):
    """Every rank's view through t holds that rank's values (of count_of(r))."""
    for r in range(size):
        got = as_host(t.peer(r))
        want = values(r, count_of(r))
        if got.shape != want.shape or not numpy.array_equal(got, want):
            problems.append(
                f"{what}: rank {r}'s view holds {got[:3]}... ({got.shape}), "
                f"want {want[:3]}... ({want.shape})"
            )
            return False
    return True


def case_empty_before_init():
    """Before init, empty raises; nothing complains on the way out."""
    ignored = []
    previous = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: ignored.append(
        f"{type(unraisable.exc_value).__name__}: {unraisable.exc_value}"
    )
    try:
        try:
            shardtab.empty(8, dtype="float64")
        except shardtab.Error as error:
            if "before" not in error.message:
                problems.append(
                    f"empty before init: {error.message!r} does not say why"
                )
        else:
            problems.append("empty before init returned memory")
        gc.collect()
    finally:
        sys.unraisablehook = previous
    if ignored:
        problems.append(f"empty before init left an ignored exception: {ignored}")
    else:
        say("empty before init raised shardtab.Error, and no exception was ignored")
    shardtab.init(comm)


def case_pointer_dtypes(mine, host):
    store(mine, values(rank, 64))  # these doubles' bits, as pointers, point nowhere
    expect_error(
        "one rank's shard holds Python objects (dtype object)",
        lambda: shardtab.Table(
            comm,
            holder(mine, typestr="|O", descr=[("", "|O")]) if rank == last else mine,
        ),
        [f"rank {last}", "Python objects"],
    )
    record = [("x", "<f8"), ("p", "|O")]
    expect_error(
        "every rank's shard is a record with an object field",
        lambda: shardtab.Table(
            comm, holder(mine, typestr="|V16", descr=record, shape=(32,))
        ),
        ["Python objects", "('p', 'O')"],
    )
    expect_error(
        "an object behind a plain |V8 typestr, in the descr alone",
        lambda: shardtab.Table(comm, holder(mine, typestr="|V8", descr=[("", "|O")])),
        ["Python objects"],
    )
    expect_error(
        "every rank's shard has elements of 0 bytes (|V0)",
        lambda: shardtab.Table(comm, holder(mine, typestr="|V0", descr=[("", "|V0")])),
        ["0 bytes"],
    )
    before = len(problems)
    for dtype in (object, [("x", "f8"), ("p", "O")], "V0"):
        try:
            shardtab.empty(8, dtype=dtype)
        except ValueError as error:
            if "shardtab.empty" not in str(error):
                problems.append(f"empty(8, {dtype!r}): {error} does not name empty")
        else:
            problems.append(f"empty(8, {dtype!r}) returned memory")
    if len(problems) == before:
        say("shardtab.empty refuses object, records with objects and V0")
    if host:
        # a plain record (no objects) is still taken, and peers see its fields
        plain = shardtab.empty(16, dtype=[("x", "<f8"), ("n", "<i4")])
        if plain.dtype.names != ("x", "n"):
            problems.append(
                f"empty(16, a record dtype) is {plain.dtype}: its fields are lost"
            )
            plain = plain.view([("x", "<f8"), ("n", "<i4")])
        plain["x"], plain["n"] = values(rank, 16), rank
        with shardtab.Table(comm, plain) as t:
            view = t.peer(last)
            if view.dtype.names != ("x", "n") or list(view["n"]) != [last] * 16:
                problems.append(
                    f"a record shard's peer view is {view.dtype} {view[:2]}"
                )
            else:
                say(
                    "a record shard without objects is taken, its peers' fields read back"
                )
        del plain


def case_dtype_mismatch(mine, host):
    expect_error(
        "float64 here, int8 on the last rank",
        lambda: shardtab.Table(
            comm,
            holder(mine, typestr="|i1", descr=[("", "|i1")], shape=(512,))
            if rank == last
            else mine,
        ),
        ["float64", "int8", "rank 0", f"rank {last}"],
    )
    expect_error(
        "little-endian here, big-endian on rank 0",
        lambda: shardtab.Table(
            comm,
            holder(mine, typestr=">f8", descr=[("", ">f8")]) if rank == 0 else mine,
        ),
        [">f8", "float64", "rank 0", "rank 1"],
    )
    bytes_view = holder(mine, typestr="|i1", descr=[("", "|i1")], shape=(512,))
    with shardtab.Table(comm, bytes_view) as t:
        view = t.peer(last)
        if view.dtype != numpy.int8 or len(view) != 512:
            problems.append(
                f"int8 on every rank: the view is {view.dtype}, {len(view)} elements"
            )
        else:
            say("int8 on every rank is taken: views of 512 int8")


def case_create_order(mine, host):
    """Tables created out of order: the labels name it on every rank (rank 0's A
    was paired silently with the others' B); the same labels make a table."""
    expect_error(
        "rank 0 creates 'A' while the others create 'B'",
        lambda: shardtab.Table(comm, mine, label="A" if rank == 0 else "B"),
        ["creates table 'B' where rank 0 creates 'A'", "same order"],
    )
    expect_error(
        "a label that is not a str",
        lambda: shardtab.Table(comm, mine, label=7),
        ["label is a int; pass a str"],
    )
    store(mine, values(rank, len(mine)))
    comm.barrier()
    with shardtab.Table(comm, mine, label="one name") as t:
        if check_peers(t, lambda r: len(mine), "the same labels"):
            say("the same label on every rank makes a table")


def case_read_only(mine, host):
    store(mine, values(rank, 64))
    if host:
        frozen = mine.view()
        frozen.flags.writeable = False
    else:
        kind, interface = interface_of(mine)
        frozen = holder(mine, data=(interface["data"][0], True))
    expect_error(
        "the last rank's shard is read-only",
        lambda: shardtab.Table(comm, frozen if rank == last else mine),
        [f"rank {last}", "read-only"],
    )
    with shardtab.Table(comm, mine) as t:
        if check_peers(t, lambda r: 64, "the writable shard after"):
            say("the writable shard is taken after the refusal")


def case_fortran_order(mine, host):
    n = 12 * (rank + 1)
    a = shardtab.empty(n, dtype="float64")
    store(a, values(rank, n))
    if host:
        shapes = {
            "Fortran order (3, 4k)": a.reshape((3, n // 3), order="F"),
            "a transposed C array": a.reshape((n // 3, 3)).T,
            "axes in another order": a.reshape((2, n // 6, 3)).transpose(2, 0, 1),
        }
        for what, shard in shapes.items():
            if not numpy.shares_memory(shard, a) or shard.flags.c_contiguous:
                problems.append(
                    f"{what}: the test's own array is not a view in another order"
                )
    else:
        shapes = {
            "Fortran order (3, 4k)": holder(a, shape=(3, n // 3), strides=(8, 24)),
            "axes in another order": holder(
                a, shape=(3, 2, n // 6), strides=(8, 24 * (n // 6), 24)
            ),
        }
    for what, shard in shapes.items():
        try:
            with shardtab.Table(comm, shard) as t:
                if check_peers(t, lambda r: 12 * (r + 1), what):
                    say(f"{what}: taken, every peer read whole in memory order")
        except shardtab.Error as error:
            problems.append(f"{what}: refused: {error}")
    part = (
        a.reshape((3, n // 3), order="F")[:2]
        if host
        else holder(a, shape=(2, n // 3), strides=(8, 24))
    )
    expect_error(
        "two rows of a Fortran-order array (not contiguous)",
        lambda: shardtab.Table(comm, part),
        ["not one contiguous range of bytes"],
    )
    del a


def case_view_after_destroy(mine, host):
    baseline = settled_mappings(mine) if host else 0
    n = 1000 + rank
    a = shardtab.empty(n, dtype="float64")
    store(a, values(rank, n))
    with shardtab.Table(comm, a) as t:
        views = {r: t.peer(r) for r in range(size)}
    comm.Barrier()
    before = len(problems)
    if not host:
        for r, view in views.items():
            try:
                view.to_host()
            except shardtab.Error as error:
                if "destroyed" not in error.message:
                    problems.append(f"rank {r}'s view after destroy: {error.message!r}")
            else:
                problems.append(f"rank {r}'s view read after its table was destroyed")
        if len(problems) == before:
            say("views of a destroyed table raise shardtab.Error")
        return
    for r, view in views.items():
        if not numpy.array_equal(view, values(r, 1000 + r)):
            problems.append(f"rank {r}'s view after destroy reads {view[:3]}")
    if len(problems) == before:
        say("views read their peers' values after the table is destroyed")
    del a
    gc.collect()
    comm.Barrier()  # every owner has freed its memory now
    for r, view in views.items():
        if not numpy.array_equal(view, values(r, 1000 + r)):
            problems.append(
                f"rank {r}'s view after its owner freed it reads {view[:3]}"
            )
    comm.Barrier()  # every rank has read: the pages are still shared among the views
    views[rank][0] = -1.0
    if views[rank][0] != -1.0:
        problems.append(
            "this rank's own view after it freed the memory did not take a write"
        )
    if len(problems) == before:
        say("... and once their owners freed that memory (still readable and writable)")
    del views, view
    gc.collect()
    if memfd_mappings() != baseline:
        problems.append(
            f"{memfd_mappings() - baseline} shardtab mappings left after the views"
        )
    else:
        say("the views' mappings went with them")


def case_owner_deleted(mine, host):
    baseline = settled_mappings(mine) if host else 0
    a = shardtab.empty(1000, dtype="float64")
    store(a, values(rank, 1000))
    with shardtab.Table(comm, holder(a)) as t:
        del a
        gc.collect()  # the free is refused: the table lives
        comm.Barrier()
        if check_peers(t, lambda r: 1000, "owner dropped in the with"):
            say("the owner dropped inside the with: peers still read the memory")
    if host and memfd_mappings() != baseline:
        problems.append(
            f"the memory was not freed with its table: {memfd_mappings() - baseline} "
            "shardtab mappings more than before"
        )
    elif host:
        say(
            f"... and it was freed when the table was destroyed ({baseline} shardtab "
            "mappings before and after)"
        )
    # two tables over one allocation, its owner gone while both live
    b = shardtab.empty(2000, dtype="float64")
    store(b, values(rank, 2000))
    t1 = shardtab.Table(comm, holder(b[:1000]))
    t2 = shardtab.Table(comm, holder(b))
    del b
    gc.collect()
    t1.destroy()
    gc.collect()
    comm.Barrier()
    if check_peers(
        t2, lambda r: 2000, "the second table, after the first was destroyed"
    ):
        say(
            "two tables, the owner gone: after the first destroy the second still reads"
        )
    t2.destroy()
    if host and memfd_mappings() != baseline:
        problems.append(
            f"two tables: {memfd_mappings() - baseline} shardtab mappings left "
            "after the last destroy"
        )
    elif host:
        say("... and the memory was freed with the last of them")


class Hostile:
    """An array whose interface raises with text that is no valid UTF-8."""

    @property
    def __array_interface__(self):
        raise RuntimeError("caf\udcff")


class Unprintable(Exception):
    def __str__(self):
        raise ValueError("no words")


class Mute:
    """A failure whose str() raises."""

    def __str__(self):
        raise ValueError("no words")


class Unspeakable:
    @property
    def __array_interface__(self):
        raise Unprintable()


def case_unencodable(mine, host):
    expect_error(
        "shardtab.agree with a lone surrogate on the last rank",
        lambda: shardtab.agree(comm, "caf\udcff" if rank == last else None),
        [f"rank {last}", "caf\\udcff"],
        "verification failed",
    )
    expect_error(
        "an array interface raising a lone surrogate on the last rank",
        lambda: shardtab.Table(comm, Hostile() if rank == last else mine),
        [f"rank {last}", "RuntimeError: caf\\udcff"],
    )
    expect_error(
        "shardtab.agree with a failure whose str() raises",
        lambda: shardtab.agree(comm, Mute() if rank == last else None),
        [f"rank {last}", "Mute", "str() raised ValueError"],
        "verification failed",
    )
    expect_error(
        "an array interface raising an exception whose str() raises",
        lambda: shardtab.Table(comm, Unspeakable() if rank == last else mine),
        [f"rank {last}", "Unprintable", "str() raised ValueError"],
    )


def case_finalize_live(mine, host):
    store(mine, values(rank, 64))
    t = shardtab.Table(comm, mine)
    # local (no communicator): every rank refuses, each naming its own table
    try:
        shardtab.finalize()
    except shardtab.Error as error:
        got = (error.status_name, error.message)
    else:
        got = ("no error", "")
    fragments = [
        "shardtab_finalize",
        "1 live table",
        f"table {t._table.value:#x}",
        "shardtab_destroy",
    ]
    if got[0] != "invalid argument" or any(f not in got[1] for f in fragments):
        problems.append(
            f"shardtab.finalize with a live table: got {got}, want 'invalid "
            f"argument' with {fragments!r}"
        )
    else:
        say(f"shardtab.finalize with a live table raises, on every rank: '{got[1]}'")
    before = len(problems)
    try:
        more = shardtab.empty(8, dtype="float64")
        check_peers(t, lambda r: 64, "after the refused finalize")
        t.all_reduce("sum")
    except shardtab.Error as error:
        problems.append(f"after the refused finalize: {error.message}")
    else:
        want = sum(values(r, 64) for r in range(size))
        if not numpy.array_equal(as_host(t.peer(rank)), want):
            problems.append(
                f"the all-reduce after the refused finalize gives "
                f"{as_host(t.peer(rank))[:3]}, want {want[:3]}"
            )
        del more
    if len(problems) == before:
        say("after it, shardtab.empty works, every peer reads and an all-reduce sums")
    t.destroy()


def case_int_range(mine, host):
    for what, kwargs, value, ctype in [
        (
            "signal_slots=2**32 + 64",
            {"signal_slots": 2**32 + 64},
            2**32 + 64,
            "int",
        ),
        ("signal_slots=2**31", {"signal_slots": 2**31}, 2**31, "int"),
        ("alignment=2**64", {"alignment": 2**64}, 2**64, "size_t"),
    ]:
        expect_error(
            f"Table(..., {what})",
            lambda kwargs=kwargs: shardtab.Table(comm, mine, **kwargs),
            [f"is {value}, outside the C {ctype} the library takes"],
        )
    with shardtab.Table(comm, mine) as t:
        for what, call in [
            ("peer(2**63)", lambda: t.peer(2**63)),
            ("member(2**63)", lambda: t.member(2**63)),
            ("node_rank_of(2**63)", lambda: t.node_rank_of(2**63)),
            ("peer(-2**31 - 1)", lambda: t.peer(-(2**31) - 1)),
        ]:
            try:
                got = call()
            except ValueError as error:
                if "outside the C int the library takes" in str(error) and (
                    "9223372036854775808" in str(error) or "-2147483649" in str(error)
                ):
                    say(f"{what} raises: {error}")
                else:
                    problems.append(f"{what}: {error}")
            else:
                problems.append(f"{what} gave {got!r}, not a refusal")


def case_label_nul(mine, host):
    expect_error(
        "a label with a NUL character",
        lambda: shardtab.Table(comm, mine, label="T\0one" if rank == 0 else "T\0two"),
        ["holds a NUL character", "pass one without"],
    )


cases = {
    "int-range": case_int_range,
    "label-nul": case_label_nul,
    "pointer-dtypes": case_pointer_dtypes,
    "dtype-mismatch": case_dtype_mismatch,
    "read-only": case_read_only,
    "fortran-order": case_fortran_order,
    "view-after-destroy": case_view_after_destroy,
    "owner-deleted": case_owner_deleted,
    "unencodable": case_unencodable,
    "finalize-live": case_finalize_live,
    "create-order": case_create_order,
}
if case == "empty-before-init":
    case_empty_before_init()
elif case in cases:
    shardtab.init(comm)
    mine = shardtab.empty(64, dtype="float64")
    cases[case](mine, isinstance(mine, numpy.ndarray))
    del mine
else:
    if rank == 0:
        print(
            f"usage: check_hostile.py {'|'.join(['empty-before-init', *cases])}",
            file=sys.stderr,
        )
    sys.exit(2)

gc.collect()
if shardtab.peer_mappings() != 0:
    problems.append(f"{shardtab.peer_mappings()} peer mappings left")
status = verdict(comm, problems, f"# hostile python {case}: OK")
shardtab.finalize()
sys.exit(status)
