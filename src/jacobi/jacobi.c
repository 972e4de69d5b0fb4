/* jacobi.c - the jacobi program's main: a 2D Jacobi solve whose rows are split
 * over the ranks, with ghost rows stored straight into the neighbours' arrays
 * through one table per node and ordered by device-side signals.
 *
 * PURPOSE  Show that the table serves an iterative multi-GPU code (a stencil
 *          with ghost rows and a reduction every iteration) with no host in
 *          the loop, on the classic problem of NVIDIA's multi-gpu-programming-
 *          models, and measure it beside their NCCL and NVSHMEM versions.
 * USAGE    mpirun -np <ranks> ./jacobi [-nx N] [-ny N] [-niter N] [-nccheck N]
 *                 [--variant table|host-sync|mpi] [--launch auto|persistent|onchip|temporal|graph|stream]
 *                 [--init zero|random[:SEED]] [--cpu-check auto|yes|no] [--repeat R]
 *                 [--json FILE] [--trace FILE] [--allow-shared-gpu]
 * NOTES    The problem, as the anchors define it: Dirichlet boundaries
 *          sin(2 pi y / (ny - 1)) on the left and right columns, periodic rows
 *          (the first interior row's neighbour above is the last interior row),
 *          zero start (or --init random), single precision, stop one iteration
 *          after the L2 norm falls to 1e-8 or after -niter iterations. Rank 0
 *          also solves the whole grid alone, timed (the 1-GPU reference, the
 *          speedup's baseline), while the others wait. Every result is then
 *          checked against an independent plain reference, and that against a
 *          CPU loop where the work is small enough. Each ghost row has a halo
 *          buffer in coherent memory (the table's shards); the rows themselves
 *          stay in ordinary device memory.
 *
 * The rooms: jacobi_setup.c (the start agreed, the set-up and teardown),
 * jacobi_problem.c (the starting state), jacobi_solver.c (buffers,
 * wiring), jacobi_exchange.c (the host's part of a step), jacobi_solve.c (the
 * launch mode, one timed solve), jacobi_trace.c (where the time goes),
 * jacobi_verify.c (the checks), jacobi_report.c (output); the kernels are
 * kernels/jacobi_sweep.* (optimised) and kernels/jacobi_plain.* (the plain
 * reference).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bounded.h"
#include "cli.h"
#include "jacobi_job.h"
#include "jacobi_op.h"
#include "jacobi_report.h"
#include "jacobi_setup.h"
#include "jacobi_solve.h"
#include "jacobi_trace.h"
#include "jacobi_verify.h"
#include "job.h"
#include "shardtab.h"

/* rank 0's reference time (rank 0 alone), and the job's */
static void take_medians(const jacobi_job_t *j, jacobi_timings_t *t)
{
    double *sorted = malloc(2 * (size_t)j->opts.repeat * sizeof *sorted);

    if (sorted) {
        memcpy(sorted, t->ref, (size_t)j->opts.repeat * sizeof *sorted);
        memcpy(sorted + j->opts.repeat, t->run, (size_t)j->opts.repeat * sizeof *sorted);
        t->ref_median = jacobi_median(sorted, j->opts.repeat);
        t->run_median = jacobi_median(sorted + j->opts.repeat, j->opts.repeat);
        free(sorted);
    }
    app_bcast(&t->ref_median, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, "the broadcast of the medians");
}

static int outcome_alloc(jacobi_outcome_t *o, const jacobi_options_t *opts)
{
    memset(o, 0, sizeof *o);
    o->history_len = jacobi_history_len(opts->niter, opts->nccheck);
    o->history = calloc((size_t)o->history_len, sizeof(double));
    return o->history != NULL;
}

/* A failure before the device: one message from rank 0, the files left as they were. */
static int leave_early(const jacobi_job_t *j, shardtab_status_t status, app_outfile_t *json,
                       app_outfile_t *trace)
{
    app_say_error("jacobi", j->rank, shardtab_last_error());
    app_outfile_discard(json);
    app_outfile_discard(trace);
    return app_job_end(app_exit_status(status == SHARDTAB_ERR_INVALID_ARG));
}

