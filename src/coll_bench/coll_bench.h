/* coll_bench.h - what the coll_bench program's files share: its options, the
 * context of a timed call, and the two sides it times (the device side,
 * coll_bench_device.c; the stream side, coll_bench_time.c). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef COLL_BENCH_H
#define COLL_BENCH_H

#include <stddef.h>

#include "opt_table.h" /* the parse's verdicts */

#include "shardtab.h"

typedef struct cb_options {
    size_t min, max;
    int repeats, allow_shared_gpu, device_iters;
} cb_options_t;

/* Parses argv into o (its defaults first); no MPI. */
app_opt_parse_t cb_options_parse(int argc, char **argv, cb_options_t *o, char *err, size_t bytes);
/* The command line's table (opt_table.h): the parse, --help and the tests' cases. */
extern const app_opt_table_t cb_option_table;

typedef shardtab_status_t (*cb_call_t)(void *ctx);

typedef struct cb_ctx {
    shardtab_t *table;
    size_t count;
    int op; /* the all-reduce's: SHARDTAB_SUM, or SHARDTAB_SUM_EXACT */
    void *stream;
    float *host, *shard, *copy_dst;
    void *graph; /* GPU: an instantiated graph of `graph_calls` all-reduces */
    int graph_calls;
} cb_ctx_t;

/* Rank `rank`'s input at element i: sums of them are exact in any order. */
float cb_input(int rank, size_t i);
/* The median of n values (sorts them). */
double cb_median(double *t, int n);

/* The stream side (coll_bench_time.c): the median seconds per call of
 * `call`, `iters` calls a repeat, the slowest rank's; per_launch divides a
 * launch into that many calls (a graph of several). Collective. */
shardtab_status_t cb_time_call(cb_ctx_t *c, cb_call_t call, int iters, int repeats, int per_launch,
                               double *seconds);
/* The calls it times. */
shardtab_status_t cb_call_all_reduce(void *ctx);
shardtab_status_t cb_call_mpi(void *ctx);
shardtab_status_t cb_call_copy(void *ctx);
/* The inputs of `count` floats into host and shard; the elements of got
 * that differ from the sum over `size` ranks. */
shardtab_status_t cb_fill(float *host, float *shard, size_t count, int rank);
long long cb_wrong(const float *got, size_t count, int size);

/* One size of the stream side: MPI_Allreduce and the device copy timed,
 * then each algorithm of the all-reduce timed and its result checked, then
 * SHARDTAB_SUM_EXACT (auto) the same way (and
 * on GPUs, to 64 KiB, the all-reduce from a graph); rank 0 prints the rows.
 * *code becomes 1 when a result was wrong. Collective. */
shardtab_status_t cb_stream_size(cb_ctx_t *c, const cb_options_t *o, size_t bytes, int rank,
                                 int size, int *code);
/* On GPUs, an empty kernel of one block timed, eager and from a graph: what
 * any stream-ordered call pays to launch (rank 0 prints it); else nothing. */
shardtab_status_t cb_launch_floor(cb_ctx_t *c, const cb_options_t *o, int rank);

/* The device side's table of figures (coll_bench_device.c; rank 0 prints);
 * *code becomes 1 when a result was wrong. Collective. */
shardtab_status_t cb_device_side(cb_ctx_t *c, const cb_options_t *o, int rank, int *code);

#endif /* COLL_BENCH_H */
