/* jacobi_solve.c - the solves: which launch mode runs (asked for, or chosen
 * by measurement), one timed solve (reset, a barrier, the loop, a barrier, the
 * outcome read back, every rank told of any rank's failure or of a
 * device-side wait that gave up), and the warm-up and repeats. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_solve.h"

#include <signal.h>
#include <string.h>

#include "bounded.h"
#include "jacobi_exchange.h"

/* At least this many warm-up iterations (when -niter allows): module loads,
 * peer mappings, and two chunks of graph launches, the first replay of a graph
 * being its upload. */
#define JACOBI_WARMUP_ITERS 100

/* A planted bug of the on-chip tiles or the temporal passes (JACOBI_TEST_FAULT
 * edge or lag) in a solve that runs otherwise would prove nothing: refused. */
static shardtab_status_t fault_fits(const jacobi_job_t *j)
{
    const jacobi_test_fault_t *f = &j->fault;
    const struct {
        int solve;
        jacobi_launch_t launch;
        const char *whose;
    } solves[] = {{JACOBI_FAULT_IN_RUN, j->launch, "run's"},
                  {JACOBI_FAULT_IN_REFERENCE, j->ref_launch, "reference's"}};

    if (f->kind != JACOBI_TEST_FAULT_EDGE && f->kind != JACOBI_TEST_FAULT_LAG)
        return SHARDTAB_SUCCESS;
    for (size_t i = 0; i < sizeof solves / sizeof solves[0]; i++)
        if ((f->solves & solves[i].solve) && !jacobi_launch_mode(solves[i].launch)->tiled)
            return shardtab_error_set(
                SHARDTAB_ERR_INVALID_ARG,
                "JACOBI_TEST_FAULT kind %s plants a bug in the on-chip tiles or the "
                "temporal passes, and the %s launch is %s",
                f->kind == JACOBI_TEST_FAULT_EDGE ? "edge" : "lag", solves[i].whose,
                jacobi_launch_name(solves[i].launch));
    return SHARDTAB_SUCCESS;
}

/* What an on-chip solve's bookkeeping says of its failure (jacobi_ctl_t.failed,
 * JACOBI_WAIT_*), as this rank's error; SHARDTAB_SUCCESS where it names none
 * (none, or a signal wait's, which the pads record). */
static shardtab_status_t onchip_failure(const jacobi_job_t *j, uint64_t failed)
{
    switch (failed) {
    case JACOBI_WAIT_TILE:
        return shardtab_error_set(
            SHARDTAB_ERR_TIMEOUT,
            "a tile of the on-chip solve gave up waiting for its neighbour "
            "tile or the norm block's decision: one of them is stuck or gone");
    case JACOBI_ONCHIP_NO_START:
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY,
                                  "the on-chip solve could not start its tiles: no memory or no "
                                  "threads for them");
    case JACOBI_WAIT_RANK_ABOVE:
    case JACOBI_WAIT_RANK_BELOW: {
        const int above = failed == JACOBI_WAIT_RANK_ABOVE;
        return shardtab_error_set(
            SHARDTAB_ERR_TIMEOUT,
            "a tile of the on-chip solve gave up waiting for the edge row of rank %d %s it "
            "(limit %.3g s, SHARDTAB_WAIT_TIMEOUT): that rank is late, stuck or gone",
            above ? j->top : j->bottom, above ? "above" : "below", shardtab_wait_timeout(j->table));
    }
    default:
        return SHARDTAB_SUCCESS;
    }
}

/* The launch mode of one solver, chosen over the modes' table
 * (jacobi_plan.h), its plan prepared. The run (reference 0): every rank the
 * same mode, each plan's verdict agreed, its launch note in j->launch_note;
 * rank 0's reference (reference 1): alone on its device. Where a mode's plan
 * is refused (JACOBI_PLAN_NOT_RESIDENT) everywhere, the choice's next mode
 * runs instead (the note says why); where the refusal stands, the run's mode
 * asked for is a usage error, the reference's an error. Collective for the
 * run. */
