#!/usr/bin/env bash
# main_command.sh - the README's main command (scripts/run.sh) as a new user meets it,
# on this machine made to look like others: every tool there but apt unable to reach an
# archive (offline), a CMake too old with apt still offline (old-cmake), and no MPI and
# no apt-get at all (no-mpi, as on a login node). apt-get and dpkg are stand-ins here,
# written by this script: the real ones would reach the network or report this machine.
# Usage: main_command.sh offline|old-cmake|no-mpi SOURCE_DIR WORK_DIR
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
mode=${1:?usage: main_command.sh offline|old-cmake|no-mpi SOURCE_DIR WORK_DIR}
src=${2:?source dir}
work=${3:?work dir}
rm -rf "$work" && mkdir -p "$work/stubs" "$work/bin"
fail() { echo "main_command($mode): FAIL: $*"; exit 1; }

# apt-get that cannot reach anything, and dpkg that knows no package: a check by dpkg
# (as run.sh's used to be) would want to install everything, and could not
cat >"$work/stubs/apt-get" <<'STUB'
#!/bin/sh
echo "E: Failed to fetch: Temporary failure resolving the archive (test stand-in)" >&2
exit 100
STUB
printf '#!/bin/sh\nexit 1\n' >"$work/stubs/dpkg-query"
chmod +x "$work/stubs/apt-get" "$work/stubs/dpkg-query"

case $mode in
  offline)
    rc=0
    out=$(PATH="$work/stubs:$PATH" RUN_BUILD_DIR="$work/build" timeout 600 bash "$src/scripts/run.sh" -np 2 --n 1000 2>&1) || rc=$?
    echo "$out" | tail -n 12
    ((rc == 0)) || fail "exit $rc, want 0"
    grep -q "^# verify local: OK" <<<"$out" || fail "no verified run"
    grep -q "^run.sh: OK: multi_scal verified every element at 2 rank(s)$" <<<"$out" || fail "no verdict line"
    if grep -q "installing" <<<"$out"; then fail "it tried to install something"; fi
    ;;
  old-cmake)
    printf '#!/bin/sh\necho "cmake version 3.16.3"\n' >"$work/stubs/cmake"
    chmod +x "$work/stubs/cmake"
    rc=0
    out=$(PATH="$work/stubs:$PATH" RUN_BUILD_DIR="$work/build" timeout 120 bash "$src/scripts/run.sh" 2>&1) || rc=$?
    echo "$out"
    ((rc == 1)) || fail "exit $rc, want 1"
    grep -q "^run.sh: missing: CMake >= 3.21 (found 3.16.3)[.]$" <<<"$out" || fail "no line names the old CMake"
    if [[ $(id -u) -eq 0 ]] || sudo -n true 2>/dev/null; then
      grep -q "apt-get could not install cmake" <<<"$out" || fail "no line says apt could not install it"
    fi
    if [[ -e "$work/build" ]]; then fail "it built anyway"; fi
    ;;
  no-mpi)
    # a PATH of what run.sh uses up to its checks, without mpicc, mpirun and apt-get
    for t in bash env dirname sed sort head grep id cc gcc cmake nproc printf; do
      if p=$(command -v "$t") && [[ $p == /* ]]; then ln -s "$p" "$work/bin/$t"; fi
    done
    rc=0
    out=$(PATH="$work/bin" RUN_BUILD_DIR="$work/build" "$(command -v timeout)" 120 "$work/bin/bash" "$src/scripts/run.sh" 2>&1) || rc=$?
    echo "$out"
    ((rc == 1)) || fail "exit $rc, want 1"
    grep -q "^run.sh: missing: mpicc (an MPI), mpirun (an MPI)[.]$" <<<"$out" || fail "no line names mpicc and mpirun"
    grep -q "no apt-get with root or sudo here" <<<"$out" || fail "no line says why nothing was installed"
    ;;
  *) fail "unknown mode" ;;
esac
echo "main_command($mode): ok"
