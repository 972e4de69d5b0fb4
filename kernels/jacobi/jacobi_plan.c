/* jacobi_plan.c - the jacobi program's launch plans, written once for every
 * backend (plain C, compiled into each build's kernels): the table of launch
 * modes (jacobi_launch.h), a plan made, run and destroyed through its mode's
 * entry, what each mode needs of a rank's problem, and the pacing of chunked
 * launches. The backends' hooks (jacobi_plan.h) do what needs the device:
 * sizing by occupancy (with the cuts of jacobi_cut.c), allocations, the
 * launches. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jacobi_plan.h"

static const jacobi_tuning_t default_tuning = JACOBI_TUNING_DEFAULTS;

/* ---- what a mode needs of this rank's problem, whatever the device ---------------- */

/* On chip: the tiles and the norm block alone drive the solve: every
 * neighbour through the table and the pads (or this rank itself), the norm
 * on the device. */
static int onchip_fits(const jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    const jacobi_step_t *s = &plan->step;

    if (!s->device_norm || !s->top_dest[0] || !s->bottom_dest[0] ||
        (!s->device_sync && (s->top_peer >= 0 || s->bottom_peer >= 0))) {
        snprintf(why, why_bytes, "the on-chip tiles need a solve the device drives alone");
        return 1;
    }
    return 0;
}

/* Temporal passes of up to the tuning's depth: the norm decided on the device
 * (a job of one node); a rank alone reads its own rows as its ghost rows; a
 * rank with neighbours (of its node: variant table) needs their deep ghost
 * rows wired, and at least depth rows of its own, the rows it gives them a
 * pass. (A rank alone needs none of this.) */
static int temporal_fits(const jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    const jacobi_step_t *s = &plan->step;
    const int depth = plan->tuning.temporal_depth;
    const int top = s->top_peer >= 0, bottom = s->bottom_peer >= 0;

    if (!s->device_norm || !s->top_dest[0] || !s->bottom_dest[0]) {
        snprintf(why, why_bytes,
                 "temporal passes need every neighbour on the node and the norm decided on "
                 "the device (variant table, a job of one node)");
        return 1;
    }
    if ((top || bottom) &&
        (!s->device_sync || (top && !s->deep_top_dest[0]) || (bottom && !s->deep_bottom_dest[0]))) {
        snprintf(why, why_bytes,
                 "temporal passes between ranks need the neighbours' deep ghost rows through "
                 "the table (variant table)");
        return 1;
    }
    if ((top || bottom) && s->rows < depth) {
        snprintf(why, why_bytes,
                 "a rank of %d rows cannot give its neighbours the %d rows a temporal pass "
                 "of depth %d reads past its edge: fewer ranks, or JACOBI_TEMPORAL_DEPTH=%d",
                 s->rows, depth, depth, s->rows % 2 ? s->rows : s->rows - 1);
        return 1;
    }
    return 0;
}

/* ---- runs paced in chunks: stream and graph launches, temporal passes ------------- */

/* Enqueues `total` units (steps, passes) by enqueue(plan, n), in chunks of
 * JACOBI_CHUNK_STEPS with at most two in flight: before a third, the first
 * waited for, and once the device has stopped the solve only `after_stop`
 * more (a temporal pass stopped inside is run again after the stop, in up to
 * two passes, and that stop may be the last pass of the chunk just done: the
 * host can see it late). 0 or a runtime code. */
static int pace(jacobi_plan_t *plan, int total, int after_stop,
                int (*enqueue)(jacobi_plan_t *plan, int n))
{
    int err = 0;

    for (int chunk = 0; total > 0 && err == 0; chunk++) {
        const int n = total < JACOBI_CHUNK_STEPS ? total : JACOBI_CHUNK_STEPS;
        if (chunk >= 2) {
            int stopped = 0;
            err = jacobi_backend_wait(plan, chunk & 1, &stopped);
            if (err != 0)
                break;
            if (stopped) {
                if (after_stop > 0)
                    err = enqueue(plan, after_stop < n ? after_stop : n);
                break;
            }
        }
        err = enqueue(plan, n);
        if (err == 0)
            err = jacobi_backend_mark(plan, chunk & 1);
        total -= n;
    }
    return err;
}

static int run_steps(jacobi_plan_t *plan, int count)
{
    return pace(plan, count, 0, jacobi_steps_enqueue); /* a step after the stop does nothing */
}

/* A temporal run: its start, then its passes, as many as a run of count
 * iterations needs at most: as many as the deepest odd depth takes, two more
 * for a run of an even count, two for a pass run again after a stop (a pass
 * with nothing left returns at once, and a GPU's still starts its grid: the
 * pacing enqueues none once the device has stopped the solve). */
static int run_passes(jacobi_plan_t *plan, int count)
{
    const int depth = plan->step.temporal_depth;
    int err = jacobi_temporal_start(plan, count);

    return err != 0 ? err : pace(plan, (count + depth - 1) / depth + 4, 2, jacobi_temporal_enqueue);
}

/* ---- the table ---------------------------------------------------------------------- */