static shardtab_status_t settle_launch(jacobi_job_t *j, int reference)
{
    jacobi_solver_t *s = reference ? &j->ref : &j->run;
    const jacobi_launch_ask_t ask = {.asked = j->opts.launch,
                                     .reference = reference,
                                     .host_loop = j->host_loop,
                                     .gpu = shardtab_backend() != SHARDTAB_BACKEND_HOST,
                                     .ranks_on_device = j->ranks_on_device,
                                     .nx = s->nx,
                                     .rows = s->rows};
    const int asked_device = jacobi_launch_mode(ask.asked)->device_driven;
    jacobi_launch_t launch = jacobi_launch_choose(&ask);
    shardtab_status_t status = SHARDTAB_SUCCESS;

    if (!reference && j->host_loop && asked_device)
        status = shardtab_error_set(
            SHARDTAB_ERR_INVALID_ARG,
            "--launch %s needs a solve the device drives alone (variant table, every "
            "neighbour on the node); in this run the host takes part in every step (%s): use "
            "--launch auto, graph or stream",
            jacobi_launch_name(ask.asked),
            j->opts.variant != JACOBI_TABLE ? "the variant"
                                            : "a neighbour or the norm goes through MPI");
    for (;;) {
        if (status == SHARDTAB_SUCCESS) {
            char why[160];
            int rc = jacobi_solver_plan(s, launch, j->stream, why, sizeof why);
            status = rc == JACOBI_PLAN_NOT_RESIDENT
                         ? shardtab_error_set(SHARDTAB_ERR_UNSUPPORTED, "rank %d: %s", j->rank, why)
                         : jacobi_kernel_check(rc, "preparing the launches");
        }
        if (!reference)
            status = app_agree(MPI_COMM_WORLD, status, "the agreement on the launches' plan", 0);
        const jacobi_launch_t next = jacobi_launch_instead(&ask, launch);
        if (status != SHARDTAB_ERR_UNSUPPORTED || next == JACOBI_LAUNCH_AUTO)
            break;
        if (!reference)
            jacobi_launch_note_refusal(j->launch_note, sizeof j->launch_note, launch,
                                       shardtab_last_error());
        launch = next;
        status = SHARDTAB_SUCCESS;
    }
    if (!reference && status == SHARDTAB_ERR_UNSUPPORTED && asked_device) {
        status = shardtab_error_set(
            SHARDTAB_ERR_INVALID_ARG,
            "--launch %s cannot run here: %s; use --launch auto, graph or stream",
            jacobi_launch_name(ask.asked), shardtab_last_error());
        status = app_agree(MPI_COMM_WORLD, status, "the agreement on the launch mode", 0);
    }
    if (reference) {
        j->ref_launch = launch;
        return status;
    }
    j->launch = launch;
    if (status == SHARDTAB_SUCCESS)
        jacobi_launch_note(&ask, s->plan, j->launch_note, sizeof j->launch_note);
    return status;
}

shardtab_status_t jacobi_choose_launch(jacobi_job_t *j)
{
    shardtab_status_t status;

    j->launch_note[0] = '\0';
    /* each rank's persistent or on-chip grid takes its share of a shared device */
    j->run.tuning.device_share = j->ranks_on_device > 1 ? j->ranks_on_device : 1;
    status = settle_launch(j, 0);
    if (status != SHARDTAB_SUCCESS)
        return status;
    if (j->rank == 0)
        status = settle_launch(j, 1);
    app_bcast(&j->ref_launch, 1, MPI_INT, 0, MPI_COMM_WORLD,
              "the broadcast of the reference's launch");
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the reference's launch", 0);
    if (status == SHARDTAB_SUCCESS)
        status = app_agree(MPI_COMM_WORLD, fault_fits(j), "the agreement on the planted fault", 0);
    return status;
}

