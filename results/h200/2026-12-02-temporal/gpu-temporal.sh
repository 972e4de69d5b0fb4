#!/usr/bin/env bash
# gpu-temporal.sh - one call on the NVIDIA machine for --launch temporal (issue
# 22, temporal blocking, the stream of kernels/jacobi/jacobi_temporal.h): the CUDA
# build; the passes verified bit for bit against the plain reference (random
# start, every decided norm) at several sizes, depths and tile heights, the
# stop inside a pass, planted faults caught; timed beside persistent in one
# job (seconds for 1000 iterations, the norm every iteration, median of
# repeats after a warm-up solve), the tile heights and builds side by side;
# the device's copy rate (torch), which sets the one-pass limit; between ranks
# under CUDA MPS (2 to 4 ranks on the one GPU, their kernels running at once);
# the pass's SASS, Nsight Compute on one pass, compute-sanitizer.
#
#   bash scripts/gpu-temporal.sh [OUTDIR]      (default $OUT or ./gpu-temporal-out)
#   GPU_TEMPORAL_STEPS="check time rows builds ranks cross sass ncu sanitize" (the default:
#     all, in this order, so that a run stopped at its time limit has the first ones; cross:
#     persistent and temporal where auto's choice changes, and a trace of the passes at 2048^2)
#   GPU_TEMPORAL_BUILD_DIR=DIR: build (or reuse) the CUDA backend there
#   GPU_TEMPORAL_BUILDS="NAME:FLAGS ...": the builds "builds" times beside the default, FLAGS
#     comma-separated (default: "unroll1:-DJACOBI_TEMPORAL_STEP_UNROLL=1 mb4:-DJACOBI_TEMPORAL_MIN_BLOCKS=4")
#   GPU_TEMPORAL_TRACE=1: the passes' trace (1 rank at 16384^2 and 2048^2) in "time"
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-${OUT:-./gpu-temporal-out}}" temporal.log
steps=" ${GPU_TEMPORAL_STEPS:-check time rows builds ranks cross sass ncu sanitize} "
builds=${GPU_TEMPORAL_BUILDS:-"unroll1:-DJACOBI_TEMPORAL_STEP_UNROLL=1 mb4:-DJACOBI_TEMPORAL_MIN_BLOCKS=4"}
build=${GPU_TEMPORAL_BUILD_DIR:-$top/build-gpu-temporal}
gpu_build_cuda "$build"
jac=$build/jacobi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1
# the other builds compile while the checks run (their CPU time is not timed)
if [[ $steps == *" builds "* ]]; then
  for b in $builds; do
    name=${b%%:*} flags=${b#*:}
    (cmake -S "$top" -B "$top/build-gpu-temporal-$name" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF \
      "-DCMAKE_CUDA_FLAGS=${flags//,/ }" && cmake --build "$top/build-gpu-temporal-$name" -j 8 --target jacobi) \
      >"$top/build-gpu-temporal-$name.log" 2>&1 &
  done
fi
has() { [[ $steps == *" $1 "* ]]; }

# time_one LABEL NP "MPIRUN FLAGS" JACOBI NX NY [JACOBI ARGS...]: one timed run (1000 iterations, the
# median of 3 after a warm-up solve), verified, a line in timing.txt
time_one() {
  local label=$1 np=$2 flags=$3 j=$4 nx=$5 ny=$6 r t ok shared=()
  shift 6
  ((np > 1)) && shared=(--allow-shared-gpu)
  # shellcheck disable=SC2086  # the flags, word by word
  r=$(timeout 120 mpirun $mpi_oversubscribe --bind-to none -np "$np" $flags "$j" -nx "$nx" -ny "$ny" -niter 1000 \
    --repeat 3 --cpu-check no "${shared[@]}" "$@" 2>&1)
  echo "$r" >>"$log"
  t=$(solve_time "$r")
  ok=$(grep -c "^# verify jacobi: OK" <<<"$r")
  say "time ${nx}x${ny} np=$np $label ran/iters/s=$t verified=$ok" | tee -a "$out/timing.txt" >/dev/null
  ((ok == np || ok == 1)) || failures=$((failures + 1))
}

# ---- correctness, one rank: random start, every norm; faults caught --------------------------
if has check; then
  for g in "1024 1026" "2048 2048" "513 700" "4096 4096" "300 7" "16386 40"; do
    set -- $g
    step "verify temporal ${1}x${2}" expect_line "^# verify jacobi: OK" \
      run -np 1 "$jac" -nx "$1" -ny "$2" -niter 301 --launch temporal --init random --cpu-check no
  done
  for d in 1 3 5; do
    step "verify temporal depth $d" expect_line "^# verify jacobi: OK" run -np 1 -x JACOBI_TEMPORAL_DEPTH=$d \
      "$jac" -nx 1000 -ny 999 -niter 200 --launch temporal --init random --cpu-check no
  done
  for rows in 4 37 4096; do
    step "verify temporal rows $rows" expect_line "^# verify jacobi: OK" run -np 1 -x JACOBI_TEMPORAL_ROWS=$rows \
      "$jac" -nx 1000 -ny 999 -niter 200 --launch temporal --init random --cpu-check no
  done
  step "verify temporal nccheck 3" expect_line "^# verify jacobi: OK" \
    run -np 1 "$jac" -nx 1024 -ny 1026 -niter 301 -nccheck 3 --launch temporal --init random --cpu-check no
  step "converges temporal" expect_line "422 iterations each" run -np 1 "$jac" -nx 20 -ny 20 -niter 5000 \
    -nccheck 7 --launch temporal
  for spec in "run:edge:100:300:40" "run:stale:100:300:40" "run:norm:100:300:40" "run:stop:0:0:32"; do
    step "fault $spec caught" expect_rc 1 run -np 1 -x JACOBI_TEST_FAULT="$spec" "$jac" -nx 1024 -ny 1026 \
      -niter 200 --launch temporal --init random --cpu-check no
  done
  step "fault lag caught" expect_rc 1 run -np 1 -x JACOBI_TEST_FAULT=run:lag:12:5:0 "$jac" -nx 20 -ny 20 \
    -niter 5000 -nccheck 7 --launch temporal
fi

# ---- timing beside persistent, one job ---------------------------------------------------------
if has time; then
  timeout 120 python3 - >>"$log" 2>&1 <<'PY'
import statistics, torch
n = 1 << 30
a = torch.empty(n, dtype=torch.uint8, device="cuda"); b = torch.empty_like(a)
for _ in range(3): b.copy_(a)
ts = []
for _ in range(20):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); b.copy_(a); e.record(); e.synchronize(); ts.append(s.elapsed_time(e) / 1e3)
t = statistics.median(ts)
print(f"# device copy (torch copy_ of 1 GiB, median of 20): {2 * n / t / 1e9:.0f} GB/s read+write")
for g in (2048, 4096, 8192, 16384):
    print(f"# one-pass limit {g}^2: {1000 * 2 * g * g * 4 / (2 * n / t):.4f} s for 1000 iterations")
