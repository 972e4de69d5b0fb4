"""example.py - what the Python examples share (numpy_table.py, numpy_halo.py, gpu_table.py),
as example.h does for the C ones: the doubles each rank sums, the check of the
sum, and one verdict for every rank.

Exit statuses, the same in every example: 0 verified, 1 a result differs,
2 bad command-line input (gpu_table.py: 77 where it cannot run). Imported from
the example's own folder (python puts it first on sys.path, and so does
python3 -m mpi4py).
"""

# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

import sys

import numpy
from mpi4py import MPI

GUARD = [7.5, -2.25]  # elements 0 and 1, which the sum leaves alone


def values(rank, n):
    """rank r's doubles: different on every rank and element, exact, and so are their sums"""
    return 1000.0 * rank + 0.25 * numpy.arange(n) + 0.5


def check_sum(got, n, comm, wrong):
    """got: a shard after the sum of n doubles from element 2 (GUARD before
    them); what differs goes to the list wrong."""
    want = sum(values(r, n) for r in range(comm.size))
    if not numpy.array_equal(got[:2], GUARD):
        wrong.append(f"elements 0 and 1 are {got[:2]}, the sum must leave them alone")
    bad = numpy.flatnonzero(got[2:] != want)
    if bad.size:
        i = bad[0]
        wrong.append(
            f"{bad.size} sums differ, first element {i}: {got[2 + i]!r}, want {want[i]!r}"
        )


def verdict(name, comm, wrong, what):
    """Each rank's first problem on stderr; rank 0 says "NAME: OK (what)" or
    how many checks failed. The exit status, the same on every rank."""
    for line in wrong[:1]:
        print(f"{name}: rank {comm.rank}: {line}", file=sys.stderr)
    failed = comm.allreduce(len(wrong))
    if comm.rank == 0 and failed == 0:
        print(f"{name}: OK ({what})")
    elif comm.rank == 0:
        print(f"{name}: FAILED: {failed} checks (each rank's first on stderr)")
    return 0 if failed == 0 else 1


def leave(status):
    """Every rank has the same status: leave together, not by the MPI_Abort with
    which `python3 -m mpi4py` ends a job whose rank exits non-zero."""
    MPI.Finalize()
    sys.exit(status)
