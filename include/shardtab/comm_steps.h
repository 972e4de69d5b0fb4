/* shardtab/comm_steps.h - the steps of a device-side collective's call, below
 * its start and finish (detail, not API): this rank's deposit into every node
 * peer's pad (the values, the call, the checksum), a held call's own
 * refusal, and the gather that waits for every peer's deposit, checks it and
 * combines it.
 *
 * Not included directly: shardtab_comm.h includes it after the collective's
 * handle (shardtab_coll, _hold_block, _release_block) and before the calls
 * over it (shardtab_coll_start_block .. shardtab_all_gather_block). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_COMM_STEPS_H
#define SHARDTAB_COMM_STEPS_H

/* The most values a finish keeps in the block's shared memory, between its
 * waits and its combine (above it, the combine reads the pad again). */
#define SHARDTAB_DETAIL_COLL_STASH 256

/** This rank's deposit of epoch e into every node peer's pad, every thread:
 * the values (each thread its own), the call and the checksum (the leader),
 * each word with the epoch in it; with `release`, each storing thread fences
 * first (see shardtab_detail_coll_deposit_block). */
SHARDTAB_DEVFN void shardtab_detail_coll_put_words(const shardtab_signals_t *s,
                                                   const shardtab_coll_t *c, uint64_t e, int kind,
                                                   int op, int type, int root, const void *in,
                                                   int count, int release)
{
    const int me = s->node_rank, t = shardtab_detail_block_thread(),
              threads = shardtab_detail_block_threads();
    const int n = s->node_size;
    const int at = shardtab_detail_coll_deposit(s, c, e, me);
    const int mine = shardtab_detail_coll_deposits(kind, root, me) ? count : 0;
    const uint64_t flag = SHARDTAB_DETAIL_COMM_PLANT_EPOCH(s, e);

    if (release)
        shardtab_fence_release_node(s);
    for (int i = t; i < mine; i += threads) {
        uint64_t w = SHARDTAB_DETAIL_COMM_PLANT_VALUE(
            s, e, i, shardtab_detail_value_word(type, in, (size_t)i));
        for (int q = 0; q < n; q++) {
            shardtab_detail_ll_store(s->pads[q] + at + 2 + 2 * i, (uint32_t)w, flag);
            shardtab_detail_ll_store(s->pads[q] + at + 3 + 2 * i, (uint32_t)(w >> 32), flag);
        }
    }
    if (shardtab_detail_block_leader()) {
        uint32_t hash = shardtab_detail_coll_hash(0x811c9dc5u, e);
        for (int i = 0; i < mine; i++)
            hash = shardtab_detail_coll_hash(hash, shardtab_detail_value_word(type, in, (size_t)i));
        const uint32_t call = (uint32_t)shardtab_detail_coll_call(kind, op, type, root, count);
        for (int q = 0; q < n; q++) {
            shardtab_detail_ll_store(s->pads[q] + at, call, flag);
            shardtab_detail_ll_store(s->pads[q] + at + 1, hash, flag);
        }
    }
}

/** A held collective's call refused by its own checks (every thread reaches
 * the same answer from the counts c keeps): the leader records it. */
SHARDTAB_DEVFN int shardtab_detail_coll_held_refusal(const shardtab_signals_t *s,
                                                     const shardtab_coll_t *c, int kind, int op,
                                                     int type, int root, int count, int finish)
{
    uint64_t seen = 0;
    const uint64_t misuse =
        shardtab_detail_coll_misuse(s, c, kind, op, type, root, count, finish, c->state, &seen);

    if (misuse == 0)
        return SHARDTAB_WAIT_OK;
    if (shardtab_detail_block_leader())
        shardtab_detail_give_up_as(s, SHARDTAB_WAIT_MISUSE, c->first, SHARDTAB_CMP_EQ, misuse, seen,
                                   0);
    return SHARDTAB_WAIT_MISUSE;
}

/** Deposits this rank's part of a call into every node peer's pad: the call
 * (kind, op, type, root, count) and the checksum of the epoch and the values
 * by the leader, the values by every thread, each word with the epoch in it
 * (shardtab_detail_ll_store). With `release`, each thread first fences at system
 * scope (a release): what happened before this call (the stream's earlier
 * kernels) is then visible to every rank that finishes it with `acquire`
 * (the library's stream-ordered collectives; a user's call orders its values
 * only). A block holding c (shardtab_coll_hold_block) skips the claim: its
 * stores, then one barrier (`in` read by every thread). */
