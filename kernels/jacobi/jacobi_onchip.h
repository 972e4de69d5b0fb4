/* jacobi_onchip.h - the protocol of --launch onchip, written once for every
 * backend (the HIP and CUDA kernel of jacobi_onchip.hip, the host backend's
 * threads in jacobi_onchip_host.c): tiles that keep their rows on chip for a
 * whole solve and meet no barrier, only their neighbours and the decision.
 *
 * A rank's rows are cut into `tiles` tiles of whole rows, one block each, and
 * one more block, the norm block, which sums and decides. Iteration k of tile t:
 *
 *   1. waits for its neighbours' edge rows of time k (the rows as iteration
 *      k - 1 left them): from the tile above its last row, from the tile below
 *      its first; at a rank's edge, from the neighbouring rank's edge tile;
 *   2. computes its rows in registers;
 *   3. sends its new first and last rows, time k + 1, to its neighbours, and
 *      each warp's sum of squared residues to the norm block.
 *
 * What travels between tiles is LL words (NCCL's low-latency protocol): each
 * 8-byte word holds a 32-bit value and the time it belongs to, written by one
 * 8-byte store, so a reader that sees the time sees the value: no fence, no
 * flag, and the wait is the load itself. Edges are double-buffered by time
 * parity; a tile writes time k + 1 over time k - 1 only after it has seen both
 * neighbours' time k, which each sent after it had read time k - 1.
 *
 * Between ranks the words are the same, written through the table into the
 * reader's shard (its LL ghost rows, the solver's JACOBI_FACES_LL) with the library's LL
 * stores and polled with its LL loads (shardtab_detail_ll_store, shardtab_detail_ll_load:
 * system scope, across the link; the shard is coherent memory), so a rank's
 * edge costs one store and one load crossing the link, not a fenced put and a
 * signal. The parity argument holds unchanged: the neighbour's edge tile is
 * a tile like any other. A solve's first iteration takes the ghost rows the
 * host set (the plain halo). (The plan launches once a solve; a later launch
 * of the same solve would take the words the last one left, as the tiles'
 * own rows in memory: no mode launches twice, so no test runs that.)
 *
 * The stop keeps the anchors' rule (jacobi_op.h): the norm of k - 1 decides,
 * at the close of iteration k, whether k + 1 runs. The norm block gathers the
 * partials of k - 1, sums them in a fixed order, all-reduces them over the
 * node's ranks (the library's collective, jacobi_protocol.h), decides, and
 * publishes ctl->decided = 2 k + stop, one relaxed word that carries the whole
 * decision (so it is stored first, and the norm recorded after it, off the
 * tiles' path). A tile starts k + 1 only once it has
 * seen that decision: no tile runs past a decision it has not seen, so the
 * rows a solve returns are exactly those of its stopping iteration. The
 * decision lags the tiles by one iteration, the time the norm block has to
 * make it; tiles never wait for the whole grid.
 *
 * Every wait is bounded and watches for the solve's end (a failure on this
 * rank or a peer): nothing waits forever for a tile that has stopped. A wait
 * for a neighbouring rank's edge row gives up at the pads' limit
 * (step.wait_ticks, SHARDTAB_WAIT_TIMEOUT), a wait inside the rank at twice
 * it: where a rank is silent, a wait between ranks gives up first and is the
 * one named, not the waits held up behind it inside a rank. Which rank's
 * wait of the chain runs out first (the silent rank's neighbours', or its
 * own for them one iteration later) is a matter of microseconds. A wait
 * checks these every JACOBI_ONCHIP_SPINS polls, not every one: each check is
 * a round trip to L2, and it would sit on the critical path. Every function
 * is called by every thread of a block unless it says one thread (the host
 * backend's block is one thread).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_ONCHIP_H
#define JACOBI_ONCHIP_H

#include <string.h>

#include "jacobi_block_sum.h"
#include "jacobi_op.h"
#include "jacobi_protocol.h"
#include "jacobi_sweep.h"
#include "shardtab_device.h"

enum { JACOBI_EDGE_FIRST = 0, JACOBI_EDGE_LAST = 1 };

/* ---- LL words ------------------------------------------------------------------------- */

