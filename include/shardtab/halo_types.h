/** @file
 * shardtab/halo_types.h - what a halo exchange moves, as the device sees it:
 * its pieces (boxes of cells, each from one shard into another) and the
 * descriptor a kernel takes (shardtab_halo_device_t, from
 * shardtab_halo_device), with the one copy loop every backend runs: the
 * stream-ordered exchange's kernels, the device-side
 * shardtab_halo_exchange_block, the host backend's C, and the packing of
 * the cells that cross nodes. API types, documented here; the loop is detail.
 * No MPI and no GPU runtime header. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_HALO_TYPES_H
#define SHARDTAB_HALO_TYPES_H

#include <stdint.h>

#include "shardtab_device.h"

/** The most axes of a halo's process grid. */
#define SHARDTAB_HALO_MAX_DIMS 3
/** The most pieces one exchange moves: one per neighbour, faces, edges and corners. */
#define SHARDTAB_HALO_MAX_PIECES 26

/** One box of cells copied from one place into another: extent[0] x
 * extent[1] x extent[2] cells, each place a byte address plus the box's
 * strides in bytes. Cells that lie back to back in both places are one run
 * (one "cell" of run bytes), so that a face that is contiguous in memory is
 * one straight copy. Made by shardtab_halo_create; a kernel only passes it
 * on. */
typedef struct shardtab_halo_piece {
    int32_t src_rank;   /**< node rank whose shard holds the source; -1: src_at is an address */
    int32_t dst_rank;   /**< the same for the destination */
    uint64_t src_at;    /**< bytes into that shard, or the address */
    uint64_t dst_at;    /**< bytes into that shard, or the address */
    uint64_t first;     /**< copy units of the pieces before this one */
    uint64_t units;     /**< copy units of this piece */
    uint64_t row_units; /**< copy units of one row: extent[0] runs */
    uint64_t rows;      /**< extent[1]: rows of one plane */
    uint32_t unit;      /**< bytes one copy moves: 16, 8, 4, 2 or 1 */
    uint32_t pad;       /**< 0 */
    uint64_t run_units; /**< copy units of one run (a cell, or cells back to back) */
    uint64_t src_stride[SHARDTAB_HALO_MAX_DIMS]; /**< bytes between runs, rows, planes */
    uint64_t dst_stride[SHARDTAB_HALO_MAX_DIMS]; /**< bytes between runs, rows, planes */
} shardtab_halo_piece_t;

/** A halo as a kernel takes it (by value): shardtab_halo_device fills it. */
typedef struct shardtab_halo_device {
    const shardtab_halo_piece_t *pieces; /**< device memory: the pieces, in order */
    void *const *table;                  /**< the table's device replica */
    int count;                           /**< pieces */
    uint64_t units;                      /**< copy units of every piece */
} shardtab_halo_device_t;

/** @cond detail */
/* a 16-byte unit as a value: one 16-byte load or store on GPUs */
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
typedef int4 shardtab_detail_halo16_t;
#else
typedef struct shardtab_detail_halo16 {
    uint64_t word[2];
} shardtab_detail_halo16_t;
#endif

/* the byte address of a piece's place: a shard of the table, or an address */
SHARDTAB_DEVFN char *shardtab_detail_halo_place(void *const *table, int32_t rank, uint64_t at)
{
    return rank < 0 ? (char *)(uintptr_t)at : (char *)table[rank] + at;
}

/* one copy unit of `unit` bytes (the addresses are multiples of it) */
SHARDTAB_DEVFN void shardtab_detail_halo_unit(char *dst, const char *src, uint32_t unit)
{
    if (unit == 16)
        shardtab_detail_copy16(dst, src);
    else if (unit == 8)
        *(uint64_t *)dst = *(const uint64_t *)src;
    else if (unit == 4)
        *(uint32_t *)dst = *(const uint32_t *)src;
    else if (unit == 2)
        *(uint16_t *)dst = *(const uint16_t *)src;
    else
        *dst = *src;
}

/* Copy units [thread, units) in steps of threads, over every piece of h:
 * unit k of a piece is part k % run_units of run k / run_units of its row,
 * row k / row_units of the box (rows first, then planes); a piece that is
 * one run (a face contiguous in both places) is a straight copy, with no
 * division. No ordering: the callers' syncs and barriers give it. */
SHARDTAB_DEVFN void shardtab_detail_halo_copy(const shardtab_halo_device_t *h, uint64_t thread,
                                              uint64_t threads)
{
    int p = 0;

    for (uint64_t k = thread; k < h->units; k += threads) {
        while (k >= h->pieces[p].first + h->pieces[p].units) /* k only grows */
            p++;
        const shardtab_halo_piece_t *piece = &h->pieces[p];
        const uint64_t local = k - piece->first;
        const char *src = shardtab_detail_halo_place(h->table, piece->src_rank, piece->src_at);
        char *dst = shardtab_detail_halo_place(h->table, piece->dst_rank, piece->dst_at);
        if (piece->run_units == piece->units && piece->unit == 16) {
            /* one run of 16-byte units: this thread's next four loads in flight at once */
            const shardtab_detail_halo16_t *from = (const shardtab_detail_halo16_t *)src;
            shardtab_detail_halo16_t *to = (shardtab_detail_halo16_t *)dst, v0, v1, v2, v3;
            const uint64_t n = piece->units, l1 = local + threads, l2 = l1 + threads,
                           l3 = l2 + threads;
            v0 = from[local];
            if (l1 < n)
                v1 = from[l1];
            if (l2 < n)
                v2 = from[l2];
            if (l3 < n)
                v3 = from[l3];
            to[local] = v0;
            if (l1 < n)
                to[l1] = v1;
            if (l2 < n)
                to[l2] = v2;
            if (l3 < n)
                to[l3] = v3;
            k += (l3 < n ? 3 : l2 < n ? 2 : l1 < n ? 1 : 0) * threads;
            continue;
        }
        if (piece->run_units == piece->units) { /* one run */
            shardtab_detail_halo_unit(dst + local * piece->unit, src + local * piece->unit,
                                      piece->unit);
            continue;
        }
        const uint64_t row = local / piece->row_units, in_row = local % piece->row_units;
        const uint64_t run = in_row / piece->run_units, part = in_row % piece->run_units;
        const uint64_t i1 = row % piece->rows, i2 = row / piece->rows;
        shardtab_detail_halo_unit(dst + run * piece->dst_stride[0] + i1 * piece->dst_stride[1] +
                                      i2 * piece->dst_stride[2] + part * piece->unit,
                                  src + run * piece->src_stride[0] + i1 * piece->src_stride[1] +
                                      i2 * piece->src_stride[2] + part * piece->unit,
                                  piece->unit);
    }
}
/** @endcond */

#endif /* SHARDTAB_HALO_TYPES_H */
