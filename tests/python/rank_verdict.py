"""rank_verdict.py - what the Python checks under mpiexec share (check_views.py,
check_errors.py, check_hostile.py, check_collectives.py, check_wheel.py,
check_hook_refused.py): a view's host copy, a store into a shard on any
backend, the 'ok:' notes, and the one verdict that every rank's problems make,
printed by rank 0.

Imported from the script's own folder (python puts it first on sys.path, and
so does python -m mpi4py).
"""

# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import numpy


notes = []  # this rank's 'ok:' lines (say), printed by rank 0 with the verdict


def say(text):
    """An 'ok:' line, printed by rank 0 at the end."""
    notes.append(text)


def as_host(view):
    """The view's elements in host memory (a host view itself on the host backend)."""
    return view if isinstance(view, numpy.ndarray) else view.to_host()


def store(array, host_values):
    """host_values into the shard array, on any backend."""
    if isinstance(array, numpy.ndarray):
        array[:] = host_values
    else:
        array.from_host(host_values)


def verdict(comm, problems, ok_line, before=(), after=(), most=None):
    """Every rank's problems gathered; rank 0 prints the lines `before`, its
    notes ('ok:   text'), a 'FAIL: rank R: why' line for each problem (the
    first `most` of a rank's),
    the lines `after`, and ok_line when no rank had one. Returns the exit
    status, the same on every rank: 1 when any rank had a problem, else 0."""
    everyone = comm.allgather(problems)
    if comm.Get_rank() == 0:
        for line in before:
            print(line)
        for text in notes:
            print(f"ok:   {text}")
        for r, theirs in enumerate(everyone):
            for why in theirs[:most]:
                print(f"FAIL: rank {r}: {why}")
        for line in after:
            print(line)
        if not any(everyone):
            print(ok_line)
    return 1 if any(everyone) else 0
