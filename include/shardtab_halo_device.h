/** @file
 * shardtab_halo_device.h - the halo exchange inside a kernel, for solvers
 * whose kernel owns its iterations (a persistent kernel), and the body of
 * the stream-ordered exchange's small form: no host in the loop.
 *
 *     __global__ void solve(shardtab_signals_t sig, shardtab_halo_device_t halo, ...) {
 *         for (int it = 0; it < n; it++) {
 *             if (blockIdx.x == 0 &&
 *                 shardtab_halo_exchange_block(&sig, &halo) != SHARDTAB_WAIT_OK)
 *                 ...stop: the host reports why (shardtab_signal_check)
 *             ...the grid's own sync, then the sweep
 *         }
 *     }
 *
 * One block of each rank of the node calls it; every rank of the node calls
 * it the same number of times, and calls of the same halo's
 * shardtab_halo_exchange count with them. Only this node's ranks can be
 * reached: shardtab_halo_device refuses a halo whose table spans nodes.
 *
 * Two forms, chosen by shardtab_halo_create alike on every rank:
 *   - pushed (the descriptor's inbox set; cells of whole 4-byte words and at
 *     most 16 KiB of ghost cells a rank): each rank stores the cells its
 *     neighbours need as LL words into their inboxes (4 bytes and the
 *     exchange's flag in one 8-byte store, shardtab_comm.h's LL puts), then
 *     waits for its own inbox's words and stores them into its ghost cells.
 *     One way, no barrier: a rank's ghost cells are written by itself alone,
 *     and a neighbour's cells are read by that neighbour alone. Each inbox
 *     has two halves, by the exchange's parity; a rank writes a half again
 *     only after it has taken its neighbour's next exchange, which the
 *     neighbour put after it had read that half.
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
/** @endcond */

/** Every thread of one block: this rank's ghost cells filled from its
 * neighbours' blocks, pushed or pulled (the file's comment). Returns
 * SHARDTAB_WAIT_OK with every ghost cell in place (readable by every thread
 * of the block, and by the rest of the grid after the grid's own sync), or
 * why a wait gave up (shardtab_barrier's statuses; the node stops). */
SHARDTAB_DEVFN int shardtab_halo_exchange_block(const shardtab_signals_t *s,
                                                const shardtab_halo_device_t *h)
{
    if (h->inbox)
        return shardtab_detail_halo_push_block(s, h);
    int status = shardtab_barrier_block(s);

    if (status != SHARDTAB_WAIT_OK)
        return status;
    shardtab_detail_halo_copy(h, (uint64_t)shardtab_detail_block_thread(),
                              (uint64_t)shardtab_detail_block_threads());
    return shardtab_barrier_block(s); /* its release covers the block's ghost stores */
}

#endif /* SHARDTAB_HALO_DEVICE_H */
