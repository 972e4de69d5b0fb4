#!/usr/bin/env bash
# run_case.sh - the driver of every MPI integration case (multi_scal, jacobi, the
# fronts, the signals): runs one under mpiexec and checks it.
#
# Usage: run_case.sh [options] -- MPIEXEC -n N [preflags] PROGRAM [postflags] [args]
#
# Options (each check is on top of the always-on checks below):
#   --exit N            expected exit status (default 0); with --each-rank, the
#                       status every single rank must exit with
#   --expect RE         a line of stdout must match the extended regex RE (repeatable)
#   --expect-err RE     a line of stderr must match RE (repeatable)
#   --forbid RE         no line of stdout or stderr may match RE (repeatable)
#   --count RE:N        exactly N lines of stdout match RE (repeatable; RE has no ':N')
#   --errors N          number of stderr lines that start with '<prefix>:'
#                       (default: 0 when --exit is 0, else 1)
#   --errors-at-least N the same, at least N (several ranks may each say it)
#   --within S          the run must end within S seconds (a promptness check,
#                       far below --timeout)
#   --prefix NAME       the program name that starts its error lines, counted by
#                       --errors and never allowed on stdout (default multi_scal)
#   --env VAR=VALUE     set VAR for every rank (exported, and '-x VAR' for Open MPI)
#   --json FILE:N       FILE must be valid JSON holding N results, all verified;
#                       FILE is removed before the run
#   --no-file FILE      FILE must not exist after the run (removed before it)
#   --no-glob PATTERN   no file may match the shell pattern PATTERN after the run
#   --each-rank         run PROGRAM through rank_exit.sh and require every rank
#                       to exit with --exit (mpiexec itself must then exit 0),
#                       which also turns a rank left hanging into a timeout
#   --program PATH      the program inside the command (needed by --each-rank)
#   --timeout S         wall-clock limit of the run (default 45 s)
#
# Always checked: the run ends within the limit (no hang), and no
# /dev/shm/shardtab-* segment exists afterwards that did not exist before.
# Adds --oversubscribe (more ranks than cores) when mpiexec is Open MPI, and the
# environment Open MPI needs to run as root inside a container.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
expect_exit=0
errors=""
errors_min=""
within=""
limit=45
each_rank=0
program=""
prefix=multi_scal
expects=()
expects_err=()
forbids=()
counts=()
envs=()
jsons=()
no_files=()
no_globs=()

usage() {
    echo "usage: run_case.sh [options] -- MPIEXEC ARGS..." >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
    --exit) expect_exit=$2; shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --expect-err) expects_err+=("$2"); shift 2 ;;
    --forbid) forbids+=("$2"); shift 2 ;;
    --count) counts+=("$2"); shift 2 ;;
    --errors) errors=$2; shift 2 ;;
    --errors-at-least) errors_min=$2; shift 2 ;;
    --within) within=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --json) jsons+=("$2"); shift 2 ;;
    --no-file) no_files+=("$2"); shift 2 ;;
    --no-glob) no_globs+=("$2"); shift 2 ;;
    --each-rank) each_rank=1; shift ;;
    --program) program=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_case.sh: unknown option '$1'" >&2; usage ;;
    esac
done
[ $# -gt 0 ] || usage
if [ -z "$errors" ]; then
    if [ "$expect_exit" -eq 0 ]; then errors=0; else errors=1; fi
fi

cmd=("$@")
mpiexec=${cmd[0]}

# ---- environment ------------------------------------------------------------
# shellcheck source=tests/lib/driver.sh disable=SC1091
source "$here/driver.sh"

asked_ranks="" # -n / -np N of the command
for i in "${!cmd[@]}"; do
    case "${cmd[$i]}" in
    -n | -np | --np | -c) asked_ranks=${cmd[$((i + 1))]} ;;
    esac
done
mpi_single_rank_quick_exit "$asked_ranks" # one rank needs no kill grace

names=()
for kv in "${envs[@]+"${envs[@]}"}"; do
    names+=("${kv%%=*}")
    export "${kv%%=*}=${kv#*=}"
done
mpi_launch_flags "$mpiexec" "${names[@]+"${names[@]}"}"

workdir=$(mktemp -d "${TMPDIR:-/tmp}/run_case.XXXXXX") || exit 1
trap 'rm -rf "$workdir"' EXIT

if [ "$each_rank" -eq 1 ]; then
    [ -n "$program" ] || { echo "run_case.sh: --each-rank needs --program" >&2; exit 2; }
    mkdir -p "$workdir/ranks"
    found=0
    for i in "${!cmd[@]}"; do
        if [ "$i" -gt 0 ] && [ "${cmd[$i]}" = "$program" ]; then
            cmd=("${cmd[@]:0:$i}" /bin/bash "$here/rank_exit.sh" "$workdir/ranks"
                 "${cmd[@]:$i}")
            found=1
            break
        fi
    done
    [ "$found" -eq 1 ] || { echo "run_case.sh: '$program' is not in the command" >&2; exit 2; }
fi
cmd=("${cmd[0]}" "${launch_flags[@]+"${launch_flags[@]}"}" "${cmd[@]:1}")

