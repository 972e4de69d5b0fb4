#!/usr/bin/env bash
# sanitize.sh - ASan+UBSan+LSan build running the cases of the sanitize tier (tests/tiers.cmake says which), then valgrind memcheck at 2 ranks on multi_scal, cycle_table and halo_check across two simulated nodes: 0 errors from our code.
#
# Usage: tests/shardtab/reliability/sanitize.sh [--asan-dir DIR] [--plain-dir DIR] [--jobs N]
#                                       [--skip-asan] [--skip-valgrind] [--junit FILE]
#   --asan-dir DIR   build tree configured with -DSHARDTAB_SANITIZE=ON
#                    (default ${TMPDIR:-/tmp}/shardtab-asan)
#   --plain-dir DIR  build tree without sanitizers, for valgrind
#                    (default ${TMPDIR:-/tmp}/shardtab-plain)
#   --jobs N         parallel build jobs; ctest runs one more, as most cases wait
#                    more than they compute (default: nproc)
#   --junit FILE     ctest's JUnit report of the sanitizers' cases (--output-junit),
#                    which scripts/check-skips.py reads for skipped cases
# Both trees are configured (host backend) and built when needed. Sanitizer
# reports go to files (log_path) besides making the process exit 86, so that a
# report is never lost, even from a rank that was killed or whose status a test
# expects to be non-zero. Open MPI's own leaks are suppressed by lsan.supp and
# valgrind-openmpi.supp, which only match stacks through MPI's libraries.
# Exits 0 when every test passed and no report was written.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
asan_dir=${TMPDIR:-/tmp}/shardtab-asan
plain_dir=${TMPDIR:-/tmp}/shardtab-plain
jobs=$(nproc)
do_asan=1
do_valgrind=1
junit=()
while [[ $# -gt 0 ]]; do
    case "$1" in
    --asan-dir) asan_dir=$2; shift 2 ;;
    --plain-dir) plain_dir=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --skip-asan) do_asan=0; shift ;;
    --skip-valgrind) do_valgrind=0; shift ;;
    --junit) junit=(--output-junit "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
    *) echo "sanitize.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done

ctest_jobs=$((jobs + 1))

# the MPI environment every test driver uses (root, containers, oversubscription)
# shellcheck source=tests/lib/mpi-test-env.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/mpi-test-env.sh"
# Keep Open MPI's and PMIx's plugins loaded until exit: the frames of their
# allocations then name their libraries, and the suppressions can match them.
export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
# hwloc's PCI discovery (libpciaccess reading pci.ids through a realloc that
# grows one line at a time) is where a rank spent most of its time under ASan:
# ASan's realloc always moves, so MPI_Init copied and faulted ~400k pages per
# rank (1.8 M page faults and 5.5 s for a 4-rank run here, 131 k and 1.9 s
# without it). The tests need no PCI topology: leave it out.
export HWLOC_COMPONENTS=-pci
launch=(mpiexec)
if mpiexec --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'; then launch+=(--oversubscribe); fi

logs=$(mktemp -d "${TMPDIR:-/tmp}/sanitize.XXXXXX")
trap 'rm -rf "$logs"' EXIT
failures=0
t0=$SECONDS

configure() { # DIR SANITIZE
    if [[ ! -f $1/CMakeCache.txt ]] || ! grep -q "^SHARDTAB_SANITIZE:BOOL=$2$" "$1/CMakeCache.txt"; then
        cmake -S "$top" -B "$1" -DSHARDTAB_BACKEND=host -DSHARDTAB_SANITIZE="$2" >"$logs/cmake-$2.log" 2>&1 ||
            { cat "$logs/cmake-$2.log"; return 1; }
    fi
    cmake --build "$1" -j "$jobs" >"$logs/build-$2.log" 2>&1 || { tail -50 "$logs/build-$2.log"; return 1; }
}

