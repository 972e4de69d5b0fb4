/* halo_body.h - the stream-ordered halo exchange's phases (halo_exchange.c),
 * one body for every backend beside the collectives' (collective_body.h): a
 * pushed exchange whole in one block (ST_PHASE_HALO_PUSH:
 * shardtab_halo_device.h's LL words, the body that
 * shardtab_halo_exchange_block runs in a kernel), or a pulled one, each rank
 * reading its neighbours' cells through the table and writing only its own
 * ghost cells: small, whole in one block (ST_PHASE_HALO_ONE_BLOCK), else the
 * pieces copied by a grid (ST_PHASE_HALO) between two ordered syncs. */
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

/* ST_PHASE_HALO_ONE_BLOCK, every thread of one block: an ordered sync (every
 * rank's earlier stores, its interior, visible), the pieces, and a sync of
 * the words alone. As st_body_one_block's second sync, it needs no fence:
 * every load of a neighbour's cell returned before this rank's words are
 * stored (its value was stored into a ghost cell, then the block's barrier),
 * and a neighbour changes its cells only after it has seen those words. The
 * ghost cells are this rank's own: its next kernels see them in stream
 * order, and the next call's first sync publishes them to the node. */
SHARDTAB_DEVFN int st_body_halo_one_block(const st_coll_phase_t *p, size_t thread, size_t threads)
{
    shardtab_coll_t c = shardtab_lib_coll(&p->sig);
    int status = shardtab_coll_hold_block(&p->sig, &c); /* one claim for both syncs */

    if (status == SHARDTAB_WAIT_OK)
        status = st_body_sync_words(p, &c, p->args, 1, (uint64_t *)0, 0);
    if (status == SHARDTAB_WAIT_OK) {
        st_body_halo(p, thread, threads);
        shardtab_detail_block_sync(); /* every thread's loads returned, its stores made */
        status = st_body_sync_words(p, &c, p->args, 0, (uint64_t *)0, 0);
    }
    shardtab_coll_release_block(&p->sig, &c);
    return status;
}

/* ST_PHASE_HALO_PUSH, every thread of one block. Its ghost cells are this
 * rank's own: its next kernels see them in stream order. */
SHARDTAB_DEVFN int st_body_halo_push(const st_coll_phase_t *p)
{
    return shardtab_detail_halo_push_block(&p->sig, &p->halo);
}

#endif /* ST_HALO_BODY_H */
