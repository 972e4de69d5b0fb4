/* jacobi_cut.c - how the jacobi program's plans cut a rank's rows into tiles,
 * written once for every backend (plain C, compiled into each build's
 * kernels): the step kernel's strips, the on-chip tiles of whole rows, the
 * temporal tiles and their height where the tuning leaves it to the plan.
 * The backends' sizing hooks (jacobi_hooks.h) call them with what they
 * measured of the device. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <math.h>
#include <stdint.h>

#include "jacobi_cut.h"

void jacobi_step_cut(jacobi_step_t *s, int blocks, int min_rows)
{
    int strips = blocks / s->blocks_x, per_strip;

    if (strips > (s->rows + min_rows - 1) / min_rows)
        strips = (s->rows + min_rows - 1) / min_rows;
    if (strips < 1)
        strips = 1;
    per_strip = (s->rows + strips - 1) / strips;
    s->rows_per_strip = per_strip;
    s->strips = (s->rows + per_strip - 1) / per_strip;
}

void jacobi_onchip_cut(jacobi_step_t *s, int tiles, int rows, int warps)
{
    s->tiles = tiles;
    s->tile_rows = rows;
    s->tile_warps = warps;
    s->blocks_x = 1; /* a rank's edge is one tile's */
    s->strips = tiles;
    s->rows_per_strip = rows;
    /* the pads' limit (a wait on a neighbour rank's edge row); a wait on this
     * rank's own tiles takes twice it (jacobi_onchip_keep_waiting) */
    s->wait_ticks = s->sig.mine ? s->sig.timeout_ticks : (uint64_t)(10.0 * jacobi_clock_hz());
}

void jacobi_temporal_cut(jacobi_step_t *s, int depth, int cols, int rows)
{
    s->temporal_depth = depth;
    s->temporal_cols = cols;
    s->temporal_rows = rows < s->rows ? rows : s->rows;
    s->temporal_tiles_x = (s->nx - 2 + cols - 1) / cols;
    s->temporal_tiles_y = (s->rows + s->temporal_rows - 1) / s->temporal_rows;
}

/* A tile of R rows reads 2 d more (its halo: the pass costs (R + 2 d) / R of
 * its own rows), and the last of the tiles leave the device partly idle for
 * about half a tile's time (proportional to R + 2 d); the sum is least at
 * R = sqrt(4 d tiles_x rows / blocks_at_once). Measured on an H200
 * (docs/performance.md), the best of 16 to 512 rows: 256, 128 and 64 at
 * 16384^2, 8192^2 and 4096^2 with 4 blocks a multiprocessor (this gives 243,
 * 121 and 61; with the 3 the kernel is built for, 280, 140 and 70), and 64
 * at 2048^2, where fewer tiles than fill the device make the halo the larger
 * cost: no fewer than 64. */
int jacobi_temporal_auto_rows(const jacobi_step_t *s, int depth, int cols, long blocks_at_once)
{
    const double tiles_x = (double)((s->nx - 2 + cols - 1) / cols);
    const long rows = lround(
        sqrt(4.0 * depth * tiles_x * s->rows / (double)(blocks_at_once > 0 ? blocks_at_once : 1)));
    return (int)(rows < 64 ? 64 : rows > 4096 ? 4096 : rows);
}
