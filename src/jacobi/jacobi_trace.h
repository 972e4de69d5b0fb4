/* jacobi_trace.h - where the time of an iteration goes (--trace FILE): one more
 * solve of the run after the timed ones, its kernels recording device
 * timestamps for every iteration (kernels/jacobi/jacobi_sweep.h, JACOBI_TRACE_*),
 * every rank's phases gathered to rank 0, written as CSV, and their medians
 * printed per rank. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_TRACE_H
#define JACOBI_TRACE_H

#include "app.h"
#include "jacobi_job.h"

/* Collective. out is scratch for the traced solve's outcome; csv is rank 0's
 * file, opened at start-up (app_outfile_open), written here and committed by
 * the program after its verdict, as the JSON is. */
shardtab_status_t jacobi_trace_run(jacobi_job_t *j, jacobi_outcome_t *out, app_outfile_t *csv);

#endif /* JACOBI_TRACE_H */
