/* jacobi_temporal_stream.h - one tile's pass of --launch temporal as a
 * stream down its columns, written once for every backend: the GPU kernel
 * runs it in a block, a thread a column, the neighbours' values in shared
 * memory; the host backend in one thread over every column of the tile. The
 * pass's iterations are the stream's levels (jacobi_temporal_stream_run says
 * how); jacobi_temporal.h tells the whole mode, and calls the stream of each
 * tile (jacobi_temporal_stream). Every function is called by every thread of
 * a block. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_TEMPORAL_STREAM_H
#define JACOBI_TEMPORAL_STREAM_H

#include "jacobi_block_sum.h"
#include "jacobi_op.h"
#include "jacobi_temporal_tile.h"
#include "shardtab_device.h"

/* Local columns one thread of a block streams: one on a GPU (a block of
 * JACOBI_TEMPORAL_THREADS threads, a thread a column), every one of the tile
 * on the host backend (its block is one thread; its plan's tiles are at most
 * this wide). */
#if defined(SHARDTAB_DEVICE_HOST)
#  define JACOBI_TEMPORAL_THREAD_COLS 32
#  define JACOBI_TEMPORAL_INLINE static inline
#  define JACOBI_TEMPORAL_UNROLL
#else
#  define JACOBI_TEMPORAL_THREADS 256
#  define JACOBI_TEMPORAL_THREAD_COLS 1
#  define JACOBI_TEMPORAL_INLINE __device__ static __forceinline__
#  define JACOBI_TEMPORAL_UNROLL _Pragma("unroll")
#endif
/* Rows a thread's loads run ahead of the row it uses, so that they are in
 * flight while it computes; steps of the stream's middle unrolled, so that
 * its registers' rotation is renaming, not moves (-D for a measurement). */
#ifndef JACOBI_TEMPORAL_AHEAD
#  define JACOBI_TEMPORAL_AHEAD 3
#endif
#ifndef JACOBI_TEMPORAL_STEP_UNROLL
#  if defined(SHARDTAB_DEVICE_HIP) /* clang does not unroll a loop with a barrier and a remainder */
#    define JACOBI_TEMPORAL_STEP_UNROLL 1
#  else
#    define JACOBI_TEMPORAL_STEP_UNROLL 3
#  endif
#endif
#if defined(SHARDTAB_DEVICE_HOST)
#  define JACOBI_TEMPORAL_UNROLL_STEPS
#else
#  define JACOBI_TEMPORAL_PRAGMA(x) _Pragma(#  x)
#  define JACOBI_TEMPORAL_UNROLL_BY(n) JACOBI_TEMPORAL_PRAGMA(unroll n)
#  define JACOBI_TEMPORAL_UNROLL_STEPS JACOBI_TEMPORAL_UNROLL_BY(JACOBI_TEMPORAL_STEP_UNROLL)
#endif

/* A tile's stream, fixed for its pass: where its rows come from (inside:
 * a[k0 & 1] at its first row, where every row it reads is the rank's own;
 * else NULL), its local column 0's grid column, its own rows, its steps,
 * the parity it writes, whether it has rows among the rank's first or last D
 * (edge), the levels whose iteration has a norm (bit t - 1: level t), and the
 * planted point (STALE, NORM) where it is this tile's own: its level, step
 * and local column, else level 0. */
typedef struct jacobi_stream_plan {
    const jacobi_real_t *inside;
    int left, own_rows, steps, edge, norm_mask;
    int plant_level, plant_step, plant_c;
    /* where the last level's own points go (jacobi_temporal_put): a[(k0 + d) & 1]; for
     * an edge tile also the ghost rows and the neighbours' deep rows of that parity */
    jacobi_real_t *out, *top_out, *bottom_out, *deep_top_out, *deep_bottom_out;
    int nx, rows, deepest, pitch; /* deepest: D, the plan's deepest pass (d: this pass's) */
} jacobi_stream_plan_t;

/* One of the tile's own points of the pass's last iteration, rank row y, into
 * a[(k0 + d) & 1]; in a tile with rows among the rank's first or last D
 * (edge), also into the ghost rows of that time (the rank's first and last
 * rows; a rank alone: its own rows, periodic) and, between ranks, into the
 * neighbours' deep ghost rows. */
