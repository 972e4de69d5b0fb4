/** @file
 * shardtab_comm.h - communication between the ranks of a node, for the code that
 * runs on the device: put and get through the table, put with signal, LL
 * puts of small messages (a flag in every 8-byte word, no fence), and
 * all-reduce, broadcast and all-gather of a few values through the signal pads.
 * One body for HIP (AMD), the same source as CUDA (NVIDIA) and the host
 * backend's C, over the primitives of shardtab_device.h, so that the host
 * backend's tests run the code the GPUs run.
 *
 * Every function here is called by every thread of a block (on the host
 * backend: the calling thread, a block of one). The ordering rule for puts:
 * what the block stores into a peer is released at system scope only after
 * every thread's stores (each wave's own release where the target needs it,
 * the block's barrier, then the leader's release), and what a peer put is
 * read only after a system-scope acquire (the leader's, the block's barrier,
 * then each wave's own where the target needs it). The collectives order
 * their own values only: each deposit word carries 32 bits of a value and the
 * call's epoch in one 8-byte store (LL words, shardtab/comm_detail.h), so a
 * reader that sees the epoch has the value, with no flag and no fence; a
 * collective does not publish the caller's other stores (put with signal
 * does). docs/design.md ("Communication") gives the protocol and why it holds
 * on each GPU.
 *
 * A collective is a range of user slots (shardtab_coll, SHARDTAB_COLL_SLOTS),
 * the same on every rank. Its calls come in the same order on every rank, as
 * MPI's collectives, and combine in node-rank order, v[0] op v[1] op ... op
 * v[node_size - 1], so every rank gets the same bits. A call may be split in
 * two (a start, a finish: work goes on in between); two may be in flight. A
 * block that makes many calls may hold the collective
 * (shardtab_coll_hold_block ... _release_block): one claim for all of them.
 * Every wait is bounded (shardtab_device.h); a wrong call, a peer whose call
 * differs, a corrupt deposit or two blocks in one collective stop the node,
 * each with its own SHARDTAB_WAIT_* status, which shardtab_signal_check reports.
 *
 *     __global__ void norm(shardtab_signals_t sig, const double *local, double *global) {
 *         shardtab_coll_t c = shardtab_coll(&sig, 0, 1);    // slots 0 .. COLL_SLOTS(n, 1) - 1
 *         if (shardtab_all_reduce_block(&sig, &c, SHARDTAB_SUM, SHARDTAB_DOUBLE, local,
 *                                       global, 1) != SHARDTAB_WAIT_OK)
 *             return;                                    // the host reports why
 *         ... *global is the same double on every rank of the node ...
 *     }
 *
 * `in` and `out` are arrays of `count` values of the type (all-gather: out
 * holds node_size * count, rank r's at r * count), in memory every thread of
 * the block reads (global or shared); they may be the same array.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_COMM_H
#define SHARDTAB_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "shardtab_device.h"
#include "shardtab_types.h"
/* a collective's handle, slots and kinds (API: shardtab_coll_t,
 * SHARDTAB_COLL_SLOTS, SHARDTAB_COLL_MAX_VALUES, SHARDTAB_COLL_GATHER ..) */
#include "shardtab/comm_types.h"
/* the steps below the calls, not API: the deposits' layout, the value words,
 * the leader's claim, waits and checks */
#include "shardtab/comm_detail.h"

/** A word the block's threads share: `__shared__` on GPUs; on the host backend, whose
 * block is the calling thread, a plain local. */
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#  define SHARDTAB_BLOCK_SHARED __shared__
#else
#  define SHARDTAB_BLOCK_SHARED
#endif

/** @name Put and get through the table
 * @{ */

/** Copies bytes from src to dst with every thread of the block: 16-byte accesses
 * when dst, src and bytes allow, else 8-byte, else bytes. No ordering. */
SHARDTAB_DEVFN void shardtab_copy_block(void *dst, const void *src, size_t bytes)
{
    const size_t t = (size_t)shardtab_detail_block_thread(),
                 threads = (size_t)shardtab_detail_block_threads();
    const uintptr_t both = (uintptr_t)dst | (uintptr_t)src | (uintptr_t)bytes;
    char *d = (char *)dst;
    const char *s = (const char *)src;

    if (both % 16 == 0) {
        for (size_t i = t * 16; i < bytes; i += threads * 16)
            shardtab_detail_copy16(d + i, s + i);
    } else if (both % 8 == 0) {
        for (size_t i = t; i < bytes / 8; i += threads)
            ((uint64_t *)dst)[i] = ((const uint64_t *)src)[i];
    } else {
        for (size_t i = t; i < bytes; i += threads)
            d[i] = s[i];
    }
}

