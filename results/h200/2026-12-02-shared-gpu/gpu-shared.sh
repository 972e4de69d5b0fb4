#!/usr/bin/env bash
# gpu-shared.sh - one call on a one-GPU NVIDIA machine: the README's main command (scripts/run.sh, no argument)
# from a fresh copy of the tree; then, under CUDA MPS, jacobi's persistent and
# on-chip solves at 2 and 4 ranks sharing the GPU (1024², 2048², 4096²), each
# of which must verify bit for bit or refuse before the solve (exit 2), never
# end by a wait's timeout, with MPS's thread limit a client
# (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) too.
#
#   bash scripts/gpu-shared.sh [OUTDIR]      (default $OUT or ./gpu-shared-out)
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-${OUT:-./gpu-shared-out}}" shared.log
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1

# ---- section 4: the main command, as a new user runs it, from a fresh copy ---------------
fresh=$(mktemp -d)
tar -C "$top" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$fresh" -xf -
step "scripts/run.sh from a fresh copy, no argument" \
  expect_line "^# run.sh: 1 GPU\(s\) here: mpirun -np 1" bash -c "cd '$fresh' && timeout 400 scripts/run.sh"
grep -E "^# (backend|verify)" "$log" | tail -4 | tee -a "$out/run-sh.txt" >/dev/null
step "  ... and it verified" grep -q "^# verify ring: OK" "$log"
rm -rf "$fresh"

build=$top/build-gpu-shared
gpu_build_cuda "$build"
jac=$build/jacobi

# ---- section 2: ranks sharing the GPU under MPS -----------------------------------------
mps_start

# shared NP NX NY LAUNCH [ENV=VALUE]: one solve; it passes when it verifies, or when it is
# refused before the solve (exit 2 and the reason); a timeout or any other end fails
# shellcheck disable=SC2317,SC2086  # called via step; word-split flag from mpi-env.sh
shared() {
  local np=$1 nx=$2 ny=$3 launch=$4 r rc t
  local -a env=(-x CUDA_MPS_PIPE_DIRECTORY)
  [[ -n ${5:-} ]] && env+=(-x "$5")
  r=$(timeout 120 mpirun $mpi_oversubscribe --bind-to none -np "$np" "${env[@]}" "$jac" -nx "$nx" -ny "$ny" \
    -niter 1000 --launch "$launch" --repeat 3 --allow-shared-gpu --init random --cpu-check no 2>&1)
  rc=$?
  echo "$r" >>"$log"
  t=$(echo "$r" | sed -n 's/.*GPUs, variant table (\([a-z]*\) launches): \([0-9]*\) iterations, \([0-9.]*\) s.*/\1 \2 \3/p')
  if ((rc == 0)) && echo "$r" | grep -q "^# verify jacobi: OK"; then
    say "mps np=$np ${nx}x$ny $launch ${5:-}: verified, ran/iters/s = $t"
    return 0
  fi
  if ((rc == 2)) && ! echo "$r" | grep -qi "late, stuck or gone"; then
    say "mps np=$np ${nx}x$ny $launch ${5:-}: refused: $(echo "$r" | grep -m1 -iE 'error|resident|cannot|fit' || true)"
    return 0
  fi
  say "mps np=$np ${nx}x$ny $launch ${5:-}: FAILED (exit $rc): $(echo "$r" | grep -m1 -iE 'error|resident|cannot|fit' || true)"
  return 1
}
for np in 2 4; do
  for g in "1024 1024" "2048 2048" "4096 4096"; do
    # shellcheck disable=SC2086
    for l in persistent onchip; do step "np $np $g $l" shared "$np" $g "$l"; done
  done
done
# MPS's thread limit a client: the solve must run sized to what it is given, or refuse, never
# time out (docs/reliability.md says which limits reach the refusal).
for pct in 1 2 50; do
  step "np 4, $pct% of the threads each: runs or refuses" shared 4 1024 1024 persistent \
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct
done
mps_stop
say "# failures: $failures"
exit $((failures > 0))
