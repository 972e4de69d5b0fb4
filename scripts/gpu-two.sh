#!/usr/bin/env bash
# gpu-two.sh - the collectives beside NCCL and PyTorch in one call, on the machine's GPUs (one rank
# per GPU, N = nvidia-smi -L | wc -l): builds this tree's CUDA backend
# (coll_bench and comm_check alone), then in the same job
#   - coll_bench at N ranks, 8 B to --bench-max (default 1 GiB): first its
#     device side (the device-side all-reduce and the put-with-signal
#     ping-pong, 8 B to 64 KiB, timed in the kernel), then ours (auto,
#     one-block, one-shot, two-shot, graph) beside MPI_Allreduce (mpi(us)) and
#     the copy engine, every result verified;
#   - tests/gpu/bench_torch_allreduce.py at N ranks, the same sizes and method:
#     NCCL's all_reduce (torch.distributed, the nvidia-nccl wheel torch loads)
#     and torch SymmetricMemory's one-shot and two-shot, every result verified;
#   - the device-side 8-byte all-reduce, comm_check --bench 10000, at N ranks;
#   - with --with-jacobi, then scripts/gpu-jacobi.sh --runs 3 OUTDIR/jacobi, every
#     launch mode (section 2: carry .anchors for NVIDIA's variants and the CPU-free
#     model).
# With one GPU everything runs at 1 rank (the log says so): the script's own
# test; the figures for the issue need nvidia-h200-x2. NVLink multicast stays
# off (gpu-common.sh: NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
# NVSHMEM_DISABLE_NVLS=1, passed to every rank).
#
# Usage: scripts/gpu-two.sh [--bench-max BYTES] [--with-jacobi] [outdir]
# Writes into outdir (default ./two-out): two.log (every step and its output),
# coll-bench.txt and torch-bench.txt (the two tables), summary.txt (time per
# size side by side, busbw, the device-side figure); jacobi/ with --with-jacobi.
# Exit 0 when every step passed.
# shellcheck disable=SC2154  # out, log and failures come from gpu-common.sh
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091,SC2154
source "$(dirname "$0")/gpu-common.sh"

bench_max=$((1 << 30))
jacobi=0
while [[ $# -gt 0 ]]; do
  case $1 in
  --bench-max) bench_max=$2; shift 2 ;;
  --with-jacobi) jacobi=1; shift ;;
  *) break ;;
  esac
done
gpu_start "${1:-$top/two-out}" two.log
say "# gpu-two $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
n=$(nvidia-smi -L 2>/dev/null | wc -l)
if ((n < 1)); then say "# no GPU visible (nvidia-smi -L)"; exit 1; fi
if ((n == 1)); then
  say "# one GPU visible: everything runs at 1 rank (a test of this script; the two-GPU figures need nvidia-h200-x2)"
else
  say "# $n GPUs visible: every run at $n ranks, one per GPU"
fi
{
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvidia-smi topo -m
  nvcc --version | tail -2
  mpirun --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  env | grep -E '^(NCCL_NVLS_ENABLE|TORCH_SYMM_MEM_DISABLE_MULTICAST|NVSHMEM_DISABLE_NVLS)='
} >>"$log" 2>&1

# ---- build: the two programs only ------------------------------------------------------
build=$top/build-gpu-two
if ! cmake -S "$top" -B "$build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON >>"$log" 2>&1 ||
  ! cmake --build "$build" -j 16 --target coll_bench comm_check >>"$log" 2>&1; then
  say "# build failed"
  tail -30 "$log"
  exit 1
fi
say "# built"

# every rank gets the multicast switches and torch's rendezvous address, whatever mpirun forwards
envs=(-x NCCL_NVLS_ENABLE -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NVSHMEM_DISABLE_NVLS
  -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=$((29500 + $$ % 2000)))

