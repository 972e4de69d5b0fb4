#!/usr/bin/env bash
# gpu-one-visible.sh - each rank sees one GPU only (what Slurm's --gpu-bind=closest
# does on Frontier with ROCR_VISIBLE_DEVICES), emulated on NVIDIA with
# CUDA_VISIBLE_DEVICES set per rank: does the table still build, and if not, is
# the message clear? Usage: scripts/gpu-one-visible.sh [outdir]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/one-visible-out}
mkdir -p "$out"
# shellcheck source=scripts/mpi-env.sh disable=SC1091
source "$top/scripts/mpi-env.sh"
build=$top/build-gpu-one-visible
log=$out/one-visible.log
cmake -S "$top" -B "$build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF >"$log" 2>&1
cmake --build "$build" -j 16 >>"$log" 2>&1 || { echo "build failed"; tail -20 "$log"; exit 1; }
for args in "" "--check-peers" "--n 1G"; do
  echo "## one visible GPU per rank: multi_scal $args" | tee -a "$log"
  # shellcheck disable=SC2086,SC2154,SC2016  # per-rank expansion inside bash -c
  timeout 120 mpirun $mpi_oversubscribe --bind-to none -np 2 bash -c \
    'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' "$build/multi_scal" $args \
    >>"$log" 2>&1
  echo "## exit $?" | tee -a "$log"
done
grep -E "^(##|# verify|# check-peers|# Rank|multi_scal:)" "$log"
