#!/usr/bin/env bash
# run.sh - jacobi on the library's direct faces (shardtab_faces.h), on one NVIDIA GPU under
# MPS, in one call:
#   1. this tree's jacobi verified at 1 to 4 ranks: every launch mode, the host-sync and MPI
#      variants (the MPI variant's rows through shardtab_faces_exchange, staged: this Open MPI
#      is not CUDA-aware), simulated nodes of one rank (the same exchange across them);
#      and docs/examples/faces2d (a user's kernel storing into the direct faces) at 1, 2, 4
#      ranks and over simulated nodes of two;
#   2. jacobi timed, this tree beside the commit before it (.ab/pre.tar, git archive of
#      40111dc, carried), interleaved this, pre, this, pre: every launch at 2 ranks, 4096^2
#      (on chip 2048^2);
#   3. while the call has time: coll_bench's exact sum and halo_bench --latency, this tree
#      beside .ab/base.tar (6d23f41, the tree before today's exact-sum start and halo copy
#      loop), interleaved the same way.
# `run.sh verify`: stage 1 alone, this tree's jacobi and faces2d built, nothing else (a
# call with little device time left).
# Not run yet: every start in the session that wrote it was refused, until its device time
# ran out. The next call: `run.sh` with .ab/pre.tar and .ab/base.tar carried.
# Run on the device machine from the repository root:  OUT=<dir> bash <this file> [verify]
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
mode=${1:-all}
dest=${OUT:-$here/out}
gpu_start "$dest" faces.log
trap 'mps_stop' EXIT
b=$top/build-gpu
[[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
# the other trees, built beside this one
for v in pre base; do
  [[ -f $top/.ab/$v.tar ]] || continue
  d=/tmp/$v
  targets=(jacobi)
  [[ $v == base ]] && targets=(coll_bench halo_bench)
  rm -rf "$d" && mkdir -p "$d" && tar -xf "$top/.ab/$v.tar" -C "$d"
  (timeout 300 cmake -S "$d" -B "$d/build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON &&
    timeout 400 cmake --build "$d/build" -j 5 --target "${targets[@]}") >"$out/build-$v.log" 2>&1 &
done
step "configure" timeout 300 cmake -S "$top" -B "$b" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
mine=(jacobi example_faces2d)
[[ $mode == verify ]] || mine+=(coll_bench halo_bench)
step "build" timeout 400 cmake --build "$b" -j 12 --target "${mine[@]}"
wait
export GPU_RUN_LIMIT=120 # a run's bound (gpu-common.sh's run)
mps_start
exe() { if [[ $1 == this ]]; then find "$b" -name "$2" -type f | head -1; else find "/tmp/$1/build" -name "$2" -type f | head -1; fi; }
j=$(exe this jacobi)
ok='^# verify jacobi: OK'
# ---- 1. verified ----------------------------------------------------------------------
for l in persistent onchip temporal graph stream; do
  step "np1 $l" expect_line "$ok" run -np 1 "$j" -nx 1024 -ny 1026 -niter 301 \
    --launch "$l" --init random --cpu-check no
  step "np2 $l" expect_line "$ok" run -np 2 -x CUDA_MPS_PIPE_DIRECTORY "$j" -nx 1024 \
    -ny 1030 -niter 300 --launch "$l" --init random --cpu-check no --allow-shared-gpu
done
step "np3 temporal" expect_line "$ok" run -np 3 -x CUDA_MPS_PIPE_DIRECTORY "$j" -nx 1000 \
  -ny 999 -niter 301 --launch temporal --init random --cpu-check no --allow-shared-gpu
step "np4 onchip" expect_line "$ok" run -np 4 -x CUDA_MPS_PIPE_DIRECTORY "$j" -nx 1024 \
  -ny 1030 -niter 300 --launch onchip --init random --cpu-check no --allow-shared-gpu
for v in host-sync mpi; do
  step "np2 variant $v" expect_line "$ok" run -np 2 -x CUDA_MPS_PIPE_DIRECTORY "$j" \
    -nx 1026 -ny 515 -niter 200 --init random --variant "$v" --allow-shared-gpu
done
step "np3 variant mpi" expect_line "$ok" run -np 3 -x CUDA_MPS_PIPE_DIRECTORY "$j" \
  -nx 1026 -ny 515 -niter 200 --init random --variant mpi --allow-shared-gpu
for np in 2 4; do
  step "np$np nodes of one rank" expect_line "$ok" run -np $np \
    -x CUDA_MPS_PIPE_DIRECTORY -x SHARDTAB_RANKS_PER_NODE=1 "$j" -nx 1026 -ny 515 -niter 200 \
    --init random --allow-shared-gpu
done
step "np4 nodes of two ranks" expect_line "$ok" run -np 4 -x CUDA_MPS_PIPE_DIRECTORY \
  -x SHARDTAB_RANKS_PER_NODE=2 "$j" -nx 1026 -ny 515 -niter 200 --init random --allow-shared-gpu
f=$(exe this example_faces2d) # docs/examples/faces2d.c: the direct faces from a user's kernel
for np in 1 2 4; do
  step "faces2d np$np" expect_line '^faces2d: OK' run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$f" \
    --nx 4096 --ny 1000 --steps 10 --allow-shared-gpu
done
step "faces2d np4 nodes of two ranks" expect_line '^faces2d: OK .*through MPI 4' run -np 4 \
  -x CUDA_MPS_PIPE_DIRECTORY -x SHARDTAB_RANKS_PER_NODE=2 "$f" --nx 4096 --ny 1000 --steps 10 \
  --allow-shared-gpu
if [[ $mode == verify ]]; then
  say "# seconds: $SECONDS"
  say "# failures: $failures"
  exit $((failures > 0))
fi
# ---- 2. timed: this beside pre ------------------------------------------------------------
for round in 1 2; do
  for l in persistent onchip temporal graph stream; do
    for v in this pre; do
      ((SECONDS < 380)) || break 3 # the call's end: the exact sum's pairs want a turn too
      e=$(exe $v jacobi)
      [[ -n $e ]] || continue
      from=$(($(wc -l <"$log") + 1))
      n=4096
      [[ $l == onchip ]] && n=2048 # 4096^2 at 2 ranks: more rows a tile than on chip
      step "time $v $l round $round" run -np 2 -x CUDA_MPS_PIPE_DIRECTORY "$e" -nx $n \
        -ny $n -niter 1000 --launch "$l" --repeat 3 --init random --cpu-check no --allow-shared-gpu
      tail -n +$from "$log" | grep -E "iterations, [0-9.]+ s" | sed "s/^/$v $l round $round: /" \
        >>"$out/jacobi-time.txt"
    done
  done
done
# ---- 3. while there is time: the exact sum and the halo's latency, this beside base --------
for round in 1 2; do
  for v in this base; do
    ((SECONDS < 440)) || break 2
    e=$(exe $v coll_bench)
    [[ -n $e ]] || continue
    for np in 2 4; do
      from=$(($(wc -l <"$log") + 1))
      GPU_RUN_LIMIT=60 step "coll_bench $v np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$e" \
        --allow-shared-gpu --min 8 --max 16777216 --repeats 7 --device-iters 1000
      { echo "### round $round: $v"; tail -n +$from "$log"; } >>"$out/exact-np$np.txt"
    done
  done
done
for round in 1 2; do
  for v in this base; do
    ((SECONDS < 500)) || break 2
    e=$(exe $v halo_bench)
    [[ -n $e ]] || continue
    for np in 2 4; do
      from=$(($(wc -l <"$log") + 1))
      GPU_RUN_LIMIT=40 step "halo_bench --latency $v np$np" run -np $np -x CUDA_MPS_PIPE_DIRECTORY "$e" \
        --allow-shared-gpu --latency
      { echo "### round $round: $v"; tail -n +$from "$log"; } >>"$out/latency-np$np.txt"
    done
  done
done
say "# seconds: $SECONDS"
say "# failures: $failures"
exit $((failures > 0))
