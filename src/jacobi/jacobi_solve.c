/* jacobi_solve.c - the solves: which launch mode runs (asked for, or chosen
 * by measurement), one timed solve (reset, a barrier, the loop, a barrier, the
 * outcome read back, every rank told of any rank's failure or of a
 * device-side wait that gave up), and the warm-up and repeats. */
#include "jacobi_solve.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "jacobi_exchange.h"

/* At least this many warm-up iterations (when -niter allows): module loads,
 * peer mappings, and two chunks of graph launches, the first replay of a graph
 * being its upload. */
#define JACOBI_WARMUP_ITERS 100

/* The launch the measurements favour (docs/performance.md, jacobi, "Issue
 * 22's table" and "Temporal passes"; one H200, no AMD GPU measured): on a GPU,
 * temporal passes where a rank holds 8 Mi points or more (below that a pass's
 * tiles do not keep the device busy enough to beat persistent's one pass an
 * iteration), else on chip where it holds 2 Mi points or more and they fit
 * (the caller falls back to persistent where either is refused): below that
 * the on-chip tiles' waits cost more than persistent's barrier; persistent on
 * the host backend, whose threads gain nothing from either; graph where ranks
 * share the device, where each rank's grid fills the whole GPU and the ranks'
 * kernels can only take turns (without MPS). */
#define JACOBI_ONCHIP_AUTO_POINTS (2u << 20)
#define JACOBI_TEMPORAL_AUTO_POINTS (8u << 20)

static jacobi_launch_t auto_launch(const jacobi_job_t *j, int alone)
{
    const jacobi_solver_t *s = alone ? &j->ref : &j->run;

    if (!alone && j->ranks_on_device > 1)
        return JACOBI_LAUNCH_GRAPH;
    /* one H200, 2026-12-02 (run 11, docs/performance.md): temporal passes 0.47x
     * persistent's time at 16384^2, 0.55x at 8192^2, 0.70x at 4096^2, 0.78x at
     * 3072^2; 1.06x at 2560^2, 1.33x at 2048^2 */
    if (shardtab_backend() != SHARDTAB_BACKEND_HOST &&
        (uint64_t)s->nx * (uint64_t)s->rows >= JACOBI_TEMPORAL_AUTO_POINTS)
        return JACOBI_LAUNCH_TEMPORAL;
    /* one H200, 2026-12-01: on chip 0.83x persistent's time at 2048 x 2046 points a
     * rank, 0.95x at 2048 x 1024; 1.02x at 1024 x 1022, 1.23x at 1024 x 512 */
    if (shardtab_backend() != SHARDTAB_BACKEND_HOST &&
        (uint64_t)s->nx * (uint64_t)s->rows >= JACOBI_ONCHIP_AUTO_POINTS)
        return JACOBI_LAUNCH_ONCHIP;
    return JACOBI_LAUNCH_PERSISTENT;
}

static jacobi_launch_t asked_launch(jacobi_launch_request_t request)
{
    switch (request) {
    case JACOBI_LAUNCH_ASK_GRAPH:
        return JACOBI_LAUNCH_GRAPH;
    case JACOBI_LAUNCH_ASK_STREAM:
        return JACOBI_LAUNCH_STREAM;
    case JACOBI_LAUNCH_ASK_ONCHIP:
        return JACOBI_LAUNCH_ONCHIP;
    case JACOBI_LAUNCH_ASK_TEMPORAL:
        return JACOBI_LAUNCH_TEMPORAL;
    default:
        return JACOBI_LAUNCH_PERSISTENT;
    }
}

/* A planted bug of the on-chip tiles or the temporal passes (JACOBI_TEST_FAULT
 * edge or lag) in a solve that runs otherwise would prove nothing: refused. */
static shardtab_status_t fault_fits(const jacobi_job_t *j)
{
    const jacobi_test_fault_t *f = &j->fault;
    const char *kind = f->kind == JACOBI_TEST_FAULT_EDGE ? "edge" : "lag";

    if (f->kind != JACOBI_TEST_FAULT_EDGE && f->kind != JACOBI_TEST_FAULT_LAG)
        return SHARDTAB_SUCCESS;
    if ((f->solves & JACOBI_FAULT_IN_RUN) && j->launch != JACOBI_LAUNCH_ONCHIP &&
        j->launch != JACOBI_LAUNCH_TEMPORAL)
        return shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                  "JACOBI_TEST_FAULT kind %s plants a bug in the on-chip tiles or the "
                                  "temporal passes, and the run's launch is %s",
                                  kind, jacobi_launch_name(j->launch));
    if ((f->solves & JACOBI_FAULT_IN_REFERENCE) && j->ref_launch != JACOBI_LAUNCH_ONCHIP &&
        j->ref_launch != JACOBI_LAUNCH_TEMPORAL)
        return shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                  "JACOBI_TEST_FAULT kind %s plants a bug in the on-chip tiles or the "
                                  "temporal passes, and the reference's launch is %s",
                                  kind, jacobi_launch_name(j->ref_launch));
    return SHARDTAB_SUCCESS;
}

