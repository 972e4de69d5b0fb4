/* halo_body.h - the stream-ordered halo exchange's phases (halo_exchange.c),
 * one body for every backend beside the collectives' (collective_body.h): a
 * pushed exchange whole (ST_PHASE_HALO_PUSH: shardtab_halo_device.h's LL
 * words in one block, or put with flags, a block a slice: the bodies that
 * the device-side calls run in a kernel), or a pulled one, each rank
 * reading its neighbours' cells through the table and writing only its own
 * ghost cells: the pieces copied by a grid (ST_PHASE_HALO) between two
 * ordered syncs. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_HALO_BODY_H
#define ST_HALO_BODY_H

#include "collective_body.h"
#include "shardtab_halo_device.h"

/* ST_PHASE_HALO, thread `thread` of `threads` of the grid */
SHARDTAB_DEVFN void st_body_halo(const st_coll_phase_t *p, size_t thread, size_t threads)
{
    shardtab_detail_halo_copy(&p->halo, (uint64_t)thread, (uint64_t)threads);
}

/* ST_PHASE_HALO_PUSH, every thread of block `block`: as LL words one
 * block, by put a grid of a block a slice (its send, then its take). Its
 * ghost cells are this rank's own: its next kernels see them in stream
 * order. */
SHARDTAB_DEVFN int st_body_halo_push(const st_coll_phase_t *p, size_t block)
{
    if (p->halo.form != SHARDTAB_HALO_PUSHED_PUT)
        return shardtab_detail_halo_push_block(&p->sig, &p->halo);
    return shardtab_detail_halo_put_slices(&p->sig, &p->halo, block, block + 1);
}

#endif /* ST_HALO_BODY_H */
