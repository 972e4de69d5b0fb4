#!/usr/bin/env bash
# run.sh - issue 51's GPU study on one NVIDIA GPU under MPS, in two stages (one device call
# each; the build is kept in build-gpu/ between them on a warm machine):
#   measure  halo_check's cases at 2 and 4 ranks (stream-ordered, device-side, a grid above
#            64 KiB, 3-D with corners, simulated nodes), halo_bench at 2 and 4 ranks (the
#            exchange beside the copy engines and host-staged MPI), coll_bench at 2 and 4
#            ranks from 8 B to 16 MiB (SHARDTAB_SUM_EXACT beside the plain sum)
#   fronts   the examples as a user's CUDA project (ctest -L examples) and the halo and the
#            exact sums from Python (ctest -R python.halo|python.collectives)
#   python   the Python part of fronts alone
#   exact    coll_bench at 2 and 4 ranks with the exact sum's reduce loop in three forms,
#            side by side: this tree's and two with exact-vector.patch (see the stage)
# Run on the device machine from the repository root: OUT=<dir> bash <this file> <stage>
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
stage=${1:-measure}
gpu_start "${OUT:-$here/out}" "$stage.log"
b=$top/build-gpu
if [[ ! -f $b/CMakeCache.txt ]]; then
  [[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
  step "configure" timeout 300 cmake -S "$top" -B "$b" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
mps_start
if [[ $stage == measure ]]; then
  step "build" timeout 400 cmake --build "$b" -j 16 --target halo_check halo_bench coll_bench
  hc=$(find "$b" -name halo_check -type f | head -1)
  for np in 2 4; do
    g="$np"
    [[ $np == 4 ]] && g="2,2"
    step "halo_check np$np 2-D corners" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu \
      --grid "$g" --periodic 1 --corners --uneven --rounds 5
    step "halo_check np$np device-side" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu \
      --grid "$g" --periodic 1 --corners --device --rounds 100
    step "halo_check np$np large (a grid)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu \
      --grid "$np,1" --periodic 1 --block 16,4096 --ghost 8 --rounds 3
    step "halo_check np$np rows (one run a face)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" \
      --allow-shared-gpu --grid "1,$np" --periodic 0,1 --block 62,5 --ghost 1,2 --rounds 3
    step "halo_check np$np 3-D elem16" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu \
      --grid "1,1,$np" --periodic 1 --corners --elem 16 --pad 2 --block 9,7,5 --ghost 2
  done
  step "halo_check np4 rpn2 (MPI between simulated nodes)" run -np 4 -x CUDA_MPS_PIPE_DIRECTORY \
    -x SHARDTAB_RANKS_PER_NODE=2 "$hc" --allow-shared-gpu --grid 2,2 --periodic 1 --corners
  for np in 2 4; do
    step "halo_bench np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$b/halo_bench" --allow-shared-gpu
    grep -A8 "^# halo_bench: $np ranks" "$log" >"$out/halo_bench-np$np.txt"
  done
  for np in 2 4; do
    step "coll_bench np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$b/coll_bench" --allow-shared-gpu \
      --min 8 --max 16777216 --repeats 7 --device-iters 1000
    sed -n "/^# coll_bench: $np ranks/,/^# coll_bench: every/p" "$log" >"$out/coll_bench-np$np.txt"
  done
elif [[ $stage == exact ]]; then
  # the exact sum's reduce loop, A/B in one job: this tree (element by element), the
  # tree with exact-vector.patch (16-byte vectors, a branch-free double-double a lane,
  # four ranks' loads in flight: vector), and that with two ranks' loads (vector-batch2)
  step "build tree" timeout 300 cmake --build "$b" -j 16 --target coll_bench
  declare -A exe=([tree]=$b/coll_bench)
  for v in vector vector-batch2; do
    s=/tmp/ab-$v
    rm -rf "$s" && mkdir -p "$s"
    (cd "$top" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -xf - -C "$s"
    (cd "$s" && patch -s -p1 <"$here/exact-vector.patch")
    if [[ $v == vector-batch2 ]]; then
      sed -i 's/^#define ST_EXACT_BATCH .*/#define ST_EXACT_BATCH 2/' \
        "$s/kernels/shardtab/collective_body.h"
    fi
    step "configure $v" timeout 200 cmake -S "$s" -B "$s/build" -DSHARDTAB_BACKEND=cuda \
      -DSHARDTAB_BUILD_TESTS=OFF
    step "build $v" timeout 300 cmake --build "$s/build" -j 16 --target coll_bench
    exe[$v]=$s/build/coll_bench
  done
  for np in 2 4; do
    i=0
    for v in vector tree vector-batch2 vector; do # vector twice: the drift within the job
      i=$((i + 1))
      from=$(($(wc -l <"$log") + 1))
      step "coll_bench $v np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "${exe[$v]}" \
        --allow-shared-gpu --min 8 --max 16777216 --repeats 7 --device-iters 1000
      {
        echo "### run $i: $v"
        tail -n +$from "$log" | sed -n "/^# coll_bench: $np ranks/,/^# coll_bench: every/p"
      } >>"$out/exact-np$np.txt"
    done
  done
elif [[ $stage == python ]]; then
  step "build" timeout 300 cmake --build "$b" -j 16 --target shardtab_shared
  step "the halo and the exact sums from Python" timeout 200 ctest --test-dir "$b" \
    -R "python[.](halo|collectives)" --output-on-failure
else
  step "build" timeout 500 cmake --build "$b" -j 16
  step "examples as a user's project" timeout 400 ctest --test-dir "$b" -L examples --output-on-failure
  step "the halo and the exact sums from Python" timeout 200 ctest --test-dir "$b" \
    -R "python[.](halo|collectives)" --output-on-failure
fi
say "# failures: $failures"
exit $((failures > 0))
