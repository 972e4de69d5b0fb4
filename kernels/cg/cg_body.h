/* cg_body.h - the conjugate-gradient solve of cg.h written once for every
 * backend: the HIP and CUDA kernels (cg.hip) and the host backend's calls
 * (cg_host.c, a grid of one block of one thread) run these functions, so CI
 * runs the code the GPUs run. Per target only the block's width (CG_BLOCK),
 * the fences of a block's part in a meeting of the grid and a chunk's tree
 * (the lanes of a warp, or a loop over them) differ.
 *
 * Block b of a grid of G takes the rows b T + t + j G T (T threads, thread t)
 * in every phase, so a block's updates read only what its own product wrote:
 * the phases of one rank meet only at the reductions and at the barrier.
 *
 * A reduction: each thread sums its rows in that order (fma), the threads of
 * a block by a fixed tree, the blocks by a fixed strided sum and tree, the
 * ranks in node-rank order (the library's all-reduce): the same bits in every
 * block, on every rank and every run. With repro a dot product is the exact
 * sum (shardtab/exact.h) of its chunks' sums, a chunk being CG_CHUNK consecutive
 * global rows summed by a fixed tree, every chunk whole on one rank (the
 * split falls on chunk boundaries): the same bits whatever the grid, the
 * ranks or the backend.
 *
 * The scalars (cg_state_t) live in each block (shared memory): every block
 * decides them itself from the same reduced values. Reduction r (the r-th of
 * the solve) leaves its parts in buffer set r % 2 (partials) or r % 3
 * (limbs): a set is written again only once every block has read it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_BODY_H
#define CG_BODY_H

#if defined(SHARDTAB_DEVICE_HOST) ||                                                               \
    !(defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__))
#  include <math.h>
#  include <string.h>
#endif

#include "cg.h"
#include "shardtab/exact.h"
#include "shardtab_comm.h"
#include "spmv_body.h"

/* The phases, in the order the solve's code reads them: what differs per
 * target, the reductions, the decisions, the product, the updates, the
 * meetings of a persistent grid. */
#include "cg_device.h"
#include "cg_reduce.h"
#include "cg_stop.h"
#include "cg_product.h"
#include "cg_update.h"
#include "cg_meet.h"

/* ---- the persistent solve: every block, one launch --------------------------------- */

/* The rest of the solve after cg_start's reduction, up to its stop; block 0
 * holds the collective for the launch, where there are peers. Alone on the
 * node, standard: two grid barriers an iteration ((p, q); (r, r); p made
 * inside the product, fused); pipelined: one (w complete, and gamma and
 * delta's parts, which every block sums after the product). */
CG_DEVFN void cg_persistent_body(const cg_args_t *g, int b, cg_state_t *st, int64_t *block_limbs)
{
    shardtab_coll_t c = shardtab_coll(&g->sig, 0, CG_COLL_VALUES);
    cg_meetings_t m = {0, 0};
    const int owner = b == 0;
    double v[2] = {0.0, 0.0};

    cg_state_load(g, st);
    if (g->sig.node_size > 1)
        cg_meet(g, st, b, &m, CG_MEET_OPEN, &c, 0, v);
    if (g->variant == CG_STANDARD) {
        while (!st->stop) {
            if (g->fused) {
                if (owner) /* no barrier: the product reads only this rank's r and p */
                    cg_trace(g, st, CG_TRACE_BARRIER);
                cg_product_fused(g, st, b, block_limbs);
            } else {
                cg_update_p(g, st, b);
                cg_meet(g, st, b, &m, CG_MEET_BARRIER, &c, 0, v);
                if (st->stop)
                    break;
                cg_product(g, b, g->p_table, g->q, g->p, st->reductions, block_limbs);
            }
            if (owner)
                cg_trace(g, st, CG_TRACE_PRODUCT);
            cg_meet(g, st, b, &m, CG_MEET_REDUCE, &c, 1, v);
            if (st->stop)
                break;
            cg_decide_pq(g, st, v[0], owner);
            if (st->stop)
                break;
            cg_update_xr(g, st, b, block_limbs);
            if (owner)
                cg_trace(g, st, CG_TRACE_END);
            cg_begin_iteration(g, st, owner);
            cg_meet(g, st, b, &m, CG_MEET_REDUCE, &c, 1, v);
            if (st->stop)
                break;
            cg_decide_rr(g, st, v[0], owner);
        }
    } else {
        while (!st->stop) {
            cg_product(g, b, g->w_table[st->iteration & 1], g->q, (const double *)0, 0,
                       block_limbs);
            if (owner)
                cg_trace(g, st, CG_TRACE_PRODUCT);
            cg_meet(g, st, b, &m, CG_MEET_FINISH, &c, 2, v);
            if (st->stop)
                break;
            cg_decide_gamma_delta(g, st, v, owner);
            if (st->stop)
                break;
            cg_update_pipelined(g, st, b, block_limbs);
            if (owner)
                cg_trace(g, st, CG_TRACE_END);
            cg_begin_iteration(g, st, owner);
            cg_meet(g, st, b, &m, CG_MEET_START, &c, 2, v);
        }
    }
    if (g->sig.node_size > 1 && b == 0)
        shardtab_coll_release_block(&g->sig, &c);
    if (owner)
        cg_state_store(g, st);
}

/* ---- the stream launches: a phase a launch, its last block reduces ------------------ */

