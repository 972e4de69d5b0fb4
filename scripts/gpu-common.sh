# gpu-common.sh - sourced by scripts/gpu.sh (and the studies under results/) on the NVIDIA
# machine: the shared set-up (outdir, log, MPI environment, NVLink multicast off), the CUDA
# build, and the step/run helpers that log and count failures; GPU_DRY_RUN=1 prints the
# steps and builds instead of running them.
# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/mpi-env.sh disable=SC1091
source "$top/scripts/mpi-env.sh"
# the machine's GPUs are shared with others: never use NVLink multicast
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
failures=0
dry=${GPU_DRY_RUN:-0}

# gpu_start OUTDIR LOGNAME: creates OUTDIR, sets out and log (a fresh file)
gpu_start() {
  out=$1
  mkdir -p "$out"
  log=$out/$2
  : >"$log"
}

say() { echo "$*" | tee -a "$log"; }

# step NAME CMD...: runs, logs, counts a failure without stopping the rest
step() {
  local name=$1 rc
  shift
  say "## $name"
  say "\$ $*"
  ((dry)) && return 0
  "$@" >>"$log" 2>&1
  rc=$?
  if ((rc == 0)); then say "## $name: PASS"; else say "## $name: FAIL (exit $rc)"; failures=$((failures + 1)); fi
}

# expect_rc WANT CMD...: CMD exits with status WANT
# shellcheck disable=SC2317  # called via step
expect_rc() { local want=$1 rc; shift; "$@"; rc=$?; echo "exit $rc, want $want"; ((rc == want)); }

# expect_line RE CMD...: CMD succeeds and prints a line matching RE
# shellcheck disable=SC2317  # called via step
expect_line() {
  local re=$1 f rc
  shift
  f=$(mktemp)
  "$@" >"$f" 2>&1
  rc=$?
  cat "$f"
  grep -Eq -- "$re" "$f" || { echo "no line matches: $re"; rc=1; }
  rm -f "$f"
  return "$rc"
}

# expect_rc_line WANT RE CMD...: CMD exits with status WANT and prints a line matching RE
# shellcheck disable=SC2317  # called via step
expect_rc_line() {
  local want=$1 re=$2 f rc
  shift 2
  f=$(mktemp)
  "$@" >"$f" 2>&1
  rc=$?
  cat "$f"
  echo "exit $rc, want $want"
  grep -Eq -- "$re" "$f" || { echo "no line matches: $re"; rc=-1; }
  rm -f "$f"
  ((rc == want))
}

# solve_time OUTPUT: "launch iterations seconds" of a jacobi run's timing line (any GPU count)
solve_time() {
  sed -n 's/.* GPUs, variant table (\([a-z]*\) launches): \([0-9]*\) iterations, \([0-9.]*\) s.*/\1 \2 \3/p' <<<"$1"
}

# mps_start: CUDA MPS on this machine's GPU (its pipe and log folders exported, for mpirun
# -x CUDA_MPS_PIPE_DIRECTORY), stopped again when the script exits (or by mps_stop)
mps_stop() { echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true; }
mps_start() {
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  ((dry)) && { say "# MPS started (dry run)"; return 0; }
  trap mps_stop EXIT
  if nvidia-cuda-mps-control -d >>"$log" 2>&1; then say "# MPS started"; else say "# MPS did not start"; fi
}

# gpu_sanitize LIMIT_S JACOBI ARGS...: compute-sanitizer's memcheck and racecheck on one jacobi run,
# each a step that passes on 0 errors / 0 hazards
gpu_sanitize() {
  local limit=$1 tool cs
  shift
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool" expect_line "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" \
      timeout "$limit" "$cs" --tool $tool --error-exitcode 9 "$@"
  done
}

# run ARGS...: mpirun with this machine's settings and a time limit (GPU_RUN_LIMIT, default 300 s)
# shellcheck disable=SC2086,SC2154  # word-split flag from mpi-env.sh
run() { timeout "${GPU_RUN_LIMIT:-300}" mpirun $mpi_oversubscribe --bind-to none "$@"; }

# gpu_build_cuda DIR [CMAKE ARGS...]: the CUDA backend into DIR, without tests unless the
# arguments say -DSHARDTAB_BUILD_TESTS=ON; exits on failure
gpu_build_cuda() {
  local dir=$1
  shift
  if ((dry)); then say "\$ cmake -S $top -B $dir -DSHARDTAB_BACKEND=cuda $*; cmake --build $dir"; return 0; fi
  if ! cmake -S "$top" -B "$dir" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF "$@" >>"$log" 2>&1 ||
    ! cmake --build "$dir" -j 16 >>"$log" 2>&1; then
    echo "build failed"
    tail -30 "$log"
    exit 1
  fi
}
