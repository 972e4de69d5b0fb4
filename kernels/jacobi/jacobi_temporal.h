/* jacobi_temporal.h - --launch temporal (temporal blocking), written once for
 * every backend: the pass of one tile, a stream down its columns (the HIP and
 * CUDA kernel of jacobi_temporal.hip runs it in a block, a thread a column,
 * the neighbours' values in shared memory; the host backend,
 * jacobi_temporal_host.c, in one thread over every column of the tile), what
 * the next pass is, and how a pass closes (the norms and the stop rule).
 *
 * A one-pass sweep reads and writes the whole grid every iteration, so at
 * large grids it cannot beat the device's copy rate. A pass of depth d does d
 * iterations for one read and one write: each tile of W x H points reads them
 * with a halo d deep on every side (rows periodic, as the problem's; columns
 * stop at the fixed boundary ones) and computes the pass's iterations as
 * levels of a stream down its columns (jacobi_temporal_stream_run), so that
 * after d of them its own W x H points are exact, with no exchange between
 * tiles inside a pass. The halo's points are computed again by each
 * neighbour: the price of reading the grid once every d iterations instead
 * of every one.
 *
 * The norm every iteration, as every mode: iteration i's squared residues of
 * the tile's own points only (never its halo's), one sum a tile and iteration,
 * summed over the tiles in a fixed order when the pass closes; then the stop
 * rule of jacobi_protocol.h, iteration after iteration (jacobi_close_step), as
 * a launch per step applies it. Where the rule stops the solve inside a pass,
 * the pass's output is past the stop; its input, a[k0 & 1], is intact (a pass
 * reads one buffer and writes the other), so the pass runs again from it, up
 * to the stop, without norms (ctl->redo): the state a solve returns is exactly
 * the state at its stopping iteration.
 *
 * Depths are odd: a pass writes the other buffer, and the state at time k
 * must be in a[k & 1]. A run of an even number of iterations ends with a
 * pass one shorter and a pass of one.
 *
 * A rank alone reads its own first and last rows as its ghost rows
 * (periodic), in place. Between the ranks of a node each rank keeps deep
 * ghost rows, JACOBI_TEMPORAL_MAX_DEPTH above and below for each parity
 * (jacobi_deep_rows), and a pass's store writes the tile's rows among the
 * rank's first and last temporal_depth into the neighbours' (through the
 * table): one exchange a pass, not one an iteration. The passes are counted
 * (ctl->passes, reruns included, the same on every rank: the stop is the
 * node's), and pass n reads a[k0 & 1] and writes the other parity on every
 * rank alike. After pass n each rank tells both neighbours n, and a tile
 * that reads a neighbour's rows or writes into its deep rows waits, before it
 * loads, for that neighbour's n - 1. So neighbours are at most one pass
 * apart, and the wait covers both ways: the neighbour's rows of this pass's
 * input (its pass n - 1's, or for a rerun the stopped pass's input, which no
 * pass since has written) are in; and every read of the parity this pass
 * writes was made in a pass before n, all done (a neighbour's pass n reads
 * the parity this rank's pass n reads, and its pass n + 1 waits for this
 * one). A tile that waits holds its multiprocessor while it spins: where
 * ranks share one GPU (MPS), a grid so wide that the waiting tiles of a row
 * (2 x tiles_x) fill every block slot of the device could starve the
 * neighbour it waits for, until the wait's time limit; ranks of their own
 * GPUs cannot.
 *
 * Every function is called by every thread of a block unless it says one
 * thread (the host backend's block is one thread).
 */
#ifndef JACOBI_TEMPORAL_H
#define JACOBI_TEMPORAL_H

#include "jacobi_onchip.h" /* jacobi_block_partial, jacobi_block_total, jacobi_block_sum */
#include "jacobi_op.h"
#include "jacobi_protocol.h"
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
    uint64_t k0; /* the time it reads, from a[k0 & 1]; it writes a[(k0 + depth) & 1] */
    uint64_t number; /* 1 + the passes run before it, all solves: what it tells the neighbours */
    int depth;   /* iterations, odd; 0: nothing to run */
    int norms;   /* 1: a pass of the solve, summed and decided; 0: run again after a stop
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

/* ---- one tile's pass: a stream down its columns ------------------------------------------ */

/* Where tile t of a pass lies: its own points, columns [x0, x1) and rank rows
 * [y0, y1); and whether the planted stale ghost row is this tile's. */