JACOBI_TEMPORAL_INLINE void jacobi_temporal_put(const jacobi_stream_plan_t *m, int y, int x,
                                                jacobi_real_t v)
{
    const size_t nx = (size_t)m->nx;

    m->out[(size_t)y * nx + (size_t)x] = v;
    if (!m->edge)
        return;
    if (m->deep_top_out && y < m->deepest)
        m->deep_top_out[(size_t)y * nx + (size_t)x] = v;
    if (m->deep_bottom_out && y >= m->rows - m->deepest)
        m->deep_bottom_out[(size_t)(JACOBI_TEMPORAL_MAX_DEPTH + y - m->rows) * nx + (size_t)x] = v;
    if (y == 0 && m->top_out)
        m->top_out[x] = v;
    if (y == m->rows - 1 && m->bottom_out)
        m->bottom_out[x] = v;
}

/* What a thread carries from one step of the stream to the next, for each of
 * its columns: level t's values of the rows above and at the row level t + 1
 * computes next (up, mid), the rows its loads run ahead (ahead); its sums, a
 * level each; the levels whose row this step is an own row (bit t - 1). On a
 * GPU in registers: every index is a constant once the steps are inlined and
 * their levels unrolled. */
typedef struct jacobi_stream {
    jacobi_real_t up[JACOBI_TEMPORAL_THREAD_COLS][JACOBI_TEMPORAL_MAX_DEPTH];
    jacobi_real_t mid[JACOBI_TEMPORAL_THREAD_COLS][JACOBI_TEMPORAL_MAX_DEPTH];
    jacobi_real_t ahead[JACOBI_TEMPORAL_THREAD_COLS][JACOBI_TEMPORAL_AHEAD];
    double acc[JACOBI_TEMPORAL_MAX_DEPTH];
    int own_levels;
} jacobi_stream_t;

/* Where step j of the stream loads from: NULL past its last row. */
JACOBI_TEMPORAL_INLINE const jacobi_real_t *jacobi_temporal_stream_row(
    const jacobi_step_t *s, jacobi_pass_t pass, const jacobi_tile_t *g,
    const jacobi_stream_plan_t *m, int j)
{
    return j >= m->steps ? (const jacobi_real_t *)0
           : m->inside   ? m->inside + (size_t)j * (size_t)m->nx
                         : jacobi_temporal_source(s, pass, g, j);
}

/* Step j of a tile's stream, for every column of the thread (the caller's
 * barrier follows it). In a real run's GPU build d, lane, planted and every
 * are constants (the planted build takes d as it comes, the host its lane):
 * every, a step whose levels' rows are all own rows and every level's
 * iteration has a norm, tests neither (the stream's middle). On
 * a GPU a thread's sums are its column's, own or not (a halo column's are
 * dropped at the end); the host's thread sums only its own columns'. */
