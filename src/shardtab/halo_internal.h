/* halo_internal.h - what a halo exchange is inside the library: the layout
 * of shardtab_halo_t, shared by its making (halo.c: the checks, the plan of
 * its pieces) and its exchange (halo_exchange.c: inside a node through the
 * table, across nodes through MPI). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_HALO_INTERNAL_H
#define ST_HALO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "shardtab_halo.h"
#include "table.h"

/* Directions from a rank: (d0, d1, d2), each -1, 0 or 1, as the index
 * (d0 + 1) + 3 (d1 + 1) + 9 (d2 + 1); ST_HALO_SELF is (0, 0, 0). */
#define ST_HALO_DIRECTIONS 27
#define ST_HALO_SELF 13

/* A box that crosses nodes: packed into the staging buffer, sent through MPI. */
typedef struct st_halo_link {
    int peer;     /* comm rank */
    int tag;      /* the direction, as the receiver sees it */
    size_t bytes; /* packed */
    size_t at;    /* byte offset in the staging buffers */
} st_halo_link_t;

struct shardtab_halo {
    shardtab_t *table;
    uint64_t id;        /* the table's halos made before this one, on every rank */
    uint64_t exchanges; /* exchanges called */
    int dims, coord[SHARDTAB_HALO_MAX_DIMS];
    int neighbor[ST_HALO_DIRECTIONS]; /* comm rank of each direction's neighbour, moved or
                                         not (this rank at ST_HALO_SELF), -1 none */
    /* device memory: the node's pieces (pulled through the table, or pushed:
     * taken from the inbox), the pushed sends, then the pieces packed for
     * other nodes, then those unpacked from them; then the pushed epochs,
     * one a slice (shardtab_halo_device_t.epoch) */
    shardtab_halo_piece_t *pieces;
    shardtab_halo_device_t node, pack, unpack;
    int form;            /* how the node's cells move: a shardtab_halo_form (halo.c) */
    void *inbox;         /* pushed: this rank's inbox, coherent memory */
    size_t inbox_bytes;  /* of it (0: no neighbour on this node) */
    shardtab_t *inboxes; /* pushed: the table of the node's inboxes */
    st_halo_link_t *sends, *recvs;
    int send_count, recv_count;
    void *staging;                 /* device: the sends' boxes, then the receives' */
    char *host_staging;            /* the same, on the host */
    size_t staging_bytes;          /* of both */
    shardtab_stream_t last_stream; /* of the last exchange */
    int gave_up; /* a bounded MPI step of an exchange gave up: requests may be pending */
};

/* The direction index of (d0, d1, d2). */
static inline int st_halo_direction(int d0, int d1, int d2)
{
    return (d0 + 1) + 3 * (d1 + 1) + 9 * (d2 + 1);
}

/* The halo's table spans nodes: its exchanges are host-synchronous, agreed
 * by MPI, and what crosses nodes goes through MPI (halo_exchange.c). */
static inline int st_halo_across_nodes(const shardtab_halo_t *h)
{
    return h->table->node_count > 1;
}

#endif /* ST_HALO_INTERNAL_H */
