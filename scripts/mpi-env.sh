# mpi-env.sh - sourced: the Open MPI settings a root shell or a container needs.
# shellcheck shell=bash
# Harmless elsewhere; MPICH and Cray MPICH ignore them.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# containers often forbid the cross-memory-attach single-copy path
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
# more ranks than cores is fine for correctness runs
mpi_oversubscribe=""
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
  mpi_oversubscribe="--oversubscribe"
fi
export mpi_oversubscribe
