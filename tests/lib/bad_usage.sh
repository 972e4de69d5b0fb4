#!/usr/bin/env bash
# bad_usage.sh - one case, one process at a time: runs a program once for every line of a
# table of bad command lines and environments, each as a single MPI process started
# without mpiexec, and checks each refusal: exit 2, exactly one stderr line starting with
# '<prefix>:' that holds the line's text, nothing on stdout, no hang, nothing in /dev/shm.
# (That every rank of a job exits 2 with one message from rank 0 is a property of the
# programs' shared error path: one MPI case a program checks it, -each.)
#
# Usage: bad_usage.sh [--prefix NAME] [--limit S] [--dir D] [--only RE] [-v] TABLE PROGRAM
#   --prefix NAME  the word that starts the program's error lines (default: PROGRAM's name)
#   --limit S      seconds one run may take (default 10)
#   --dir D        the runs' working directory (default: a fresh temporary one), so that
#                  the table can name files there by relative paths
#   --only RE      only the lines whose name matches the extended regex RE
#   -v             print every run's stderr, not only a failed one's
#
# TABLE: one line a case, '#' lines and blank lines skipped:
#   name | exit | environment | arguments | text
#   exit         2 for a refusal; 0 for a control, which must run clean (no '<prefix>:'
#                line) and, where text is given, print a stdout line holding it
#   environment  '-' for none, else VAR=VALUE words
#   arguments    words split on blanks; '{empty}' is an empty argument and '{sp}' a space
#                inside one (' 4' is written '{sp}4')
#   text         a fixed string (not a regex)
# The runs go four at a time (a single process's MPI start is 0.2 s of waiting, little
# work). Prints a line a case, in the table's order, and ends 'N refusals tried, N
# passed'; exits 0 only when every refusal and every control passed.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=""
limit=10
rundir=""
only=""
verbose=0
while [[ $# -gt 0 ]]; do
    case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --dir) rundir=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -v) verbose=1; shift ;;
    -*) echo "bad_usage.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [[ $# -ne 2 ]]; then
    echo "usage: bad_usage.sh [--prefix NAME] [--limit S] [--dir D] [--only RE] [-v] TABLE PROGRAM" >&2
    exit 2
fi
table=$1
program=$2
prefix=${prefix:-$(basename "$program")}

# shellcheck source=tests/lib/driver.sh disable=SC1091
source "$here/driver.sh"
# a process started without mpiexec is an MPI job of one rank (a singleton); isolated,
# Open MPI starts no daemon beside it (0.2 s a run, not 0.3), and every such job is job
# family 0: each run gets a session directory of its own (orte_tmpdir_base), or
# concurrent runs race to make and remove the same one
export OMPI_MCA_ess_singleton_isolated=1

workdir=$(mktemp -d "${TMPDIR:-/tmp}/bad_usage.XXXXXX")
trap 'rm -rf "$workdir"' EXIT
rundir=${rundir:-$workdir}

# '{empty}' -> '', '{sp}' -> ' '
decode() {
    local w=$1
    if [[ $w == "{empty}" ]]; then w=""; fi
    printf '%s' "${w//\{sp\}/ }"
}

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

tried=0 passed=0 controls=0 controls_passed=0 case_no=0
parallel=4

