/* jacobi_temporal.h - --launch temporal (temporal blocking), written once for
 * every backend (the HIP and CUDA kernel of jacobi_temporal.hip runs a tile
 * in a block, a thread a column, the neighbours' values in shared memory; the
 * host backend, jacobi_temporal_host.c, in one thread over every column of
 * the tile). This header: the neighbour ranks' waits and signals, a tile's
 * whole pass, and how a pass closes (the norms and the stop rule); where a
 * tile lies and what the next pass is: jacobi_temporal_tile.h; the pass of
 * one tile, a stream down its columns: jacobi_temporal_stream.h.
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
 * (the solver's JACOBI_FACES_DEEP), and a pass's store writes the tile's rows among the
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
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_TEMPORAL_H
#define JACOBI_TEMPORAL_H

#include "jacobi_block_sum.h"
#include "jacobi_op.h"
#include "jacobi_protocol.h"
#include "jacobi_sweep.h"
#include "jacobi_temporal_stream.h"
#include "jacobi_temporal_tile.h"
#include "shardtab_device.h"

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
SHARDTAB_DEVFN int jacobi_temporal_wait(const jacobi_step_t *s, jacobi_pass_t pass,
                                        const jacobi_tile_t *g, uint64_t *rec)
{
    const uint64_t t0 = rec ? shardtab_detail_clock() : 0;
    int status = SHARDTAB_WAIT_OK;

    if (jacobi_temporal_meets_top(s, g))
        status = shardtab_signal_wait_block(&s->sig, JACOBI_SLOT_FROM_TOP, SHARDTAB_CMP_GE,
                                            pass.number - 1);
    if (status == SHARDTAB_WAIT_OK && jacobi_temporal_meets_bottom(s, g))
        status = shardtab_signal_wait_block(&s->sig, JACOBI_SLOT_FROM_BOTTOM, SHARDTAB_CMP_GE,
                                            pass.number - 1);
    if (status != SHARDTAB_WAIT_OK && shardtab_detail_block_leader())
        jacobi_fail_at(s, pass.k0);
    if (rec && shardtab_detail_block_leader())
        jacobi_trace_max(rec, JACOBI_TRACE_WAIT, shardtab_detail_clock() - t0);
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
    shardtab_detail_fence_before_block_release();
    shardtab_detail_block_sync();
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
        shardtab_detail_fence();
    else
        shardtab_detail_fence_release_device();
    return (shardtab_detail_fetch_add_relaxed_system(&s->ctl->arrived, 1) + 1) % arrivals == 0;
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
    shardtab_detail_fence(); /* every tile's stores, seen through the ticket, before the signals */
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
                                                 jacobi_real_t *ex, double *slots, double *sums,
                                                 const int planted)
{
    const jacobi_tile_t g = jacobi_temporal_place(s, pass, t);
    const int to_peers = jacobi_temporal_meets_top(s, &g) || jacobi_temporal_meets_bottom(s, &g);
    uint64_t *rec = jacobi_temporal_rec(s, pass);

    if (rec && shardtab_detail_block_leader())
        jacobi_trace_min(rec, JACOBI_TRACE_BEGIN, shardtab_detail_clock());
    if (!jacobi_temporal_wait(s, pass, &g, rec) || jacobi_temporal_lags(s, pass)) {
        for (int i = 0; i < pass.depth && shardtab_detail_block_leader(); i++)
            sums[i] = 0.0;
        return;
    }
    jacobi_temporal_stream(s, pass, &g, ex, slots, sums, planted);
    /* every thread's stores into a neighbour before the leader's ticket releases them */
    if (to_peers)
        jacobi_temporal_release_block();
    else if (rec)
        shardtab_detail_block_sync();
    if (rec && shardtab_detail_block_leader())
        jacobi_trace_max(rec, JACOBI_TRACE_SWEPT, shardtab_detail_clock());
}

/* One thread: tile t's sums of the pass's iterations into temporal_partials,
 * where the close reads them. */
SHARDTAB_DEVFN void jacobi_temporal_publish(const jacobi_step_t *s, jacobi_pass_t pass, int t,
                                            const double *sums)
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
    const int thread = shardtab_detail_block_thread(), threads = shardtab_detail_block_threads();
    const uint64_t base = ctl->base, end = pass.k0 + (uint64_t)pass.depth;

    if (shardtab_detail_block_leader())
        ctl->passes = pass.number;
    if (ctl->failed) /* a tile's wait gave up: nothing to decide */
        return;
    if (!pass.norms) {
        if (shardtab_detail_block_leader())
            ctl->redo = end < ctl->iteration ? end + 1 : 0;
        return;
    }
    /* every iteration's tile sums at once, each in tile order (the loads of
     * all the pass's iterations in flight together), then warp by warp */
    double sum[JACOBI_TEMPORAL_MAX_DEPTH];
    int norm_mask = 0;
    for (int i = 0; i < JACOBI_TEMPORAL_MAX_DEPTH; i++) {
        sum[i] = 0.0;
        norm_mask |=
            (i < pass.depth && jacobi_norm_iteration(base, s->nccheck, pass.k0 + (uint64_t)i)) << i;
    }
    for (int t = thread; t < tiles; t += threads) {
        const double *p = s->temporal_partials + (size_t)t;
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#  pragma unroll
#endif
        for (int i = 0; i < JACOBI_TEMPORAL_MAX_DEPTH; i++)
            if (norm_mask >> i & 1)
                sum[i] += p[(size_t)i * (size_t)tiles];
    }
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#  pragma unroll
#endif
    for (int i = 0; i < JACOBI_TEMPORAL_MAX_DEPTH; i++)
        jacobi_block_partial(sum[i], slots + i * JACOBI_BLOCK_SLOTS);
    shardtab_detail_block_sync();
    for (int i = 0; i < pass.depth; i++) {
        const uint64_t k = pass.k0 + (uint64_t)i;
        const double total =
            norm_mask >> i & 1 ? jacobi_block_total(slots + i * JACOBI_BLOCK_SLOTS) : 0.0;
        if (shardtab_detail_block_leader())
            local2 = total;
        shardtab_detail_block_sync();
        jacobi_close_step(s, k, base, &local2, (uint64_t *)0);
        if (shardtab_detail_block_leader())
            stopped = ctl->stop_at <= k + 1 || ctl->failed;
        shardtab_detail_block_sync();
        if (stopped) {
            if (shardtab_detail_block_leader() && !ctl->failed && k + 1 < end)
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
    const uint64_t t0 = rec ? shardtab_detail_clock() : 0;
    uint64_t t1 = 0;

    if (shardtab_detail_block_leader()) {
        jacobi_temporal_signal(s, pass);
        if (rec) {
            t1 = shardtab_detail_clock();
            rec[JACOBI_TRACE_ARRIVED] = t0;
            rec[JACOBI_TRACE_SIGNAL] = t1 - t0;
        }
    }
    jacobi_temporal_close(s, pass);
    if (rec && shardtab_detail_block_leader()) {
        const uint64_t now = shardtab_detail_clock();
        rec[JACOBI_TRACE_NORM] = now - t1;
        rec[JACOBI_TRACE_END] = now;
    }
}

#endif /* JACOBI_TEMPORAL_H */
