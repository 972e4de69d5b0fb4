/* halo.c - making a halo exchange over a table (shardtab_halo_create): each
 * rank's decomposition checked, every rank's gathered and compared, then the
 * plan: for every direction with a neighbour, the box of ghost cells it
 * fills and the neighbour's box it comes from. A neighbour on this node
 * gives a piece pulled through the table, or, where the halo is pushed
 * (small ghosts: as LL words or by put, the same choice on every rank), a
 * send into that neighbour's inbox and a piece from this rank's inbox, the
 * inboxes a table of their own; one on another node a link packed and sent
 * through MPI. The pieces are uploaded once. The exchange itself is
 * halo_exchange.c's, its device body shardtab_halo_device.h's. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "grid.h"
#include "halo_internal.h"
#include "internal.h"
#include "registry.h"
#include "table.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D SHARDTAB_HALO_MAX_DIMS

/* A halo is pushed as LL words when its cells are whole 4-byte words and
 * every rank's ghost cells take at most this many bytes (its inbox four
 * times as many: LL words, two halves): one store and one load a word, no
 * fence. On an H100 (docs/performance.md) they beat the put at 1 and 4 KiB
 * (1.8 / 3.0 against 3.9 / 4.0 us device-side) and lost to it at 16 KiB
 * (6.5 against 5.4); 8 KiB, between, was not measured. */
#define ST_HALO_LL_MAX ((size_t)8 << 10)
/* Otherwise it is pushed by put when every rank's ghost cells take at most
 * this many bytes (its inbox twice as many, two halves), one way; above, a
 * grid pulls them between two syncs. On an H100 the put's first grid took
 * 0.8x the pull's time stream-ordered from 256 KiB to 1 MiB
 * (results/journey.md); above 1 MiB the put was not measured. */
#define ST_HALO_PUT_MAX ((size_t)1 << 20)
/* Pushed by put, every piece is cut into slices, each with its own flag,
 * the same number on every rank: one while every rank's ghost cells take at
 * most ST_HALO_PUT_ONE_SLICE_MAX, above one for every ST_HALO_PUT_SLICE_BYTES,
 * ST_HALO_PUT_MAX_SLICES at most. The stream-ordered exchange runs a block a
 * slice, each on its own (docs/performance.md); a kernel's own call is one
 * block for every slice. */
#define ST_HALO_PUT_ONE_SLICE_MAX ((size_t)64 << 10)
#define ST_HALO_PUT_SLICE_BYTES ((size_t)16 << 10)
#define ST_HALO_PUT_MAX_SLICES 32

/* What every rank tells every other about its block: the params, resolved
 * (axes past dims: one cell, no ghost; strides filled in). */
typedef struct st_halo_desc {
    int64_t dims, grid[D], periodic[D], corners;
    uint64_t block[D], ghost[D], elem, offset, stride[D];
    uint64_t base; /* the shard's address modulo 16 */
} st_halo_desc_t;

static const char *const axis_names[D] = {"0", "1", "2"};

/* ---- this rank's own checks -------------------------------------------------------- */

/* a * b + c into *out, or 0 if it overflows */
static int mul_add(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
    uint64_t product;
    return !__builtin_mul_overflow(a, b, &product) && !__builtin_add_overflow(product, c, out);
}

