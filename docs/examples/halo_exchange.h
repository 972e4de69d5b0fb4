/* halo_exchange.h - the device code of halo_exchange.c, written once for the
 * GPU kernel (halo_exchange.hip, HIP or CUDA) and the host backend's C
 * (halo_exchange_host.c): one step of a 1-D three-point stencil whose ghost
 * cells the neighbours write through the table, ordered by signals. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef HALO_EXCHANGE_H
#define HALO_EXCHANGE_H

#include <shardtab_comm.h> /* put with signal; it includes shardtab_device.h */
#include <stddef.h>
#include <stdint.h>

/* the user signal slots (shardtab_device.h) a rank's neighbours signal into */
enum { HALO_FROM_LEFT = 0, HALO_FROM_RIGHT = 1 };

/* Each rank's shard: two buffers (the steps alternate between them) of
 * cells + 2 doubles: the left ghost cell, this rank's cells, the right ghost
 * cell. The ends of the line keep their outer ghost cells as the boundary. */
typedef struct halo_layout {
    int left, right;                /* the neighbours' node ranks; -1 at an end */
    size_t cells;                   /* this rank's */
    size_t left_cells, right_cells; /* the neighbours' */
} halo_layout_t;

/* Doubles from the shard's start to cell c (0: the left ghost) of buffer b. */
SHARDTAB_DEVFN size_t halo_index(size_t cells, uint64_t b, size_t c)
{
    return (size_t)(b % 2) * (cells + 2) + c;
}

/* The stencil, the same expression in the kernel and in the serial check. */
SHARDTAB_DEVFN double halo_update(double left, double centre, double right)
{
    return 0.25 * (left + right) + 0.5 * centre;
}

/* Step s, every thread of the block (first, stride: its share of the cells):
 *   1. put this rank's end cells of buffer s into the neighbours' ghost cells
 *      of buffer s, each put followed by a signal of s + 1 (set, release);
 *   2. wait until both neighbours' signals reach s + 1 (acquire);
 *   3. buffer s + 1 = the stencil over buffer s.
 * A neighbour overwrites this rank's ghost cells of buffer s again at step
 * s + 2 only, once it has this rank's signal of s + 2, sent after this step's
 * reads: two buffers and growing signal values need no reset and no second
 * wait. Returns SHARDTAB_WAIT_OK, or why a wait ended (the host learns more
 * from shardtab_signal_check). */
SHARDTAB_DEVFN int halo_step(const shardtab_signals_t *sig, double *const *table,
                             halo_layout_t layout, uint64_t s, size_t first, size_t stride)
{
    void *const *shards = (void *const *)table;
    double *mine = table[sig->node_rank];
    const double *cur = mine + halo_index(layout.cells, s, 0);
    double *next = mine + halo_index(layout.cells, s + 1, 0);
    int status = SHARDTAB_WAIT_OK;

    if (layout.left >= 0) /* into the left neighbour's right ghost cell */
        shardtab_put_signal_block(
            sig, shards, layout.left,
            halo_index(layout.left_cells, s, layout.left_cells + 1) * sizeof(double), &cur[1],
            sizeof(double), HALO_FROM_RIGHT, s + 1, SHARDTAB_SIGNAL_SET);
    if (layout.right >= 0) /* into the right neighbour's left ghost cell */
        shardtab_put_signal_block(
            sig, shards, layout.right, halo_index(layout.right_cells, s, 0) * sizeof(double),
            &cur[layout.cells], sizeof(double), HALO_FROM_LEFT, s + 1, SHARDTAB_SIGNAL_SET);
    if (layout.left >= 0)
        status = shardtab_signal_wait_block(sig, HALO_FROM_LEFT, SHARDTAB_CMP_GE, s + 1);
    if (layout.right >= 0 && status == SHARDTAB_WAIT_OK)
        status = shardtab_signal_wait_block(sig, HALO_FROM_RIGHT, SHARDTAB_CMP_GE, s + 1);
    if (status != SHARDTAB_WAIT_OK)
        return status;
    for (size_t c = 1 + first; c <= layout.cells; c += stride)
        next[c] = halo_update(cur[c - 1], cur[c], cur[c + 1]);
    return status;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Runs step s on the default stream (GPUs: one block; the host: now), with
 * the table the kernels use (shardtab_device_table) and the handle of
 * shardtab_signals. Returns NULL, or the runtime's words for a failed launch. */
const char *halo_exchange_step(const shardtab_signals_t *sig, void *const *table,
                               halo_layout_t layout, uint64_t s);

#ifdef __cplusplus
}
#endif

#endif /* HALO_EXCHANGE_H */