/** bytes from src into node rank peer's shard at byte offset, through the table */
SHARDTAB_DEVFN void shardtab_put_block(void *const *table, int peer, size_t offset, const void *src,
                                       size_t bytes)
{
    shardtab_copy_block((char *)table[peer] + offset, src, bytes);
}

/** bytes from node rank peer's shard at byte offset into dst; every thread may
 * read dst afterwards (the block's barrier) */
SHARDTAB_DEVFN void shardtab_get_block(void *dst, void *const *table, int peer, size_t offset,
                                       size_t bytes)
{
    shardtab_copy_block(dst, (const char *)table[peer] + offset, bytes);
    shardtab_detail_block_sync();
}
/** @} */

/** What put with signal does to the peer's slot (`signal_op`). */
enum {
    SHARDTAB_SIGNAL_SET = 0, /**< pad[slot] = value */
    SHARDTAB_SIGNAL_ADD = 1  /**< pad[slot] += value */
};

/** @name Put with signal
 * @{ */

/** Put, then pad[slot] of peer = value (SHARDTAB_SIGNAL_SET) or += value
 * (SHARDTAB_SIGNAL_ADD), released once every thread's stores are visible to
 * the peer: a wait on that slot then sees the bytes. */
SHARDTAB_DEVFN void shardtab_put_signal_block(const shardtab_signals_t *s, void *const *table,
                                              int peer, size_t offset, const void *src,
                                              size_t bytes, int slot, uint64_t value, int signal_op)
{
    shardtab_put_block(table, peer, offset, src, bytes);
    shardtab_detail_fence_before_block_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader()) {
        if (signal_op == SHARDTAB_SIGNAL_ADD)
            shardtab_signal_add(s, peer, slot, value);
        else
            shardtab_signal_set(s, peer, slot, value);
    }
}

/** For stores into a peer made by `blocks` blocks (of this rank's grid, or one
 * block over several calls): each block counts itself into *arrived (a counter
 * in this device's memory, zero at first, never reset: it grows by `blocks`
 * per round), and the block that completes a round sets pad[slot] of peer =
 * value, after every counted block's stores (release, system scope, through
 * the count). Every thread of each block calls it. Returns 1 in the block
 * that signalled. */
SHARDTAB_DEVFN int shardtab_signal_after_blocks(const shardtab_signals_t *s, uint64_t *arrived,
                                                uint64_t blocks, int peer, int slot, uint64_t value)
{
    SHARDTAB_BLOCK_SHARED int last;

    shardtab_detail_fence_before_block_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader()) {
        /* the block's stores before its count; the count's reader acquires them
         * all (a relaxed add between two fences: every earlier count is in the
         * ticket it returns) */
        shardtab_detail_fence();
        uint64_t ticket = shardtab_detail_fetch_add_relaxed_system(arrived, 1) + 1;
        last = ticket % blocks == 0;
        if (last) {
            shardtab_detail_fence(); /* the other blocks' stores, seen through the count */
            shardtab_signal_set(s, peer, slot, value);
        }
    }
    shardtab_detail_block_sync();
    return last;
}
/** @} */

