/* run.h - one multi_scal run as its files share it: the options, this
 * rank's shard and the table over the node's shards, the values every
 * element must end with, the report; its start, set-up and teardown
 * (setup.c) and one mode run and verified (modes.c). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef MS_RUN_H
#define MS_RUN_H

#include <stdint.h>

#include "options.h"
#include "partition.h"
#include "report.h"
#include "shardtab.h"

typedef struct ms_run {
    ms_options_t opts;
    int rank, size;
    ms_shard_t mine;
    shardtab_t *table;
    double *shard;          /* device: this rank's shard */
    double *staging;        /* host: a copy of it */
    uint64_t *offsets_host; /* [node_size + 1] the node's index space */
    uint64_t *offsets;      /* device copy, for the global kernel */
    double expected[7];     /* the value each residue class must end with */
    ms_bench_fit_t fit;     /* --bench, --bench-pairs: sizes fitted to host memory */
    ms_report_t report;
    const char *corrupt_hook; /* test hooks (src/platform/test_hooks.h), read at the start: */
    const char *memory_hook;  /* MULTI_SCAL_TEST_CORRUPT's, _MEMORY's text, or NULL */
} ms_run_t;

/* Every rank parses its command line and tuning variables (rank 0 speaks),
 * reads the test hooks, fits the sizes to host memory and opens the JSON
 * file; sets the kernels' variant and tuning. -1 to go on, else the exit
 * status. Collective. */
int ms_setup_start(ms_run_t *run, int argc, char **argv);
/* The shard, the table over the node's shards (and a second one, timed),
 * the node's index space, every shard at its starting values, the header
 * printed. Collective. */
shardtab_status_t ms_setup_device(ms_run_t *run);
/* Tears down in reverse order of set-up; keeps going past a failure and
 * returns the first. Collective (shardtab_destroy). */
shardtab_status_t ms_setup_release(ms_run_t *run);

/* Element g starts as 1 + g mod 7: never all ones, so an indexing slip shows. */
double ms_initial_value(uint64_t g);
/* Every element of this rank's shard back at its starting value. */
shardtab_status_t ms_mode_reset(ms_run_t *run);
/* One mode: a warm-up, the timed launches (the slowest rank's time), every
 * element verified (the counts on every rank). Collective. */
shardtab_status_t ms_mode_run(ms_run_t *run, unsigned mode, ms_mode_result_t *res);

#endif /* MS_RUN_H */
