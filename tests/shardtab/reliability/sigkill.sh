#!/usr/bin/env bash
# sigkill.sh - kills a running multi_scal job (one rank, every rank, or the launcher; SIGKILL or any signal) and checks the job ends fast, leaving no process and nothing in /dev/shm.
#
# Usage: sigkill.sh [--phase run|create] [--np N] [--rank R] [--end-within S]
#                   [--signal NAME] [--target rank|all|launcher]
#                   MPIEXEC PROGRAM [PROGRAM ARGS...]
#   --phase run     (default) kill 1 s after the table is created, while the
#                   kernels run; the program's arguments must make the run last
#                   well over 10 s
#   --phase create  kill as soon as a rank holds a shard's memfd (the host
#                   backend's shared memory, made at export) and the table is
#                   not yet created: inside shardtab_create
#   --np N          ranks (default 3); --rank R the rank to kill (default 1)
#   --end-within S  seconds the whole job may take to end after the kill (10)
#   --signal NAME   the signal to send (default KILL): any that ends a process
#                   by default (USR1, ALRM, PIPE, XCPU, ...) must end the job too
#   --target T      rank (default): --rank only; all: every rank at once (as
#                   mpirun or Slurm's --signal forward it); launcher: mpiexec itself
# Run it alone (ctest RUN_SERIAL): it scans /dev/shm and the process table.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

phase=run
np=3
victim_rank=1
end_within=10
signal=KILL
target=rank
while [[ $# -gt 0 ]]; do
    case "$1" in
    --phase) phase=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --rank) victim_rank=$2; shift 2 ;;
    --end-within) end_within=$2; shift 2 ;;
    --signal) signal=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    -*) echo "sigkill.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [[ $# -lt 2 || ! $phase =~ ^(run|create)$ || ! $target =~ ^(rank|all|launcher)$ ]]; then
    echo "usage: sigkill.sh [--phase run|create] [--np N] [--rank R] [--end-within S] MPIEXEC PROGRAM [ARGS...]" >&2
    exit 2
fi
if [[ $victim_rank -eq 0 || $victim_rank -ge $np ]]; then
    echo "sigkill.sh: --rank must be in [1, $np)" >&2
    exit 2
fi
mpiexec=$1
shift

# shellcheck source=tests/lib/driver.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/driver.sh"
mpi_launch_flags "$mpiexec"
flags=("${launch_flags[@]+"${launch_flags[@]}"}")

# shellcheck source=tests/lib/session.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/session.sh"
workdir=$(mktemp -d "${TMPDIR:-/tmp}/sigkill.XXXXXX")
trap session_cleanup EXIT

new_segments() { shm_list | sort | comm -13 "$workdir/shm.before" -; }
# a process of the job holds a shard's memfd (backend_host.c names them shardtab-<tag>)
memfd_seen() {
    local p
    for p in $(session_pids); do
        if find "/proc/$p/fd" -maxdepth 1 -type l -lname '/memfd:shardtab-*' 2>/dev/null | grep -q .; then
            return 0
        fi
    done
    return 1
}

shm_snapshot "$workdir/shm.before"
echo "command: $mpiexec ${flags[*]} -n $np $*"
echo "phase:   $phase; send SIG$signal to the $target${target/#rank/ $victim_rank}; the job must end within ${end_within} s"
t_start=$(now)
# Our shards never go to Open MPI's folder (session_launch): they are memfds.
session_launch "$np" "$mpiexec" "$@"

# ---- wait for the moment to strike ----------------------------------------------------
deadline=$(($(date +%s) + 120))
ready=0
while [[ $(date +%s) -lt $deadline ]] && kill -0 "$job" 2>/dev/null; do
    if [[ $phase == run ]]; then
        if grep -q '^# table created' "$workdir/stdout"; then
            sleep 1
            ready=1
            break
        fi
        sleep 0.05
    else
        if memfd_seen; then
            ready=1
            break
        fi
        if grep -q '^# table created' "$workdir/stdout"; then
            break # create is over: the window was missed
        fi
        sleep 0.002
    fi
done
segments_at_kill=$(new_segments | tr '\n' ' ')

if [[ $ready -eq 1 ]] && kill -0 "$job" 2>/dev/null; then
    session_ranks "$victim_rank"
else
    session_ranks
fi

if [[ -z $victim ]]; then
    if [[ $ready -eq 0 && $phase == create ]]; then
        fail "no rank held a shard's memfd before the table was created: window missed"
    elif ! kill -0 "$job" 2>/dev/null; then
        fail "the job ended before the kill: give it a longer run"
    else
        fail "rank $victim_rank not found among the job's processes ($ranks_seen)"
    fi
    t_kill=$(now)
else
    t_kill=$(now)
    echo "kill:    rank $victim_rank (pid $victim) at $(elapsed "$t_start" "$t_kill") s; ranks (rank:pid) $ranks_seen"
    if [[ $phase == create ]]; then echo "         inside create (a memfd exported); /dev/shm entries of this job: ${segments_at_kill:-none}"; fi
    case $target in
    rank) kill -s "$signal" "$victim" ;;
    all)
        for pr in $ranks_seen; do kill -s "$signal" "${pr#*:}" 2>/dev/null || true; done ;;
    launcher) kill -s "$signal" "$job" ;;
    esac
fi

# ---- the whole job must end ---------------------------------------------------------------
session_wait_end "$t_kill" "$end_within" 0.05
rc=0
if [[ $ended -eq 1 ]]; then
    wait "$job" || rc=$?
    echo "ended:   mpiexec exited $rc, $(elapsed "$t_kill" "$t_end") s after the kill"
    if [[ $rc -eq 0 ]]; then fail "mpiexec exited 0 although the job was killed"; fi
    if grep -q '^# verify' "$workdir/stdout"; then
        fail "a mode finished and was verified: the run was too short to test the kill"
    fi
else
    fail "the job still runs ${end_within} s after the kill"
fi

# ---- nothing may be left -------------------------------------------------------------------
session_wait_gone $((end_within * 10))
if [[ -n ${left// /} ]]; then
    fail "processes of the job still alive: $left"
    ps -o pid,ppid,stat,etime,args -p "${left// /,}" 2>/dev/null | sed 's/^/    /' || true
    kill -KILL -- "-$job" 2>/dev/null || true
fi
job_pid=$job
job="" # ended (or just killed): cleanup need not touch it
for pr in $ranks_seen; do
    p=${pr#*:}
    if kill -0 "$p" 2>/dev/null && [[ $(ps -o stat= -p "$p") != Z* ]]; then
        fail "rank ${pr%%:*} (pid $p) is still alive"
    fi
done

leaked=$(shm_leaked "$workdir/shm.before")
if [[ -n $leaked ]]; then
    fail "segments left in /dev/shm: $leaked"
    # shellcheck disable=SC2086,SC2012 # the names, one word each
    ls -l $leaked | sed 's/^/    /'
    # remove what this job leaked, so that later tests and the machine keep their memory
    for f in $leaked; do rm -f "$f"; done
fi

session_report "$job_pid"
if [[ $failures -gt 0 ]]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "PASS: job ended $(elapsed "$t_kill" "$t_end") s after SIG$signal to the $target; no process and nothing in /dev/shm left"
