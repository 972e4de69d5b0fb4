/* jacobi_trace.c - the traced solve (--trace FILE): a plan of the run's step
 * with a trace buffer, one solve, the timestamps turned into phases of each
 * iteration (nanoseconds), gathered to rank 0, written as CSV with one row per
 * rank and iteration, and their medians printed:
 *   iteration  from the first tile's start to the next iteration's
 *   sweep      from the first tile's start to the last tile swept (waits included)
 *   wait       the longest a boundary tile waited for a neighbour's signal
 *   signal     the longest a strip took to tell its neighbour (fence, count, store)
 *   norm       the time the norm took: sums, deposits, waits, decision
 *   norm_wait  ... of which waiting for the node peers' norms
 *   join       from the last tile's arrival to the iteration's close (a grid
 *              barrier, or the last block's ticket and norm)
 *   gap        from the close to the next iteration's first start (a launch)
 * --launch temporal records a pass where an iteration is recorded, in the
 * record of its first iteration (norm: its whole close, every iteration of
 * the pass, the waits for the peers' norms included, and norm_wait is not
 * recorded apart; passes run again after a stop are not recorded): the rows
 * are its passes, and a record no pass wrote is left out. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bounded.h"
#include "jacobi_solve.h"

#define JACOBI_TRACE_MAX_ITERS 10000
enum { PH_ITERATION, PH_SWEEP, PH_WAIT, PH_SIGNAL, PH_NORM, PH_NORM_WAIT, PH_JOIN, PH_GAP, PHASES };
static const char *const phase_names[PHASES] = {"iteration", "sweep",     "wait", "signal",
                                                "norm",      "norm_wait", "join", "gap"};

/* Was record i written (by an iteration, or a temporal pass)? */
static int recorded(const uint64_t *raw, int i)
{
    return raw[(size_t)i * JACOBI_TRACE_EVENTS + JACOBI_TRACE_BEGIN] != UINT64_MAX;
}

/* Phases of record i, the next written record `next` (-1: none), from the raw
 * records (ticks), in nanoseconds. */