# run_one NAME EXIT ENV ARGS TEXT: one run, its verdict in $workdir/<case>.verdict
# (first line PASS or FAIL).
run_one() {
    local name=$1 want_exit=$2 env_field=$3 arg_field=$4 text=$5
    local out=$workdir/$case_no.out err=$workdir/$case_no.err
    local -a args=() envs=() words=() problems=()
    local w rc n start ms
    if [[ -n $arg_field ]]; then
        read -r -a words <<<"$arg_field"
        for w in "${words[@]}"; do args+=("$(decode "$w")"); done
    fi
    if [[ $env_field != "-" ]]; then
        read -r -a words <<<"$env_field"
        for w in "${words[@]}"; do envs+=("${w%%=*}=$(decode "${w#*=}")"); done
    fi
    start=$(date +%s%N)
    set +e
    mkdir -p "$workdir/s$case_no"
    (cd "$rundir" && env OMPI_MCA_orte_tmpdir_base="$workdir/s$case_no" \
        "${envs[@]+"${envs[@]}"}" timeout -k 5 "$limit" \
        "$program" "${args[@]+"${args[@]}"}" >"$out" 2>"$err" </dev/null)
    rc=$?
    set -e
    ms=$((($(date +%s%N) - start) / 1000000))

    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
        problems+=("did not finish within ${limit} s (status $rc)")
    elif [[ $rc -ne $want_exit ]]; then
        problems+=("exited $rc, expected $want_exit")
    fi
    n=$(grep -c "^$prefix:" "$err" || true)
    if [[ $want_exit -ne 0 ]]; then
        if [[ $n -ne 1 ]]; then problems+=("$n stderr lines start with '$prefix:', expected 1"); fi
        if ! grep "^$prefix:" "$err" | grep -Fq -- "$text"; then
            problems+=("the '$prefix:' line does not hold: $text")
        fi
        if [[ -s $out ]]; then problems+=("stdout is not empty"); fi
    else
        if [[ $n -ne 0 ]]; then problems+=("a '$prefix:' line on stderr"); fi
        if grep -q 'FAILED' "$out"; then problems+=("FAILED on stdout"); fi
        if [[ -n $text ]] && ! grep -Fq -- "$text" "$out"; then
            problems+=("no stdout line holds: $text")
        fi
    fi
    local shown="${envs[*]+${envs[*]} }"
    for w in "${args[@]+"${args[@]}"}"; do shown+="'$w' "; done
    {
        if [[ ${#problems[@]} -eq 0 ]]; then
            printf 'PASS %-28s %5d ms  %s\n' "$name" "$ms" "$shown"
            if [[ $verbose -eq 1 ]]; then sed 's/^/    | /' "$err"; fi
        else
            printf 'FAIL %-28s %5d ms  %s\n' "$name" "$ms" "$shown"
            for w in "${problems[@]}"; do echo "     - $w"; done
            echo "     ---- stdout"; sed 's/^/     | /' "$out"
            echo "     ---- stderr"; sed 's/^/     | /' "$err"
        fi
    } >"$workdir/$case_no.verdict"
}

shm_snapshot "$workdir/shm.before"
kinds=() # a case's kind, by its number: refusal or control

while IFS= read -r line || [[ -n $line ]]; do
    if [[ -z $(trim "$line") || $(trim "$line") == \#* ]]; then continue; fi
    IFS='|' read -r f_name f_exit f_env f_args f_text <<<"$line"
    f_name=$(trim "$f_name")
    f_exit=$(trim "$f_exit")
    f_env=$(trim "$f_env")
    f_args=$(trim "$f_args")
    f_text=$(trim "${f_text:-}")
    if [[ -n $only ]] && ! [[ $f_name =~ $only ]]; then continue; fi
    if [[ -z $f_name || ! $f_exit =~ ^[0-9]+$ || -z $f_env ]]; then
        echo "bad_usage.sh: malformed table line: $line" >&2
        exit 2
    fi
    if [[ $f_exit -ne 0 && -z $f_text ]]; then
        echo "bad_usage.sh: refusal '$f_name' names no message text" >&2
        exit 2
    fi
    case_no=$((case_no + 1))
    kinds[case_no]=$([[ $f_exit -eq 0 ]] && echo control || echo refusal)
    run_one "$f_name" "$f_exit" "$f_env" "$f_args" "$f_text" &
    while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
done <"$table"
wait

for ((i = 1; i <= case_no; i++)); do
    cat "$workdir/$i.verdict"
    ok=0
    if head -n 1 "$workdir/$i.verdict" | grep -q '^PASS'; then ok=1; fi
    if [[ ${kinds[i]} == control ]]; then
        controls=$((controls + 1)) controls_passed=$((controls_passed + ok))
    else
        tried=$((tried + 1)) passed=$((passed + ok))
    fi
done
leaked=$(shm_leaked "$workdir/shm.before")
if [[ -n $leaked ]]; then
    echo "FAIL: left in /dev/shm: $leaked"
    passed=-1
fi
echo "# $controls controls run, $controls_passed passed"
echo "$tried refusals tried, $passed passed"
[[ $tried -gt 0 && $passed -eq $tried && $controls_passed -eq $controls ]]
