#!/usr/bin/env bash
# gpu-temporal.sh - one call on the NVIDIA machine for --launch temporal (issue
# 22, temporal blocking): the CUDA build; the passes verified bit for bit
# against the plain reference (random start, every decided norm) at several
# sizes and every depth, the stop inside a pass, planted faults caught, the
# refusal at two ranks; compute-sanitizer memcheck and racecheck on the pass;
# then, in one job, seconds for 1000 iterations with the norm every iteration
# (median of 5 after a warm-up) for temporal at depths 5 and 7, a block a
# tile or a resident grid loading ahead, beside persistent, at 2048^2 to
# 16384^2; the device's copy rate (torch) that sets the one-pass limit; and
# Nsight Compute on one pass.
#
#   bash scripts/gpu-temporal.sh [OUTDIR]      (default $OUT or ./gpu-temporal-out)
#   GPU_TEMPORAL_QUICK=1: the correctness steps and one timing (16384^2, depth 7) only
#   GPU_TEMPORAL_TUNE=1: the correctness steps, then the tile's rows (32, 16, 12, and the
#     blocks a multiprocessor each is built for) timed beside persistent, and the pass's SASS
#   GPU_TEMPORAL_FINAL=1, GPU_TEMPORAL_AB="DIR ...": see below
#   GPU_TEMPORAL_TRACE=1: no correctness steps but the timed runs' own checks: the passes'
#     trace (1 rank, and 2 under MPS), timing beside persistent, Nsight Compute's full set on
#     one pass at 16384^2 (where its warps stall)
#   GPU_TEMPORAL_RANKS=1: the correctness steps, compute-sanitizer, then the passes between
#     ranks under CUDA MPS (2 ranks on the GPU, their kernels running at once): verified at
#     several sizes, the stop inside a pass, faults in the deep ghost rows and the rerun
#     caught, a neighbour that never signals; timed beside persistent at 2 ranks
set -u
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/gpu-common.sh"
gpu_start "${1:-${OUT:-./gpu-temporal-out}}" temporal.log
build=$top/build-gpu-temporal
gpu_build_cuda "$build"
jac=$build/jacobi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1

# GPU_TEMPORAL_FINAL=1: a short confirmation of the committed code, most important first:
# the passes between ranks under MPS, one rank's checks and faults, its time beside
# persistent, compute-sanitizer
if [[ ${GPU_TEMPORAL_FINAL:-0} == 1 ]]; then
  mps_start
  mps=(-x CUDA_MPS_PIPE_DIRECTORY)
  for g in "2 1024 1026" "3 1000 999" "4 4096 4096"; do
    set -- $g
    step "verify temporal np=$1 ${2}x${3}" expect_line "^# verify jacobi: OK" run -np "$1" "${mps[@]}" "$jac" \
      -nx "$2" -ny "$3" -niter 301 --launch temporal --init random --cpu-check no --allow-shared-gpu
  done
  step "converges temporal np=2" expect_line "422 iterations each" run -np 2 "${mps[@]}" "$jac" -nx 20 -ny 20 \
    -niter 5000 -nccheck 7 --launch temporal --allow-shared-gpu
  step "fault edge (deep ghost row) np=2 caught" expect_rc 1 run -np 2 "${mps[@]}" -x JACOBI_TEST_FAULT=run:edge:514:300:40 \
    "$jac" -nx 1024 -ny 1026 -niter 200 --launch temporal --init random --cpu-check no --allow-shared-gpu
  step "never signals np=2" expect_rc_line 1 "late, stuck or gone" run -np 2 "${mps[@]}" -x JACOBI_TEST_SKIP_SIGNAL=1 \
    -x SHARDTAB_WAIT_TIMEOUT=3 "$jac" -nx 1024 -ny 1026 -niter 100 --launch temporal --allow-shared-gpu
  mps_stop
  for g in "2048 2048" "513 700" "300 7"; do
    set -- $g
    step "verify temporal ${1}x${2}" expect_line "^# verify jacobi: OK" \
      run -np 1 "$jac" -nx "$1" -ny "$2" -niter 301 --launch temporal --init random --cpu-check no
  done
  for spec in "run:edge:100:300:40" "run:stale:100:300:40"; do
    step "fault $spec caught" expect_rc 1 run -np 1 -x JACOBI_TEST_FAULT="$spec" "$jac" -nx 1024 -ny 1026 \
      -niter 200 --launch temporal --init random --cpu-check no
  done
  for n in 16384 2048; do
    for mode in persistent temporal; do
      r=$(timeout 60 mpirun $mpi_oversubscribe --bind-to none -np 1 "$jac" -nx "$n" -ny "$n" -niter 1000 \
        --launch "$mode" --repeat 3 --cpu-check no 2>&1)
      echo "$r" >>"$log"
      t=$(solve_time "$r")
      say "time ${n}^2 $mode ran/iters/s=$t verified=$(echo "$r" | grep -c '^# verify jacobi: OK')" | tee -a "$out/timing.txt" >/dev/null
    done
  done
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool" expect_line "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" \
      timeout 120 "$cs" --tool $tool --error-exitcode 9 "$jac" -nx 600 -ny 70 -niter 12 --launch temporal \
      --init random --cpu-check no
  done
  say "# failures: $failures"
  exit $((failures > 0))
