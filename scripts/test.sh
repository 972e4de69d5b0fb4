#!/usr/bin/env bash
# test.sh - sets up and runs every test that needs no GPU (tests/tiers.cmake says which
# case runs in which stage):
#   1. host backend: the unit, MPI, front, install, job, multi-host and reliability
#      cases, each once: those of the sanitize tier under ASan+UBSan+LSan, the others
#      in a plain run before them; a valgrind run;
#   2. beside each other, as the Slurm stage waits far more than it computes: the job
#      scripts of jobs/ submitted to a real Slurm of one and two virtual nodes on this
#      machine (ctest -L slurm, brought up and down by the cases); the HIP backend for
#      gfx90a with Debian's ROCm (built and linked with the tests), every HIP source's
#      device code compiled for gfx942 with clang 19, and the memory order of the
#      signals, collectives and waits checked in gfx90a machine code (the check's
#      self-test, planted missing fences, where its inputs changed); the CUDA backend
#      for sm_90 where nvcc is here;
#   3. both GPU builds' programs on this machine without a GPU: a clean "no GPU found".
# Each stage prints its time. Each ctest stage writes a JUnit file; at the end
# scripts/check-skips.py lists every case that skipped (exit 77: a package, a namespace
# missing), and under CI (CI=true) any such case fails the run.
#
# Usage: scripts/test.sh [--quick | --host-only]
#   --quick      the developer's loop: the host build and ctest -L quick (the unit
#                tests, the format, one verifying case per program and library area)
#   --host-only  stage 1 and the Slurm stage, no GPU builds
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
mode=all
case "${1:-}" in
  --quick) mode=quick ;;
  --host-only) mode="host-only" ;;
  "") ;;
  *) echo "test.sh: unknown option '$1' (expected --quick or --host-only)" >&2; exit 2 ;;
esac

case $mode in
  quick) "$top/scripts/deps.sh" ;;
  host-only) "$top/scripts/deps.sh" --slurm ;;
  *) "$top/scripts/deps.sh" --hip --slurm ;;
esac
# shellcheck source=scripts/mpi-env.sh
source "$top/scripts/mpi-env.sh"

# A stage's time, said when it ends: where CI's minutes go.
started=$SECONDS
stage_started=$SECONDS
stage_done() { echo "# $1: $((SECONDS - stage_started)) s"; stage_started=$SECONDS; }

host=$top/build-test-host
echo "# [1/3] host backend: build"
cmake -S "$top" -B "$host" -DSHARDTAB_BACKEND=host >/dev/null
cmake --build "$host" -j "$jobs" >/dev/null
stage_done "host build"
# One ctest job more than cores: most cases wait more than they compute (mpiexec
# start-up, a rank's bounded wait), and a third job fills the idle core time.
ctest_jobs=$((jobs + 1))
if [[ $mode == quick ]]; then
  echo "# the quick tier: ctest -L quick"
  (cd "$host" && ctest -L quick -j "$ctest_jobs" --output-on-failure)
  stage_done "quick tier"
  echo "# all quick tests passed in $((SECONDS - started)) s (the build's included)"
  exit 0
fi

# every ctest stage's JUnit report, for the skipped cases (check_skips, at the end)
junit=$host/junit
rm -rf "$junit" && mkdir -p "$junit"
check_skips() { python3 "$top/scripts/check-skips.py" "$junit/plain.xml" "$junit/sanitizers.xml" "$junit/slurm.xml"; }

echo "# [1/3] host backend: the plain run, every case but the sanitizers' and Slurm's"
(cd "$host" && ctest -LE 'sanitize|slurm' -j "$ctest_jobs" --output-on-failure --output-junit "$junit/plain.xml")
stage_done "host ctest"

echo "# [1/3] sanitizers: ASan+UBSan+LSan (ctest -L sanitize) and valgrind"
"$top/tests/shardtab/reliability/sanitize.sh" --asan-dir "$top/build-test-asan" --plain-dir "$host" \
  --junit "$junit/sanitizers.xml"
stage_done "sanitizers"

