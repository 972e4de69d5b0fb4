/** @file
 * shardtab/halo_types.h - what a halo exchange moves, as the device sees it:
 * its pieces (boxes of cells, each from one shard into another) and the
 * descriptor a kernel takes (shardtab_halo_device_t, from
 * shardtab_halo_device), with the copy loops every backend runs (a few
 * units of a piece; the pulled pieces and the packing of the cells that
 * cross nodes), for the stream-ordered exchange's kernels, the device-side
 * calls and the host backend's C. API types, documented here; the loops are detail.
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
    int32_t src_rank;     /**< node rank whose shard holds the source; -1: src_at is an address */
    int32_t dst_rank;     /**< the same for the destination */
    uint64_t src_at;      /**< bytes into that shard, or the address */
    uint64_t dst_at;      /**< bytes into that shard, or the address */
    uint64_t first;       /**< copy units of the pieces before this one */
    uint64_t units;       /**< copy units of this piece */
    uint64_t row_units;   /**< copy units of one row: extent[0] runs */
    uint64_t rows;        /**< extent[1]: rows of one plane */
    uint32_t unit;        /**< bytes one copy moves: 16, 8, 4, 2 or 1 */
    uint32_t slot;        /**< pushed by put: the piece's index in its inbox (its flags) */
    uint64_t run_units;   /**< copy units of one run (a cell, or cells back to back) */
    uint64_t slice_units; /**< pushed by put: copy units of one slice but the last */
    uint64_t src_stride[SHARDTAB_HALO_MAX_DIMS]; /**< bytes between runs, rows, planes */
    uint64_t dst_stride[SHARDTAB_HALO_MAX_DIMS]; /**< bytes between runs, rows, planes */
} shardtab_halo_piece_t;

/** How a halo moves the cells inside a node (shardtab_halo_pushed, the
 * descriptor's form; shardtab_halo_device.h has each form's protocol). */
enum shardtab_halo_form {
    SHARDTAB_HALO_PULLED = 0,    /**< through the table between two node barriers */
    SHARDTAB_HALO_PUSHED_LL = 1, /**< into the neighbours' inboxes as LL words */
    SHARDTAB_HALO_PUSHED_PUT = 2 /**< into the neighbours' inboxes, then a flag a slice */
};

/** A halo as a kernel takes it (by value): shardtab_halo_device fills it.
 * Pulled (form SHARDTAB_HALO_PULLED): the pieces copy the neighbours' cells
 * through the table between two node barriers. Pushed (either other form):
 * the sends put this rank's cells into the neighbours' inboxes, the pieces
 * take this rank's inbox into its ghost cells (shardtab_halo_device.h). */
