/* cg_solver.c - the cg program's device side (cg_solver.h): the rows' layout
 * over the nodes, memory, tables, the launch mode, and one solve enqueued
 * and awaited. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cg_solver.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "sparse_halo.h"
#include "sparse_split.h"

static shardtab_status_t kernel_check(int code, const char *what)
{
    if (code == 0)
        return SHARDTAB_SUCCESS;
    return shardtab_error_set(SHARDTAB_ERR_DEVICE, "%s: %s", what, cg_error_string(code));
}

/* bytes of device memory (at least 8, so that an empty shard is a pointer),
 * remembered for cg_solver_destroy; coherent for the product's operands */
static shardtab_status_t device_alloc(cg_solver_t *s, size_t bytes, int coherent, void **ptr)
{
    shardtab_status_t status;

    if (bytes < 8)
        bytes = 8;
    status = coherent ? shardtab_mem_alloc_coherent(bytes, ptr) : shardtab_mem_alloc(bytes, ptr);
    if (status == SHARDTAB_SUCCESS)
        s->mem[s->nmem++] = *ptr;
    return status;
}

static shardtab_status_t to_device(void *dst, const void *src, size_t bytes)
{
    return bytes ? shardtab_memcpy_to_device(dst, src, bytes) : SHARDTAB_SUCCESS;
}

/* device memory holding a copy of `bytes` of host memory */
static shardtab_status_t device_copy(cg_solver_t *s, const void *src, size_t bytes, void **ptr)
{
    shardtab_status_t status = device_alloc(s, bytes, 0, ptr);
    return status == SHARDTAB_SUCCESS ? to_device(*ptr, src, bytes) : status;
}

static int cmp_place(const void *a, const void *b)
{
    const int *x = a, *y = b; /* node, node rank, comm rank */
    for (int k = 0; k < 3; k++)
        if (x[k] != y[k])
            return (x[k] > y[k]) - (x[k] < y[k]);
    return 0;
}

/* The parts in node order: each rank's node and node rank (from the dots
 * table, split as every table of the job), gathered and sorted, so that a
 * node's ranks hold consecutive rows and node rank q holds its node's q-th
 * part. Collective. */
static shardtab_status_t layout(cg_solver_t *s, MPI_Comm comm, int *node_part0, int *node_size)
{
    const int mine[3] = {shardtab_node_id(s->dots_table), shardtab_node_rank(s->dots_table),
                         s->rank};
    int *places = malloc((size_t)s->size * sizeof mine);
    shardtab_status_t status = SHARDTAB_SUCCESS;

    s->rank_at = malloc((size_t)s->size * sizeof *s->rank_at);
    if (places == NULL || s->rank_at == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory for the layout",
                                    s->rank);
    status = app_agree(comm, status, "the agreement before the layout", 0);
    if (status != SHARDTAB_SUCCESS) {
        free(places);
        return status;
    }
    app_allgather(mine, 3, MPI_INT, places, 3, MPI_INT, comm, "the exchange of the ranks' places");
    qsort(places, (size_t)s->size, sizeof mine, cmp_place);
    *node_size = 0;
    for (int p = 0; p < s->size; p++) {
        s->rank_at[p] = places[3 * p + 2];
        if (places[3 * p + 2] == s->rank)
            s->part = p;
        if (places[3 * p] == mine[0] && (*node_size)++ == 0)
            *node_part0 = p;
    }
    free(places);
    s->nodes = shardtab_node_count(s->dots_table);
    return SHARDTAB_SUCCESS;
}

void cg_solver_rows_of(const cg_solver_t *s, int r, int64_t *first, int64_t *rows)
{
    for (int p = 0; p < s->size; p++)
        if (s->rank_at[p] == r) {
            *first = s->first_row[p];
            *rows = s->first_row[p + 1] - s->first_row[p];
            return;
        }
    *first = *rows = 0;
}