/* The edge row `side` of tile t at `time`, and a warp's partial sum (two words). */
SHARDTAB_DEVFN uint64_t *jacobi_edge(const jacobi_step_t *s, uint64_t time, int tile, int side)
{
    return s->edges + (((size_t)(time & 1) * (size_t)s->tiles + (size_t)tile) * 2 + (size_t)side) *
                          (size_t)s->nx;
}

SHARDTAB_DEVFN uint64_t *jacobi_tile_partial(const jacobi_step_t *s, uint64_t time, int tile,
                                             int warp)
{
    return s->tile_partials +
           (((size_t)(time & 1) * (size_t)s->tiles + (size_t)tile) * (size_t)s->tile_warps +
            (size_t)warp) *
               2;
}

/* One thread's store of a partial sum of time `time` (two LL words, its halves). */
SHARDTAB_DEVFN void jacobi_ll_send_double(uint64_t *w, double v, uint64_t time)
{
    const uint64_t b = shardtab_detail_double_bits(v);
    shardtab_detail_ll_store(&w[0], (uint32_t)b, time);
    shardtab_detail_ll_store(&w[1], (uint32_t)(b >> 32), time);
}

/* ---- the solve's end, and giving up --------------------------------------------------- */

/* Has this rank's solve failed, or a rank of the node given up? */
SHARDTAB_DEVFN int jacobi_onchip_failed(const jacobi_step_t *s)
{
    return shardtab_detail_load_relaxed_device(&s->ctl->failed) != 0 || jacobi_peers_aborted(s);
}

/* One thread: a tile's wait ran out, or its tiles could not start (why:
 * JACOBI_WAIT_*, JACOBI_ONCHIP_NO_START). This rank's solve ends, and the
 * node's peers are told through their pads (their waits return), without a
 * record of a pad slot: it was none. The host names it from ctl->failed
 * (jacobi_solve.c). */
SHARDTAB_DEVFN void jacobi_onchip_give_up(const jacobi_step_t *s, uint64_t k, int why)
{
    shardtab_detail_max_relaxed_system(&s->ctl->failed,
                                       (uint64_t)why); /* over a later 1 (fail_at) */
    jacobi_stop_after(s, k);
    if (s->sig.mine)
        for (int q = 0; q < s->sig.node_size; q++)
            shardtab_detail_store_release_system(s->sig.pads[q] + SHARDTAB_PAD_ABORT,
                                                 1 + (uint64_t)s->sig.node_rank);
}

/* Polls between the slow checks (the solve's end, the clock): each check is
 * a round trip to L2 or further, and on the critical path if made every spin. */
#define JACOBI_ONCHIP_SPINS 16 /* 16 and 10^6 measured alike on one H200 */

/* One thread, the slow checks of a wait (kind: JACOBI_WAIT_*) at iteration k
 * begun at *start (0: not yet timed): 1 to go on waiting, 0 when the solve
 * ended (stop_at <= k: the tile will not run k, what it waits for may never
 * come; or a failure) or the wait ran out (then it has given up). */
SHARDTAB_DEVFN int jacobi_onchip_keep_waiting(const jacobi_step_t *s, uint64_t k, uint64_t *start,
                                              int kind)
{
    if (*start == 0) {
        *start = shardtab_detail_clock();
        return 1;
    }
    if (shardtab_detail_load_relaxed_device(&s->ctl->stop_at) <= k || jacobi_onchip_failed(s))
        return 0;
    const uint64_t limit = kind == JACOBI_WAIT_TILE ? 2 * s->wait_ticks : s->wait_ticks;
    if (kind != JACOBI_WAIT_NORM && shardtab_detail_clock() - *start > limit) {
        jacobi_onchip_give_up(s, k, kind);
        return 0;
    }
    return 1;
}

/* One thread: waits (kind: JACOBI_WAIT_*) for n LL words at w to hold
 * `time`, their values into bits. Returns 1 once the words are there, 0 when
 * the solve ended or the wait ran out (jacobi_onchip_keep_waiting). Every
 * word, a tile's or a rank's, is polled with the library's LL load (system
 * scope, as a rank's edge words need, having come across the link: on gfx90a
 * the same global_load_dwordx2 glc as device scope, on NVIDIA no slower;
 * either way past the multiprocessor's non-coherent L1). A tile's wait is
 * bounded (what it waits for is an iteration away); the norm block's
 * (JACOBI_WAIT_NORM) is not: with -nccheck N it waits N iterations, however
 * long they take, and the tiles' own bounded waits end the solve if one of
 * them is stuck. */
