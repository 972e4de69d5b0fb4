/* jacobi_temporal.h - --launch temporal (temporal blocking), written once for
 * every backend: the pass of one tile (the HIP and CUDA kernel of
 * jacobi_temporal.hip runs it in a block with the tile in shared memory; the
 * host backend, jacobi_temporal_host.c, in a loop with the tile in a buffer),
 * what the next pass is, and how a pass closes (the norms and the stop rule).
 *
 * A one-pass sweep reads and writes the whole grid every iteration, so at
 * large grids it cannot beat the device's copy rate. A pass of depth d does d
 * iterations for one read and one write: each tile of W x H points loads them
 * with a halo d deep on every side (rows periodic, as the problem's; columns
 * stop at the fixed boundary ones), and iteration i of the pass computes the
 * loaded region shrunk by i on every side (a trapezoid), so that after d
 * iterations its own W x H points are exact, with no exchange between tiles
 * inside a pass. The halo's points are computed again by each neighbour: the
 * price of reading the grid once every d iterations instead of every one.
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

#include <stdio.h>

#include "jacobi_onchip.h" /* jacobi_block_partial, jacobi_block_total, jacobi_block_sum */
#include "jacobi_op.h"
#include "jacobi_protocol.h"
#include "jacobi_sweep.h"
#include "shardtab_device.h"

/* ---- the tile ------------------------------------------------------------------------ */

/* The most own rows a tile has (a plan cuts no taller one). */
#define JACOBI_TEMPORAL_MAX_ROWS 64

/* A tile's buffer is (rows + 2 D) x (cols + 2 D) values, D the deepest pass:
 * local row r is the rank's row y0 - D + r (past the rank's edges: a
 * neighbour's deep ghost rows, or for a rank alone its own rows, periodic;
 * jacobi_temporal_source), local column c the
 * grid's column x0 - D + c. (Host and device: the plans size their shared
 * memory with these.) */
static JACOBI_HD inline int jacobi_temporal_pitch(const jacobi_step_t *s)
{
    return s->temporal_cols + 2 * s->temporal_depth;
}

static JACOBI_HD inline int jacobi_temporal_height(const jacobi_step_t *s)
{
    return s->temporal_rows + 2 * s->temporal_depth;
}

