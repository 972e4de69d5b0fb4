#!/usr/bin/env bash
# run.sh - the tree after the item-4 job (two elements in flight in the exact reduce), on one
# NVIDIA GPU under MPS, in one call: docs/examples/faces2d at a size with many rows a rank
# (4096 x 1000, 1, 2 and 4 ranks, and 4 over simulated nodes of two); stream_check at 2 and 3
# ranks; then the exact sum's one block against one-shot at and around its limit
# (ST_ONE_BLOCK_EXACT_MAX, 32 KiB): coll_bench's exact rows, auto and one-shot, 4 KiB to
# 256 KiB at 2 and 4 ranks, three times.
# Run on the device machine from the repository root:  OUT=<dir> bash <this file>
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
gpu_start "${OUT:-$here/out}" tree.log
trap 'mps_stop' EXIT
b=$top/build-gpu
[[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
step "configure" timeout 300 cmake -S "$top" -B "$b" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
step "build" timeout 400 cmake --build "$b" -j 16 --target example_faces2d stream_check coll_bench
export GPU_RUN_LIMIT=120
mps_start
exe() { find "$b" -name "$1" -type f | head -1; }
shared=(-x CUDA_MPS_PIPE_DIRECTORY)
f=$(exe example_faces2d)
for np in 1 2 4; do
  step "faces2d np$np" expect_line '^faces2d: OK ' run -np $np "${shared[@]}" "$f" --nx 4096 \
    --ny 1000 --steps 10 --allow-shared-gpu
done
step "faces2d np4 nodes of two" expect_line '^faces2d: OK .*through MPI 4' run -np 4 \
  "${shared[@]}" -x SHARDTAB_RANKS_PER_NODE=2 "$f" --nx 4096 --ny 1000 --steps 10 --allow-shared-gpu
for np in 2 3; do
  step "stream_check np$np" expect_line "^# stream_check: OK [(]$np ranks[)]$" \
    run -np $np "${shared[@]}" "$(exe stream_check)" --allow-shared-gpu
done
for round in 1 2 3; do
  for np in 2 4; do
    from=$(($(wc -l <"$log") + 1))
    GPU_RUN_LIMIT=60 step "coll_bench np$np round $round" run -np $np "${shared[@]}" \
      "$(exe coll_bench)" --allow-shared-gpu --min 4096 --max 262144 --repeats 7 \
      --device-iters 100
    { echo "### round $round"; tail -n +"$from" "$log"; } >>"$out/exact-np$np.txt"
  done
done
say "# seconds: $SECONDS"
say "# failures: $failures"
exit $((failures > 0))
