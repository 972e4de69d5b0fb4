/* halo_body.h - the stream-ordered halo exchange's phases (halo_exchange.c),
 * one body for every backend beside the collectives' (collective_body.h):
 * a pulled exchange's pieces copied by a grid (ST_PHASE_HALO, between two
 * ordered syncs: each rank reads its neighbours' cells through the table
 * and writes only its own ghost cells), or a pushed exchange whole in one
 * block (ST_PHASE_HALO_PUSH: shardtab_halo_device.h's LL words, the body
 * that shardtab_halo_exchange_block runs in a kernel). */
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

/* ST_PHASE_HALO_PUSH, every thread of one block. Its ghost cells are this
 * rank's own: its next kernels see them in stream order. */
SHARDTAB_DEVFN int st_body_halo_push(const st_coll_phase_t *p)
{
    return shardtab_detail_halo_push_block(&p->sig, &p->halo);
}

#endif /* ST_HALO_BODY_H */
