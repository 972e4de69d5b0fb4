/* cg_solver.h - the cg program's device side: this rank's rows and vectors
 * in device memory, the tables of the product's operands, and one solve
 * from x = 0 run by the launch mode (kernels/cg/cg_launch.h), timed. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_SOLVER_H
#define CG_SOLVER_H

#include <mpi.h>
#include <stdint.h>

#include "cg.h"
#include "cg_halo.h"
#include "cg_launch.h"
#include "cg_options.h"
#include "shardtab.h"
#include "sparse_csr.h"

#define CG_HISTORY_MAX (1 << 20) /* residuals the device records: the first this many */

typedef struct cg_solver {
    int rank, size;
    int part;               /* this rank's part of the split: parts in node order */
    int nodes;              /* the job's nodes */
    int64_t first, rows;    /* this rank's global rows [first, first + rows) */
    int64_t nnz;            /* this rank's nonzeros */
    int64_t *first_row;     /* host: [size + 1], the split, part by part */
    int *rank_at;           /* host: [size], the comm rank of each part */
    cg_launch_t launch;     /* persistent or stream: auto resolved */
    char launch_why[256];   /* why auto chose it, or why persistent was refused */
    cg_args_t args;         /* what the kernels take (device pointers) */
    shardtab_t *dots_table; /* every rank's dots: the layout, and the all-reduce across nodes */
    shardtab_t *p_table, *w_table[2];
    cg_halo_t halo;       /* across nodes: the columns that come by MPI */
    void *stream;         /* the solve's stream (NULL: the default) */
    int stall_for_test;   /* CG_TEST_STALL named this rank: it stops as its first solve */
    long stall_iteration; /* starts (-1), or as it enqueues this iteration (stream launches) */
    double *b_host;       /* this rank's rows of b */
    /* device allocations, to free */
    void *mem[24];
    int nmem;
} cg_solver_t;

/* One solve's outcome, the same on every rank. */
typedef struct cg_outcome {
    int64_t iterations;
    int converged;
    int failed;         /* CG_FAIL_* */
    double relative;    /* the last ||r|| / ||b|| decided */
    double denominator; /* the last (p, A p) or pipelined denominator */
    double seconds;     /* the slowest rank's, from the start to the stop */
    double *history;    /* [history_len] rank 0's copy of the device's */
    int64_t history_len;
    uint64_t trace[CG_TRACE_POINTS];
} cg_outcome_t;

/* Device memory, the tables, the launch mode, b. `a` is the whole matrix
 * (every rank holds it). The rows are split over the ranks in node order
 * (a node's ranks hold consecutive rows, by node rank), by nonzeros, on
 * chunk boundaries with repro (CG_CHUNK). Across nodes the columns another
 * node owns come by MPI (cg_halo.h), the dot products by the library's
 * all-reduce across nodes, and the launches are stream launches. Collective;
 * a failure is recorded for the agreement (shardtab_error_set).
 * ranks_on_device: ranks sharing this rank's device. */
shardtab_status_t cg_solver_create(cg_solver_t *s, const cg_options_t *opts, const sparse_csr_t *a,
                                   int ranks_on_device, MPI_Comm comm);
/* One solve from x = 0; trace_iter: the iteration whose phases the device
 * times (UINT64_MAX: none). Collective. */
shardtab_status_t cg_solver_run(cg_solver_t *s, const cg_options_t *opts, uint64_t trace_iter,
                                cg_outcome_t *out);
/* The rows of comm rank r: [*first, *first + *rows). */
void cg_solver_rows_of(const cg_solver_t *s, int r, int64_t *first, int64_t *rows);
/* This rank's rows of x, into host memory. */
shardtab_status_t cg_solver_solution(const cg_solver_t *s, double *x);
/* Destroys the tables and frees everything; collective. */
shardtab_status_t cg_solver_destroy(cg_solver_t *s);

#endif /* CG_SOLVER_H */