SHARDTAB_DEVFN int shardtab_detail_coll_deposit_block(const shardtab_signals_t *s,
                                                      shardtab_coll_t *c, int kind, int op,
                                                      int type, int root, const void *in, int count,
                                                      int release)
{
    SHARDTAB_BLOCK_SHARED int status;
    SHARDTAB_BLOCK_SHARED uint64_t epoch_shared, state_shared;
#if defined(SHARDTAB_DEVICE_HOST)
    /* the host's block is one thread: its words cleared, so that no compiler
     * sees a read before a write it cannot follow */
    status = 0;
    epoch_shared = state_shared = 0;
#endif

    int claimed;
    if (c->held) {
        claimed = shardtab_detail_coll_held_refusal(s, c, kind, op, type, root, count, 0);
        if (claimed != SHARDTAB_WAIT_OK)
            return claimed;
        shardtab_detail_coll_put_words(s, c, shardtab_detail_coll_next(c->state, 0), kind, op, type,
                                       root, in, count, release);
        c->state = shardtab_detail_coll_counted(c->state, 0);
        SHARDTAB_DETAIL_COMM_TRACE(s, SHARDTAB_DETAIL_TRACE_START_STORED);
    } else {
        /* No barrier first: every path out of this function (and of the
         * finish) passes a barrier after its threads' last read of the shared
         * words, so they are free here. */
        if (shardtab_detail_block_leader())
            status = shardtab_detail_coll_enter(s, c, kind, op, type, root, count, 0, &epoch_shared,
                                                &state_shared);
        shardtab_detail_block_sync(); /* barrier 1: the leader's claim, to every thread */
        SHARDTAB_DETAIL_COMM_TRACE(s, SHARDTAB_DETAIL_TRACE_START_CLAIMED);
        claimed = status;
        if (claimed == SHARDTAB_WAIT_OK) {
            shardtab_detail_coll_put_words(s, c, epoch_shared, kind, op, type, root, in, count,
                                           release);
            SHARDTAB_DETAIL_COMM_TRACE(s, SHARDTAB_DETAIL_TRACE_START_STORED);
            if (shardtab_detail_block_leader())
                shardtab_detail_coll_leave(s, c, 0, state_shared);
        }
    }
    /* barrier 2: every thread has read the shared words, and `in` (its
     * values, the leader's checksum) before any thread may write it again */
    shardtab_detail_block_sync();
    return claimed;
}

/** Waits for every rank's deposit of this rank's oldest started call, checks
 * each, and combines in node-rank order into out (see
 * shardtab_coll_finish_block). Thread t waits for ranks t, t + threads, ..,
 * each with all its words loaded at once (shardtab_detail_coll_take); the first rank
 * in node-rank order that failed its wait or its checks decides the outcome
 * (a late rank before a refused one: its timeout). With `acquire`, each
 * waiting thread fences at system scope (an acquire) once its ranks' words
 * are there: see shardtab_detail_coll_deposit_block's `release`. */