/* The params, checked here, into d. */
static shardtab_status_t resolve(const shardtab_t *t, const shardtab_halo_params_t *p,
                                 st_halo_desc_t *d)
{
    const char *call = "shardtab_halo_create";
    uint64_t extent[D], ranks = 1, span = 0, packed = 1;
    int strides_given = 0;

    memset(d, 0, sizeof *d);
    if (p == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: params is NULL", call);
    if (p->dims < 1 || p->dims > D)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: dims %d is not 1, 2 or 3", call, p->dims);
    d->dims = p->dims;
    d->corners = p->corners != 0;
    d->elem = p->elem_bytes;
    d->offset = p->offset;
    d->base = (uint64_t)(uintptr_t)t->shard.local % 16;
    if (p->elem_bytes == 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: elem_bytes is 0", call);
    for (int a = 0; a < D; a++) {
        const int in = a < p->dims;
        d->grid[a] = in ? p->grid[a] : 1;
        d->periodic[a] = in && p->periodic[a] != 0;
        d->block[a] = in ? p->block[a] : 1;
        d->ghost[a] = in ? p->ghost[a] : 0;
        d->stride[a] = in ? p->stride[a] : 0;
        strides_given |= d->stride[a] != 0;
        if (d->grid[a] < 1)
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "%s: grid[%d] is %d: at least one rank an axis", call, a, p->grid[a]);
        ranks *= (uint64_t)d->grid[a];
        if (ranks > (uint64_t)t->size)
            break; /* named below, before it can overflow */
        if (d->block[a] == 0)
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "%s: block[%d] is 0: every rank owns at least one cell an axis", call,
                           a);
        if (d->ghost[a] > d->block[a])
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "%s: ghost[%d] = %llu is wider than this rank's block of %llu cells on "
                           "axis %s",
                           call, a, (unsigned long long)d->ghost[a],
                           (unsigned long long)d->block[a], axis_names[a]);
        if (!mul_add(d->ghost[a], 2, d->block[a], &extent[a]))
            return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: block[%d] + 2 ghost[%d] overflows", call,
                           a, a);
    }
    if (ranks != (uint64_t)t->size)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: the grid %d x %d x %d is not the table's %d ranks", call, p->grid[0],
                       p->dims > 1 ? p->grid[1] : 1, p->dims > 2 ? p->grid[2] : 1, t->size);
    for (int a = 0; a < D; a++) { /* all 0: packed, axis 0 fastest */
        if (!strides_given) {
            d->stride[a] = packed;
            if (!mul_add(packed, extent[a], 0, &packed))
                return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: the block's cells overflow", call);
        } else if (a < p->dims && d->stride[a] == 0) {
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "%s: stride[%d] is 0 and stride[0..%d] are not all 0", call, a,
                           p->dims - 1);
        }
    }
    /* No two cells overlap: the axes by growing stride, each stride at
     * least the last one times its extent (axes of one cell do not count). */
    {
        int order[D] = {0, 1, 2};
        for (int i = 1; i < D; i++)
            for (int j = i; j > 0 && d->stride[order[j]] < d->stride[order[j - 1]]; j--) {
                int swap = order[j];
                order[j] = order[j - 1];
                order[j - 1] = swap;
            }
        uint64_t need = 1;
        for (int i = 0; i < D; i++) {
            const int a = order[i];
            if (extent[a] == 1)
                continue;
            if (d->stride[a] < need)
                return st_fail(SHARDTAB_ERR_INVALID_ARG,
                               "%s: the strides make cells overlap: stride[%d] = %llu is below "
                               "%llu, the cells the shorter strides span",
                               call, a, (unsigned long long)d->stride[a], (unsigned long long)need);
            if (!mul_add(d->stride[a], extent[a], 0, &need) ||
                !mul_add(extent[a] - 1, d->stride[a], span, &span))
                return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: the block's cells overflow", call);
        }
    }
    /* The last cell's end inside the shard. */
    uint64_t end;
    if (!mul_add(span + 1, d->elem, d->offset, &end) || end > (uint64_t)t->shard.bytes)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: the block's cells run from byte %llu past this rank's shard of %zu "
                       "bytes",
                       call, (unsigned long long)d->offset, t->shard.bytes);
    return SHARDTAB_SUCCESS;
}

/* ---- every rank's, compared --------------------------------------------------------- */

/* The neighbour of rank r in direction dir (d[a] each -1, 0, 1), or -1. */
static int neighbor_of(const st_halo_desc_t *d, int r, const int dir[D])
{
    return st_grid_neighbor(d->grid, d->periodic, r, dir);
}

/* direction index k as its three offsets; whether the halo moves it (a face,
 * or with corners an edge or a corner, on the halo's axes, every moving axis
 * with ghost cells) */
static int direction_moves(const st_halo_desc_t *d, int k, int dir[D])
{
    int moving = 0;
    dir[0] = k % 3 - 1;
    dir[1] = k / 3 % 3 - 1;
    dir[2] = k / 9 - 1;
    for (int a = 0; a < D; a++)
        if (dir[a] != 0) {
            if (a >= d->dims || d->ghost[a] == 0)
                return 0;
            moving++;
        }
    return moving == 1 || (moving > 1 && d->corners);
}

/* The same rules on every rank over everyone's descs: the first rank and
 * rule broken is named, in the same words everywhere. (A ghost is never
 * wider than a neighbour's block: it is the same on every rank and no wider
 * than each rank's own, resolve's check.) */
