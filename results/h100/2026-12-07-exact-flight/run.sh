#!/usr/bin/env bash
# run.sh - the exact sum's reduce with 1, 2, 3 and 4 elements a thread in flight
# (ST_EXACT_IN_FLIGHT, kernels/shardtab/collective_body.h), on one NVIDIA GPU under MPS, in
# one call: four copies of this tree, each with its own ST_EXACT_IN_FLIGHT (1 is the reduce
# as it was: one element at a time); each copy's stream_check verified at 2 and 3 ranks (every
# op, sum_exact's inputs spanning most exponents and cancelling, each element against a
# big-number reference) and with --special at 2; then coll_bench at 2 and 4 ranks, the copies
# interleaved k1 k2 k3 k4, twice (the exact sum beside the plain one, 8 B to 16 MiB).
# Run on the device machine from the repository root:  OUT=<dir> bash <this file>
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
gpu_start "${OUT:-$here/out}" flight.log
trap 'mps_stop' EXIT
[[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
ks=(1 2 3 4)
for k in "${ks[@]}"; do
  d=/tmp/k$k
  rm -rf "$d" && mkdir -p "$d"
  (cd "$top" && tar --exclude='./build*' --exclude=./.git --exclude=./.ab --exclude=./results \
    -cf - .) | tar -xf - -C "$d"
  sed -i "s/^#  define ST_EXACT_IN_FLIGHT .*/#  define ST_EXACT_IN_FLIGHT $k/" \
    "$d/kernels/shardtab/collective_body.h"
  grep -n "define ST_EXACT_IN_FLIGHT" "$d/kernels/shardtab/collective_body.h" | sed "s/^/k$k: /" >>"$log"
  (timeout 300 cmake -S "$d" -B "$d/build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON \
    -DCMAKE_CUDA_FLAGS="-Xptxas -v" &&
    timeout 400 cmake --build "$d/build" -j 4 --target coll_bench stream_check) \
    >"$out/build-k$k.log" 2>&1 &
done
wait
for k in "${ks[@]}"; do
  step "build k$k" test -x "/tmp/k$k/build/coll_bench"
  grep -A3 "Compiling entry.*move_kernelILi1EE" "$out/build-k$k.log" | grep -m1 "Used" |
    sed "s/^/k$k exact move kernel: /" | tee -a "$log"
done
export GPU_RUN_LIMIT=120
mps_start
exe() { find "/tmp/$1/build" -name "$2" -type f | head -1; }
shared=(-x CUDA_MPS_PIPE_DIRECTORY)
for k in "${ks[@]}"; do
  sc=$(exe "k$k" stream_check)
  for np in 2 3; do
    step "k$k stream_check np$np" expect_line "^# stream_check: OK [(]$np ranks[)]$" \
      run -np $np "${shared[@]}" "$sc" --allow-shared-gpu
  done
  step "k$k stream_check --special np2" expect_line "special values OK" \
    run -np 2 "${shared[@]}" "$sc" --special --allow-shared-gpu
done
for round in 1 2; do
  for np in 2 4; do
    for k in "${ks[@]}"; do
      ((SECONDS < 520)) || break 3
      from=$(($(wc -l <"$log") + 1))
      GPU_RUN_LIMIT=90 step "coll_bench k$k np$np round $round" run -np $np "${shared[@]}" \
        "$(exe "k$k" coll_bench)" --allow-shared-gpu --min 8 --max 16777216 --repeats 7 \
        --device-iters 1000
      { echo "### round $round: k$k"; tail -n +"$from" "$log"; } >>"$out/exact-np$np.txt"
    done
  done
done
say "# seconds: $SECONDS"
say "# failures: $failures"
exit $((failures > 0))
