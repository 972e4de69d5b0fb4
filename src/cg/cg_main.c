/* cg_main.c - the cg program's main: a conjugate-gradient solve whose rows are
 * split over the ranks, the matrix-vector product reading the
 * direction vector through the node's table, the dot products reduced on the
 * device, the stop decided there.
 *
 * PURPOSE  Show that the table serves a sparse solver, where a row needs the
 *          vector at arbitrary columns: each is read where it lives, with no
 *          halo list, no packing and no host; and that the all-reduce serves
 *          the two dot products on the critical path of every iteration.
 *          Across nodes only the columns another node owns come by MPI, and
 *          the dot products by the library's all-reduce across nodes.
 * USAGE    mpirun -np <ranks> ./cg [--poisson 2d:N|3d:N | --matrix F.mtx] [-niter N]
 *                 [--tol T] [--variant standard|pipelined] [--launch auto|persistent|stream]
 *                 [--repro] [--repeat R] [--cpu-check auto|yes|no] [--json FILE]
 *                 [--trace FILE] [--allow-shared-gpu]
 * NOTES    b is every entry 1 and x_0 = 0. Every rank reads (or builds) the
 *          whole matrix and keeps its rows. Rank 0 checks the result: the
 *          true residual ||b - A x|| of the device's x, and where the work is
 *          small enough (or --cpu-check yes) the CPU's plain CG in double,
 *          whose iteration count must be the same and whose x must be within
 *          CG_VERIFY_TOL. The solve is timed from the start's launch to the
 *          stop, the slowest rank's time, median of --repeat solves.
 *
 * The rooms: cg_options.c (the command line), cg_solver.c (device memory,
 * tables, one solve), this file (the flow, the checks, the output); the
 * kernels are kernels/cg (the solve) over kernels/sparse (the product).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bounded.h"
#include "cg_options.h"
#include "cg_solver.h"
#include "cli.h"
#include "shardtab.h"
#include "sparse_cg.h"
#include "sparse_mtx.h"
#include "sparse_poisson.h"
#include "test_hooks.h"

#ifndef CG_GIT_COMMIT
#  define CG_GIT_COMMIT "unknown"
#endif

/* The largest difference, relative to the largest entry of the CPU's x,
 * that the check accepts between the device's x and the CPU's: both are CG
 * in double, rounded differently (fma, summation order), and CG carries a
 * rounding difference along, so this is loose against eps and tight
 * against any real bug (a wrong row, a stale value, a lost update). */
#define CG_VERIFY_TOL 1e-6
#define CG_TRUE_RESIDUAL_FLOOR 1e-6
#define CG_STOP_ROUNDING 1e-12 /* a stop below this relative residual is rounding's */

typedef struct cg_verdict {
    int verified;
    int cpu_checked;
    int64_t cpu_iterations;
    double cpu_relative;
    double max_diff;      /* max |x - x_cpu| / max |x_cpu| */
    double true_relative; /* ||b - A x|| / ||b||, x the device's */
    double cpu_true;      /* the same of the CPU's x */
    int unconverged;      /* both ran -niter without converging */
    int parted;           /* ... and x parted from the CPU's: judged by residuals (N6) */
    uint64_t x_print, history_print;
    char why[512];
} cg_verdict_t;

/* ---- options: every rank parses, all agree, rank 0 speaks ----------------------------- */

