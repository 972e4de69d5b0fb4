/* jacobi_solve.h - one timed solve: the device-driven loop (everything
 * enqueued, the device decides when to stop) or the host-driven one (a launch
 * and the host's part per step). */
#ifndef JACOBI_SOLVE_H
#define JACOBI_SOLVE_H

#include "jacobi_job.h"

/* Runs one solve of at most `iterations` steps of solver s. distributed: the
 * job's solve (barriers around the clock, the host's part of each step where
 * there is one); else this rank's reference, alone. Collective when distributed. */
shardtab_status_t jacobi_solve(jacobi_job_t *j, jacobi_solver_t *s, int distributed,
                               int iterations, jacobi_outcome_t *out);

/* The median of n timings (sorts v). */
double jacobi_median(double *v, int n);

#endif /* JACOBI_SOLVE_H */