# ---- the stream-ordered all-reduce: ours, MPI_Allreduce, NCCL, SymmetricMemory ----------
step "coll_bench np$n, 8 B to $bench_max B (ours, MPI_Allreduce, the copy engine)" \
  expect_line "^# coll_bench: every result verified" run -np "$n" "${envs[@]}" "$build/coll_bench" --max "$bench_max"
sed -En '/^# coll_bench: [0-9]+ ranks/,/^# coll_bench: (every|WRONG)/p' "$log" >"$out/coll-bench.txt"
step "torch np$n, 8 B to $bench_max B (NCCL, SymmetricMemory one-shot and two-shot)" \
  expect_line "^# bench_torch_allreduce: every result verified" run -np "$n" "${envs[@]}" \
  python3 "$top/tests/gpu/bench_torch_allreduce.py" --max "$bench_max"
sed -En '/^# bench_torch_allreduce: [0-9]+ ranks/,/^# bench_torch_allreduce: (every|WRONG|nothing)/p' "$log" >"$out/torch-bench.txt"

# ---- the device-side 8-byte all-reduce inside a kernel -----------------------------------
step "device-side 8-byte all-reduce, np$n, 10^4 calls back to back" \
  expect_line "^# comm_check: OK" run -np "$n" "${envs[@]}" "$build/tests/shardtab/comm/comm_check" --bench 10000

# ---- side by side: time(us) per size, every path ----------------------------------------
python3 - "$out/coll-bench.txt" "$out/torch-bench.txt" "$n" >"$out/summary.txt" 2>&1 <<'EOF'
import sys
rows, cols = {}, []
for path in sys.argv[1:3]:
    for line in open(path):
        f = line.split()
        if len(f) < 6 or not f[0].isdigit() or not f[1].isdigit():
            continue  # comments, warnings, not-run lines
        size, algo = int(f[0]), f[4]
        name = {"auto": "ours", "one-shot": "ours-1", "two-shot": "ours-2", "graph": "ours-graph"}.get(
            algo, algo.replace("-one-shot", "-1").replace("-two-shot", "-2"))
        rows.setdefault(size, {})[name] = float(f[5])
        if name not in cols:
            cols.append(name)
        if algo in ("auto", "nccl") and f[7] != "-":
            rows[size][name + " busbw"] = float(f[7])
        if algo == "auto" and len(f) > 9:
            rows[size]["mpi"] = float(f[9])
symm = [c for c in cols if c.startswith("symm-") and not c.endswith("-graph")]
cols += ["symm best", "mpi", "ours busbw", "nccl busbw"]
print(f"# time(us) per call at {sys.argv[3]} ranks (median of repeats, the slowest rank); busbw GB/s;")
print("# ours = shardtab_all_reduce (auto; -1/-2: one-shot/two-shot forced), nccl = torch.distributed's,")
print("# symm-1/-2 = SymmetricMemory's one-shot/two-shot, symm best = the better of the two; -graph: from a graph")
print(" ".join(f"{c:>13s}" for c in ["size"] + cols))
for size in sorted(rows):
    r = rows[size]
    if symm and all(c in r for c in symm):
        r["symm best"] = min(r[c] for c in symm)
    print(" ".join([f"{size:13d}"] + [f"{r[c]:13.2f}" if r.get(c) is not None else f"{'-':>13s}" for c in cols]))
EOF
grep "comm_check bench" "$log" | sort -u >>"$out/summary.txt"
cat "$out/summary.txt" >>"$log"

# ---- section 2: jacobi on the GPUs, its own script and logs -----------------------------
if ((jacobi)); then
  step "jacobi: scripts/gpu-jacobi.sh --runs 3 (every mode, the anchors, 1 and $n GPUs)" \
    bash "$top/scripts/gpu-jacobi.sh" --runs 3 --launches "persistent onchip temporal auto graph stream" "$out/jacobi"
fi
say "# gpu-two: $failures failed steps"
exit $((failures > 0))
