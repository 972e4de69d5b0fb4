"""numpy_table.py - the table from Python with NumPy: each rank writes its
shard, reads the next node rank's through the table, then the ranks sum their
shards with a collective; every element is checked exactly.

USAGE  mpiexec -n N python3 -m mpi4py numpy_table.py [--n ELEMENTS]
  --n  doubles each rank sums (default 1000)
Prints "numpy_table: OK ..." from rank 0 and exits 0; exits 1 when an element
differs, 2 on bad usage. On the host backend the shards are NumPy arrays; on
GPUs the same code copies through DeviceArray.to_host and from_host (for
arrays on the GPU itself: gpu_table.py).

Python's collectives take offset and count in ELEMENTS of the table's dtype
(C and Fortran: the offset in bytes): offset=2 is byte 16 here.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

import sys

import numpy
from mpi4py import MPI

import shardtab
from example import GUARD, check_sum, leave, values, verdict

NAME = "numpy_table"


def elements_asked(argv, comm):
    """--n N, or 1000; bad input: None, after one line from rank 0."""
    if not argv:
        return 1000
    if len(argv) == 2 and argv[0] == "--n" and argv[1].isdigit() and int(argv[1]) >= 1:
        return int(argv[1])
    if comm.rank == 0:
        print(f"{NAME}: expected no options or --n N with N >= 1", file=sys.stderr)
    return None


def write(shard, new):
    if isinstance(shard, numpy.ndarray):  # the host backend: the memory itself
        shard[...] = new
    else:  # a DeviceArray: GPU memory
        shard.from_host(new)


def read(shard):
    return shard.copy() if isinstance(shard, numpy.ndarray) else shard.to_host()


def main():
    comm = MPI.COMM_WORLD
    n = elements_asked(sys.argv[1:], comm)
    if n is None:
        return 2
    shardtab.init(comm)
    wrong = []

    shard = shardtab.empty(2 + n, dtype="float64")
    with shardtab.Table(comm, shard, label=NAME) as table:  # collective
        write(shard, numpy.concatenate([GUARD, values(comm.rank, n)]))
        comm.Barrier()  # every shard written before any rank reads one

        # the next node rank's shard, through the table
        nxt = table.member((table.node_rank + 1) % table.node_size)
        seen = read(table.peer(nxt))[2:]
        if not numpy.array_equal(seen, values(nxt, n)):
            wrong.append(f"rank {nxt}'s shard, read through the table, differs")
        comm.Barrier()  # every rank has read before the shards change

        # the sum over the ranks, in place: offset and count in ELEMENTS
        table.all_reduce("sum", offset=2, count=n)
        table.check()  # GPUs: did the node refuse the call? (host: raised already)
        check_sum(read(shard), n, comm, wrong)
        backend = shardtab.device()["backend"]
    shardtab.finalize()

    return verdict(
        NAME,
        comm,
        wrong,
        f"{comm.size} ranks, backend {backend}, {n} doubles a rank, the next node rank's read, "
        "the sum from element 2",
    )


if __name__ == "__main__":
    leave(main())