/* This rank's rows of the matrix in device memory: on one node every column
 * as it is; across nodes those of other nodes rewritten as ghosts
 * (sparse_halo.h), whose plan comes back in *plan. */
static shardtab_status_t upload_rows(cg_solver_t *s, const sparse_csr_t *a, int node_part0,
                                     int node_size, sparse_halo_t *plan)
{
    cg_args_t *g = &s->args;
    const int64_t e0 = a->row_ptr[s->first];
    int64_t *row_ptr = malloc((size_t)(s->rows + 1) * sizeof *row_ptr);
    sparse_col_t *col = s->nodes > 1 ? malloc((size_t)(s->nnz ? s->nnz : 1) * sizeof *col) : NULL;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    char err[256];
    void *ptr = NULL;

    if (row_ptr == NULL || (s->nodes > 1 && col == NULL)) {
        free(row_ptr);
        free(col);
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory for its rows",
                                  s->rank);
    }
    for (int64_t i = 0; i <= s->rows; i++)
        row_ptr[i] = a->row_ptr[s->first + i] - e0;
    if (s->nodes > 1 &&
        sparse_halo_build(a, s->first_row, s->size, s->part, s->first_row[node_part0],
                          s->first_row[node_part0 + node_size], col, plan, err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: %s", s->rank, err);
    if (status == SHARDTAB_SUCCESS &&
        (status = device_copy(s, row_ptr, (size_t)(s->rows + 1) * 8, &ptr)) == SHARDTAB_SUCCESS)
        g->a.row_ptr = ptr;
    if (status == SHARDTAB_SUCCESS &&
        (status = device_copy(s, col ? col : a->col + e0, (size_t)s->nnz * sizeof *col, &ptr)) ==
            SHARDTAB_SUCCESS)
        g->a.col = ptr;
    if (status == SHARDTAB_SUCCESS &&
        (status = device_copy(s, a->val + e0, (size_t)s->nnz * 8, &ptr)) == SHARDTAB_SUCCESS)
        g->a.val = ptr;
    /* the node's parts' rows: node rank q's are first_row[q] .. first_row[q + 1] */
    if (status == SHARDTAB_SUCCESS &&
        (status = device_copy(s, s->first_row + node_part0, (size_t)(node_size + 1) * 8, &ptr)) ==
            SHARDTAB_SUCCESS)
        g->a.first_row = ptr;
    g->a.rows = s->rows;
    g->a.owners = node_size;
    free(row_ptr);
    free(col);
    return status;
}

/* The launch mode that runs (cg_launch_choose: asked, or auto's choice over
 * the modes' table), and the grid it runs */
static shardtab_status_t choose_launch(cg_solver_t *s, const cg_options_t *opts,
                                       int ranks_on_device, int *blocks)
{
    const cg_launch_where_t where = {&s->args, s->rank, s->size, s->nodes, ranks_on_device};
    shardtab_status_t status = SHARDTAB_SUCCESS;
    char why[512] = "";
    int most = 1;
    const int rc = cg_launch_choose(&where, opts->launch, &s->launch, blocks, &most, s->launch_why,
                                    sizeof s->launch_why, why, sizeof why);

    if (rc == CG_LAUNCH_REFUSED)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", why);
    else if (rc != 0)
        status = kernel_check(rc, why);
    /* --blocks: another grid, where the launch can take it */
    if (status != SHARDTAB_SUCCESS || opts->blocks == 0)
        return status;
    if (shardtab_backend() == SHARDTAB_BACKEND_HOST && opts->blocks > 1)
        return shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                  "--blocks %d: the host backend runs a grid of one block",
                                  opts->blocks);
    if (opts->blocks > most)
        return shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                  "rank %d: --blocks %d: the persistent grid holds at most %d "
                                  "blocks here, all resident at once",
                                  s->rank, opts->blocks, most);
    *blocks = opts->blocks;
    return status;
}