static shardtab_status_t read_outcome(jacobi_solver_t *s, void *stream, int host_norm,
                                      jacobi_outcome_t *out)
{
    jacobi_ctl_t ctl;
    shardtab_status_t status = shardtab_memcpy_async(&ctl, s->ctl, sizeof ctl, stream);

    if (status == SHARDTAB_SUCCESS && !host_norm)
        status = shardtab_memcpy_async(out->history, s->history,
                                       (size_t)s->history_len * sizeof(double), stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    if (status != SHARDTAB_SUCCESS)
        return status;
    out->iterations = ctl.iteration - ctl.base;
    if (!host_norm) {
        out->norm_decided = ctl.norm_iter != JACOBI_NO_NORM;
        out->norm = out->norm_decided ? ctl.norm : 0.0;
        out->norm_iter = out->norm_decided ? ctl.norm_iter - ctl.base : 0;
    }
    return SHARDTAB_SUCCESS;
}

shardtab_status_t jacobi_solve(jacobi_job_t *j, jacobi_solver_t *s, jacobi_plan_t *plan,
                               int distributed, int iterations, jacobi_outcome_t *out)
{
    shardtab_status_t status = jacobi_solver_reset(s, j->stream);
    const int host_loop = distributed && j->host_loop;
    uint64_t base = 0;
    double start;

    memset(out->history, 0, (size_t)out->history_len * sizeof(double));
    out->norm_decided = 0;
    out->norm = 0.0;
    out->norm_iter = 0;
    if (status == SHARDTAB_SUCCESS) {
        jacobi_ctl_t ctl;
        status = jacobi_solver_read_ctl(s, j->stream, &ctl);
        base = ctl.base;
    }
    if (distributed) {
        /* nobody starts before every rank has reset the ghost rows others write */
        status = app_agree(MPI_COMM_WORLD, status, "the agreement before a distributed solve", 0);
        if (status != SHARDTAB_SUCCESS)
            return status;
        app_barrier(MPI_COMM_WORLD, "the barrier before a distributed solve", 0);
    } else if (status != SHARDTAB_SUCCESS) {
        return status;
    }

    start = MPI_Wtime();
    if (distributed && j->stall_for_test) {
        j->stall_for_test = 0;
        raise(SIGSTOP); /* the test's stopped rank: its peers must end the job */
    }
    if (!host_loop) {
        /* the device's way: enqueue, the device decides when to stop */
        status = jacobi_kernel_check(jacobi_plan_run(plan, iterations), "the Jacobi kernel");
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
    } else {
        jacobi_host_loop_t loop;
        jacobi_host_loop_init(&loop, base);
        for (int it = 0; it < iterations && !loop.stop && !loop.failed; it++) {
            if (status == SHARDTAB_SUCCESS)
                status = jacobi_kernel_check(jacobi_plan_run(plan, 1), "the Jacobi kernel");
            status = jacobi_host_step(j, &loop, base + (uint64_t)it, out, status);
        }
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
    }
    /* an on-chip tile's wait that gave up (its neighbour tile, the decision,
     * or the neighbouring rank's edge row): no pad slot records it, the
     * solver's bookkeeping does, and says which */
    if (status == SHARDTAB_SUCCESS && jacobi_plan_tiles(plan) > 0) {
        jacobi_ctl_t ctl;
        status = jacobi_solver_read_ctl(s, j->stream, &ctl);
        if (status == SHARDTAB_SUCCESS)
            status = onchip_failure(j, ctl.failed);
    }
    /* a device wait that gave up: this rank's record of it */
    if (distributed && status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(j->table);
    if (distributed) {
        /* A rank stopped mid-solve leaves its peers' device waits to run out;
         * then no rank may wait for it forever: past the limit, a rank still
         * waiting says so and ends the job. */
        status = shardtab_agree_within(MPI_COMM_WORLD, status, j->agree_limit_s);
        if (status == SHARDTAB_SUCCESS)
            app_barrier(MPI_COMM_WORLD, "the barrier after a distributed solve", 0);
    }
    out->seconds = MPI_Wtime() - start;
    if (status == SHARDTAB_SUCCESS)
        status = read_outcome(s, j->stream, host_loop && j->host_norm, out);
    return distributed ? app_agree(MPI_COMM_WORLD, status,
                                   "the agreement after reading a distributed solve", 0)
                       : status;
}

shardtab_status_t jacobi_timed_solves(jacobi_job_t *j, jacobi_solver_t *s, int distributed,
                                      jacobi_outcome_t *out, double *times)
{
    int warm = j->opts.niter < JACOBI_WARMUP_ITERS ? j->opts.niter : JACOBI_WARMUP_ITERS;
    shardtab_status_t status = jacobi_solve(j, s, s->plan, distributed, warm, out);

    for (int i = 0; i < j->opts.repeat && status == SHARDTAB_SUCCESS; i++) {
        status = jacobi_solve(j, s, s->plan, distributed, j->opts.niter, out);
        times[i] = out->seconds;
        if (distributed)
            app_allreduce(&out->seconds, &times[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD,
                          "the slowest rank's time");
    }
    return status;
}

double jacobi_median(double *v, int n)
{
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
            double t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