SHARDTAB_DEVFN int shardtab_detail_coll_gather_block(const shardtab_signals_t *s,
                                                     shardtab_coll_t *c, int kind, int op, int type,
                                                     int root, void *out, int count, int acquire)
{
    SHARDTAB_BLOCK_SHARED int status, first_bad;
    SHARDTAB_BLOCK_SHARED uint64_t epoch_shared, state_shared;
    SHARDTAB_BLOCK_SHARED shardtab_coll_fault_t fault;
    SHARDTAB_BLOCK_SHARED uint64_t stash[SHARDTAB_DETAIL_COLL_STASH];
    const int t = shardtab_detail_block_thread(), threads = shardtab_detail_block_threads();
    const int n = s->node_size;
    const int held = c->held;
#if defined(SHARDTAB_DEVICE_HOST)
    status = 0;
    epoch_shared = state_shared = 0;
#endif

    /* no barrier first: as in the start, the shared words are free here */
    if (held) { /* the epoch from the counts c keeps: no claim */
        const int refused = shardtab_detail_coll_held_refusal(s, c, kind, op, type, root, count, 1);
        if (refused != SHARDTAB_WAIT_OK)
            return refused;
        if (shardtab_detail_block_leader())
            first_bad = n;
    } else if (shardtab_detail_block_leader()) {
        status = shardtab_detail_coll_enter(s, c, kind, op, type, root, count, 1, &epoch_shared,
                                            &state_shared);
        first_bad = n;
    }
    shardtab_detail_block_sync(); /* barrier 1: the claim and the epoch, to every thread */
    SHARDTAB_DETAIL_COMM_TRACE(s, SHARDTAB_DETAIL_TRACE_FINISH_ENTERED);
    if (!held && status != SHARDTAB_WAIT_OK) {
        const int refused = status;
        shardtab_detail_block_sync(); /* every thread has read the shared words */
        return refused;
    }
    const uint64_t e = held ? shardtab_detail_coll_next(c->state, 1) : epoch_shared;
    const uint64_t call = shardtab_detail_coll_call(kind, op, type, root, count);
    const int stashed =
        (kind == SHARDTAB_COLL_BROADCAST ? 1 : n) * count <= SHARDTAB_DETAIL_COLL_STASH;
    shardtab_coll_fault_t mine_fault = {SHARDTAB_WAIT_OK, 0, 0, 0, 0, 0};
    int my_bad = n;
#if defined(SHARDTAB_DEVICE_HOST)
    /* the host's block is one thread and these words its own: cleared, so
     * that no compiler sees a read before a write it cannot follow */
    memset(stash, 0, sizeof stash);
    memset(&fault, 0, sizeof fault);
#endif

    for (int r = t; r < n; r += threads) {
        uint64_t *to = !stashed                          ? (uint64_t *)0
                       : kind == SHARDTAB_COLL_BROADCAST ? stash
                                                         : stash + r * count;
        if (shardtab_detail_coll_take(s, c, e, r, call, kind, root, count, to, &mine_fault) !=
            SHARDTAB_WAIT_OK) {
            my_bad = r;
            break;
        }
    }
    SHARDTAB_DETAIL_COMM_TRACE(s, SHARDTAB_DETAIL_TRACE_FINISH_LOADED);
    if (acquire && t < n)
        shardtab_fence_acquire_node(s);
    if (my_bad < n)
        shardtab_detail_block_min_int(&first_bad, my_bad);
    shardtab_detail_block_sync(); /* barrier 2: every rank's outcome; the stash, to every thread */
    SHARDTAB_DETAIL_COMM_TRACE(s, SHARDTAB_DETAIL_TRACE_FINISH_AGREED);
    const int bad = first_bad;
    if (bad < n) {
        if (my_bad == bad)
            fault = mine_fault;
        shardtab_detail_block_sync(); /* barrier 3: the first failing rank's record */
        const int why = fault.why;
        if (shardtab_detail_block_leader()) {
            if (why != SHARDTAB_WAIT_ABORTED)
                shardtab_detail_give_up_as(s, why, fault.index, fault.cmp, fault.want, fault.seen,
                                           fault.ticks);
            if (!held)
                shardtab_detail_store_relaxed_device(s->mine + c->first,
                                                     state_shared); /* claim ends */
        }
        shardtab_detail_block_sync(); /* every thread has read the shared words */
        return why;
    }
    if (acquire)
        shardtab_detail_fence_after_block_acquire();
    if (kind == SHARDTAB_COLL_REDUCE && op == SHARDTAB_SUM_EXACT) {
        for (int i = t; i < count; i += threads) { /* the order cannot matter: exact */
            shardtab_detail_exact_few_t sum;
            int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS]; /* its spill */
            shardtab_detail_exact_few_start(
                &sum, limbs, type, stashed ? stash[i] : shardtab_detail_coll_value(s, c, e, 0, i));
            for (int r = 1; r < n; r++)
                shardtab_detail_exact_few_add_word(
                    &sum, type,
                    stashed ? stash[r * count + i] : shardtab_detail_coll_value(s, c, e, r, i));
            shardtab_detail_value_store(type, out, (size_t)i,
                                        shardtab_detail_exact_few_word(&sum, type));
        }
    } else if (kind == SHARDTAB_COLL_REDUCE) {
        for (int i = t; i < count; i += threads) {
            uint64_t acc = stashed ? stash[i] : shardtab_detail_coll_value(s, c, e, 0, i);
            for (int r = 1; r < n; r++)
                acc = shardtab_detail_value_combine(
                    op, type, acc,
                    stashed ? stash[r * count + i] : shardtab_detail_coll_value(s, c, e, r, i));
            shardtab_detail_value_store(type, out, (size_t)i, acc);
        }
    } else if (kind == SHARDTAB_COLL_BROADCAST) {
        for (int i = t; i < count; i += threads)
            shardtab_detail_value_store(type, out, (size_t)i,
                                        stashed ? stash[i]
                                                : shardtab_detail_coll_value(s, c, e, root, i));
    } else {
        for (int i = t; i < n * count; i += threads) {
            const int r = i / count;
            shardtab_detail_value_store(
                type, out, (size_t)i,
                stashed ? stash[i] : shardtab_detail_coll_value(s, c, e, r, i - r * count));
        }
    }
    /* barrier 4: out written by every thread before any thread returns, and
     * the shared words read */
    shardtab_detail_block_sync();
    SHARDTAB_DETAIL_COMM_TRACE(s, SHARDTAB_DETAIL_TRACE_FINISH_DONE);
    if (held)
        c->state = shardtab_detail_coll_counted(c->state, 1);
    else if (shardtab_detail_block_leader())
        shardtab_detail_coll_leave(s, c, 1, state_shared);
    return SHARDTAB_WAIT_OK;
}

#endif /* SHARDTAB_COMM_STEPS_H */
