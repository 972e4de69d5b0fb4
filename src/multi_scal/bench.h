/* bench.h - multi_scal --bench: the table's direct loads and stores against the
 * copy engines, the host-staged update and MPI messages, side by side. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef MS_BENCH_H
#define MS_BENCH_H

#include <stdint.h>

#include "options.h"
#include "shardtab.h"

typedef enum ms_bench_op {
    MS_OP_LOCAL,       /* table: own shard */
    MS_OP_REMOTE,      /* table: node rank 0 scales node rank 1's shard, others idle */
    MS_OP_RING,        /* table: every rank scales the next node rank's shard at once */
    MS_OP_GLOBAL,      /* table: the global mode's straddling stretch */
    MS_OP_HOST_STAGED, /* copy to the host, scale there, copy back */
    MS_OP_MPI,         /* the ring update by MPI messages through host buffers */
    MS_OP_D2D_COPY,    /* baseline: device-to-device copy on one GPU */
    MS_OP_PEER_ONE,    /* baseline: node rank 0 copies into node rank 1 through IPC */
    MS_OP_PEER_BOTH,   /* baseline: every rank copies into the next one at once */
    MS_OP_KERNEL_PUSH, /* diagnosis: a kernel on node rank 0 copies into rank 1 (remote stores) */
    MS_OP_KERNEL_PULL, /* diagnosis: a kernel on node rank 0 copies rank 1 in (remote loads) */
    MS_OP_PAIR,        /* --bench-pairs: one writer scales one owner's shard, others idle */
    MS_OP_COUNT
} ms_bench_op_t;

typedef struct ms_bench_row {
    uint64_t shard_bytes;
    int op; /* ms_bench_op_t */
    int reps;
    double gbps_median, gbps_min, gbps_max; /* bytes read + written per GPU */
    double link_gbps;                       /* bytes per link direction, median */
    double ratio;                           /* link or copy ratio to the baseline, 0: none */
    int baseline;                           /* ms_bench_op_t or -1 */
    double create_ms;                       /* table creation at this size */
} ms_bench_row_t;

const char *ms_bench_op_name(int op);

/* Shard-sized buffers of host memory each rank holds at once at one size of the
 * sweep or of --bench-pairs (counted in bench.c), for ms_bench_fit. */
int ms_bench_host_buffers(shardtab_backend_t backend);

/* Collective. Runs the sweep; rows are returned on rank 0 (malloc'd). *verified
 * is 0 when a table mode left a wrong value (the sweep checks itself). */
shardtab_status_t ms_bench_run(const ms_options_t *opts, ms_bench_row_t **rows, int *nrows,
                               int *verified);

/* Collective. --bench-pairs: for every ordered pair (writer, owner) of a node,
 * the writer alone scales the owner's shard (--bench-max bytes) through the
 * table. Rank 0 gets the n x n matrix of GB/s (each repeat timed by the slowest
 * node, when several nodes run the same pair at once). */
shardtab_status_t ms_bench_pairs(const ms_options_t *opts, double **matrix, int *n, int *verified);

#endif /* MS_BENCH_H */
