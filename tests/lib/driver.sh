# driver.sh - the shell library of the test drivers (run_case.sh, bad_inputs.sh, sigkill.sh, the install, job and Slurm drivers): the MPI environment, counted failures, launcher flags, refusals and the /dev/shm leak check, written once.
# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

# the MPI environment every run of the tests shares (root, containers, oversubscription)
# shellcheck source=tests/lib/mpi-test-env.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/mpi-test-env.sh"

# ---- failures -----------------------------------------------------------------------------
# fail MESSAGE: one failed check, printed and counted; the driver goes on and
# ends with exit_verdict. A driver whose first failure ends the case defines
# its own fail after sourcing this file; the helpers below call whichever it is.
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# exit_verdict: exit 1 after counting the failed checks, else print PASS and exit 0.
exit_verdict() {
    if ((failures > 0)); then
        echo "$failures check(s) failed"
        exit 1
    fi
    echo "PASS"
    exit 0
}

# expect_command_refusal WHAT PATTERN COMMAND...: COMMAND must fail and say
# PATTERN (an extended regex) on stdout or stderr. Its output stays in
# ./refusal.out for the checks that follow.
expect_command_refusal() {
    local what=$1 pattern=$2 status=0
    shift 2
    "$@" >refusal.out 2>&1 || status=$?
    if ((status == 0)); then
        fail "$what: accepted, expected a refusal"
    elif ! grep -Eq -- "$pattern" refusal.out; then
        fail "$what: status $status without saying '$pattern': $(tail -n 5 refusal.out)"
    else
        echo "refused as expected: $what: status $status: $(grep -E -- "$pattern" refusal.out | head -n 1)"
    fi
}

# ---- the launcher -----------------------------------------------------------------------------
# mpi_launch_flags MPIEXEC [VAR...]: sets the array launch_flags to what a run
# of the tests adds to MPIEXEC: with Open MPI, --oversubscribe (more ranks than
# cores) and '-x VAR' for each VAR given, so that every rank sees it.
mpi_launch_flags() {
    local var
    launch_flags=()
    if mpiexec_is_openmpi "$1"; then
        launch_flags+=(--oversubscribe)
        shift
        for var in "$@"; do launch_flags+=(-x "$var"); done
    fi
}

# ---- what a run may leave behind ----------------------------------------------------------
# shm_list: the POSIX shared-memory names of ours (/dev/shm/shardtab-*), one a line.
shm_list() {
    local f
    for f in /dev/shm/shardtab-*; do
        if [[ -e $f ]]; then printf '%s\n' "$f"; fi
    done
}

# shm_snapshot FILE: the names there now, sorted, for shm_leaked.
shm_snapshot() {
    shm_list | sort >"$1"
}

# shm_leaked FILE: prints, on one line, the names that are not in the snapshot
# FILE and are still there after 3 s: segments of concurrent runs exist for a
# moment only, so a name still there then has outlived its run. Prints nothing
# when none did.
shm_leaked() {
    local leaked="" _
    for _ in 1 2 3 4 5 6; do
        leaked=$(shm_list | sort | comm -13 "$1" -)
        if [[ -z $leaked ]]; then return 0; fi
        sleep 0.5
    done
    echo "$leaked" | tr '\n' ' '
}
