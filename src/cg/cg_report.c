/* cg_report.c - the cg program's output (cg_report.h): '#' lines from rank
 * 0, the same results as JSON, the trace as CSV; and the memory's floor. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cg_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "job.h"
#include "shardtab.h"

#ifndef CG_GIT_COMMIT
#  define CG_GIT_COMMIT "unknown"
#endif

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cg_report_median(const double *times, int n)
{
    double *sorted = malloc((size_t)n * sizeof *sorted), median = 0;

    if (sorted) {
        memcpy(sorted, times, (size_t)n * sizeof *sorted);
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
        median = sorted[n / 2];
        free(sorted);
    }
    return median;
}

#define CG_FLOOR_ROUNDS 5
#define CG_FLOOR_COPIES 20

shardtab_status_t cg_report_floor(const cg_options_t *opts, const cg_solver_t *s, double *seconds,
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

void cg_report_header(int size, const cg_options_t *opts, const sparse_csr_t *a,
                      const cg_solver_t *s)
{
    shardtab_device_info_t info;
    shardtab_device_info(&info);
    char nodes[32] = "";
    if (s->nodes > 1)
        snprintf(nodes, sizeof nodes, " on %d nodes", s->nodes);
    printf("# cg: %" PRId64 " rows, %" PRId64 " nonzeros (%s), %d rank%s%s, backend %s (%s)\n",
           a->nrows, a->nnz, opts->matrix ? opts->matrix : "Poisson", size, app_s(size), nodes,
           shardtab_backend_name(shardtab_backend()), info.name);
    printf("# cg: variant %s, launch %s%s%s%s, %d blocks, -niter %" PRId64 ", --tol %g%s\n",
           cg_variant_name(opts->variant), cg_launch_name(s->launch), s->launch_why[0] ? " (" : "",
           s->launch_why, s->launch_why[0] ? ")" : "", s->args.blocks, opts->niter, opts->tol,
           opts->repro ? ", --repro" : "");
    fflush(stdout);
}

void cg_report_results(const cg_options_t *opts, const cg_results_t *r)
{
    printf("# cg: %" PRId64 " iterations, %s, relative residual %.6e (true %.6e)\n",
           r->run.iterations, r->run.converged ? "converged" : "not converged", r->run.relative,
           r->verdict.true_relative);
    if (r->run.failed == CG_FAIL_ROUNDING)
        printf("# cg: stopped at iteration %" PRId64 ": a denominator of %g with the "
               "residual at %.3g, below %g: rounding, not the matrix (the CPU's CG's "
               "iteration count is not compared)\n",
               r->run.iterations, r->run.denominator, r->run.relative, CG_ROUNDING_RESIDUAL);
    printf("# cg: %.6f s a solve, %.3f us an iteration (median of %d, the slowest rank's)\n",
           r->median, r->run.iterations ? r->median / (double)r->run.iterations * 1e6 : 0.0,
           opts->repeat);
    if (opts->floor)
        printf("# cg floor: %.3f us an iteration (%" PRId64 " bytes, the largest rank's, "
               "at the device copy's rate: %.1f GB/s); the solve %.2f x that\n",
               r->floor_s * 1e6, r->floor_bytes, (double)r->floor_bytes / r->floor_s * 1e-9,
               r->run.iterations ? r->median / (double)r->run.iterations / r->floor_s : 0.0);
    printf("# cg fingerprint: x %016" PRIx64 ", residual history %016" PRIx64 "\n",
           r->verdict.x_print, r->verdict.history_print);
    if (!r->verdict.verified)
        printf("# verify cg: FAILED (%s)\n", r->verdict.why);
    else if (r->verdict.parted)
        printf("# verify cg: OK (not converged in %" PRId64 " iterations, nor the CPU's CG; "
               "x parted from its by %.3g, rounding over so many iterations; x's true "
               "residual %.3g, within 10x of the CPU's after as many, %.3g, or of the "
               "solve's own)\n",
               r->run.iterations, r->verdict.max_diff, r->verdict.true_relative,
               r->verdict.cpu_true);
    else if (r->verdict.unconverged)
        printf("# verify cg: OK (not converged in %" PRId64 " iterations, nor the CPU's CG; "
               "x within %.3g of its, <= %g; true residual %.3g)\n",
               r->run.iterations, r->verdict.max_diff, CG_VERIFY_TOL, r->verdict.true_relative);
    else if (r->verdict.cpu_checked && r->run.iterations != r->verdict.cpu_iterations)
        printf("# verify cg: OK (stopped at rounding after %" PRId64 " iterations, the CPU's "
               "CG ran %" PRId64 "; x within %.3g of its, <= %g; true residual %.3g)\n",
               r->run.iterations, r->verdict.cpu_iterations, r->verdict.max_diff, CG_VERIFY_TOL,
               r->verdict.true_relative);
    else if (r->verdict.cpu_checked)
        printf("# verify cg: OK (%" PRId64 " iterations as the CPU's CG; x within %.3g of "
               "its, <= %g; true residual %.3g)\n",
               r->run.iterations, r->verdict.max_diff, CG_VERIFY_TOL, r->verdict.true_relative);
    else
        printf("# verify cg: OK (%strue residual %.3g, within 10x of the solve's own or "
               "below %g; the CPU's CG not run: --cpu-check)\n",
               r->run.converged ? "" : "not converged: x's ", r->verdict.true_relative,
               CG_TRUE_RESIDUAL_FLOOR);
    fflush(stdout);
}

static void json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

/* ",\n  "key": v" */
static void json_key(FILE *f, const char *key, double v)
{
    fprintf(f, ",\n  \"%s\": ", key);
    json_number(f, v);
}

