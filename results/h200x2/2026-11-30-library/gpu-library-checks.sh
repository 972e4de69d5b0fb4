#!/usr/bin/env bash
# gpu-library-checks.sh - on the NVIDIA machine: the library's hardening on
# real GPUs, in one short call: a table made, used and destroyed from a second
# thread (tests/shardtab/reliability/handed_memory.c), every kind of memory legacy IPC
# cannot export refused by name (tests/gpu/memory_kinds.c), then multi_scal and
# jacobi at two ranks as a smoke test of the same build.
# Usage: scripts/gpu-library-checks.sh [outdir]
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-$top/library-checks-out}" library-checks.log
build=$top/build-gpu-checks
say "# gpu-library-checks $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv >>"$log" 2>&1
step "configure (cuda, tests)" cmake -S "$top" -B "$build" -DSHARDTAB_BACKEND=cuda
step "build" cmake --build "$build" -j 16 --target handed_memory memory_kinds multi_scal jacobi
step "handed memory, threads, agreement (np2)" run -np 2 "$build/tests/shardtab/reliability/handed_memory"
step "memory kinds legacy IPC cannot export (np1)" run -np 1 "$build/tests/gpu/memory_kinds"
step "multi_scal np2" run -np 2 "$build/multi_scal" --n 10M
step "multi_scal np2 --check-peers" run -np 2 "$build/multi_scal" --check-peers
step "jacobi np2 table" run -np 2 "$build/jacobi" -nx 4096 -ny 4098 -niter 300
grep -hE "^(ok|FAIL|skip):|^# verify|^# check-peers|GPU:" "$log" | tee -a "$log.summary"
say "# gpu-library-checks: $failures failure(s)"
exit "$((failures > 0))"
