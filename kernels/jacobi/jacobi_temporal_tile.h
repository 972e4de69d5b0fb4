/* jacobi_temporal_tile.h - the geometry of --launch temporal's passes, for
 * every backend (jacobi_temporal.h tells the whole mode): a tile's local
 * columns and the block's exchange buffer, what the next pass runs, where a
 * tile of a pass lies and where each row it streams comes from. The plans
 * cut the tiles (jacobi_temporal_cut, jacobi_cut.h); the stream
 * (jacobi_temporal_stream.h) walks them. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_TEMPORAL_TILE_H
#define JACOBI_TEMPORAL_TILE_H

#include "jacobi_op.h"
#include "jacobi_sweep.h"
#include "shardtab_device.h"

/* ---- the tile ------------------------------------------------------------------------ */

/* A tile is a strip of columns that a block streams from its top to its
 * bottom. Its own points are temporal_cols x temporal_rows; it reads them with
 * a halo as deep as the pass on every side (rows periodic, as the problem's;
 * columns stop at the fixed boundary ones). Local column c, 0 .. pitch - 1, is
 * the grid's column x0 - D + c, D the deepest pass: a GPU block has a thread a
 * local column. (Host and device: the plans size blocks with these.) */
static JACOBI_HD inline int jacobi_temporal_pitch(const jacobi_step_t *s)
{
    return s->temporal_cols + 2 * s->temporal_depth;
}

/* The values the block shares between two steps of the stream: [level 0 ..
 * D - 1][step parity][lane], local column c at c + 1 of a lane (its two pads
 * are the outer neighbours of the edge columns, whose values no own point
 * needs). */
static JACOBI_HD inline int jacobi_temporal_lane(const jacobi_step_t *s)
{
    return jacobi_temporal_pitch(s) + 2;
}

static JACOBI_HD inline size_t jacobi_temporal_buffer_values(const jacobi_step_t *s)
{
    return 2 * (size_t)s->temporal_depth * (size_t)jacobi_temporal_lane(s);
}

/* Rank row y, any integer, in [0, rows): the rows are periodic (a rank alone). */
static JACOBI_HD inline int jacobi_temporal_row(int y, int rows)
{
    if ((unsigned)y < (unsigned)rows)
        return y;
    int m = y % rows;
    return m < 0 ? m + rows : m;
}

/* ---- the next pass -------------------------------------------------------------------- */

typedef struct jacobi_pass {
    uint64_t k0;     /* the time it reads, from a[k0 & 1]; it writes a[(k0 + depth) & 1] */
    uint64_t number; /* 1 + the passes run before it, all solves: what it tells the neighbours */
    int depth;       /* iterations, odd; 0: nothing to run */
    int norms;       /* 1: a pass of the solve, summed and decided; 0: run again after a stop
                    inside it, up to the stop, no norms */
} jacobi_pass_t;

/* One thread: what the next pass runs, from ctl: a pass to run again first,
 * else the solve's next, up to the stop and to this run's end; the deepest
 * odd depth that fits. */
SHARDTAB_DEVFN jacobi_pass_t jacobi_temporal_next(const jacobi_step_t *s)
{
    const jacobi_ctl_t *ctl = s->ctl;
    jacobi_pass_t pass = {0, 0, 0, 0};
    uint64_t end;

    if (ctl->failed)
        return pass;
    pass.number = ctl->passes + 1;
    if (ctl->redo) {
        pass.k0 = ctl->redo - 1;
        end = ctl->iteration;
    } else {
        pass.k0 = ctl->iteration;
        pass.norms = 1;
        end = ctl->stop_at < ctl->run_end ? ctl->stop_at : ctl->run_end;
    }
    if (end <= pass.k0)
        return pass;
    uint64_t d = end - pass.k0;
    if (d > (uint64_t)s->temporal_depth)
        d = (uint64_t)s->temporal_depth;
    pass.depth = (int)(d % 2 ? d : d - 1);
    return pass;
}

/* ---- where a tile of the pass lies ------------------------------------------------------ */

/* Where tile t of a pass lies: its own points, columns [x0, x1) and rank rows
 * [y0, y1); and whether the planted stale ghost row is this tile's. */
typedef struct jacobi_tile {
    int x0, x1, y0, y1;
    int stale; /* JACOBI_FAULT_EDGE: the deepest halo row above loads the row below it */
} jacobi_tile_t;

SHARDTAB_DEVFN jacobi_tile_t jacobi_temporal_place(const jacobi_step_t *s, jacobi_pass_t pass,
                                                   int t)
{
    const int nx = s->nx, d = pass.depth;
    const int tx = t % s->temporal_tiles_x, ty = t / s->temporal_tiles_x;
    const uint64_t base = s->ctl->base;
    jacobi_tile_t g;

    g.x0 = 1 + tx * s->temporal_cols;
    g.y0 = ty * s->temporal_rows;
    g.x1 = g.x0 + s->temporal_cols < nx - 1 ? g.x0 + s->temporal_cols : nx - 1;
    g.y1 = g.y0 + s->temporal_rows < s->rows ? g.y0 + s->temporal_rows : s->rows;
    g.stale = s->fault.kind == JACOBI_FAULT_EDGE && pass.norms &&
              pass.k0 - base <= (uint64_t)s->fault.iteration &&
              (uint64_t)s->fault.iteration < pass.k0 - base + (uint64_t)d && s->fault.row >= g.y0 &&
              s->fault.row < g.y1;
    return g;
}

/* The row that step j of the tile's stream loads at time k0, rank row
 * y0 - d + j: the rank's own from a[k0 & 1]; above its first or below its
 * last, the deep ghost rows of that parity where there is a neighbour, else
 * its own (periodic: a rank alone). (The planted stale ghost row: the row one
 * below the right one.) */
SHARDTAB_DEVFN const jacobi_real_t *jacobi_temporal_source(const jacobi_step_t *s,
                                                           jacobi_pass_t pass,
                                                           const jacobi_tile_t *g, int j)
{
    const int y = g->y0 - pass.depth + j + (g->stale && j == 0), p = (int)(pass.k0 & 1);
    const size_t nx = (size_t)s->nx;

    /* a parity's pointer by a select, not an index: an indexed field would keep
     * the kernel's by-value step in private memory on AMD (scratch) */
    if (y < 0 && s->deep_top_dest[0])
        return (p ? s->deep[1] : s->deep[0]) + (size_t)(JACOBI_TEMPORAL_MAX_DEPTH + y) * nx;
    if (y >= s->rows && s->deep_bottom_dest[0])
        return (p ? s->deep[1] : s->deep[0]) +
               (size_t)(JACOBI_TEMPORAL_MAX_DEPTH + y - s->rows) * nx;
    return (p ? s->a[1] : s->a[0]) + (size_t)jacobi_temporal_row(y, s->rows) * nx;
}

#endif /* JACOBI_TEMPORAL_TILE_H */