PY
  grep "^# device copy\|^# one-pass" "$log" | tee -a "$out/timing.txt"
  for n in 16384 8192 4096 3072 2048 1024; do
    for mode in persistent temporal; do
      time_one "$mode" 1 "" "$jac" "$n" "$n" --launch "$mode"
    done
  done
  if [[ ${GPU_TEMPORAL_TRACE:-0} == 1 ]]; then
    for n in 16384 2048; do
      step "trace ${n}^2 temporal" expect_line "^# verify jacobi: OK" run -np 1 "$jac" -nx "$n" -ny "$n" \
        -niter 1000 --launch temporal --cpu-check no --trace "$out/trace-temporal-$n.csv"
      grep -A3 "^# trace:" "$log" | tail -4 | sed "s/^/[temporal $n] /" | tee -a "$out/timing.txt"
    done
  fi
fi

# ---- the tile's height (JACOBI_TEMPORAL_ROWS) and the other builds --------------------------------
if has rows; then
  for sizes in "16384:128 256 512" "8192:64 128 256" "4096:32 64 128" "2048:16 32 64"; do
    n=${sizes%%:*}
    for rows in ${sizes#*:}; do
      time_one "temporal rows=$rows" 1 "-x JACOBI_TEMPORAL_ROWS=$rows" "$jac" "$n" "$n" --launch temporal
    done
  done
fi
if has builds; then
  wait
  # the default build beside the others, size by size, so that drift falls on all alike
  for n in 16384 8192 4096; do
    time_one "temporal build=default" 1 "" "$jac" "$n" "$n" --launch temporal
    for b in $builds; do
      name=${b%%:*}
      j=$top/build-gpu-temporal-$name/jacobi
      [[ -x $j ]] || { say "# build $name failed"; tail -20 "$top/build-gpu-temporal-$name.log" >>"$log"; failures=$((failures + 1)); continue; }
      time_one "temporal build=$name" 1 "" "$j" "$n" "$n" --launch temporal
    done
  done
fi

# ---- between ranks, under MPS (the ranks' kernels at once on the one GPU) ------------------------
if has ranks; then
  mps_start
  mps=(-x CUDA_MPS_PIPE_DIRECTORY)
  for g in "2 1024 1026" "2 2048 2048" "2 513 700" "3 1000 999" "4 4096 4096"; do
    set -- $g
    step "verify temporal np=$1 ${2}x${3}" expect_line "^# verify jacobi: OK" run -np "$1" "${mps[@]}" "$jac" \
      -nx "$2" -ny "$3" -niter 301 --launch temporal --init random --cpu-check no --allow-shared-gpu
  done
  step "verify temporal np=2 depth 3 nccheck 3" expect_line "^# verify jacobi: OK" run -np 2 "${mps[@]}" \
    -x JACOBI_TEMPORAL_DEPTH=3 "$jac" -nx 1024 -ny 1026 -niter 200 -nccheck 3 --launch temporal --init random \
    --cpu-check no --allow-shared-gpu
  step "converges temporal np=2" expect_line "422 iterations each" run -np 2 "${mps[@]}" "$jac" -nx 20 -ny 20 \
    -niter 5000 -nccheck 7 --launch temporal --allow-shared-gpu
  # rank 1's first row is grid row 514 of 1026: its tile's deepest ghost row comes from rank 0
  step "fault edge (deep ghost row) np=2 caught" expect_rc 1 run -np 2 "${mps[@]}" \
    -x JACOBI_TEST_FAULT=run:edge:514:300:40 "$jac" -nx 1024 -ny 1026 -niter 200 --launch temporal \
    --init random --cpu-check no --allow-shared-gpu
  step "fault lag np=2 caught" expect_rc 1 run -np 2 "${mps[@]}" -x JACOBI_TEST_FAULT=run:lag:12:5:0 "$jac" -nx 20 \
    -ny 20 -niter 5000 -nccheck 7 --launch temporal --allow-shared-gpu
  step "never signals np=2" expect_rc_line 1 "late, stuck or gone" run -np 2 "${mps[@]}" \
    -x JACOBI_TEST_SKIP_SIGNAL=1 -x SHARDTAB_WAIT_TIMEOUT=3 "$jac" -nx 1024 -ny 1026 -niter 100 \
    --launch temporal --allow-shared-gpu
  for n in 2048 16384; do
    for mode in persistent temporal; do
      time_one "mps $mode" 2 "${mps[*]}" "$jac" "$n" "$n" --launch "$mode"
    done
  done
  mps_stop
fi

# ---- where auto's choice changes (JACOBI_TEMPORAL_AUTO_POINTS, src/jacobi/jacobi_solve.c) -------
if has cross; then
  for n in 2048 2560 3072; do
    for mode in persistent temporal auto; do
      time_one "$mode" 1 "" "$jac" "$n" "$n" --launch "$mode"
    done
  done
  step "trace 2048^2 temporal" expect_line "^# verify jacobi: OK" run -np 1 "$jac" -nx 2048 -ny 2048 \
    -niter 1000 --launch temporal --cpu-check no --trace "$out/trace-temporal-2048.csv"
  grep -A3 "^# trace:" "$log" | tail -4 | sed "s/^/[temporal 2048] /" | tee -a "$out/timing.txt"
fi

# ---- the pass's machine code; where its time goes --------------------------------------------
if has sass; then
  obj=$(find "$build" -name 'jacobi_temporal.hip.o' | head -1)
  cuobjdump -sass -fun '_Z26jacobi_temporal_pass_tilesILi0EEv11jacobi_step' "$obj" >"$out/temporal-sass.txt" 2>&1 ||
    say "# no cuobjdump"
  cuobjdump -res-usage "$obj" 2>&1 | grep -A1 temporal | tee -a "$log" >/dev/null
fi
if has ncu; then
  ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
  timeout 200 "$ncu" --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis \
    -k regex:jacobi_temporal_pass --launch-skip 20 --launch-count 1 "$jac" -nx 16384 -ny 16384 -niter 200 \
    --launch temporal --cpu-check no >"$out/ncu-16384.txt" 2>&1
  say "# ncu exit $?"
fi
if has sanitize; then
  gpu_sanitize 150 "$jac" -nx 600 -ny 70 -niter 12 --launch temporal --init random --cpu-check no
fi
say "# failures: $failures"
exit $((failures > 0))
