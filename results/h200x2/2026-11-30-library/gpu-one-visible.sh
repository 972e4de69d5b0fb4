#!/usr/bin/env bash
# gpu-one-visible.sh - each rank sees one GPU only (what Slurm's --gpu-bind=closest
# does on Frontier with ROCR_VISIBLE_DEVICES), emulated on NVIDIA with
# CUDA_VISIBLE_DEVICES set per rank: does the table still build, and if not, is
# the message clear? Usage: scripts/gpu-one-visible.sh [outdir]
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-$top/one-visible-out}" one-visible.log
build=$top/build-gpu-one-visible
gpu_build_cuda "$build"
for args in "" "--check-peers" "--n 1G"; do
  echo "## one visible GPU per rank: multi_scal $args" | tee -a "$log"
  # shellcheck disable=SC2086,SC2154,SC2016  # per-rank expansion inside bash -c
  timeout 120 mpirun $mpi_oversubscribe --bind-to none -np 2 bash -c \
    'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' "$build/multi_scal" $args \
    >>"$log" 2>&1
  echo "## exit $?" | tee -a "$log"
done
grep -E "^(##|# verify|# check-peers|# Rank|multi_scal:)" "$log"
