#!/usr/bin/env bash
# check.sh - the 1.0 release on one NVIDIA GPU, in one call of the device tool: the CUDA
# build with its tests, the device-side collectives and the stream collectives under MPS
# at 2 and 4 ranks, the programs' defaults (cg converges, jacobi's 16384^2, multi_scal at
# run.sh's size), --version, and docs/examples built against the installed package as a
# user's CUDA project and run (ctest -L examples). Run from the repository root with the
# cmocka packages carried (.debs, scripts/gpu.sh says how):
#   bash results/h100/2026-12-06-release/check.sh "$OUT"
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091,SC2154
source scripts/gpu-common.sh
gpu_start "${1:-release-out}" release.log
say "# release check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
nvidia-smi --query-gpu=index,name,driver_version --format=csv >>"$log" 2>&1
prefix=()
if compgen -G "$top/.debs/*.deb" >/dev/null; then
  for deb in "$top"/.debs/*.deb; do dpkg -x "$deb" /tmp/cmocka-root; done
  prefix=(-DCMAKE_PREFIX_PATH=/tmp/cmocka-root/usr)
  export LD_LIBRARY_PATH=/tmp/cmocka-root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
mps_start
build=$top/build-release
SECONDS=0
gpu_build_cuda "$build" -DSHARDTAB_BUILD_TESTS=ON "${prefix[@]}"
say "# built in $SECONDS s"
comm=$build/tests/shardtab/comm/comm_check
stream=$build/tests/shardtab/comm/stream_check
share=(--allow-shared-gpu)
for np in 2 4; do
  step "comm_check np$np" expect_line "^# comm_check: OK" run -np "$np" "$comm" "${share[@]}"
  step "stream_check np$np" expect_line "^# stream_check: OK" run -np "$np" "$stream" "${share[@]}"
done
step "cg, no arguments, np1" expect_line "iterations, converged" run -np 1 "$build/cg"
step "cg, no arguments but shared GPU, np2" expect_line "^# verify cg: OK" \
  run -np 2 "$build/cg" "${share[@]}"
step "jacobi, no arguments, np1" expect_line "^16384x16384: 1 GPU: .* efficiency: +[0-9.]+ %$" \
  run -np 1 "$build/jacobi"
step "multi_scal at run.sh's size, np1" expect_line "^# verify global: OK" \
  run -np 1 "$build/multi_scal" --n 32M --iters 20
step "versions" bash tests/common/help_version.sh 1.0.0 cuda "$build/multi_scal" "$build/jacobi" \
  "$build/cg" "$build/coll_bench"
step "examples against the installed package (ctest -L examples)" \
  ctest --test-dir "$build" -L examples --output-on-failure --timeout 300
grep -E "^## .*: (PASS|FAIL)|^# built" "$log" | tee "$out/summary.txt"
say "# release check: $failures failure(s)"
exit "$((failures > 0))"