static int agree_options(int rank, cg_options_t *opts, cg_parse_t parsed, const char *err)
{
    struct {
        char message[APP_MESSAGE_BYTES];
    } said;
    int worst = (int)parsed, failing = INT_MAX, first = INT_MAX;
    const char *step = "the agreement on the command line";
    char text[512];
    cg_options_t zero_opts;

    app_allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, step);
    if (worst == CG_PARSE_ERROR) {
        int mine = parsed == CG_PARSE_ERROR ? rank : INT_MAX;
        app_allreduce(&mine, &failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, step);
        if (rank == failing)
            snprintf(said.message, sizeof said.message, "%s", err);
        app_bcast(&said, (int)sizeof said, MPI_BYTE, failing, MPI_COMM_WORLD, step);
        if (rank == 0) {
            if (failing == 0)
                fprintf(stderr, "cg: error: %s\nTry 'cg --help' for more information.\n",
                        said.message);
            else
                fprintf(stderr,
                        "cg: error: rank %d could not parse its command line, rank 0 could: %s; "
                        "every rank must get the same options\n",
                        failing, said.message);
        }
        return 2;
    }
    if (worst == CG_PARSE_HELP) {
        if (rank == 0)
            fputs(cg_usage_text(), stdout);
        return 0;
    }
    if (worst == CG_PARSE_VERSION) {
        app_say_version("cg", rank);
        return 0;
    }
    /* rank 0's options, against this rank's: the pointers are compared by text */
    zero_opts = *opts;
    char matrix[APP_MESSAGE_BYTES] = "";
    if (rank == 0 && opts->matrix)
        snprintf(matrix, sizeof matrix, "%s", opts->matrix);
    app_bcast(&zero_opts, (int)sizeof zero_opts, MPI_BYTE, 0, MPI_COMM_WORLD, step);
    app_bcast(matrix, (int)sizeof matrix, MPI_CHAR, 0, MPI_COMM_WORLD, step);
    zero_opts.matrix = zero_opts.matrix ? matrix : NULL;
    int mine = cg_options_differ(opts, &zero_opts, text, sizeof text) ? rank : INT_MAX;
    app_allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, step);
    if (first == INT_MAX)
        return -1;
    if (rank == first)
        snprintf(said.message, sizeof said.message, "%s", text);
    app_bcast(&said, (int)sizeof said, MPI_BYTE, first, MPI_COMM_WORLD, step);
    if (rank == 0)
        fprintf(stderr,
                "cg: error: rank %d's options differ from rank 0's: %s (the first difference); "
                "every rank must get the same options\n",
                first, said.message);
    return 2;
}

/* Ranks of this node bound to this rank's device. Collective. */
static int ranks_on_my_device(void)
{
    shardtab_device_info_t info;
    MPI_Comm node;
    int size = 1, count = 0;
    char *ids;

    shardtab_device_info(&info);
    app_barrier(MPI_COMM_WORLD, "the barrier before the node split", 0);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &size);
    ids = malloc((size_t)size * sizeof info.pci_bus_id);
    if (ids) {
        app_allgather(info.pci_bus_id, (int)sizeof info.pci_bus_id, MPI_CHAR, ids,
                      (int)sizeof info.pci_bus_id, MPI_CHAR, node, "the exchange of device ids");
        for (int r = 0; r < size; r++)
            count += strcmp(ids + (size_t)r * sizeof info.pci_bus_id, info.pci_bus_id) == 0;
        free(ids);
    }
    MPI_Comm_free(&node);
    return info.shared ? (count > 1 ? count : 2) : 1;
}