static void phases_of(const uint64_t *raw, int i, int next_i, double ns_per_tick, int64_t *ph)
{
    const uint64_t *r = raw + (size_t)i * JACOBI_TRACE_EVENTS;
    const uint64_t *next = next_i >= 0 ? raw + (size_t)next_i * JACOBI_TRACE_EVENTS : NULL;
    int64_t begin = (int64_t)r[JACOBI_TRACE_BEGIN], end = (int64_t)r[JACOBI_TRACE_END];

    ph[PH_ITERATION] = (next ? (int64_t)next[JACOBI_TRACE_BEGIN] : end) - begin;
    ph[PH_SWEEP] = (int64_t)r[JACOBI_TRACE_SWEPT] - begin;
    ph[PH_WAIT] = (int64_t)r[JACOBI_TRACE_WAIT];
    ph[PH_SIGNAL] = (int64_t)r[JACOBI_TRACE_SIGNAL];
    ph[PH_NORM] = (int64_t)r[JACOBI_TRACE_NORM];
    ph[PH_NORM_WAIT] = (int64_t)r[JACOBI_TRACE_NORM_WAIT];
    ph[PH_JOIN] = end - (int64_t)r[JACOBI_TRACE_ARRIVED];
    ph[PH_GAP] = next ? (int64_t)next[JACOBI_TRACE_BEGIN] - end : 0;
    for (int p = 0; p < PHASES; p++)
        ph[p] = (int64_t)((double)ph[p] * ns_per_tick);
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Rank 0: the CSV (row i: iteration at[i], the same on every rank), and the
 * medians of every rank. */
static shardtab_status_t report(const jacobi_job_t *j, const int64_t *all, const int *at, int count,
                                app_outfile_t *csv)
{
    int64_t *column = malloc((size_t)(count > 0 ? count : 1) * sizeof *column);

    if (column == NULL)
        return jacobi_no_memory("the trace's medians", (size_t)count * sizeof *column);
    fprintf(csv->f, "rank,iteration");
    for (int p = 0; p < PHASES; p++)
        fprintf(csv->f, ",%s_ns", phase_names[p]);
    fputc('\n', csv->f);
    printf("# trace: %s launches, %d %s traced (one more solve after the timed ones), "
           "medians in microseconds; phases in %s\n",
           jacobi_launch_name(j->launch), count,
           j->launch == JACOBI_LAUNCH_TEMPORAL
               ? "passes (rows: a pass, of up to JACOBI_TEMPORAL_DEPTH iterations)"
               : "iterations",
           j->opts.trace);
    printf("#  rank  iteration      sweep       wait     signal       norm  norm_wait       join"
           "        gap\n");
    for (int r = 0; r < j->size; r++) {
        const int64_t *mine = all + (size_t)r * count * PHASES;
        for (int i = 0; i < count; i++) {
            fprintf(csv->f, "%d,%d", r, at[i]);
            for (int p = 0; p < PHASES; p++)
                fprintf(csv->f, ",%" PRId64, mine[(size_t)i * PHASES + p]);
            fputc('\n', csv->f);
        }
        printf("# %5d", r);
        for (int p = 0; p < PHASES && count > 0; p++) {
            for (int i = 0; i < count; i++)
                column[i] = mine[(size_t)i * PHASES + p];
            qsort(column, (size_t)count, sizeof *column, compare_int64);
            printf(" %10.2f", (double)column[count / 2] / 1000.0);
        }
        printf("\n");
    }
    fflush(stdout);
    free(column);
    return SHARDTAB_SUCCESS; /* the file is committed with the JSON, after the verdict */
}

shardtab_status_t jacobi_trace_run(jacobi_job_t *j, jacobi_outcome_t *out, app_outfile_t *csv)
{
    const int count =
        j->opts.niter < JACOBI_TRACE_MAX_ITERS ? j->opts.niter : JACOBI_TRACE_MAX_ITERS;
    const size_t raw_bytes = (size_t)count * JACOBI_TRACE_EVENTS * sizeof(uint64_t);
    const size_t mine_count = (size_t)count * PHASES;
    uint64_t *device = NULL, *raw = malloc(raw_bytes);
    int64_t *mine = malloc(mine_count * sizeof *mine), *all = NULL;
    int *at = malloc((size_t)count * sizeof *at); /* the iteration of each record kept */
    jacobi_plan_t *plan = NULL;
    jacobi_step_t step = j->run.step;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    int traced = 0; /* records written: iterations, or temporal passes */
    char why[160];

    if (raw == NULL || mine == NULL || at == NULL)
        status = jacobi_no_memory("the trace", raw_bytes);
    if (status == SHARDTAB_SUCCESS && j->rank == 0 &&
        (all = malloc(mine_count * (size_t)j->size * sizeof *all)) == NULL)
        status = jacobi_no_memory("the gathered trace", mine_count * (size_t)j->size * sizeof *all);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(raw_bytes, (void **)&device);
    if (status == SHARDTAB_SUCCESS) {
        /* BEGIN is a minimum over the tiles, the rest maxima or single writes */
        memset(raw, 0, raw_bytes);
        for (int i = 0; i < count; i++)
            raw[(size_t)i * JACOBI_TRACE_EVENTS + JACOBI_TRACE_BEGIN] = UINT64_MAX;
        status = shardtab_memcpy_async(device, raw, raw_bytes, j->stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
    }
    if (status == SHARDTAB_SUCCESS) {
        step.trace = device;
        step.trace_len = count;
        status = jacobi_kernel_check(
            jacobi_plan_create(&step, &j->run.tuning, j->launch, j->stream, &plan, why, sizeof why),
            "preparing the traced launches");
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement before the traced solve", 0);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_solve(j, &j->run, plan, 1, j->opts.niter, out);
    if (status == SHARDTAB_SUCCESS) {
        status = shardtab_memcpy_async(raw, device, raw_bytes, j->stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
        if (status == SHARDTAB_SUCCESS) {
            int last = out->iterations < (uint64_t)count ? (int)out->iterations : count, n = 0;
            double ns_per_tick = 1e9 / jacobi_clock_hz();
            memset(mine, 0, mine_count * sizeof *mine);
            for (int i = 0; i < last; i++) {
                int next = i + 1;
                if (!recorded(raw, i))
                    continue;
                while (next < last && !recorded(raw, next))
                    next++;
                at[n] = i;
                phases_of(raw, i, next < last ? next : -1, ns_per_tick,
                          mine + (size_t)n++ * PHASES);
            }
            traced = n;
        }
        status = app_agree(MPI_COMM_WORLD, status, "the agreement after the traced solve", 0);
    }
    if (status == SHARDTAB_SUCCESS) {
        /* every rank ran the same iterations (passes); the fewest, should a bug say otherwise */
        int fewest;
        app_allreduce(&traced, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD,
                      "the count of traced iterations");
        app_gather(mine, fewest * PHASES, MPI_INT64_T, all, fewest * PHASES, MPI_INT64_T, 0,
                   MPI_COMM_WORLD, "the gather of the trace");
        if (j->rank == 0) {
            /* gathered at fewest * PHASES per rank */
            status = report(j, all, at, fewest, csv);
        }
        status = app_agree(MPI_COMM_WORLD, status, "the agreement after the trace's report", 0);
    }
    jacobi_plan_destroy(plan);
    {
        shardtab_status_t freed = shardtab_mem_free(device);
        if (status == SHARDTAB_SUCCESS)
            status = freed;
    }
    free(raw);
    free(mine);
    free(at);
    free(all);
    return status;
}
