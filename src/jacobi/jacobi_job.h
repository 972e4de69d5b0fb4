/* jacobi_job.h - what every room of the jacobi program shares: the job (its
 * options, this rank's rows and neighbours, the table, the solvers and the host
 * buffers), one per process, made by main (jacobi.c), and the program's small
 * helpers for errors. */
#ifndef JACOBI_JOB_H
#define JACOBI_JOB_H

#include <mpi.h>
#include <stdint.h>

#include "jacobi_options.h"
#include "jacobi_solver.h"
#include "shardtab.h"

#define JACOBI_TOL 1.0e-8           /* the anchors' tolerance */
#define JACOBI_NORM_REL_TOL 1.0e-9  /* norms summed in another order must agree this well */

/* What one solve measured. */
typedef struct jacobi_outcome {
    double seconds;       /* this rank */
    uint64_t iterations;
    double norm;          /* the last norm decided on */
    uint64_t norm_iter;   /* its iteration, counted from the solve's start */
    double *history;      /* host copy [history_len], rank 0 prints it */
} jacobi_outcome_t;

typedef struct jacobi_job {
    jacobi_options_t opts;
    int rank, size;
    jacobi_rows_t rows;
    int top, bottom;          /* comm ranks of the neighbours */
    int host_top, host_bottom; /* that edge goes through MPI, not the table */
    int host_norm;            /* the norm goes through MPI, the host decides */
    int host_sync;            /* host-sync variant: a barrier after every step */
    int mpi_direct;           /* MPI reads device buffers (GPU-aware, or host backend) */
    int skip_signal;          /* test hook */
    int nodes;                /* node count of the table, kept past its destroy */
    void *stream;
    shardtab_t *table;
    jacobi_solver_t run, ref;
    jacobi_real_t *send_first, *send_last, *recv_top, *recv_bottom; /* host staging */
    jacobi_real_t *result, *expected; /* host: my rows, final, and the reference's */
    double *norms;            /* host [2 * size]: every rank's (norm, failed) */
} jacobi_job_t;

shardtab_status_t jacobi_no_memory(const char *what, size_t bytes);
shardtab_status_t jacobi_kernel_check(int code, const char *what);
shardtab_status_t jacobi_mpi_check(int rc, const char *what);

#endif /* JACOBI_JOB_H */