/** @name LL puts: small messages, no fence, no signal
 * The put writes a message of `bytes` bytes as bytes / 4 LL words, 8 bytes
 * each: 4 bytes of the message in the low half and the caller's flag in the
 * high half, in one relaxed 8-byte store at system scope (shardtab_detail_ll_store:
 * an aligned 8-byte access is single-copy atomic on every target, PTX's
 * aligned .b64 st/ld.relaxed.sys, gfx90a's one global_store_dwordx2 and
 * global_load_dwordx2 glc that scripts/check-gfx90a-order.sh requires, the
 * host's lock-free C11 atomic; docs/design.md, "Communication"). The
 * reader polls its own copy of the buffer until every word carries the flag:
 * a word that does has its 4 bytes, with no signal, no fence and no second
 * load (NCCL's LL protocol). Half a round trip is then one store and one load
 * crossing the link, where put with signal pays a system-scope release and
 * acquire each way. The rules:
 *   - the buffer: 2 * bytes of the reader's shard at a byte offset, 8-byte
 *     aligned, in coherent memory (shardtab_mem_alloc_coherent); bytes a
 *     multiple of 4; src and dst 4-byte aligned. A wait
 *     called otherwise is refused (SHARDTAB_WAIT_MISUSE, the node stops,
 *     shardtab_signal_check says why); a put called otherwise (its buffer,
 *     its size, its src) stores nothing.
 *   - the flag must differ from every flag the buffer's words may hold: zero
 *     the buffer first (shardtab_ll_clear_block, or zeros copied from the
 *     host, then a barrier or an agreement before the first put), and give
 *     the puts flags that grow from 1 (an iteration count). A flag is 32
 *     bits: 2^32 - 1 puts into one buffer, then clear it again.
 *   - the writer may write a buffer again only once its reader has consumed
 *     the last message there: the caller's protocol says when (the reply of
 *     a ping-pong, or two buffers alternating with a reply every other
 *     round). A word rewritten too early carries the next flag, and the wait
 *     for the old one runs into its limit: late, never wrong.
 *   - it orders its own bytes only, as the collectives' LL words do: the
 *     caller's other stores are not published by it (put with signal does).
 *
 * The put is a copy and returns at once; the wait returns SHARDTAB_WAIT_OK
 * with the message in dst, readable by every thread, or why not.
 * @{ */

/** bytes from src (bytes / 4 words of 4 bytes) into node rank peer's LL buffer at
 * byte offset of its shard, each word with `flag`. Every thread of the block;
 * no barrier, no fence. */
SHARDTAB_DEVFN void shardtab_put_ll_block(void *const *table, int peer, size_t offset,
                                          const void *src, size_t bytes, uint32_t flag)
{
    uint64_t *words = (uint64_t *)((char *)table[peer] + offset);
    const uint32_t *in = (const uint32_t *)src;
    const size_t t = (size_t)shardtab_detail_block_thread(),
                 threads = (size_t)shardtab_detail_block_threads();

    if (!shardtab_detail_ll_fits(words, bytes) || (uintptr_t)src % 4 != 0)
        return; /* the wait refuses it (the same arguments), or runs into its limit */
    for (size_t i = t; i < bytes / 4; i += threads)
        shardtab_detail_ll_store(words + i, in[i], flag);
}

/** Waits until this rank's LL buffer (table[node_rank] + the put's offset)
 * holds a message of `bytes` with `flag` in every word, and copies it into
 * dst. Thread t takes words t, t + threads, .. (shardtab_detail_ll_take: several in
 * flight at once), bounded by the table's limit; then the block's barrier, so
 * that every thread may read all of dst. Returns SHARDTAB_WAIT_OK, or in
 * every thread _TIMED_OUT (a word still without the flag: recorded, peers
 * told), _ABORTED (another wait gave up first) or _MISUSE (bytes or buffer
 * not as the rules say; dst untouched). dst is complete only on OK. */
