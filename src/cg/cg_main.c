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
 * The rooms: cg_options.c (the command line), cg_setup.c (the options, the
 * matrix and the files agreed), cg_solver.c (device memory, tables, one
 * solve), cg_verify.c (the checks), cg_report.c (the output), this file (the
 * flow); the kernels are kernels/cg (the solve) over kernels/sparse (the
 * product).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bounded.h"
#include "cg_options.h"
#include "cg_report.h"
#include "cg_setup.h"
#include "cg_solver.h"
#include "cg_verify.h"
#include "cli.h"
#include "job.h"
#include "shardtab.h"

static int leave(int rank, shardtab_status_t status, sparse_csr_t *a, app_outfile_t *json,
                 app_outfile_t *trace)
{
    app_say_error("cg", rank, shardtab_last_error());
    app_outfile_discard(json);
    app_outfile_discard(trace);
    sparse_csr_free(a);
    shardtab_finalize();
    return app_job_end(app_exit_status(status == SHARDTAB_ERR_INVALID_ARG));
}

int main(int argc, char **argv)
{
    cg_options_t opts;
    shardtab_init_params_t init = {0};
    shardtab_status_t status;
    app_outfile_t json = {0}, trace = {0};
    sparse_csr_t a = {0};
    cg_solver_t s;
    cg_stall_t stall;
    cg_results_t r = {0};
    cg_outcome_t traced = {0};
    uint64_t *traces = NULL;
    double *x = NULL;
    int rank, size, exit_code = 0;

    app_job_start(&argc, &argv, "cg", &rank, &size);
    memset(&s, 0, sizeof s);
    exit_code = cg_setup_options(rank, argc, argv, &opts);
    if (exit_code >= 0)
        return app_job_end(exit_code);
    exit_code = 0;

    /* ---- the matrix, on every rank; the result files, on rank 0; the test hook ---- */
    status = cg_setup_inputs(rank, size, &opts, &a, &json, &trace, &stall);
    if (status != SHARDTAB_SUCCESS)
        return leave(rank, status, &a, &json, &trace);

    /* ---- device, memory, tables, launch mode ---- */
    init.allow_shared_device = opts.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &init);
    if (status != SHARDTAB_SUCCESS)
        return leave(rank, status, &a, &json, &trace);
    const int on_device = cg_setup_ranks_on_device();
    status = cg_solver_create(&s, &opts, &a, on_device, MPI_COMM_WORLD);
    s.stall_for_test = stall.rank == rank;
    s.stall_iteration = stall.iteration;
    if (status == SHARDTAB_SUCCESS && stall.iteration >= 0 && s.launch != CG_LAUNCH_STREAM)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                    "CG_TEST_STALL='%s' stops a rank as it enqueues iteration %ld, "
                                    "which only stream launches do (this run's launch is %s)",
                                    stall.text, stall.iteration, cg_launch_name(s.launch));
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the launch", 0);
    if (status != SHARDTAB_SUCCESS) {
        (void)cg_solver_destroy(&s);
        return leave(rank, status, &a, &json, &trace);
    }
    if (rank == 0)
        cg_report_header(size, &opts, &a, &s);

    /* ---- the timed solves ---- */
    r.times = calloc((size_t)opts.repeat, sizeof(double));
    if (r.times == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory", rank);
    for (int i = 0; i < opts.repeat && status == SHARDTAB_SUCCESS; i++) {
        status = cg_solver_run(&s, &opts, UINT64_MAX, &r.run);
        if (status == SHARDTAB_SUCCESS)
            r.times[i] = r.run.seconds;
    }
    if (status == SHARDTAB_SUCCESS)
        status = cg_verify_outcome(&r.run);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after the solves", 0);

    /* ---- the check; the memory's floor ---- */
    if (status == SHARDTAB_SUCCESS)
        status = cg_verify_gather_x(&s, a.nrows, &x);
    if (status == SHARDTAB_SUCCESS && rank == 0)
        status = cg_verify_check(&opts, &a, x, &r.run, &r.verdict);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after the check", 0);
    free(x);
    if (status == SHARDTAB_SUCCESS && opts.floor)
        status = cg_report_floor(&opts, &s, &r.floor_s, &r.floor_bytes);

    /* ---- one more solve with the device's clock read at one iteration's phases ---- */
    if (status == SHARDTAB_SUCCESS && opts.trace) {
        const uint64_t at = (uint64_t)(r.run.iterations / 2);
        status = cg_solver_run(&s, &opts, at, &traced);
        traces = calloc((size_t)size * CG_TRACE_POINTS, sizeof *traces);
        if (status == SHARDTAB_SUCCESS && traces)
            app_gather(traced.trace, CG_TRACE_POINTS, MPI_UINT64_T, traces, CG_TRACE_POINTS,
                       MPI_UINT64_T, 0, MPI_COMM_WORLD, "the gather of the traces");
        if (status == SHARDTAB_SUCCESS && rank == 0 && traces)
            cg_report_trace(trace.f, traces, size, (int64_t)at);
    }

    /* ---- teardown before the verdict: a leaked mapping fails the run too ---- */
    {
        shardtab_status_t released =
            app_agree(MPI_COMM_WORLD, cg_solver_destroy(&s), "the agreement after the teardown", 0);
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    if (status == SHARDTAB_SUCCESS) {
        int verified = r.verdict.verified;
        r.median = cg_report_median(r.times, opts.repeat);
        app_bcast(&verified, 1, MPI_INT, 0, MPI_COMM_WORLD, "the broadcast of the verdict");
        exit_code = verified ? 0 : 1;
        if (rank == 0)
            cg_report_results(&opts, &r);
        exit_code = cg_report_save(rank, &opts, &a, &s, &r, &json, &trace, exit_code);
    } else {
        app_say_error("cg", rank, shardtab_last_error());
        exit_code = app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    }
    app_outfile_discard(&json);
    app_outfile_discard(&trace);
    free(r.times);
    free(traces);
    free(r.run.history);
    free(traced.history);
    sparse_csr_free(&a);
    shardtab_finalize();
    return app_job_end(exit_code);
}
