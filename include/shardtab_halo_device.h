/** @file
 * shardtab_halo_device.h - the halo exchange inside a kernel, for solvers
 * whose kernel owns its iterations (a persistent kernel), and the body of
 * the stream-ordered exchange's pushed forms: no host in the loop.
 *
 *     __global__ void solve(shardtab_signals_t sig, shardtab_halo_device_t halo, int *stop) {
 *         for (int it = 0; it < n; it++) {
 *             if (blockIdx.x == 0 && shardtab_halo_exchange_block(&sig, &halo) != 0)
 *                 *stop = 1;     // why: shardtab_signal_check, on the host
 *             ...the grid's own sync, by every block; then all return if *stop (volatile)
 *             ...the sweep
 *         }
 *     }
 *
 * One block of each rank of the node calls it (or the whole grid shares a
 * large halo: shardtab_halo_exchange_blocks); every rank of the node calls
 * it the same number of times, and calls of the same halo's
 * shardtab_halo_exchange count with them. Only this node's ranks can be
 * reached: shardtab_halo_device refuses a halo whose table spans nodes.
 *
 * Three forms, chosen by shardtab_halo_create alike on every rank
 * (shardtab_halo_form, the descriptor's form):
 *   - pushed as LL words (cells of whole 4-byte words and at most 8 KiB of
 *     ghost cells a rank): each rank stores the cells its neighbours need
 *     as LL words into their inboxes (4 bytes and the exchange's flag in
 *     one 8-byte store, shardtab_comm.h's LL puts), then waits for its own
 *     inbox's words and stores them into its ghost cells.
 *   - pushed by put (any other cells, at most 1 MiB of ghost cells a
 *     rank): each rank stores the cells its neighbours need into their
 *     inboxes, in the widest units their places allow, then after a release
 *     a flag for each slice of each (its number; above 64 KiB cells are cut
 *     in slices, the stream's kernel a block a slice); then takes its own.
 *   Both are one way, with no barrier: a rank's ghost cells are written by
 *   itself alone, and a neighbour's cells are read by that neighbour alone.
 *   Each inbox has two halves, by the exchange's parity; a rank writes a
 *   half again only after it has taken its neighbour's next exchange, which
 *   the neighbour put after it had read that half.
 *   - pulled (any other halo): a node barrier (every rank's interior
 *     visible), this rank's ghost cells copied from its neighbours' blocks
 *     through the table, and a second barrier, so that no rank changes its
 *     interior while a neighbour still reads it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_HALO_DEVICE_H
#define SHARDTAB_HALO_DEVICE_H

#include "shardtab_comm.h"
#include "shardtab_device.h"
#include "shardtab/halo_types.h"

/** @cond detail */
/* The flag of pushed exchange e (from 1): each half of an inbox sees every
 * other exchange, whose flags count 1, 2, .. 2^32 - 1, 1, ..: never 0 (a
 * cleared word's) and never the flag that half held last. */
SHARDTAB_DEVFN uint32_t shardtab_detail_halo_flag(uint64_t e)
{
    return (uint32_t)((e >> 1) % 0xffffffffull) + 1;
}

/* Every thread of one block: the pushed exchange (see the file's comment).
 * The sends first, one LL word a 4-byte unit; then this rank's inbox, each
 * thread SHARDTAB_DETAIL_LL_IN_FLIGHT words in flight, polled until each
 * carries the flag (bounded by the table's limit, the node's stop watched),
 * their payloads stored into the ghost cells. Returns SHARDTAB_WAIT_OK in
 * every thread, the ghost cells written, or _TIMED_OUT (recorded, the node
 * told) or _ABORTED. */
