"""check_torch_collectives.py - the Python front's stream-ordered collectives on
torch tensors, on GPUs: Table.all_reduce (sum, min, max),
.broadcast from every root and .all_gather over float32, float64 and int64
tensors of PyTorch's caching allocator, on the default stream and on a
torch.cuda.Stream, both algorithms; every element compared bit for bit with a
reduction in node-rank order computed on the CPU by torch from the same
inputs.

USAGE  mpirun -np N python3 check_torch_collectives.py [--allow-shared-device]
Uses mpi4py when present; otherwise (the NVIDIA machine has none) it starts
Open MPI through ctypes and hands the package MPI_COMM_WORLD's Fortran handle.
Prints ok lines and "# verify torch collectives: OK" on rank 0.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import os
import sys

import torch

from gpu_world import world  # tests/gpu/gpu_world.py

comm, rank, size = world()
import shardtab  # noqa: E402  (after MPI is up)

shardtab.init(comm, allow_shared_device="--allow-shared-device" in sys.argv)
torch.cuda.set_device(shardtab.device()["device"])
lines = []
N = 40000  # elements a shard (one-shot under the cut-over; two-shot forced too)


def check(ok, what):
    """Every rank's verdict, agreed: raises on every rank if any failed."""
    shardtab.agree(comm, None if ok else f"rank {rank}: {what}")
    lines.append(f"ok:   {what}")


def inputs(r, dtype, call):
    """Node rank r's values for call `call` (on the CPU): both signs, fractions."""
    g = torch.Generator().manual_seed(1000003 * call + 7919 * r + 17)
    if dtype == torch.int64:
        return torch.randint(-(2**62), 2**62, (N,), generator=g, dtype=torch.int64)
    return (
        (torch.rand(N, generator=g, dtype=torch.float64) - 0.5) * 2.0 ** (r % 5 + 3)
    ).to(dtype)


def reduce_in_order(op, parts):
    acc = parts[0].clone()
    for p in parts[1:]:
        acc = (
            acc + p
            if op == "sum"
            else torch.minimum(acc, p)
            if op == "min"
            else torch.maximum(acc, p)
        )
    return acc


def same_bits(a, b):
    if a.dtype == torch.float32:
        return torch.equal(a.view(torch.int32), b.view(torch.int32))
    if a.dtype == torch.float64:
        return torch.equal(a.view(torch.int64), b.view(torch.int64))
    return torch.equal(a, b)


call = 0
side = torch.cuda.Stream()
for dtype in (torch.float32, torch.float64, torch.int64):
    shard = torch.empty(N, dtype=dtype, device="cuda")
    with shardtab.Table(comm, shard) as t:
        ranks = list(range(size))  # one node: node ranks are the ranks
        for algo in ("one-shot", "two-shot"):
            os.environ["SHARDTAB_ALL_REDUCE_ALGO"] = algo
            for op in ("sum", "min", "max"):
                for stream in (None, side):
                    call += 1
                    shard.copy_(inputs(rank, dtype, call).cuda())
                    torch.cuda.synchronize()
                    if stream is None:
                        t.all_reduce(op)
                    else:
                        with torch.cuda.stream(side):
                            t.all_reduce(op, stream=side)
                    t.check()
                    torch.cuda.synchronize()
                    want = reduce_in_order(op, [inputs(r, dtype, call) for r in ranks])
                    check(
                        same_bits(shard.cpu(), want),
                        f"all_reduce {op} of {N} {dtype}, {algo}, "
                        f"{'default stream' if stream is None else 'a torch stream'}: bit for bit",
                    )
        del os.environ["SHARDTAB_ALL_REDUCE_ALGO"]
        for root in range(size):
            call += 1
            shard.copy_(inputs(rank, dtype, call).cuda())
            torch.cuda.synchronize()
            t.broadcast(root, offset=3, count=N - 5)
            t.check()
            torch.cuda.synchronize()
            got, mine = shard.cpu(), inputs(rank, dtype, call)
            want = torch.cat(
                [mine[:3], inputs(root, dtype, call)[3 : N - 2], mine[N - 2 :]]
            )
            check(
                same_bits(got, want),
                f"broadcast of {N - 5} {dtype} from rank {root}, "
                "the elements around the region untouched",
            )
        call += 1
        per = N // size
        shard.copy_(inputs(rank, dtype, call).cuda())
        torch.cuda.synchronize()
        t.all_gather(count=per)
        t.check()
        torch.cuda.synchronize()
        got = shard.cpu()
        want = inputs(rank, dtype, call).clone()
        for r in range(size):
            want[r * per : (r + 1) * per] = inputs(r, dtype, call)[
                r * per : (r + 1) * per
            ]
        check(same_bits(got, want), f"all_gather of {per} {dtype} a rank")

if rank == 0:
    print("\n".join(lines))
    print(f"# verify torch collectives: OK ({len(lines)} checks, {size} ranks)")
shardtab.finalize()