# The jobs through a real Slurm of two virtual nodes on this machine. They wait on the
# scheduler far more than they compute: they run beside the GPU builds (no other MPI job
# runs beside them), their log printed when both end. The cases bring their cluster down
# themselves (a ctest fixture); should this script be stopped half-way, the trap stops
# the daemons by the PIDs they recorded.
slurm_cluster=$(cat "$host/tests/slurm/cluster-dir.txt")
slurm_log=$host/slurm-stage.log
slurm_down() {
  for c in "$slurm_cluster" "$slurm_cluster-one"; do
    bash "$top/tests/slurm/cluster.sh" down "$c" >/dev/null 2>&1 || true
  done
}
trap slurm_down EXIT
slurm_stage() {
  local started=$SECONDS status=0
  (cd "$host" && ctest -L slurm --output-on-failure --output-junit "$junit/slurm.xml") || status=$?
  echo "# slurm stage: $((SECONDS - started)) s"
  return "$status"
}
if [[ $mode == host-only ]]; then
  echo "# [2/3] the jobs through a real Slurm (ctest -L slurm)"
  slurm_stage
  bash "$top/tests/slurm/cluster.sh" down "$slurm_cluster"
  check_skips
  exit 0
fi
echo "# [2/3] the jobs through a real Slurm (ctest -L slurm), beside the GPU builds: log at the end"
slurm_stage >"$slurm_log" 2>&1 &
slurm_pid=$!

# The GPU builds compile and link everything, the GPU tests (tests/gpu) too, which
# only a machine with GPUs can run (scripts/gpu.sh check); the HIP backend for the default
# targets, gfx90a (MI250X) and gfx908 (MI100), gfx942 apart (check-gfx942.sh). The HIP
# compiler (and CMake's check of it) leaves folders in TMPDIR: its commands get
# one in the build tree, removed at the end. Only its commands: Open MPI keeps its
# session sockets under TMPDIR, whose path must stay short.
hip_tmp="$top/build-test-tmp"
rm -rf "$hip_tmp" && mkdir -p "$hip_tmp"
trap 'rm -rf "$hip_tmp"; slurm_down' EXIT
echo "# [2/3] HIP backend: build and link with the tests"
TMPDIR=$hip_tmp cmake -S "$top" -B "$top/build-test-hip" -DSHARDTAB_BACKEND=hip | grep -E "GPU targets" || true
TMPDIR=$hip_tmp cmake --build "$top/build-test-hip" -j "$jobs" >/dev/null
echo "# [2/3] gfx942 (MI300): every HIP source's device code with clang 19, not linked"
TMPDIR=$hip_tmp "$top/scripts/check-gfx942.sh" "$top/build-test-gfx942"
echo "# [2/3] the memory order in gfx90a code; its self-test where its inputs changed"
TMPDIR=$hip_tmp "$top/scripts/check-gfx90a-order.sh" "$top/build-test-order"
TMPDIR=$hip_tmp "$top/scripts/check-gfx90a-order.sh" --self-test-if-changed "$top/build-test-order"
stage_done "HIP builds and their checks"
have_nvcc=0
if command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  have_nvcc=1
  echo "# [2/3] CUDA backend (sm_90): build and link with the tests"
  cmake -S "$top" -B "$top/build-test-cuda" -DSHARDTAB_BACKEND=cuda >/dev/null
  cmake --build "$top/build-test-cuda" -j "$jobs" >/dev/null
  stage_done "CUDA build"
else
  echo "# [2/3] CUDA backend: skipped, no nvcc on this machine"
fi

echo "# [2/3] the jobs through a real Slurm (ctest -L slurm), run beside the GPU builds:"
slurm_status=0
wait "$slurm_pid" || slurm_status=$?
cat "$slurm_log"
((slurm_status == 0)) || { echo "# the Slurm stage failed (status $slurm_status)"; exit 1; }
bash "$top/tests/slurm/cluster.sh" down "$slurm_cluster"
stage_done "waiting for Slurm"

# Only now the GPU programs' runs, so that no other MPI job of this machine runs beside
# the Slurm jobs. Seen once (in 1 run of 2): with these beside them, a step of the
# two-node collectives job failed in Open MPI's shared-memory set-up ("open(2): No such
# file or directory", then SIGSEGV in that rank); two Open MPI jobs of one host sharing
# its session directory is the likely cause, not a proven one.
echo "# [3/3] the GPU builds' programs without a GPU"
for build in build-test-hip $( ((have_nvcc)) && echo build-test-cuda); do
  "$top/scripts/check-no-gpu.sh" "$top/$build/multi_scal"
  "$top/scripts/check-no-gpu.sh" "$top/$build/jacobi" -nx 64 -ny 64
  "$top/scripts/check-no-gpu.sh" "$top/$build/cg" --poisson 2d:16
done
stage_done "GPU builds without a GPU"
echo "# the skipped cases (under CI=true any fails the run):"
check_skips
echo "# all tests passed in $((SECONDS - started)) s"