shardtab_status_t cg_solver_create(cg_solver_t *s, const cg_options_t *opts, const sparse_csr_t *a,
                                   int ranks_on_device, MPI_Comm comm)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    cg_args_t *g = &s->args;
    sparse_halo_t plan;
    void *ptr = NULL;
    int node_part0 = 0, node_size = 1;

    memset(s, 0, sizeof *s);
    memset(&plan, 0, sizeof plan);
    s->halo.comm = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->size);

    /* ---- where every rank is: the dots' table, the first table of the solve ---- */
    status = device_alloc(s, CG_COLL_VALUES * 8, 1, &ptr);
    g->dots = ptr;
    status = app_agree(comm, status, "the agreement on the dots' memory", 0);
    if (status == SHARDTAB_SUCCESS) {
        shardtab_create_params_t params = {0};
        params.alignment = 8;
        params.label = "cg dots";
        status = shardtab_create_with(comm, g->dots, CG_COLL_VALUES * 8, &params, &s->dots_table);
    }
    if (status == SHARDTAB_SUCCESS)
        status = layout(s, comm, &node_part0, &node_size);
    if (status != SHARDTAB_SUCCESS)
        return status;

    /* ---- the split over the parts; this rank's rows ---- */
    s->first_row = malloc((size_t)(s->size + 1) * sizeof *s->first_row);
    if (s->first_row == NULL ||
        sparse_split_rows_aligned(a->row_ptr, a->nrows, s->size, opts->repro ? CG_CHUNK : 1,
                                  s->first_row) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY,
                                    "rank %d: no memory for the rows' split", s->rank);
    if (status == SHARDTAB_SUCCESS) {
        s->first = s->first_row[s->part];
        s->rows = s->first_row[s->part + 1] - s->first;
        s->nnz = a->row_ptr[s->first + s->rows] - a->row_ptr[s->first];
        status = upload_rows(s, a, node_part0, node_size, &plan);
    }
    const size_t vec = (size_t)s->rows * sizeof(double);

    /* b: every entry 1, as the anchor's (a right-hand side every solver agrees on) */
    if (status == SHARDTAB_SUCCESS && (s->b_host = malloc(vec ? vec : 8)) == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory for b", s->rank);
    for (int64_t i = 0; i < s->rows && status == SHARDTAB_SUCCESS; i++)
        s->b_host[i] = 1.0;

    /* the vectors: the product's operands coherent (a peer reads them while
     * this device's kernels run), the rest ordinary */
    double **plain[] = {&g->x, &g->r, &g->q, &g->z, &g->s};
    for (size_t v = 0; v < sizeof plain / sizeof plain[0] && status == SHARDTAB_SUCCESS; v++)
        if ((status = device_alloc(s, vec, 0, &ptr)) == SHARDTAB_SUCCESS)
            *plain[v] = ptr;
    if (status == SHARDTAB_SUCCESS && (status = device_alloc(s, vec, 1, &ptr)) == SHARDTAB_SUCCESS)
        g->p = ptr;
    for (int k = 0; k < 2 && opts->variant == CG_PIPELINED && status == SHARDTAB_SUCCESS; k++)
        if ((status = device_alloc(s, vec, 1, &ptr)) == SHARDTAB_SUCCESS)
            g->w[k] = ptr;
    if (status == SHARDTAB_SUCCESS &&
        (status = device_alloc(s, sizeof(cg_ctl_t), 0, &ptr)) == SHARDTAB_SUCCESS)
        g->ctl = ptr;
    g->history_len = opts->niter + 1 < CG_HISTORY_MAX ? opts->niter + 1 : CG_HISTORY_MAX;
    if (status == SHARDTAB_SUCCESS &&
        (status = device_alloc(s, (size_t)g->history_len * 8, 0, &ptr)) == SHARDTAB_SUCCESS)
        g->history = ptr;
    if (status == SHARDTAB_SUCCESS &&
        (status = device_alloc(s, 3 * 2 * CG_EXACT_WORDS * 8, 0, &ptr)) == SHARDTAB_SUCCESS)
        g->limbs = ptr;
    g->niter = opts->niter;
    g->tol = opts->tol;
    g->variant = (int)opts->variant;
    g->repro = opts->repro;
    g->split = s->nodes > 1;

    /* the launch mode, then the grid it runs */
    int blocks = 1;
    if (status == SHARDTAB_SUCCESS)
        status = choose_launch(s, opts, ranks_on_device, &blocks);
    g->blocks = blocks;
    if (status == SHARDTAB_SUCCESS &&
        (status = device_alloc(s, (size_t)blocks * 2 * 2 * 8, 0, &ptr)) == SHARDTAB_SUCCESS)
        g->partials = ptr;
    /* alone in a persistent standard solve, p is made inside the product,
     * into the other buffer of a pair */
    g->fused = opts->variant == CG_STANDARD && s->launch == CG_LAUNCH_PERSISTENT &&
               node_size == 1 && s->nodes == 1;
    g->p_pair[0] = g->p;
    if (status == SHARDTAB_SUCCESS && g->fused &&
        (status = device_alloc(s, vec, 0, &ptr)) == SHARDTAB_SUCCESS)
        g->p_pair[1] = ptr;
    status = app_agree(comm, status, "the agreement on the device's memory", 0);
    if (status != SHARDTAB_SUCCESS) {
        sparse_halo_free(&plan);
        return status;
    }

    /* the tables: every rank's shard of p (and of w_0, w_1), its signal pads
     * the collective's and the barrier's */
    shardtab_create_params_t params = {0};
    params.signal_slots = CG_SIGNAL_SLOTS(node_size);
    params.alignment = 8;
    params.label = "cg p";
    status = shardtab_create_with(comm, g->p, vec, &params, &s->p_table);
    for (int k = 0; k < 2 && opts->variant == CG_PIPELINED && status == SHARDTAB_SUCCESS; k++) {
        shardtab_create_params_t wp = {0};
        wp.alignment = 8;
        wp.label = k == 0 ? "cg w0" : "cg w1";
        status = shardtab_create_with(comm, g->w[k], vec, &wp, &s->w_table[k]);
    }
    if (status == SHARDTAB_SUCCESS && shardtab_node_rank(s->p_table) != s->part - node_part0)
        status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                    "rank %d is node rank %d of the p table but %d of the layout",
                                    s->rank, shardtab_node_rank(s->p_table), s->part - node_part0);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signals(s->p_table, &g->sig);
    if (status == SHARDTAB_SUCCESS) {
        g->p_table = (double *const *)shardtab_device_table(s->p_table);
        for (int k = 0; k < 2 && s->w_table[k]; k++)
            g->w_table[k] = (double *const *)shardtab_device_table(s->w_table[k]);
    }
    status = app_agree(comm, status, "the agreement on the tables", 0);

    /* across nodes: who sends whom which values */
    if (status == SHARDTAB_SUCCESS && s->nodes > 1) {
        status = cg_halo_create(&s->halo, &plan, s->rank_at, s->first_row, s->part, comm);
        g->a.ghost = s->halo.ghost;
    }
    sparse_halo_free(&plan);
    return status;
}

