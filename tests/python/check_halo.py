"""check_halo.py - the Python front's halo exchange (shardtab.Halo) over a
table's shard, on 2-D process grids, one part per run:

  exchange  every 2-D grid of the ranks (py x px, each order), each axis
            periodic or not, ghost widths 1 and 2, with and without corners,
            blocks of uneven sizes; cells of float64, float32 and a 12-byte
            record; each block a strided view (rows wider than the block) at
            its own offset in the shard. Every cell of every rank starts
            random (a seed per rank and case), so every rank knows every
            rank's cells: after the exchange every ghost cell is compared bit
            for bit with the cell of the neighbour it mirrors (across a
            periodic end too), and every other byte of the shard (interior,
            ghost cells with no neighbour, edges and corners without
            `corners`, the rows' padding) must be unchanged. On the host
            backend every other case is made by Halo.of_array (the array's
            axes), the rest by Halo(...) (the library's axes); on GPUs all by
            Halo(...), through a host copy. coord and neighbor are checked
            against the documented rank layout.
  errors    refusals every rank gets as one shardtab.Error, the table usable
            after each: the library's (a grid that does not match the
            communicator, a ghost wider than a neighbour's block, one rank's
            periodic differing) with its message; the front's own (a ghost
            outside size_t, an array outside the shard on one rank, a
            stream that is no stream); a bad neighbor offset is local.

Rank 0 prints "# halo python <part>: OK" when every rank agrees.

  never     the last rank never calls the exchange: the job ends with one
            line within the table's patience, on one node and across nodes.

USAGE  mpiexec -n N python3 check_halo.py exchange|errors|never
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import sys
import time

import numpy
from mpi4py import MPI

import shardtab
from rank_verdict import as_host, say, store, verdict

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
part = sys.argv[1] if len(sys.argv) > 1 else ""
problems = []
RECORD = numpy.dtype([("a", "<f4"), ("b", "<i4"), ("c", "<f4")])  # 12 bytes
SHARD_BYTES = 1 << 16


def cells_of(n, parts, c):
    """The cells coordinate c of `parts` holds along an axis of n: as even as can be."""
    return n // parts + (c < n % parts)


def first_of(n, parts, c):
    return c * (n // parts) + min(c, n % parts)


def holder(n, parts, cell):
    """The coordinate whose cells along an axis of n hold `cell`."""
    return next(c for c in range(parts) if first_of(n, parts, c + 1) > cell)


class Case:
    """One exchange: the grid (array order: py, px), the whole domain, and
    where each rank's padded block lies in its shard."""

    def __init__(self, number, grid, periodic, ghost, corners, dtype):
        self.number, self.grid, self.periodic = number, grid, periodic
        self.ghost, self.corners, self.dtype = ghost, corners, numpy.dtype(dtype)
        py, px = grid
        self.whole = (4 * py + 1 + number % 3, 5 * px + 2)  # (ny, nx): uneven cuts
        self.offset = 8 * (1 + number % 5) * self.dtype.itemsize  # bytes, whole cells

    def coords(self, r):
        """Rank r's (cy, cx): x (the library's axis 0) varies fastest."""
        py, px = self.grid
        return r // px % py, r % px

    def block(self, r):
        """Rank r's ((by, bx) interior cells, (y0, x0) its first cell, (rows, pitch))."""
        cy, cx = self.coords(r)
        (ny, nx), (py, px), g = self.whole, self.grid, self.ghost
        by, bx = cells_of(ny, py, cy), cells_of(nx, px, cx)
        return (
            (by, bx),
            (first_of(ny, py, cy), first_of(nx, px, cx)),
            (by + 2 * g, bx + 2 * g + 3),
        )

    def cells(self, r):
        """Rank r's padded block as it starts (rows of `pitch`, 3 cells of padding)."""
        _, _, (rows, pitch) = self.block(r)
        rng = numpy.random.default_rng([20261206, r, self.number])
        raw = rng.integers(
            0, 256, rows * pitch * self.dtype.itemsize, dtype=numpy.uint8
        )
        if self.dtype.kind == "f":  # random finite values, never all ones or zeros
            return (
                (rng.standard_normal(rows * pitch) * 1e3)
                .astype(self.dtype)
                .reshape(rows, pitch)
            )
        return raw.view(self.dtype).reshape(rows, pitch)

    def expected(self):
        """This rank's padded block after the exchange, and how many ghost cells it filled."""
        (by, bx), (y0, x0), _ = self.block(rank)
        g, (ny, nx) = self.ghost, self.whole
        want = self.cells(rank).copy()
        owners = {}  # (cy, cx) -> rank
        for r in range(size):
            owners[self.coords(r)] = r
        filled = 0
        for i in range(by + 2 * g):
            for j in range(bx + 2 * g):
                dy = -1 if i < g else (1 if i >= g + by else 0)
                dx = -1 if j < g else (1 if j >= g + bx else 0)
                if (dy, dx) == (0, 0) or (dy and dx and not self.corners):
                    continue
                gy, gx = y0 + i - g, x0 + j - g
                if (not 0 <= gy < ny and not self.periodic[0]) or (
                    not 0 <= gx < nx and not self.periodic[1]
                ):
                    continue  # no neighbour there: unchanged
                gy, gx = gy % ny, gx % nx
                owner = owners[
                    (holder(ny, self.grid[0], gy), holder(nx, self.grid[1], gx))
                ]
                _, (oy0, ox0), _ = self.block(owner)
                want[i, j] = self.cells(owner)[gy - oy0 + g, gx - ox0 + g]
                filled += 1
        return want, filled


