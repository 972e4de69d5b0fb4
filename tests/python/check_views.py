"""check_views.py - the Python front on any backend: every rank fills its shard
of shardtab.empty (uneven lengths; one rank's is empty), and reads every node
peer's shard through the table, every element checked; a rank off the node
reads None. Then two tables over two slices of one buffer, the second opening
nothing. Rank 0 prints "# verify python: OK" when every rank agrees.

USAGE  mpiexec -n N python3 check_views.py
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import sys

import numpy
from mpi4py import MPI

import shardtab
from rank_verdict import as_host, store, verdict

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def length(r):
    """Uneven shards, and the last rank's empty when there are 3 or more."""
    return 0 if (size >= 3 and r == size - 1) else 1000 + 37 * r


def values(r, first, count):
    """Rank r's element i: exact in binary, different for every rank and element."""
    i = numpy.arange(first, first + count, dtype=numpy.float64)
    return r * 1048576.0 + i * 0.25 + 3.0


def check_table(t, expect_of, what):
    """Every rank of the communicator: the peer view on node, None off it."""
    for r in range(size):
        view = t.peer(r)
        on_node = t.node_rank_of(r) >= 0
        if not on_node:
            if view is not None:
                return f"{what}: rank {rank} got a view of off-node rank {r}"
            continue
        got = as_host(view)
        want = expect_of(r)
        if got.dtype != numpy.float64 or got.shape != want.shape:
            return f"{what}: rank {r}'s view is {got.dtype} {got.shape}, want float64 {want.shape}"
        bad = numpy.flatnonzero(got != want)
        if bad.size:
            k = int(bad[0])
            return f"{what}: rank {rank} read rank {r}'s element {k} as {got[k]!r}, want {want[k]!r}"
    return None


shardtab.init(comm)
problems = []

# ---- one table over each rank's whole shard
a = shardtab.empty(length(rank), dtype="float64")
store(a, values(rank, 0, length(rank)))
with shardtab.Table(comm, a) as t:
    why = check_table(t, lambda r: values(r, 0, length(r)), "whole shards")
    if why:
        problems.append(why)
    nodes, node_size = t.node_count, t.node_size
    if not isinstance(t.device_table, int) or t.device_table == 0:
        problems.append(f"device_table is {t.device_table!r}")

# ---- two tables over two slices of one buffer
b = shardtab.empty(2000 + rank, dtype="float64")
store(b, values(rank, 0, 2000 + rank))
cut = 700 + rank
low, high = b[:cut], b[cut:]
with shardtab.Table(comm, low) as t1, shardtab.Table(comm, high) as t2:
    why = check_table(t1, lambda r: values(r, 0, 700 + r), "lower slice")
    why = why or check_table(
        t2, lambda r: values(r, 700 + r, 2000 - 700), "upper slice"
    )
    if why:
        problems.append(why)
    if t2.peers_opened != 0:
        problems.append(
            f"the second table over the buffer opened {t2.peers_opened} "
            "peer allocations, want 0"
        )
    if t2.peers_reused != 2 * (t1.node_size - 1):
        problems.append(
            f"the second table found {t2.peers_reused} open, "
            f"want {2 * (t1.node_size - 1)}"
        )
if shardtab.peer_mappings() != 0:
    problems.append(f"{shardtab.peer_mappings()} peer mappings left after every table")

# one verdict, agreed
status = verdict(
    comm,
    problems,
    "# verify python: OK",
    after=[
        f"# python: backend {shardtab.device()['backend']}, {size} ranks, {nodes} node(s) of up "
        f"to {node_size}; shards of {', '.join(str(length(r)) for r in range(size))} doubles"
    ],
)
del a, b, low, high
shardtab.finalize()
sys.exit(status)
