#!/usr/bin/env bash
# gpu-kernel-figure.sh - on the NVIDIA machine: the `local` kernel against
# PyTorch's in-place mul_ on the same GPUs, in one job. Three rounds; each
# round runs torch on each GPU, then multi_scal's bench sweep (1 MiB to 4 GiB
# per shard) for every candidate kernel (the persistent vec2x4 and the
# non-persistent chunk kernel at several shapes), so that drift of the machine
# falls on all of them alike. Then checks the chunk kernel's results bit for
# bit at awkward sizes and under compute-sanitizer. Prints, per size, the
# medians over rounds and their ratios to torch and to the copy engine.
# Usage: scripts/gpu-kernel-figure.sh [outdir]
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-$top/kernel-figure-out}" kernel-figure.log
build=$top/build-gpu-figure
say "# gpu-kernel-figure $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm,clocks.max.mem --format=csv >>"$log" 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' >>"$log" 2>&1
gpu_build_cuda "$build"
ms=$build/multi_scal

# candidates: "label variant shape" (shape: SCAL_CHUNK_SHAPE, - for none)
candidates=("vec2x4 vec2x4 -" "chunk-256x1 chunk 256x1" "chunk-128x1 chunk 128x1"
  "chunk-128x2 chunk 128x2" "chunk-64x2 chunk 64x2" "chunk-64x4 chunk 64x4")
sizes=1M,4M,16M,64M,256M,1G,4G
for round in 1 2 3; do
  step "round $round: torch mul_ on each GPU" \
    python3 "$top/scripts/gpu-torch-baseline.py" --bytes "$sizes" --device 0,1
  for c in "${candidates[@]}"; do
    read -r label variant shape <<<"$c"
    step "round $round: $label bench" run -np 2 -x SCAL_CHUNK_SHAPE="${shape/-/}" "$ms" --bench \
      --bench-device-only --bench-min 1M --bench-max 4G --variant "$variant" \
      --json "$out/r$round-$label.json"
  done
done

# the chunk kernel computes what the others do, bit for bit, at every shape
for shape in 256x1 128x2 64x2; do
  for n in 1 2 3 1000003 100000007; do
    step "chunk $shape --n $n -i 3 verifies" run -np 2 -x SCAL_CHUNK_SHAPE=$shape "$ms" --variant chunk --n $n -i 3 -a 0.5
  done
done
step "chunk np4 shared GPUs, uneven, every mode" run -np 4 "$ms" --allow-shared-gpu --variant chunk --n 268435457
step "chunk compute-sanitizer memcheck np2" run -np 2 compute-sanitizer --tool memcheck --error-exitcode 9 \
  "$ms" --variant chunk --n 100003
step "chunk compute-sanitizer racecheck np2" run -np 2 compute-sanitizer --tool racecheck --error-exitcode 9 \
  "$ms" --variant chunk --n 100003 -m local

python3 - "$out" "$log" <<'PY' | tee -a "$log"
import glob, json, os, re, statistics, sys
out, log = sys.argv[1], sys.argv[2]
torch = {}
for m in re.finditer(r"# torch mul_: (\d+) bytes, ([\d.]+) GB/s .* on GPU (\d+)", open(log).read()):
    torch.setdefault(int(m.group(1)), []).append(float(m.group(2)))
ours = {}
for path in glob.glob(os.path.join(out, "r*-*.json")):
    label = os.path.basename(path)[:-5].split("-", 1)[1]
    for b in json.load(open(path))["bench"]:
        ours.setdefault((label, b["operation"], b["shard_bytes"]), []).append(b["gbps_median"])
print("# GB/s per GPU, median over rounds (each round: median of the bench's repeats)")
for size in sorted(torch):
    t = statistics.median(torch[size])
    print(f"## {size >> 20} MiB per shard: torch mul_ {t:.1f} (median of rounds x GPUs {sorted(torch[size])})")
    for label in sorted({k[0] for k in ours}):
        row = {op: statistics.median(ours[(label, op, size)]) for op in ("local", "copy-d2d", "remote", "ring")
               if (label, op, size) in ours}
        if "local" in row:
            print(f"{label:12s} local {row['local']:7.1f}  local/torch {row['local'] / t:.3f}  "
                  f"local/d2d {row['local'] / row.get('copy-d2d', float('nan')):.3f}  "
                  f"remote {row.get('remote', 0):6.1f}  ring {row.get('ring', 0):6.1f}  "
                  f"rounds {sorted(ours[(label, 'local', size)])}")
PY
say "# gpu-kernel-figure: $failures failure(s)"
exit "$((failures > 0))"
