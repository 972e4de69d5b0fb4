#!/usr/bin/env bash
# gpu-reliability.sh - the reliability checks that need GPUs beyond those in
# gpu-validate.sh: SIGKILL of one rank while the kernels run on the CUDA
# backend, compute-sanitizer initcheck, and memcheck of --check-peers.
# Usage: scripts/gpu-reliability.sh [outdir]
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-$top/gpu-reliability-out}" gpu-reliability.log
build=$top/build-gpu-reliability
gpu_build_cuda "$build"
ms=$build/multi_scal
step "SIGKILL rank 1 of 2 while the kernels run" \
  "$top/tests/shardtab/reliability/sigkill.sh" --phase run --np 2 --rank 1 --end-within 10 \
  mpirun "$ms" --n 1G --iters 10000 --mode local
step "compute-sanitizer initcheck np2" \
  run -np 2 compute-sanitizer --tool initcheck --error-exitcode 9 "$ms" --n 100003
step "compute-sanitizer memcheck np2 --check-peers" \
  run -np 2 compute-sanitizer --tool memcheck --error-exitcode 9 "$ms" --check-peers --n 100003
echo "# gpu-reliability: $failures failure(s)" | tee -a "$log"
exit $((failures > 0))
