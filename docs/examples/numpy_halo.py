"""numpy_halo.py - the halo exchange from Python with NumPy: a 5-point heat
step on a 2-D grid of ranks (MPI.Compute_dims), periodic along x, fixed
boundary cells along y; each step shardtab.Halo.exchange fills the ghost
cells, then NumPy sweeps the block. Every rank then runs the same steps over
the whole domain alone, as one rank does, and compares every cell bit for bit.

USAGE  mpiexec -n N python3 -m mpi4py numpy_halo.py [--steps K]
  --steps  steps, 1 to 10 (default 8)
Prints "numpy_halo: OK ..." from rank 0 and exits 0; exits 1 when a cell
differs, 2 on bad usage. On the host backend the block is a NumPy view of the
shard (Halo.of_array: the array's axes, C order); on GPUs the same steps copy
through DeviceArray.to_host and from_host, with the halo made from the
library's axes (Halo(...): x, the array's last axis, first).

Exact: the cells are multiples of 2^-20 in [0, 1) and each step adds three
bits (0.5, 0.125), so 10 steps stay within a double's 53 and any order of the
sums gives the same bits.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

import sys

import numpy
from mpi4py import MPI

import shardtab
from example import leave, verdict

NAME = "numpy_halo"
WHOLE = (18, 20)  # (ny, nx): the whole domain's cells


def steps_asked(argv, comm):
    """--steps K, or 8; bad input: None, after one line from rank 0."""
    if not argv:
        return 8
    if len(argv) == 2 and argv[0] == "--steps" and argv[1].isdigit():
        if 1 <= int(argv[1]) <= 10:
            return int(argv[1])
    if comm.rank == 0:
        print(
            f"{NAME}: expected no options or --steps K with K from 1 to 10",
            file=sys.stderr,
        )
    return None


def cut(n, parts, c):
    """(first, cells) of coordinate c of `parts` along an axis of n cells."""
    return c * (n // parts) + min(c, n % parts), n // parts + (c < n % parts)


def step(u):
    """u's interior, one step on from u (ghost cells included)."""
    c = u[1:-1, 1:-1]
    return 0.5 * c + 0.125 * (
        (u[:-2, 1:-1] + u[2:, 1:-1]) + (u[1:-1, :-2] + u[1:-1, 2:])
    )


def main():
    comm = MPI.COMM_WORLD
    steps = steps_asked(sys.argv[1:], comm)
    if steps is None:
        return 2
    ny, nx = WHOLE
    py, px = MPI.Compute_dims(comm.size, 2)
    if ny < py or nx < px:
        if comm.rank == 0:
            print(
                f"{NAME}: {comm.size} ranks: more than {ny}x{nx} cells", file=sys.stderr
            )
        return 2
    shardtab.init(comm)

    # the whole domain with its ghost cells, the same on every rank: random
    whole = numpy.random.default_rng(2026).integers(0, 1 << 20, (ny + 2, nx + 2)) / (
        1 << 20
    )
    cy, cx = comm.rank // px, comm.rank % px  # x, the library's axis 0, varies fastest
    (y0, by), (x0, bx) = cut(ny, py, cy), cut(nx, px, cx)
    block = whole[y0 : y0 + by + 2, x0 : x0 + bx + 2].copy()
    block[:, [0, -1]] = numpy.nan  # x's ghost cells: the neighbours' (periodic)
    if cy > 0:
        block[0, :] = numpy.nan  # y's: the neighbours', where there is one
    if cy < py - 1:
        block[-1, :] = numpy.nan

    cells = (by + 2) * (bx + 2)
    shard = shardtab.empty(
        2 * cells, dtype="float64"
    )  # two buffers: the steps alternate
    on_host = isinstance(shard, numpy.ndarray)
    with shardtab.Table(comm, shard, label=NAME) as table:
        halos = []
        for k in range(2):
            if on_host:
                u = shard[k * cells : (k + 1) * cells].reshape(by + 2, bx + 2)
                u[...] = block
                halo = shardtab.Halo.of_array(
                    table, u, grid=(py, px), periodic=(False, True)
                )
            else:
                shard[k * cells : (k + 1) * cells].from_host(block.reshape(-1))
                halo = shardtab.Halo(
                    table,
                    grid=(px, py),
                    block=(bx, by),
                    elem_bytes=8,
                    offset_bytes=k * cells * 8,
                    periodic=(True, False),
                )
            halos.append(halo)
        for s in range(steps):
            halos[
                s % 2
            ].exchange()  # collective: the ghost cells of the buffer read next
            cur, nxt = (
                shard[(s % 2) * cells :][:cells],
                shard[(1 - s % 2) * cells :][:cells],
            )
            if on_host:
                nxt.reshape(by + 2, bx + 2)[1:-1, 1:-1] = step(
                    cur.reshape(by + 2, bx + 2)
                )
            else:
                new = nxt.to_host().reshape(by + 2, bx + 2)
                new[1:-1, 1:-1] = step(cur.to_host().reshape(by + 2, bx + 2))
                nxt.from_host(new.reshape(-1))
        table.check()  # GPUs: did the node refuse an exchange? (host: raised already)
        last = shard[(steps % 2) * cells :][:cells]
        got = (last.copy() if on_host else last.to_host()).reshape(by + 2, bx + 2)
        for halo in halos:
            halo.close()
        backend = shardtab.device()["backend"]
    shardtab.finalize()

    # the same steps over the whole domain, as one rank runs them
    for _ in range(steps):
        whole[:, 0], whole[:, -1] = whole[:, -2], whole[:, 1]  # periodic along x
        whole[1:-1, 1:-1] = step(whole)
    want = whole[y0 + 1 : y0 + by + 1, x0 + 1 : x0 + bx + 1]
    wrong = []
    differ = numpy.argwhere(
        got[1:-1, 1:-1].view(numpy.uint64) != want.view(numpy.uint64)
    )
    if differ.size:
        i, j = differ[0]
        wrong.append(
            f"{len(differ)} cells differ, first ({y0 + i}, {x0 + j}): "
            f"{got[1 + i, 1 + j]!r}, one rank's steps give {want[i, j]!r}"
        )
    return verdict(
        NAME,
        comm,
        wrong,
        f"{comm.size} ranks on a {py}x{px} grid, backend {backend}, {ny}x{nx} cells, "
        f"{steps} steps, every cell as one rank's steps over the whole domain give it",
    )


if __name__ == "__main__":
    leave(main())