typedef struct jacobi_tile {
    int x0, x1, y0, y1;
    int stale; /* JACOBI_FAULT_EDGE: the deepest halo row above loads the row below it */
} jacobi_tile_t;

SHARDTAB_DEVFN jacobi_tile_t jacobi_temporal_place(const jacobi_step_t *s, jacobi_pass_t pass, int t)
{
    const int nx = s->nx, d = pass.depth;
    const int tx = t % s->temporal_tiles_x, ty = t / s->temporal_tiles_x;
    const uint64_t base = s->ctl->base;
    jacobi_tile_t g;

    g.x0 = 1 + tx * s->temporal_cols;
    g.y0 = ty * s->temporal_rows;
    g.x1 = g.x0 + s->temporal_cols < nx - 1 ? g.x0 + s->temporal_cols : nx - 1;
    g.y1 = g.y0 + s->temporal_rows < s->rows ? g.y0 + s->temporal_rows : s->rows;
    g.stale = s->fault.kind == JACOBI_FAULT_EDGE && pass.norms && pass.k0 - base <= (uint64_t)s->fault.iteration &&
              (uint64_t)s->fault.iteration < pass.k0 - base + (uint64_t)d && s->fault.row >= g.y0 &&
              s->fault.row < g.y1;
    return g;
}

/* The row that step j of the tile's stream loads at time k0, rank row
 * y0 - d + j: the rank's own from a[k0 & 1]; above its first or below its
 * last, the deep ghost rows of that parity where there is a neighbour, else
 * its own (periodic: a rank alone). (The planted stale ghost row: the row one
 * below the right one.) */
SHARDTAB_DEVFN const jacobi_real_t *jacobi_temporal_source(const jacobi_step_t *s, jacobi_pass_t pass,
                                                           const jacobi_tile_t *g, int j)
{
    const int y = g->y0 - pass.depth + j + (g->stale && j == 0), p = (int)(pass.k0 & 1);
    const size_t nx = (size_t)s->nx;

    /* a parity's pointer by a select, not an index: an indexed field would keep
     * the kernel's by-value step in private memory on AMD (scratch) */
    if (y < 0 && s->deep_top_dest[0])
        return (p ? s->deep[1] : s->deep[0]) + (size_t)(JACOBI_TEMPORAL_MAX_DEPTH + y) * nx;
    if (y >= s->rows && s->deep_bottom_dest[0])
        return (p ? s->deep[1] : s->deep[0]) + (size_t)(JACOBI_TEMPORAL_MAX_DEPTH + y - s->rows) * nx;
    return (p ? s->a[1] : s->a[0]) + (size_t)jacobi_temporal_row(y, s->rows) * nx;
}

/* Local columns one thread of a block streams: one on a GPU (a block of
 * JACOBI_TEMPORAL_THREADS threads, a thread a column), every one of the tile
 * on the host backend (its block is one thread; its plan's tiles are at most
 * this wide). */
#if defined(SHARDTAB_DEVICE_HOST)
#define JACOBI_TEMPORAL_THREAD_COLS 32
#define JACOBI_TEMPORAL_INLINE static inline
#define JACOBI_TEMPORAL_UNROLL
#else
#define JACOBI_TEMPORAL_THREADS 256
#define JACOBI_TEMPORAL_THREAD_COLS 1
#define JACOBI_TEMPORAL_INLINE __device__ static __forceinline__
#define JACOBI_TEMPORAL_UNROLL _Pragma("unroll")
#endif
/* Rows a thread's loads run ahead of the row it uses, so that they are in
 * flight while it computes; steps of the stream's middle unrolled, so that
 * its registers' rotation is renaming, not moves (-D for a measurement). */
