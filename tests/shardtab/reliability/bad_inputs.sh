#!/usr/bin/env bash
# bad_inputs.sh - runs every line of bad_inputs.txt under mpiexec and checks that every rank exits 2 by itself, one message from rank 0, no hang, no leftovers.
#
# Usage: bad_inputs.sh [--np N] [--table FILE] [--limit S] [--only NAME] [-v]
#                      MPIEXEC PROGRAM
#   --np N      ranks per run (default 1)
#   --table F   the table (default: bad_inputs.txt next to this script)
#   --limit S   seconds one run may take (default 10)
#   --only RE   run only the lines whose name matches the extended regex RE
#   -v          print the output of every run, not only of failed ones
# Prints one line per case and ends with 'N bad inputs tried, N passed'; exits
# 0 only when every bad input and every control passed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
np=1
table=$here/bad_inputs.txt
limit=10
only=""
verbose=0

while [[ $# -gt 0 ]]; do
    case "$1" in
    --np) np=$2; shift 2 ;;
    --table) table=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -v) verbose=1; shift ;;
    -*) echo "bad_inputs.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [[ $# -ne 2 ]]; then
    echo "usage: bad_inputs.sh [--np N] [--table FILE] [--limit S] [--only RE] [-v] MPIEXEC PROGRAM" >&2
    exit 2
fi
mpiexec=$1
program=$2

# ---- environment and helpers: the same as tests/lib/run_case.sh's ------------------
# shellcheck source=tests/lib/driver.sh disable=SC1091
source "$here/../../lib/driver.sh"

is_openmpi=0
if mpiexec_is_openmpi "$mpiexec"; then
    is_openmpi=1
fi

rank_exit=$here/../../lib/rank_exit.sh
workdir=$(mktemp -d "${TMPDIR:-/tmp}/bad_inputs.XXXXXX")
trap 'rm -rf "$workdir"' EXIT

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

tried=0 passed=0 controls=0 controls_passed=0 slowest=0 slowest_name=""
case_no=0

