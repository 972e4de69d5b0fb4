#!/usr/bin/env bash
# repro_ranks.sh - runs one cg command at several rank counts, and several times at
# each, and compares its fingerprint lines (x and the residual history) byte for byte:
# across every count (the --repro promise: the same bits at any number of ranks), or,
# with --within-count, between the runs at one count only (the same bits every run;
# across counts they may differ without --repro, and are only reported).
#
# Usage: repro_ranks.sh [--ranks "1 2 3 4"] [--runs N] [--within-count] [--timeout S]
#                       -- MPIEXEC NPFLAG @NP@ [preflags] PROGRAM [postflags] [args]
#   @NP@ in the command is each rank count in turn. A count written N/K runs N ranks
#   as nodes of K ranks each (SHARDTAB_RANKS_PER_NODE=K): the same bits across nodes.
# Every run must exit 0, print one fingerprint line and end verified; nothing may be
# left in /dev/shm. Prints the fingerprints and PASS, or each difference and exits 1.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ranks="1 2 3 4"
runs=1
within=0
limit=30

usage() {
    echo "usage: repro_ranks.sh [--ranks LIST] [--runs N] [--within-count] [--timeout S] -- MPIEXEC ... @NP@ ... PROGRAM [args]" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
    --ranks) ranks=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --within-count) within=1; shift ;;
    --timeout) limit=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "repro_ranks.sh: unknown option '$1'" >&2; usage ;;
    esac
done
[ $# -gt 1 ] || usage
cmd=("$@")
found=0
for word in "${cmd[@]}"; do [ "$word" = "@NP@" ] && found=1; done
[ "$found" -eq 1 ] || { echo "repro_ranks.sh: the command has no @NP@" >&2; exit 2; }

# shellcheck source=tests/lib/driver.sh disable=SC1091
source "$here/../lib/driver.sh"
mpi_launch_flags "${cmd[0]}"
cmd=("${cmd[0]}" "${launch_flags[@]+"${launch_flags[@]}"}" "${cmd[@]:1}")

workdir=$(mktemp -d "${TMPDIR:-/tmp}/repro_ranks.XXXXXX") || exit 1
trap 'rm -rf "$workdir"' EXIT
shm_snapshot "$workdir/shm.before"

# run_one NP RUN: one run; its fingerprint line in $workdir/print-NP-RUN; 0 when it ran clean
run_one() {
    local np=$1 run=$2 out=$workdir/out-${1//\//_}-$2 err=$workdir/err-${1//\//_}-$2 rc n
    local print=$workdir/print-${1//\//_}-$2 count=${1%/*} per_node=""
    local -a this=()
    [[ $np == */* ]] && per_node=${np#*/}
    for word in "${cmd[@]}"; do
        if [ "$word" = "@NP@" ]; then this+=("$count"); else this+=("$word"); fi
    done
    if [ -n "$per_node" ]; then
        SHARDTAB_RANKS_PER_NODE=$per_node timeout -k 5 "$limit" "${this[@]}" >"$out" 2>"$err"
    else
        timeout -k 5 "$limit" "${this[@]}" >"$out" 2>"$err"
    fi
    rc=$?
    grep -E '^# cg fingerprint: ' "$out" >"$print"
    n=$(wc -l <"$print")
    local bad=""
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        bad="did not finish within $limit s (hang?)"
    elif [ "$rc" -ne 0 ]; then
        bad="exit status $rc, expected 0"
    elif [ "$n" -ne 1 ]; then
        bad="$n fingerprint lines, expected 1"
    elif ! grep -Eq '^# verify cg: OK ' "$out"; then
        bad="no '# verify cg: OK' line"
    elif ! grep -Eq '^# cg fingerprint: x [0-9a-f]{16}, residual history [0-9a-f]{16}$' \
        "$print"; then
        bad="the fingerprint line is not 'x <hex16>, residual history <hex16>'"
    fi
    if [ -n "$bad" ]; then
        fail "$np ranks, run $run: $bad"
        echo "command: ${this[*]}"
        echo "---- stdout"; cat "$out"
        echo "---- stderr"; cat "$err"
        echo "----"
        return 1
    fi
    echo "$np ranks, run $run: $(cat "$print")"
    return 0
}

first="" first_at=""
for np in $ranks; do
    count_first=""
    for run in $(seq 1 "$runs"); do
        run_one "$np" "$run" || continue
        line=$(cat "$workdir/print-${np//\//_}-$run")
        if [ -z "$count_first" ]; then
            count_first=$line
        elif [ "$line" != "$count_first" ]; then
            fail "$np ranks: run $run printed '$line', run 1 '$count_first': not the same bits every run"
        fi
        if [ -z "$first" ]; then
            first=$line
            first_at="$np ranks"
        elif [ "$line" != "$first" ]; then
            if [ "$within" -eq 1 ]; then
                [ "$run" -eq 1 ] && echo "(not asserted) $np ranks differ from $first_at: '$line' against '$first'"
            else
                fail "$np ranks, run $run printed '$line', $first_at '$first': the fingerprint depends on the rank count"
            fi
        fi
    done
done

leaked=$(shm_leaked "$workdir/shm.before")
[ -z "$leaked" ] || fail "shared-memory segments left behind: $leaked"
exit_verdict
