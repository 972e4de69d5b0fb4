#!/usr/bin/env bash
# rank_exit.sh DIR PROGRAM [ARGS...] - runs PROGRAM as one MPI rank, writes its
# exit status to DIR/rank-<rank>, and exits 0 itself, so that mpiexec neither
# aborts the other ranks nor hides which ranks failed (run_case.sh --each-rank).
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
dir=$1
shift
"$@"
rc=$?
rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-unknown-$$}}}
echo "$rc" >"$dir/rank-$rank"
exit 0