/* Called by every block after its part of a phase: 1 in the block that
 * arrives last (it then sees every other block's part), 0 in the others. */
CG_DEVFN int cg_last_block(const cg_args_t *g)
{
    SHARDTAB_BLOCK_SHARED int last;

    cg_fence_before_grid_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader()) {
        shardtab_detail_fence_release_device();
        const uint64_t ticket = shardtab_detail_fetch_add_relaxed_system(&g->ctl->arrived, 1) + 1;
        last = ticket % (uint64_t)g->blocks == 0;
        if (last)
            shardtab_detail_fence_acquire_device(); /* the other blocks' parts, seen through the count */
    }
    shardtab_detail_block_sync();
    const int mine = last;
    shardtab_detail_block_sync();
    if (mine)
        cg_fence_after_grid_acquire();
    return mine;
}

/* The last block of a phase that ends reduction st->reductions (how: whole,
 * start, finish): alone on the node its values, with peers the node's
 * all-reduce, across nodes (split) this rank's words left in dots for the
 * host; then, where the values are in, the decision; then the scalars out
 * for the next launch. */
CG_DEVFN void cg_last_reduce(const cg_args_t *g, cg_state_t *st, int count, int how)
{
    const uint64_t r = st->reductions;
    double v[2] = {0.0, 0.0};
    int decided = how != CG_REDUCE_START;

    if (g->split) {
        if (how != CG_REDUCE_FINISH)
            cg_rank_words(g, count, r, g->dots);
        decided = 0; /* cg_decide, after the host's sum */
    } else if (g->sig.node_size <= 1) {
        if (decided)
            cg_rank_values(g, count, r, v);
    } else {
        shardtab_coll_t c = shardtab_coll(&g->sig, 0, CG_COLL_VALUES);
        if (cg_node_reduce(g, &c, count, r, how, v) != SHARDTAB_WAIT_OK) {
            cg_fail(st, CG_FAIL_WAIT);
            decided = 0;
        }
        shardtab_detail_block_sync();
    }
    if (how == CG_REDUCE_START)
        cg_trace(g, st, CG_TRACE_REDUCED);
    if (decided)
        cg_decide_values(g, st, v, 1);
    cg_state_store(g, st);
}

/* The start (cg_start): every block, then the last one reduces. */
CG_DEVFN void cg_start_block(const cg_args_t *g, int b, cg_state_t *st, int64_t *block_limbs)
{
    cg_state_load(g, st);
    if (g->variant == CG_STANDARD) {
        cg_start_dots(g, b, 1, (const double *)0, block_limbs);
        if (cg_last_block(g)) {
            cg_trace(g, st, CG_TRACE_BEGIN);
            cg_last_reduce(g, st, 1, CG_REDUCE_WHOLE);
        }
    } else {
        cg_product(g, b, g->p_table, g->w[0], (const double *)0, 0, block_limbs);
        cg_start_dots(g, b, 2, g->w[0], block_limbs);
        if (cg_last_block(g)) {
            cg_trace(g, st, CG_TRACE_BEGIN);
            cg_last_reduce(g, st, 2, CG_REDUCE_START);
        }
    }
}

/* One phase of a stream iteration (cg_stream_phases), every block. */
CG_DEVFN void cg_stream_block(const cg_args_t *g, int phase, int b, cg_state_t *st,
                              int64_t *block_limbs)
{
    cg_state_load(g, st);
    if (st->stop)
        return;
    if (g->variant == CG_STANDARD) {
        if (phase == 0) {
            cg_update_p(g, st, b);
        } else if (phase == 1) {
            if (b == 0)
                cg_trace(g, st, CG_TRACE_BARRIER);
            cg_product(g, b, g->p_table, g->q, g->p, st->reductions, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, st, CG_TRACE_PRODUCT);
                cg_last_reduce(g, st, 1, CG_REDUCE_WHOLE);
            }
        } else {
            cg_update_xr(g, st, b, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, st, CG_TRACE_END);
                cg_begin_iteration(g, st, 1);
                cg_last_reduce(g, st, 1, CG_REDUCE_WHOLE);
            }
        }
    } else {
        if (phase == 0) {
            if (b == 0)
                cg_trace(g, st, CG_TRACE_BARRIER);
            cg_product(g, b, g->w_table[st->iteration & 1], g->q, (const double *)0, 0,
                       block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, st, CG_TRACE_PRODUCT);
                cg_last_reduce(g, st, 2, CG_REDUCE_FINISH);
            }
        } else {
            cg_update_pipelined(g, st, b, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, st, CG_TRACE_END);
                cg_begin_iteration(g, st, 1);
                cg_last_reduce(g, st, 2, CG_REDUCE_START);
            }
        }
    }
}

/* Across nodes (split), one block: the decision the host's sum of every
 * rank's words in dots allows (cg_decide_after). */
CG_DEVFN void cg_decide_block(const cg_args_t *g, cg_state_t *st, int decision)
{
    double v[2] = {0.0, 0.0};

    cg_state_load(g, st);
    if (st->stop || decision == CG_DECIDE_NONE)
        return;
    cg_words_values(g, decision == CG_DECIDE_GAMMA_DELTA ? 2 : 1, g->dots, v);
    cg_decide_values(g, st, v, 1);
    cg_state_store(g, st);
}

#endif /* CG_BODY_H */
