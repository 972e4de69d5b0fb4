/** @file
 * shardtab_halo_device.h - the halo exchange inside a kernel, for solvers
 * whose kernel owns its iterations (a persistent kernel): the same pieces
 * and copy loop as shardtab_halo_exchange (shardtab/halo_types.h), between
 * two node barriers of the table's signals, with no host in the loop.
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
 * One block of each rank of the node calls it (it is the node's barrier,
 * shardtab_barrier_block, twice: one at a time per rank); every rank of the
 * node calls it the same number of times. Only this node's ranks can be
 * reached: shardtab_halo_device refuses a halo whose table spans nodes. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_HALO_DEVICE_H
#define SHARDTAB_HALO_DEVICE_H

#include "shardtab_device.h"
#include "shardtab/halo_types.h"

/** Every thread of one block: a node barrier (every rank's stores before it
 * visible to every rank after it), this rank's ghost cells copied from its
 * neighbours' blocks through the table, and a second barrier, so that no
 * rank changes its interior while a neighbour still reads it. Returns
 * SHARDTAB_WAIT_OK with every ghost cell in place (readable by every thread
 * of the block, and by the rest of the grid after the grid's own sync), or
 * why a barrier gave up (shardtab_barrier's statuses; the node stops). */
SHARDTAB_DEVFN int shardtab_halo_exchange_block(const shardtab_signals_t *s,
                                                const shardtab_halo_device_t *h)
{
    int status = shardtab_barrier_block(s);

    if (status != SHARDTAB_WAIT_OK)
        return status;
    shardtab_detail_halo_copy(h, (uint64_t)shardtab_detail_block_thread(),
                              (uint64_t)shardtab_detail_block_threads());
    return shardtab_barrier_block(s); /* its release covers the block's ghost stores */
}

#endif /* SHARDTAB_HALO_DEVICE_H */