static shardtab_status_t compare(const st_halo_desc_t *all, int size)
{
    const char *call = "shardtab_halo_create";
    const st_halo_desc_t *first = &all[0];

    for (int r = 1; r < size; r++) {
        const st_halo_desc_t *d = &all[r];
        const char *field = d->dims != first->dims                              ? "dims"
                            : memcmp(d->grid, first->grid, sizeof d->grid) != 0 ? "grid"
                            : memcmp(d->periodic, first->periodic, sizeof d->periodic) != 0
                                ? "periodic"
                            : memcmp(d->ghost, first->ghost, sizeof d->ghost) != 0 ? "ghost"
                            : d->elem != first->elem                               ? "elem_bytes"
                            : d->corners != first->corners                         ? "corners"
                                                                                   : NULL;
        if (field != NULL)
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "%s: rank %d's %s differs from rank 0's; every rank must give the "
                           "same dims, grid, periodic, ghost, elem_bytes and corners",
                           call, r, field);
    }
    for (int r = 0; r < size; r++)
        for (int k = 0; k < ST_HALO_DIRECTIONS; k++) {
            int dir[D], n;
            if (k == ST_HALO_SELF || !direction_moves(first, k, dir) ||
                (n = neighbor_of(first, r, dir)) < 0)
                continue;
            for (int a = 0; a < D; a++) {
                if (dir[a] == 0 && all[n].block[a] != all[r].block[a])
                    return st_fail(SHARDTAB_ERR_INVALID_ARG,
                                   "%s: ranks %d and %d share a face but not its extent: %llu "
                                   "and %llu cells on axis %s",
                                   call, r, n, (unsigned long long)all[r].block[a],
                                   (unsigned long long)all[n].block[a], axis_names[a]);
            }
        }
    return SHARDTAB_SUCCESS;
}

/* ---- the plan ------------------------------------------------------------------------ */

/* A box of owner o's array for ghost cells toward dir (each -1, 0 or 1 an
 * axis): with ghost, o's own ghost cells there; without, the interior cells
 * of o that fill them on the rank at -dir from o (the low ghosts take the
 * top cells, the high ones the bottom cells). Sets start and extent. */
static void box(const st_halo_desc_t *o, const int dir[D], int ghost, uint64_t start[D],
                uint64_t extent[D])
{
    for (int a = 0; a < D; a++) {
        const uint64_t g = o->ghost[a], n = o->block[a];
        extent[a] = dir[a] == 0 ? n : g;
        if (dir[a] == 0)
            start[a] = g;
        else if (ghost)
            start[a] = dir[a] < 0 ? 0 : g + n;
        else
            start[a] = dir[a] < 0 ? n : g;
    }
}

static uint64_t box_at(const st_halo_desc_t *o, const uint64_t start[D])
{
    return o->offset +
           (start[0] * o->stride[0] + start[1] * o->stride[1] + start[2] * o->stride[2]) * o->elem;
}

/* A piece of extent cells, both places' strides (packed where the place is
 * a staging buffer or an inbox, NULL desc): cells back to back in both places merged into
 * runs, axis by axis while the next axis's stride is the run so far (a face
 * contiguous in memory becomes one run); then its copy unit, the widest (16
 * bytes at most) that its run, its places and its strides allow, and its
 * counts of units. p's ranks and places are set: a shard's place is its
 * offset there, the shard's own alignment counted too; a staging buffer's is
 * 0 until it exists (16-byte aligned, each box at a multiple of 16); an
 * inbox's is its offset there (16-byte aligned; max_unit 4 where a unit is
 * one LL word's payload). Its first unit and slot are the caller's. */
static void piece_shape(const shardtab_t *t, shardtab_halo_piece_t *p, const uint64_t extent_in[D],
                        const st_halo_desc_t *src, const st_halo_desc_t *dst, uint32_t max_unit)
{
    const uint64_t elem = src ? src->elem : dst->elem;
    uint64_t extent[D] = {extent_in[0], extent_in[1], extent_in[2]}, run = elem;
    uint64_t bits = max_unit | p->src_at | p->dst_at;
    uint32_t unit = 1;

    for (int a = 0; a < D; a++) {
        const uint64_t packed = a == 0 ? 1 : a == 1 ? extent[0] : extent[0] * extent[1];
        p->src_stride[a] = (src ? src->stride[a] : packed) * elem;
        p->dst_stride[a] = (dst ? dst->stride[a] : packed) * elem;
    }
    for (int a = 0; a < D; a++) {
        if (extent[a] == 1)
            continue;
        if (p->src_stride[a] != run || p->dst_stride[a] != run)
            break; /* every lower axis is one run by now */
        run *= extent[a];
        extent[a] = 1;
    }
    p->src_stride[0] = extent[0] == 1 ? 0 : p->src_stride[0];
    p->dst_stride[0] = extent[0] == 1 ? 0 : p->dst_stride[0];
    if (src != NULL)
        bits |= (uint64_t)(uintptr_t)t->shard.entries[p->src_rank];
    if (dst != NULL)
        bits |= (uint64_t)(uintptr_t)t->shard.entries[p->dst_rank];
    for (int a = 0; a < D; a++)
        bits |= p->src_stride[a] | p->dst_stride[a];
    bits |= run;
    while ((bits & unit) == 0)
        unit *= 2;
    p->unit = unit;
    p->slot = 0;
    p->first = 0;
    p->run_units = run / unit;
    p->row_units = extent[0] * (run / unit);
    p->rows = extent[1];
    p->units = extent[0] * extent[1] * extent[2] * (run / unit);
}

