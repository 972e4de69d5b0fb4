#!/usr/bin/env bash
# gpu-reliability.sh - the reliability checks that need GPUs beyond those in
# gpu-validate.sh: SIGKILL of one rank while the kernels run on the CUDA
# backend, compute-sanitizer initcheck, and memcheck of --check-peers.
# Usage: scripts/gpu-reliability.sh [outdir]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/gpu-reliability-out}
mkdir -p "$out"
# shellcheck source=scripts/mpi-env.sh disable=SC1091
source "$top/scripts/mpi-env.sh"
build=$top/build-gpu-reliability
log=$out/gpu-reliability.log
failures=0
cmake -S "$top" -B "$build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF >"$log" 2>&1
cmake --build "$build" -j 16 >>"$log" 2>&1 || { echo "build failed"; tail -20 "$log"; exit 1; }
ms=$build/multi_scal
step() {
  local name=$1 rc
  shift
  echo "## $name" | tee -a "$log"
  "$@" >>"$log" 2>&1
  rc=$?
  echo "## $name: $([[ $rc -eq 0 ]] && echo PASS || echo "FAIL (exit $rc)")" | tee -a "$log"
  ((rc == 0)) || failures=$((failures + 1))
}
# shellcheck disable=SC2086,SC2154,SC2317  # flag from mpi-env.sh; called via step
run() { timeout 300 mpirun $mpi_oversubscribe --bind-to none "$@"; }
step "SIGKILL rank 1 of 2 while the kernels run" \
  "$top/tests/reliability/sigkill.sh" --phase run --np 2 --rank 1 --end-within 10 \
  mpirun "$ms" --n 1G --iters 10000 --mode local
step "compute-sanitizer initcheck np2" \
  run -np 2 compute-sanitizer --tool initcheck --error-exitcode 9 "$ms" --n 100003
step "compute-sanitizer memcheck np2 --check-peers" \
  run -np 2 compute-sanitizer --tool memcheck --error-exitcode 9 "$ms" --check-peers --n 100003
echo "# gpu-reliability: $failures failure(s)" | tee -a "$log"
exit $((failures > 0))
