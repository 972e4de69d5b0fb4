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
/* the exact accumulator below shardtab_exact_* and SHARDTAB_SUM_EXACT, not API */
#include "shardtab/exact.h"

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
/* the steps of a call, below its start and finish (detail, not API): the
 * deposit, a held call's refusal, the gather */
#include "shardtab/comm_steps.h"
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

/** out[i] = in[i] of rank 0 op ... op in[i] of rank node_size - 1, for i < count
 * (SHARDTAB_SUM_EXACT: the exact sum of every rank's in[i], rounded once) */
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

/** @name Exact sums: the same bits at any rank count and any split of the data
 *
 * An exact accumulator is SHARDTAB_EXACT_WORDS int64 words: a fixed-point
 * integer wide enough for every double, to which each add is exact (integer
 * adds: any order, any grouping, the same integer), rounded once at the end.
 * The collectives' SHARDTAB_SUM_EXACT uses it for one value a rank; these
 * calls give it to sums of many terms, a dot product's above all.
 *
 * A dot product with the same bits for any split of the data over ranks,
 * blocks and threads: each rank accumulates its share, normalizes, sums the
 * words over the ranks as SHARDTAB_INT64 SHARDTAB_SUM (two's complement
 * sums wrap: exact and associative), and rounds:
 *
 *     __shared__ int64_t acc[SHARDTAB_EXACT_WORDS];
 *     for (int k = threadIdx.x; k < SHARDTAB_EXACT_WORDS; k += blockDim.x)
 *         acc[k] = 0;                                  // or shardtab_exact_zero, one thread
 *     __syncthreads();
 *     shardtab_dot_exact_block(x, y, n, acc);           // this rank's share
 *     if (threadIdx.x == 0)
 *         shardtab_exact_normalize(acc);
 *     __syncthreads();
 *     if (shardtab_all_reduce_block(&sig, &c, SHARDTAB_SUM, SHARDTAB_INT64, acc, acc,
 *                                   SHARDTAB_EXACT_WORDS) != SHARDTAB_WAIT_OK)
 *         return;
 *     double dot = shardtab_exact_round(acc);           // the same bits on every rank
 *
 * Stream-ordered, the same: the normalized words in a region of the table,
 * shardtab_all_reduce(table, SHARDTAB_SUM, SHARDTAB_INT64, offset,
 * SHARDTAB_EXACT_WORDS, stream), then shardtab_exact_round on them (on the
 * device, or on the host backend's host). Limits: at most 2^31 adds into one
 * accumulator before it is normalized (each normalized word is below 2^32, so
 * 2^31 ranks' words may be summed); a product below 2^-968 may lose its error
 * term's bits under 2^-1074 (at most 2^-1075 a product; the same bits still);
 * an inf or NaN term makes the default NaN.
 * @{ */

/** int64 words of one exact accumulator */
#define SHARDTAB_EXACT_WORDS SHARDTAB_DETAIL_EXACT_LIMBS

/** Zeroes an accumulator (one thread). */
SHARDTAB_DEVFN void shardtab_exact_zero(int64_t *acc)
{
    shardtab_detail_exact_zero(acc);
}

/** Adds x exactly. Any thread, any number at once: on GPUs each word is an
 * atomic add, so acc may be the block's (shared) or the grid's (global). */
SHARDTAB_DEVFN void shardtab_exact_add(int64_t *acc, double x)
{
    shardtab_detail_exact_add(acc, x);
}

/** Adds u * v exactly (TwoProduct: the rounded product and its error term;
 * below 2^-968, see the limits above). Any thread, as shardtab_exact_add. */
SHARDTAB_DEVFN void shardtab_exact_add_product(int64_t *acc, double u, double v)
{
    const double p = shardtab_detail_exact_dmul(u, v);
    shardtab_detail_exact_add(acc, p);
    shardtab_detail_exact_add(acc, fma(u, v, -p));
}

/** Carries every word into its place (one thread, once no thread adds any
 * more); the value is unchanged. An accumulator is normalized before its
 * words are summed with others'. */
SHARDTAB_DEVFN void shardtab_exact_normalize(int64_t *acc)
{
    shardtab_detail_exact_normalize(acc);
}

/** The exact value rounded once to the nearest double, ties to even (+-inf
 * past the range, +0.0 for 0, NaN if an inf or NaN was added). */
SHARDTAB_DEVFN double shardtab_exact_round(const int64_t *acc)
{
    return shardtab_detail_exact_round(acc);
}

/** The exact value rounded once to the nearest float (from the exact value,
 * never through a double). */
SHARDTAB_DEVFN float shardtab_exact_round_float(const int64_t *acc)
{
    return shardtab_detail_bits_float((uint32_t)shardtab_detail_exact_round_bits(acc, 0));
}

/** Adds x[i] * y[i] for i < n into acc, with every thread of the block (thread
 * t takes i = t, t + threads, ...; each keeps an exact expansion of its terms
 * and adds it to acc at the end). acc: zeroed, in memory the block's threads
 * share; other blocks may add into the same acc. Returns once every thread of
 * the block has added its part (a block barrier): normalize then. */
SHARDTAB_DEVFN void shardtab_dot_exact_block(const double *x, const double *y, size_t n,
                                             int64_t *acc)
{
    const size_t t = (size_t)shardtab_detail_block_thread(),
                 threads = (size_t)shardtab_detail_block_threads();
    shardtab_detail_exact_expansion_t e;

    shardtab_detail_exact_expansion_init(&e);
    for (size_t i = t; i < n; i += threads)
        shardtab_detail_exact_expansion_add_product(&e, acc, x[i], y[i]);
    shardtab_detail_exact_expansion_flush(&e, acc);
    shardtab_detail_block_sync();
}
/** @} */

#endif /* SHARDTAB_COMM_H */
