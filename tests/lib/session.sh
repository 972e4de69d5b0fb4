# session.sh - an MPI job in a session of its own, for the drivers that stop or kill one of its ranks from outside (stop_rank.sh, reliability/sigkill.sh): the launch, its processes, its ranks, the wait for its end and the cleanup, written once.
# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # globals the caller sets and reads (listed below)
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
#
# The caller sources driver.sh first, sets launch_flags (mpi_launch_flags) and
# a workdir of its own; the functions below set and read these globals:
#   job         mpiexec's pid, the leader of the job's session and process group
#   victim      the pid of the rank the driver stops or kills ("" until found)
#   ranks_seen  "rank:pid ..." of the job's ranks (session_ranks)
#   ended, t_end  whether the job ended by itself, and when (session_wait_end)
job=""
victim=""

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# every live process of the job's session (setsid in session_launch makes the session ours)
session_pids() { ps -e -o pid=,sid=,stat= | awk -v s="$job" '$2 == s && $3 !~ /^Z/ { print $1 }'; }
rank_of() { tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p'; }

# session_cleanup: the EXIT trap. Only what the driver started: the job's own
# session and process group (a stopped rank is continued first), and its workdir.
# shellcheck disable=SC2317 # run by the trap
session_cleanup() {
    if [[ -n $job ]] && kill -0 "$job" 2>/dev/null; then
        if [[ -n $victim ]]; then kill -CONT "$victim" 2>/dev/null || true; fi
        kill -KILL -- "-$job" 2>/dev/null || true
    fi
    rm -rf "$workdir"
}

# session_launch NP MPIEXEC [ARGS...]: starts the job in the background, its
# output in $workdir/stdout and $workdir/stderr, and sets job. Open MPI's own
# shared-memory files (vader_segment.*) go to $workdir/vader, not /dev/shm: a
# killed mpirun cannot remove them, and they are not ours to count, but nothing
# of the test may outlive it (the cleanup removes the folder). A new session, so
# that every process of the job can be found (and, on a failure, ended) by its
# session and process group, never by name.
session_launch() {
    local np=$1 mpiexec=$2
    shift 2
    mkdir -p "$workdir/vader"
    export OMPI_MCA_btl_vader_backing_directory="$workdir/vader"
    setsid "$mpiexec" "${launch_flags[@]+"${launch_flags[@]}"}" -n "$np" "$@" \
        >"$workdir/stdout" 2>"$workdir/stderr" </dev/null &
    job=$!
}

# session_ranks [RANK]: sets ranks_seen to the job's ranks now, and victim to
# the pid of RANK when one is given and found.
session_ranks() {
    local p r
    ranks_seen=""
    for p in $(session_pids); do
        r=$(rank_of "$p")
        if [[ -n $r ]]; then ranks_seen+="$r:$p "; fi
        if [[ $# -gt 0 && $r == "$1" ]]; then victim=$p; fi
    done
}

# session_wait_end FROM SECONDS POLL: waits, polling every POLL s, until the job
# ends or SECONDS have passed since the time FROM (a `now`); sets ended (1 when
# it ended) and t_end.
session_wait_end() {
    local limit_at
    ended=0
    limit_at=$(awk -v t="$1" -v s="$2" 'BEGIN { printf "%.3f", t + s }')
    while awk -v l="$limit_at" -v n="$(now)" 'BEGIN { exit !(n < l) }'; do
        if ! kill -0 "$job" 2>/dev/null; then
            ended=1
            break
        fi
        sleep "$3"
    done
    t_end=$(now)
}

# session_wait_gone TRIES: waits, TRIES times 0.1 s at most, until no process of
# the job's session is left; sets left to those still there ("" when none).
session_wait_gone() {
    local _
    left=""
    for _ in $(seq "$1"); do
        left=$(session_pids | tr '\n' ' ')
        if [[ -z ${left// /} ]]; then break; fi
        sleep 0.1
    done
}

# session_report PID [LINES]: the job's output, indented, for the log (stdout's
# last LINES lines when given, else all of it); PID names mpiexec.
session_report() {
    if [[ $# -gt 1 ]]; then
        echo "---- stdout (mpiexec pid $1), last lines"
        tail -n "$2" "$workdir/stdout" | sed 's/^/    /'
    else
        echo "---- stdout (mpiexec pid $1)"
        sed 's/^/    /' "$workdir/stdout"
    fi
    echo "---- stderr"
    sed 's/^/    /' "$workdir/stderr"
    echo "----"
}