/* Values one buffer of a tile holds: the plan's shared memory is twice this. */
static JACOBI_HD inline size_t jacobi_temporal_buffer_values(const jacobi_step_t *s)
{
    return (size_t)jacobi_temporal_pitch(s) * (size_t)jacobi_temporal_height(s);
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

/* ---- one tile's pass ------------------------------------------------------------------- */

/* Where tile t of a pass lies: its own points, columns [x0, x1) and rank rows
 * [y0, y1); what it loads, local rows [r_lo, r_hi) and grid columns [g_lo,
 * g_hi) (the halo d deep, clipped to the grid's columns); and whether the
 * planted stale ghost row is this tile's. */
typedef struct jacobi_tile {
    int x0, x1, y0, y1;
    int r_lo, r_hi, g_lo, g_hi;
    int stale; /* JACOBI_FAULT_EDGE: the deepest halo row above loads the row below it */
} jacobi_tile_t;

SHARDTAB_DEVFN jacobi_tile_t jacobi_temporal_place(const jacobi_step_t *s, jacobi_pass_t pass, int t)
{
    const int nx = s->nx, D = s->temporal_depth, d = pass.depth;
    const int tx = t % s->temporal_tiles_x, ty = t / s->temporal_tiles_x;
    const uint64_t base = s->ctl->base;
    jacobi_tile_t g;

    g.x0 = 1 + tx * s->temporal_cols;
    g.y0 = ty * s->temporal_rows;
    g.x1 = g.x0 + s->temporal_cols < nx - 1 ? g.x0 + s->temporal_cols : nx - 1;
    g.y1 = g.y0 + s->temporal_rows < s->rows ? g.y0 + s->temporal_rows : s->rows;
    g.r_lo = D - d;
    g.r_hi = D + (g.y1 - g.y0) + d;
    g.g_lo = g.x0 - d > 0 ? g.x0 - d : 0;
    g.g_hi = g.x1 + d < nx ? g.x1 + d : nx;
    g.stale = s->fault.kind == JACOBI_FAULT_EDGE && pass.norms && pass.k0 - base <= (uint64_t)s->fault.iteration &&
              (uint64_t)s->fault.iteration < pass.k0 - base + (uint64_t)d && s->fault.row >= g.y0 &&
              s->fault.row < g.y1;
    return g;
}

/* The row that local row r of the tile loads at time k0: the rank's own from
 * a[k0 & 1]; above its first or below its last, the deep ghost rows of that
 * parity where there is a neighbour, else its own (periodic: a rank alone). (The planted stale
 * ghost row: the row one below the right one.) */
SHARDTAB_DEVFN const jacobi_real_t *jacobi_temporal_source(const jacobi_step_t *s, jacobi_pass_t pass,
                                                           const jacobi_tile_t *g, int r)
{
    const int y = g->y0 - s->temporal_depth + r + (g->stale && r == g->r_lo), p = (int)(pass.k0 & 1);
    const size_t nx = (size_t)s->nx;

    if (y < 0 && s->deep_top_dest[0])
        return s->deep[p] + (size_t)(JACOBI_TEMPORAL_MAX_DEPTH + y) * nx;
    if (y >= s->rows && s->deep_bottom_dest[0])
        return s->deep[p] + (size_t)(JACOBI_TEMPORAL_MAX_DEPTH + y - s->rows) * nx;
    return s->a[p] + (size_t)jacobi_temporal_row(y, s->rows) * nx;
}

/* The tile's points and halo from a[k0 & 1] into cur, and the fixed boundary
 * columns into next too (both buffers hold them): first each loaded row's
 * source, a row a thread, into a table the block shares (where a row comes
 * from is the row's, not each point's: a thread computing it for every point
 * of its column spent as many instructions on it as the sweep on the pass,
 * Nsight Compute, docs/performance.md); then a thread a column, its rows in
 * batches, so that a batch's loads are in flight together. */
#define JACOBI_TEMPORAL_LOAD_BATCH 8
SHARDTAB_DEVFN void jacobi_temporal_load(const jacobi_step_t *s, jacobi_pass_t pass, const jacobi_tile_t *g,
                                         jacobi_real_t *cur, jacobi_real_t *next)
{
    SHARDTAB_BLOCK_SHARED const jacobi_real_t *source[JACOBI_TEMPORAL_MAX_ROWS + 2 * JACOBI_TEMPORAL_MAX_DEPTH];
    const int pitch = jacobi_temporal_pitch(s), left = g->x0 - s->temporal_depth;
    const int thread = shardtab_block_thread(), threads = shardtab_block_threads();

    for (int r = g->r_lo + thread; r < g->r_hi; r += threads)
        source[r] = jacobi_temporal_source(s, pass, g, r);
    shardtab_block_sync();
    for (int x = g->g_lo + thread; x < g->g_hi; x += threads) {
        const int c = x - left, fixed = x == 0 || x == s->nx - 1;
        for (int r = g->r_lo; r < g->r_hi; r += JACOBI_TEMPORAL_LOAD_BATCH) {
            jacobi_real_t v[JACOBI_TEMPORAL_LOAD_BATCH];
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#pragma unroll
#endif
            for (int j = 0; j < JACOBI_TEMPORAL_LOAD_BATCH; j++)
                if (r + j < g->r_hi)
                    v[j] = source[r + j][x];
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#pragma unroll
#endif
            for (int j = 0; j < JACOBI_TEMPORAL_LOAD_BATCH; j++)
                if (r + j < g->r_hi) {
                    cur[(r + j) * pitch + c] = v[j];
                    if (fixed)
                        next[(r + j) * pitch + c] = v[j];
                }
        }
    }
}

/* Rows [r, end) of one column c of an iteration, from cur into next: up and
 * mid carried in registers (the rows above and at r), each row's down and its
 * left and right from cur. With `norm`, each point's squared residue is added
 * to *sum in row order. Returns the first row not done. */
SHARDTAB_DEVFN int jacobi_temporal_rows(const jacobi_real_t *cur, jacobi_real_t *next, int pitch, int c, int r,
                                        int end, jacobi_real_t *up, jacobi_real_t *mid, int norm, double *sum)
{
    const jacobi_real_t *p = cur + (size_t)r * (size_t)pitch + (size_t)c;
    jacobi_real_t *q = next + (size_t)r * (size_t)pitch + (size_t)c;
    jacobi_real_t u = *up, m = *mid;
    double acc = *sum;

#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#pragma unroll 4
#endif
    for (; r < end; r++, p += pitch, q += pitch) {
        const jacobi_real_t down = p[pitch];
        const jacobi_real_t v = jacobi_value(p[-1], p[1], u, down);
        *q = v;
        if (norm)
            acc += jacobi_residue2(v, m);
        u = m;
        m = down;
    }
    *up = u;
    *mid = m;
    *sum = acc;
    return r;
}

/* The planted bugs of iteration k on the point they name, after the
 * iteration's sweep and by the thread that swept its column: the point keeps
 * its value (STALE), or its residue counts twice (NORM: added to *sum). */
SHARDTAB_DEVFN void jacobi_temporal_plant(const jacobi_step_t *s, const jacobi_tile_t *g, uint64_t k, int norm_iter,
                                          int c_lo, int c_hi, const jacobi_real_t *cur, jacobi_real_t *next,
                                          double *sum)
{
    const int D = s->temporal_depth, pitch = jacobi_temporal_pitch(s), left = g->x0 - D;
    const int c = s->fault.col - left, r = s->fault.row - (g->y0 - D);

    if (!((s->fault.kind == JACOBI_FAULT_STALE || s->fault.kind == JACOBI_FAULT_NORM) &&
          k - s->ctl->base == (uint64_t)s->fault.iteration && s->fault.row >= g->y0 && s->fault.row < g->y1 &&
          s->fault.col >= g->x0 && s->fault.col < g->x1 && c >= c_lo && c < c_hi &&
          (c - c_lo) % shardtab_block_threads() == shardtab_block_thread()))
        return;
    if (s->fault.kind == JACOBI_FAULT_STALE)
        next[r * pitch + c] = cur[r * pitch + c];
    else if (norm_iter)
        *sum += jacobi_residue2(next[r * pitch + c], cur[r * pitch + c]);
}

/* The pass's iterations between the two buffers, cur holding the loaded
 * tile: iteration i computes the loaded region shrunk by i (the fixed columns
 * stay), a column a thread, its rows in three runs: the halo's above, the
 * tile's own (their residues summed where the iteration has a norm and the
 * column is the tile's own), the halo's below. Each iteration's sum goes,
 * warp by warp, into slots (JACOBI_BLOCK_SLOTS an iteration); past the pass's
 * last barrier the block's sums, sums[i] for every iteration of the pass
 * (0 where it has no norm: the leader's). Returns the buffer that holds the
 * last iteration's values. */
SHARDTAB_DEVFN jacobi_real_t *jacobi_temporal_sweep(const jacobi_step_t *s, jacobi_pass_t pass,
                                                    const jacobi_tile_t *g, jacobi_real_t *cur,
                                                    jacobi_real_t *next, double *slots, double *sums)
{
    const int nx = s->nx, D = s->temporal_depth, d = pass.depth, pitch = jacobi_temporal_pitch(s);
    const int left = g->x0 - D, own_lo = D, own_hi = D + (g->y1 - g->y0);
    const int thread = shardtab_block_thread(), threads = shardtab_block_threads();
    const uint64_t base = s->ctl->base;

    for (int i = 1; i <= d; i++) {
        const uint64_t k = pass.k0 + (uint64_t)(i - 1);
        const int norm_iter = pass.norms && jacobi_norm_iteration(base, s->nccheck, k);
        const int c_lo = (g->x0 - d + i > 1 ? g->x0 - d + i : 1) - left;
        const int c_hi = (g->x1 + d - i < nx - 1 ? g->x1 + d - i : nx - 1) - left;
        const int r_lo = g->r_lo + i, r_hi = g->r_hi - i;
        double sum = 0.0;

        for (int c = c_lo + thread; c < c_hi; c += threads) {
            const int x = c + left, own_x = x >= g->x0 && x < g->x1;
            jacobi_real_t up = cur[(r_lo - 1) * pitch + c], mid = cur[r_lo * pitch + c];
            int r = jacobi_temporal_rows(cur, next, pitch, c, r_lo, own_lo, &up, &mid, 0, &sum);
            if (norm_iter && own_x)
                r = jacobi_temporal_rows(cur, next, pitch, c, r, own_hi, &up, &mid, 1, &sum);
            (void)jacobi_temporal_rows(cur, next, pitch, c, r, r_hi, &up, &mid, 0, &sum);
        }
        jacobi_temporal_plant(s, g, k, norm_iter, c_lo, c_hi, cur, next, &sum);
        if (norm_iter)
            jacobi_block_partial(sum, slots + (i - 1) * JACOBI_BLOCK_SLOTS);
        shardtab_block_sync();
        jacobi_real_t *swap = cur;
        cur = next;
        next = swap;
    }
    for (int i = 0; i < d; i++) {
        const int norm_iter = pass.norms && jacobi_norm_iteration(base, s->nccheck, pass.k0 + (uint64_t)i);
        const double sum = norm_iter ? jacobi_block_total(slots + i * JACOBI_BLOCK_SLOTS) : 0.0;
        if (shardtab_block_leader())
            sums[i] = sum;
    }
    return cur;
}

/* The tile's own points from the pass's last buffer into a[(k0 + d) & 1], its
 * first and last rank rows also into the ghost rows of that time (a rank
 * alone: its own rows, periodic); between ranks, its rows among the rank's
 * first and last D also into the neighbours' deep ghost rows of that time. */
SHARDTAB_DEVFN void jacobi_temporal_store(const jacobi_step_t *s, jacobi_pass_t pass, const jacobi_tile_t *g,
                                          const jacobi_real_t *last)
{
    const int D = s->temporal_depth, pitch = jacobi_temporal_pitch(s), left = g->x0 - D;
    const int q = (int)((pass.k0 + (uint64_t)pass.depth) & 1);
    const int thread = shardtab_block_thread(), threads = shardtab_block_threads();
    const size_t nx = (size_t)s->nx;
    /* a tile with no row among the rank's first or last D: its own rows only */
    const int edge = g->y0 < D || g->y1 > s->rows - D;

    for (int y = g->y0; y < g->y1 && !edge; y++) {
        const jacobi_real_t *row = last + (y - g->y0 + D) * pitch - left;
        jacobi_real_t *dst = s->a[q] + (size_t)y * nx;
        for (int x = g->x0 + thread; x < g->x1; x += threads)
            dst[x] = row[x];
    }
    for (int y = g->y0; y < g->y1 && edge; y++) {
        const jacobi_real_t *row = last + (y - g->y0 + D) * pitch - left;
        jacobi_real_t *dst = s->a[q] + (size_t)y * nx;
        jacobi_real_t *up = s->deep_top_dest[q] && y < D ? s->deep_top_dest[q] + (size_t)y * nx : 0;
        jacobi_real_t *down = s->deep_bottom_dest[q] && y >= s->rows - D
                                  ? s->deep_bottom_dest[q] + (size_t)(JACOBI_TEMPORAL_MAX_DEPTH + y - s->rows) * nx
                                  : 0;
        for (int x = g->x0 + thread; x < g->x1; x += threads) {
            const jacobi_real_t v = row[x];
            dst[x] = v;
            if (up)
                up[x] = v;
            if (down)
                down[x] = v;
            if (y == 0 && s->top_dest[q])
                s->top_dest[q][x] = v;
            if (y == s->rows - 1 && s->bottom_dest[q])
                s->bottom_dest[q][x] = v;
        }
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

/* Tile t's whole pass: the neighbours it meets waited for, load, sweep,
 * store; slots and sums as the sweep's (all 0 where it does not run: a wait
 * gave up, or the planted LAG fault). */
SHARDTAB_DEVFN void jacobi_temporal_tile(const jacobi_step_t *s, jacobi_pass_t pass, int t,
                                         jacobi_real_t *cur, jacobi_real_t *next, double *slots, double *sums)
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
    jacobi_temporal_load(s, pass, &g, cur, next);
    shardtab_block_sync();
    jacobi_temporal_store(s, pass, &g, jacobi_temporal_sweep(s, pass, &g, cur, next, slots, sums));
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

/* ---- the plans' side (host code) ------------------------------------------------------- */

/* Why this solve cannot run in temporal passes of up to depth, whatever the
 * device: 0, or 1 with the reason in why. The norm decided on the device (a
 * job of one node); a rank alone reads its own rows as its ghost rows; a rank
 * with neighbours (of its node: variant table) needs their deep ghost rows
 * wired, and at least depth rows of its own, the rows it gives them a pass.
 * (A rank alone needs none of this.) */
static inline int jacobi_temporal_unfit(const jacobi_step_t *s, int depth, char *why, size_t why_bytes)
{
    const int top = s->top_peer >= 0, bottom = s->bottom_peer >= 0;

    if (!s->device_norm || !s->top_dest[0] || !s->bottom_dest[0]) {
        snprintf(why, why_bytes, "temporal passes need every neighbour on the node and the norm decided on "
                 "the device (variant table, a job of one node)");
        return 1;
    }
    if ((top || bottom) && (!s->device_sync || (top && !s->deep_top_dest[0]) ||
                            (bottom && !s->deep_bottom_dest[0]))) {
        snprintf(why, why_bytes, "temporal passes between ranks need the neighbours' deep ghost rows through "
                 "the table (variant table)");
        return 1;
    }
    if ((top || bottom) && s->rows < depth) {
        snprintf(why, why_bytes, "a rank of %d rows cannot give its neighbours the %d rows a temporal pass "
                 "of depth %d reads past its edge: fewer ranks, or JACOBI_TEMPORAL_DEPTH=%d",
                 s->rows, depth, depth, s->rows % 2 ? s->rows : s->rows - 1);
        return 1;
    }
    return 0;
}

/* The tile a plan cuts for depth (odd, 1 to JACOBI_TEMPORAL_MAX_DEPTH): cols x
 * rows own points; the tiles that cover the rank. Where a block's shared
 * memory cannot hold the two buffers (bytes_per_block; an MI250X GCD gives 64
 * KB), the rows are halved until they fit, down to 4: returns 0, or -1 when
 * even that does not fit. */
static inline int jacobi_temporal_cut(jacobi_step_t *s, int depth, int cols, int rows, size_t bytes_per_block)
{
    s->temporal_depth = depth;
    s->temporal_cols = cols;
    s->temporal_rows = rows < JACOBI_TEMPORAL_MAX_ROWS ? rows : JACOBI_TEMPORAL_MAX_ROWS;
    while (s->temporal_rows > 4 && 2 * jacobi_temporal_buffer_values(s) * sizeof(jacobi_real_t) > bytes_per_block)
        s->temporal_rows /= 2;
    s->temporal_tiles_x = (s->nx - 2 + cols - 1) / cols;
    s->temporal_tiles_y = (s->rows + s->temporal_rows - 1) / s->temporal_rows;
    return 2 * jacobi_temporal_buffer_values(s) * sizeof(jacobi_real_t) <= bytes_per_block ? 0 : -1;
}

#if defined(SHARDTAB_DEVICE_HOST)
/* The host backend's temporal plan (jacobi_temporal_host.c), for
 * jacobi_sweep_host.c: sized and allocated (0, or 1 with the reason), freed, run. */
int jacobi_temporal_host_prepare(jacobi_step_t *s, int depth, char *why, size_t why_bytes);
void jacobi_temporal_host_release(jacobi_step_t *s);
void jacobi_temporal_host_run(const jacobi_step_t *s, uint64_t count);
#endif

#endif /* JACOBI_TEMPORAL_H */