/* Everything a plan makes, before it is the halo's. */
typedef struct st_halo_plan {
    shardtab_halo_piece_t pieces[4 * SHARDTAB_HALO_MAX_PIECES];
    int node_count, push_count, pack_count, unpack_count;
    size_t inbox_bytes; /* pushed: this rank's inbox */
    st_halo_link_t sends[SHARDTAB_HALO_MAX_PIECES], recvs[SHARDTAB_HALO_MAX_PIECES];
    int send_count, recv_count;
    size_t staging_bytes;
} st_halo_plan_t;

/* Pushed by put: the copy units of each of a piece's `slices` slices but the
 * last, its bytes cut at multiples of 16 (a multiple of every unit), so that
 * the sender's piece and the receiver's cut the same bytes whatever units
 * each copies (shardtab_detail_halo_slice_at reads it). */
static uint64_t slice_units(const shardtab_halo_piece_t *p, size_t slices)
{
    const uint64_t bytes = p->units * p->unit, cut = 16 * (uint64_t)slices;
    return (bytes + cut - 1) / cut * 16 / p->unit;
}

/* The cells of the box toward dir (every axis's extent multiplied). */
static uint64_t box_cells(const st_halo_desc_t *o, const int dir[D])
{
    uint64_t start[D], extent[D];
    box(o, dir, 1, start, extent);
    return extent[0] * extent[1] * extent[2];
}

/* Pushed: where in rank r's inbox the cells for its ghosts toward
 * direction `want` go (ST_HALO_DIRECTIONS: the inbox's whole size), and in
 * *slot their piece's index there: the directions in index order, those
 * with a neighbour on this node. As LL words, each 4-byte unit an 8-byte
 * word, two halves. By put, a flag for each half and slice of each piece
 * first, then each piece's two halves of its cells, each half rounded up to
 * 16 bytes. The device reads the same layout:
 * shardtab_detail_halo_flag_word and shardtab_detail_halo_half
 * (shardtab_halo_device.h). */
static size_t inbox_at(const shardtab_t *t, const st_halo_desc_t *all, int r, int want, int form,
                       size_t slices, uint32_t *slot)
{
    size_t at = 0, flags = 0;
    uint32_t pieces = 0;
    for (int k = 0; k < ST_HALO_DIRECTIONS; k++) {
        int dir[D], n;
        if (k == ST_HALO_SELF || !direction_moves(&all[r], k, dir) ||
            (n = neighbor_of(&all[r], r, dir)) < 0 || t->node_rank_of[n] < 0)
            continue;
        flags += 2 * slices * sizeof(uint64_t);
        if (k >= want)
            continue;
        const size_t bytes = (size_t)(box_cells(&all[r], dir) * all[r].elem);
        at += form == SHARDTAB_HALO_PUSHED_LL ? 2 * 8 * (bytes / 4) : 2 * ((bytes + 15) / 16 * 16);
        pieces++;
    }
    *slot = pieces;
    return form == SHARDTAB_HALO_PUSHED_LL ? at : flags + at; /* 16 bytes a piece */
}

/* The most bytes of ghost cells (of every direction with a neighbour) a
 * rank has, from everyone's descs; *words: every rank's cells are whole
 * 4-byte words at 4-byte aligned places. */
static uint64_t ghost_bytes_most(const shardtab_t *t, const st_halo_desc_t *all, int *words)
{
    uint64_t most = 0;

    *words = 1;
    for (int r = 0; r < t->size; r++) {
        uint64_t bytes = 0;
        *words &= all[r].elem % 4 == 0 && all[r].offset % 4 == 0 && all[r].base % 4 == 0;
        for (int k = 0; k < ST_HALO_DIRECTIONS; k++) {
            int dir[D];
            if (k != ST_HALO_SELF && direction_moves(&all[r], k, dir) &&
                neighbor_of(&all[r], r, dir) >= 0)
                bytes += box_cells(&all[r], dir) * all[r].elem;
        }
        most = bytes > most ? bytes : most;
    }
    return most;
}