/* x = 0, r = b (pipelined: p = b, the start's operand), z = s = 0, the ctl
 * and the exact sums zeroed. */
static shardtab_status_t reset(cg_solver_t *s, uint64_t trace_iter)
{
    const cg_args_t *g = &s->args;
    const size_t vec = (size_t)s->rows * sizeof(double);
    double *zero = calloc(s->rows ? (size_t)s->rows : 1, sizeof(double));
    cg_ctl_t ctl;
    int64_t limbs[3 * 2 * CG_EXACT_WORDS] = {0};
    shardtab_status_t status = SHARDTAB_SUCCESS;

    if (zero == NULL)
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory for a reset",
                                  s->rank);
    memset(&ctl, 0, sizeof ctl);
    ctl.trace_iter = trace_iter;
    double *zeroed[] = {g->x, g->z, g->s, g->q};
    for (size_t v = 0; v < 4 && status == SHARDTAB_SUCCESS; v++)
        status = to_device(zeroed[v], zero, vec);
    if (status == SHARDTAB_SUCCESS)
        status = to_device(g->r, s->b_host, vec);
    if (status == SHARDTAB_SUCCESS)
        status = to_device(g->p, g->variant == CG_PIPELINED ? s->b_host : zero, vec);
    if (status == SHARDTAB_SUCCESS && g->fused)
        status = to_device(g->p_pair[1], zero, vec);
    for (int k = 0; k < 2 && g->w[k] && status == SHARDTAB_SUCCESS; k++)
        status = to_device(g->w[k], zero, vec);
    if (status == SHARDTAB_SUCCESS)
        status = to_device(g->ctl, &ctl, sizeof ctl);
    if (status == SHARDTAB_SUCCESS)
        status = to_device(g->limbs, limbs, sizeof limbs);
    free(zero);
    return status;
}

