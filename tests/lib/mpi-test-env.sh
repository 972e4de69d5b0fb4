# mpi-test-env.sh - sourced by the test drivers: one MPI environment for every
# test run (root, containers, oversubscribed cores), and no test variable
# leaking in from the caller's shell.
# shellcheck shell=bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
# Oversubscribed ranks must yield, not spin, or 4 ranks on 2 cores crawl.
export OMPI_MCA_mpi_yield_when_idle="${OMPI_MCA_mpi_yield_when_idle:-1}"
# Variables a case sets on purpose must not leak in from the caller's shell.
unset SHARDTAB_FAULT SHARDTAB_RANKS_PER_NODE SHARDTAB_WAIT_TIMEOUT MULTI_SCAL_TEST_CORRUPT \
      JACOBI_TEST_CORRUPT JACOBI_TEST_SKIP_SIGNAL

# mpiexec_is_openmpi MPIEXEC: true when that launcher is Open MPI's (--oversubscribe, -x)
mpiexec_is_openmpi() {
    "$1" --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'
}