SHARDTAB_DEVFN int shardtab_detail_halo_push_block(const shardtab_signals_t *s,
                                                   const shardtab_halo_device_t *h)
{
    SHARDTAB_BLOCK_SHARED uint64_t epoch_shared;
    SHARDTAB_BLOCK_SHARED int outcome; /* 0 a thread timed out, 1 one saw the stop, 2 neither */
    const uint64_t t = (uint64_t)shardtab_detail_block_thread(),
                   threads = (uint64_t)shardtab_detail_block_threads();
    const uint64_t start = shardtab_detail_clock();
    int why = SHARDTAB_WAIT_OK, p = 0;

    shardtab_detail_block_sync(); /* the last call's shared words read by every thread */
    if (shardtab_detail_block_leader()) {
        epoch_shared = *h->epoch + 1;
        outcome = shardtab_aborted(s) ? 1 : 2;
    }
    shardtab_detail_block_sync();
    if (outcome != 2)
        return SHARDTAB_WAIT_ABORTED;
    const uint64_t e = epoch_shared, half = e & 1;
    const uint32_t flag = shardtab_detail_halo_flag(e);

    for (uint64_t k = t; k < h->send_units; k += threads) {
        const shardtab_halo_piece_t *piece = shardtab_detail_halo_piece_of(h->sends, &p, k);
        const uint64_t local = k - piece->first;
        uint64_t from, to;
        shardtab_detail_halo_unit_at(piece, local, &from, &to);
        const uint32_t *src =
            (const uint32_t *)((const char *)h->table[piece->src_rank] + piece->src_at + from);
        uint64_t *word = (uint64_t *)((char *)h->inbox[piece->dst_rank] + piece->dst_at) +
                         half * piece->units + local;
        shardtab_detail_ll_store(word, *src, flag);
    }
    p = 0;
    for (uint64_t k0 = t; k0 < h->units && why == SHARDTAB_WAIT_OK;
         k0 += SHARDTAB_DETAIL_LL_IN_FLIGHT * threads) {
        uint64_t *words[SHARDTAB_DETAIL_LL_IN_FLIGHT], w[SHARDTAB_DETAIL_LL_IN_FLIGHT];
        uint32_t *dst[SHARDTAB_DETAIL_LL_IN_FLIGHT];
        unsigned pending = 0;
        for (int j = 0; j < SHARDTAB_DETAIL_LL_IN_FLIGHT; j++) {
            const uint64_t k = k0 + (uint64_t)j * threads;
            words[j] = (uint64_t *)0;
            dst[j] = (uint32_t *)0;
            w[j] = 0;
            if (k >= h->units)
                continue;
            const shardtab_halo_piece_t *piece = shardtab_detail_halo_piece_of(h->pieces, &p, k);
            const uint64_t local = k - piece->first;
            uint64_t from, to;
            shardtab_detail_halo_unit_at(piece, local, &from, &to);
            words[j] = (uint64_t *)((char *)h->inbox[piece->src_rank] + piece->src_at) +
                       half * piece->units + local;
            dst[j] = (uint32_t *)((char *)h->table[piece->dst_rank] + piece->dst_at + to);
            pending |= 1u << j;
        }
        while (pending != 0) {
            for (int j = 0; j < SHARDTAB_DETAIL_LL_IN_FLIGHT; j++)
                if (pending & 1u << j)
                    w[j] = shardtab_detail_ll_load(words[j]);
            const int aborted = shardtab_aborted(s);
            int missing = -1;
            for (int j = SHARDTAB_DETAIL_LL_IN_FLIGHT - 1; j >= 0; j--)
                if (pending & 1u << j) {
                    if ((uint32_t)(w[j] >> 32) == flag)
                        pending &= ~(1u << j);
                    else
                        missing = j;
                }
            if (missing < 0)
                break;
            const uint64_t waited = shardtab_detail_clock() - start;
            if (aborted) {
                why = SHARDTAB_WAIT_ABORTED;
            } else if (waited > s->timeout_ticks) {
                shardtab_detail_give_up(s, (int)(k0 + (uint64_t)missing * threads),
                                        SHARDTAB_DETAIL_CMP_HALO, flag, w[missing], waited);
                why = SHARDTAB_WAIT_TIMED_OUT;
            }
            if (why != SHARDTAB_WAIT_OK)
                break;
            shardtab_detail_pause();
        }
        for (int j = 0; j < SHARDTAB_DETAIL_LL_IN_FLIGHT && why == SHARDTAB_WAIT_OK; j++)
            if (dst[j])
                *dst[j] = (uint32_t)w[j];
    }
    if (why != SHARDTAB_WAIT_OK)
        shardtab_detail_block_min_int(&outcome, why == SHARDTAB_WAIT_TIMED_OUT ? 0 : 1);
    shardtab_detail_block_sync(); /* every word taken, every ghost cell stored, the outcome */
    const int got = outcome;
    if (got == 2 && shardtab_detail_block_leader())
        *h->epoch = e;
    return got == 2 ? SHARDTAB_WAIT_OK : got == 0 ? SHARDTAB_WAIT_TIMED_OUT : SHARDTAB_WAIT_ABORTED;
}