/* Across nodes, after a launch (phase -1: the start): the host's sum of the
 * dot products over every rank, and the decision from it (cg.h). *stop: the
 * device has decided to stop. */
static shardtab_status_t split_after(cg_solver_t *s, int phase, int *stop)
{
    const cg_args_t *g = &s->args;
    const int dots = cg_reduce_after(g->variant, phase);
    const int decision = cg_decide_after(g->variant, phase);
    shardtab_status_t status = SHARDTAB_SUCCESS;
    shardtab_type_t type;
    const size_t words = (size_t)cg_split_words(g->repro, dots, &type);
    cg_state_t st;

    if (dots)
        status = shardtab_all_reduce(s->dots_table, SHARDTAB_SUM, type, 0, words, s->stream);
    if (status == SHARDTAB_SUCCESS && decision)
        status = kernel_check(cg_decide(g, decision, s->stream), "launching a decision");
    if (status == SHARDTAB_SUCCESS && decision)
        status = shardtab_stream_synchronize(s->stream);
    if (status == SHARDTAB_SUCCESS && decision)
        status = shardtab_memcpy_to_host(&st, &g->ctl->st, sizeof st);
    if (status == SHARDTAB_SUCCESS && decision)
        *stop = st.stop != 0;
    return status;
}

/* Before a product: across nodes, the operand's values other nodes read (x:
 * this rank's shard of it); then the node's barrier, where there are peers. */
static shardtab_status_t before_product(cg_solver_t *s, const double *x)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;

    if (s->nodes > 1)
        status = cg_halo_exchange(&s->halo, x, s->stream);
    if (status == SHARDTAB_SUCCESS && shardtab_node_size(s->p_table) > 1)
        status = shardtab_barrier_on_stream(s->p_table, s->stream);
    return status;
}

/* The program's steps between a run's launches (cg_launch_host_t), over
 * this solver. */
static int host_check(void *ctx, int code, const char *what)
{
    (void)ctx;
    return (int)kernel_check(code, what);
}

static int host_before_product(void *ctx, const double *x)
{
    return (int)before_product(ctx, x);
}

static int host_after_phase(void *ctx, int phase, int *stop)
{
    return (int)split_after(ctx, phase, stop);
}

/* a chunk of stream iterations enqueued: awaited, and the device's stop */
static int host_look(void *ctx, int *stop)
{
    cg_solver_t *s = ctx;
    cg_ctl_t ctl;
    shardtab_status_t status = shardtab_stream_synchronize(s->stream);

    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_host(&ctl, s->args.ctl, sizeof ctl);
    if (status == SHARDTAB_SUCCESS)
        *stop = ctl.st.stop != 0;
    return (int)status;
}

/* the test's stopped rank, mid-solve (stream launches): its peers must end the job */
static void host_enqueue(void *ctx, int64_t iteration)
{
    cg_solver_t *s = ctx;

    if (s->stall_for_test && iteration == s->stall_iteration) {
        s->stall_for_test = 0;
        raise(SIGSTOP);
    }
}

