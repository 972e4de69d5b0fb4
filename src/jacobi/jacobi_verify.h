/* jacobi_verify.h - is the distributed result right? Every point against the
 * 1-GPU reference to the bit, the iteration counts and the norms; on small
 * grids the reference itself against a plain CPU loop. */
#ifndef JACOBI_VERIFY_H
#define JACOBI_VERIFY_H

#include <stdint.h>

#include "jacobi_job.h"

typedef struct jacobi_verdict {
    int cpu_checked;      /* the CPU loop ran (rank 0, small grids) */
    int cpu_ok;           /* ... and equalled the reference; 1 when not run */
    uint64_t mismatches;  /* points of the job that differ from the reference */
    uint64_t first_bad;   /* the first of them, row * nx + column; UINT64_MAX */
    float first_pair[2];  /* its value, and the reference's */
    double norm_diff;     /* relative difference of the last norms */
    int verified;         /* everything agreed */
} jacobi_verdict_t;

void jacobi_verdict_init(jacobi_verdict_t *v);

/* The whole solve once more by a plain loop on rank 0's CPU, against the
 * reference's final rows and iteration count (small grids only). Rank 0 prints
 * its line; the result is broadcast. Collective. */
shardtab_status_t jacobi_cpu_check(const jacobi_job_t *j, const jacobi_outcome_t *ref,
                                   jacobi_verdict_t *v);

/* Every point of my rows against the reference's, to the bit; counts and the
 * first bad point travel to every rank. Collective. */
shardtab_status_t jacobi_verify(jacobi_job_t *j, const jacobi_outcome_t *ref,
                                const jacobi_outcome_t *run, jacobi_verdict_t *v);

#endif /* JACOBI_VERIFY_H */
