/* cg_meet.h - the meetings of a persistent grid in cg's solve (cg_body.h):
 * every block's arrival, the waits (bounded), block 0's work for the node
 * (the all-reduce, the barrier) and its outcome published to the others. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_MEET_H
#define CG_MEET_H

#include "cg_reduce.h"
#include "cg_stop.h"

/* ---- the meetings of a persistent grid: every block, one launch ------------------- */

/* Spins until *word >= want (relaxed device-scope loads: the caller's
 * acquire fence follows), at most `limit` ticks: 0 when it ran out. */
CG_DEVFN int cg_spin(uint64_t *word, uint64_t want, uint64_t limit)
{
    const uint64_t start = shardtab_detail_clock();

    while (shardtab_detail_load_relaxed_device(word) < want) {
        if (shardtab_detail_clock() - start > limit)
            return 0;
        shardtab_detail_pause();
    }
    return 1;
}

/* A wait of the grid's meetings that ran out: the block stops, and says so
 * for the host (the others' waits run out in turn). Leader only. */
CG_DEVFN void cg_wait_failed(const cg_args_t *g, cg_state_t *st)
{
    cg_fail(st, CG_FAIL_WAIT);
    shardtab_detail_store_relaxed_device(&g->ctl->wait_failed, 1);
}

/* The meetings of a persistent grid. Co-residency (a cooperative launch)
 * means every block comes; the waits are bounded all the same (block 0's
 * node work may itself wait up to the table's limit, so four times that).
 *
 * Every block arrives at every meeting (its stores released, one count). A
 * rank alone on its node then waits for every arrival: a grid barrier, after
 * which every block sums the reduction's parts itself. With peers block 0
 * alone waits, does the node's work (the all-reduce, the barrier) and
 * publishes its outcome; the others wait for that: one round trip through
 * the ctl words. Block 0 also publishes a finish that needs no arrival (the
 * pipelined reduction's, after the product). */
typedef struct cg_meetings {
    uint64_t arrived;   /* meetings every block has arrived at */
    uint64_t published; /* outcomes block 0 has published */
} cg_meetings_t;

CG_DEVFN void cg_arrive(const cg_args_t *g)
{
    cg_fence_before_grid_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader()) {
        shardtab_detail_fence_release_device();
        (void)shardtab_detail_fetch_add_relaxed_system(&g->ctl->grid_arrived, 1);
    }
}

/* Waits for arrival n of every block. */
CG_DEVFN void cg_await_all(const cg_args_t *g, cg_state_t *st, uint64_t n)
{
    if (shardtab_detail_block_leader()) {
        if (!cg_spin(&g->ctl->grid_arrived, n * (uint64_t)g->blocks, 4 * g->sig.timeout_ticks))
            cg_wait_failed(g, st);
        shardtab_detail_fence_acquire_device();
    }
    shardtab_detail_block_sync();
    cg_fence_after_grid_acquire();
}

/* Block 0: outcome n out, with `count` values and whether its work failed. */
CG_DEVFN void cg_publish(const cg_args_t *g, uint64_t n, const double *v, int count, int failed)
{
    cg_fence_before_grid_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader()) {
        for (int j = 0; j < count; j++)
            g->ctl->published_value[j] = v[j];
        g->ctl->published_failed = (uint64_t)failed;
        shardtab_detail_fence_release_device();
        shardtab_detail_flag_relaxed_device(&g->ctl->published, n);
    }
    shardtab_detail_block_sync();
}

/* The others: outcome n in; a failure of block 0's stops this block too. */
CG_DEVFN void cg_await_published(const cg_args_t *g, cg_state_t *st, uint64_t n, double *v,
                                 int count)
{
    SHARDTAB_BLOCK_SHARED double value[2];

    if (shardtab_detail_block_leader()) {
        if (!cg_spin(&g->ctl->published, n, 4 * g->sig.timeout_ticks))
            cg_wait_failed(g, st);
        shardtab_detail_fence_acquire_device();
        const volatile cg_ctl_t *ctl = g->ctl;
        for (int j = 0; j < count; j++)
            value[j] = ctl->published_value[j];
        if (ctl->published_failed)
            cg_fail(st, CG_FAIL_WAIT);
    }
    shardtab_detail_block_sync();
    cg_fence_after_grid_acquire();
    for (int j = 0; j < count; j++)
        v[j] = value[j];
    shardtab_detail_block_sync(); /* value is free again */
}

/* What a meeting does beyond meeting. */
enum {
    CG_MEET_OPEN = 0, /* the solve's first: block 0 holds the collective (and, pipelined,
                         joins the barrier after the start's w_0) */
    CG_MEET_BARRIER,  /* the node's barrier: every rank's operand is in place */
    CG_MEET_REDUCE,   /* a whole reduction: its values */
    CG_MEET_START,    /* the pipelined reduction's start, and the node's barrier */
    CG_MEET_FINISH    /* the pipelined reduction's finish: its values (no arrival) */
};

/* One meeting; values (REDUCE, FINISH) of `count` dot products of the
 * reduction st->reductions into v, the same bits in every block. */
CG_DEVFN void cg_meet(const cg_args_t *g, cg_state_t *st, int b, cg_meetings_t *m, int what,
                      shardtab_coll_t *c, int count, double *v)
{
    const uint64_t r = st->reductions;
    const int owner = b == 0;

    if (g->sig.node_size <= 1) {
        if (what != CG_MEET_FINISH) {
            cg_arrive(g);
            cg_await_all(g, st, ++m->arrived);
        }
        if (what == CG_MEET_START && owner)
            cg_trace(g, st, CG_TRACE_REDUCED);
        if ((what == CG_MEET_BARRIER || what == CG_MEET_START) && owner)
            cg_trace(g, st, CG_TRACE_BARRIER);
        if (what == CG_MEET_REDUCE || what == CG_MEET_FINISH)
            cg_rank_values(g, count, r, v);
        return;
    }
    if (what != CG_MEET_FINISH)
        cg_arrive(g);
    ++m->published;
    if (b != 0) {
        cg_await_published(g, st, m->published, v, count);
        return;
    }
    int status = SHARDTAB_WAIT_OK;
    double out[2] = {0.0, 0.0};
    if (what != CG_MEET_FINISH)
        cg_await_all(g, st, ++m->arrived);
    if (what == CG_MEET_OPEN)
        status = shardtab_coll_hold_block(&g->sig, c);
    else if (what == CG_MEET_REDUCE)
        status = cg_node_reduce(g, c, count, r, CG_REDUCE_WHOLE, out);
    else if (what == CG_MEET_START)
        status = cg_node_reduce(g, c, count, r, CG_REDUCE_START, out);
    else if (what == CG_MEET_FINISH)
        status = cg_node_reduce(g, c, count, r, CG_REDUCE_FINISH, out);
    if (what == CG_MEET_START)
        cg_trace(g, st, CG_TRACE_REDUCED);
    const int barrier = what == CG_MEET_BARRIER || what == CG_MEET_START ||
                        (what == CG_MEET_OPEN && g->variant == CG_PIPELINED);
    if (status == SHARDTAB_WAIT_OK && barrier) {
        status = shardtab_barrier_block(&g->sig);
        cg_trace(g, st, CG_TRACE_BARRIER);
    }
    cg_publish(g, m->published, out, count, status != SHARDTAB_WAIT_OK);
    if (status != SHARDTAB_WAIT_OK)
        cg_fail(st, CG_FAIL_WAIT);
    shardtab_detail_block_sync();
    for (int j = 0; j < count; j++)
        v[j] = out[j];
}

#endif /* CG_MEET_H */
