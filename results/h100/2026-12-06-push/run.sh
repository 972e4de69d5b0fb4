#!/usr/bin/env bash
# run.sh - the pushed halo exchange (LL words into the neighbours' inboxes, one way) on one
# NVIDIA GPU under MPS, beside the pulled one it replaced for small halos, in one call:
#   halo_check's cases at 2 and 4 ranks (pushed stream-ordered and device-side, pulled by a
#   grid above 64 KiB and for 3-byte cells, 3-D with corners, simulated nodes); halo_bench
#   at 2 and 4 ranks for this tree and for the base commit's tree (.ab/base.tar, made by
#   `git archive <base> -o .ab/base.tar` and carried), interleaved this, base, this; the
#   halo and the collectives from Python.
# Then halo_bench --latency (faces of 64 to 2048 doubles) the same way, the base tree built
#   with this tree's halo_bench.c (it uses the public API alone); stage `latency`: that alone.
# Stage `crossover`: halo_bench --latency for this tree and for a copy of it that pushes up
#   to 32 KiB of ghost cells (ST_HALO_PUSH_MAX), interleaved, to place the crossover.
# Run on the device machine from the repository root:
#   OUT=<dir> bash <this file> [latency|crossover]
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
stage=${1:-push}
other=base
[[ $stage == crossover ]] && other=push32
gpu_start "${OUT:-$here/out}" "$stage.log"
b=$top/build-gpu
[[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
step "configure" timeout 300 cmake -S "$top" -B "$b" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
base=/tmp/base
rm -rf "$base" && mkdir -p "$base"
if [[ $stage == crossover ]]; then
  (cd "$top" && tar --exclude='./build*' --exclude=./.git --exclude=./.ab -cf - .) | tar -xf - -C "$base"
  sed -i 's/^#define ST_HALO_PUSH_MAX .*/#define ST_HALO_PUSH_MAX ((size_t)32 << 10)/' \
    "$base/src/shardtab/halo.c"
  grep -n "define ST_HALO_PUSH_MAX" "$base/src/shardtab/halo.c" | tee -a "$log"
else
  tar -xf "$top/.ab/base.tar" -C "$base"
fi
cp "$top/src/coll_bench/halo_bench.c" "$base/src/coll_bench/" # --latency
step "configure base" timeout 300 cmake -S "$base" -B "$base/build" -DSHARDTAB_BACKEND=cuda \
  -DSHARDTAB_BUILD_TESTS=ON
targets=(halo_check halo_bench shardtab_shared)
[[ $stage != push ]] && targets=(halo_bench)
step "build" timeout 400 cmake --build "$b" -j 16 --target "${targets[@]}"
step "build base" timeout 300 cmake --build "$base/build" -j 16 --target halo_bench
mps_start
latency_runs() {
  for np in 2 4; do
    i=0
    for v in this "$other" this; do
      i=$((i + 1))
      exe=$(find "$b" -name halo_bench -type f | head -1)
      [[ $v == "$other" ]] && exe=$(find "$base/build" -name halo_bench -type f | head -1)
      from=$(($(wc -l <"$log") + 1))
      step "halo_bench --latency $v np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$exe" \
        --allow-shared-gpu --latency
      {
        echo "### run $i: $v"
        tail -n +$from "$log" | grep -A8 "^# halo_bench: $np ranks"
      } >>"$out/${stage/push/latency}-np$np.txt"
    done
  done
}
if [[ $stage != push ]]; then
  latency_runs
  say "# failures: $failures"
  exit $((failures > 0))
fi
hc=$(find "$b" -name halo_check -type f | head -1)
hb=$(find "$b" -name halo_bench -type f | head -1)
hb0=$(find "$base/build" -name halo_bench -type f | head -1)
for np in 2 4; do
  g="$np"
  [[ $np == 4 ]] && g="2,2"
  step "halo_check np$np 2-D corners" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu \
    --grid "$g" --periodic 1 --corners --uneven --rounds 5
  step "halo_check np$np device-side" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu \
    --grid "$g" --periodic 1 --corners --device --rounds 100
  step "halo_check np$np device-side 3-byte cells (pulled)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY \
    "$hc" --allow-shared-gpu --grid "$g" --periodic 1 --elem 3 --device --rounds 20
  step "halo_check np$np mid (pulled, one block)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" \
    --allow-shared-gpu --grid "$np,1" --periodic 1 --block 16,1100 --rounds 3
  step "halo_check np$np large (pulled, a grid)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" \
    --allow-shared-gpu --grid "$np,1" --periodic 1 --block 16,4096 --ghost 8 --rounds 3
  step "halo_check np$np 3-D elem16" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu \
    --grid "1,1,$np" --periodic 1 --corners --elem 16 --pad 2 --block 9,7,5 --ghost 2 --rounds 5
done
step "halo_check np4 rpn2 (MPI between simulated nodes)" run -np 4 -x CUDA_MPS_PIPE_DIRECTORY \
  -x SHARDTAB_RANKS_PER_NODE=2 "$hc" --allow-shared-gpu --grid 2,2 --periodic 1 --corners
for np in 2 4; do
  i=0
  for v in this base this; do
    i=$((i + 1))
    exe=$hb
    [[ $v == base ]] && exe=$hb0
    from=$(($(wc -l <"$log") + 1))
    step "halo_bench $v np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$exe" --allow-shared-gpu
    {
      echo "### run $i: $v"
      tail -n +$from "$log" | grep -A9 "^# halo_bench: $np ranks"
    } >>"$out/halo_bench-np$np.txt"
  done
done
latency_runs
step "the halo and the collectives from Python" timeout 200 ctest --test-dir "$b" \
  -R "python[.](halo|collectives)" --output-on-failure
say "# failures: $failures"
exit $((failures > 0))
