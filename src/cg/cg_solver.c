/* cg_solver.c - the cg program's device side (cg_solver.h): memory, tables,
 * the launch mode, and one solve enqueued and awaited. */
#include "cg_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
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

shardtab_status_t cg_solver_create(cg_solver_t *s, const cg_options_t *opts, const sparse_csr_t *a,
                                   int ranks_on_device, MPI_Comm comm)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    cg_args_t *g = &s->args;
    void *ptr = NULL;

    memset(s, 0, sizeof *s);
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->size);
    s->first_row = malloc((size_t)(s->size + 1) * sizeof *s->first_row);
    if (s->first_row == NULL || sparse_split_rows(a->row_ptr, a->nrows, s->size, s->first_row))
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory for the rows' split",
                                  s->rank);
    s->first = s->first_row[s->rank];
    s->rows = s->first_row[s->rank + 1] - s->first;
    const int64_t e0 = a->row_ptr[s->first];
    s->nnz = a->row_ptr[s->first + s->rows] - e0;
    const size_t vec = (size_t)s->rows * sizeof(double);

    /* b: every entry 1, as the anchor's (a right-hand side every solver agrees on) */
    s->b_host = malloc(vec ? vec : 8);
    int64_t *row_ptr = malloc((size_t)(s->rows + 1) * sizeof *row_ptr);
    if (s->b_host == NULL || row_ptr == NULL) {
        free(row_ptr);
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory for b", s->rank);
    }
    for (int64_t i = 0; i < s->rows; i++)
        s->b_host[i] = 1.0;
    for (int64_t i = 0; i <= s->rows; i++)
        row_ptr[i] = a->row_ptr[s->first + i] - e0;

    /* the rows */
    g->a.rows = s->rows;
    g->a.owners = s->size;
    if (status == SHARDTAB_SUCCESS &&
        (status = device_alloc(s, (size_t)(s->rows + 1) * 8, 0, &ptr)) == SHARDTAB_SUCCESS) {
        g->a.row_ptr = ptr;
        status = to_device(ptr, row_ptr, (size_t)(s->rows + 1) * 8);
    }
    free(row_ptr);
    if (status == SHARDTAB_SUCCESS &&
        (status = device_alloc(s, (size_t)s->nnz * 4, 0, &ptr)) == SHARDTAB_SUCCESS) {
        g->a.col = ptr;
        status = to_device(ptr, a->col + e0, (size_t)s->nnz * 4);
    }
    if (status == SHARDTAB_SUCCESS &&
        (status = device_alloc(s, (size_t)s->nnz * 8, 0, &ptr)) == SHARDTAB_SUCCESS) {
        g->a.val = ptr;
        status = to_device(ptr, a->val + e0, (size_t)s->nnz * 8);
    }
    if (status == SHARDTAB_SUCCESS &&
        (status = device_alloc(s, (size_t)(s->size + 1) * 8, 0, &ptr)) == SHARDTAB_SUCCESS) {
        g->a.first_row = ptr;
        status = to_device(ptr, s->first_row, (size_t)(s->size + 1) * 8);
    }
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
        (status = device_alloc(s, 2 * CG_EXACT_WORDS * 8, 0, &ptr)) == SHARDTAB_SUCCESS)
        g->limbs = ptr;
    g->niter = opts->niter;
    g->tol = opts->tol;
    g->variant = (int)opts->variant;
    g->repro = opts->repro;

    /* the launch mode, then the grid it runs */
    char why[256] = "";
    int blocks = 1;
    if (status == SHARDTAB_SUCCESS) {
        s->launch = opts->launch;
        if (s->launch == CG_LAUNCH_AUTO && ranks_on_device > 1) {
            /* without MPS two processes' kernels take turns on a device: a
             * persistent solve would wait for a peer that cannot run */
            s->launch = CG_LAUNCH_STREAM;
            snprintf(s->launch_why, sizeof s->launch_why, "auto: %d ranks share the device",
                     ranks_on_device);
        }
        int rc = CG_NOT_RESIDENT;
        if (s->launch != CG_LAUNCH_STREAM)
            rc = cg_grid(g, CG_LAUNCH_PERSISTENT, ranks_on_device, &blocks, why, sizeof why);
        if (rc == 0) {
            if (s->launch == CG_LAUNCH_AUTO)
                snprintf(s->launch_why, sizeof s->launch_why, "auto: the grid is resident");
            s->launch = CG_LAUNCH_PERSISTENT;
        } else if (rc == CG_NOT_RESIDENT && s->launch == CG_LAUNCH_AUTO) {
            snprintf(s->launch_why, sizeof s->launch_why, "auto: %s", why);
            s->launch = CG_LAUNCH_STREAM;
        } else if (rc == CG_NOT_RESIDENT && s->launch == CG_LAUNCH_PERSISTENT) {
            status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                        "rank %d: --launch persistent: %s", s->rank, why);
        } else if (rc != CG_NOT_RESIDENT) {
            status = kernel_check(rc, "sizing the persistent grid");
        }
        if (status == SHARDTAB_SUCCESS && s->launch == CG_LAUNCH_STREAM)
            status = kernel_check(
                cg_grid(g, CG_LAUNCH_STREAM, ranks_on_device, &blocks, why, sizeof why),
                "sizing the stream grid");
    }
    g->blocks = blocks;
    if (status == SHARDTAB_SUCCESS &&
        (status = device_alloc(s, (size_t)blocks * 2 * 8, 0, &ptr)) == SHARDTAB_SUCCESS)
        g->partials = ptr;
    status = app_agree(comm, status, "the agreement on the device's memory", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;

    /* the tables: every rank's shard of p (and of w_0, w_1), its signal pads
     * the collective's and the barrier's */
    shardtab_create_params_t params = {0};
    params.signal_slots = CG_SIGNAL_SLOTS(s->size);
    params.alignment = 8;
    params.label = "cg p";
    status = shardtab_create_with(comm, g->p, vec, &params, &s->p_table);
    for (int k = 0; k < 2 && opts->variant == CG_PIPELINED && status == SHARDTAB_SUCCESS; k++) {
        shardtab_create_params_t wp = {0};
        wp.alignment = 8;
        wp.label = k == 0 ? "cg w0" : "cg w1";
        status = shardtab_create_with(comm, g->w[k], vec, &wp, &s->w_table[k]);
    }
    if (status == SHARDTAB_SUCCESS && shardtab_node_count(s->p_table) != 1)
        status = shardtab_error_set(
            SHARDTAB_ERR_INVALID_ARG,
            "the %d ranks span %d nodes: cg reads the direction vector through one node's "
            "table, and has no path between nodes yet: run it on one node",
            s->size, shardtab_node_count(s->p_table));
    if (status == SHARDTAB_SUCCESS && shardtab_node_rank(s->p_table) != s->rank)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                    "rank %d is node rank %d: the split is by comm rank", s->rank,
                                    shardtab_node_rank(s->p_table));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signals(s->p_table, &g->sig);
    if (status == SHARDTAB_SUCCESS) {
        g->p_table = (double *const *)shardtab_device_table(s->p_table);
        for (int k = 0; k < 2 && s->w_table[k]; k++)
            g->w_table[k] = (double *const *)shardtab_device_table(s->w_table[k]);
    }
    return app_agree(comm, status, "the agreement on the tables", 0);
}