fi

# GPU_TEMPORAL_AB="DIR ...": other source trees (a git archive each) built beside this one and
# timed with it in one job, temporal at 16384^2 and 2048^2 in two alternating rounds (this
# tree's persistent once beside them)
if [[ -n ${GPU_TEMPORAL_AB:-} ]]; then
  # shellcheck disable=SC2206  # the trees, one word each
  trees=("$top" $GPU_TEMPORAL_AB)
  for i in "${!trees[@]}"; do
    ((i == 0)) && continue
    (cmake -S "${trees[$i]}" -B "$top/build-ab-$i" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF &&
      cmake --build "$top/build-ab-$i" -j 6 --target jacobi) >"$out/build-ab-$i.log" 2>&1 &
  done
  wait
  for n in 16384 2048; do
    for round in 1 2; do
      for i in "${!trees[@]}"; do
        j=$jac
        ((i > 0)) && j=$top/build-ab-$i/jacobi
        [[ -x $j ]] || { say "# tree ${trees[$i]}: no build"; failures=$((failures + 1)); continue; }
        for mode in temporal persistent; do
          [[ $mode == persistent && ($round == 2 || $i -gt 0) ]] && continue
          r=$(timeout 120 mpirun $mpi_oversubscribe --bind-to none -np 1 "$j" -nx "$n" -ny "$n" -niter 1000 \
            --launch "$mode" --repeat 3 --cpu-check no 2>&1)
          echo "$r" >>"$log"
          t=$(solve_time "$r")
          say "time tree=${trees[$i]##*/} round=$round ${n}^2 $mode ran/iters/s=$t verified=$(echo "$r" | grep -c '^# verify jacobi: OK')" |
            tee -a "$out/timing.txt" >/dev/null
        done
      done
    done
  done
  say "# failures: $failures"
  exit $((failures > 0))
fi

if [[ ${GPU_TEMPORAL_TRACE:-0} == 1 ]]; then
  for t in "1 16384" "1 8192" "1 2048"; do
    set -- $t
    for mode in temporal persistent; do
      step "trace np=$1 ${2}^2 $mode" expect_line "^# verify jacobi: OK" run -np "$1" "$jac" -nx "$2" -ny "$2" \
        -niter 1000 --launch "$mode" --cpu-check no --trace "$out/trace-$mode-np$1-$2.csv"
      grep -A3 "^# trace:" "$log" | tail -4 | sed "s/^/[$mode np=$1 $2] /" | tee -a "$out/timing.txt"
    done
  done
  say "# timing: seconds for 1000 iterations, the norm every iteration, median of 5"
  for n in 16384 8192 4096 2048; do
    for mode in persistent temporal; do
      r=$(timeout 120 mpirun $mpi_oversubscribe --bind-to none -np 1 "$jac" -nx "$n" -ny "$n" -niter 1000 \
        --launch "$mode" --repeat 5 --cpu-check no 2>&1)
      echo "$r" >>"$log"
      t=$(solve_time "$r")
      say "time ${n}^2 $mode ran/iters/s=$t verified=$(echo "$r" | grep -c '^# verify jacobi: OK')" | tee -a "$out/timing.txt" >/dev/null
    done
  done
  mps_start
  step "trace np=2 2048^2 temporal (MPS)" expect_line "^# verify jacobi: OK" run -np 2 -x CUDA_MPS_PIPE_DIRECTORY \
    "$jac" -nx 2048 -ny 2048 -niter 1000 --launch temporal --cpu-check no --allow-shared-gpu \
    --trace "$out/trace-temporal-np2-2048.csv"
  grep -A4 "^# trace:" "$log" | tail -5 | sed "s/^/[temporal np=2 2048 mps] /" | tee -a "$out/timing.txt"
  mps_stop
  ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
  timeout 240 "$ncu" --clock-control none --set full --import-source no -k regex:jacobi_temporal_pass_tiles \
    --launch-skip 20 --launch-count 1 "$jac" -nx 16384 -ny 16384 -niter 200 --launch temporal --cpu-check no \
    >"$out/ncu-full-16384.txt" 2>&1
  say "# ncu exit $?"
  say "# failures: $failures"
  exit $((failures > 0))