shardtab_status_t cg_solver_run(cg_solver_t *s, const cg_options_t *opts, uint64_t trace_iter,
                                cg_outcome_t *out)
{
    const cg_args_t *g = &s->args;
    shardtab_status_t status = reset(s, trace_iter);
    cg_ctl_t ctl;
    double t0 = 0.0, mine = 0.0;
    int stop = 0;

    status = app_agree(MPI_COMM_WORLD, status, "the agreement before a solve", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;
    app_barrier(MPI_COMM_WORLD, "the barrier before a solve", 0);
    t0 = MPI_Wtime();
    if (s->stall_for_test && s->stall_iteration < 0) {
        s->stall_for_test = 0;
        raise(SIGSTOP); /* the test's stopped rank: its peers must end the job */
    }
    /* pipelined: every rank's r_0 (in p) is in place before any start reads it */
    if (g->variant == CG_PIPELINED)
        status = before_product(s, g->p);
    if (status == SHARDTAB_SUCCESS)
        status = kernel_check(cg_start(g, s->stream), "launching the solve's start");
    if (status == SHARDTAB_SUCCESS && g->split)
        status = split_after(s, -1, &stop);
    if (status == SHARDTAB_SUCCESS) {
        const cg_launch_host_t host = {
            s, host_check, host_before_product, host_after_phase, host_look, host_enqueue};
        status = (shardtab_status_t)cg_launch_mode(s->launch)->run(g, s->stream, &host);
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(s->stream);
    mine = MPI_Wtime() - t0;
    /* a device wait that gave up: the library names it */
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(s->p_table);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after a solve", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;
    app_allreduce(&mine, &out->seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD,
                  "the reduction of the solve's time");
    status = shardtab_memcpy_to_host(&ctl, g->ctl, sizeof ctl);
    out->iterations = (int64_t)ctl.st.iteration;
    out->failed = ctl.wait_failed ? CG_FAIL_WAIT : (int)ctl.st.failed;
    out->denominator = ctl.st.denominator;
    memcpy(out->trace, ctl.trace, sizeof out->trace);
    out->history_len = out->iterations + 1 < g->history_len ? out->iterations + 1 : g->history_len;
    free(out->history);
    out->history = malloc((size_t)out->history_len * sizeof(double));
    if (status == SHARDTAB_SUCCESS && out->history == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory for the history",
                                    s->rank);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_host(out->history, g->history,
                                         (size_t)out->history_len * sizeof(double));
    if (status == SHARDTAB_SUCCESS) {
        out->relative = out->history[out->history_len - 1];
        out->converged = (!out->failed || out->failed == CG_FAIL_ROUNDING) &&
                         !(out->relative > fmax(opts->tol, out->failed ? CG_ROUNDING_RESIDUAL : 0));
    }
    return app_agree(MPI_COMM_WORLD, status, "the agreement on the solve's outcome", 0);
}

shardtab_status_t cg_solver_solution(const cg_solver_t *s, double *x)
{
    return s->rows ? shardtab_memcpy_to_host(x, s->args.x, (size_t)s->rows * sizeof(double))
                   : SHARDTAB_SUCCESS;
}

shardtab_status_t cg_solver_destroy(cg_solver_t *s)
{
    shardtab_status_t status = SHARDTAB_SUCCESS, st;
    shardtab_t **tables[] = {&s->w_table[1], &s->w_table[0], &s->p_table, &s->dots_table};

    cg_halo_destroy(&s->halo);
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
        if (*tables[k] && (st = shardtab_destroy(tables[k])) != SHARDTAB_SUCCESS &&
            status == SHARDTAB_SUCCESS)
            status = st;
    for (int m = s->nmem - 1; m >= 0; m--)
        (void)shardtab_mem_free(s->mem[m]);
    s->nmem = 0;
    free(s->first_row);
    free(s->rank_at);
    free(s->b_host);
    s->first_row = NULL;
    s->rank_at = NULL;
    s->b_host = NULL;
    return status;
}
