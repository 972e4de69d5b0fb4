#!/usr/bin/env bash
# gpu-tune.sh - the kernel tuning runs behind docs/performance.md: every
# persistent kernel variant at several grid sizes (resident blocks per SM) on
# two sizes, then the full device sweep (1 MiB .. 4 GiB per shard) of every
# variant, all in one go, so that the default is chosen by measurement.
# Writes JSON and a log to outdir.
# Usage: scripts/gpu-tune.sh [outdir]
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-$top/tune-out}" tune.log
build=$top/build-gpu-tune
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
} >>"$log"
gpu_build_cuda "$build"
ms=$build/multi_scal
# the grid knob sizes the persistent kernels only: chunk has one block per
# chunk, and its shapes are measured by scripts/gpu-kernel-figure.sh
persistent=(naive vec2 vec2x4 vec2x8 vec2x4s)
variants=("${persistent[@]}" chunk)
bench() { run -np 2 "$@" >>"$log" 2>&1; }

for variant in "${persistent[@]}"; do
  for bps in 4 8 16 32; do
    echo "## grid: variant $variant blocks/SM $bps" >>"$log"
    bench -x SCAL_BLOCKS_PER_SM=$bps "$ms" --bench --bench-device-only --bench-min 256M --bench-max 1G \
      --variant "$variant" --json "$out/grid-$variant-$bps.json"
  done
done
for variant in "${variants[@]}"; do
  echo "## sweep: variant $variant" >>"$log"
  bench "$ms" --bench --bench-device-only --variant "$variant" --json "$out/sweep-$variant.json"
done
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def rows(path):
    return {(b["shard_bytes"], b["operation"]): b for b in json.load(open(path))["bench"]}
print("# grid (1 GiB per shard): variant, blocks/SM, local/d2d, remote link ratio, ring link ratio")
for path in sorted(glob.glob(os.path.join(out, "grid-*.json"))):
    r = rows(path); k = 1 << 30
    name = os.path.basename(path)[5:-5]
    print("%-14s %6.3f %6.3f %6.3f" % (name, r[(k, "local")]["ratio"], r[(k, "remote")]["ratio"], r[(k, "ring")]["ratio"]))
PY