/* x = 0, r = b (pipelined: p = b, the start's operand), z = s = 0, the ctl
 * and the exact sums zeroed. */
static shardtab_status_t reset(cg_solver_t *s, uint64_t trace_iter)
{
    const cg_args_t *g = &s->args;
    const size_t vec = (size_t)s->rows * sizeof(double);
    double *zero = calloc(s->rows ? (size_t)s->rows : 1, sizeof(double));
    cg_ctl_t ctl;
    int64_t limbs[2 * CG_EXACT_WORDS] = {0};
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
    for (int k = 0; k < 2 && g->w[k] && status == SHARDTAB_SUCCESS; k++)
        status = to_device(g->w[k], zero, vec);
    if (status == SHARDTAB_SUCCESS)
        status = to_device(g->ctl, &ctl, sizeof ctl);
    if (status == SHARDTAB_SUCCESS)
        status = to_device(g->limbs, limbs, sizeof limbs);
    free(zero);
    return status;
}

/* Stream launches: chunks of iterations, a look at the stop after each. */
static shardtab_status_t run_stream(cg_solver_t *s)
{
    const cg_args_t *g = &s->args;
    const int phases = cg_stream_phases(g->variant);
    shardtab_status_t status = SHARDTAB_SUCCESS;
    cg_ctl_t ctl;

    for (int64_t done = 0; status == SHARDTAB_SUCCESS && done <= g->niter;
         done += CG_STREAM_CHUNK) {
        for (int it = 0; it < CG_STREAM_CHUNK && status == SHARDTAB_SUCCESS; it++)
            for (int phase = 0; phase < phases && status == SHARDTAB_SUCCESS; phase++) {
                /* one rank: nothing to meet (the kernels skip the collective too) */
                if (cg_barrier_before(g->variant, phase) && s->size > 1)
                    status = shardtab_barrier_on_stream(s->p_table, s->stream);
                if (status == SHARDTAB_SUCCESS)
                    status = kernel_check(cg_stream_phase(g, phase, s->stream),
                                          "launching a phase of the solve");
            }
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(s->stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_host(&ctl, g->ctl, sizeof ctl);
        if (status == SHARDTAB_SUCCESS && ctl.stop)
            break;
    }
    return status;
}

shardtab_status_t cg_solver_run(cg_solver_t *s, const cg_options_t *opts, uint64_t trace_iter,
                                cg_outcome_t *out)
{
    const cg_args_t *g = &s->args;
    shardtab_status_t status = reset(s, trace_iter);
    cg_ctl_t ctl;
    double t0 = 0.0, mine = 0.0;

    status = app_agree(MPI_COMM_WORLD, status, "the agreement before a solve", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;
    app_barrier(MPI_COMM_WORLD, "the barrier before a solve", 0);
    t0 = MPI_Wtime();
    /* pipelined: every rank's r_0 (in p) is in place before any start reads it */
    if (g->variant == CG_PIPELINED && s->size > 1)
        status = shardtab_barrier_on_stream(s->p_table, s->stream);
    if (status == SHARDTAB_SUCCESS)
        status = kernel_check(cg_start(g, s->stream), "launching the solve's start");
    if (status == SHARDTAB_SUCCESS)
        status = s->launch == CG_LAUNCH_PERSISTENT
                     ? kernel_check(cg_persistent(g, s->stream), "launching the persistent solve")
                     : run_stream(s);
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
    out->iterations = (int64_t)ctl.iteration;
    out->failed = (int)ctl.failed;
    out->denominator = ctl.denominator;
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

    for (int k = 1; k >= 0; k--)
        if (s->w_table[k] && (st = shardtab_destroy(&s->w_table[k])) != SHARDTAB_SUCCESS &&
            status == SHARDTAB_SUCCESS)
            status = st;
    if (s->p_table && (st = shardtab_destroy(&s->p_table)) != SHARDTAB_SUCCESS &&
        status == SHARDTAB_SUCCESS)
        status = st;
    for (int m = s->nmem - 1; m >= 0; m--)
        (void)shardtab_mem_free(s->mem[m]);
    s->nmem = 0;
    free(s->first_row);
    free(s->b_host);
    s->first_row = NULL;
    s->b_host = NULL;
    return status;
}
