/* report.h - what multi_scal tells its user: '#' metadata lines, fixed-width
 * result rows, the verify lines, and the same structs rendered as JSON. Rank 0
 * prints everything, in rank order, so lines never interleave. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef MS_REPORT_H
#define MS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "app.h"
#include "bench.h"
#include "check_peers.h"
#include "options.h"
#include "partition.h"
#include "shardtab.h"

typedef struct ms_mode_result {
    unsigned mode;
    int iters;
    double seconds;      /* max over ranks */
    double gbps;         /* bytes read + written by all ranks together over seconds */
    uint64_t mismatches; /* summed over ranks */
    uint64_t first_bad;  /* lowest bad global index, UINT64_MAX if none */
    double got, want;
} ms_mode_result_t;

typedef struct ms_rank_info {
    int rank, node_id, node_rank, node_size, device;
    char host[64];
    char device_name[64];
    char pci_bus_id[32];
    uint64_t start, length;
} ms_rank_info_t;

typedef struct ms_report {
    const ms_options_t *opts;
    int rank, size;
    app_outfile_t json; /* rank 0, --json: written beside the target, renamed at the end */
    int json_open;
    ms_bench_fit_t fit;    /* --bench, --bench-pairs: the sizes fitted to host memory */
    ms_rank_info_t *ranks; /* rank 0 only: every rank's line */
    int nodes, min_per_node, max_per_node, max_devices_per_node;
    double create_ms, open_ms; /* max over ranks */
    /* a second table over the same shards (its peers open already): the
     * median of 5 creates and the most peer allocations one opened; this
     * rank's until ms_report_header, then the max over ranks on rank 0 */
    double second_create_ms;
    int second_opened;
    ms_mode_result_t results[3];
    int nresults;
    const ms_bench_row_t *bench; /* rank 0, --bench only */
    int nbench;
    const ms_peer_pair_t *pairs; /* rank 0, --check-peers only */
    int npairs;
    const double *pair_gbps; /* rank 0, --bench-pairs only: [n x n] */
    int pair_n;
} ms_report_t;

/* Rank 0 opens --json FILE now (a temporary file beside it), so that an
 * unwritable path is a usage error before any work. Returns the status to
 * agree on. */
shardtab_status_t ms_report_open_json(ms_report_t *r, const ms_options_t *opts, int rank);
/* A failed run: removes the temporary file only; FILE stays as it was. */
void ms_report_discard_json(ms_report_t *r);
/* Collective: gathers every rank's description and prints the header. */
shardtab_status_t ms_report_header(ms_report_t *r, const ms_options_t *opts,
                                   const shardtab_t *table, ms_shard_t mine);
void ms_report_mode(ms_report_t *r, const ms_mode_result_t *res);
/* Rank 0 prints the sweep as a fixed-width table, kept for the JSON. */
void ms_report_bench(ms_report_t *r, const ms_bench_row_t *rows, int nrows, int verified);
/* Rank 0 prints the --bench-pairs matrix, kept for the JSON. */
void ms_report_pairs(ms_report_t *r, const double *gbps, int n, int verified);
/* The header row of a node's writer x owner matrix: n columns, each width wide. */
void ms_report_matrix_head(int n, int width);
/* Collective. Rank 0 writes the JSON and renames it over FILE; a failed write
 * or close is reported (once) and every rank gets exit status 1. Returns the
 * exit status to use. */
int ms_report_finish(ms_report_t *r, int exit_code);

#endif /* MS_REPORT_H */