static const jacobi_launch_mode_t modes[JACOBI_LAUNCH_COUNT] = {
    [JACOBI_LAUNCH_AUTO] = {.name = "auto", .fallback = JACOBI_LAUNCH_AUTO},
    [JACOBI_LAUNCH_PERSISTENT] = {.name = "persistent",
                                  .how = "one cooperative launch per solve",
                                  .device_driven = 1,
                                  .fallback = JACOBI_LAUNCH_GRAPH,
                                  .refused = "persistent launches cannot run here",
                                  .instead = "graph launches",
                                  .size = jacobi_persistent_size,
                                  .run = jacobi_persistent_run},
    [JACOBI_LAUNCH_GRAPH] = {.name = "graph",
                             .how = "graphs of launches replayed",
                             .fallback = JACOBI_LAUNCH_AUTO,
                             .size = jacobi_graph_size,
                             .run = run_steps,
                             .release = jacobi_graph_release},
    [JACOBI_LAUNCH_STREAM] = {.name = "stream",
                              .how = "a launch call per step",
                              .fallback = JACOBI_LAUNCH_AUTO,
                              .run = run_steps},
    [JACOBI_LAUNCH_ONCHIP] = {.name = "onchip",
                              .how = "one cooperative launch per solve, rows kept on chip",
                              .device_driven = 1,
                              .tiled = 1,
                              .fallback = JACOBI_LAUNCH_PERSISTENT,
                              .refused = "not on chip",
                              .instead = "persistent",
                              .fits = onchip_fits,
                              .size = jacobi_onchip_size,
                              .run = jacobi_onchip_run,
                              .release = jacobi_onchip_release},
    [JACOBI_LAUNCH_TEMPORAL] = {.name = "temporal",
                                .how =
                                    "a launch per pass of several iterations, each tile streamed "
                                    "down its columns",
                                .device_driven = 1,
                                .tiled = 1,
                                .fallback = JACOBI_LAUNCH_PERSISTENT,
                                .refused = "no temporal passes",
                                .instead = "persistent",
                                .fits = temporal_fits,
                                .size = jacobi_temporal_size,
                                .run = run_passes,
                                .release = jacobi_temporal_release},
};

const jacobi_launch_mode_t *jacobi_launch_mode(jacobi_launch_t launch)
{
    return (unsigned)launch < JACOBI_LAUNCH_COUNT ? &modes[launch] : NULL;
}

const char *jacobi_launch_name(jacobi_launch_t launch)
{
    return (unsigned)launch < JACOBI_LAUNCH_COUNT ? modes[launch].name : "?";
}

/* ---- a plan, through its mode's entry ------------------------------------------------ */

int jacobi_plan_create(const jacobi_step_t *step, const jacobi_tuning_t *tuning,
                       jacobi_launch_t launch, void *stream, jacobi_plan_t **plan_out, char *why,
                       size_t why_bytes)
{
    const jacobi_launch_mode_t *mode = jacobi_launch_mode(launch);
    jacobi_plan_t *plan;
    int rc;

    if (why_bytes)
        why[0] = '\0';
    if (mode == NULL || mode->run == NULL) { /* auto: the program picks a mode first */
        snprintf(why, why_bytes, "launch mode %s has no plan of its own",
                 jacobi_launch_name(launch));
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    plan = calloc(1, sizeof *plan);
    if (plan == NULL)
        return jacobi_backend_no_memory();
    plan->step = *step;
    plan->tuning = tuning ? *tuning : default_tuning;
    plan->launch = launch;
    plan->stream = stream;
    plan->blocks = step->blocks_x * step->strips;
    rc = jacobi_backend_open(plan);
    if (rc == 0 && mode->fits && mode->fits(plan, why, why_bytes))
        rc = JACOBI_PLAN_NOT_RESIDENT;
    if (rc == 0 && mode->size)
        rc = mode->size(plan, why, why_bytes);
    if (rc != 0) {
        jacobi_plan_destroy(plan);
        return rc;
    }
    *plan_out = plan;
    return 0;
}

int jacobi_plan_run(jacobi_plan_t *plan, int count)
{
    if (count <= 0)
        return 0;
    if (plan->done_host)
        *plan->done_host = 0;
    return modes[plan->launch].run(plan, count);
}

void jacobi_plan_destroy(jacobi_plan_t *plan)
{
    if (plan == NULL)
        return;
    if (modes[plan->launch].release)
        modes[plan->launch].release(plan);
    jacobi_backend_close(plan);
    free(plan);
}

int jacobi_plan_tiles(const jacobi_plan_t *plan)
{
    return plan && plan->launch == JACOBI_LAUNCH_ONCHIP ? plan->step.tiles : 0;
}

int jacobi_plan_tile_rows(const jacobi_plan_t *plan)
{
    return plan && plan->launch == JACOBI_LAUNCH_ONCHIP ? plan->step.tile_rows : 0;
}

int jacobi_plan_temporal_cut(const jacobi_plan_t *plan, int *cols, int *rows)
{
    if (!plan || plan->launch != JACOBI_LAUNCH_TEMPORAL)
        return 0;
    *cols = plan->step.temporal_cols;
    *rows = plan->step.temporal_rows;
    return plan->step.temporal_tiles_x * plan->step.temporal_tiles_y;
}

const char *jacobi_error_string(int code)
{
    if (code == JACOBI_PLAN_NOT_RESIDENT)
        return "the persistent or on-chip grid cannot run here";
    return jacobi_backend_error_string(code);
}