SHARDTAB_DEVFN int jacobi_ll_wait(const jacobi_step_t *s, const uint64_t *w, int n, uint64_t time,
                                  uint32_t *bits, uint64_t k, int kind)
{
    uint64_t start = 0;

    for (int spin = 1;; spin++) {
        int ready = 1;
        for (int i = 0; i < n; i++) {
            uint64_t v = shardtab_detail_ll_load((uint64_t *)&w[i]);
            bits[i] = (uint32_t)v;
            ready &= (uint32_t)(v >> 32) == (uint32_t)time;
        }
        if (ready)
            return 1;
        if (spin % JACOBI_ONCHIP_SPINS == 0 && !jacobi_onchip_keep_waiting(s, k, &start, kind))
            return 0;
        shardtab_detail_pause();
    }
}

/* A rank's LL ghost row of `time` (row: ll_above, ll_below, or a neighbour's,
 * ll_top_dest, ll_bottom_dest): by time parity, as the tiles' edges. */
SHARDTAB_DEVFN uint64_t *jacobi_ll_ghost(uint64_t *row, int nx, uint64_t time)
{
    return row + (size_t)(time & 1) * 2 * (size_t)nx;
}

/* ---- the tiles ------------------------------------------------------------------------ */

/* Tile t's first row; tile tiles is one past the last row. Rows split evenly. */
SHARDTAB_DEVFN int jacobi_tile_first_row(const jacobi_step_t *s, int t)
{
    return (int)((int64_t)t * s->rows / s->tiles);
}

/* The tiles above and below tile t in the ring: -1 where it is the
 * neighbouring rank's (its LL words in the table), the wrap to this rank's
 * own other end where the rank is its own neighbour. */
SHARDTAB_DEVFN int jacobi_tile_above(const jacobi_step_t *s, int t)
{
    return t > 0 ? t - 1 : s->top_peer >= 0 ? -1 : s->tiles - 1;
}

SHARDTAB_DEVFN int jacobi_tile_below(const jacobi_step_t *s, int t)
{
    return t < s->tiles - 1 ? t + 1 : s->bottom_peer >= 0 ? -1 : 0;
}

/* ... on `side` (0 above, 1 below). */
SHARDTAB_DEVFN int jacobi_tile_beside(const jacobi_step_t *s, int t, int side)
{
    return side ? jacobi_tile_below(s, t) : jacobi_tile_above(s, t);
}

/* Where tile t's ghost row on `side` (0: the row above its first, 1: the row
 * below its last) comes from: LL words, of the neighbour tile's edge
 * (jacobi_edge) or, at a rank's edge, of this rank's LL ghost rows, which
 * the neighbouring rank's edge tile writes; or, at the one iteration where no
 * words are there yet, a row in memory: at a launch's first iteration (k0)
 * the neighbour tile's row as the last launch left it, at a solve's first
 * (base) the ghost row the host set (a later launch of the same solve would
 * take a rank's words of its first iteration, which the neighbour's last
 * launch sent; the plan launches once a solve). The kernels take these once
 * a launch and keep them in shared memory: kept in registers, they cost the
 * 16-row kernel spills. */
SHARDTAB_DEVFN const uint64_t *jacobi_onchip_from(const jacobi_step_t *s, int t, int side,
                                                  uint64_t time)
{
    const int n = jacobi_tile_beside(s, t, side);

    return n >= 0 ? jacobi_edge(s, time, n, side ? JACOBI_EDGE_FIRST : JACOBI_EDGE_LAST)
                  : jacobi_ll_ghost(side ? s->ll_below : s->ll_above, s->nx, time);
}

/* ... the wait's kind there (JACOBI_WAIT_TILE, _RANK_ABOVE, _RANK_BELOW) ... */
SHARDTAB_DEVFN int jacobi_onchip_from_kind(const jacobi_step_t *s, int t, int side)
{
    if (jacobi_tile_beside(s, t, side) >= 0)
        return JACOBI_WAIT_TILE;
    return side ? JACOBI_WAIT_RANK_BELOW : JACOBI_WAIT_RANK_ABOVE;
}