/* How the node's cells move: the same answer on every rank. As LL words
 * where every cell is whole 4-byte words at 4-byte aligned places and each
 * rank's ghost cells take at most ST_HALO_LL_MAX; by put where they take at
 * most ST_HALO_PUT_MAX; else pulled. By put, *slices (ST_HALO_PUT_*); else 1. */
static int halo_form(const shardtab_t *t, const st_halo_desc_t *all, size_t *slices)
{
    int words;
    const uint64_t most = ghost_bytes_most(t, all, &words);
    const int form = words && most <= ST_HALO_LL_MAX ? SHARDTAB_HALO_PUSHED_LL
                     : most <= ST_HALO_PUT_MAX       ? SHARDTAB_HALO_PUSHED_PUT
                                                     : SHARDTAB_HALO_PULLED;
    const size_t cut = (size_t)(most + ST_HALO_PUT_SLICE_BYTES - 1) / ST_HALO_PUT_SLICE_BYTES;

    *slices = form != SHARDTAB_HALO_PUSHED_PUT || most <= ST_HALO_PUT_ONE_SLICE_MAX ? 1
              : cut > ST_HALO_PUT_MAX_SLICES ? ST_HALO_PUT_MAX_SLICES
                                             : cut;
    return form;
}

static void plan_make(const shardtab_t *t, const st_halo_desc_t *all, int form, size_t slices,
                      int neighbor[], st_halo_plan_t *plan)
{
    const st_halo_desc_t *me = &all[t->rank];
    shardtab_halo_piece_t node[SHARDTAB_HALO_MAX_PIECES], push[SHARDTAB_HALO_MAX_PIECES],
        pack[SHARDTAB_HALO_MAX_PIECES], unpack[SHARDTAB_HALO_MAX_PIECES];

    uint32_t slot;

    memset(plan, 0, sizeof *plan);
    if (form != SHARDTAB_HALO_PULLED)
        plan->inbox_bytes = inbox_at(t, all, t->rank, ST_HALO_DIRECTIONS, form, slices, &slot);
    for (int k = 0; k < ST_HALO_DIRECTIONS; k++) {
        int dir[D], back[D];
        uint64_t start[D], extent[D], from[D];
        const int moves = direction_moves(me, k, dir);
        const int n = neighbor[k] = neighbor_of(me, t->rank, dir); /* moved or not */
        if (k == ST_HALO_SELF || !moves || n < 0)
            continue;
        for (int a = 0; a < D; a++)
            back[a] = -dir[a];
        box(me, dir, 1, start, extent); /* this rank's ghost cells toward dir */
        if (t->node_rank_of[n] >= 0 && form != SHARDTAB_HALO_PULLED) {
            /* on this node, pushed: taken from this rank's inbox; and this
             * rank's cells for n's ghosts toward -dir sent into n's */
            const uint32_t unit = form == SHARDTAB_HALO_PUSHED_LL ? 4 : 16;
            shardtab_halo_piece_t *p = &node[plan->node_count++];
            p->src_rank = t->node_rank;
            p->src_at = inbox_at(t, all, t->rank, k, form, slices, &slot);
            p->dst_rank = t->node_rank;
            p->dst_at = box_at(me, start);
            piece_shape(t, p, extent, NULL, me, unit);
            p->slot = slot;
            p->slice_units = slice_units(p, slices);
            shardtab_halo_piece_t *s = &push[plan->push_count++];
            box(me, back, 0, from, extent);
            s->src_rank = t->node_rank;
            s->src_at = box_at(me, from);
            s->dst_rank = t->node_rank_of[n];
            s->dst_at = inbox_at(t, all, n, st_halo_direction(back[0], back[1], back[2]), form,
                                 slices, &slot);
            piece_shape(t, s, extent, me, NULL, unit);
            s->slot = slot;
            s->slice_units = slice_units(s, slices);
            continue;
        }
        if (t->node_rank_of[n] >= 0) { /* on this node: pulled through the table */
            shardtab_halo_piece_t *p = &node[plan->node_count++];
            box(&all[n], dir, 0, from, extent); /* n's cells for them: the same extent */
            p->src_rank = t->node_rank_of[n];
            p->src_at = box_at(&all[n], from);
            p->dst_rank = t->node_rank;
            p->dst_at = box_at(me, start);
            piece_shape(t, p, extent, &all[n], me, 16);
            continue;
        }
        /* across nodes: this rank's cells for n's ghosts toward -dir go out with
         * tag -dir; n's for this rank's ghosts toward dir come in with tag dir */
        const uint64_t bytes = extent[0] * extent[1] * extent[2] * me->elem;
        st_halo_link_t *in = &plan->recvs[plan->recv_count];
        shardtab_halo_piece_t *u = &unpack[plan->recv_count++];
        in->peer = n;
        in->tag = k;
        in->bytes = bytes;
        u->src_rank = -1;
        u->src_at = 0; /* the staging buffer's address, once it is known */
        u->dst_rank = t->node_rank;
        u->dst_at = box_at(me, start);
        piece_shape(t, u, extent, NULL, me, 16);
        box(me, back, 0, from, extent); /* this rank's cells for n's ghosts toward -dir */
        st_halo_link_t *out = &plan->sends[plan->send_count];
        shardtab_halo_piece_t *s = &pack[plan->send_count++];
        out->peer = n;
        out->tag = st_halo_direction(back[0], back[1], back[2]);
        out->bytes = extent[0] * extent[1] * extent[2] * me->elem;
        s->src_rank = t->node_rank;
        s->src_at = box_at(me, from);
        s->dst_rank = -1;
        s->dst_at = 0; /* the staging buffer's address, once it is known */
        piece_shape(t, s, extent, me, NULL, 16);
    }
    /* staging: the sends' boxes, then the receives', each 16-byte aligned */
    for (int i = 0; i < plan->send_count; i++) {
        plan->sends[i].at = plan->staging_bytes;
        plan->staging_bytes += (plan->sends[i].bytes + 15) / 16 * 16;
    }
    for (int i = 0; i < plan->recv_count; i++) {
        plan->recvs[i].at = plan->staging_bytes;
        plan->staging_bytes += (plan->recvs[i].bytes + 15) / 16 * 16;
    }
    plan->pack_count = plan->send_count;
    plan->unpack_count = plan->recv_count;
    shardtab_halo_piece_t *at = plan->pieces;
    memcpy(at, node, (size_t)plan->node_count * sizeof *node);
    memcpy(at += plan->node_count, push, (size_t)plan->push_count * sizeof *push);
    memcpy(at += plan->push_count, pack, (size_t)plan->pack_count * sizeof *pack);
    memcpy(at += plan->pack_count, unpack, (size_t)plan->unpack_count * sizeof *unpack);
}

