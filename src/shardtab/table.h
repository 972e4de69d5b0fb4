/* table.h - what a table is inside the library: the private layout of
 * shardtab_t, shared by the protocol that builds it (shardtab.c, with regions.c
 * and params.c), what it answers (accessors.c, failure.c) and the
 * stream-ordered collectives over it (collectives.c); and the steps of create
 * that shardtab.c drives. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_TABLE_H
#define ST_TABLE_H

#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#include "descriptor.h"
#include "internal.h"
#include "registry.h"
#include "shardtab.h"

/* One exported allocation per rank (the shard, or the signal pad), and every
 * node peer's as this process maps it. */
typedef struct st_region {
    const char *what; /* "shard" or "signal pad", for messages */
    void *local;      /* this rank's, NULL for an empty shard */
    size_t bytes;
    void **entries; /* [node_size] host copy of this region's table */
    size_t *entry_bytes;
    void **mapped;      /* [node_size] base of each peer allocation, as imports.c maps it */
    int opened, reused; /* peer allocations this create opened, found open */
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
    int *peer_access;    /* [node_size^2] 1 yes, 0 no, -1 unknown; NULL: all yes */
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
     * communicator, split at create where the table spans nodes */
    void *coll_scratch;
    size_t coll_scratch_bytes;
    MPI_Comm leaders;    /* across nodes, node rank 0 of each node; else MPI_COMM_NULL */
    uint64_t halos_made; /* shardtab_halo_create's over it (halo.c): a halo's id */
    uint64_t faces_made; /* shardtab_faces_create's over it (faces.c): its faces' id */
    /* a destroy over the same ranks (a congruent communicator) gave up
     * waiting on this rank: its agreement may still be pending, so no call
     * on this table may enter a collective again (shardtab.c); the label of
     * the table whose destroy gave up */
    int out_of_step;
    char out_of_step_from[SHARDTAB_LABEL_MAX];
    /* the node stopped (failure.c): the first cause this rank knew, its status
     * (SHARDTAB_SUCCESS while the table runs) and its words, without this
     * rank's prefix (NULL if they could not be kept) */
    shardtab_status_t stop_status;
    char *stop_cause;
};

/* Records that t's node stopped, with status and cause (this rank's words),
 * unless it stopped already: the first cause is kept. Local. */
void st_table_stop(shardtab_t *t, shardtab_status_t status, const char *cause);
/* SHARDTAB_SUCCESS while t runs; once it stopped, SHARDTAB_ERR_ABORTED with a
 * message for call: refused, destroy the table, and the first cause. Local. */
shardtab_status_t st_table_stopped(const shardtab_t *t, const char *call);

/* SHARDTAB_SUCCESS, or, for a table that is out of step (above),
 * SHARDTAB_ERR_TIMEOUT with a message naming call and why. Local. */
shardtab_status_t st_table_in_step(const shardtab_t *t, const char *call);
/* How long a bounded agreement of t waits for its peers: 6 x its wait limit,
 * at least 1 s. */
double st_patience_s(const shardtab_t *t);
/* The step a create over t's ranks starts with (shardtab_halo_create,
 * shardtab_faces_create): an agreement on local, then every rank's `bytes`
 * of description gathered, from all + size x bytes (this rank's own) into
 * all[0, size), each bounded by t's patience. *gave_up when either gave up;
 * *pending when the gather did (all must then stay allocated: a late rank
 * may still write it). `what` names the descriptions in messages. */
shardtab_status_t st_gather_agreed(shardtab_t *t, const char *call, const char *what,
                                   shardtab_status_t local, void *all, size_t bytes, int *gave_up,
                                   int *pending);
/* t's bounded agreement gave up, its request left pending: every live table
 * over the same ranks is out of step (st_table_in_step refuses its calls). */
void st_tables_out_of_step(const shardtab_t *t);

/* calloc of count (at least one) elements; on failure records the first
 * failure in *status, with a message naming what. */
static inline void *st_calloc_or_fail(size_t count, size_t size, const char *what,
                                      shardtab_status_t *status)
{
    void *p = calloc(count ? count : 1, size);
    if (p == NULL && *status == SHARDTAB_SUCCESS)
        *status = st_fail(SHARDTAB_ERR_NO_MEMORY, "calloc of %zu %s failed", count, what);
    return p;
}

/* ---- params.c: what a create is asked for ---------------------------------- */

/* params (NULL: the defaults) checked, SHARDTAB_WAIT_TIMEOUT and the defaults
 * filled in, into *out. Local: no MPI. */
shardtab_status_t st_create_params_resolve(const shardtab_create_params_t *params,
                                           shardtab_create_params_t *out);
/* SHARDTAB_RANKS_PER_NODE, checked; 0 when unset or empty. */
shardtab_status_t st_ranks_per_node_from_env(int *ranks_per_node);

/* ---- regions.c: the regions' steps of create and destroy ------------------- */

/* The host arrays of a region for n node ranks (a failure recorded in *status,
 * as st_calloc_or_fail), and their release. */
void st_region_alloc_host(st_region_t *r, int n, shardtab_status_t *status);
void st_region_release_host(st_region_t *r);
/* Step 2: this rank's signal pad, allocated and zeroed (t->pad.local, .bytes). */
shardtab_status_t st_table_pad_alloc(shardtab_t *t);
/* Zeroes bytes of device memory at ptr by a copy of host zeros on stream,
 * waited for (never a host store into device memory); `what` names it when
 * the host's zeros cannot be had. */
shardtab_status_t st_device_zero(void *ptr, size_t bytes, shardtab_stream_t stream,
                                 const char *what);
/* Step 3: fills this rank's descriptor of region r and, unless it is empty,
 * exports it. */
shardtab_status_t st_region_export(shardtab_t *t, st_region_t *r, st_descriptor_t *desc);
/* Step 4: allgathers the descriptors in the node (every rank enters, even one
 * that failed) and validates each into descs[node_size]. */
shardtab_status_t st_table_exchange(shardtab_t *t, const st_descriptor_t *mine,
                                    st_descriptor_t *descs);
/* Every pad of the node has this rank's layout: the same slot count. */
shardtab_status_t st_table_pads_check(const shardtab_t *t, const st_descriptor_t *pads);
/* Step 5: every device of the node reaches every other (t->peer_access). */
shardtab_status_t st_table_peer_access_check(shardtab_t *t, const st_descriptor_t *descs);
/* Step 6: maps every peer's shard and pad (t->open_ms, the regions' entries). */
shardtab_status_t st_table_peers_open(shardtab_t *t, const st_descriptor_t *shard_descs,
                                      const st_descriptor_t *pad_descs);
/* Lets go of every peer mapping of both regions (the last user closes it);
 * keeps going past failures, reports the first. */
shardtab_status_t st_table_peers_close(shardtab_t *t);

#endif /* ST_TABLE_H */
