/* jacobi_temporal_host.c - the host backend's --launch temporal: the tile pass
 * and the close of jacobi_temporal.h, run by one thread over the tiles in
 * order, streaming every column of a tile, its exchange buffer in memory of
 * its own, as a GPU block's shared memory; so CI runs the GPU's pass logic,
 * the stream's levels, norms, the stop inside a pass and its rerun, the
 * neighbours' deep ghost rows and their signals included. Its tiles are small
 * and uneven (7 x 5 points), so that small grids have many, in both
 * directions. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "jacobi_cut.h"
#include "jacobi_hooks.h"
#include "jacobi_temporal.h"

#define JACOBI_HOST_TEMPORAL_COLS 7
#define JACOBI_HOST_TEMPORAL_ROWS 5
_Static_assert(JACOBI_HOST_TEMPORAL_COLS + 2 * JACOBI_TEMPORAL_MAX_DEPTH <=
                   JACOBI_TEMPORAL_THREAD_COLS,
               "the host's one thread streams every column of a tile");

/* The mode's hooks (jacobi_hooks.h): the tiles cut and their sums and buffer
 * allocated (0, or JACOBI_PLAN_NOT_RESIDENT with the reason), freed (also
 * after a size that failed); a run's start and its passes. */
int jacobi_temporal_size(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    jacobi_step_t *s = &plan->step;
    const int depth = plan->tuning.temporal_depth;

    jacobi_temporal_cut(s, depth, JACOBI_HOST_TEMPORAL_COLS, JACOBI_HOST_TEMPORAL_ROWS);
    s->temporal_partials =
        calloc((size_t)depth * (size_t)s->temporal_tiles_x * (size_t)s->temporal_tiles_y,
               sizeof *s->temporal_partials);
    /* zeroed: the pads and a stream's first steps read values no own point needs, defined all the same */
    s->temporal_scratch = calloc(jacobi_temporal_buffer_values(s), sizeof *s->temporal_scratch);
    return jacobi_host_alloc_check(s->temporal_partials && s->temporal_scratch,
                                   "the tiles' sums and buffers", why, why_bytes);
}

void jacobi_temporal_release(jacobi_plan_t *plan)
{
    free(plan->step.temporal_partials);
    free(plan->step.temporal_scratch);
}

/* A run's start: its end, and a fresh ticket. */
int jacobi_temporal_start(jacobi_plan_t *plan, int count)
{
    jacobi_temporal_begin_run(&plan->step, (uint64_t)count);
    return 0;
}

/* Up to `passes` passes, each tile's in order, until the run has none left
 * (jacobi_temporal_next). */
int jacobi_temporal_enqueue(jacobi_plan_t *plan, int passes)
{
    const jacobi_step_t *s = &plan->step;
    const int tiles = s->temporal_tiles_x * s->temporal_tiles_y;

    for (int i = 0; i < passes; i++) {
        const jacobi_pass_t pass = jacobi_temporal_next(s);
        if (pass.depth == 0)
            break;
        if (s->slow_passes) { /* the test hook: this rank's rows come late to its neighbours */
            const struct timespec late = {0, 2000000};
            nanosleep(&late, NULL);
        }
        for (int t = 0; t < tiles; t++) {
            double slots[JACOBI_TEMPORAL_MAX_DEPTH * JACOBI_BLOCK_SLOTS],
                sums[JACOBI_TEMPORAL_MAX_DEPTH];
            jacobi_temporal_tile(s, pass, t, s->temporal_scratch, slots, sums,
                                 jacobi_temporal_planted(s));
            jacobi_temporal_publish(s, pass, t, sums);
        }
        jacobi_temporal_finish(s, pass);
    }
    return 0;
}
