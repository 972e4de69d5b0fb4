/* jacobi_solve.h - how the solves run: the choice of launch mode (and why),
 * one timed solve (device-driven: everything enqueued, the device decides when
 * to stop; or host-driven: a launch and the host's part per step), and the
 * warm-up and timed repeats around it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_SOLVE_H
#define JACOBI_SOLVE_H

#include "jacobi_job.h"

/* Chooses the launch mode of the run (every rank the same) and of rank 0's
 * reference as the plans' choice says (jacobi_plan.h), and prepares both plans.
 * An explicit --launch of a mode the device drives (persistent, onchip,
 * temporal) that cannot run is a usage error (SHARDTAB_ERR_INVALID_ARG);
 * auto falls back as the table says and tells why in j->launch_note.
 * Collective. */
shardtab_status_t jacobi_choose_launch(jacobi_job_t *j);

/* Runs one solve of at most `iterations` steps of solver s with `plan` (its
 * own, or a traced one). distributed: the job's solve (barriers around the
 * clock, the host's part of each step where there is one); else this rank's
 * reference, alone. Collective when distributed. */
shardtab_status_t jacobi_solve(jacobi_job_t *j, jacobi_solver_t *s, jacobi_plan_t *plan,
                               int distributed, int iterations, jacobi_outcome_t *out);

/* A warm-up solve (graphs replayed once, so uploaded; every path run), then
 * opts.repeat timed ones; times[i] is this rank's (reference) or the slowest
 * rank's (distributed). Collective when distributed. */
shardtab_status_t jacobi_timed_solves(jacobi_job_t *j, jacobi_solver_t *s, int distributed,
                                      jacobi_outcome_t *out, double *times);

/* The median of n timings (sorts v). */
double jacobi_median(double *v, int n);

#endif /* JACOBI_SOLVE_H */