void cg_report_json(FILE *f, const cg_options_t *opts, const sparse_csr_t *a, const cg_solver_t *s,
                    const cg_results_t *r, int exit_code)
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
    fprintf(f, "  \"niter\": %" PRId64, opts->niter);
    json_key(f, "tol", opts->tol);
    fprintf(f,
            ",\n  \"variant\": \"%s\",\n  \"launch\": \"%s\",\n  \"launch_asked\": \"%s\",\n"
            "  \"blocks\": %d,\n  \"repro\": %s,\n  \"repeat\": %d,\n",
            cg_variant_name(opts->variant), cg_launch_name(s->launch), cg_launch_name(opts->launch),
            s->args.blocks, opts->repro ? "true" : "false", opts->repeat);
    fprintf(f, "  \"iterations\": %" PRId64 ",\n  \"converged\": %s", r->run.iterations,
            r->run.converged ? "true" : "false");
    json_key(f, "relative_residual", r->run.relative);
    json_key(f, "true_relative_residual", r->verdict.true_relative);
    json_key(f, "seconds", r->median);
    json_key(f, "us_per_iteration",
             r->run.iterations ? r->median / (double)r->run.iterations * 1e6 : 0.0);
    fputs(",\n  \"seconds_each\": [", f);
    for (int i = 0; i < opts->repeat; i++) {
        fputs(i ? ", " : "", f);
        json_number(f, r->times[i]);
    }
    fputs("],\n", f);
    if (opts->floor) {
        fprintf(f, "  \"floor_bytes\": %" PRId64, r->floor_bytes);
        json_key(f, "floor_us_per_iteration", r->floor_s * 1e6);
        fputs(",\n", f);
    }
    fprintf(f, "  \"cpu_checked\": %s,\n", r->verdict.cpu_checked ? "true" : "false");
    if (r->verdict.cpu_checked) {
        fprintf(f, "  \"cpu_iterations\": %" PRId64, r->verdict.cpu_iterations);
        json_key(f, "cpu_relative_residual", r->verdict.cpu_relative);
        json_key(f, "max_difference_from_cpu", r->verdict.max_diff);
        json_key(f, "verify_tolerance", CG_VERIFY_TOL);
        fputs(",\n", f);
    }
    fprintf(f,
            "  \"x_fingerprint\": \"%016" PRIx64 "\",\n  \"history_fingerprint\": \"%016" PRIx64
            "\",\n",
            r->verdict.x_print, r->verdict.history_print);
    fprintf(f, "  \"verified\": %s,\n  \"exit_status\": %d,\n  \"residual_history\": [",
            r->verdict.verified ? "true" : "false", exit_code);
    for (int64_t k = 0; k < r->run.history_len; k++) {
        fputs(k ? (k % 8 ? ", " : ",\n    ") : "\n    ", f);
        json_number(f, r->run.history[k]);
    }
    fputs("\n  ]\n}\n", f);
}

void cg_report_trace(FILE *f, const uint64_t *all, int size, int64_t iteration)
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

int cg_report_save(int rank, const cg_options_t *opts, const sparse_csr_t *a, const cg_solver_t *s,
                   const cg_results_t *r, app_outfile_t *json, app_outfile_t *trace, int exit_code)
{
    if (rank == 0 && json->f)
        cg_report_json(json->f, opts, a, s, r, exit_code);
    return app_outfiles_commit("cg", json, trace, exit_code);
}
