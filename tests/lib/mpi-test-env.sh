# mpi-test-env.sh - sourced by the test drivers: one MPI environment for every
# test run (root, containers, oversubscribed cores), and no test variable
# leaking in from the caller's shell.
# shellcheck shell=bash
# The settings a user's run gets too (root, containers: scripts/mpi-env.sh), then the tests' own.
# shellcheck source=scripts/mpi-env.sh disable=SC1091
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/mpi-env.sh"
# Oversubscribed ranks must yield, not spin, or 4 ranks on 2 cores crawl.
export OMPI_MCA_mpi_yield_when_idle="${OMPI_MCA_mpi_yield_when_idle:-1}"
# Variables a case sets on purpose must not leak in from the caller's shell.
unset SHARDTAB_FAULT SHARDTAB_RANKS_PER_NODE SHARDTAB_WAIT_TIMEOUT MULTI_SCAL_TEST_CORRUPT \
      JACOBI_TEST_CORRUPT JACOBI_TEST_SKIP_SIGNAL

# mpi_single_rank_quick_exit NP: with one rank, let Open MPI's mpiexec end the
# job at once when that rank exits non-zero. By default its daemon, seeing a
# child end with a non-zero status, still sends the job SIGCONT, sleeps 1 s,
# SIGTERM, sleeps 1 s, then SIGKILL (odls_base_sigkill_timeout): 2 s idle per
# run (multi_scal --bogus: 2.35 s at -n 1 here, 0.34 s with the timeout 0), about a third of the host suite's wall time. With one rank
# there is no survivor those signals could reach: the rank that ended is the
# job, and its status is already what mpiexec reports. With more ranks the
# grace is kept: a late survivor must get the SIGTERM and its second, as a
# user's does.
mpi_single_rank_quick_exit() {
    if [[ $1 == 1 ]]; then
        export OMPI_MCA_odls_base_sigkill_timeout="${OMPI_MCA_odls_base_sigkill_timeout:-0}"
    fi
}

# mpiexec_is_openmpi MPIEXEC: true when that launcher is Open MPI's (--oversubscribe, -x)
mpiexec_is_openmpi() {
    "$1" --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'
}
