#!/usr/bin/env bash
# run.sh - the halo exchange pushed by put (the cells into the neighbours' inboxes in
# 16-byte units where they allow, then one flag each; one way, one block) on one NVIDIA GPU
# under MPS, beside the pulled one-block exchange it replaces above 16 KiB, in one call:
#   halo_check's cases at 2 and 4 ranks (put stream-ordered and device-side, 3-byte and
#   6-byte cells, 3-D with corners; LL words; pulled by a grid above 64 KiB, device-side
#   too; 2 + 2 simulated nodes); halo_bench --latency (faces of 64 to 4096 doubles) for
#   this tree and for a copy that never puts (ST_HALO_PUT_MAX 0: pulled above 16 KiB, as
#   before), interleaved this, pulled, this; halo_bench's shapes (64 KiB to 1 MiB) for this
#   tree and for a copy that puts up to 1 MiB (ST_HALO_PUT_MAX), interleaved, to place the
#   crossover with the grid's pull; coll_bench at 2 and 4 ranks (the exact sum beside the
#   plain one, 8 B to 16 MiB); the halo and the collectives from Python.
# Stage `ll`: halo_bench --latency for this tree and for a copy that never pushes LL words
#   (ST_HALO_LL_MAX 0), interleaved, to place the crossover of the forms.
# Stage `grid`: the put form's grid (a block per 16 KiB, ST_HALO_PUT_BLOCK_BYTES): halo_check
#   by put over a grid at 2 and 4 ranks (256 KiB and 1 MiB of ghosts, stream-ordered, and the
#   device-side one block beside it); halo_bench --latency this tree beside a copy that puts
#   in one block (one), and halo_bench's shapes beside a copy that pulls above 64 KiB
#   (pull64), each interleaved this, other, this.
# Stage `final` (FINAL_RUNS=1: the put's halo_check cases and one run of each halo_bench):
#   this tree alone, the item-4 job: halo_check at 2 and 4 ranks (LL words, put in
#   one block and over a grid, stream-ordered and device-side, pulled above 1 MiB, 2 + 2
#   simulated nodes); halo_bench's shapes and --latency twice each; coll_bench at 2 and 4
#   ranks (the exact sum beside the plain one); the halo and the collectives from Python.
# The default stage and `ll` ran on the first form (one block at every size, up to 64 KiB;
#   the tree's history has it); their variants are of whatever tree runs them.
# Run on the device machine from the repository root:  OUT=<dir> bash <this file> [ll|grid|final]
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
stage=${1:-put}
gpu_start "${OUT:-$here/out}" "$stage.log"
b=$top/build-gpu
[[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
step "configure" timeout 300 cmake -S "$top" -B "$b" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
# variant NAME VALUE [CONSTANT]: a copy of this tree whose ST_HALO_<CONSTANT> (PUT_MAX) is
# VALUE, its halo_bench built
variant() {
  local d=/tmp/$1 which=${3:-PUT_MAX}
  rm -rf "$d" && mkdir -p "$d"
  (cd "$top" && tar --exclude='./build*' --exclude=./.git --exclude=./.ab -cf - .) | tar -xf - -C "$d"
  sed -i "s/^#define ST_HALO_${which} .*/#define ST_HALO_${which} ($2)/" "$d/src/shardtab/halo.c"
  grep -n "define ST_HALO_${which} " "$d/src/shardtab/halo.c" | tee -a "$log"
  step "configure $1" timeout 300 cmake -S "$d" -B "$d/build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
  step "build $1" timeout 300 cmake --build "$d/build" -j 16 --target halo_bench
}
if [[ $stage == ll ]]; then
  step "build" timeout 400 cmake --build "$b" -j 16 --target halo_bench
  variant putall "(size_t)0" LL_MAX
  mps_start
elif [[ $stage == final ]]; then
  targets=(halo_check halo_bench)
  [[ -z ${FINAL_RUNS:-} ]] && targets+=(coll_bench shardtab_shared)
  step "build" timeout 400 cmake --build "$b" -j 16 --target "${targets[@]}"
  mps_start
elif [[ $stage == grid ]]; then
  step "build" timeout 400 cmake --build "$b" -j 16 --target halo_check halo_bench
  variant one "(size_t)1 << 40" PUT_BLOCK_BYTES
  variant pull64 "(size_t)64 << 10"
  mps_start
else
  step "build" timeout 400 cmake --build "$b" -j 16 --target halo_check halo_bench coll_bench \
    shardtab_shared
  variant pulled "(size_t)0"
  variant put1m "(size_t)1 << 20"
  mps_start
fi
# bench FILE OTHER [args]: halo_bench this, OTHER, this at 2 and 4 ranks, into $out/FILE-npN.txt
bench() {
  local file=$1 other=$2 np i v exe from
  shift 2
  for np in 2 4; do
    i=0
    for v in this "$other" this; do
      i=$((i + 1))
      exe=$(find "$b" -name halo_bench -type f | head -1)
      [[ $v == "$other" ]] && exe=$(find "/tmp/$other/build" -name halo_bench -type f | head -1)
      from=$(($(wc -l <"$log") + 1))
      step "halo_bench $* $v np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$exe" \
        --allow-shared-gpu "$@"
      {
        echo "### run $i: $v"
        tail -n +$from "$log" | grep -A9 "^# halo_bench: $np ranks"
      } >>"$out/$file-np$np.txt"
    done
  done
}
if [[ $stage == ll ]]; then
  bench ll putall --latency
  say "# failures: $failures"
  exit $((failures > 0))
fi
if [[ $stage == final ]]; then
  hc=$(find "$b" -name halo_check -type f | head -1)
  short=${FINAL_RUNS:+1} # FINAL_RUNS=1: the short form (the put's cases, one run of each bench)
  hcr() { step "halo_check np$1 $2" run -np "$1" -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu "${@:3}"; }
  for np in 2 4; do
    g="$np"
    [[ $np == 4 ]] && g="2,2"
    [[ -z $short ]] && hcr $np "2-D corners (LL)" --grid "$g" --periodic 1 --corners --uneven --rounds 5
    [[ -z $short ]] && hcr $np "device-side (LL)" --grid "$g" --periodic 1 --corners --device --rounds 100
    hcr $np "3-byte cells (put)" --grid "$g" --periodic 1 --corners --elem 3 --rounds 20
    hcr $np "device-side 3-byte cells (put)" --grid "$g" --periodic 1 --corners --elem 3 --device \
      --rounds 100
    hcr $np "rows of 4096 doubles (put, one block)" --grid "1,$np" --periodic 0,1 --block 4096,16 \
      --ghost 0,1 --rounds 50
    hcr $np "256 KiB (put, a grid)" --grid "$np,1" --periodic 1 --block 16,2048 --ghost 8 --rounds 50
    hcr $np "1 MiB planes (put, a grid of 32)" --grid "1,1,$np" --periodic 0,0,1 --block 256,256,4 \
      --ghost 0,0,1 --rounds 20
    hcr $np "device-side 256 KiB (put)" --grid "$np,1" --periodic 1 --block 16,2048 --ghost 8 \
      --device --rounds 50
    [[ -z $short ]] && hcr $np "3-D 6-byte cells with corners (put)" --grid "1,1,$np" --periodic 1 --corners --elem 6 \
      --block 40,30,8 --ghost 2 --rounds 20
    [[ -z $short ]] && hcr $np "over 1 MiB (pulled)" --grid "$np,1" --periodic 1 --block 32,4096 --ghost 17 --rounds 5
    [[ -z $short ]] && hcr $np "device-side over 1 MiB (pulled)" --grid "$np,1" --periodic 1 --block 32,4096 --ghost 17 \
      --device --rounds 5
  done
  [[ -z $short ]] && step "halo_check np4 rpn2 (MPI between simulated nodes)" run -np 4 \
    -x CUDA_MPS_PIPE_DIRECTORY -x SHARDTAB_RANKS_PER_NODE=2 "$hc" --allow-shared-gpu --grid 2,2 \
    --periodic 1 --corners --elem 6
  for np in 2 4; do
    for i in $(seq "${FINAL_RUNS:-2}"); do
      for args in "" "--latency"; do
        from=$(($(wc -l <"$log") + 1))
        step "halo_bench $args np$np run $i" run -np $np -x CUDA_MPS_PIPE_DIRECTORY \
          "$(find "$b" -name halo_bench -type f | head -1)" --allow-shared-gpu $args
        {
          echo "### run $i"
          tail -n +$from "$log" | grep -A9 "^# halo_bench: $np ranks"
        } >>"$out/final-${args:+latency-}np$np.txt"
      done
    done
    [[ -n $short ]] && continue
    from=$(($(wc -l <"$log") + 1))
    step "coll_bench np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY \
      "$(find "$b" -name coll_bench -type f | head -1)" --allow-shared-gpu --min 8 --max 16777216 \
      --repeats 7 --device-iters 1000
    tail -n +$from "$log" | sed -n "/^# coll_bench: $np ranks/,/^# coll_bench: every/p" \
      >"$out/final-exact-np$np.txt"
  done
  [[ -z $short ]] && step "the halo and the collectives from Python" timeout 200 ctest \
    --test-dir "$b" -R "python[.](halo|collectives)" --output-on-failure
  say "# failures: $failures"
  exit $((failures > 0))
fi
if [[ $stage == grid ]]; then
  hc=$(find "$b" -name halo_check -type f | head -1)
  for np in 2 4; do
    step "halo_check np$np 256 KiB by put, a grid" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" \
      --allow-shared-gpu --grid "$np,1" --periodic 1 --block 16,2048 --ghost 8 --rounds 50
    step "halo_check np$np 1 MiB planes by put, a grid" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" \
      --allow-shared-gpu --grid "1,1,$np" --periodic 0,0,1 --block 256,256,4 --ghost 0,0,1 --rounds 50
    step "halo_check np$np 3-D 6-byte cells with corners by put, a grid" run -np $np \
      -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu --grid "1,1,$np" --periodic 1 --corners \
      --elem 6 --block 40,30,8 --ghost 2 --rounds 20
    step "halo_check np$np device-side 256 KiB by put" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" \
      --allow-shared-gpu --grid "$np,1" --periodic 1 --block 16,2048 --ghost 8 --device --rounds 50
  done
  bench grid-latency one --latency
  bench grid-shapes pull64
  say "# failures: $failures"
  exit $((failures > 0))
fi
hc=$(find "$b" -name halo_check -type f | head -1)
for np in 2 4; do
  g="$np"
  [[ $np == 4 ]] && g="2,2"
  step "halo_check np$np 2-D corners (LL)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu \
    --grid "$g" --periodic 1 --corners --uneven --rounds 5
  step "halo_check np$np device-side (LL)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu \
    --grid "$g" --periodic 1 --corners --device --rounds 100
  step "halo_check np$np 3-byte cells (put)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY \
    "$hc" --allow-shared-gpu --grid "$g" --periodic 1 --corners --elem 3 --rounds 20
  step "halo_check np$np device-side 3-byte cells (put)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY \
    "$hc" --allow-shared-gpu --grid "$g" --periodic 1 --corners --elem 3 --device --rounds 100
  step "halo_check np$np rows of 1100 doubles (put, 16-byte units)" run -np $np \
    -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu --grid "1,$np" --periodic 0,1 \
    --block 1100,16 --ghost 0,1 --rounds 20
  step "halo_check np$np device-side rows of 4096 doubles (put)" run -np $np \
    -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu --grid "1,$np" --periodic 0,1 \
    --block 4096,16 --ghost 0,1 --device --rounds 100
  step "halo_check np$np 3-D 6-byte cells (put)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" \
    --allow-shared-gpu --grid "1,1,$np" --periodic 1 --corners --elem 6 --pad 2 --block 9,7,5 \
    --ghost 2 --rounds 5
  step "halo_check np$np large (pulled, a grid)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" \
    --allow-shared-gpu --grid "$np,1" --periodic 1 --block 16,4096 --ghost 8 --rounds 3
  step "halo_check np$np device-side large (pulled)" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hc" \
    --allow-shared-gpu --grid "$np,1" --periodic 1 --block 16,4096 --ghost 8 --device --rounds 20
done
step "halo_check np4 rpn2 (MPI between simulated nodes)" run -np 4 -x CUDA_MPS_PIPE_DIRECTORY \
  -x SHARDTAB_RANKS_PER_NODE=2 "$hc" --allow-shared-gpu --grid 2,2 --periodic 1 --corners --elem 6
bench latency pulled --latency
bench shapes put1m
for np in 2 4; do
  from=$(($(wc -l <"$log") + 1))
  step "coll_bench np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$(find "$b" -name coll_bench -type f | head -1)" \
    --allow-shared-gpu --min 8 --max 16777216 --repeats 7 --device-iters 1000
  tail -n +$from "$log" | sed -n "/^# coll_bench: $np ranks/,/^# coll_bench: every/p" >"$out/exact-np$np.txt"
done
step "the halo and the collectives from Python" timeout 200 ctest --test-dir "$b" \
  -R "python[.](halo|collectives)" --output-on-failure
say "# failures: $failures"
exit $((failures > 0))