JACOBI_TEMPORAL_INLINE void jacobi_temporal_step(const jacobi_step_t *s, jacobi_pass_t pass,
                                                 const jacobi_tile_t *g,
                                                 const jacobi_stream_plan_t *m, jacobi_stream_t *st,
                                                 jacobi_real_t *ex, int j, const int d,
                                                 const int lane, const int planted, const int every)
{
    const int nx = m->nx, pitch = m->pitch;
    const int thread = shardtab_detail_block_thread(), threads = shardtab_detail_block_threads();
    const jacobi_real_t *rd = ex + ((j + 1) & 1) * lane + 1;
    jacobi_real_t *wr = ex + (j & 1) * lane + 1;
    const jacobi_real_t *src = jacobi_temporal_stream_row(s, pass, g, m, j + JACOBI_TEMPORAL_AHEAD);
    /* level t's row j - t is own row j - t - d; the bits move up a level a step */
    st->own_levels =
        ((st->own_levels << 1) | ((unsigned)(j - 1 - d) < (unsigned)m->own_rows)) & ((1 << d) - 1);
    const int normed = every ? (1 << d) - 1 : st->own_levels & m->norm_mask;
    const int out = every || (unsigned)(j - 2 * d) < (unsigned)m->own_rows;

    JACOBI_TEMPORAL_UNROLL
    for (int k = 0; k < JACOBI_TEMPORAL_THREAD_COLS; k++) {
        const int c = thread + k * threads, x = m->left + c;
        if (JACOBI_TEMPORAL_THREAD_COLS > 1 && c >= pitch)
            break;
        const int in_grid = x >= 0 && x < nx, fixed = x == 0 || x == nx - 1,
                  own = x >= g->x0 && x < g->x1;
        const int summed =
            own | (JACOBI_TEMPORAL_THREAD_COLS == 1); /* 1 or 0, a bit to mask with */
        jacobi_real_t down = st->ahead[k][0];
        JACOBI_TEMPORAL_UNROLL
        for (int a = 0; a + 1 < JACOBI_TEMPORAL_AHEAD; a++)
            st->ahead[k][a] = st->ahead[k][a + 1];
        st->ahead[k][JACOBI_TEMPORAL_AHEAD - 1] = src && in_grid ? src[x] : (jacobi_real_t)0;
        /* every level's values first, then their stores into the buffer: no
         * store of the step before a load, so that the loads go where they are used */
        JACOBI_TEMPORAL_UNROLL
        for (int t = 1; t <= JACOBI_TEMPORAL_MAX_DEPTH; t++) {
            if (t <=
                d) { /* a guard, not a break: a loop clang unrolls whole where d is not a constant */
                const jacobi_real_t old = st->mid[k][t - 1];
                const jacobi_real_t *near =
                    rd + 2 * (t - 1) * lane + c; /* level t - 1 at row j - t */
                jacobi_real_t v =
                    fixed ? old : jacobi_value(near[-1], near[1], st->up[k][t - 1], down);
                if (normed >> (t - 1) & summed & 1)
                    st->acc[t - 1] += jacobi_residue2(v, old);
                if (planted && t == m->plant_level && j == m->plant_step && c == m->plant_c) {
                    if (s->fault.kind == JACOBI_FAULT_STALE)
                        v = old; /* the point keeps its value */
                    else if (normed >> (t - 1) & 1)
                        st->acc[t - 1] += jacobi_residue2(v, old); /* its residue counts twice */
                }
                st->up[k][t - 1] = old;
                st->mid[k][t - 1] = down;
                down = v;
            }
        }
        JACOBI_TEMPORAL_UNROLL
        for (int t = 0; t < JACOBI_TEMPORAL_MAX_DEPTH; t++)
            if (t < d)
                wr[2 * t * lane + c] = st->mid[k][t]; /* level t at row j - t */
        if (out && own)
            jacobi_temporal_put(m, g->y0 + j - 2 * d, x, down);
    }
}

/* The stream of one tile (planted: a STALE or NORM fault is planted, so that
 * a real run's loop carries no test of it). The pass's iterations are levels
 * 1 .. d, level 0 the loaded rows; at step j (0 .. rows + 2 d - 1) of the
 * stream each thread loads row j of its column (level 0, rank row y0 - d + j)
 * and level t computes row j - t, from its own column's level t - 1 values of
 * the rows above and at it (carried in registers, up and mid) and below it
 * (computed this step by level t - 1: down), and its neighbour columns' values
 * at it, which they put in the exchange buffer at step j - 1; each level's new
 * value goes into the buffer for step j + 1, the last level's into the grid
 * where it is an own point. One barrier a step. Every row of the tile and its
 * halo is read once and every own point written once a pass; each level
 * computes the halo's rows and columns too, the neighbour tiles' own (the
 * price of one read and one write every d iterations: (R + 2 d) / R of the
 * rows, 256 / (256 - 2 D) of the columns). Level t's values are exact from t
 * rows and columns inside what was read (its first t rows, and the edge
 * columns', are computed from values no own point needs and never used), so
 * the last level's own points are. Each level's squared residues of the
 * tile's own points add into acc[t - 1], a thread's own, in the order it
 * meets them. */
