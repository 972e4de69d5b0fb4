/* jacobi_setup.h - the jacobi program's start and end on every rank: the
 * command line and tuning variables agreed, the test hooks, the rows, the
 * node's host memory and the result files checked before the device; then
 * the stream, buffers, solvers and table; and their teardown. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_SETUP_H
#define JACOBI_SETUP_H

#include <mpi.h>

#include "app.h"
#include "jacobi_job.h"
#include "shardtab.h"

/* Every rank parses its command line and tuning variables; one verdict for
 * the job (job.h). -1 to go on, else the exit status. Collective. */
int jacobi_setup_options(jacobi_job_t *j, int argc, char **argv);

/* Before the device: the test hooks, this rank's rows, *node (this node's
 * ranks; the caller frees it, whatever the status), the node's host memory,
 * rank 0's result files opened. Agreed. Collective. */
shardtab_status_t jacobi_setup_inputs(jacobi_job_t *j, MPI_Comm *node, app_outfile_t *json,
                                      app_outfile_t *trace);

/* Ranks of this node bound to this rank's device (1 unless
 * --allow-shared-gpu put several there). Collective over node. */
int jacobi_setup_ranks_on_device(MPI_Comm node);

/* Stream, host buffers, the solvers (the reference on rank 0 only), the
 * table and its wiring, the test's planted bug. Collective. */
shardtab_status_t jacobi_setup_device(jacobi_job_t *j);

/* Collective teardown in reverse order of set-up; the first failure wins. */
shardtab_status_t jacobi_setup_release(jacobi_job_t *j);

#endif /* JACOBI_SETUP_H */
