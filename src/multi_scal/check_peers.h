/* check_peers.h - multi_scal --check-peers: write and verify a pattern through
 * the table for every ordered pair of ranks of each node. */
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

/* Collective. Prints the matrix on rank 0; *all_ok is the same on every rank. */
shardtab_status_t ms_check_peers(const ms_check_peers_args_t *args, int *all_ok);

#endif /* MS_CHECK_PEERS_H */