/* A plan for solver s in `want`; a persistent grid that cannot be co-resident
 * becomes SHARDTAB_ERR_UNSUPPORTED with the reason. */
static shardtab_status_t plan_for(jacobi_job_t *j, jacobi_solver_t *s, jacobi_launch_t want)
{
    char why[160];
    int rc = jacobi_solver_plan(s, want, j->stream, why, sizeof why);

    if (rc == JACOBI_PLAN_NOT_RESIDENT)
        return shardtab_error_set(SHARDTAB_ERR_UNSUPPORTED, "rank %d: %s", j->rank, why);
    return jacobi_kernel_check(rc, "preparing the launches");
}

shardtab_status_t jacobi_choose_launch(jacobi_job_t *j)
{
    const jacobi_launch_request_t request = j->opts.launch;
    const int asked_device_mode = request == JACOBI_LAUNCH_ASK_PERSISTENT ||
                                  request == JACOBI_LAUNCH_ASK_ONCHIP || request == JACOBI_LAUNCH_ASK_TEMPORAL;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    j->launch_note[0] = '\0';
    /* each rank's persistent or on-chip grid takes its share of a shared device */
    j->run.tuning.device_share = j->ranks_on_device > 1 ? j->ranks_on_device : 1;
    /* ---- the run: every rank the same mode ---- */
    if (j->host_loop) {
        if (asked_device_mode)
            status = shardtab_error_set(
                SHARDTAB_ERR_INVALID_ARG,
                "--launch %s needs a solve the device drives alone (variant table, every "
                "neighbour on the node); in this run the host takes part in every step (%s): use "
                "--launch auto, graph or stream",
                jacobi_launch_request_name(request),
                j->opts.variant != JACOBI_TABLE ? "the variant" : "a neighbour or the norm goes through MPI");
        else if (request == JACOBI_LAUNCH_ASK_GRAPH)
            snprintf(j->launch_note, sizeof j->launch_note,
                     "the host takes part in every step: one launch per step, no graphs");
        j->launch = JACOBI_LAUNCH_STREAM;
        if (status == SHARDTAB_SUCCESS)
            status = plan_for(j, &j->run, JACOBI_LAUNCH_STREAM);
        status = shardtab_agree(MPI_COMM_WORLD, status);
    } else {
        j->launch = request == JACOBI_LAUNCH_AUTO ? auto_launch(j, 0) : asked_launch(request);
        status = shardtab_agree(MPI_COMM_WORLD, plan_for(j, &j->run, j->launch));
        if (status == SHARDTAB_ERR_UNSUPPORTED && asked_device_mode) {
            status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                        "--launch %s cannot run here: %s; use --launch "
                                        "auto, graph or stream",
                                        jacobi_launch_request_name(request), shardtab_last_error());
            status = shardtab_agree(MPI_COMM_WORLD, status);
        }
        if (status == SHARDTAB_ERR_UNSUPPORTED &&
            (j->launch == JACOBI_LAUNCH_ONCHIP || j->launch == JACOBI_LAUNCH_TEMPORAL)) {
            snprintf(j->launch_note, sizeof j->launch_note, "%s (%s): persistent instead",
                     j->launch == JACOBI_LAUNCH_ONCHIP ? "not on chip" : "no temporal passes",
                     shardtab_last_error());
            j->launch = JACOBI_LAUNCH_PERSISTENT;
            status = shardtab_agree(MPI_COMM_WORLD, plan_for(j, &j->run, j->launch));
        }
        if (status == SHARDTAB_ERR_UNSUPPORTED) {
            char note[2 * sizeof j->launch_note + 160];
            snprintf(note, sizeof note, "%s%spersistent launches cannot run here (%s): graph launches instead",
                     j->launch_note, j->launch_note[0] ? "; " : "", shardtab_last_error());
            note[sizeof j->launch_note - 1] = '\0';
            memcpy(j->launch_note, note, sizeof j->launch_note);
            j->launch = JACOBI_LAUNCH_GRAPH;
            status = shardtab_agree(MPI_COMM_WORLD, plan_for(j, &j->run, j->launch));
        }
        if (status == SHARDTAB_SUCCESS && request == JACOBI_LAUNCH_AUTO && j->ranks_on_device > 1)
            snprintf(j->launch_note, sizeof j->launch_note,
                     "%d ranks share this device: graph launches (persistent grids could only "
                     "take turns)",
                     j->ranks_on_device);
        else if (status == SHARDTAB_SUCCESS && request == JACOBI_LAUNCH_AUTO && !j->launch_note[0] &&
                 j->launch == JACOBI_LAUNCH_ONCHIP)
            snprintf(j->launch_note, sizeof j->launch_note,
                     "auto: %d x %d points a rank fit on chip, %d tiles of at most %d rows", j->run.nx,
                     j->run.rows, jacobi_plan_tiles(j->run.plan), jacobi_plan_tile_rows(j->run.plan));
        else if (status == SHARDTAB_SUCCESS && j->launch == JACOBI_LAUNCH_TEMPORAL && !j->launch_note[0]) {
            int cols = 0, rows = 0, tiles = jacobi_plan_temporal_cut(j->run.plan, &cols, &rows);
            snprintf(j->launch_note, sizeof j->launch_note,
                     "temporal: passes of up to %d iterations, %d tiles of %d x %d points a rank (%s)",
                     j->run.tuning.temporal_depth, tiles, cols, rows,
                     shardtab_backend() == SHARDTAB_BACKEND_HOST ? "the host backend's tiles"
                     : j->run.tuning.temporal_rows             ? "JACOBI_TEMPORAL_ROWS"
                                                               : "rows: the plan's");
        } else if (status == SHARDTAB_SUCCESS && request == JACOBI_LAUNCH_AUTO && !j->launch_note[0] &&
                   shardtab_backend() != SHARDTAB_BACKEND_HOST)
            snprintf(j->launch_note, sizeof j->launch_note,
                     "auto: %d x %d points a rank: below 2 Mi points persistent beats on chip",
                     j->run.nx, j->run.rows);
    }
    if (status != SHARDTAB_SUCCESS)
        return status;

    /* ---- rank 0's reference, alone on its device: the mode asked for, or the best ---- */
    if (j->rank == 0) {
        j->ref_launch = request == JACOBI_LAUNCH_AUTO ? auto_launch(j, 1) : asked_launch(request);
        status = plan_for(j, &j->ref, j->ref_launch);
        if (status == SHARDTAB_ERR_UNSUPPORTED &&
            (j->ref_launch == JACOBI_LAUNCH_ONCHIP || j->ref_launch == JACOBI_LAUNCH_TEMPORAL)) {
            /* the whole grid alone need not fit on chip, nor suit temporal passes */
            j->ref_launch = JACOBI_LAUNCH_PERSISTENT;
            status = plan_for(j, &j->ref, j->ref_launch);
        }
        if (status == SHARDTAB_ERR_UNSUPPORTED && request != JACOBI_LAUNCH_ASK_PERSISTENT) {
            j->ref_launch = JACOBI_LAUNCH_GRAPH;
            status = plan_for(j, &j->ref, j->ref_launch);
        }
    }
    MPI_Bcast(&j->ref_launch, 1, MPI_INT, 0, MPI_COMM_WORLD);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(MPI_COMM_WORLD, fault_fits(j));
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
        status = shardtab_agree(MPI_COMM_WORLD, status);
        if (status != SHARDTAB_SUCCESS)
            return status;
        MPI_Barrier(MPI_COMM_WORLD);
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
    /* an on-chip tile's wait that gave up (its neighbour tile, or the decision):
     * no pad slot records it, the solver's bookkeeping does */
    if (status == SHARDTAB_SUCCESS && jacobi_plan_tiles(plan) > 0) {
        jacobi_ctl_t ctl;
        status = jacobi_solver_read_ctl(s, j->stream, &ctl);
        if (status == SHARDTAB_SUCCESS && ctl.failed == 2)
            status = shardtab_error_set(SHARDTAB_ERR_TIMEOUT,
                                        "rank %d: a tile of the on-chip solve gave up waiting for its "
                                        "neighbour tile or the norm block's decision: one of them is "
                                        "stuck or gone",
                                        j->rank);
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
            MPI_Barrier(MPI_COMM_WORLD);
    }
    out->seconds = MPI_Wtime() - start;
    if (status == SHARDTAB_SUCCESS)
        status = read_outcome(s, j->stream, host_loop && j->host_norm, out);
    return distributed ? shardtab_agree(MPI_COMM_WORLD, status) : status;
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
            MPI_Allreduce(&out->seconds, &times[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
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