/* one range of the pieces as a kernel takes it; first counted from the range's
 * start */
static shardtab_halo_device_t device_range(shardtab_halo_t *h, shardtab_halo_piece_t *host,
                                           int begin, int count)
{
    shardtab_halo_device_t d;
    uint64_t units = 0;

    for (int i = begin; i < begin + count; i++) {
        host[i].first = units;
        units += host[i].units;
    }
    memset(&d, 0, sizeof d);
    d.pieces = h->pieces + begin;
    d.table = (void *const *)h->table->device_table;
    d.count = count;
    d.units = units;
    d.slices = 1;
    return d;
}

/* ---- the calls ----------------------------------------------------------------------- */

static shardtab_status_t halo_build(shardtab_halo_t *h, const st_halo_desc_t *all)
{
    shardtab_t *t = h->table;
    const st_halo_desc_t *me = &all[t->rank];
    st_halo_plan_t *plan = malloc(sizeof *plan);
    shardtab_status_t status = SHARDTAB_SUCCESS;

    if (plan == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "shardtab_halo_create: malloc of its plan failed");
    size_t slices;
    h->form = halo_form(t, all, &slices);
    plan_make(t, all, h->form, slices, h->neighbor, plan);
    for (int i = 0; i < plan->send_count; i++)
        if (plan->sends[i].bytes > (size_t)INT_MAX) {
            const size_t bytes = plan->sends[i].bytes;
            free(plan);
            return st_fail(SHARDTAB_ERR_UNSUPPORTED,
                           "shardtab_halo_create: a box of %zu bytes crosses nodes: the MPI "
                           "stage takes at most 2 GiB a message",
                           bytes);
        }
    const int count = plan->node_count + plan->push_count + plan->pack_count + plan->unpack_count;
    const int packed_at = plan->node_count + plan->push_count;
    const size_t pieces_bytes = (size_t)count * sizeof *h->pieces,
                 epoch_bytes = ST_HALO_PUT_MAX_SLICES * sizeof(uint64_t);
    h->dims = (int)me->dims;
    st_grid_coords(me->grid, t->rank, h->coord);
    h->send_count = plan->send_count;
    h->recv_count = plan->recv_count;
    h->staging_bytes = plan->staging_bytes;
    if (plan->staging_bytes > 0) {
        status = st_backend()->mem_alloc(plan->staging_bytes, &h->staging);
        h->host_staging = status == SHARDTAB_SUCCESS ? malloc(plan->staging_bytes) : NULL;
        if (status == SHARDTAB_SUCCESS && h->host_staging == NULL)
            status = st_fail(SHARDTAB_ERR_NO_MEMORY,
                             "shardtab_halo_create: malloc of %zu bytes of host staging failed",
                             plan->staging_bytes);
    }
    if (status == SHARDTAB_SUCCESS) {
        for (int i = 0; i < plan->pack_count; i++)
            plan->pieces[packed_at + i].dst_at =
                (uint64_t)(uintptr_t)((char *)h->staging + plan->sends[i].at);
        for (int i = 0; i < plan->unpack_count; i++)
            plan->pieces[packed_at + plan->pack_count + i].src_at =
                (uint64_t)(uintptr_t)((char *)h->staging + plan->recvs[i].at);
        h->sends = malloc((size_t)(plan->send_count + plan->recv_count + 1) * sizeof *h->sends);
        if (h->sends == NULL)
            status = st_fail(SHARDTAB_ERR_NO_MEMORY, "shardtab_halo_create: malloc failed");
    }
    if (status == SHARDTAB_SUCCESS) {
        h->recvs = h->sends + plan->send_count;
        memcpy(h->sends, plan->sends, (size_t)plan->send_count * sizeof *h->sends);
        memcpy(h->recvs, plan->recvs, (size_t)plan->recv_count * sizeof *h->recvs);
        /* the pieces, then the pushed epochs, zeroed: one a slice */
        status = st_backend()->mem_alloc(pieces_bytes + epoch_bytes, (void **)&h->pieces);
    }
    if (status == SHARDTAB_SUCCESS && h->form && plan->inbox_bytes > 0) {
        /* the inbox, every word's flag 0 before the ranks agree (create's end) */
        status = shardtab_mem_alloc_coherent(plan->inbox_bytes, &h->inbox);
        h->inbox_bytes = plan->inbox_bytes;
        if (status == SHARDTAB_SUCCESS)
            status = st_device_zero(h->inbox, h->inbox_bytes, t->stream, "halo inbox");
    }
    if (status == SHARDTAB_SUCCESS) {
        h->node = device_range(h, plan->pieces, 0, plan->node_count);
        if (h->form) {
            const shardtab_halo_device_t sends =
                device_range(h, plan->pieces, plan->node_count, plan->push_count);
            h->node.sends = sends.pieces;
            h->node.send_count = sends.count;
            h->node.send_units = sends.units;
            h->node.epoch = (uint64_t *)(void *)(h->pieces + count);
        }
        h->node.form = h->form;
        h->node.slices = (int)slices;
        h->pack = device_range(h, plan->pieces, packed_at, plan->pack_count);
        h->unpack = device_range(h, plan->pieces, packed_at + plan->pack_count, plan->unpack_count);
        status = st_backend()->copy_to_device(h->pieces, plan->pieces, pieces_bytes);
    }
    if (status == SHARDTAB_SUCCESS) {
        static const uint64_t zero[ST_HALO_PUT_MAX_SLICES];
        status = st_backend()->copy_to_device((char *)h->pieces + pieces_bytes, zero, epoch_bytes);
    }
    free(plan);
    return status;
}

