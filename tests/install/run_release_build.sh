#!/usr/bin/env bash
# run_release_build.sh - the programs as a user installs them: this source tree
# re-configured with no tests (so no test hooks), built, installed into a scratch
# prefix; then each installed program with one of its test hooks set must
# refuse the run (exit 2, rank 0's one message saying it is a test build's
# hook), and run as usual without it.
# Usage: run_release_build.sh SOURCE_DIR WORK_DIR BACKEND MPIEXEC
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
src=$1 work=$2 backend=$3 mpiexec=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/mpi-test-env.sh disable=SC1091
source "$here/../lib/mpi-test-env.sh"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "release_build: FAIL: $*"; exit 1; }

# configured first as a test build, then re-configured without the tests: the hooks go
# with them (a cached ON outlived the re-configure, and the summary said "test hooks ON")
cmake -S "$src" -B "$work/build" -DSHARDTAB_BACKEND="$backend" -DSHARDTAB_FORTRAN=off \
  >"$work/cmake-tests.log" 2>&1 || { tail -20 "$work/cmake-tests.log"; fail "configure (tests)"; }
grep -q "test hooks     ON" "$work/cmake-tests.log" || fail "a test build's summary does not say: test hooks ON"
cmake -S "$src" -B "$work/build" -DSHARDTAB_BACKEND="$backend" -DSHARDTAB_BUILD_TESTS=OFF \
  -DSHARDTAB_FORTRAN=off >"$work/cmake.log" 2>&1 || { tail -20 "$work/cmake.log"; fail "configure"; }
grep -q "test hooks     OFF" "$work/cmake.log" || fail "the configuration summary does not say: test hooks OFF"
cmake --build "$work/build" -j 2 >"$work/build.log" 2>&1 ||
  { tail -20 "$work/build.log"; fail "build"; }
cmake --install "$work/build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
  { tail -20 "$work/install.log"; fail "install"; }

# refused HOOK=VALUE PROGRAM ARGS...: exit 2, one message naming the hook, from rank 0 alone
refused() {
  local hook=$1 rc=0 out
  shift
  out=$(env "$hook" timeout 60 "$mpiexec" -n 2 "$@" 2>&1) || rc=$?
  echo "$out" | grep -v "^#" | head -5
  ((rc == 2)) || fail "${hook%%=*} set: exit $rc, want 2"
  local said
  said=$(grep -c "${hook%%=*} is set, but it is a test hook and this build has none" <<<"$out" || true)
  ((said == 1)) || fail "${hook%%=*} set: the refusal printed $said times, want once"
  echo "ok:   $(basename "$1") refuses ${hook%%=*}"
}
bin=$work/prefix/bin
refused JACOBI_TEST_FAULT=run:stale:5:5:3 "$bin/jacobi" -nx 64 -ny 64 -niter 10
refused JACOBI_TEST_STALL=1 "$bin/jacobi" -nx 64 -ny 64 -niter 10
refused MULTI_SCAL_TEST_CORRUPT=3 "$bin/multi_scal" --n 1000
refused SHARDTAB_FAULT=open:1 "$bin/multi_scal" --n 1000
out=$(timeout 60 "$mpiexec" -n 2 "$bin/jacobi" -nx 64 -ny 64 -niter 10 2>&1) || fail "jacobi without a hook: $out"
grep -q "^# verify jacobi: OK" <<<"$out" || fail "jacobi without a hook did not verify"
echo "release_build: PASS"