# detector_self_test WHAT PATTERN DIR CMD...: CMD (a cycle_table under the detector WHAT) is run
# with a leak made on purpose (--cycles 20 --warmup 10 --inject-leak): WHAT must report it, a
# line matching PATTERN in the files of DIR
detector_self_test() {
    local what=$1 pattern=$2 dir=$3 rc
    shift 3
    set +e
    "$@" --cycles 20 --warmup 10 --inject-leak >"$logs/selftest-$what.log" 2>&1
    rc=$?
    set -e
    if grep -qs "$pattern" "$dir"/*; then
        echo "# $what self-test: an injected leak was reported (status $rc), as it must"
    else
        echo "FAIL: $what missed the leak cycle_table --inject-leak makes"
        failures=$((failures + 1))
    fi
}

reports() { # DIR: print and count the sanitizer report files in DIR
    local f n=0
    for f in "$1"/*; do
        if [[ ! -s $f ]]; then continue; fi
        n=$((n + 1))
        echo "---- $f"
        head -60 "$f"
    done
    return "$n"
}

# ---- 1. ASan + UBSan + LSan: ctest -L sanitize ----------------------------------------
if [[ $do_asan -eq 1 ]]; then
    echo "# [1/2] ASan+UBSan+LSan build in $asan_dir, then ctest -L sanitize -j $ctest_jobs"
    configure "$asan_dir" ON
    mkdir -p "$logs/asan"
    common="exitcode=86:log_path=$logs/asan/report:print_suppressions=0"
    export ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:strict_string_checks=1:detect_stack_use_after_return=1:$common"
    export LSAN_OPTIONS="suppressions=$here/lsan.supp:$common"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:$common"
    t=$SECONDS
    echo "# the cases under the sanitizers: $( (cd "$asan_dir" && ctest -N -L sanitize) | sed -n 's/^Total Tests: //p')"
    if ! (cd "$asan_dir" && ctest -L sanitize "${junit[@]}" -j "$ctest_jobs" --output-on-failure >"$logs/ctest.log" 2>&1); then
        grep -E "tests passed|Failed|\*\*\*|Timeout" "$logs/ctest.log" | tail -40
        failures=$((failures + 1))
    fi
    grep -E "tests passed" "$logs/ctest.log" || true
    echo "# ctest under sanitizers: $((SECONDS - t)) s"
    n=0
    reports "$logs/asan" || n=$?
    echo "# sanitizer reports from the tests: $n"
    if [[ $n -ne 0 ]]; then failures=$((failures + 1)); fi

    # the detector itself: a leak on purpose must be reported
    rm -f "$logs/asan"/*
    detector_self_test LeakSanitizer "LeakSanitizer: detected memory leaks" "$logs/asan" \
        "${launch[@]}" -n 2 "$asan_dir/tests/shardtab/reliability/cycle_table"
    rm -f "$logs/asan"/*
    unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
fi

# ---- 2. valgrind memcheck: multi_scal, cycle_table and halo_check at 2 ranks ---------------------
if [[ $do_valgrind -eq 1 ]]; then
    echo "# [2/2] valgrind memcheck in $plain_dir: mpiexec -n 2 valgrind ... multi_scal, cycle_table, halo_check"
    command -v valgrind >/dev/null || { echo "FAIL: valgrind is not installed"; exit 1; }
    configure "$plain_dir" OFF
    supp=(--suppressions="$here/valgrind-openmpi.supp")
    for f in /usr/share/openmpi/openmpi-valgrind.supp /usr/share/openmpi/openmpi-valgrind.supp.gz; do
        if [[ -f $f && $f != *.gz ]]; then supp+=(--suppressions="$f"); fi
    done
    vg=(valgrind -q --tool=memcheck --num-callers=40 --error-exitcode=3 --leak-check=full
        "--show-leak-kinds=definite,indirect,possible" "--errors-for-leak-kinds=definite,indirect,possible"
        --track-origins=yes "${supp[@]}")
    mkdir -p "$logs/vg" "$logs/vg-self"
    t=$SECONDS
    # cycle_table under valgrind: valgrind's own arenas grow as memory churns
    # (seen on a fresh 2-core machine: maps 314 -> 315, VmSize +8320 KiB in the
    # reuse variant, 0 memcheck errors), so the flatness check gets a slack here;
    # leaks are memcheck's verdict, and reliability.cycle-table.np2 stays strict.
    cyc="cycle_table --cycles 20 --warmup 10 --maps-slack 4 --vm-slack 16384 --rss-slack 4096"
    # halo_check across two simulated nodes: the plan's pack and unpack pieces, MPI
    # between the ranks (it once read an unset staging address there)
    halo="halo_check --grid 2,1 --periodic 1 --corners --block 6,5"
    for run in "multi_scal --n 1000" "multi_scal --n 1000 --check-peers" "$cyc" "$halo"; do
        read -r -a words <<<"$run"
        prog=$plain_dir/${words[0]}
        nodes=()
        if [[ ${words[0]} == cycle_table ]]; then prog=$plain_dir/tests/shardtab/reliability/cycle_table; fi
        if [[ ${words[0]} == halo_check ]]; then
            prog=$plain_dir/tests/shardtab/halo/halo_check
            nodes=(SHARDTAB_RANKS_PER_NODE=1)
        fi
        rm -f "$logs/vg"/*
        set +e
        env "${nodes[@]}" "${launch[@]}" -n 2 "${vg[@]}" --log-file="$logs/vg/vg.%p" \
            "$prog" "${words[@]:1}" >"$logs/vg.out" 2>&1
        rc=$?
        set -e
        n=0
        reports "$logs/vg" || n=$?
        echo "# valgrind: $run at 2 ranks: status $rc, $n rank(s) with errors"
        if [[ $rc -ne 0 || $n -ne 0 ]]; then
            tail -20 "$logs/vg.out"
            failures=$((failures + 1))
        fi
    done
    # the detector itself
    detector_self_test valgrind "definitely lost" "$logs/vg-self" \
        "${launch[@]}" -n 2 "${vg[@]}" --log-file="$logs/vg-self/vg.%p" \
        "$plain_dir/tests/shardtab/reliability/cycle_table"
    echo "# valgrind runs: $((SECONDS - t)) s"
fi

echo "# sanitize.sh: $((SECONDS - t0)) s in all, $failures failure(s)"
[[ $failures -eq 0 ]]
