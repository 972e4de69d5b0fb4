/* options.h - multi_scal's command line: what the user asked for, parsed and
 * checked without MPI so that every rank reaches the same verdict alone. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef MS_OPTIONS_H
#define MS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "opt_table.h"

enum {
    MS_MODE_LOCAL = 1u << 0,
    MS_MODE_RING = 1u << 1,
    MS_MODE_GLOBAL = 1u << 2,
    MS_MODE_ALL = MS_MODE_LOCAL | MS_MODE_RING | MS_MODE_GLOBAL,
};

#define MS_MAX_ITERS 1000000
/* MPI counts are int: a shard of the MPI baseline must stay below 2^31 doubles */
#define MS_BENCH_MAX_BYTES (8ull << 30)

typedef struct ms_options {
    uint64_t n; /* global number of doubles */
    double alpha;
    unsigned modes; /* MS_MODE_* bits */
    int iters;
    const char *json; /* NULL: no JSON output */
    int allow_shared_gpu;
    int check_peers;     /* write-and-verify every pair instead of the modes */
    int bench;           /* the benchmark sweep instead of the modes */
    int bench_pairs;     /* the pairwise matrix instead of the modes */
    uint64_t bench_min;  /* bytes per shard, first size of the sweep */
    uint64_t bench_max;  /* bytes per shard, last size (x4 steps) */
    int bench_max_given; /* --bench-max was on the command line: refuse, never cap, it */
    int variant;         /* kernel variant (scal.h), -1: the default */
    int blocks_per_sm;   /* SCAL_BLOCKS_PER_SM (ms_tuning_parse): 1 to 64; 0: the kernels' own */
    int chunk_shape; /* SCAL_CHUNK_SHAPE: an index into scal.h's SCAL_CHUNK_SHAPES; 0: the default */
    int bench_device_only; /* skip the host-staged and MPI paths (tuning runs) */
    int help;
    int version;
} ms_options_t;

typedef enum ms_parse_result {
    MS_PARSE_OK = 0,
    MS_PARSE_HELP,    /* -h: print usage, exit 0 */
    MS_PARSE_VERSION, /* --version: print it, exit 0 */
    MS_PARSE_ERROR,   /* message in err: print it, exit 2 */
} ms_parse_result_t;

void ms_options_default(ms_options_t *opts);
/* Parses argv by ms_option_table (reentrant across calls); on error writes one
 * line into err. */
ms_parse_result_t ms_options_parse(int argc, char **argv, ms_options_t *opts, char *err,
                                   size_t err_bytes);
/* "600", "4K", "1G": a positive count of doubles, suffixes are powers of 1024;
 * the byte size must fit in 64 bits. Returns 0 on success. */
int ms_parse_count(const char *text, uint64_t *count, char *err, size_t err_bytes);
int ms_parse_alpha(const char *text, double *alpha, char *err, size_t err_bytes);
int ms_parse_modes(const char *text, unsigned *modes, char *err, size_t err_bytes);
const char *ms_mode_name(unsigned mode);

/* The kernels' tuning variables, environment variables of the measurements
 * (docs/performance.md; the host backend's one loop takes neither): every
 * rank reads and checks them after its command line, and the launchers
 * take them as given (scal_set_tuning). */
typedef enum ms_tuning_var {
    MS_TUNE_BLOCKS_PER_SM = 0, /* SCAL_BLOCKS_PER_SM=N: 1 to 64, default the kernels' */
    MS_TUNE_CHUNK_SHAPE,       /* SCAL_CHUNK_SHAPE=BxU: a compiled shape, default the first */
    MS_TUNING_COUNT
} ms_tuning_var_t;

/* "SCAL_BLOCKS_PER_SM", or "?" for no variable. */
const char *ms_tuning_name(ms_tuning_var_t var);
/* Sets opts->blocks_per_sm and opts->chunk_shape from each variable's text
 * (text[var]; NULL or "": unset, its default). 0, or -1 with a message naming
 * the first variable that is malformed or out of range (both then back to
 * their defaults). */
int ms_tuning_parse(ms_options_t *opts, const char *const text[MS_TUNING_COUNT], char *err,
                    size_t err_bytes);
/* The same, each variable read from the environment. */
int ms_tuning_from_env(ms_options_t *opts, char *err, size_t err_bytes);
/* The command line's table (opt_table.h): the parse, --help and the tests' cases. */
extern const app_opt_table_t ms_option_table;
/* "4.00 GiB", "600 B": powers of 1024. Returns buf. */
const char *ms_human_bytes(double bytes, char *buf, size_t len);

/* How the bench's sizes were fitted to the host memory of the fullest node. */
typedef struct ms_bench_fit {
    uint64_t top;       /* bytes per shard: the sweep's last size, the pairs' size */
    uint64_t asked;     /* --bench-max, or its default */
    int capped;         /* 1: the default was lowered to top so that it fits */
    uint64_t available; /* host bytes the node's ranks had to fit in; 0 unknown */
    int ranks_on_node;  /* ranks that allocate at once on one node */
    int buffers;        /* shard-sized host buffers each of them holds at once */
} ms_bench_fit_t;

/* Fits --bench-max to the host memory of a node where ranks_on_node ranks each
 * hold `buffers` buffers of a shard at once. A size that fits (or unknown
 * memory, available 0) is kept. An explicit --bench-max that does not fit, or a
 * --bench-min that does not, is refused: -1, the reason in err. The default is
 * lowered to the largest size of the x4 sweep from --bench-min that fits
 * (capped 1). Returns 0 with *fit set. */
int ms_bench_fit(const ms_options_t *opts, uint64_t available, int ranks_on_node, int buffers,
                 ms_bench_fit_t *fit, char *err, size_t err_bytes);

#endif /* MS_OPTIONS_H */