/* Pushed by put: a piece's room in an inbox is two halves, by the
 * exchange's parity, each its cells rounded up to 16 bytes (so that both
 * halves stay 16-byte aligned); the bytes from the first half to the
 * second. */
SHARDTAB_DEVFN uint64_t shardtab_detail_halo_half(const shardtab_halo_piece_t *p)
{
    return (p->units * p->unit + 15) / 16 * 16;
}

/* Pushed by put: the first unit of slice `slice` of piece p's cells
 * (slice_units each, halo.c's slice_units: the sender's piece and the
 * receiver's, which may move the same bytes in units of different sizes, cut
 * them at the same bytes, multiples of 16); the last slice's end is the
 * piece's. */
SHARDTAB_DEVFN uint64_t shardtab_detail_halo_slice_at(const shardtab_halo_piece_t *p,
                                                      uint64_t slice)
{
    return slice * p->slice_units < p->units ? slice * p->slice_units : p->units;
}

/* Pushed by put: the flag of slice `slice` of a piece's half in node rank
 * `rank`'s inbox: 2 x slices words a piece, before the cells. */
SHARDTAB_DEVFN uint64_t *shardtab_detail_halo_flag_word(void *const *inbox, int32_t rank,
                                                        const shardtab_halo_piece_t *p,
                                                        uint64_t half, uint64_t slice,
                                                        uint64_t slices)
{
    return (uint64_t *)inbox[rank] + (2 * (uint64_t)p->slot + half) * slices + slice;
}

/* Pushed by put: slices [s0, s1) of each of `count` pieces from their
 * source places into their destinations, the inbox's side shifted to half
 * src_half or dst_half (0 or 1), every thread of the block. */
SHARDTAB_DEVFN void shardtab_detail_halo_copy_slices(const shardtab_halo_piece_t *pieces, int count,
                                                     void *const *src_table, void *const *dst_table,
                                                     uint64_t src_half, uint64_t dst_half,
                                                     uint64_t s0, uint64_t s1)
{
    const uint64_t t = (uint64_t)shardtab_detail_block_thread(),
                   threads = (uint64_t)shardtab_detail_block_threads();

    for (int i = 0; i < count; i++) {
        const shardtab_halo_piece_t *p = &pieces[i];
        const uint64_t half = shardtab_detail_halo_half(p),
                       end = shardtab_detail_halo_slice_at(p, s1);
        const char *src = shardtab_detail_halo_place(src_table, p->src_rank, p->src_at);
        char *dst = shardtab_detail_halo_place(dst_table, p->dst_rank, p->dst_at);
        for (uint64_t l = shardtab_detail_halo_slice_at(p, s0) + t; l < end;)
            l += threads * shardtab_detail_halo_copy_some(p, src + src_half * half,
                                                          dst + dst_half * half, l, end, threads);
    }
}

/* The exchange pushed by put (see the file's comment), slices [s0, s1) of
 * it, every thread of one block: the stream's kernel runs a grid of a
 * block a slice, a kernel's own call one block for every slice. Its two
 * parts, so that the host backend can run a grid's blocks one after
 * another, every block's sends before any block's takes. The send: the
 * slices of the sends' cells into the neighbours' inboxes, every wave's
 * release and the block's barrier, then each slice's flag, the exchange's
 * number (a release at system scope, after the barrier: cumulative), and
 * the number recorded in each slice's epoch word (every slice's sender
 * counts its own exchanges, so no block waits for another of its rank).
 * Returns the exchange's number, or 0 where the node has stopped. */