static uint64_t fnv1a(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* N7: every rank read the same matrix, not only the same --matrix text (one relative
 * path read in two working directories gave different matrices: MPI_Gatherv aborted
 * with MPI_ERR_TRUNCATE). Its size, its nonzeros and a hash of every entry, against
 * rank 0's; a difference is bad usage on every rank. Collective. */
static shardtab_status_t agree_matrix(int rank, const cg_options_t *opts, const sparse_csr_t *a)
{
    const char *step = "the agreement on the matrix read";
    uint64_t mine[3] = {(uint64_t)a->nrows, (uint64_t)a->nnz, 0xcbf29ce484222325ull}, zero[3];
    int first = INT_MAX, differs;

    mine[2] = fnv1a(mine[2], a->row_ptr, (size_t)(a->nrows + 1) * sizeof *a->row_ptr);
    mine[2] = fnv1a(mine[2], a->col, (size_t)a->nnz * sizeof *a->col);
    mine[2] = fnv1a(mine[2], a->val, (size_t)a->nnz * sizeof *a->val);
    memcpy(zero, mine, sizeof zero);
    app_bcast(zero, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD, step);
    differs = memcmp(zero, mine, sizeof zero) != 0 ? rank : INT_MAX;
    app_allreduce(&differs, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, step);
    if (first == INT_MAX)
        return SHARDTAB_SUCCESS;
    app_bcast(mine, 3, MPI_UINT64_T, first, MPI_COMM_WORLD, step);
    return shardtab_error_set(
        SHARDTAB_ERR_INVALID_ARG,
        "rank %d read another matrix than rank 0 from %s%s%s: %" PRIu64 " rows, %" PRIu64
        " nonzeros, entries hash %016" PRIx64 " against %" PRIu64 " rows, %" PRIu64
        " nonzeros, hash %016" PRIx64 "; every rank must read the same file (a relative path is "
        "read in each rank's own working directory)",
        first, opts->matrix ? "--matrix '" : "--poisson", opts->matrix ? opts->matrix : "",
        opts->matrix ? "'" : "", mine[0], mine[1], mine[2], zero[0], zero[1], zero[2]);
}

/* ---- the checks, on rank 0 --------------------------------------------------------------- */

/* The whole x on rank 0 (NULL elsewhere); collective. */
static shardtab_status_t gather_x(const cg_solver_t *s, int64_t nrows, double **whole)
{
    double *mine = malloc((size_t)(s->rows ? s->rows : 1) * sizeof(double));
    int *counts = malloc((size_t)s->size * sizeof(int)),
        *displs = malloc((size_t)s->size * sizeof(int));
    shardtab_status_t status = SHARDTAB_SUCCESS;

    *whole = s->rank == 0 ? malloc((size_t)(nrows ? nrows : 1) * sizeof(double)) : NULL;
    if (!mine || !counts || !displs || (s->rank == 0 && !*whole))
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory for x", s->rank);
    if (status == SHARDTAB_SUCCESS)
        status = cg_solver_solution(s, mine);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement before the gather of x", 0);
    if (status == SHARDTAB_SUCCESS) {
        for (int r = 0; r < s->size; r++) {
            int64_t first, rows;
            cg_solver_rows_of(s, r, &first, &rows);
            counts[r] = (int)rows;
            displs[r] = (int)first;
        }
        MPI_Gatherv(mine, (int)s->rows, MPI_DOUBLE, *whole, counts, displs, MPI_DOUBLE, 0,
                    MPI_COMM_WORLD);
    }
    free(mine);
    free(counts);
    free(displs);
    return status;
}

/* Rank 0: the true residual, the fingerprints, and the CPU's CG where wanted. */
static shardtab_status_t check(const cg_options_t *opts, const sparse_csr_t *a, const double *x,
                               const cg_outcome_t *run, cg_verdict_t *v)
{
    const int64_t n = a->nrows;
    double *b = malloc((size_t)(n ? n : 1) * sizeof(double));
    double *ax = malloc((size_t)(n ? n : 1) * sizeof(double));
    double *x_cpu = NULL, *history = NULL;
    char err[512] = "";

    if (!b || !ax) {
        free(b);
        free(ax);
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank 0: no memory for the check");
    }
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0;
    sparse_csr_spmv(a, x, ax);
    double rnorm = 0, bnorm = sqrt((double)n);
    for (int64_t i = 0; i < n; i++)
        rnorm += (b[i] - ax[i]) * (b[i] - ax[i]);
    v->true_relative = n ? sqrt(rnorm) / bnorm : 0.0;
    v->x_print = fnv1a(0xcbf29ce484222325ull, x, (size_t)n * sizeof *x);
    v->history_print =
        fnv1a(0xcbf29ce484222325ull, run->history, (size_t)run->history_len * sizeof(double));
    v->cpu_checked = cg_cpu_check_wanted(opts, a->nnz);
    v->verified = 1;
    /* a solve that ran its -niter iterations without converging (no stop of its own) */
    const int ran_out = !run->converged && !run->failed && run->iterations >= opts->niter;
    if (v->cpu_checked) {
        sparse_cg_result_t res;
        x_cpu = malloc((size_t)(n ? n : 1) * sizeof(double));
        history = malloc((size_t)(opts->niter + 1) * sizeof(double));
        if (!x_cpu || !history) {
            free(b);
            free(ax);
            free(x_cpu);
            free(history);
            return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank 0: no memory for the CPU's CG");
        }
        if (sparse_cg_solve(a, b, opts->tol, opts->niter, x_cpu, history, &res, err, sizeof err) !=
            0) {
            v->verified = 0;
            snprintf(v->why, sizeof v->why, "the CPU's CG failed where the device's did not: %s",
                     err);
        } else {
            double big = 0, diff = 0;
            for (int64_t i = 0; i < n; i++) {
                big = fmax(big, fabs(x_cpu[i]));
                diff = fmax(diff, fabs(x[i] - x_cpu[i]));
            }
            v->cpu_iterations = res.iterations;
            v->cpu_relative = res.relative_residual;
            v->max_diff = big > 0 ? diff / big : diff;
            sparse_csr_spmv(a, x_cpu, ax);
            double cpu_rnorm = 0;
            for (int64_t i = 0; i < n; i++)
                cpu_rnorm += (b[i] - ax[i]) * (b[i] - ax[i]);
            v->cpu_true = n ? sqrt(cpu_rnorm) / bnorm : 0.0;
            /* N6: neither converged in -niter iterations (an ill-conditioned matrix): after
             * that many, the two x have parted by rounding alone (NumPy's CG parts from
             * both), so x is judged by its true residual, within 10x of the CPU's after the
             * same iterations or of its own recursive one */
            v->unconverged =
                ran_out && res.iterations == run->iterations && res.relative_residual > opts->tol;
            /* a stop at rounding (a breakdown, or a residual so small that
             * the last bits of the two sums decide where it falls) need not
             * come at the CPU's iteration: x alone is compared then */
            const int at_rounding = run->failed == CG_FAIL_ROUNDING ||
                                    run->relative <= CG_STOP_ROUNDING ||
                                    res.relative_residual <= CG_STOP_ROUNDING;
            if (res.iterations != run->iterations && !at_rounding) {
                v->verified = 0;
                snprintf(v->why, sizeof v->why, "%" PRId64 " iterations, the CPU's CG %" PRId64,
                         run->iterations, res.iterations);
            } else if (!(v->max_diff <= CG_VERIFY_TOL) && v->unconverged &&
                       v->true_relative <= 10 * fmax(v->cpu_true, run->relative)) {
                v->parted = 1;
            } else if (!(v->max_diff <= CG_VERIFY_TOL) && v->unconverged) {
                v->verified = 0;
                snprintf(v->why, sizeof v->why,
                         "not converged in %" PRId64 " iterations, nor the CPU's CG; x differs "
                         "from its by %.3g > %g, and its true residual, %.3g, is above 10x the "
                         "CPU's after as many iterations, %.3g, and 10x the solve's own, %.3g",
                         run->iterations, v->max_diff, CG_VERIFY_TOL, v->true_relative, v->cpu_true,
                         run->relative);
            } else if (!(v->max_diff <= CG_VERIFY_TOL)) {
                v->verified = 0;
                snprintf(v->why, sizeof v->why,
                         "x differs from the CPU's CG by %.3g (max norm, relative) > %g",
                         v->max_diff, CG_VERIFY_TOL);
            }
        }
    }
    /* always: the device's x must solve the system about as well as its own
     * residual says. The recursive residual of CG, and more of pipelined CG,
     * drifts below the true one once it nears rounding (the residual gap),
     * so the bound is 10x the solve's, or CG_TRUE_RESIDUAL_FLOOR; a wrong
     * row, a stale value or a lost update leaves it far above either */
    if (v->verified && !(v->true_relative <= fmax(10 * run->relative, CG_TRUE_RESIDUAL_FLOOR))) {
        v->verified = 0;
        snprintf(v->why, sizeof v->why,
                 "the true residual of x, %.3g, is neither within 10x of the solve's own, %.3g, "
                 "nor below %g",
                 v->true_relative, run->relative, CG_TRUE_RESIDUAL_FLOOR);
    }
    free(b);
    free(ax);
    free(x_cpu);
    free(history);
    return SHARDTAB_SUCCESS;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- the memory's floor: device copies of the bytes an iteration moves ---------------- */

#define CG_FLOOR_ROUNDS 5
#define CG_FLOOR_COPIES 20

/* Seconds of one iteration's bytes moved by a device copy (reading and
 * writing half of them each), the slowest rank's, median of rounds after a
 * warm-up: every rank copies at once, as every rank solves at once. */
static shardtab_status_t time_floor(const cg_options_t *opts, const cg_solver_t *s, double *seconds,
                                    int64_t *bytes)
{
    const int64_t mine = cg_floor_bytes(opts->variant, s->args.fused, s->rows, s->nnz);
    const size_t half = (size_t)(mine / 2 / 16 * 16 + 16);
    void *src = NULL, *dst = NULL;
    double t[CG_FLOOR_ROUNDS];
    shardtab_status_t status = shardtab_mem_alloc(half, &src);

    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(half, &dst);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the floor's buffers", 0);
    for (int round = -1; round < CG_FLOOR_ROUNDS && status == SHARDTAB_SUCCESS; round++) {
        app_barrier(MPI_COMM_WORLD, "the barrier before a timed copy", 0);
        const double t0 = MPI_Wtime();
        for (int k = 0; k < CG_FLOOR_COPIES && status == SHARDTAB_SUCCESS; k++)
            status = shardtab_memcpy_async(dst, src, half, NULL);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(NULL);
        double mine_t = (MPI_Wtime() - t0) / CG_FLOOR_COPIES, worst = 0;
        status = app_agree(MPI_COMM_WORLD, status, "the agreement after a timed copy", 0);
        app_allreduce(&mine_t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD,
                      "the reduction of a copy's time");
        if (round >= 0)
            t[round] = worst;
    }
    (void)shardtab_mem_free(src);
    (void)shardtab_mem_free(dst);
    if (status == SHARDTAB_SUCCESS) {
        qsort(t, CG_FLOOR_ROUNDS, sizeof t[0], cmp_double);
        *seconds = t[CG_FLOOR_ROUNDS / 2];
        app_allreduce(&mine, bytes, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD,
                      "the reduction of the floor's bytes");
    }
    return status;
}

/* ---- output ---------------------------------------------------------------------------- */

static void json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void write_json(FILE *f, const cg_options_t *opts, const sparse_csr_t *a,
                       const cg_solver_t *s, const cg_outcome_t *run, const double *times,
                       double median, double floor_s, int64_t floor_bytes, const cg_verdict_t *v,
                       int exit_code)
{
    shardtab_device_info_t info;
    char spec[64];

    shardtab_device_info(&info);
    snprintf(spec, sizeof spec, "%dd:%" PRId64, opts->poisson.dim, opts->poisson.n);
    fputs("{\n  \"program\": \"cg\",\n  ", f);
    app_json_provenance(f, CG_GIT_COMMIT);
    fprintf(f, "  \"backend\": \"%s\",\n  \"device\": ", shardtab_backend_name(shardtab_backend()));
    app_json_string(f, info.name);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"nodes\": %d,\n  \"matrix\": ", s->size, s->nodes);
    app_json_string(f, opts->matrix ? opts->matrix : spec);
    fprintf(f, ",\n  \"rows\": %" PRId64 ",\n  \"nonzeros\": %" PRId64 ",\n", a->nrows, a->nnz);
    fprintf(f, "  \"niter\": %" PRId64 ",\n  \"tol\": ", opts->niter);
    json_number(f, opts->tol);
    fprintf(f,
            ",\n  \"variant\": \"%s\",\n  \"launch\": \"%s\",\n  \"launch_asked\": \"%s\",\n"
            "  \"blocks\": %d,\n  \"repro\": %s,\n  \"repeat\": %d,\n",
            cg_variant_name(opts->variant), cg_launch_name(s->launch), cg_launch_name(opts->launch),
            s->args.blocks, opts->repro ? "true" : "false", opts->repeat);
    fprintf(f, "  \"iterations\": %" PRId64 ",\n  \"converged\": %s,\n  \"relative_residual\": ",
            run->iterations, run->converged ? "true" : "false");
    json_number(f, run->relative);
    fputs(",\n  \"true_relative_residual\": ", f);
    json_number(f, v->true_relative);
    fputs(",\n  \"seconds\": ", f);
    json_number(f, median);
    fputs(",\n  \"us_per_iteration\": ", f);
    json_number(f, run->iterations ? median / (double)run->iterations * 1e6 : 0.0);
    fputs(",\n  \"seconds_each\": [", f);
    for (int i = 0; i < opts->repeat; i++) {
        fputs(i ? ", " : "", f);
        json_number(f, times[i]);
    }
    fputs("],\n", f);
    if (opts->floor) {
        fprintf(f, "  \"floor_bytes\": %" PRId64 ",\n  \"floor_us_per_iteration\": ", floor_bytes);
        json_number(f, floor_s * 1e6);
        fputs(",\n", f);
    }
    fprintf(f, "  \"cpu_checked\": %s,\n", v->cpu_checked ? "true" : "false");
    if (v->cpu_checked) {
        fprintf(f, "  \"cpu_iterations\": %" PRId64 ",\n  \"cpu_relative_residual\": ",
                v->cpu_iterations);
        json_number(f, v->cpu_relative);
        fputs(",\n  \"max_difference_from_cpu\": ", f);
        json_number(f, v->max_diff);
        fputs(",\n  \"verify_tolerance\": ", f);
        json_number(f, CG_VERIFY_TOL);
        fputs(",\n", f);
    }
    fprintf(f,
            "  \"x_fingerprint\": \"%016" PRIx64 "\",\n  \"history_fingerprint\": \"%016" PRIx64
            "\",\n",
            v->x_print, v->history_print);
    fprintf(f, "  \"verified\": %s,\n  \"exit_status\": %d,\n  \"residual_history\": [",
            v->verified ? "true" : "false", exit_code);
    for (int64_t k = 0; k < run->history_len; k++) {
        fputs(k ? (k % 8 ? ", " : ",\n    ") : "\n    ", f);
        json_number(f, run->history[k]);
    }
    fputs("\n  ]\n}\n", f);
}

/* One iteration's phases on every rank, as CSV rows: rank, phase, its
 * microseconds since the iteration began (the traced solve's). */
static void write_trace(FILE *f, const uint64_t *all, int size, int64_t iteration)
{
    static const char *const names[CG_TRACE_POINTS] = {"begin",   "reduced", "barrier",
                                                       "product", "decided", "end"};
    const double us = 1e6 / cg_clock_hz();

    fprintf(f, "# cg trace of iteration %" PRId64 ": microseconds since it began, rank by rank\n",
            iteration);
    fputs("rank,phase,us\n", f);
    for (int r = 0; r < size; r++) {
        const uint64_t *t = all + (size_t)r * CG_TRACE_POINTS;
        for (int p = 0; p < CG_TRACE_POINTS; p++)
            if (t[p] && t[0])
                fprintf(f, "%d,%s,%.3f\n", r, names[p], (double)(int64_t)(t[p] - t[0]) * us);
    }
}

/* ---- main ---------------------------------------------------------------------------------- */

static int leave(int rank, shardtab_status_t status, sparse_csr_t *a, app_outfile_t *json,
                 app_outfile_t *trace)
{
    app_say_error("cg", rank, shardtab_last_error());
    app_outfile_discard(json);
    app_outfile_discard(trace);
    sparse_csr_free(a);
    shardtab_finalize();
    MPI_Finalize();
    return app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
}

int main(int argc, char **argv)
{
    cg_options_t opts;
    shardtab_init_params_t init = {0};
    shardtab_status_t status = SHARDTAB_SUCCESS;
    app_outfile_t json = {0}, trace = {0};
    sparse_csr_t a = {0};
    cg_solver_t s;
    cg_outcome_t run = {0}, traced = {0};
    cg_verdict_t verdict = {0};
    char err[APP_MESSAGE_BYTES] = "";
    int rank, size, exit_code = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    app_bound_init("cg");
    memset(&s, 0, sizeof s);
    {
        int code =
            agree_options(rank, &opts, cg_options_parse(argc, argv, &opts, err, sizeof err), err);
        if (code >= 0) {
            MPI_Finalize();
            return code;
        }
    }

    /* ---- the matrix, on every rank; the result files, on rank 0 ---- */
    if (opts.matrix) {
        if (sparse_mtx_read(opts.matrix, &a, err, sizeof err) != 0)
            status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    } else if (sparse_poisson_build(&opts.poisson, &a, err, sizeof err) != 0) {
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on reading the matrix", 0);
    if (status == SHARDTAB_SUCCESS)
        status = agree_matrix(rank, &opts, &a);
    if (status == SHARDTAB_SUCCESS && rank == 0 && opts.json && opts.trace &&
        app_same_file(opts.json, opts.trace))
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                    "--json and --trace name the same file ('%s'): each needs a "
                                    "file of its own",
                                    opts.json);
    if (status == SHARDTAB_SUCCESS && rank == 0 && opts.json &&
        app_outfile_open_named(&json, opts.json, "JSON file", err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    if (status == SHARDTAB_SUCCESS && rank == 0 && opts.trace &&
        app_outfile_open_named(&trace, opts.trace, "trace file", err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the matrix and the files", 0);
    if (status != SHARDTAB_SUCCESS)
        return leave(rank, status, &a, &json, &trace);

    /* ---- the test hook (src/platform/test_hooks.h): a rank that stops ---- */
    const char *stall = NULL;
    int stall_rank = -1;
    long stall_iteration = -1;
    if (test_hook_read("CG_TEST_STALL", &stall, err, sizeof err) != 0 ||
        (stall != NULL && test_hook_rank_and("CG_TEST_STALL", stall, size, opts.niter, &stall_rank,
                                             &stall_iteration, err, sizeof err) != 0))
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the test hooks", 0);
    if (status != SHARDTAB_SUCCESS)
        return leave(rank, status, &a, &json, &trace);

    /* ---- device, memory, tables, launch mode ---- */
    init.allow_shared_device = opts.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &init);
    if (status != SHARDTAB_SUCCESS)
        return leave(rank, status, &a, &json, &trace);
    const int on_device = ranks_on_my_device();
    status = cg_solver_create(&s, &opts, &a, on_device, MPI_COMM_WORLD);
    s.stall_for_test = stall_rank == rank;
    s.stall_iteration = stall_iteration;
    if (status == SHARDTAB_SUCCESS && stall_iteration >= 0 && s.launch != CG_LAUNCH_STREAM)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                    "CG_TEST_STALL='%s' stops a rank as it enqueues iteration %ld, "
                                    "which only stream launches do (this run's launch is %s)",
                                    stall, stall_iteration, cg_launch_name(s.launch));
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the launch", 0);
    if (status != SHARDTAB_SUCCESS) {
        (void)cg_solver_destroy(&s);
        return leave(rank, status, &a, &json, &trace);
    }
    if (rank == 0) {
        shardtab_device_info_t info;
        shardtab_device_info(&info);
        char nodes[32] = "";
        if (s.nodes > 1)
            snprintf(nodes, sizeof nodes, " on %d nodes", s.nodes);
        printf("# cg: %" PRId64 " rows, %" PRId64 " nonzeros (%s), %d rank%s%s, backend %s (%s)\n",
               a.nrows, a.nnz, opts.matrix ? opts.matrix : "Poisson", size, app_s(size), nodes,
               shardtab_backend_name(shardtab_backend()), info.name);
        printf("# cg: variant %s, launch %s%s%s%s, %d blocks, -niter %" PRId64 ", --tol %g%s\n",
               cg_variant_name(opts.variant), cg_launch_name(s.launch), s.launch_why[0] ? " (" : "",
               s.launch_why, s.launch_why[0] ? ")" : "", s.args.blocks, opts.niter, opts.tol,
               opts.repro ? ", --repro" : "");
        fflush(stdout);
    }

    /* ---- the timed solves ---- */
    double *times = calloc((size_t)opts.repeat, sizeof(double));
    if (times == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory", rank);
    for (int i = 0; i < opts.repeat && status == SHARDTAB_SUCCESS; i++) {
        status = cg_solver_run(&s, &opts, UINT64_MAX, &run);
        if (status == SHARDTAB_SUCCESS)
            times[i] = run.seconds;
    }
    if (status == SHARDTAB_SUCCESS && run.failed == CG_FAIL_INDEFINITE)
        status = shardtab_error_set(
            SHARDTAB_ERR_INVALID_ARG,
            "the matrix is not positive definite: a CG denominator "
            "((p, A p) or the pipelined one) is %g at iteration %" PRId64 "%s",
            run.denominator, run.iterations + 1,
            run.denominator == 0 ? " (the matrix is singular, or indefinite)" : "");
    else if (status == SHARDTAB_SUCCESS && run.failed == CG_FAIL_NONFINITE)
        status = shardtab_error_set(
            SHARDTAB_ERR_INVALID_ARG,
            "the solve left double's range at iteration %" PRId64 ": the residual is %g and the "
            "last denominator %g (an entry that is not finite, or entries so small or large that "
            "CG's step overflows: scale the matrix)",
            run.iterations, run.history_len > 0 ? run.history[run.history_len - 1] : 0.0,
            run.denominator);
    else if (status == SHARDTAB_SUCCESS && run.failed && run.failed != CG_FAIL_ROUNDING)
        status = shardtab_error_set(SHARDTAB_ERR_DEVICE,
                                    "a device wait of the solve gave up (iteration %" PRId64 ")",
                                    run.iterations);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after the solves", 0);

    /* ---- the check ---- */
    double *x = NULL;
    if (status == SHARDTAB_SUCCESS)
        status = gather_x(&s, a.nrows, &x);
    if (status == SHARDTAB_SUCCESS && rank == 0)
        status = check(&opts, &a, x, &run, &verdict);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after the check", 0);
    free(x);

    double floor_s = 0;
    int64_t floor_bytes = 0;
    if (status == SHARDTAB_SUCCESS && opts.floor)
        status = time_floor(&opts, &s, &floor_s, &floor_bytes);

    /* ---- one more solve with the device's clock read at one iteration's phases ---- */
    uint64_t *traces = NULL;
    if (status == SHARDTAB_SUCCESS && opts.trace) {
        const uint64_t at = (uint64_t)(run.iterations / 2);
        status = cg_solver_run(&s, &opts, at, &traced);
        traces = calloc((size_t)size * CG_TRACE_POINTS, sizeof *traces);
        if (status == SHARDTAB_SUCCESS && traces)
            app_gather(traced.trace, CG_TRACE_POINTS, MPI_UINT64_T, traces, CG_TRACE_POINTS,
                       MPI_UINT64_T, 0, MPI_COMM_WORLD, "the gather of the traces");
        if (status == SHARDTAB_SUCCESS && rank == 0 && traces)
            write_trace(trace.f, traces, size, (int64_t)at);
    }

    /* ---- teardown before the verdict: a leaked mapping fails the run too ---- */
    {
        shardtab_status_t released =
            app_agree(MPI_COMM_WORLD, cg_solver_destroy(&s), "the agreement after the teardown", 0);
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    double median = 0;
    if (status == SHARDTAB_SUCCESS) {
        double *sorted = malloc((size_t)opts.repeat * sizeof *sorted);
        if (sorted) {
            memcpy(sorted, times, (size_t)opts.repeat * sizeof *sorted);
            qsort(sorted, (size_t)opts.repeat, sizeof *sorted, cmp_double);
            median = sorted[opts.repeat / 2];
            free(sorted);
        }
        int verified = verdict.verified;
        app_bcast(&verified, 1, MPI_INT, 0, MPI_COMM_WORLD, "the broadcast of the verdict");
        exit_code = verified ? 0 : 1;
    }
    if (status == SHARDTAB_SUCCESS && rank == 0) {
        printf("# cg: %" PRId64 " iterations, %s, relative residual %.6e (true %.6e)\n",
               run.iterations, run.converged ? "converged" : "not converged", run.relative,
               verdict.true_relative);
        if (run.failed == CG_FAIL_ROUNDING)
            printf("# cg: stopped at iteration %" PRId64 ": a denominator of %g with the "
                   "residual at %.3g, below %g: rounding, not the matrix (the CPU's CG's "
                   "iteration count is not compared)\n",
                   run.iterations, run.denominator, run.relative, CG_ROUNDING_RESIDUAL);
        printf("# cg: %.6f s a solve, %.3f us an iteration (median of %d, the slowest rank's)\n",
               median, run.iterations ? median / (double)run.iterations * 1e6 : 0.0, opts.repeat);
        if (opts.floor)
            printf("# cg floor: %.3f us an iteration (%" PRId64 " bytes, the largest rank's, "
                   "at the device copy's rate: %.1f GB/s); the solve %.2f x that\n",
                   floor_s * 1e6, floor_bytes, (double)floor_bytes / floor_s * 1e-9,
                   run.iterations ? median / (double)run.iterations / floor_s : 0.0);
        printf("# cg fingerprint: x %016" PRIx64 ", residual history %016" PRIx64 "\n",
               verdict.x_print, verdict.history_print);
        if (!verdict.verified)
            printf("# verify cg: FAILED (%s)\n", verdict.why);
        else if (verdict.parted)
            printf("# verify cg: OK (not converged in %" PRId64 " iterations, nor the CPU's CG; "
                   "x parted from its by %.3g, rounding over so many iterations; x's true "
                   "residual %.3g, within 10x of the CPU's after as many, %.3g, or of the "
                   "solve's own)\n",
                   run.iterations, verdict.max_diff, verdict.true_relative, verdict.cpu_true);
        else if (verdict.unconverged)
            printf("# verify cg: OK (not converged in %" PRId64 " iterations, nor the CPU's CG; "
                   "x within %.3g of its, <= %g; true residual %.3g)\n",
                   run.iterations, verdict.max_diff, CG_VERIFY_TOL, verdict.true_relative);
        else if (verdict.cpu_checked && run.iterations != verdict.cpu_iterations)
            printf("# verify cg: OK (stopped at rounding after %" PRId64 " iterations, the CPU's "
                   "CG ran %" PRId64 "; x within %.3g of its, <= %g; true residual %.3g)\n",
                   run.iterations, verdict.cpu_iterations, verdict.max_diff, CG_VERIFY_TOL,
                   verdict.true_relative);
        else if (verdict.cpu_checked)
            printf("# verify cg: OK (%" PRId64 " iterations as the CPU's CG; x within %.3g of "
                   "its, <= %g; true residual %.3g)\n",
                   run.iterations, verdict.max_diff, CG_VERIFY_TOL, verdict.true_relative);
        else
            printf("# verify cg: OK (%strue residual %.3g, within 10x of the solve's own or "
                   "below %g; the CPU's CG not run: --cpu-check)\n",
                   run.converged ? "" : "not converged: x's ", verdict.true_relative,
                   CG_TRUE_RESIDUAL_FLOOR);
        fflush(stdout);
    }
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("cg", rank, shardtab_last_error());
        exit_code = app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    } else {
        int write_failed = 0;
        if (rank == 0 && opts.json) {
            write_json(json.f, &opts, &a, &s, &run, times, median, floor_s, floor_bytes, &verdict,
                       exit_code);
            if (app_outfile_commit(&json, err, sizeof err) != 0) {
                fprintf(stderr, "cg: error: %s; the results above are not saved\n", err);
                write_failed = 1;
            }
        }
        if (rank == 0 && opts.trace && app_outfile_commit(&trace, err, sizeof err) != 0) {
            fprintf(stderr, "cg: error: %s; the trace above is not saved\n", err);
            write_failed = 1;
        }
        app_bcast(&write_failed, 1, MPI_INT, 0, MPI_COMM_WORLD, "the broadcast of the files' fate");
        if (write_failed && exit_code == 0)
            exit_code = 1;
    }
    app_outfile_discard(&json);
    app_outfile_discard(&trace);
    free(times);
    free(traces);
    free(run.history);
    free(traced.history);
    sparse_csr_free(&a);
    shardtab_finalize();
    MPI_Finalize();
    return exit_code;
}
