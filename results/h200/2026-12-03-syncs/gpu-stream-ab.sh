#!/usr/bin/env bash
# gpu-stream-ab.sh - on the NVIDIA machine, in one call: the stream-ordered
# all-reduce of several trees side by side under CUDA MPS. Builds each tree's
# coll_bench (CUDA backend, no tests) at once, then runs them in turn, two
# rounds, at 2 and 4 ranks, 8 B to 64 KiB (every result verified), and prints
# one line a run with the 8 B, 16 B and 64 KiB times, eager and in a graph.
#
# Usage: scripts/gpu-stream-ab.sh OUTDIR NAME=DIR [NAME=DIR ...]
#   DIR  a tree: "." for this one, or an ignored folder carried to the
#        machine, made with git archive <commit> CMakeLists.txt src kernels
#        include tests cmake scripts | tar -x -C DIR
# Writes OUTDIR/NAME-npN-rR.txt (coll_bench's output) and OUTDIR/build-NAME.log.
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=scripts/mpi-env.sh disable=SC1091
source "$top/scripts/mpi-env.sh"
(($# >= 2)) || { echo "usage: $0 OUTDIR NAME=DIR [NAME=DIR ...]" >&2; exit 2; }
out=$1
shift
mkdir -p "$out"
mpi=(mpirun --bind-to none)
[[ -n ${mpi_oversubscribe:-} ]] && mpi+=("$mpi_oversubscribe")
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d || echo "# MPS did not start"
trap 'echo quit | nvidia-cuda-mps-control' EXIT
names=()
for tree in "$@"; do
  name=${tree%%=*} src=${tree#*=}
  names+=("$name")
  (cmake -S "$src" -B "/tmp/ab-$name" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF \
    >"$out/build-$name.log" 2>&1 &&
    cmake --build "/tmp/ab-$name" -j 5 --target coll_bench >>"$out/build-$name.log" 2>&1
    echo "# built $name: exit $?") &
done
wait
for round in 1 2; do
  for np in 2 4; do
    for name in "${names[@]}"; do
      f=$out/$name-np$np-r$round.txt
      timeout 120 "${mpi[@]}" -np "$np" "/tmp/ab-$name/coll_bench" \
        --max 65536 --repeats 7 --allow-shared-gpu >"$f" 2>&1
      echo "[$name np$np round $round] exit $? $(grep -E '^ +(8|16|65536) +[0-9]+ +float +sum +(auto|graph)' "$f" |
        awk '{printf "%s B %s %s us; ", $1, $5, $6}')"
    done
  done
done
