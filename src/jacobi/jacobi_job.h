/* jacobi_job.h - what every room of the jacobi program shares: the job (its
 * options, this rank's rows and neighbours, how its steps are launched, the
 * table, the solvers and the host buffers), one per process, made by main
 * (jacobi.c), and the program's small helpers for errors. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_JOB_H
#define JACOBI_JOB_H

#include <mpi.h>
#include <stdint.h>

#include "jacobi_options.h"
#include "jacobi_solver.h"
#include "jacobi_status.h"
#include "shardtab.h"

#define JACOBI_NORM_REL_TOL 1.0e-9 /* norms summed in another order must agree this well */

/* What one solve measured. */
typedef struct jacobi_outcome {
    double seconds; /* this rank */
    uint64_t iterations;
    int norm_decided;   /* a norm was decided on (not with -niter 1) */
    double norm;        /* the last norm decided on */
    uint64_t norm_iter; /* its iteration, counted from the solve's start */
    double *history;    /* host copy [history_len]: iterations 0, 100, ... */
    int history_len;
} jacobi_outcome_t;

typedef struct jacobi_job {
    jacobi_options_t opts;
    int rank, size;
    int node_size;             /* ranks on this node (MPI_COMM_TYPE_SHARED) */
    int ranks_on_device;       /* ranks of this node on this rank's device */
    jacobi_test_fault_t fault; /* a test's planted bug (JACOBI_TEST_FAULT), or none */
    jacobi_rows_t rows;
    int top, bottom;           /* comm ranks of the neighbours */
    int host_top, host_bottom; /* that edge goes through MPI, not the table */
    int host_norm;             /* the norm goes through MPI, the host decides */
    int host_sync;             /* host-sync variant: a barrier after every step */
    int host_loop;             /* any of the above: the host drives the run, a launch a step */
    int mpi_direct;            /* MPI reads device buffers (GPU-aware, or host backend) */
    int skip_signal;           /* test hook: never signal the neighbours */
    int slow_passes;           /* test hook: each temporal pass starts late (host backend) */
    int stall_for_test;        /* test hook: stop this process (SIGSTOP) in the first solve */
    const char
        *corrupt_for_test; /* test hook: the result point to nudge (JACOBI_TEST_CORRUPT), or NULL */
    double agree_limit_s;  /* how long a rank waits for the others after a solve */
    uint64_t memory_rank, memory_node,
        memory_available;       /* host bytes: the estimate, and what is free */
    int nodes;                  /* node count of the table, kept past its destroy */
    jacobi_launch_t launch;     /* how the run's steps were launched */
    jacobi_launch_t ref_launch; /* ... and the reference's */
    char launch_note[256];      /* why the run's launch is not the one asked for, or "" */
    void *stream;
    shardtab_t *table;
    jacobi_solver_t run; /* this rank's rows */
    jacobi_solver_t ref; /* rank 0: the whole grid, alone (the 1-GPU reference) */
    double *plain_norm2; /* rank 0, device [ny]: the plain reference's row norms */
    shardtab_faces_t *faces[JACOBI_FACES_PARTS]; /* the ghost rows' parts as direct faces
                                                    (NULL: the deep rows, where no temporal
                                                    pass may run) */
    jacobi_real_t *result;                       /* host: my rows of the run, final */
    jacobi_real_t *expected;                     /* host: my rows of the plain reference, final */
    jacobi_real_t *ref_rows;   /* rank 0, host: the 1-GPU reference's interior, final */
    jacobi_real_t *plain_rows; /* rank 0, host: the plain reference's interior, final */
    double *norms;             /* host [2 * size]: every rank's (norm, failed) */
} jacobi_job_t;

/* The ring of the distributed solve: edges through the table where the
 * neighbour is on this node (and the variant wants it), else through MPI. */
shardtab_status_t jacobi_wire_edges(jacobi_job_t *j);
/* A generous bound on the seconds rank 0 takes alone for `solves` solves of
 * the whole grid (-niter iterations each) on the slowest device it may have:
 * the others wait that long for it, on top of a step's limit
 * (app_bound_limit), before they call it stopped. */
double jacobi_alone_work_s(const jacobi_options_t *opts, double solves);

#endif /* JACOBI_JOB_H */
