#!/usr/bin/env bash
# gpu-onchip.sh - one call on an NVIDIA machine for --launch onchip:
# the CUDA build; every small grid verified bit for bit on chip (random start,
# the plain reference, every decided norm) with its planted faults caught; the
# on-chip solve timed beside today's persistent one in the same job (1000
# iterations, the norm every iteration, median of repeats after a warm-up) at
# every size of the issue's table, auto's choice included; the per-phase trace
# of a 2048^2 iteration; and 2 ranks under MPS, each sized to its share of the
# multiprocessors (a stand-in for the protocol's cost, not a two-GPU figure).
#
#   bash scripts/gpu-onchip.sh [OUTDIR]      (default $OUT or ./gpu-onchip-out)
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-${OUT:-./gpu-onchip-out}}" onchip.log
build=$top/build-gpu-onchip
gpu_build_cuda "$build"
jac=$build/jacobi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1

# ---- correctness: random start, every norm, faults caught ---------------------------------
for g in "1024 1026" "2048 1026" "1024 514" "2048 2048" "512 700"; do
  set -- $g
  step "verify onchip ${1}x${2}" expect_line "^# verify jacobi: OK" \
    run -np 1 "$jac" -nx "$1" -ny "$2" -niter 300 --launch onchip --init random --cpu-check no
done
step "verify onchip nccheck 3" expect_line "^# verify jacobi: OK" \
  run -np 1 "$jac" -nx 1024 -ny 1026 -niter 301 -nccheck 3 --launch onchip --init random --cpu-check no
step "converges onchip" expect_line "422 iterations each" run -np 1 "$jac" -nx 20 -ny 20 -niter 5000 -nccheck 7 --launch onchip
for spec in "run:edge:300:0:40" "run:lag:300:0:0" "run:stale:300:1000:40" "run:norm:300:1000:40" "run:stop:0:0:30"; do
  step "fault $spec caught" expect_rc 1 run -np 1 -x JACOBI_TEST_FAULT="$spec" "$jac" -nx 1024 -ny 1026 \
    -niter 100 --launch onchip --init random --cpu-check no
done
step "onchip refuses 4096^2" expect_rc 2 run -np 1 "$jac" -nx 4096 -ny 4096 -niter 10 --launch onchip
step "auto on 4096^2 is persistent" expect_line "^# launch: the run persistent .asked: auto" \
  run -np 1 "$jac" -nx 4096 -ny 4096 -niter 20 --cpu-check no

# ---- timing beside today's persistent mode, one job ---------------------------------------
say "# timing: seconds for 1000 iterations, the norm every iteration, median of 5"
for g in "1024 1024" "2048 2048" "2048 1026" "1024 514" "4096 4096" "8192 8192" "16384 16384"; do
  set -- $g
  for l in persistent onchip auto; do
    if [[ $l == onchip && $1 -gt 2048 ]]; then continue; fi
    r=$(run -np 1 "$jac" -nx "$1" -ny "$2" -niter 1000 --launch "$l" --repeat 5 --cpu-check no 2>&1)
    echo "$r" >>"$log"
    t=$(echo "$r" | sed -n 's/.*1 GPUs, variant table (\([a-z]*\) launches): \([0-9]*\) iterations, \([0-9.]*\) s.*/\1 \2 \3/p')
    ok=$(echo "$r" | grep -c "^# verify jacobi: OK")
    say "time ${1}x${2} asked=$l ran/iters/s=$t verified=$ok"
  done
done
for rows in 4 8 16; do
  r=$(run -np 1 -x JACOBI_ONCHIP_ROWS=$rows "$jac" -nx 1024 -ny 1024 -niter 1000 --launch onchip --repeat 5 --cpu-check no 2>&1)
  echo "$r" >>"$log"
  say "time 1024x1024 onchip JACOBI_ONCHIP_ROWS=$rows: $(echo "$r" | sed -n 's/.*(onchip launches): \([0-9]*\) iterations, \([0-9.]*\) s.*/\1 \2/p')"
done

# ---- where the time goes: the per-phase trace, both modes ----------------------------------
for n in 1024 2048; do
  for l in persistent onchip; do
    step "trace ${n}^2 $l" run -np 1 "$jac" -nx $n -ny $n -niter 1000 --launch "$l" --cpu-check no \
      --trace "$out/trace-$n-$l.csv"
    grep -A2 "^# trace" "$log" | tail -3 | tee -a "$out/trace-summary.txt" >/dev/null
  done
done

# ---- compute-sanitizer on the on-chip kernel ----------------------------------------------
gpu_sanitize 200 "$jac" -nx 256 -ny 66 -niter 20 --launch onchip --init random --cpu-check no

# ---- 2 ranks under MPS, each its share of the multiprocessors -------------------------------
mps_start
for g in "1024 1024" "2048 1026"; do
  set -- $g
  for l in onchip persistent graph; do
    r=$(run -np 2 -x CUDA_MPS_PIPE_DIRECTORY "$jac" -nx "$1" -ny "$2" -niter 1000 --launch "$l" --repeat 3 \
      --allow-shared-gpu --init random --cpu-check no 2>&1)
    echo "$r" >>"$log"
    say "mps2 ${1}x${2} $l: $(echo "$r" | sed -n 's/.*2 GPUs, variant table (\([a-z]*\) launches): \([0-9]*\) iterations, \([0-9.]*\) s.*/\1 \2 \3/p') verified=$(echo "$r" | grep -c '^# verify jacobi: OK') $(echo "$r" | grep -m1 'error' || true)"
  done
done
mps_stop
say "# failures: $failures"
exit $((failures > 0))
