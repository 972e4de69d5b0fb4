/* check_peers.h - multi_scal --check-peers: write and verify a pattern through
 * the table for every ordered pair of ranks of each node. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef MS_CHECK_PEERS_H
#define MS_CHECK_PEERS_H

#include <stdint.h>

#include "shardtab.h"

typedef struct ms_check_peers_args {
    shardtab_t *table;
    double *shard;           /* device: this rank's shard */
    double *staging;         /* host: room for this rank's shard */
    const uint64_t *offsets; /* host: [node_size + 1] the node's shard offsets */
} ms_check_peers_args_t;

/* One ordered pair of a node: what the runtime reported, what the write through
 * the table showed. */
typedef struct ms_peer_pair {
    int node, writer, owner;     /* node id, node ranks */
    int writer_rank, owner_rank; /* communicator ranks */
    int reported;                /* 1 yes, 0 no, -1 unknown */
    int verified;                /* the owner found the writer's pattern */
    int empty;                   /* the owner's shard is empty: nothing to write */
} ms_peer_pair_t;

/* Collective. Prints the matrix on rank 0; *all_ok is the same on every rank;
 * rank 0 gets the pairs (malloc'd) for the JSON. */
shardtab_status_t ms_check_peers(const ms_check_peers_args_t *args, int *all_ok,
                                 ms_peer_pair_t **pairs, int *npairs);

#endif /* MS_CHECK_PEERS_H */