#ifndef JACOBI_TEMPORAL_AHEAD
#define JACOBI_TEMPORAL_AHEAD 3
#endif
#ifndef JACOBI_TEMPORAL_STEP_UNROLL
#if defined(SHARDTAB_DEVICE_HIP) /* clang does not unroll a loop with a barrier and a remainder */
#define JACOBI_TEMPORAL_STEP_UNROLL 1
#else
#define JACOBI_TEMPORAL_STEP_UNROLL 3
#endif
#endif
#if defined(SHARDTAB_DEVICE_HOST)
#define JACOBI_TEMPORAL_UNROLL_STEPS
#else
#define JACOBI_TEMPORAL_PRAGMA(x) _Pragma(#x)
#define JACOBI_TEMPORAL_UNROLL_BY(n) JACOBI_TEMPORAL_PRAGMA(unroll n)
#define JACOBI_TEMPORAL_UNROLL_STEPS JACOBI_TEMPORAL_UNROLL_BY(JACOBI_TEMPORAL_STEP_UNROLL)
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
JACOBI_TEMPORAL_INLINE void jacobi_temporal_put(const jacobi_stream_plan_t *m, int y, int x, jacobi_real_t v)
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
JACOBI_TEMPORAL_INLINE const jacobi_real_t *jacobi_temporal_stream_row(const jacobi_step_t *s, jacobi_pass_t pass,
                                                                       const jacobi_tile_t *g,
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
JACOBI_TEMPORAL_INLINE void jacobi_temporal_step(const jacobi_step_t *s, jacobi_pass_t pass, const jacobi_tile_t *g,
                                                 const jacobi_stream_plan_t *m, jacobi_stream_t *st,
                                                 jacobi_real_t *ex, int j, const int d, const int lane,
                                                 const int planted, const int every)
{
    const int nx = m->nx, pitch = m->pitch;
    const int thread = shardtab_block_thread(), threads = shardtab_block_threads();
    const jacobi_real_t *rd = ex + ((j + 1) & 1) * lane + 1;
    jacobi_real_t *wr = ex + (j & 1) * lane + 1;
    const jacobi_real_t *src = jacobi_temporal_stream_row(s, pass, g, m, j + JACOBI_TEMPORAL_AHEAD);
    /* level t's row j - t is own row j - t - d; the bits move up a level a step */
    st->own_levels = ((st->own_levels << 1) | ((unsigned)(j - 1 - d) < (unsigned)m->own_rows)) & ((1 << d) - 1);
    const int normed = every ? (1 << d) - 1 : st->own_levels & m->norm_mask;
    const int out = every || (unsigned)(j - 2 * d) < (unsigned)m->own_rows;

    JACOBI_TEMPORAL_UNROLL
    for (int k = 0; k < JACOBI_TEMPORAL_THREAD_COLS; k++) {
        const int c = thread + k * threads, x = m->left + c;
        if (JACOBI_TEMPORAL_THREAD_COLS > 1 && c >= pitch)
            break;
        const int in_grid = x >= 0 && x < nx, fixed = x == 0 || x == nx - 1, own = x >= g->x0 && x < g->x1;
        const int summed = own | (JACOBI_TEMPORAL_THREAD_COLS == 1); /* 1 or 0, a bit to mask with */
        jacobi_real_t down = st->ahead[k][0];
        JACOBI_TEMPORAL_UNROLL
        for (int a = 0; a + 1 < JACOBI_TEMPORAL_AHEAD; a++)
            st->ahead[k][a] = st->ahead[k][a + 1];
        st->ahead[k][JACOBI_TEMPORAL_AHEAD - 1] = src && in_grid ? src[x] : (jacobi_real_t)0;
        /* every level's values first, then their stores into the buffer: no
         * store of the step before a load, so that the loads go where they are used */
        JACOBI_TEMPORAL_UNROLL
        for (int t = 1; t <= JACOBI_TEMPORAL_MAX_DEPTH; t++) {
            if (t <= d) { /* a guard, not a break: a loop clang unrolls whole where d is not a constant */
                const jacobi_real_t old = st->mid[k][t - 1];
                const jacobi_real_t *near = rd + 2 * (t - 1) * lane + c; /* level t - 1 at row j - t */
                jacobi_real_t v = fixed ? old : jacobi_value(near[-1], near[1], st->up[k][t - 1], down);
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
                                                       const jacobi_tile_t *g, jacobi_real_t *ex, double *acc,
                                                       const int d, const int lane, const int planted)
{
    const int D = s->temporal_depth, own_rows = g->y1 - g->y0, steps = own_rows + 2 * d;
    const int thread = shardtab_block_thread(), threads = shardtab_block_threads();
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
        m.norm_mask |= (pass.norms && jacobi_norm_iteration(base, s->nccheck, pass.k0 + (uint64_t)(t - 1))) << (t - 1);
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
        shardtab_block_sync();
    }
    JACOBI_TEMPORAL_UNROLL_STEPS
    for (; j < middle_end; j++) {
        jacobi_temporal_step(s, pass, g, &m, &st, ex, j, d, lane, planted, 1);
        shardtab_block_sync();
    }
    for (; j < steps; j++) {
        jacobi_temporal_step(s, pass, g, &m, &st, ex, j, d, lane, planted, 0);
        shardtab_block_sync();
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
                                                   const jacobi_tile_t *g, jacobi_real_t *ex, double *slots,
                                                   double *sums, const int planted)
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
        if (t < pass.depth && pass.norms && jacobi_norm_iteration(base, s->nccheck, pass.k0 + (uint64_t)t))
            jacobi_block_partial(acc[t], slots + t * JACOBI_BLOCK_SLOTS);
    shardtab_block_sync();
    for (int t = 0; t < pass.depth; t++) {
        const int norm_iter = pass.norms && jacobi_norm_iteration(base, s->nccheck, pass.k0 + (uint64_t)t);
        const double sum = norm_iter ? jacobi_block_total(slots + t * JACOBI_BLOCK_SLOTS) : 0.0;
        if (shardtab_block_leader())
            sums[t] = sum;
    }
}

/* ---- the neighbour ranks -------------------------------------------------------------- */

/* Does tile g read rows of the top (bottom) neighbour, or write into its deep
 * ghost rows? (A pass reads at most D rows past the rank's edge, and writes
 * the rank's first and last D.) */
SHARDTAB_DEVFN int jacobi_temporal_meets_top(const jacobi_step_t *s, const jacobi_tile_t *g)
{
    return s->deep_top_dest[0] && g->y0 < s->temporal_depth;
}

SHARDTAB_DEVFN int jacobi_temporal_meets_bottom(const jacobi_step_t *s, const jacobi_tile_t *g)
{
    return s->deep_bottom_dest[0] && g->y1 > s->rows - s->temporal_depth;
}

/* Before tile g loads: each neighbour it meets has finished pass number - 1.
 * Returns 1 to go on, 0 when a wait gave up (the solve fails, ending after
 * k0), in every thread. rec: the pass's trace record, or NULL. */
SHARDTAB_DEVFN int jacobi_temporal_wait(const jacobi_step_t *s, jacobi_pass_t pass, const jacobi_tile_t *g,
                                        uint64_t *rec)
{
    const uint64_t t0 = rec ? shardtab_clock() : 0;
    int status = SHARDTAB_WAIT_OK;

    if (jacobi_temporal_meets_top(s, g))
        status = shardtab_signal_wait_block(&s->sig, JACOBI_SLOT_FROM_TOP, SHARDTAB_CMP_GE, pass.number - 1);
    if (status == SHARDTAB_WAIT_OK && jacobi_temporal_meets_bottom(s, g))
        status = shardtab_signal_wait_block(&s->sig, JACOBI_SLOT_FROM_BOTTOM, SHARDTAB_CMP_GE, pass.number - 1);
    if (status != SHARDTAB_WAIT_OK && shardtab_block_leader())
        jacobi_fail_at(s, pass.k0);
    if (rec && shardtab_block_leader())
        jacobi_trace_max(rec, JACOBI_TRACE_WAIT, shardtab_clock() - t0);
    return status == SHARDTAB_WAIT_OK;
}

/* The trace record of a pass of the solve (its first iteration's), or NULL:
 * no trace, or a pass run again after a stop. */
SHARDTAB_DEVFN uint64_t *jacobi_temporal_rec(const jacobi_step_t *s, jacobi_pass_t pass)
{
    return pass.norms ? jacobi_trace_of(s, pass.k0, s->ctl->base) : (uint64_t *)0;
}

/* Every thread of a tile that stored into a neighbour's deep ghost rows, before
 * its leader's ticket: every wave's stores released where the target needs it
 * (shardtab_device.h), then the block's barrier, so that the ticket's release
 * covers the whole block's stores, not only the leader's (the gfx90a code of
 * this order is checked, tests/order). */
SHARDTAB_DEVFN void jacobi_temporal_release_block(void)
{
    shardtab_fence_before_block_release();
    shardtab_block_sync();
}

/* One thread of a GPU block, once the block's sums are published: its
 * ticket; is it the pass's last of `arrivals`? The block's stores are
 * released before it, at device scope (its sums), or at system scope where it
 * stored into a neighbour (to_peers, after jacobi_temporal_release_block);
 * the last block acquires them after (the host backend runs its tiles in
 * order and takes none). */
SHARDTAB_DEVFN int jacobi_temporal_ticket(const jacobi_step_t *s, uint64_t arrivals, int to_peers)
{
    if (to_peers)
        shardtab_fence();
    else
        shardtab_fence_release_device();
    return (shardtab_fetch_add_relaxed_system(&s->ctl->arrived, 1) + 1) % arrivals == 0;
}

/* One thread, once every tile of the pass has stored (each wave's stores
 * released and the block's barrier, jacobi_temporal_release_block; then the
 * system-scope fence of the leader's ticket, jacobi_temporal_ticket): pass
 * number is done here, told to each neighbour (this rank is its bottom
 * neighbour's top, its top neighbour's bottom). Never after a failed wait:
 * the neighbours' own waits then give up. A rank alone: nothing. */
SHARDTAB_DEVFN void jacobi_temporal_signal(const jacobi_step_t *s, jacobi_pass_t pass)
{
    if (s->ctl->failed || s->skip_signal || !(s->deep_top_dest[0] || s->deep_bottom_dest[0]))
        return;
    shardtab_fence(); /* every tile's stores, seen through the ticket, before the signals */
    if (s->deep_top_dest[0])
        shardtab_signal_set(&s->sig, s->top_peer, JACOBI_SLOT_FROM_BOTTOM, pass.number);
    if (s->deep_bottom_dest[0])
        shardtab_signal_set(&s->sig, s->bottom_peer, JACOBI_SLOT_FROM_TOP, pass.number);
}

/* The planted LAG fault: no pass is run again after a stop inside one; the
 * rerun still counts (its tiles compute nothing), so that every rank's passes
 * stay paired, and the state stays the stopped pass's. */
SHARDTAB_DEVFN int jacobi_temporal_lags(const jacobi_step_t *s, jacobi_pass_t pass)
{
    return !pass.norms && s->fault.kind == JACOBI_FAULT_LAG;
}

/* Tile t's whole pass: the neighbours it meets waited for, then its stream
 * (ex: the block's exchange buffer; planted: jacobi_temporal_planted); slots
 * and sums as the stream's (all 0 where it does not run: a wait gave up, or
 * the planted LAG fault). */
JACOBI_TEMPORAL_INLINE void jacobi_temporal_tile(const jacobi_step_t *s, jacobi_pass_t pass, int t,
                                                 jacobi_real_t *ex, double *slots, double *sums, const int planted)
{
    const jacobi_tile_t g = jacobi_temporal_place(s, pass, t);
    const int to_peers = jacobi_temporal_meets_top(s, &g) || jacobi_temporal_meets_bottom(s, &g);
    uint64_t *rec = jacobi_temporal_rec(s, pass);

    if (rec && shardtab_block_leader())
        jacobi_trace_min(rec, JACOBI_TRACE_BEGIN, shardtab_clock());
    if (!jacobi_temporal_wait(s, pass, &g, rec) || jacobi_temporal_lags(s, pass)) {
        for (int i = 0; i < pass.depth && shardtab_block_leader(); i++)
            sums[i] = 0.0;
        return;
    }
    jacobi_temporal_stream(s, pass, &g, ex, slots, sums, planted);
    /* every thread's stores into a neighbour before the leader's ticket releases them */
    if (to_peers)
        jacobi_temporal_release_block();
    else if (rec)
        shardtab_block_sync();
    if (rec && shardtab_block_leader())
        jacobi_trace_max(rec, JACOBI_TRACE_SWEPT, shardtab_clock());
}

/* One thread: tile t's sums of the pass's iterations into temporal_partials,
 * where the close reads them. */
SHARDTAB_DEVFN void jacobi_temporal_publish(const jacobi_step_t *s, jacobi_pass_t pass, int t, const double *sums)
{
    const size_t tiles = (size_t)s->temporal_tiles_x * (size_t)s->temporal_tiles_y;

    for (int i = 0; i < pass.depth; i++)
        s->temporal_partials[(size_t)i * tiles + (size_t)t] = sums[i];
}

/* One thread, before a run's first pass: no pass goes past count iterations
 * from here, and the passes' tickets count from 0. */
SHARDTAB_DEVFN void jacobi_temporal_begin_run(const jacobi_step_t *s, uint64_t count)
{
    s->ctl->run_end = s->ctl->iteration + count;
    s->ctl->arrived = 0;
}

/* ---- closing a pass ------------------------------------------------------------------- */

/* The last tile of a pass, once every tile's sums are in temporal_partials:
 * for each iteration of the pass, the rank's squared norm (the tiles' sums in
 * tile order, a block-wide sum in a fixed order; every iteration's loads in
 * flight at once), then the step's close
 * (jacobi_close_step: the decision on the norm before, the stop, the next
 * iteration). A stop before the pass's last iteration leaves ctl->redo for the
 * next pass. A pass run again closes by clearing ctl->redo where it has
 * reached the stop. Every pass counts itself into ctl->passes. */
SHARDTAB_DEVFN void jacobi_temporal_close(const jacobi_step_t *s, jacobi_pass_t pass)
{
    SHARDTAB_BLOCK_SHARED double local2, slots[JACOBI_TEMPORAL_MAX_DEPTH * JACOBI_BLOCK_SLOTS];
    SHARDTAB_BLOCK_SHARED int stopped;
    jacobi_ctl_t *ctl = s->ctl;
    const int tiles = s->temporal_tiles_x * s->temporal_tiles_y;
    const int thread = shardtab_block_thread(), threads = shardtab_block_threads();
    const uint64_t base = ctl->base, end = pass.k0 + (uint64_t)pass.depth;

    if (shardtab_block_leader())
        ctl->passes = pass.number;
    if (ctl->failed) /* a tile's wait gave up: nothing to decide */
        return;
    if (!pass.norms) {
        if (shardtab_block_leader())
            ctl->redo = end < ctl->iteration ? end + 1 : 0;
        return;
    }
    /* every iteration's tile sums at once, each in tile order (the loads of
     * all the pass's iterations in flight together), then warp by warp */
    double sum[JACOBI_TEMPORAL_MAX_DEPTH];
    int norm_mask = 0;
    for (int i = 0; i < JACOBI_TEMPORAL_MAX_DEPTH; i++) {
        sum[i] = 0.0;
        norm_mask |= (i < pass.depth && jacobi_norm_iteration(base, s->nccheck, pass.k0 + (uint64_t)i)) << i;
    }
    for (int t = thread; t < tiles; t += threads) {
        const double *p = s->temporal_partials + (size_t)t;
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#pragma unroll
#endif
        for (int i = 0; i < JACOBI_TEMPORAL_MAX_DEPTH; i++)
            if (norm_mask >> i & 1)
                sum[i] += p[(size_t)i * (size_t)tiles];
    }
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#pragma unroll
#endif
    for (int i = 0; i < JACOBI_TEMPORAL_MAX_DEPTH; i++)
        jacobi_block_partial(sum[i], slots + i * JACOBI_BLOCK_SLOTS);
    shardtab_block_sync();
    for (int i = 0; i < pass.depth; i++) {
        const uint64_t k = pass.k0 + (uint64_t)i;
        const double total = norm_mask >> i & 1 ? jacobi_block_total(slots + i * JACOBI_BLOCK_SLOTS) : 0.0;
        if (shardtab_block_leader())
            local2 = total;
        shardtab_block_sync();
        jacobi_close_step(s, k, base, &local2, (uint64_t *)0);
        if (shardtab_block_leader())
            stopped = ctl->stop_at <= k + 1 || ctl->failed;
        shardtab_block_sync();
        if (stopped) {
            if (shardtab_block_leader() && !ctl->failed && k + 1 < end)
                ctl->redo = pass.k0 + 1;
            return;
        }
    }
}

/* The pass's last block, once every tile's sums are in (its ticket): the
 * neighbours told, the pass closed; the trace's arrival, signal, norm (the
 * whole close) and end. */
SHARDTAB_DEVFN void jacobi_temporal_finish(const jacobi_step_t *s, jacobi_pass_t pass)
{
    uint64_t *rec = jacobi_temporal_rec(s, pass);
    const uint64_t t0 = rec ? shardtab_clock() : 0;
    uint64_t t1 = 0;

    if (shardtab_block_leader()) {
        jacobi_temporal_signal(s, pass);
        if (rec) {
            t1 = shardtab_clock();
            rec[JACOBI_TRACE_ARRIVED] = t0;
            rec[JACOBI_TRACE_SIGNAL] = t1 - t0;
        }
    }
    jacobi_temporal_close(s, pass);
    if (rec && shardtab_block_leader()) {
        const uint64_t now = shardtab_clock();
        rec[JACOBI_TRACE_NORM] = now - t1;
        rec[JACOBI_TRACE_END] = now;
    }
}

#endif /* JACOBI_TEMPORAL_H */