/* ... the iteration that takes a row in memory instead, and that row. */
SHARDTAB_DEVFN uint64_t jacobi_onchip_plain_at(const jacobi_step_t *s, int t, int side, uint64_t k0,
                                               uint64_t base)
{
    return jacobi_tile_beside(s, t, side) >= 0 ? k0 : base;
}

SHARDTAB_DEVFN const jacobi_real_t *jacobi_onchip_plain_row(const jacobi_step_t *s, int t, int side,
                                                            uint64_t k0, uint64_t base)
{
    const int n = jacobi_tile_beside(s, t, side);

    if (n < 0)
        return s->halo[base & 1] + (side ? s->nx : 0);
    return s->a[k0 & 1] +
           (size_t)(side ? jacobi_tile_first_row(s, n) : jacobi_tile_first_row(s, n + 1) - 1) *
               (size_t)s->nx;
}

/* Where tile t's edge row of `time` goes (side: 0 its first row, up; 1 its
 * last, down): the LL words of its edge (jacobi_edge), or at a rank's edge
 * the neighbouring rank's LL ghost row; NULL there when silent (the test's
 * rank that sends its neighbours nothing). */
SHARDTAB_DEVFN uint64_t *jacobi_onchip_to(const jacobi_step_t *s, int t, int side, uint64_t time,
                                          int silent)
{
    if (jacobi_tile_beside(s, t, side) >= 0)
        return jacobi_edge(s, time, t, side ? JACOBI_EDGE_LAST : JACOBI_EDGE_FIRST);
    return silent ? (uint64_t *)0
                  : jacobi_ll_ghost(side ? s->ll_bottom_dest : s->ll_top_dest, s->nx, time);
}

/* Is there a decision at the close of iteration j for the tiles to wait for?
 * The rule's (a norm of j - 1 to decide on), or the planted early stop. */
SHARDTAB_DEVFN int jacobi_onchip_decides(const jacobi_step_t *s, uint64_t base, uint64_t j)
{
    return jacobi_decision_iteration(base, s->nccheck, j) ||
           (s->fault.kind == JACOBI_FAULT_STOP && j - base == (uint64_t)s->fault.iteration);
}

/* ctl->decided: 2 j + 1 once the close of iteration j has stopped the solve,
 * 2 j once it has let it go on. A relaxed word: it carries the whole decision,
 * so a tile needs nothing else ordered behind it. */
SHARDTAB_DEVFN uint64_t jacobi_decided_word(uint64_t j, int stop)
{
    return 2 * j + (uint64_t)(stop != 0);
}

/* One thread, before a tile runs iteration k (the first of its launch, k0,
 * needs nothing): 1 to run it, 0 when the solve stopped before k (the
 * decision at k - 1's close) or ended (a failure, seen by a wait). */
SHARDTAB_DEVFN int jacobi_onchip_may_run(const jacobi_step_t *s, uint64_t base, uint64_t k0,
                                         uint64_t k)
{
    uint64_t start = 0;

    if (!(k > k0 && jacobi_onchip_decides(s, base, k - 1)))
        return k < shardtab_detail_load_relaxed_device(&s->ctl->stop_at);
    for (int spin = 1;; spin++) {
        uint64_t d = shardtab_detail_load_relaxed_device(&s->ctl->decided);
        if (d >= jacobi_decided_word(k - 1, 0))
            return !(d == jacobi_decided_word(k - 1, 1)); /* a later word: k - 1 went on */
        if (spin % JACOBI_ONCHIP_SPINS == 0 &&
            !jacobi_onchip_keep_waiting(s, k, &start, JACOBI_WAIT_TILE))
            return 0;
        shardtab_detail_pause();
    }
}

/* ---- the norm block ------------------------------------------------------------------- */

/* The partials of iteration j - 1 (time j), every tile's every warp, summed
 * in a fixed order: each thread its share of them, a chunk at a time, then
 * the block. The leader gets *sum. Returns 0 in every thread when the solve
 * ended first. */