JACOBI_TEMPORAL_INLINE void jacobi_temporal_stream_run(const jacobi_step_t *s, jacobi_pass_t pass,
                                                       const jacobi_tile_t *g, jacobi_real_t *ex,
                                                       double *acc, const int d, const int lane,
                                                       const int planted)
{
    const int D = s->temporal_depth, own_rows = g->y1 - g->y0, steps = own_rows + 2 * d;
    const int thread = shardtab_detail_block_thread(), threads = shardtab_detail_block_threads();
    const uint64_t base = s->ctl->base;
    jacobi_stream_plan_t m;
    jacobi_stream_t st;

    const int p = (int)(pass.k0 & 1), q = (int)((pass.k0 + (uint64_t)d) & 1);

    /* every pointer of a parity picked by a select, not an index (jacobi_temporal_source) */
    m.nx = s->nx;
    m.rows = s->rows;
    m.deepest = D;
    m.pitch = jacobi_temporal_pitch(s);
    m.left = g->x0 - D;
    m.own_rows = own_rows;
    m.steps = steps;
    m.edge = g->y0 < D || g->y1 > s->rows - D;
    m.out = q ? s->a[1] : s->a[0];
    m.top_out = q ? s->top_dest[1] : s->top_dest[0];
    m.bottom_out = q ? s->bottom_dest[1] : s->bottom_dest[0];
    m.deep_top_out = q ? s->deep_top_dest[1] : s->deep_top_dest[0];
    m.deep_bottom_out = q ? s->deep_bottom_dest[1] : s->deep_bottom_dest[0];
    /* a tile whose rows, halo included, are the rank's own reads them in place */
    m.inside = g->y0 - d >= 0 && g->y1 + d <= s->rows && !g->stale
                   ? (p ? s->a[1] : s->a[0]) + (size_t)(g->y0 - d) * (size_t)s->nx
                   : (const jacobi_real_t *)0;
    m.norm_mask = 0;
    for (int t = 1; t <= d; t++)
        m.norm_mask |=
            (pass.norms && jacobi_norm_iteration(base, s->nccheck, pass.k0 + (uint64_t)(t - 1)))
            << (t - 1);
    m.plant_level = 0;
    m.plant_step = m.plant_c = -1;
    if (planted && s->fault.row >= g->y0 && s->fault.row < g->y1 && s->fault.col >= g->x0 &&
        s->fault.col < g->x1 && pass.k0 - base <= (uint64_t)s->fault.iteration &&
        (uint64_t)s->fault.iteration < pass.k0 - base + (uint64_t)d) {
        m.plant_level = (int)((uint64_t)s->fault.iteration - (pass.k0 - base)) + 1;
        m.plant_step = s->fault.row - g->y0 + d + m.plant_level;
        m.plant_c = s->fault.col - m.left;
    }

    JACOBI_TEMPORAL_UNROLL
    for (int t = 0; t < JACOBI_TEMPORAL_MAX_DEPTH; t++)
        st.acc[t] = 0.0;
    st.own_levels = 0;
    for (int j = 0; j < JACOBI_TEMPORAL_AHEAD; j++) {
        const jacobi_real_t *src = jacobi_temporal_stream_row(s, pass, g, &m, j);
        JACOBI_TEMPORAL_UNROLL
        for (int k = 0; k < JACOBI_TEMPORAL_THREAD_COLS; k++) {
            const int x = m.left + thread + k * threads;
            st.ahead[k][j] = src && x >= 0 && x < s->nx ? src[x] : (jacobi_real_t)0;
        }
    }
    JACOBI_TEMPORAL_UNROLL
    for (int k = 0; k < JACOBI_TEMPORAL_THREAD_COLS; k++)
        JACOBI_TEMPORAL_UNROLL
    for (int t = 0; t < JACOBI_TEMPORAL_MAX_DEPTH; t++)
        st.up[k][t] = st.mid[k][t] = (jacobi_real_t)0;

    /* the first 2 d steps (some levels' rows above the own rows), the middle
     * (every level's row own: steps 2 d .. own_rows + d), the last */
    const int warm = 2 * d < steps ? 2 * d : steps;
    int middle_end = m.norm_mask == (1 << d) - 1 ? own_rows + d + 1 : warm;
    if (middle_end < warm)
        middle_end = warm;
    int j = 0;
    for (; j < warm; j++) {
        jacobi_temporal_step(s, pass, g, &m, &st, ex, j, d, lane, planted, 0);
        shardtab_detail_block_sync();
    }
    JACOBI_TEMPORAL_UNROLL_STEPS
    for (; j < middle_end; j++) {
        jacobi_temporal_step(s, pass, g, &m, &st, ex, j, d, lane, planted, 1);
        shardtab_detail_block_sync();
    }
    for (; j < steps; j++) {
        jacobi_temporal_step(s, pass, g, &m, &st, ex, j, d, lane, planted, 0);
        shardtab_detail_block_sync();
    }
    /* a GPU thread of a halo column summed its column's residues too: dropped */
    const int x = m.left + thread;
    JACOBI_TEMPORAL_UNROLL
    for (int t = 0; t < JACOBI_TEMPORAL_MAX_DEPTH; t++)
        acc[t] = JACOBI_TEMPORAL_THREAD_COLS > 1 || (x >= g->x0 && x < g->x1) ? st.acc[t] : 0.0;
}