int main(int argc, char **argv)
{
    shardtab_init_params_t init = {0};
    shardtab_status_t status = SHARDTAB_SUCCESS;
    jacobi_job_t j;
    jacobi_rank_line_t *lines = NULL;
    jacobi_outcome_t ref, run, plain, traced;
    jacobi_timings_t times = {0};
    jacobi_verdict_t verdict;
    app_outfile_t json = {0}, trace = {0};
    int exit_code = 0;
    MPI_Comm node;

    memset(&j, 0, sizeof j);
    jacobi_verdict_init(&verdict);
    app_job_start(&argc, &argv, "jacobi", &j.rank, &j.size);

    /* ---- options and tuning variables: every rank parses, all agree, rank 0 speaks ---- */
    exit_code = jacobi_setup_options(&j, argc, argv);
    if (exit_code >= 0)
        return app_job_end(exit_code);
    exit_code = 0;
    /* ---- before the device: test hooks, rows, host memory, result files ---- */
    status = jacobi_setup_inputs(&j, &node, &json, &trace);
    if (status != SHARDTAB_SUCCESS) {
        MPI_Comm_free(&node);
        return leave_early(&j, status, &json, &trace);
    }
    j.top = jacobi_top(j.size, j.rank);
    j.bottom = jacobi_bottom(j.size, j.rank);

    /* ---- device, stream, buffers, table, launch mode ---- */
    init.allow_shared_device = j.opts.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &init);
    if (status != SHARDTAB_SUCCESS) {
        MPI_Comm_free(&node);
        return leave_early(&j, status, &json, &trace);
    }
    j.ranks_on_device = jacobi_setup_ranks_on_device(node);
    MPI_Comm_free(&node);
    times.ref = calloc((size_t)j.opts.repeat, sizeof *times.ref);
    times.run = calloc((size_t)j.opts.repeat, sizeof *times.run);
    if (!outcome_alloc(&ref, &j.opts) + !outcome_alloc(&run, &j.opts) +
            !outcome_alloc(&plain, &j.opts) + !outcome_alloc(&traced, &j.opts) ||
        !times.ref || !times.run)
        status = jacobi_no_memory("timings and norms", (size_t)j.opts.niter * sizeof(double));
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_setup_device(&j);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after the set-up", 0);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_choose_launch(&j);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_print_header(&j, &lines);

    /* ---- the 1-GPU reference: rank 0 alone, the others waiting quietly ---- */
    if (status == SHARDTAB_SUCCESS) {
        shardtab_status_t mine = SHARDTAB_SUCCESS;
        if (j.rank == 0)
            mine = jacobi_timed_solves(&j, &j.ref, 0, &ref, times.ref);
        /* the others wait for rank 0's work too; rank 0, whose work is done,
         * for them only as long as any step */
        status = app_agree(MPI_COMM_WORLD, mine, "the agreement after rank 0's reference",
                           j.rank == 0 ? 0.0 : jacobi_alone_work_s(&j.opts, j.opts.repeat + 1));
    }
    /* ---- the distributed solve, timed ---- */
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_timed_solves(&j, &j.run, 1, &run, times.run);
    /* ---- every result against the plain reference (the timed solve's rows) ---- */
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_verify_references(&j, &ref, &plain, &verdict);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_verify_run(&j, &run, &plain, &verdict);
    /* ---- then, if asked, one more solve with device timestamps ---- */
    if (status == SHARDTAB_SUCCESS && j.opts.trace)
        status = jacobi_trace_run(&j, &traced, trace.f ? &trace : NULL);
    if (status == SHARDTAB_SUCCESS)
        take_medians(&j, &times);

    /* ---- teardown before the verdict: a leaked mapping is a failed run too,
     * and a run that fails there never prints "OK" first ---- */
    {
        shardtab_status_t released = app_agree(MPI_COMM_WORLD, jacobi_setup_release(&j),
                                               "the agreement after the teardown", 0);
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    if (status == SHARDTAB_SUCCESS) {
        jacobi_print_norms(&j, &ref, &run);
        jacobi_print_summary(&j, &ref, &run, &times);
        jacobi_print_verdict(&j, &run, &verdict); /* the last line */
    }
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("jacobi", j.rank, shardtab_last_error());
        exit_code = app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    } else if (!verdict.verified) {
        exit_code = 1;
    }
    /* The JSON and the trace: a run that got as far as its verdict writes
     * them, a failed verification included (the file is the record of it,
     * "verified": false); a run that failed before writes nothing and leaves
     * an existing file as it was. A file that cannot be written fails the run
     * (exit 1) after its verdict, the same for both. Rank 0 writes; every rank
     * exits with the same status. */
    if (status == SHARDTAB_SUCCESS) {
        if (json.f)
            jacobi_write_json(&j, &json, lines, &ref, &run, &plain, &times, &verdict, exit_code);
        exit_code = app_outfiles_commit("jacobi", &json, &trace, exit_code);
    }
    app_outfile_discard(&json);
    app_outfile_discard(&trace); /* committed above; else nothing is written */
    shardtab_finalize();
    free(lines);
    free(times.ref);
    free(times.run);
    free(ref.history);
    free(run.history);
    free(plain.history);
    free(traced.history);
    return app_job_end(exit_code);
}