SHARDTAB_DEVFN int shardtab_wait_ll_block(const shardtab_signals_t *s, const void *buffer,
                                          void *dst, size_t bytes, uint32_t flag)
{
    /* the block's outcome: 0 a thread timed out, 1 one saw the abort, 2 none */
    SHARDTAB_BLOCK_SHARED int outcome;
    const size_t t = (size_t)shardtab_detail_block_thread(),
                 threads = (size_t)shardtab_detail_block_threads();

    if (!shardtab_detail_ll_fits(buffer, bytes) ||
        (uintptr_t)dst % 4 != 0) { /* alike in every thread */
        if (shardtab_detail_block_leader())
            shardtab_detail_give_up_as(s, SHARDTAB_WAIT_MISUSE, 0, SHARDTAB_DETAIL_CMP_LL,
                                       bytes % 4               ? SHARDTAB_DETAIL_MISUSE_LL_BYTES
                                       : (uintptr_t)buffer % 8 ? SHARDTAB_DETAIL_MISUSE_LL_ALIGN
                                                               : SHARDTAB_DETAIL_MISUSE_LL_DST,
                                       bytes % 4               ? (uint64_t)bytes
                                       : (uintptr_t)buffer % 8 ? (uint64_t)(uintptr_t)buffer
                                                               : (uint64_t)(uintptr_t)dst,
                                       0);
        return SHARDTAB_WAIT_MISUSE;
    }
    shardtab_detail_block_sync(); /* outcome is free: every thread has read the last call's */
    if (shardtab_detail_block_leader())
        outcome = 2;
    shardtab_detail_block_sync(); /* and set before any thread's failure lowers it */
    const int why = shardtab_detail_ll_take(s, (uint64_t *)(uintptr_t)buffer, bytes / 4, t, threads,
                                            flag, (uint32_t *)dst);
    if (why != SHARDTAB_WAIT_OK)
        shardtab_detail_block_min_int(&outcome, why == SHARDTAB_WAIT_TIMED_OUT ? 0 : 1);
    shardtab_detail_block_sync(); /* dst written by every thread, and the outcome */
    const int got = outcome;
    return got == 2 ? SHARDTAB_WAIT_OK : got == 0 ? SHARDTAB_WAIT_TIMED_OUT : SHARDTAB_WAIT_ABORTED;
}

/** Zeroes an LL buffer for messages of up to `bytes` (2 * bytes of memory,
 * every word flag 0, with shardtab_detail_ll_store), so that any flag from 1 on
 * is new there. Every thread of the block; no barrier, no fence: order it
 * before the first put into it (a barrier of the table, or the host's
 * agreement once the kernel has ended). */
SHARDTAB_DEVFN void shardtab_ll_clear_block(void *buffer, size_t bytes)
{
    uint64_t *words = (uint64_t *)buffer;
    const size_t t = (size_t)shardtab_detail_block_thread(),
                 threads = (size_t)shardtab_detail_block_threads();

    for (size_t i = t; i < bytes / 4; i += threads)
        shardtab_detail_ll_store(words + i, 0, 0);
}
/** @} */

/** @name A few values through the pads
 * A collective's handle, the slots it takes and the kinds of call:
 * shardtab/comm_types.h.
 * @{ */

/** The collective over user slots [slot, slot + SHARDTAB_COLL_SLOTS(node_size,
 * values)), slot in [0, slots). Checked when called: a first slot outside the
 * user slots, or slots that run past them, is refused by name. */
SHARDTAB_DEVFN shardtab_coll_t shardtab_coll(const shardtab_signals_t *s, int slot, int values)
{
    shardtab_coll_t c;
    const int inside = slot >= 0 && slot < s->slots;
    c.first = inside ? shardtab_slot_index(s, slot) : -1;
    c.values = values;
    c.held = 0;
    c.state = inside ? 0 : (uint64_t)(int64_t)slot; /* outside: the slot asked for, to name */
    return c;
}

/** Holds collective c for this block until shardtab_coll_release_block: one
 * claim for every call in between, each of which then skips its own claim
 * and its end (one global round trip fewer a start and a finish) and checks
 * itself against the counts c keeps. For a kernel that makes many calls (a
 * solver's norm every iteration). Every thread of the block calls it with its
 * own c (a local variable: each thread keeps the same counts). Returns
 * SHARDTAB_WAIT_OK (held), or why not: a collective outside the pad, another
 * block holding it or calling it (SHARDTAB_WAIT_CONCURRENT; the node stops),
 * or the node stopped (SHARDTAB_WAIT_ABORTED). */
SHARDTAB_DEVFN int shardtab_coll_hold_block(const shardtab_signals_t *s, shardtab_coll_t *c)
{
    SHARDTAB_BLOCK_SHARED int status;
    SHARDTAB_BLOCK_SHARED uint64_t state_shared;

    if (shardtab_detail_block_leader()) {
        state_shared = c->state;
        status = c->held ? SHARDTAB_WAIT_OK : shardtab_detail_coll_claim(s, c, &state_shared);
    }
    shardtab_detail_block_sync(); /* the claim, to every thread */
    const int held = status;
    if (held == SHARDTAB_WAIT_OK && !c->held) {
        c->held = 1;
        c->state = state_shared;
    }
    shardtab_detail_block_sync(); /* every thread has read the shared words */
    return held;
}

