#!/usr/bin/env bash
# run.sh - the halo exchange's final tree on one NVIDIA GPU under MPS, in one call per stage.
# Stage `check` (the default): halo_check at 2 and 4 ranks on every form the GPU runs (LL
#   words, put in one slice and in many, pulled; stream-ordered, pipelined rounds, one block
#   device-side, and a cooperative grid sharing each exchange, with more blocks than slices
#   so that the spare blocks must do nothing); then the item-4 figures: halo_bench's shapes
#   twice, --latency, and --device-blocks 32, at 2 and 4 ranks; the Python halo and
#   collectives tests.
#   At 4 ranks the case of 40 blocks asks more than one H100 holds: 4 grids of 40 blocks of a
#   164-register kernel, one block of 256 threads a multiprocessor, 160 blocks on 132. Each
#   grid is resident alone (its cooperative launch checks that) but not beside the other
#   ranks': it failed as the library says it should, a flag's wait giving up after the
#   table's limit, naming the piece and the slice, every rank ending (check/check.log).
# Stage `exact NAME...`: coll_bench at 2 and 4 ranks for this tree and each .ab/NAME.tar (a
#   source tree, carried: `base` the commit before, `git archive`; others a variant of this
#   tree), interleaved this, NAME..., this, NAME...: the exact sum beside the plain one, 8 B
#   to 16 MiB. (The first call, `exact` alone, ran this, base, this.)
# Stage `ab NAME...`: as `exact`, then halo_bench --latency and halo_bench's shapes at 2 and
#   4 ranks for the same trees but `vector` (the exact sum's alone), interleaved the same way;
#   and this tree's halo_bench --device-blocks 32, twice. First, this tree's halo_check
#   device-side at 2 and 4 ranks, the interior changed every round and checked in-kernel.
#   Run as `run.sh ab base` on the tree of the direct faces (7133e88) beside 6d23f41:
#   results/h100/2026-12-07-item4/ab/. The variants `vector` and `in8` (the exact reduce
#   16 bytes at a time; 8 loads in flight) were not run with it.
# Run on the device machine from the repository root:  OUT=<dir> bash <this file> [stage] [NAME...]
# Everything the call writes is packed into $OUT/out.tar (the machine returns few files).
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
stage=${1:-check}
variants=("${@:2}")
[[ $stage == exact && ${#variants[@]} == 0 ]] && variants=(base)
ab=0
[[ $stage == exact || $stage == ab ]] && ab=1
targets=(coll_bench)
[[ $stage == ab ]] && targets+=(halo_bench)
dest=${OUT:-$here/out}
gpu_start "$dest/files" "$stage.log"
pack() { tar -C "$dest" -cf "$dest/out.tar" files && rm -rf "$dest/files"; }
trap 'mps_stop; pack' EXIT
b=$top/build-gpu
[[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
step "configure" timeout 300 cmake -S "$top" -B "$b" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
if ((ab)); then
  for v in "${variants[@]}"; do
    d=/tmp/$v
    rm -rf "$d" && mkdir -p "$d" && tar -xf "$top/.ab/$v.tar" -C "$d"
    (timeout 300 cmake -S "$d" -B "$d/build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON &&
      timeout 400 cmake --build "$d/build" -j 4 --target "${targets[@]}") >"$out/build-$v.log" 2>&1 &
  done
  mine=("${targets[@]}")
  [[ $stage == ab ]] && mine+=(halo_check)
  step "build" timeout 400 cmake --build "$b" -j 8 --target "${mine[@]}"
  wait
  for v in "${variants[@]}"; do
    step "build $v" test -x "$(find "/tmp/$v/build" -name coll_bench -type f | head -1)"
  done
else
  step "build" timeout 400 cmake --build "$b" -j 8 --target halo_check halo_bench coll_bench \
    shardtab_shared
fi
mps_start
# each PROGRAM FILE "NAME..." ARGS...: PROGRAM at 2 and 4 ranks, this tree and those
# variants, twice, into $out/FILE-npN.txt, each run headed by its number and tree
each() {
  local prog=$1 file=$2 np i v exe from
  local -a names
  read -r -a names <<<"$3"
  shift 3
  for np in 2 4; do
    i=0
    for v in this "${names[@]}" this "${names[@]}"; do
      i=$((i + 1))
      exe=$(find "$b" -name "$prog" -type f | head -1)
      [[ $v != this ]] && exe=$(find "/tmp/$v/build" -name "$prog" -type f | head -1)
      from=$(($(wc -l <"$log") + 1))
      step "$prog $* $v np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$exe" --allow-shared-gpu "$@"
      {
        echo "### run $i: $v"
        tail -n +$from "$log" | sed -n "/^# $prog: $np ranks/,/^# $prog: every/p"
      } >>"$out/$file-np$np.txt"
    done
  done
}
hc=$(find "$b" -name halo_check -type f | head -1)
hcr() { step "halo_check np$1 $2" run -np "$1" -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu "${@:3}"; }
if [[ $stage == ab ]]; then # the device-side rounds, each changing the interior, checked in-kernel
  for np in 2 4; do
    g="$np"
    [[ $np == 4 ]] && g="2,2"
    hcr $np "device-side 2-D corners (LL words)" --grid "$g" --periodic 1 --corners --uneven \
      --device --rounds 200
    hcr $np "device-side 3-byte cells (put)" --grid "$g" --periodic 1 --corners --elem 3 --device \
      --rounds 200
    hcr $np "device-side 256 KiB (put, 17 slices in one block)" --grid "$np,1" --periodic 1 \
      --block 16,2048 --ghost 8 --device --rounds 100
    hcr $np "256 KiB (put, 17 slices) shared by 8 blocks" --grid "$np,1" --periodic 1 \
      --block 16,2048 --ghost 8 --device-blocks 8 --rounds 100
    hcr $np "device-side ghosts 17 deep (pulled)" --grid "$np,1" --periodic 1 --block 32,4096 \
      --ghost 17 --device --rounds 20
  done
fi
if ((ab)); then
  each coll_bench exact "${variants[*]}" --min 8 --max 16777216 --repeats 7 --device-iters 1000
  if [[ $stage == ab ]]; then # halo_bench: the variants that change the halo's code
    halo=()
    for v in "${variants[@]}"; do [[ $v != vector ]] && halo+=("$v"); done
    each halo_bench latency "${halo[*]}" --latency
    each halo_bench shapes "${halo[*]}"
    each halo_bench blocks "" --device-blocks 32
  fi
  say "# failures: $failures"
  exit $((failures > 0))
fi
hc=$(find "$b" -name halo_check -type f | head -1)
hcr() { step "halo_check np$1 $2" run -np "$1" -x CUDA_MPS_PIPE_DIRECTORY "$hc" --allow-shared-gpu "${@:3}"; }
for np in 2 4; do
  g="$np"
  [[ $np == 4 ]] && g="2,2"
  hcr $np "2-D corners uneven (LL words)" --grid "$g" --periodic 1 --corners --uneven --rounds 50
  hcr $np "2-D corners uneven (LL words), pipelined" --grid "$g" --periodic 1 --corners --uneven \
    --pipelined --rounds 50
  hcr $np "device-side 2-D corners (LL words)" --grid "$g" --periodic 1 --corners --device --rounds 100
  hcr $np "3-byte cells (put, one slice)" --grid "$g" --periodic 1 --corners --elem 3 --rounds 20
  hcr $np "device-side 3-byte cells (put)" --grid "$g" --periodic 1 --corners --elem 3 --device \
    --rounds 100
  hcr $np "rows of 4096 doubles (put, one slice)" --grid "1,$np" --periodic 0,1 --block 4096,16 \
    --ghost 0,1 --rounds 50
  hcr $np "256 KiB (put, 17 slices)" --grid "$np,1" --periodic 1 --block 16,2048 --ghost 8 --rounds 50
  hcr $np "256 KiB (put, 17 slices), pipelined" --grid "$np,1" --periodic 1 --block 16,2048 \
    --ghost 8 --pipelined --rounds 50
  hcr $np "1 MiB planes (put, 32 slices)" --grid "1,1,$np" --periodic 0,0,1 --block 256,256,4 \
    --ghost 0,0,1 --rounds 20
  hcr $np "device-side 256 KiB (put, 17 slices in one block)" --grid "$np,1" --periodic 1 \
    --block 16,2048 --ghost 8 --device --rounds 50
  hcr $np "256 KiB (put, 17 slices) shared by 8 blocks" --grid "$np,1" --periodic 1 \
    --block 16,2048 --ghost 8 --device-blocks 8 --rounds 50
  hcr $np "256 KiB (put, 17 slices) shared by 40 blocks (23 spare)" --grid "$np,1" --periodic 1 \
    --block 16,2048 --ghost 8 --device-blocks 40 --rounds 50
  hcr $np "3-D 6-byte cells with corners, uneven (put, sliced)" --grid "1,$np,1" --periodic 1,0,1 \
    --corners --ghost 1,2,1 --elem 6 --block 48,40,60 --uneven --rounds 20
  hcr $np "3-D 6-byte cells with corners, uneven (put, sliced), pipelined" --grid "1,$np,1" \
    --periodic 1,0,1 --corners --ghost 1,2,1 --elem 6 --block 48,40,60 --uneven --pipelined \
    --rounds 20
  hcr $np "device-side 3-D 6-byte cells with corners (put, sliced)" --grid "1,$np,1" \
    --periodic 1,0,1 --corners --ghost 1,2,1 --elem 6 --block 48,40,60 --uneven --device --rounds 20
  hcr $np "3-D 6-byte cells with corners (put, sliced) shared by 3 blocks" --grid "1,$np,1" \
    --periodic 1,0,1 --corners --ghost 1,2,1 --elem 6 --block 48,40,60 --uneven \
    --device-blocks 3 --rounds 20
  hcr $np "ghosts 17 deep (pulled), pipelined" --grid "$np,1" --periodic 1 --block 32,4096 \
    --ghost 17 --pipelined --rounds 10
done
hb=$(find "$b" -name halo_bench -type f | head -1)
# hb FILE [args]: halo_bench at 2 and 4 ranks into $out/FILE-npN.txt
hb() {
  local file=$1 np from
  shift
  for np in 2 4; do
    from=$(($(wc -l <"$log") + 1))
    step "halo_bench $* np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$hb" --allow-shared-gpu "$@"
    tail -n +$from "$log" | grep -A9 "^# halo_bench: $np ranks" >>"$out/$file-np$np.txt"
  done
}
hb shapes
hb latency --latency
hb blocks --device-blocks 32
hb shapes
step "the halo and the collectives from Python" timeout 200 ctest --test-dir "$b" \
  -R "python[.](halo|collectives)" --output-on-failure
say "# failures: $failures"
exit $((failures > 0))