typedef struct shardtab_halo_device {
    const shardtab_halo_piece_t *pieces; /**< device memory: the pieces, in order */
    void *const *table;                  /**< the table's device replica */
    int count;                           /**< pieces */
    uint64_t units;                      /**< copy units of every piece */
    const shardtab_halo_piece_t *sends;  /**< device memory: pushed, the sends, in order */
    int send_count;                      /**< sends */
    uint64_t send_units;                 /**< copy units of every send */
    void *const *inbox; /**< the inboxes' device replica (node ranks); NULL: pulled */
    uint64_t *epoch;    /**< device memory [slices]: this rank's pushed exchanges so far,
                             as each slice's sender has counted them */
    int form;           /**< a shardtab_halo_form */
    int slices;         /**< pushed by put: the slices of every piece, each with its
                             own flag (the same on every rank); else 1 */
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

/* Unit `local` of piece p: part local % run_units of run local / run_units
 * of its row, row local / row_units of the box (rows first, then planes);
 * its byte offsets from the source's and the destination's places. */
SHARDTAB_DEVFN void shardtab_detail_halo_unit_at(const shardtab_halo_piece_t *p, uint64_t local,
                                                 uint64_t *src, uint64_t *dst)
{
    if (p->run_units == p->units) { /* one run */
        *src = *dst = local * p->unit;
        return;
    }
    const uint64_t row = local / p->row_units, in_row = local % p->row_units;
    const uint64_t run = in_row / p->run_units, part = in_row % p->run_units;
    const uint64_t i1 = row % p->rows, i2 = row / p->rows;
    *src = run * p->src_stride[0] + i1 * p->src_stride[1] + i2 * p->src_stride[2] + part * p->unit;
    *dst = run * p->dst_stride[0] + i1 * p->dst_stride[1] + i2 * p->dst_stride[2] + part * p->unit;
}

/* The piece of unit k, searched from piece *p on (k only grows in a
 * thread's loop); k - its first, its local unit. */
SHARDTAB_DEVFN const shardtab_halo_piece_t *shardtab_detail_halo_piece_of(
    const shardtab_halo_piece_t *pieces, int *p, uint64_t k)
{
    while (k >= pieces[*p].first + pieces[*p].units)
        (*p)++;
    return &pieces[*p];
}

/* A thread's loads in flight where a halo's cells are one run of 16-byte units */
#define SHARDTAB_DETAIL_HALO_IN_FLIGHT 4

/* Units local, local + step, .. of piece p below end, up to
 * SHARDTAB_DETAIL_HALO_IN_FLIGHT of them, from src to dst (its places:
 * unit_at); returns how many it copied. A piece that is one run of 16-byte
 * units (a face contiguous in both places) has those loads in flight at once,
 * all issued before any store; any other copies one unit. */
SHARDTAB_DEVFN uint64_t shardtab_detail_halo_copy_some(const shardtab_halo_piece_t *p,
                                                       const char *src, char *dst, uint64_t local,
                                                       uint64_t end, uint64_t step)
{
    if (p->run_units == p->units && p->unit == 16) {
        const shardtab_detail_halo16_t *from = (const shardtab_detail_halo16_t *)src;
        shardtab_detail_halo16_t *to = (shardtab_detail_halo16_t *)dst,
                                 v[SHARDTAB_DETAIL_HALO_IN_FLIGHT];
        uint64_t copied = 0;
        for (int j = 0; j < SHARDTAB_DETAIL_HALO_IN_FLIGHT; j++)
            if (local + (uint64_t)j * step < end)
                v[j] = from[local + (uint64_t)j * step];
        for (int j = 0; j < SHARDTAB_DETAIL_HALO_IN_FLIGHT; j++)
            if (local + (uint64_t)j * step < end) {
                to[local + (uint64_t)j * step] = v[j];
                copied++;
            }
        return copied;
    }
    uint64_t from, to;
    shardtab_detail_halo_unit_at(p, local, &from, &to);
    shardtab_detail_halo_unit(dst + to, src + from, p->unit);
    return 1;
}

/* Copy units [thread, units) of `pieces` in steps of threads, each source
 * place in src_table's shards, each destination in dst_table's. No
 * ordering: the callers' syncs and barriers give it. */
SHARDTAB_DEVFN void shardtab_detail_halo_copy_pieces(const shardtab_halo_piece_t *pieces,
                                                     uint64_t units, void *const *src_table,
                                                     void *const *dst_table, uint64_t thread,
                                                     uint64_t threads)
{
    int p = 0;

    for (uint64_t k = thread; k < units;) {
        const shardtab_halo_piece_t *piece = shardtab_detail_halo_piece_of(pieces, &p, k);
        const char *src = shardtab_detail_halo_place(src_table, piece->src_rank, piece->src_at);
        char *dst = shardtab_detail_halo_place(dst_table, piece->dst_rank, piece->dst_at);
        k += threads * shardtab_detail_halo_copy_some(piece, src, dst, k - piece->first,
                                                      piece->units, threads);
    }
}

/* Every piece of h through the table (pulled; the cells that cross nodes,
 * packed and unpacked). */
SHARDTAB_DEVFN void shardtab_detail_halo_copy(const shardtab_halo_device_t *h, uint64_t thread,
                                              uint64_t threads)
{
    shardtab_detail_halo_copy_pieces(h->pieces, h->units, h->table, h->table, thread, threads);
}
/** @endcond */

#endif /* SHARDTAB_HALO_TYPES_H */