/* Pushed: the table of the node's inboxes, made by every rank (collective,
 * after the ranks agreed that each built its own), its device replica the
 * halo's. */
static shardtab_status_t inboxes_make(shardtab_halo_t *h)
{
    shardtab_t *t = h->table;
    shardtab_create_params_t params;
    shardtab_status_t status;

    memset(&params, 0, sizeof params);
    params.stream = t->stream;
    params.wait_timeout_s = t->wait_timeout_s;
    params.alignment = 16; /* pushed by put: 16-byte units */
    params.label = "shardtab_halo inboxes";
    status = shardtab_create_with(t->comm, h->inbox, h->inbox_bytes, &params, &h->inboxes);
    if (status == SHARDTAB_SUCCESS)
        h->node.inbox = (void *const *)h->inboxes->device_table;
    return status;
}

/* Frees what halo_build and inboxes_make made (what they did not is NULL);
 * the inboxes' table with every rank (collective), unless `alone` (the
 * ranks out of step: it and the inbox are left). */
static shardtab_status_t halo_free(shardtab_halo_t *h, int alone)
{
    shardtab_status_t status = SHARDTAB_SUCCESS, freed;

    if (h->inboxes != NULL && !alone)
        status = shardtab_destroy(&h->inboxes);
    if (h->inbox != NULL && h->inboxes == NULL &&
        (freed = shardtab_mem_free(h->inbox)) != SHARDTAB_SUCCESS && status == SHARDTAB_SUCCESS)
        status = freed;
    if (h->pieces != NULL && (freed = st_backend()->mem_free(h->pieces)) != SHARDTAB_SUCCESS)
        status = freed;
    if (h->staging != NULL && (freed = st_backend()->mem_free(h->staging)) != SHARDTAB_SUCCESS &&
        status == SHARDTAB_SUCCESS)
        status = freed;
    free(h->host_staging);
    free(h->sends);
    free(h);
    return status;
}

