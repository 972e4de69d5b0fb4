#!/usr/bin/env bash
# stop_rank.sh - stops one rank of a running job (SIGSTOP) and checks that the job ends by itself within a limit, saying why, leaving no process and nothing in /dev/shm.
#
# Usage: stop_rank.sh [--np N] [--rank R] [--after T] [--end-within S] [--exit N]
#                     [--expect-err RE]... [--env VAR=VALUE]... MPIEXEC PROGRAM [ARGS...]
#   --np N          ranks (default 2); --rank R the rank to stop (default 1)
#   --after T       seconds after the start to stop it (default 2)
#   --end-within S  seconds the job may take to end after the stop (default 60)
#   --exit N        mpiexec's expected exit status (default 1)
#   --expect-err RE a line of stderr must match the extended regex RE (repeatable)
#   --env VAR=VALUE set VAR for every rank (exported, and '-x VAR' for Open MPI)
# The stopped rank is never continued while the job runs: a job that ends only
# because of a SIGCONT would prove nothing. Whatever is left when the checks
# are over (a job that hung) is continued and killed by its process group, so
# nothing of the test outlives it.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

np=2
victim_rank=1
after=2
end_within=60
expect_exit=1
expects_err=()
envs=()
while [[ $# -gt 0 ]]; do
    case "$1" in
    --np) np=$2; shift 2 ;;
    --rank) victim_rank=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    --end-within) end_within=$2; shift 2 ;;
    --exit) expect_exit=$2; shift 2 ;;
    --expect-err) expects_err+=("$2"); shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    -*) echo "stop_rank.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [[ $# -lt 2 || $victim_rank -lt 0 || $victim_rank -ge $np ]]; then
    echo "usage: stop_rank.sh [--np N] [--rank R] [--after T] [--end-within S] MPIEXEC PROGRAM [ARGS...]" >&2
    exit 2
fi
mpiexec=$1
shift

# shellcheck source=tests/lib/driver.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
env_names=()
for e in "${envs[@]+"${envs[@]}"}"; do
    export "${e?}"
    env_names+=("${e%%=*}")
done
mpi_launch_flags "$mpiexec" "${env_names[@]+"${env_names[@]}"}"
flags=("${launch_flags[@]+"${launch_flags[@]}"}")

# shellcheck source=tests/lib/session.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/session.sh"
workdir=$(mktemp -d "${TMPDIR:-/tmp}/stop_rank.XXXXXX")
trap session_cleanup EXIT

shm_snapshot "$workdir/shm.before"
echo "command: $mpiexec ${flags[*]} -n $np $*"
echo "stop:    rank $victim_rank after ${after} s; the job must end within ${end_within} s of it"
t_start=$(now)
session_launch "$np" "$mpiexec" "$@"

# ---- stop the rank ------------------------------------------------------------------------
sleep "$after"
ranks_seen=""
if kill -0 "$job" 2>/dev/null; then session_ranks "$victim_rank"; fi
if [[ -z $victim ]]; then
    if ! kill -0 "$job" 2>/dev/null; then
        fail "the job ended before the stop: give it a longer run"
    else
        fail "rank $victim_rank not found among the job's processes ($ranks_seen)"
    fi
fi
t_stop=$(now)
if [[ -n $victim ]]; then
    kill -STOP "$victim"
    echo "stopped: rank $victim_rank (pid $victim) at $(elapsed "$t_start" "$t_stop") s; ranks (rank:pid) $ranks_seen"
fi

# ---- the job must end by itself -----------------------------------------------------------
session_wait_end "$t_stop" "$end_within" 0.1
rc=0
if [[ $ended -eq 1 ]]; then
    wait "$job" || rc=$?
    echo "ended:   mpiexec exited $rc, $(elapsed "$t_stop" "$t_end") s after the stop"
    if [[ $rc -ne $expect_exit ]]; then fail "mpiexec exited $rc, expected $expect_exit"; fi
else
    fail "the job still runs ${end_within} s after rank $victim_rank was stopped (a hang)"
fi
for re in "${expects_err[@]+"${expects_err[@]}"}"; do
    if ! grep -Eq -- "$re" "$workdir/stderr"; then fail "no line of stderr matches '$re'"; fi
done

# ---- nothing may be left: a job that hung is continued and killed here --------------------
left=$(session_pids | tr '\n' ' ')
if [[ -n ${left// /} && $ended -eq 1 ]]; then
    session_wait_gone 50
    if [[ -n ${left// /} ]]; then fail "processes of the job still alive after it ended: $left"; fi
fi
if [[ -n ${left// /} ]]; then
    if [[ -n $victim ]]; then kill -CONT "$victim" 2>/dev/null || true; fi
    kill -KILL -- "-$job" 2>/dev/null || true
    wait "$job" 2>/dev/null || true
    session_wait_gone 50
fi
job_pid=$job
if [[ ${ended} -eq 1 ]]; then job=""; fi

leaked=$(shm_leaked "$workdir/shm.before")
if [[ -n $leaked ]]; then
    fail "segments left in /dev/shm: $leaked"
    # remove what this job leaked, so that later tests and the machine keep their memory
    for f in $leaked; do rm -f "$f"; done
fi

session_report "$job_pid" 15
exit_verdict
