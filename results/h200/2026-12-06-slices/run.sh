#!/usr/bin/env bash
# run.sh - the halo exchange pushed by put, cut into slices with a flag each (a block a
# slice on a stream, no count between the blocks), on one NVIDIA GPU under MPS, in one call:
#   halo_check at 2 and 4 ranks (one slice and many, stream-ordered and device-side, 3-byte
#   and 6-byte cells, 3-D with corners, rows and planes); halo_bench's shapes (64 KiB to
#   1 MiB) and --latency (1 to 64 KiB) for this tree, for the tree before it (the grid whose
#   last block flags every piece after a count: .ab/base, `git archive` of its commit,
#   carried), and for a copy of this tree that cuts from 16 KiB up (ST_HALO_PUT_ONE_SLICE_MAX
#   16 KiB: 64 KiB in 4 slices), interleaved this, base, cut16, this.
# Stage `final`: the item-4 job: halo_check's sliced cases at 2 and 4 ranks (stream-ordered,
#   one block, a grid of blocks sharing each exchange); halo_bench's shapes and --latency
#   for this tree and the tree before it, interleaved this, base, this; the shapes again
#   with the device side shared by 32 blocks (--device-blocks 32); coll_bench at 2 and 4
#   ranks for this tree and the base (the exact sum beside the plain one, 8 B to 16 MiB);
#   the halo and the collectives from Python.
# Jobs: job1/ (the default stage) and job2/ (`final`, before halo_check's cases and the
#   grid were in it), on an H200, ran the first cut of the slices, whose every thread
#   divided to find its slices' bounds (a piece now carries its slice length); `final` on
#   the tree at 70d7cfa ran on an H100: results/h100/2026-12-06-slices/ (job3/; job3b/ and
#   job3c/, two more calls on the same machine, say what they ran).
# Run on the device machine from the repository root:  OUT=<dir> bash <this file> [final]
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
stage=${1:-slices}
gpu_start "${OUT:-$here/out}" "$stage.log"
b=$top/build-gpu
[[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
# tree NAME DIR [CONSTANT VALUE]: a copy of DIR (its ST_HALO_<CONSTANT> set to VALUE), its
# halo_bench built in /tmp/NAME/build; in the background, the build's log in $out
tree() {
  local d=/tmp/$1
  rm -rf "$d" && mkdir -p "$d"
  (cd "$2" && tar --exclude='./build*' --exclude=./.git --exclude=./.ab -cf - .) | tar -xf - -C "$d"
  if [[ -n ${3:-} ]]; then
    sed -i "s/^#define ST_HALO_$3 .*/#define ST_HALO_$3 ($4)/" "$d/src/shardtab/halo.c"
    grep -n "define ST_HALO_$3 " "$d/src/shardtab/halo.c" | tee -a "$log"
  fi
  (timeout 300 cmake -S "$d" -B "$d/build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON &&
    timeout 400 cmake --build "$d/build" -j 8 --target halo_bench coll_bench) >"$out/build-$1.log" 2>&1 &
}
step "configure" timeout 300 cmake -S "$top" -B "$b" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
tree base "$top/.ab/base"
others=(base)
if [[ $stage == final ]]; then
  step "build" timeout 400 cmake --build "$b" -j 8 --target halo_check halo_bench coll_bench \
    shardtab_shared
else
  others+=(cut16)
  tree cut16 "$top" PUT_ONE_SLICE_MAX "(size_t)16 << 10"
  step "build" timeout 400 cmake --build "$b" -j 8 --target halo_check halo_bench
fi
wait
for v in "${others[@]}"; do
  step "build $v" test -x "$(find "/tmp/$v/build" -name halo_bench -type f | head -1)"
done
mps_start
hc=$(find "$b" -name halo_check -type f | head -1)
np_list=(2 4)
hcr() { step "halo_check np$1 $2" run -np "$1" -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu "${@:3}"; }
for np in "${np_list[@]}"; do
  g="$np"
  [[ $np == 4 ]] && g="2,2"
  hcr $np "256 KiB (put, 17 slices) shared by 8 blocks" --grid "$np,1" --periodic 1 \
    --block 16,2048 --ghost 8 --device-blocks 8 --rounds 50
  hcr $np "3-D 6-byte cells with corners (put, sliced) shared by 3 blocks" --grid "1,$np,1" \
    --periodic 1,0,1 --corners --ghost 1,2,1 --elem 6 --block 48,40,60 --uneven \
    --device-blocks 3 --rounds 20
  hcr $np "3-byte cells (put, one slice)" --grid "$g" --periodic 1 --corners --elem 3 --rounds 20
  hcr $np "device-side 3-byte cells (put)" --grid "$g" --periodic 1 --corners --elem 3 --device \
    --rounds 100
  hcr $np "rows of 4096 doubles (put, one slice)" --grid "1,$np" --periodic 0,1 --block 4096,16 \
    --ghost 0,1 --rounds 50
  hcr $np "256 KiB (put, 17 slices)" --grid "$np,1" --periodic 1 --block 16,2048 --ghost 8 --rounds 50
  hcr $np "1 MiB planes (put, 32 slices)" --grid "1,1,$np" --periodic 0,0,1 --block 256,256,4 \
    --ghost 0,0,1 --rounds 20
  hcr $np "device-side 256 KiB (put, 17 slices in one block)" --grid "$np,1" --periodic 1 \
    --block 16,2048 --ghost 8 --device --rounds 50
  hcr $np "3-D 6-byte cells with corners, uneven (put, sliced)" --grid "1,$np,1" --periodic 1,0,1 \
    --corners --ghost 1,2,1 --elem 6 --block 48,40,60 --uneven --rounds 20
  hcr $np "device-side 3-D 6-byte cells with corners (put, sliced)" --grid "1,$np,1" \
    --periodic 1,0,1 --corners --ghost 1,2,1 --elem 6 --block 48,40,60 --uneven --device --rounds 20
done
# bench FILE [args]: halo_bench this, base, cut16, this at 2 and 4 ranks, into $out/FILE-npN.txt
bench() {
  local file=$1 np i v exe from
  shift
  for np in 2 4; do
    i=0
    for v in this "${others[@]}" this; do
      i=$((i + 1))
      exe=$(find "$b" -name halo_bench -type f | head -1)
      [[ $v != this ]] && exe=$(find "/tmp/$v/build" -name halo_bench -type f | head -1)
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
pre=${stage/slices/}
bench "${pre:+$pre-}shapes"
bench "${pre:+$pre-}latency" --latency
if [[ $stage == final ]]; then
  for np in 2 4; do
    from=$(($(wc -l <"$log") + 1))
    step "halo_bench --device-blocks 32 this np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY \
      "$(find "$b" -name halo_bench -type f | head -1)" --allow-shared-gpu --device-blocks 32
    tail -n +$from "$log" | grep -A9 "^# halo_bench: $np ranks" >"$out/final-blocks-np$np.txt"
  done
  for np in 2 4; do
    for v in this base; do
      exe=$(find "$b" -name coll_bench -type f | head -1)
      [[ $v != this ]] && exe=$(find "/tmp/$v/build" -name coll_bench -type f | head -1)
      from=$(($(wc -l <"$log") + 1))
      step "coll_bench $v np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$exe" \
        --allow-shared-gpu --min 8 --max 16777216 --repeats 7 --device-iters 1000
      tail -n +$from "$log" | sed -n "/^# coll_bench: $np ranks/,/^# coll_bench: every/p" \
        >"$out/final-exact-$v-np$np.txt"
    done
  done
  step "the halo and the collectives from Python" timeout 200 ctest --test-dir "$b" \
    -R "python[.](halo|collectives)" --output-on-failure
fi
say "# failures: $failures"
exit $((failures > 0))