fi

# ---- correctness: random start, every norm, every depth; faults caught ---------------------
for g in "1024 1026" "2048 2048" "513 700" "4096 4096" "300 7"; do
  set -- $g
  step "verify temporal ${1}x${2}" expect_line "^# verify jacobi: OK" \
    run -np 1 "$jac" -nx "$1" -ny "$2" -niter 301 --launch temporal --init random --cpu-check no
done
for d in 1 3 7; do
  step "verify temporal depth $d" expect_line "^# verify jacobi: OK" \
    run -np 1 -x JACOBI_TEMPORAL_DEPTH=$d "$jac" -nx 1000 -ny 999 -niter 200 --launch temporal --init random --cpu-check no
done
for g in "1000 999" "2048 2048" "300 7"; do
  set -- $g
  step "verify temporal prefetch ${1}x${2}" expect_line "^# verify jacobi: OK" \
    run -np 1 -x JACOBI_TEMPORAL_PREFETCH=1 "$jac" -nx "$1" -ny "$2" -niter 201 --launch temporal --init random --cpu-check no
done
step "verify temporal nccheck 3" expect_line "^# verify jacobi: OK" \
  run -np 1 "$jac" -nx 1024 -ny 1026 -niter 301 -nccheck 3 --launch temporal --init random --cpu-check no
step "converges temporal" expect_line "422 iterations each" run -np 1 "$jac" -nx 20 -ny 20 -niter 5000 -nccheck 7 --launch temporal
for spec in "run:edge:100:300:40" "run:stale:100:300:40" "run:norm:100:300:40" "run:stop:0:0:32"; do
  step "fault $spec caught" expect_rc 1 run -np 1 -x JACOBI_TEST_FAULT="$spec" "$jac" -nx 1024 -ny 1026 \
    -niter 200 --launch temporal --init random --cpu-check no
done
step "temporal prefetch refuses 2 ranks" expect_rc 2 run -np 2 -x JACOBI_TEMPORAL_PREFETCH=1 "$jac" -nx 1024 \
  -ny 1024 -niter 10 --launch temporal --allow-shared-gpu

if [[ ${GPU_TEMPORAL_QUICK:-0} == 1 ]]; then
  r=$(timeout 120 mpirun $mpi_oversubscribe --bind-to none -np 1 "$jac" -nx 16384 -ny 16384 -niter 1000 \
    --launch temporal --repeat 3 --cpu-check no 2>&1)
  echo "$r" >>"$log"
  say "time 16384^2 temporal (defaults): $(echo "$r" | grep -o 'variant table (temporal launches): [0-9]* iterations, [0-9.]* s') verified=$(echo "$r" | grep -c '^# verify jacobi: OK')"
  say "# failures: $failures"
  exit $((failures > 0))
fi

if [[ ${GPU_TEMPORAL_TUNE:-0} == 1 ]]; then
  for cut in 32:2 16:3 12:4; do
    IFS=: read -r rows blocks <<<"$cut"
    vb=$top/build-gpu-temporal-$rows
    [[ $rows == 32 ]] && { ln -sfn "$build" "$vb"; continue; } # the default build
    step "build rows $rows" cmake -S "$top" -B "$vb" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF \
      "-DCMAKE_CUDA_FLAGS=-DJACOBI_TEMPORAL_ROWS=$rows -DJACOBI_TEMPORAL_MIN_BLOCKS=$blocks"
    step "build rows $rows jacobi" cmake --build "$vb" -j 16 --target jacobi
    step "verify rows $rows" expect_line "^# verify jacobi: OK" run -np 1 "$vb/jacobi" -nx 1000 -ny 999 \
      -niter 201 --launch temporal --init random --cpu-check no
  done
  obj=$(find "$build" -name 'jacobi_temporal.hip.o' | head -1)
  cuobjdump -sass "$obj" >"$out/temporal-sass.txt" 2>&1 || say "# no cuobjdump"
  say "# timing: seconds for 1000 iterations, the norm every iteration, median of 5"
  for n in 16384 8192 4096 2048; do
    for l in persistent:32:7 temporal:32:5 temporal:32:7 temporal:16:7 temporal:12:7 temporal:12:5; do
      IFS=: read -r mode rows depth <<<"$l"
      r=$(timeout 120 mpirun $mpi_oversubscribe --bind-to none -np 1 -x JACOBI_TEMPORAL_DEPTH="$depth" \
        "$top/build-gpu-temporal-$rows/jacobi" -nx "$n" -ny "$n" -niter 1000 --launch "$mode" --repeat 5 \
        --cpu-check no 2>&1)
      echo "$r" >>"$log"
      t=$(solve_time "$r")
      ok=$(echo "$r" | grep -c "^# verify jacobi: OK")
      say "time ${n}^2 $l (mode:rows:depth) ran/iters/s=$t verified=$ok" | tee -a "$out/timing.txt" >/dev/null
    done
  done
  say "# failures: $failures"
  exit $((failures > 0))