#define JACOBI_ONCHIP_GATHER 4 /* partials a thread waits for at once */
SHARDTAB_DEVFN int jacobi_onchip_gather(const jacobi_step_t *s, uint64_t j, double *sum)
{
    SHARDTAB_BLOCK_SHARED int ended;
    const int total = s->tiles * s->tile_warps;
    const int me = shardtab_detail_block_thread(), threads = shardtab_detail_block_threads();
    const uint64_t *words = jacobi_tile_partial(s, j, 0, 0);
    double mine = 0.0;
    int ok = 1;

    if (shardtab_detail_block_leader())
        ended = 0;
    shardtab_detail_block_sync();
    for (int d0 = me * JACOBI_ONCHIP_GATHER; d0 < total && ok;
         d0 += threads * JACOBI_ONCHIP_GATHER) {
        uint32_t bits[2 * JACOBI_ONCHIP_GATHER];
        int n = total - d0 < JACOBI_ONCHIP_GATHER ? total - d0 : JACOBI_ONCHIP_GATHER;
        ok = jacobi_ll_wait(s, words + 2 * (size_t)d0, 2 * n, j, bits, j - 1, JACOBI_WAIT_NORM);
        for (int i = 0; i < n && ok; i++) {
            mine += shardtab_detail_bits_double((uint64_t)bits[2 * i] | (uint64_t)bits[2 * i + 1]
                                                                            << 32);
        }
    }
    if (!ok)
        ended = 1; /* any thread: a plain flag, read after the barrier */
    shardtab_detail_block_sync();
    int stop = ended;
    mine = jacobi_block_sum(mine);
    if (shardtab_detail_block_leader())
        *sum = mine;
    return !stop;
}

/* The norm block's whole launch: for every iteration j in [k0, end) whose
 * close decides, the partials of j - 1 gathered and summed, deposited into the
 * node's all-reduce and taken back (jacobi_protocol.h: the calls of the
 * persistent kernel), the decision published in ctl->decided at once, and
 * only then recorded (the norm, the history, stop_at). It ends at a stop or a
 * failure. */
SHARDTAB_DEVFN void jacobi_onchip_norm_held(const jacobi_step_t *s, shardtab_coll_t *c,
                                            uint64_t base, uint64_t k0, uint64_t end)
{
    SHARDTAB_BLOCK_SHARED double local2, global2[1];
    SHARDTAB_BLOCK_SHARED int stop;

    if (shardtab_detail_block_leader())
        local2 = 0.0;
    shardtab_detail_block_sync();
    /* a solve's first launch drains an earlier solve's deposit; a later launch
     * of the same solve (k0 > base) goes on from the tiles' first iteration:
     * the decisions before it were made by the launch before */
    if (k0 == base && !jacobi_persistent_norm(s, c, base, base, &local2))
        return;
    for (uint64_t j = k0; j < end; j++) {
        uint64_t *rec = jacobi_trace_of(s, j, base), t1 = 0;
        double sum = 0.0;

        if (!jacobi_onchip_decides(s, base, j))
            continue;
        if (jacobi_decision_iteration(base, s->nccheck, j) && !jacobi_onchip_gather(s, j, &sum))
            return;
        if (shardtab_detail_block_leader()) {
            local2 = sum;
            global2[0] = 0.0;
            if (rec)
                t1 = shardtab_detail_clock();
        }
        shardtab_detail_block_sync();
        if (!jacobi_persistent_norm(s, c, j, base, &local2) ||
            !jacobi_decision_norm(s, c, j, base, rec, global2))
            return;
        if (shardtab_detail_block_leader()) {
            stop = jacobi_decision_stops(s, j, base, global2[0]);
            shardtab_detail_store_relaxed_device(&s->ctl->decided, jacobi_decided_word(j, stop));
            jacobi_decision_record(s, j, base, global2[0]);
            if (rec) {
                uint64_t now = shardtab_detail_clock();
                rec[JACOBI_TRACE_NORM] = now - t1;
                rec[JACOBI_TRACE_END] = now;
            }
        }
        shardtab_detail_block_sync();
        if (stop)
            return;
    }
}

/* ... with the norm's collective held for the launch (one claim). */
SHARDTAB_DEVFN void jacobi_onchip_norm(const jacobi_step_t *s, uint64_t base, uint64_t k0,
                                       uint64_t end)
{
    shardtab_coll_t c = jacobi_norm_coll(s);

    jacobi_onchip_norm_held(s, &c, base, k0, end);
    shardtab_coll_release_block(&s->sig, &c);
}

#endif /* JACOBI_ONCHIP_H */
