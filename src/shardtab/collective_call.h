/* collective_call.h - what collectives.c (a call's checks, its algorithm, the
 * calls), collectives_nodes.c (the call across nodes through MPI) and
 * collective_phases.c (the phases inside one node, below both) share: the
 * call, its type's name, the node's phases. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_COLLECTIVE_CALL_H
#define ST_COLLECTIVE_CALL_H

#include <stddef.h>

#include "table.h"

/* What a call is, before any rank moves anything. */
typedef struct st_call {
    int kind;      /* ST_STREAM_* */
    int op, type;  /* op: ST_STREAM_ALL_REDUCE only */
    int root;      /* ST_STREAM_BROADCAST: comm rank */
    size_t offset; /* bytes */
    size_t count;  /* elements: per rank for all-gather */
    size_t bytes;  /* of the region every rank's shard must hold */
    int algo;      /* ST_ALGO_* */
    const char *name;
} st_call_t;

/* collective_phases.c: "float", "double", "int64" or "unknown" */
const char *st_coll_type_name(int type);
/* An all-reduce whose values travel in its one sync's words (ST_PHASE_LL). */
int st_coll_in_sync_words(const st_call_t *c);
/* The phases inside one node (node_size > 1), enqueued on stream. */
shardtab_status_t st_coll_node_phases(shardtab_t *t, const st_call_t *c, shardtab_stream_t stream);
/* A sync no rank's call can match, enqueued on stream: the node stops. */
void st_coll_stop_sync(shardtab_t *t, shardtab_stream_t stream);
/* collectives_nodes.c: a call over more than one node, or over one whose node ranks are not its
 * comm ranks: host-synchronous, through MPI, every step bounded; local is
 * this rank's own checks, agreed first. */
shardtab_status_t st_coll_across_nodes(shardtab_t *t, const st_call_t *c, shardtab_status_t local,
                                       shardtab_stream_t stream);

#endif /* ST_COLLECTIVE_CALL_H */
