/* table.h - what a table is inside the library: the private layout of
 * shardtab_t, shared by the protocol that builds it (shardtab.c) and the
 * stream-ordered collectives over it (collectives.c). */
#ifndef ST_TABLE_H
#define ST_TABLE_H

#include <mpi.h>
#include <stddef.h>

#include "registry.h"
#include "shardtab.h"

/* One exported allocation per rank (the shard, or the signal pad), and every
 * node peer's as this process maps it. */
typedef struct st_region {
    const char *what;     /* "shard" or "signal pad", for messages */
    void *local;          /* this rank's, NULL for an empty shard */
    size_t bytes;
    void **entries;       /* [node_size] host copy of this region's table */
    size_t *entry_bytes;
    void **mapped;        /* [node_size] base of each peer allocation, as imports.c maps it */
    int opened, reused;   /* peer allocations this create opened, found open */
} st_region_t;

struct shardtab {
    MPI_Comm comm; /* private dup of the caller's communicator */
    MPI_Comm node; /* this table's node, a subset of comm */
    int rank, size;
    int node_rank, node_size, node_id, node_count;
    int *members;      /* [node_size] comm rank of each node rank */
    int *node_rank_of; /* [size] node rank of each comm rank, -1 off node */
    st_region_t shard, pad;
    void **device_table; /* [2 * node_size]: the shards' entries, then the pads' */
    int *peer_access;  /* [node_size^2] 1 yes, 0 no, -1 unknown; NULL: all yes */
    shardtab_stream_t stream;
    void *barrier_order; /* the backend's record of the last shardtab_barrier_on_stream */
    int signal_slots;
    char label[SHARDTAB_LABEL_MAX]; /* shardtab_create_params_t.label, or "" */
    double wait_timeout_s, clock_hz;
    double create_ms, open_ms;
    /* the live-table registry's entry: what this table's shard allocation is */
    st_live_entry_t live;
    /* the stream-ordered collectives (collectives.c): a one-shot all-reduce's
     * results before they are written back, grown as needed; the node leaders'
     * communicator, split at the first all-reduce across nodes */
    void *coll_scratch;
    size_t coll_scratch_bytes;
    MPI_Comm leaders;
    int leaders_made;
};


#endif /* ST_TABLE_H */
