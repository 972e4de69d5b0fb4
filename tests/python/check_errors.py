"""check_errors.py - the Python front's failures, on every rank at once: a
strided view handed by one rank, memory the table cannot share, an object that
is no array, and the library's own refusal (a shard off the asked alignment)
each raise shardtab.Error on every rank, with one message, the same everywhere,
naming the cause; afterwards a good table still works. Rank 0 prints
"# errors python: OK".

USAGE  mpiexec -n N python3 check_errors.py
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import sys

import numpy
from mpi4py import MPI

import shardtab
from rank_verdict import verdict

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
shardtab.init(comm)
mine = shardtab.empty(64, dtype="float64")
last = size - 1
problems = []


def expect_error(what, make, fragment, status_name="invalid argument"):
    """make() must raise shardtab.Error on every rank, with one message."""
    try:
        table = make()
    except shardtab.Error as error:
        got = (error.status_name, error.message)
    else:
        if table is not None:
            table.destroy()
        got = ("no error", "")
    everyone = comm.allgather(got)
    if any(g != everyone[0] for g in everyone):
        problems.append(f"{what}: the ranks disagree: {everyone}")
    elif got[0] != status_name or fragment not in got[1]:
        problems.append(f"{what}: got {got}, want {status_name!r} with {fragment!r}")
    elif rank == 0:
        print(f"ok:   {what}: '{got[1]}'")


host = isinstance(mine, numpy.ndarray)

# an allocation past what a size holds: refused by name (its bytes were taken
# modulo 2**64, 0 here, and NumPy said "array is too big"); local, every rank
try:
    shardtab.empty(2**62, dtype="float64")
except shardtab.Error as error:
    want = "4611686018427387904 float64 elements are 36893488147419103232 bytes"
    if want not in error.message or error.status_name != "invalid argument":
        problems.append(f"empty(2**62): got {error.status_name!r}: {error.message!r}")
    elif rank == 0:
        print(f"ok:   empty(2**62) refused: '{error.message}'")
except Exception as error:  # noqa: BLE001 - any other is the defect
    problems.append(f"empty(2**62) raised {type(error).__name__}: {error}")
else:
    problems.append("empty(2**62) made an array")
if host:
    expect_error(
        "one rank hands a strided view",
        lambda: shardtab.Table(comm, mine[::2] if rank == last else mine),
        f"rank {last}",
    )
    expect_error(
        "  ... and the message says why",
        lambda: shardtab.Table(comm, mine[::2] if rank == last else mine),
        "not one contiguous range of bytes",
    )
    expect_error(
        "memory from NumPy, not shardtab.empty",
        lambda: shardtab.Table(comm, numpy.zeros(16) if rank == 0 else mine),
        "not inside an allocation of shardtab_mem_alloc",
    )
expect_error(
    "an object that is no array",
    lambda: shardtab.Table(comm, [1.0, 2.0] if rank == last else mine),
    "a list is not an array",
)
expect_error(
    "a shard off the 16-byte alignment asked",
    lambda: shardtab.Table(
        comm, mine[1:] if (host and rank == last) else mine, alignment=16
    )
    if host
    else shardtab.Table(comm, mine, alignment=3),
    "is not aligned to 16 bytes" if host else "not a power of two",
)

expect_error(
    "a verification failed on one rank (shardtab.agree)",
    lambda: shardtab.agree(
        comm, f"rank {rank} counted 3 wrong elements" if rank == last else None
    ),
    f"rank {last} counted 3 wrong elements",
    "verification failed",
)


class Hostile:
    """An array whose interface raises what is not an AttributeError (a torch
    tensor that requires grad does that for __cuda_array_interface__)."""

    @property
    def __array_interface__(self):
        raise RuntimeError("Can't export a tensor that requires grad")


expect_error(
    "an array whose interface raises, on one rank",
    lambda: shardtab.Table(comm, Hostile() if rank == last else mine),
    "RuntimeError: Can't export a tensor that requires grad",
)

# a table holding the last reference to its memory: destroyed, then freed
before = open("/proc/self/maps").read().count("\n") if host else 0
for k in range(20):
    with shardtab.Table(comm, shardtab.empty(1000, dtype="float64")):
        pass
after = open("/proc/self/maps").read().count("\n") if host else 0
if host and after > before:
    problems.append(
        f"20 tables over memory only they held left {after - before} mappings"
    )
elif rank == 0:
    print(
        f"ok:   20 tables holding the last reference to their memory freed it ({before} "
        f"mappings before, {after} after)"
        if host
        else "ok:   20 tables over their own memory"
    )

# the failures left nothing behind: a good table works and closes everything
with shardtab.Table(comm, mine) as t:
    if t.peer(rank) is None or len(t.peer(rank)) != 64:
        problems.append("the good table after the failures has no view of this rank")
if shardtab.peer_mappings() != 0:
    problems.append(f"{shardtab.peer_mappings()} peer mappings left")

status = verdict(comm, problems, "# errors python: OK")
del mine
shardtab.finalize()
sys.exit(status)
