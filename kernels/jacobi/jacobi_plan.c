/* jacobi_plan.c - the jacobi program's launch plans, written once for every
 * backend (plain C, compiled into each build's kernels): the table of launch
 * modes (jacobi_launch.h), the choice among them (auto's measurements, the
 * fallbacks, the launch note), a plan made, run and destroyed through its
 * mode's row, what each mode needs of a rank's problem, and the pacing of
 * chunked launches. The backends' hooks (jacobi_hooks.h) do what needs the
 * device: sizing by occupancy, allocations, the launches. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jacobi_hooks.h"
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
    [JACOBI_LAUNCH_AUTO] = {.name = "auto",
                            .help = "the fastest measured for the rows and the device (default)",
                            .fallback = {JACOBI_LAUNCH_AUTO}},
    [JACOBI_LAUNCH_PERSISTENT] =
        {.name = "persistent",
         .help = "one cooperative launch a solve, a grid barrier an iteration",
         .how = "one cooperative launch per solve",
         .device_driven = 1,
         .fallback = {JACOBI_LAUNCH_GRAPH, "persistent launches cannot run here", "graph launches"},
         .plan = {NULL, jacobi_persistent_size, jacobi_persistent_run}},
    [JACOBI_LAUNCH_GRAPH] = {.name = "graph",
                             .help = "captured graphs of launches, replayed",
                             .how = "graphs of launches replayed",
                             .fallback = {JACOBI_LAUNCH_AUTO},
                             .plan = {NULL, jacobi_graph_size, run_steps, jacobi_graph_release}},
    [JACOBI_LAUNCH_STREAM] = {.name = "stream",
                              .help = "a launch call an iteration",
                              .how = "a launch call per step",
                              .fallback = {JACOBI_LAUNCH_AUTO},
                              .plan = {.run = run_steps}},
    [JACOBI_LAUNCH_ONCHIP] = {.name = "onchip",
                              .help = "one cooperative launch a solve, each tile's rows on chip",
                              .how = "one cooperative launch per solve, rows kept on chip",
                              .device_driven = 1,
                              .tiled = 1,
                              .fallback = {JACOBI_LAUNCH_PERSISTENT, "not on chip", "persistent"},
                              .plan = {onchip_fits, jacobi_onchip_size, jacobi_onchip_run,
                                       jacobi_onchip_release}},
    [JACOBI_LAUNCH_TEMPORAL] =
        {.name = "temporal",
         .help = "a launch a pass of up to JACOBI_TEMPORAL_DEPTH iterations",
         .how = "a launch per pass of several iterations, each tile streamed down its columns",
         .device_driven = 1,
         .tiled = 1,
         .fallback = {JACOBI_LAUNCH_PERSISTENT, "no temporal passes", "persistent"},
         .plan = {temporal_fits, jacobi_temporal_size, run_passes, jacobi_temporal_release}},
};

const jacobi_launch_mode_t *jacobi_launch_mode(jacobi_launch_t launch)
{
    return (unsigned)launch < JACOBI_LAUNCH_COUNT ? &modes[launch] : NULL;
}

const char *jacobi_launch_name(jacobi_launch_t launch)
{
    return (unsigned)launch < JACOBI_LAUNCH_COUNT ? modes[launch].name : "?";
}

const char *jacobi_launch_help(jacobi_launch_t launch)
{
    return (unsigned)launch < JACOBI_LAUNCH_COUNT ? modes[launch].help : "?";
}

/* ---- the choice of a mode ------------------------------------------------------------ */

/* Auto's launch, by the measurements (docs/performance.md, jacobi; one H200,
 * no AMD GPU measured): on a GPU, temporal passes where a rank holds 8 Mi
 * points or more (below that a pass's tiles do not keep the device busy
 * enough to beat persistent's one pass an iteration: temporal passes take
 * 0.47x persistent's time at 16384^2, 0.55x at 8192^2, 0.70x at 4096^2,
 * 0.78x at 3072^2; 1.06x at 2560^2, 1.33x at 2048^2), else on chip where it
 * holds 2 Mi points or more and they fit (below that the on-chip tiles'
 * waits cost more than persistent's barrier: on chip takes 0.83x
 * persistent's time at 2048 x 2046 points a rank, 0.95x at 2048 x 1024;
 * 1.02x at 1024 x 1022, 1.23x at 1024 x 512); where either is refused, the
 * table's fallback, persistent. Persistent on the host backend, whose
 * threads gain nothing from either; graph where ranks share the device,
 * where each rank's grid fills the whole GPU and the ranks' kernels can only
 * take turns (without MPS). */
#define JACOBI_ONCHIP_AUTO_POINTS (2u << 20)
#define JACOBI_TEMPORAL_AUTO_POINTS (8u << 20)