for spec in "${jsons[@]+"${jsons[@]}"}"; do rm -f "${spec%:*}"; done
for f in "${no_files[@]+"${no_files[@]}"}"; do rm -f "$f"; done

# ---- run ----------------------------------------------------------------------
shm_snapshot "$workdir/shm.before"
start=$(date +%s.%N)
timeout -k 5 "$limit" "${cmd[@]}" >"$workdir/stdout" 2>"$workdir/stderr"
rc=$?
end=$(date +%s.%N)

echo "command: ${cmd[*]}"
for kv in "${envs[@]+"${envs[@]}"}"; do echo "env:     $kv"; done
awk -v rc="$rc" -v a="$start" -v b="$end" 'BEGIN { printf "status:  %s (%.2f s)\n", rc, b - a }'
echo "---- stdout"
cat "$workdir/stdout"
echo "---- stderr"
cat "$workdir/stderr"
echo "----"

# ---- checks -----------------------------------------------------------------------
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    fail "did not finish within ${limit} s (hang?); status $rc"
elif [ "$each_rank" -eq 1 ]; then
    [ "$rc" -eq 0 ] || fail "mpiexec exited $rc, but every rank's wrapper exits 0"
    nranks=0
    for f in "$workdir"/ranks/rank-*; do
        [ -e "$f" ] || continue
        nranks=$((nranks + 1))
        r=$(cat "$f")
        [ "$r" = "$expect_exit" ] || fail "${f##*/} exited $r, expected $expect_exit"
    done
    if [ -n "$asked_ranks" ] && [ "$nranks" -ne "$asked_ranks" ]; then
        fail "$nranks of $asked_ranks ranks reported an exit status"
    fi
elif [ "$rc" -ne "$expect_exit" ]; then
    fail "exit status $rc, expected $expect_exit"
fi

for re in "${expects[@]+"${expects[@]}"}"; do
    grep -Eq -- "$re" "$workdir/stdout" || fail "no stdout line matches: $re"
done
for re in "${expects_err[@]+"${expects_err[@]}"}"; do
    grep -Eq -- "$re" "$workdir/stderr" || fail "no stderr line matches: $re"
done
for re in "${forbids[@]+"${forbids[@]}"}"; do
    if grep -Eq -- "$re" "$workdir/stdout" "$workdir/stderr"; then
        fail "forbidden line present: $re"
    fi
done
for spec in "${counts[@]+"${counts[@]}"}"; do
    re=${spec%:*}
    n=$(grep -Ec -- "$re" "$workdir/stdout")
    [ "$n" -eq "${spec##*:}" ] || fail "$n stdout lines match '$re', expected ${spec##*:}"
done

n=$(grep -c -- "^${prefix}:" "$workdir/stderr")
if [ -n "$errors_min" ]; then
    [ "$n" -ge "$errors_min" ] || fail "$n stderr lines start with '${prefix}:', expected at least $errors_min"
else
    [ "$n" -eq "$errors" ] || fail "$n stderr lines start with '${prefix}:', expected $errors"
fi
if [ -n "$within" ] && awk -v a="$start" -v b="$end" -v w="$within" 'BEGIN { exit !(b - a > w) }'; then
    fail "the run took more than $within s"
fi
if grep -q -- "^${prefix}:" "$workdir/stdout"; then
    fail "an error message went to stdout"
fi

for spec in "${jsons[@]+"${jsons[@]}"}"; do
    file=${spec%:*}
    want=${spec##*:}
    if [ ! -s "$file" ]; then
        fail "JSON file $file is missing or empty"
    elif command -v python3 >/dev/null 2>&1; then
        if ! python3 -m json.tool "$file" >/dev/null; then
            fail "$file is not valid JSON"
        elif ! python3 - "$file" "$want" <<'EOF'; then
import json, sys
doc = json.load(open(sys.argv[1]))
res = doc.get("results", [])
want = int(sys.argv[2])
ok = len(res) == want and all(r.get("verified") is True for r in res) \
    and doc.get("exit_status") == 0 and doc.get("program") == "multi_scal"
if not ok:
    print("JSON results:", json.dumps(res), "exit_status:", doc.get("exit_status"))
sys.exit(0 if ok else 1)
EOF
            fail "$file does not hold $want verified results and exit_status 0"
        fi
    else
        n=$(grep -Ec '"verified": true' "$file")
        [ "$n" -eq "$want" ] || fail "$file has $n verified results, expected $want"
        grep -q '"verified": false' "$file" && fail "$file has an unverified result"
    fi
    rm -f "$file"
done
for f in "${no_files[@]+"${no_files[@]}"}"; do
    [ -e "$f" ] && fail "$f exists after the run"
    rm -f "$f"
done
for pattern in "${no_globs[@]+"${no_globs[@]}"}"; do
    for f in $pattern; do
        [ -e "$f" ] && fail "$f exists after the run" && rm -f "$f"
    done
done

leaked=$(shm_leaked "$workdir/shm.before")
[ -z "$leaked" ] || fail "shared-memory segments left behind: $leaked"
exit_verdict
