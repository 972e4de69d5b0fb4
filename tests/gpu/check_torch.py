"""check_torch.py - the Python front with PyTorch, on GPUs: tables
over torch tensors from PyTorch's default caching allocator, two of them lying
in one allocator segment (the second table opens nothing), every node peer's
shard read through torch.as_tensor(t.peer(r)) and compared element by element;
the create times beside SymmetricMemory's rendezvous, in the same run.

USAGE  mpirun -np N python3 check_torch.py [--allow-shared-device]
Uses mpi4py when present; otherwise (the NVIDIA machine has none) it starts
Open MPI through ctypes and hands the library MPI_COMM_WORLD's Fortran handle,
which the package takes as an int. Prints ok/FAIL lines and
"# verify torch: OK" on rank 0.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import os
import statistics
import sys
import time

import torch

from gpu_world import world  # tests/gpu/gpu_world.py

comm, rank, size = world()
import shardtab  # noqa: E402  (after MPI is up)

shardtab.init(comm, allow_shared_device="--allow-shared-device" in sys.argv)
info = shardtab.device()
torch.cuda.set_device(info["device"])
lines = []


def check(ok, what):
    """Every rank's verdict, agreed: raises on every rank if any failed."""
    shardtab.agree(comm, None if ok else f"rank {rank}: {what}")
    lines.append(f"ok:   {what}")


def values(r, first, count):
    i = torch.arange(first, first + count, dtype=torch.float64, device="cuda")
    return r * 1048576.0 + i * 0.25 + 3.0


def segment_of(ptr):
    for seg in torch.cuda.memory_snapshot():
        if seg["address"] <= ptr < seg["address"] + seg["total_size"]:
            return seg["address"], seg["total_size"]
    return None


# ---- two tensors from one caching-allocator segment
n1, n2 = 20000 + 7 * rank, 30000 + 11 * rank  # uneven, < 1 MiB each: the small pool
a = values(rank, 0, n1)
b = values(rank, n1, n2)
torch.cuda.synchronize()
same = segment_of(a.data_ptr()) is not None and segment_of(a.data_ptr()) == segment_of(
    b.data_ptr()
)
check(
    same,
    "two float64 tensors of the caching allocator lie in one segment "
    f"({segment_of(a.data_ptr())})",
)

t1 = shardtab.Table(comm, a)
t2 = shardtab.Table(comm, b)
check(
    t2.peers_opened == 0 and t2.peers_reused == 2 * (t2.node_size - 1),
    f"the second table opened nothing (opened {t2.peers_opened}, found {t2.peers_reused} open)",
)
bad = []
for t, first, count in (
    (t1, 0, lambda r: 20000 + 7 * r),
    (t2, None, lambda r: 30000 + 11 * r),
):
    for r in range(size):
        view = t.peer(r)
        if t.node_rank_of(r) < 0:
            if view is not None:
                bad.append(f"a view of off-node rank {r}")
            continue
        got = torch.as_tensor(view, device="cuda")
        start = 0 if first == 0 else 20000 + 7 * r
        want = values(r, start, count(r)).to(got.device)
        if got.dtype != torch.float64 or got.shape != want.shape:
            bad.append(
                f"rank {r}: {got.dtype} {tuple(got.shape)}, want {tuple(want.shape)}"
            )
        elif not torch.equal(got, want):
            k = int(torch.nonzero(got != want)[0])
            bad.append(
                f"rank {r} element {k}: {got[k].item()!r}, want {want[k].item()!r}"
            )
check(
    not bad,
    "every node peer's shard read through torch.as_tensor(t.peer(r)) equals what that "
    "peer wrote, element by element, in both tables" + (f": {bad[:3]}" if bad else ""),
)
first_ms, cached_ms = t1.create_ms, t2.create_ms
t2.destroy()
t1.destroy()
check(shardtab.peer_mappings() == 0, "no peer mapping left after both")

# ---- create times: the first table over fresh memory, a table over open memory
fresh, cached = [], []
for k in range(5):
    c = values(rank, 0, 1 << 16)
    base = shardtab.Table(comm, c)  # opens c's peers (fresh memory each time)
    fresh.append(base.create_ms)
    again = shardtab.Table(comm, c[: 1 << 15])
    cached.append(again.create_ms)
    again.destroy()
    base.destroy()
    del c
lines.append(
    f"# create ms (median of 5, this rank): first table {statistics.median(fresh):.3f}, "
    f"a table over open memory {statistics.median(cached):.3f}"
)

# ---- SymmetricMemory's rendezvous, same job
try:
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group(
        "nccl",
        rank=rank,
        world_size=size,
        device_id=torch.device("cuda", info["device"]),
    )
    times = []
    for k in range(5):
        buf = symm_mem.empty(1 << 16, dtype=torch.float64, device="cuda")
        dist.barrier()
        start = time.perf_counter()
        symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        times.append((time.perf_counter() - start) * 1e3)
        del buf
    lines.append(
        f"# SymmetricMemory rendezvous ms (median of 5, this rank): "
        f"{statistics.median(times):.3f}"
    )
except Exception as error:  # report, do not fail: it is the comparison, not the check
    lines.append(
        f"# SymmetricMemory rendezvous: not measured here: {type(error).__name__}: "
        f"{str(error).splitlines()[0] if str(error) else ''}"
    )
finally:
    if "dist" in globals() and dist.is_initialized():
        dist.destroy_process_group()

if rank == 0:
    print(
        f"# torch {torch.__version__}, backend {info['backend']}, {size} ranks, device "
        f"{info['device']} {info['name']} (shared {info['shared']})"
    )
for line in lines:
    if rank == 0 or line.startswith("# create") or line.startswith("# Symm"):
        print(("" if rank == 0 else f"[rank {rank}] ") + line, flush=True)
if rank == 0:
    print("# verify torch: OK")
shardtab.finalize()