/* Is a STALE or NORM fault planted? (Its point's test is in a stream of its own.) */
static JACOBI_HD inline int jacobi_temporal_planted(const jacobi_step_t *s)
{
    return s->fault.kind == JACOBI_FAULT_STALE || s->fault.kind == JACOBI_FAULT_NORM;
}

/* The tile's pass: the stream, then each iteration's sum, warp by warp into
 * slots (JACOBI_BLOCK_SLOTS an iteration) and, past a barrier, the block's
 * sums[i] for every iteration of the pass (0 where it has no norm: the
 * leader's). A real run's stream is built for each depth a pass can have, and
 * on a GPU for its block's lane, so that its levels are unrolled and every
 * exchange address is a constant; a planted fault's (planted: 1, where
 * jacobi_temporal_planted; the GPU builds a kernel of its own for it, so that
 * its registers do not bound a real run's blocks) takes both as they come. */
JACOBI_TEMPORAL_INLINE void jacobi_temporal_stream(const jacobi_step_t *s, jacobi_pass_t pass,
                                                   const jacobi_tile_t *g, jacobi_real_t *ex,
                                                   double *slots, double *sums, const int planted)
{
#if defined(SHARDTAB_DEVICE_HOST)
    const int lane = jacobi_temporal_lane(s);
#else
    const int lane = JACOBI_TEMPORAL_THREADS + 2; /* the plan's pitch is the block */
#endif
    const uint64_t base = s->ctl->base;
    double acc[JACOBI_TEMPORAL_MAX_DEPTH];

    if (planted)
        jacobi_temporal_stream_run(s, pass, g, ex, acc, pass.depth, lane, 1);
    else if (pass.depth == 7)
        jacobi_temporal_stream_run(s, pass, g, ex, acc, 7, lane, 0);
    else if (pass.depth == 5)
        jacobi_temporal_stream_run(s, pass, g, ex, acc, 5, lane, 0);
    else if (pass.depth == 3)
        jacobi_temporal_stream_run(s, pass, g, ex, acc, 3, lane, 0);
    else
        jacobi_temporal_stream_run(s, pass, g, ex, acc, 1, lane, 0);
    /* the levels' norm iterations, from the pass again (the stream's own mask,
     * kept live to here, cost the kernel a spill: nvcc 13, sm_90) */
    JACOBI_TEMPORAL_UNROLL
    for (int t = 0; t < JACOBI_TEMPORAL_MAX_DEPTH; t++)
        if (t < pass.depth && pass.norms &&
            jacobi_norm_iteration(base, s->nccheck, pass.k0 + (uint64_t)t))
            jacobi_block_partial(acc[t], slots + t * JACOBI_BLOCK_SLOTS);
    shardtab_detail_block_sync();
    for (int t = 0; t < pass.depth; t++) {
        const int norm_iter =
            pass.norms && jacobi_norm_iteration(base, s->nccheck, pass.k0 + (uint64_t)t);
        const double sum = norm_iter ? jacobi_block_total(slots + t * JACOBI_BLOCK_SLOTS) : 0.0;
        if (shardtab_detail_block_leader())
            sums[t] = sum;
    }
}

#endif /* JACOBI_TEMPORAL_STREAM_H */