SHARDTAB_DEVFN uint64_t shardtab_detail_halo_put_send(const shardtab_signals_t *s,
                                                      const shardtab_halo_device_t *h, uint64_t s0,
                                                      uint64_t s1)
{
    SHARDTAB_BLOCK_SHARED uint64_t epoch_shared;
    SHARDTAB_BLOCK_SHARED int stopped;
    const uint64_t t = (uint64_t)shardtab_detail_block_thread(),
                   threads = (uint64_t)shardtab_detail_block_threads(), n = s1 - s0,
                   slices = (uint64_t)h->slices;

    shardtab_detail_block_sync(); /* the last call's shared words read by every thread */
    if (shardtab_detail_block_leader()) {
        epoch_shared = h->epoch[s0] + 1;
        stopped = shardtab_aborted(s);
    }
    shardtab_detail_block_sync();
    if (stopped)
        return 0;
    const uint64_t e = epoch_shared, half = e & 1;

    shardtab_detail_halo_copy_slices(h->sends, h->send_count, h->table, h->inbox, 0, half, s0, s1);
    shardtab_detail_fence_before_block_release();
    shardtab_detail_block_sync(); /* every thread's cells stored */
    for (uint32_t i = (uint32_t)t; i < (uint32_t)(h->send_count * n); i += (uint32_t)threads) {
        const shardtab_halo_piece_t *p = &h->sends[i / (uint32_t)n];
        shardtab_detail_store_release_system(
            shardtab_detail_halo_flag_word(h->inbox, p->dst_rank, p, half, s0 + i % (uint32_t)n,
                                           slices),
            e);
    }
    for (uint64_t i = t; i < n; i += threads)
        h->epoch[s0 + i] = e;
    return e;
}

/* The take of exchange e, slices [s0, s1): a thread a flag polls it in
 * this rank's inbox (bounded, the node's stop watched) and acquires, the
 * block's barrier, every wave's acquire, then the slices of the pieces'
 * cells into the ghost cells. Returns SHARDTAB_WAIT_OK in every thread, or
 * _TIMED_OUT (recorded, the node told) or _ABORTED. */
SHARDTAB_DEVFN int shardtab_detail_halo_put_take(const shardtab_signals_t *s,
                                                 const shardtab_halo_device_t *h, uint64_t e,
                                                 uint64_t s0, uint64_t s1)
{
    SHARDTAB_BLOCK_SHARED int outcome; /* 0 a thread timed out, 1 one saw the stop, 2 neither */
    const uint64_t t = (uint64_t)shardtab_detail_block_thread(),
                   threads = (uint64_t)shardtab_detail_block_threads(), half = e & 1, n = s1 - s0,
                   slices = (uint64_t)h->slices;
    int why = SHARDTAB_WAIT_OK;

    if (shardtab_detail_block_leader())
        outcome = 2;
    shardtab_detail_block_sync();
    for (uint32_t i = (uint32_t)t; i < (uint32_t)(h->count * n) && why == SHARDTAB_WAIT_OK;
         i += (uint32_t)threads) {
        const shardtab_halo_piece_t *p = &h->pieces[i / (uint32_t)n];
        uint64_t *flag = shardtab_detail_halo_flag_word(h->inbox, p->src_rank, p, half,
                                                        s0 + i % (uint32_t)n, slices);
        const uint64_t start = shardtab_detail_clock();
        for (;;) {
            const uint64_t seen = shardtab_detail_load_relaxed_system(flag);
            if (seen == e) {
                shardtab_detail_fence_acquire();
                break;
            }
            const uint64_t waited = shardtab_detail_clock() - start;
            if (shardtab_aborted(s)) {
                why = SHARDTAB_WAIT_ABORTED;
            } else if (waited > s->timeout_ticks) {
                shardtab_detail_give_up(
                    s, (int)SHARDTAB_DETAIL_HALO_FLAG_AT(i / (uint32_t)n, s0 + i % (uint32_t)n),
                    SHARDTAB_DETAIL_CMP_HALO_FLAG, e, seen, waited);
                why = SHARDTAB_WAIT_TIMED_OUT;
            }
            if (why != SHARDTAB_WAIT_OK)
                break;
            shardtab_detail_pause();
        }
    }
    if (why != SHARDTAB_WAIT_OK)
        shardtab_detail_block_min_int(&outcome, why == SHARDTAB_WAIT_TIMED_OUT ? 0 : 1);
    shardtab_detail_block_sync(); /* every flag seen, or the outcome */
    shardtab_detail_fence_after_block_acquire();
    const int got = outcome;
    if (got == 2)
        shardtab_detail_halo_copy_slices(h->pieces, h->count, h->inbox, h->table, half, 0, s0, s1);
    shardtab_detail_block_sync(); /* every cell taken and stored: the next call may begin */
    return got == 2 ? SHARDTAB_WAIT_OK : got == 0 ? SHARDTAB_WAIT_TIMED_OUT : SHARDTAB_WAIT_ABORTED;
}