# run_one NAME EXIT ENV ARGS TEXT: one run; prints the verdict; returns 0 on pass.
run_one() {
    local name=$1 want_exit=$2 env_field=$3 arg_field=$4 text=$5
    local dir=$workdir/$case_no
    local -a args=() envs=() flags=() names=() words=()
    local w rc ms problems=() n r f
    mkdir -p "$dir"

    if [[ -n $arg_field ]]; then
        read -r -a words <<<"$arg_field"
        for w in "${words[@]}"; do args+=("$(decode "$w")"); done
    fi
    if [[ $env_field != "-" ]]; then
        read -r -a words <<<"$env_field"
        for w in "${words[@]}"; do envs+=("${w%%=*}=$(decode "${w#*=}")"); done
    fi

    names=()
    for w in "${envs[@]+"${envs[@]}"}"; do names+=("${w%%=*}"); done
    mpi_launch_flags "$mpiexec" "${names[@]+"${names[@]}"}"
    flags=("${launch_flags[@]+"${launch_flags[@]}"}")
    if [[ $is_openmpi -eq 1 ]]; then flags+=(--output-filename "$dir/ranks"); fi

    shm_snapshot "$dir/shm.before"
    local start end
    start=$(date +%s%N)
    set +e
    # Each rank runs under rank_exit.sh, which records its own status and exits
    # 0: mpiexec then never ends the job for the first rank that exits
    # non-zero, so every rank must end by itself with the agreed status (one
    # that would not is a timeout here, not a survivor killed in silence), and
    # no run idles in mpiexec's 2 s SIGTERM-then-SIGKILL grace.
    mkdir -p "$dir/status"
    env "${envs[@]+"${envs[@]}"}" timeout -k 5 "$limit" \
        "$mpiexec" "${flags[@]+"${flags[@]}"}" -n "$np" /bin/bash "$rank_exit" "$dir/status" \
        "$program" "${args[@]+"${args[@]}"}" >"$dir/stdout" 2>"$dir/stderr" </dev/null
    rc=$?
    set -e
    end=$(date +%s%N)
    ms=$(((end - start) / 1000000))
    if [[ $ms -gt $slowest ]]; then slowest=$ms; slowest_name="$name (np $np)"; fi

    # ---- checks ----
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
        problems+=("did not finish within ${limit} s (status $rc)")
    elif [[ $rc -ne 0 ]]; then
        problems+=("mpiexec exited $rc, but every rank's wrapper exits 0")
    else
        for ((r = 0; r < np; r++)); do
            f=$dir/status/rank-$r
            if [[ ! -f $f ]]; then
                problems+=("rank $r reported no exit status")
            elif [[ $(cat "$f") != "$want_exit" ]]; then
                problems+=("rank $r exited $(cat "$f"), expected $want_exit")
            fi
        done
    fi
    if [[ $want_exit -ne 0 ]]; then
        n=$(grep -c '^multi_scal:' "$dir/stderr" || true)
        if [[ $n -ne 1 ]]; then problems+=("$n stderr lines start with 'multi_scal:', expected 1"); fi
        if ! grep '^multi_scal:' "$dir/stderr" | grep -Fq -- "$text"; then
            problems+=("the 'multi_scal:' line does not contain: $text")
        fi
        if [[ -s $dir/stdout ]]; then problems+=("stdout is not empty"); fi
        if [[ $is_openmpi -eq 1 ]]; then
            # Open MPI also keeps each rank's own output: rank 0 alone speaks.
            for ((r = 0; r < np; r++)); do
                f=$dir/ranks/1/rank.$r/stderr
                n=0
                if [[ -f $f ]]; then n=$(grep -c '^multi_scal:' "$f" || true); fi
                if [[ $r -eq 0 && $n -ne 1 ]]; then
                    problems+=("rank 0 printed $n 'multi_scal:' lines, expected 1")
                elif [[ $r -gt 0 && $n -ne 0 ]]; then
                    problems+=("rank $r printed $n 'multi_scal:' lines, expected none")
                fi
            done
        fi
    else
        if grep -q '^multi_scal:' "$dir/stderr"; then problems+=("a 'multi_scal:' line on stderr"); fi
        if grep -q 'FAILED' "$dir/stdout"; then problems+=("a verification FAILED"); fi
        n=$(grep -c '^# verify [a-z]*: OK' "$dir/stdout" || true)
        if [[ $n -lt 1 ]]; then problems+=("no '# verify <mode>: OK' line"); fi
    fi
    local leaked
    leaked=$(shm_leaked "$dir/shm.before")
    if [[ -n $leaked ]]; then problems+=("left in /dev/shm: $leaked"); fi

    local shown_env="" shown_args=""
    for w in "${envs[@]+"${envs[@]}"}"; do shown_env+=" ${w%%=*}='${w#*=}'"; done
    for w in "${args[@]+"${args[@]}"}"; do shown_args+=" '$w'"; done
    shown_env=${shown_env# }
    if [[ ${#problems[@]} -eq 0 ]]; then
        printf 'PASS %-22s np %d %5d ms  %s%s\n' "$name" "$np" "$ms" "${shown_env:+$shown_env }" "${shown_args# }"
        if [[ $verbose -eq 1 ]]; then sed 's/^/    | /' "$dir/stderr"; fi
        return 0
    fi
    printf 'FAIL %-22s np %d %5d ms  %s%s\n' "$name" "$np" "$ms" "${shown_env:+$shown_env }" "${shown_args# }"
    for w in "${problems[@]}"; do echo "     - $w"; done
    echo "     ---- stdout"; sed 's/^/     | /' "$dir/stdout"
    echo "     ---- stderr"; sed 's/^/     | /' "$dir/stderr"
    return 1
}

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
        echo "bad_inputs.sh: malformed table line: $line" >&2
        exit 2
    fi
    if [[ $f_exit -ne 0 && -z $f_text ]]; then
        echo "bad_inputs.sh: bad input '$f_name' names no message text" >&2
        exit 2
    fi
    case_no=$((case_no + 1))
    if [[ $f_exit -eq 0 ]]; then
        controls=$((controls + 1))
        if run_one "$f_name" "$f_exit" "$f_env" "$f_args" "$f_text"; then
            controls_passed=$((controls_passed + 1))
        fi
    else
        tried=$((tried + 1))
        if run_one "$f_name" "$f_exit" "$f_env" "$f_args" "$f_text"; then
            passed=$((passed + 1))
        fi
    fi
done <"$table"

echo "# slowest run: $slowest ms ($slowest_name); limit ${limit} s"
echo "# $controls controls run, $controls_passed passed"
echo "$tried bad inputs tried, $passed passed (np $np)"
[[ $tried -gt 0 && $passed -eq $tried && $controls_passed -eq $controls ]]