jacobi_launch_t jacobi_launch_choose(const jacobi_launch_ask_t *ask)
{
    const uint64_t points = (uint64_t)ask->nx * (uint64_t)ask->rows;

    if (!ask->reference && ask->host_loop)
        return JACOBI_LAUNCH_STREAM;
    if (ask->asked != JACOBI_LAUNCH_AUTO)
        return ask->asked;
    return !ask->reference && ask->ranks_on_device > 1         ? JACOBI_LAUNCH_GRAPH
           : ask->gpu && points >= JACOBI_TEMPORAL_AUTO_POINTS ? JACOBI_LAUNCH_TEMPORAL
           : ask->gpu && points >= JACOBI_ONCHIP_AUTO_POINTS   ? JACOBI_LAUNCH_ONCHIP
                                                               : JACOBI_LAUNCH_PERSISTENT;
}

jacobi_launch_t jacobi_launch_instead(const jacobi_launch_ask_t *ask, jacobi_launch_t refused)
{
    if (refused == ask->asked && (!ask->reference || refused == JACOBI_LAUNCH_PERSISTENT))
        return JACOBI_LAUNCH_AUTO;
    return modes[refused].fallback.to;
}

int jacobi_launch_may_run(jacobi_launch_t asked, int gpu, jacobi_launch_t mode)
{
    /* every case the choice tells apart: the run or the reference, the host's
     * loop or not, the device shared or not, points below, between and past
     * auto's bounds; then the fallbacks of the mode it chose */
    const int rows[] = {1, JACOBI_ONCHIP_AUTO_POINTS, JACOBI_TEMPORAL_AUTO_POINTS};

    for (int c = 0; c < 2 * 2 * 2 * 3; c++) {
        const jacobi_launch_ask_t ask = {.asked = asked,
                                         .reference = c & 1,
                                         .host_loop = c >> 1 & 1,
                                         .gpu = gpu,
                                         .ranks_on_device = c >> 2 & 1 ? 2 : 1,
                                         .nx = 1,
                                         .rows = rows[c >> 3]};
        for (jacobi_launch_t at = jacobi_launch_choose(&ask); at != JACOBI_LAUNCH_AUTO;
             at = modes[at].fallback.to)
            if (at == mode)
                return 1;
    }
    return 0;
}

void jacobi_launch_note_refusal(char *note, size_t note_bytes, jacobi_launch_t refused,
                                const char *why)
{
    const size_t used = strlen(note);

    snprintf(note + used, note_bytes - used, "%s%s (%s): %s instead", used ? "; " : "",
             modes[refused].fallback.refused, why, modes[refused].fallback.instead);
}

void jacobi_launch_note(const jacobi_launch_ask_t *ask, const jacobi_plan_t *plan, char *note,
                        size_t note_bytes)
{
    const int auto_asked = ask->asked == JACOBI_LAUNCH_AUTO;
    const jacobi_step_t *s = &plan->step;

    if (note[0])
        return;
    if (ask->host_loop) {
        if (ask->asked == JACOBI_LAUNCH_GRAPH)
            snprintf(note, note_bytes,
                     "the host takes part in every step: one launch per step, no graphs");
    } else if (auto_asked && ask->ranks_on_device > 1) {
        snprintf(
            note, note_bytes,
            "%d ranks share this device: graph launches (persistent grids could only take turns)",
            ask->ranks_on_device);
    } else if (auto_asked && plan->launch == JACOBI_LAUNCH_ONCHIP) {
        snprintf(note, note_bytes,
                 "auto: %d x %d points a rank fit on chip, %d tiles of at most %d rows", ask->nx,
                 ask->rows, s->tiles, s->tile_rows);
    } else if (plan->launch == JACOBI_LAUNCH_TEMPORAL) {
        snprintf(note, note_bytes,
                 "temporal: passes of up to %d iterations, %d tiles of %d x %d points a rank (%s)",
                 plan->tuning.temporal_depth, s->temporal_tiles_x * s->temporal_tiles_y,
                 s->temporal_cols, s->temporal_rows,
                 !ask->gpu                    ? "the host backend's tiles"
                 : plan->tuning.temporal_rows ? "JACOBI_TEMPORAL_ROWS"
                                              : "rows: the plan's");
    } else if (auto_asked && ask->gpu) {
        snprintf(note, note_bytes,
                 "auto: %d x %d points a rank: below 2 Mi points persistent beats on chip", ask->nx,
                 ask->rows);
    }
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
    if (mode == NULL || mode->plan.run == NULL) { /* auto: the program picks a mode first */
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
    if (rc == 0 && mode->plan.fits && mode->plan.fits(plan, why, why_bytes))
        rc = JACOBI_PLAN_NOT_RESIDENT;
    if (rc == 0 && mode->plan.size)
        rc = mode->plan.size(plan, why, why_bytes);
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
    return modes[plan->launch].plan.run(plan, count);
}

void jacobi_plan_destroy(jacobi_plan_t *plan)
{
    if (plan == NULL)
        return;
    if (modes[plan->launch].plan.release)
        modes[plan->launch].plan.release(plan);
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