shardtab_status_t shardtab_halo_create(shardtab_t *table, const shardtab_halo_params_t *params,
                                       shardtab_halo_t **halo)
{
    const char *call = "shardtab_halo_create";
    shardtab_status_t status = st_check_table(table, call);
    st_halo_desc_t *all = NULL; /* every rank's, then this rank's own at [size]: the send
                                   buffer stays with the receive buffer if a gather is left */
    shardtab_halo_t *h = NULL;
    int gave_up = 0, pending = 0;

    if (status != SHARDTAB_SUCCESS)
        return status; /* no table to agree over: local, as every call's */
    status = st_table_in_step(table, call);
    if (status == SHARDTAB_SUCCESS) {
        all = calloc((size_t)table->size + 1, sizeof *all);
        h = calloc(1, sizeof *h);
        if (all == NULL || h == NULL)
            status = st_fail(SHARDTAB_ERR_NO_MEMORY, "%s: calloc failed", call);
    }
    if (status == SHARDTAB_SUCCESS)
        status = halo == NULL ? st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: halo is NULL", call)
                              : resolve(table, params, &all[table->size]);
    status = st_gather_agreed(table, call, "blocks", status, all, sizeof *all, &gave_up, &pending);
    if (status == SHARDTAB_SUCCESS)
        status = compare(all, table->size); /* the same verdict on every rank */
    if (status == SHARDTAB_SUCCESS) {
        h->table = table;
        h->id = table->halos_made;
        status = halo_build(h, all);
    }
    status =
        gave_up ? status : st_agree_bounded(table->comm, status, st_patience_s(table), &gave_up);
    if (status == SHARDTAB_SUCCESS && h->form) /* every rank built its inbox: the table */
        status = inboxes_make(h);              /* agreed by create */
    if (gave_up) /* an agreement or the gather left pending: no collective may follow */
        st_tables_out_of_step(table);
    if (!pending)
        free(all); /* pending: a late rank may still read and write it */
    if (status != SHARDTAB_SUCCESS) {
        if (h != NULL)
            (void)halo_free(h, gave_up);
        return status;
    }
    table->halos_made++;
    *halo = h;
    return SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_halo_destroy(shardtab_halo_t **halo)
{
    shardtab_status_t status = SHARDTAB_SUCCESS, freed;

    if (halo == NULL || *halo == NULL)
        return SHARDTAB_SUCCESS;
    if ((*halo)->exchanges > 0 && !(*halo)->gave_up)
        status = st_backend()->stream_synchronize((*halo)->last_stream);
    if ((*halo)->gave_up) /* a receive may still land there: kept while the job runs on */
        (*halo)->host_staging = NULL;
    freed = halo_free(*halo, (*halo)->gave_up);
    *halo = NULL;
    return status != SHARDTAB_SUCCESS ? status : freed;
}

int shardtab_halo_neighbor(const shardtab_halo_t *halo, int d0, int d1, int d2)
{
    if (halo == NULL || d0 < -1 || d0 > 1 || d1 < -1 || d1 > 1 || d2 < -1 || d2 > 1)
        return -1;
    return halo->neighbor[st_halo_direction(d0, d1, d2)]; /* the plan's, every direction */
}

int shardtab_halo_coord(const shardtab_halo_t *halo, int axis)
{
    return halo == NULL || axis < 0 || axis >= D ? -1 : halo->coord[axis];
}

int shardtab_halo_form(const shardtab_halo_t *halo)
{
    return halo == NULL ? -1 : halo->form;
}

int shardtab_halo_pushed(const shardtab_halo_t *halo)
{
    return halo == NULL ? -1 : halo->form != SHARDTAB_HALO_PULLED;
}

shardtab_status_t shardtab_halo_device(const shardtab_halo_t *halo, shardtab_halo_device_t *dev)
{
    if (halo == NULL || dev == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_halo_device: %s is NULL",
                       halo == NULL ? "halo" : "dev");
    if (st_halo_across_nodes(halo)) /* the same answer on every rank: none launches alone */
        return st_fail(SHARDTAB_ERR_UNSUPPORTED,
                       "shardtab_halo_device: the halo's table spans nodes, whose ranks a "
                       "kernel cannot reach; exchange with shardtab_halo_exchange");
    *dev = halo->node;
    return SHARDTAB_SUCCESS;
}
