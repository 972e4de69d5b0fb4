#!/usr/bin/env bash
# gpu-spmv.sh - on the NVIDIA machine, in one call: the sparse product over
# the table (kernels/sparse/spmv.h). Starts CUDA MPS (ranks sharing the GPU
# run at once), builds spmv_check for CUDA, checks every element bit for bit
# against the CPU's at 1, 2, 3 and 4 ranks (2D and 3D Poisson) with the
# planted bug caught, then times the product beside a device copy of the
# bytes it must move, at 1 and 2 ranks, on the cg program's sizes.
#
# Usage: scripts/gpu-spmv.sh [outdir]
# Writes into outdir: spmv.log (every step), bench.txt (the bench lines).
# shellcheck disable=SC2154  # out, log and failures come from gpu-common.sh
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-$top/spmv-out}" spmv.log
say "# gpu-spmv $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), tree $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1
mps_start
build=$top/build-gpu-spmv
if ! cmake -S "$top" -B "$build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON >"$out/build.log" 2>&1 ||
  ! cmake --build "$build" -j 16 --target spmv_check >>"$out/build.log" 2>&1; then
  say "# build failed"
  tail -40 "$out/build.log" | tee -a "$log"
  exit 1
fi
check=$build/tests/sparse/spmv_check
share=(--allow-shared-gpu)
for np in 1 2 3 4; do
  for spec in 2d:257 3d:31; do
    step "spmv_check np$np $spec" expect_line "^# spmv_check: OK" run -np "$np" "$check" --poisson "$spec" "${share[@]}"
  done
done
step "spmv_check np2, planted bug: caught" expect_rc_line 1 "rank 0: [0-9]+ of its [0-9]+ rows differ" \
  run -np 2 "$check" --poisson 2d:257 --fault "${share[@]}"
for np in 1 2; do
  for spec in 2d:256 2d:512 2d:2048 3d:128; do
    step "spmv_check np$np $spec bench" expect_line "^# spmv_check bench:" \
      run -np "$np" "$check" --poisson "$spec" --bench 50 "${share[@]}"
    grep "^# spmv_check bench:" "$log" | tail -1 >>"$out/bench.txt"
  done
done
say "# gpu-spmv: $failures failed steps"
exit $((failures > 0))