fi

# ---- compute-sanitizer on the pass ---------------------------------------------------------
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool" expect_line "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" \
    timeout 300 "$cs" --tool $tool --error-exitcode 9 "$jac" -nx 600 -ny 70 -niter 12 --launch temporal \
    --init random --cpu-check no
done

if [[ ${GPU_TEMPORAL_RANKS:-0} == 1 ]]; then
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
  step "fault edge (deep ghost row) np=2 caught" expect_rc 1 run -np 2 "${mps[@]}" -x JACOBI_TEST_FAULT=run:edge:514:300:40 \
    "$jac" -nx 1024 -ny 1026 -niter 200 --launch temporal --init random --cpu-check no --allow-shared-gpu
  step "fault lag np=2 caught" expect_rc 1 run -np 2 "${mps[@]}" -x JACOBI_TEST_FAULT=run:lag:12:5:0 "$jac" -nx 20 \
    -ny 20 -niter 5000 -nccheck 7 --launch temporal --allow-shared-gpu
  step "never signals np=2" expect_rc_line 1 "late, stuck or gone" run -np 2 "${mps[@]}" -x JACOBI_TEST_SKIP_SIGNAL=1 \
    -x SHARDTAB_WAIT_TIMEOUT=3 "$jac" -nx 1024 -ny 1026 -niter 100 --launch temporal --allow-shared-gpu
  say "# timing under MPS, 2 ranks on the one GPU: seconds for 1000 iterations, the norm every iteration, median of 3"
  for n in 2048 4096 8192 16384; do
    for mode in persistent temporal; do
      r=$(timeout 120 mpirun $mpi_oversubscribe --bind-to none -np 2 "${mps[@]}" "$jac" -nx "$n" -ny "$n" \
        -niter 1000 --launch "$mode" --repeat 3 --cpu-check no --allow-shared-gpu 2>&1)
      echo "$r" >>"$log"
      t=$(solve_time "$r")
      ok=$(echo "$r" | grep -c "^# verify jacobi: OK")
      say "time mps np=2 ${n}^2 $mode ran/iters/s=$t verified=$ok" | tee -a "$out/timing.txt" >/dev/null
    done
  done
  mps_stop
  say "# failures: $failures"
  exit $((failures > 0))
fi

# ---- the device's copy rate, the one-pass limit -------------------------------------------
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

# ---- timing beside persistent, one job -----------------------------------------------------
say "# timing: seconds for 1000 iterations, the norm every iteration, median of 5"
for n in 16384 8192 4096 2048; do
  for l in persistent:5:0 temporal:5:0 temporal:7:0 temporal:5:1 temporal:7:1; do
    IFS=: read -r mode depth prefetch <<<"$l"
    r=$(timeout 300 mpirun $mpi_oversubscribe --bind-to none -np 1 -x JACOBI_TEMPORAL_DEPTH="$depth" \
      -x JACOBI_TEMPORAL_PREFETCH="$prefetch" "$jac" -nx "$n" -ny "$n" -niter 1000 --launch "$mode" --repeat 5 \
      --cpu-check no 2>&1)
    echo "$r" >>"$log"
    t=$(solve_time "$r")
    ok=$(echo "$r" | grep -c "^# verify jacobi: OK")
    say "time ${n}^2 $l (mode:depth:prefetch) ran/iters/s=$t verified=$ok" | tee -a "$out/timing.txt" >/dev/null
  done
done

# ---- where a pass's time goes: Nsight Compute on one pass ------------------------------------
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
if [[ -n $ncu ]]; then
  timeout 300 "$ncu" --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables \
    --section ComputeWorkloadAnalysis -k regex:jacobi_temporal_pass --launch-skip 30 --launch-count 1 \
    "$jac" -nx 4096 -ny 4096 -niter 400 --launch temporal --cpu-check no >"$out/ncu-4096-depth5.txt" 2>&1
  say "# ncu exit $?"
fi
say "# failures: $failures"
exit $((failures > 0))
