#!/usr/bin/env bash
# gpu-fronts.sh - on an NVIDIA machine, the fronts in one call: many tables over
# one allocation (tests/shardtab/reliability/many_tables.c), multi_scal's create time of
# a second table over open memory, and the Python front with PyTorch
# (tests/gpu/check_torch.py: tables over torch tensors, peers read through
# torch.as_tensor, create times beside SymmetricMemory's rendezvous).
# Usage: scripts/gpu-fronts.sh [outdir] [--allow-shared-device]
#   --allow-shared-device  two ranks on one GPU (a one-GPU machine)
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-$top/fronts-out}" fronts.log
shared=()
[[ "${2:-}" == "--allow-shared-device" ]] && shared=(--allow-shared-device)
ms_shared=()
((${#shared[@]})) && ms_shared=(--allow-shared-gpu)
build=$top/build-gpu-fronts
say "# gpu-fronts $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) ${shared[*]}"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv >>"$log" 2>&1
step "configure (cuda, tests, no Fortran)" cmake -S "$top" -B "$build" -DSHARDTAB_BACKEND=cuda \
  -DSHARDTAB_FORTRAN=off
step "build" cmake --build "$build" -j 16 --target shardtab_shared many_tables multi_scal
step "many tables over one allocation (np2)" run -np 2 "$build/tests/shardtab/reliability/many_tables" "${shared[@]}"
for i in 1 2 3; do
  step "multi_scal np2, run $i" run -np 2 "$build/multi_scal" --n 10M "${ms_shared[@]}"
done
step "python + torch (np2)" run -np 2 -x PYTHONPATH="$top/src/python" \
  -x SHARDTAB_LIBRARY="$build/libshardtab.so" -x TORCH_SYMM_MEM_DISABLE_MULTICAST \
  -x NCCL_NVLS_ENABLE python3 "$top/tests/gpu/check_torch.py" "${shared[@]}"
grep -hE "^(ok|FAIL|skip):|^# verify|table created|^(\[rank [0-9]+\] )?# (create|Symm|torch)|PASS: |check.s. failed" "$log" |
  tee -a "$log.summary"
say "# gpu-fronts: $failures failure(s)"
exit "$((failures > 0))"
