/* jacobi_verify.h - is the result right, and would the checks have seen it if
 * not? Every result is compared with an independent plain reference (the
 * whole grid by the plain kernels of kernels/jacobi/jacobi_plain.h): the distributed
 * run's every point to the bit, its iteration count and its norms; the
 * optimised kernel's 1-GPU reference likewise; and the plain reference itself
 * against a plain CPU loop where the work is small enough. One verdict for the
 * job, agreed by every rank before anything is printed. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_VERIFY_H
#define JACOBI_VERIFY_H

#include <stdint.h>

#include "jacobi_job.h"

/* One result against the plain reference. */
typedef struct jacobi_check {
    int ran;                                 /* 0: not run (note says why) */
    uint64_t points;                         /* compared */
    uint64_t mismatches;                     /* points that differ, to the bit */
    uint64_t first_bad;                      /* the first of them: row * nx + column; UINT64_MAX */
    float got, want;                         /* its value, and the plain reference's */
    uint64_t iterations_min, iterations_max; /* over the ranks (the same when right) */
    uint64_t iterations_want;
    int norms;        /* norms compared: the history's and the last decided */
    double norm_diff; /* their largest relative difference */
    int norm_missing; /* a norm decided on one side only, or at another iteration */
    int threads;      /* the CPU loop's */
    int ok;
    char note[96];
} jacobi_check_t;

typedef struct jacobi_verdict {
    jacobi_check_t cpu;       /* the plain reference against a CPU loop (rank 0) */
    jacobi_check_t reference; /* the 1-GPU reference against the plain reference (rank 0) */
    jacobi_check_t run;       /* the distributed run against the plain reference (every rank) */
    int verified;             /* all three agree (a check not run does not fail) */
} jacobi_verdict_t;

void jacobi_verdict_init(jacobi_verdict_t *v);

/* Rank 0, while the others wait: saves the 1-GPU reference's rows, runs the
 * plain reference in its buffers, checks the reference against it and the
 * plain reference against a CPU loop (opts.cpu_check). Every rank gets both
 * checks and the plain outcome (*plain). Collective. */
shardtab_status_t jacobi_verify_references(jacobi_job_t *j, const jacobi_outcome_t *ref,
                                           jacobi_outcome_t *plain, jacobi_verdict_t *v);

/* Every rank's rows of the run against the plain reference's (sent from rank
 * 0), its iterations and norms; then the verdict of the job. Collective. */
shardtab_status_t jacobi_verify_run(jacobi_job_t *j, const jacobi_outcome_t *run,
                                    const jacobi_outcome_t *plain, jacobi_verdict_t *v);

/* What a failed check found, in one line ("3 of 1140 points differ, ..."). */
void jacobi_check_describe(const jacobi_check_t *c, int nx, char *text, size_t bytes);

/* Host bytes and device bytes a rank needs for the verification (rank 0 holds
 * the references' rows, and the CPU loop's grids when it runs). */
void jacobi_verify_memory(const jacobi_options_t *opts, int rank, uint64_t *host, uint64_t *device);

#endif /* JACOBI_VERIFY_H */