/* Every thread of one block: slices [s0, s1) of the exchange pushed by put,
 * their send, then their take (the stream's kernel: a slice a block; a
 * kernel's own call: every slice, or a grid's share). */
SHARDTAB_DEVFN int shardtab_detail_halo_put_slices(const shardtab_signals_t *s,
                                                   const shardtab_halo_device_t *h, uint64_t s0,
                                                   uint64_t s1)
{
    const uint64_t e = shardtab_detail_halo_put_send(s, h, s0, s1);
    return e == 0 ? SHARDTAB_WAIT_ABORTED : shardtab_detail_halo_put_take(s, h, e, s0, s1);
}

/* Every thread of one block: the exchange pushed by put, whole (every slice). */
SHARDTAB_DEVFN int shardtab_detail_halo_put_block(const shardtab_signals_t *s,
                                                  const shardtab_halo_device_t *h)
{
    return shardtab_detail_halo_put_slices(s, h, 0, (uint64_t)h->slices);
}

/* Every thread of one block: a pushed exchange, in its form. */
SHARDTAB_DEVFN int shardtab_detail_halo_pushed_block(const shardtab_signals_t *s,
                                                     const shardtab_halo_device_t *h)
{
    return h->form == SHARDTAB_HALO_PUSHED_PUT ? shardtab_detail_halo_put_block(s, h)
                                               : shardtab_detail_halo_push_block(s, h);
}
/** @endcond */

/** Every thread of one block: this rank's ghost cells filled from its
 * neighbours' blocks, pushed or pulled (the file's comment). Returns
 * SHARDTAB_WAIT_OK with every ghost cell in place (readable by every thread
 * of the block, and by the rest of the grid after the grid's own sync), or
 * why a wait gave up (shardtab_barrier's statuses; the node stops). */
SHARDTAB_DEVFN int shardtab_halo_exchange_block(const shardtab_signals_t *s,
                                                const shardtab_halo_device_t *h)
{
    if (h->form != SHARDTAB_HALO_PULLED)
        return shardtab_detail_halo_pushed_block(s, h);
    int status = shardtab_barrier_block(s);

    if (status != SHARDTAB_WAIT_OK)
        return status;
    shardtab_detail_halo_copy(h, (uint64_t)shardtab_detail_block_thread(),
                              (uint64_t)shardtab_detail_block_threads());
    return shardtab_barrier_block(s); /* its release covers the block's ghost stores */
}

/** Every thread of every block of a grid of `blocks`, this one `block`
 * (each block once): the exchange of shardtab_halo_exchange_block, shared
 * among the blocks where the halo is pushed by put in slices (the
 * descriptor's slices: above 64 KiB a rank), each block the put and the
 * take of its own slices, so a persistent solver's whole grid moves a large
 * halo; any other halo is block 0's alone. A block waits only for its
 * slices' flags, never for another block. Returns this block's status
 * (SHARDTAB_WAIT_OK where it had nothing to do); a wait that gave up stops
 * the node, as shardtab_halo_exchange_block's. Every ghost cell is in place
 * for the grid after the grid's own sync, which must also come between two
 * calls (a block may take other slices in the next). The blocks' statuses
 * differ where a wait gave up: every block must still reach the grid's
 * sync, and the grid decide to stop after it, from one word every block
 * reads (the file's example), never a block leave alone (the others would
 * wait in the sync, which has no limit). block outside [0, blocks): nothing
 * to do. The exchange's paths take many registers: a kernel's blocks may
 * need to be smaller (docs/performance.md). */
SHARDTAB_DEVFN int shardtab_halo_exchange_blocks(const shardtab_signals_t *s,
                                                 const shardtab_halo_device_t *h, int block,
                                                 int blocks)
{
    if (block < 0 || block >= blocks)
        return SHARDTAB_WAIT_OK;
    if (h->form != SHARDTAB_HALO_PUSHED_PUT || h->slices == 1 || blocks == 1)
        return block == 0 ? shardtab_halo_exchange_block(s, h) : SHARDTAB_WAIT_OK;
    const uint64_t n = (uint64_t)h->slices, s0 = n * (uint64_t)block / (uint64_t)blocks,
                   s1 = n * (uint64_t)(block + 1) / (uint64_t)blocks;
    return s0 == s1 ? SHARDTAB_WAIT_OK : shardtab_detail_halo_put_slices(s, h, s0, s1);
}

#endif /* SHARDTAB_HALO_DEVICE_H */
