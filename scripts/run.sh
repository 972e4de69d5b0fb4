#!/usr/bin/env bash
# run.sh - the main job, as a new user runs it: checks for what it needs,
# builds multi_scal, and runs mpirun -np <ngpus> ./multi_scal.
#
# It needs a C compiler, CMake 3.21 or later and an MPI (mpicc, mpirun), found
# by command and version wherever they come from (Debian, pip, modules, a
# vendor's tree), and on a GPU machine its toolchain, which the build finds for
# itself (the host backend where it finds none). What is missing it installs
# from Debian's packages only where it can (apt-get, root or sudo, and a
# reachable archive); otherwise it says what is missing and stops (exit 1).
# The test suite's tools are the test command's (scripts/deps.sh).
#
# Ranks: one per GPU the machine has (nvidia-smi, rocminfo), 4 on the host
# backend, or -np N. Without options, a GPU machine runs a size whose GB/s mean
# something (256 MiB a shard); the host backend a small correctness run. The last
# line is the verdict: "run.sh: OK: ..." (exit 0) or "run.sh: FAILED: ..." (multi_scal's
# status).
#
# Usage: scripts/run.sh [-np N] [multi_scal options]
#   RUN_BUILD_DIR  the build tree (default: build/ in the checkout)
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${RUN_BUILD_DIR:-$top/build}
ranks=""
if [[ "${1:-}" == "-np" ]]; then
  [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -np needs a positive rank count, got '${2:-}'" >&2; exit 2; }
  ranks=$2
  shift 2
fi

# ---- what the main job needs, by command and version --------------------------------------
# version_at_least HAVE WANT: dotted versions, numerically
version_at_least() { [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" == "$2" ]]; }
missing=() packages=()
cc=${CC:-cc}
command -v "$cc" >/dev/null || command -v gcc >/dev/null || { missing+=("a C compiler (cc or gcc)"); packages+=(build-essential); }
if command -v cmake >/dev/null; then
  have=$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')
  version_at_least "${have:-0}" 3.21 || { missing+=("CMake >= 3.21 (found ${have:-?})"); packages+=(cmake); }
else
  missing+=("CMake >= 3.21"); packages+=(cmake)
fi
for tool in mpicc mpirun; do
  command -v "$tool" >/dev/null || { missing+=("$tool (an MPI)"); packages+=(openmpi-bin libopenmpi-dev); }
done

# ---- installing it only where that can work ----------------------------------------------
say_missing() {
  local list
  list=$(printf '%s, ' "${missing[@]}")
  echo "run.sh: missing: ${list%, }." >&2
}
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || { command -v sudo >/dev/null && sudo -n true 2>/dev/null && sudo="sudo"; } || sudo="none"
  if ! command -v apt-get >/dev/null || [[ $sudo == none ]]; then
    say_missing
    echo "run.sh: install them (or load their modules) and run again; no apt-get with root or sudo here to do it" >&2
    exit 1
  fi
  mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)
  echo "# run.sh: installing ${packages[*]} (missing: ${missing[*]})"
  if ! $sudo apt-get update -qq >/dev/null 2>&1 ||
     ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null 2>&1; then
    say_missing
    echo "run.sh: apt-get could not install ${packages[*]} (no reachable archive?): install them (or load their modules) and run again" >&2
    exit 1
  fi
fi

# shellcheck source=scripts/mpi-env.sh
source "$top/scripts/mpi-env.sh"
# the program alone, as a user runs it: no tests, no test hooks
cmake -S "$top" -B "$build" -DSHARDTAB_BACKEND="${SHARDTAB_BACKEND:-auto}" -DSHARDTAB_BUILD_TESTS=OFF \
  -DSHARDTAB_TEST_HOOKS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target multi_scal >/dev/null

# ---- one rank per GPU ---------------------------------------------------------------------
gpus=0
if command -v nvidia-smi >/dev/null; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
fi
if ((gpus == 0)) && command -v rocminfo >/dev/null; then
  gpus=$(rocminfo 2>/dev/null | grep -cE '^[[:space:]]+Name:[[:space:]]+gfx' || true)
fi
if [[ -z $ranks ]]; then
  if ((gpus > 0)); then
    ranks=$gpus
    echo "# run.sh: $gpus GPU(s) here: mpirun -np $ranks (-np N to change)"
  else
    ranks=4
    echo "# run.sh: no GPU counted here: mpirun -np $ranks (-np N to change)"
  fi
fi
# ---- the size: one that means something where it runs ---------------------------------------
# Options given are the user's; with none, a GPU machine scales 32 Mi doubles (256 MiB) a
# shard 20 times, where the modes' GB/s are the table's bandwidth (multi_scal --bench
# puts them beside the copy engines); the host backend keeps the program's small default,
# a correctness run whose GB/s are no benchmark.
args=("$@")
if ((${#args[@]} == 0)); then
  if ((gpus > 0)); then
    args=(--n "$((ranks * 32))M" --iters 20)
    echo "# run.sh: 256 MiB a shard, 20 iterations: the GB/s are the table's bandwidth (scripts/run.sh --bench: beside the copy engines)"
  else
    echo "# run.sh: the host backend: a correctness run; its GB/s (a few KiB on CPUs) are no benchmark"
  fi
fi
cd "$build"
rc=0
# shellcheck disable=SC2086
mpirun $mpi_oversubscribe -np "$ranks" ./multi_scal "${args[@]}" || rc=$?
if ((rc == 0)); then
  echo "run.sh: OK: multi_scal verified every element at $ranks rank(s)"
else
  echo "run.sh: FAILED: multi_scal exited with status $rc at $ranks rank(s) (its messages above)"
fi
exit "$rc"