def grids():
    """Every 2-D grid of the ranks, (py, px), each order."""
    return [(py, size // py) for py in range(1, size + 1) if size % py == 0]


def make_halo(t, shard, case, by_array):
    """The case's halo over this rank's block in the table t."""
    (by, bx), _, (rows, pitch) = case.block(rank)
    g = case.ghost
    if by_array:
        raw = shard.view(numpy.uint8)[
            case.offset : case.offset + rows * pitch * case.dtype.itemsize
        ]
        view = raw.view(case.dtype).reshape(rows, pitch)[:, : bx + 2 * g]
        return shardtab.Halo.of_array(
            t,
            view,
            grid=case.grid,
            ghost=g,
            periodic=case.periodic,
            corners=case.corners,
        )
    return shardtab.Halo(
        t,
        grid=case.grid[::-1],
        block=(bx, by),
        ghost=(g, g),
        periodic=case.periodic[::-1],
        elem_bytes=case.dtype.itemsize,
        offset_bytes=case.offset,
        stride=(1, pitch),
        corners=case.corners,
    )


def run_case(t, shard, case, by_array):
    """The exchange of one case; returns the ghost cells it compared."""
    _, _, (rows, pitch) = case.block(rank)
    nbytes = rows * pitch * case.dtype.itemsize
    before = numpy.random.default_rng([7, rank, case.number]).integers(
        0, 256, SHARD_BYTES, dtype=numpy.uint8
    )
    before[case.offset : case.offset + nbytes] = (
        case.cells(rank).view(numpy.uint8).reshape(-1)
    )
    store(shard, before.view(numpy.float64))
    with make_halo(t, shard, case, by_array) as h:
        cy, cx = case.coords(rank)
        if (h.coord(0), h.coord(1)) != (cx, cy):
            problems.append(
                f"case {case.number}: coord says ({h.coord(0)}, {h.coord(1)}), expected ({cx}, {cy})"
            )
        py, px = case.grid
        right = cy * px + (cx + 1) % px if (cx + 1 < px or case.periodic[1]) else -1
        if h.neighbor(1, 0) != right:
            problems.append(
                f"case {case.number}: neighbor(1, 0) is {h.neighbor(1, 0)}, expected {right}"
            )
        # the ghosts are small: pushed, as LL words where the cells are whole
        # 4-byte words at 4-byte places, else by put
        words = case.dtype.itemsize % 4 == 0 and case.offset % 4 == 0
        form = "ll" if words else "put"
        if h.form != form or not h.pushed:
            problems.append(
                f"case {case.number}: form is {h.form} (pushed {h.pushed}), expected {form}"
            )
        h.exchange()
    after = as_host(shard).view(numpy.uint8)
    want, filled = case.expected()
    expect = before.copy()
    expect[case.offset : case.offset + nbytes] = want.view(numpy.uint8).reshape(-1)
    wrong = numpy.flatnonzero(after != expect)
    if wrong.size:
        at = int(wrong[0]) - case.offset
        cell = at // case.dtype.itemsize
        problems.append(
            f"case {case.number} (grid {case.grid}, periodic {case.periodic}, ghost "
            f"{case.ghost}, corners {case.corners}, {case.dtype}): {wrong.size} bytes "
            f"differ, the first in cell (row, column) {divmod(cell, pitch)} of the block"
        )
    return filled


def part_exchange():
    shard = shardtab.empty(SHARD_BYTES // 8, "float64")
    on_host = isinstance(shard, numpy.ndarray)
    cases = filled = 0
    with shardtab.Table(comm, shard) as t:
        for grid in grids():
            for periodic in (
                (False, False),
                (True, False),
                (False, True),
                (True, True),
            ):
                for ghost in (1, 2):
                    for corners in (False, True):
                        dtype = ("float64", "float32", RECORD)[cases % 3]
                        case = Case(cases, grid, periodic, ghost, corners, dtype)
                        filled += run_case(t, shard, case, on_host and cases % 2 == 0)
                        cases += 1
    total = comm.allreduce(filled)
    say(
        f"{cases} exchanges on 2-D grids at {size} ranks, {total} ghost cells compared bit for bit"
    )


def expect_error(what, action, fragments):
    """action() must raise shardtab.Error on every rank, its message holding
    every fragment; the message is noted once."""
    try:
        action()
    except shardtab.Error as error:
        missing = [f for f in fragments if f not in error.message]
        if missing:
            problems.append(f"{what}: the message lacks {missing}: {error.message}")
        elif rank == 0:
            say(f"{what}: {error.message}")
        return
    except Exception as error:  # noqa: BLE001 - what came instead is the problem
        problems.append(
            f"{what}: raised {type(error).__name__}: {error}, not shardtab.Error"
        )
        return
    problems.append(f"{what}: no error")


def works(t, shard, what):
    """A good exchange after a refusal: the table and the front still work."""
    case = Case(0, (1, size), (False, True), 1, False, "float64")
    try:
        run_case(t, shard, case, isinstance(shard, numpy.ndarray))
    except Exception as error:  # noqa: BLE001
        problems.append(
            f"after {what}: a good exchange raised {type(error).__name__}: {error}"
        )


def part_errors():
    shard = shardtab.empty(SHARD_BYTES // 8, "float64")
    last = size - 1
    with shardtab.Table(comm, shard) as t:
        good = dict(grid=(size, 1), block=(4, 4), ghost=1, elem_bytes=8)
        refusals = [
            ("a grid of one rank too many", dict(good, grid=(size + 1, 1)), ["grid"]),
            (
                "a ghost wider than the blocks",
                dict(good, block=(4, 1), ghost=2, periodic=True),
                ["ghost"],
            ),
            (
                "the last rank's periodic differs",
                dict(good, periodic=(rank == last, False)),
                ["periodic"],
            ),
            ("a ghost of -1", dict(good, ghost=-1), ["ghost", "outside the C size_t"]),
            (
                "a ghost of 2**64",
                dict(good, ghost=2**64),
                ["ghost", "outside the C size_t"],
            ),
            ("dims 4", dict(good, grid=(size, 1, 1, 1)), ["dims is 4"]),
        ]
        for what, kwargs, fragments in refusals:
            expect_error(what, lambda: shardtab.Halo(t, **kwargs), fragments)
            works(t, shard, what)
        # 1-D, so that the same case runs on GPUs (a DeviceArray has one axis)
        elsewhere = shardtab.empty(36) if rank == last else shard[:36]
        expect_error(
            "the last rank's array outside its shard",
            lambda: shardtab.Halo.of_array(t, elsewhere, grid=size),
            ["not inside this rank's shard"],
        )
        del elsewhere
        works(t, shard, "an array outside the shard")
        with shardtab.Halo(t, **good) as h:
            expect_error(
                "a stream that is no stream",
                lambda: h.exchange(stream="fast"),
                ["stream"],
            )
            try:
                h.neighbor(2**40)
                problems.append("neighbor(2**40) was taken")
            except ValueError as error:
                if rank == 0:
                    say(f"neighbor(2**40), local: {error}")
        works(t, shard, "a stream that is no stream")


def part_never():
    """The last rank never calls the exchange (it hangs, as a stuck rank
    would): every other rank's wait is bounded (the front's agreement before
    the call, 6 x the table's wait limit), and the first to give up ends the
    job with one line. Nothing here returns."""
    shard = shardtab.empty(SHARD_BYTES // 8, "float64")
    t = shardtab.Table(comm, shard)
    h = shardtab.Halo(
        t, grid=(size, 1), block=(4, 4), ghost=1, elem_bytes=8, periodic=True
    )
    if rank == size - 1:
        time.sleep(600)  # never calls; the job ends before this does
    h.exchange()
    t.check()
    problems.append("an exchange returned while a rank never called it")


PARTS = {"exchange": part_exchange, "errors": part_errors, "never": part_never}
if part not in PARTS:
    if rank == 0:
        print("usage: check_halo.py exchange|errors|never", file=sys.stderr)
    sys.exit(2)
shardtab.init(comm, allow_shared_device=True)  # a GPU machine: ranks may share one
PARTS[part]()
if shardtab.peer_mappings() != 0:
    problems.append(f"{shardtab.peer_mappings()} peer mappings left")
backend = shardtab.device()["backend"]
heading = f"# halo python {part}: backend {backend}, {size} ranks"
status = verdict(comm, problems, f"# halo python {part}: OK", before=[heading], most=20)
shardtab.finalize()
sys.exit(status)
