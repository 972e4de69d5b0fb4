"""gpu_table.py - the table from Python on GPUs, with CuPy (or PyTorch): each
rank fills its shard on its GPU, computes on the GPU from the next node rank's
shard read through the table, then the ranks sum their shards with a
collective on the array library's stream; every element is checked exactly.

USAGE  mpiexec -n N python3 -m mpi4py gpu_table.py [--n ELEMENTS] [--allow-shared-gpu]
  --n                 doubles each rank sums (default 1000)
  --allow-shared-gpu  let ranks share a GPU (more ranks than GPUs)
Prints "gpu_table: OK ..." from rank 0 and exits 0; exits 1 when an element
differs, 2 on bad usage. Where it cannot run (the library's backend is the
host's: no GPU; neither CuPy nor PyTorch importable) it prints
"gpu_table: skipped: <why>" and exits 77.

Python's collectives take offset and count in ELEMENTS of the table's dtype
(C and Fortran: the offset in bytes): offset=2 is byte 16 here.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

import sys

import numpy
from mpi4py import MPI

import shardtab
from example import GUARD, check_sum, leave, values, verdict

NAME = "gpu_table"


def options(argv, comm):
    """(n, allow_shared_gpu); bad input: None, after one line from rank 0."""
    n, shared = 1000, False
    words = list(argv)
    while words:
        word = words.pop(0)
        if word == "--allow-shared-gpu":
            shared = True
        elif word == "--n" and words and words[0].isdigit() and int(words[0]) >= 1:
            n = int(words.pop(0))
        else:
            if comm.rank == 0:
                print(
                    f"{NAME}: '{word}': expected --n N (N >= 1) or --allow-shared-gpu",
                    file=sys.stderr,
                )
            return None
    return n, shared


def skip(comm, why):
    """The exit status of a run that cannot happen here, after one line from rank 0."""
    shardtab.finalize()
    if comm.rank == 0:
        print(f"{NAME}: skipped: {why}")
    return 77


def gpu_library():
    """The array library's few calls this example makes: CuPy, else PyTorch; None
    without either. Both take a DeviceArray through __cuda_array_interface__."""
    try:
        import cupy

        return {
            "name": "CuPy",
            "wrap": cupy.asarray,  # no copy: the same GPU memory
            "arange": lambda n: cupy.arange(n, dtype=cupy.float64),
            "numpy": cupy.asnumpy,
            "stream": cupy.cuda.get_current_stream,
        }
    except ImportError:
        pass
    try:
        import torch

        return {
            "name": "PyTorch",
            "wrap": lambda a: torch.as_tensor(a, device="cuda"),
            "arange": lambda n: torch.arange(n, dtype=torch.float64, device="cuda"),
            "numpy": lambda x: x.cpu().numpy(),
            "stream": torch.cuda.current_stream,
        }
    except ImportError:
        return None


def main():
    comm = MPI.COMM_WORLD
    asked = options(sys.argv[1:], comm)
    if asked is None:
        return 2
    n, shared = asked
    shardtab.init(comm, allow_shared_device=shared)
    backend = shardtab.device()["backend"]
    if backend == "host":
        return skip(
            comm,
            "the library's backend is host: no GPU here (numpy_table.py runs there)",
        )
    gpu = gpu_library()
    if comm.allreduce(gpu is None, op=MPI.LOR):
        return skip(comm, "neither CuPy nor PyTorch can be imported")
    wrong = []

    shard = shardtab.empty(2 + n, dtype="float64")  # a DeviceArray
    with shardtab.Table(comm, shard, label=NAME) as table:  # collective
        mine = gpu["wrap"](shard)  # this rank's shard as a CuPy array or tensor
        mine[0], mine[1] = GUARD  # left alone by the sum
        mine[2:] = 1000.0 * comm.rank + 0.25 * gpu["arange"](n) + 0.5
        stream = gpu["stream"]()
        stream.synchronize()
        comm.Barrier()  # every shard written before any rank reads one

        # the GPU reads the next node rank's shard through the table
        nxt = table.member((table.node_rank + 1) % table.node_size)
        doubled = gpu["numpy"](2.0 * gpu["wrap"](table.peer(nxt))[2:])
        if not numpy.array_equal(doubled, 2.0 * values(nxt, n)):
            wrong.append(f"rank {nxt}'s shard, read through the table, differs")
        stream.synchronize()
        comm.Barrier()  # every rank has read before the shards change

        # the sum over the ranks, in place, on the array library's stream:
        # offset and count in ELEMENTS
        table.all_reduce("sum", offset=2, count=n, stream=stream)
        table.check()  # waits for it; raises on every rank if the node refused it
        check_sum(gpu["numpy"](mine), n, comm, wrong)
        del mine
    shardtab.finalize()

    return verdict(
        NAME,
        comm,
        wrong,
        f"{comm.size} ranks, backend {backend}, {gpu['name']}, {n} doubles a rank, the next node "
        "rank's shard read on the GPU, the sum from element 2",
    )


if __name__ == "__main__":
    leave(main())