/** Ends the block's hold of c: the counts, and the claim released, in one
 * relaxed store of the state word (as a call's end). Every thread, after the
 * block's last call of c (a call that failed too: the node has stopped; a
 * held finish sees the stop in its wait for a peer that stopped, at one rank
 * at once; an unheld call is refused at its claim). */
SHARDTAB_DEVFN void shardtab_coll_release_block(const shardtab_signals_t *s, shardtab_coll_t *c)
{
    if (c->held && shardtab_detail_block_leader())
        shardtab_detail_store_relaxed_device(s->mine + c->first, c->state);
    c->held = 0;
}
/** @} */

/** @cond detail */
/* ---- the steps of a call, below its start and finish (detail, not API) ------ */

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
    if (kind == SHARDTAB_COLL_REDUCE) {
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
/** @endcond */

/** @name A call in two: its start and its finish
 * @{ */

/** Deposits this rank's part of a call into every node peer's pad. kind is
 * SHARDTAB_COLL_GATHER, _REDUCE or _BROADCAST (root: a node rank; only it
 * deposits values); op matters for _REDUCE only (pass SHARDTAB_SUM
 * otherwise). Returns SHARDTAB_WAIT_OK or why not, in every thread; `in` may
 * be reused once it returns. */
SHARDTAB_DEVFN int shardtab_coll_start_block(const shardtab_signals_t *s, shardtab_coll_t *c,
                                             int kind, int op, int type, int root, const void *in,
                                             int count)
{
    return shardtab_detail_coll_deposit_block(s, c, kind, op, type, root, in, count, 0);
}

/** Waits for every rank's deposit of this rank's oldest started call, checks
 * each, and combines in node-rank order into out (a REDUCE: count values; a
 * GATHER: node_size * count; a BROADCAST: the root's count). The arguments
 * must be those of the start. Returns SHARDTAB_WAIT_OK or why not, in every
 * thread; out is written only on SHARDTAB_WAIT_OK. */
SHARDTAB_DEVFN int shardtab_coll_finish_block(const shardtab_signals_t *s, shardtab_coll_t *c,
                                              int kind, int op, int type, int root, void *out,
                                              int count)
{
    return shardtab_detail_coll_gather_block(s, c, kind, op, type, root, out, count, 0);
}
/** @} */

/** @name The one-call forms
 * @{ */

/** out[i] = in[i] of rank 0 op ... op in[i] of rank node_size - 1, for i < count */
SHARDTAB_DEVFN int shardtab_all_reduce_block(const shardtab_signals_t *s, shardtab_coll_t *c,
                                             int op, int type, const void *in, void *out, int count)
{
    int status = shardtab_coll_start_block(s, c, SHARDTAB_COLL_REDUCE, op, type, 0, in, count);
    return status != SHARDTAB_WAIT_OK
               ? status
               : shardtab_coll_finish_block(s, c, SHARDTAB_COLL_REDUCE, op, type, 0, out, count);
}

/** out[i] = in[i] of node rank root, for i < count (in is read on the root only) */
SHARDTAB_DEVFN int shardtab_broadcast_block(const shardtab_signals_t *s, shardtab_coll_t *c,
                                            int root, int type, const void *in, void *out,
                                            int count)
{
    int status = shardtab_coll_start_block(s, c, SHARDTAB_COLL_BROADCAST, SHARDTAB_SUM, type, root,
                                           in, count);
    return status != SHARDTAB_WAIT_OK
               ? status
               : shardtab_coll_finish_block(s, c, SHARDTAB_COLL_BROADCAST, SHARDTAB_SUM, type, root,
                                            out, count);
}

/** out[r * count + i] = in[i] of node rank r */
SHARDTAB_DEVFN int shardtab_all_gather_block(const shardtab_signals_t *s, shardtab_coll_t *c,
                                             int type, const void *in, void *out, int count)
{
    int status =
        shardtab_coll_start_block(s, c, SHARDTAB_COLL_GATHER, SHARDTAB_SUM, type, 0, in, count);
    return status != SHARDTAB_WAIT_OK
               ? status
               : shardtab_coll_finish_block(s, c, SHARDTAB_COLL_GATHER, SHARDTAB_SUM, type, 0, out,
                                            count);
}
/** @} */

#endif /* SHARDTAB_COMM_H */