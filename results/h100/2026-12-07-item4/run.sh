#!/usr/bin/env bash
# run.sh - issue 51's item-4 job on one NVIDIA GPU under MPS, in one call, on the tree whose
# jacobi and example store into the library's direct faces (shardtab_faces.h):
#   1. verified: this tree's jacobi at 1 to 4 ranks (every launch mode; the host-sync and MPI
#      variants, the MPI variant's rows through shardtab_faces_exchange, staged: this Open MPI
#      is not CUDA-aware; simulated nodes of one rank and of two); the examples the GPU runs
#      (docs/examples: table_kernel at 2 ranks, heat3d at 1, 2, 3, 4 and 8, faces2d at 1, 2,
#      3 and at 4 over simulated nodes of two);
#   2. item 4's figures: halo_bench's shapes (2-D faces of 4096 and 16384 doubles, w 1 and 4;
#      3-D faces of 256^2) beside the copy engines and host-staged MPI, at 2 and 4 ranks;
#      halo_bench --latency; coll_bench's exact sum beside the plain one, 8 B to 16 MiB;
#   3. jacobi timed, this tree beside the tree before the direct faces (.ab/pre.tar, git
#      archive of 40111dc, carried), interleaved this, pre: every launch at 2 ranks, 4096^2
#      (on chip 2048^2), while the call has time; then halo_bench --device-blocks 32.
# `run.sh verify`: stage 1 alone (a call with little device time left).
# Run once, on an H100 (driver 580.159.04): this folder's files; written for the H200 that
# issue 51 names, which the session's calls did not get.
# Run on the device machine from the repository root:  OUT=<dir> bash <this file> [verify]
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
mode=${1:-all}
dest=${OUT:-$here/out}
gpu_start "$dest" item4.log
trap 'mps_stop' EXIT
b=$top/build-gpu
[[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
# the tree before, its jacobi built beside this one
if [[ $mode != verify && -f $top/.ab/pre.tar ]]; then
  rm -rf /tmp/pre && mkdir -p /tmp/pre && tar -xf "$top/.ab/pre.tar" -C /tmp/pre
  (timeout 300 cmake -S /tmp/pre -B /tmp/pre/build -DSHARDTAB_BACKEND=cuda &&
    timeout 400 cmake --build /tmp/pre/build -j 4 --target jacobi) >"$out/build-pre.log" 2>&1 &
fi
step "configure" timeout 300 cmake -S "$top" -B "$b" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
mine=(jacobi example_faces2d example_heat3d example_table_kernel)
[[ $mode == verify ]] || mine+=(coll_bench halo_bench)
step "build" timeout 400 cmake --build "$b" -j 12 --target "${mine[@]}"
wait
export GPU_RUN_LIMIT=120 # a run's bound (gpu-common.sh's run)
mps_start
exe() { if [[ $1 == this ]]; then find "$b" -name "$2" -type f | head -1; else find "/tmp/$1/build" -name "$2" -type f | head -1; fi; }
shared=(-x CUDA_MPS_PIPE_DIRECTORY)
j=$(exe this jacobi)
ok='^# verify jacobi: OK'
# ---- 1. verified ----------------------------------------------------------------------
for l in persistent onchip temporal graph stream; do
  step "np1 $l" expect_line "$ok" run -np 1 "$j" -nx 1024 -ny 1026 -niter 301 \
    --launch "$l" --init random --cpu-check no
  step "np2 $l" expect_line "$ok" run -np 2 "${shared[@]}" "$j" -nx 1024 -ny 1030 -niter 300 \
    --launch "$l" --init random --cpu-check no --allow-shared-gpu
done
step "np3 temporal" expect_line "$ok" run -np 3 "${shared[@]}" "$j" -nx 1000 -ny 999 \
  -niter 301 --launch temporal --init random --cpu-check no --allow-shared-gpu
step "np4 onchip" expect_line "$ok" run -np 4 "${shared[@]}" "$j" -nx 1024 -ny 1030 \
  -niter 300 --launch onchip --init random --cpu-check no --allow-shared-gpu
for v in host-sync mpi; do
  step "np2 variant $v" expect_line "$ok" run -np 2 "${shared[@]}" "$j" -nx 1026 -ny 515 \
    -niter 200 --init random --variant "$v" --allow-shared-gpu
done
step "np3 variant mpi" expect_line "$ok" run -np 3 "${shared[@]}" "$j" -nx 1026 -ny 515 \
  -niter 200 --init random --variant mpi --allow-shared-gpu
for rpn in 1 2; do
  for np in 2 4; do
    ((rpn == 2 && np == 2)) && continue
    step "np$np nodes of $rpn" expect_line "$ok" run -np $np "${shared[@]}" \
      -x SHARDTAB_RANKS_PER_NODE=$rpn "$j" -nx 1026 -ny 515 -niter 200 --init random \
      --allow-shared-gpu
  done
done
# the examples, as tests/examples/run_examples.sh runs them: one line "NAME: OK ..."
example() {
  local name=$1 np=$2
  shift 2
  step "$name np$np $*" expect_line "^$name: OK " run -np "$np" "${shared[@]}" "$@" \
    "$(exe this "example_$name")" --allow-shared-gpu
}
example table_kernel 2
for np in 1 2 3 4 8; do example heat3d $np; done # grids 1x1x1, 1x1x2, 1x1x3, 1x2x2, 2x2x2
for np in 1 2 3; do example faces2d $np; done    # rings of one, two and three ranks
example faces2d 4 -x SHARDTAB_RANKS_PER_NODE=2   # simulated nodes of two: both routes
if [[ $mode == verify ]]; then
  say "# seconds: $SECONDS"
  say "# failures: $failures"
  exit $((failures > 0))
fi
# ---- 2. item 4's figures ----------------------------------------------------------------
# bench PROGRAM FILE LIMIT ARGS...: PROGRAM at 2 and 4 ranks, each run's output in $out/FILE-npN.txt
bench() {
  local prog=$1 file=$2 limit=$3 np from
  shift 3
  for np in 2 4; do
    from=$(($(wc -l <"$log") + 1))
    GPU_RUN_LIMIT=$limit step "$prog $* np$np" run -np $np "${shared[@]}" "$(exe this "$prog")" \
      --allow-shared-gpu "$@"
    tail -n +"$from" "$log" >>"$out/$file-np$np.txt"
  done
}
bench halo_bench shapes 90
bench halo_bench latency 60 --latency
bench coll_bench exact 90 --min 8 --max 16777216 --repeats 7 --device-iters 1000
# ---- 3. jacobi, this beside the tree before; then the shared device-side exchange ---------
for round in 1 2; do
  for l in persistent onchip temporal graph stream; do
    for v in this pre; do
      ((SECONDS < 470)) || break 3
      e=$(exe $v jacobi)
      [[ -n $e ]] || continue
      from=$(($(wc -l <"$log") + 1))
      n=4096
      [[ $l == onchip ]] && n=2048 # 4096^2 at 2 ranks: more rows a tile than on chip
      step "time $v $l round $round" run -np 2 "${shared[@]}" "$e" -nx $n -ny $n -niter 1000 \
        --launch "$l" --repeat 3 --init random --cpu-check no --allow-shared-gpu
      tail -n +"$from" "$log" | grep -E "iterations, [0-9.]+ s" | sed "s/^/$v $l round $round: /" \
        >>"$out/jacobi-time.txt"
    done
  done
done
((SECONDS < 520)) && bench halo_bench blocks 40 --device-blocks 32
say "# seconds: $SECONDS"
say "# failures: $failures"
exit $((failures > 0))
