/* coll_bench_options.c - the coll_bench program's command line: its table of
 * options (opt_table.h), its defaults and its check across options. No MPI. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "coll_bench.h"
#include "opt_table.h"

#include <stdio.h>
#include <string.h>

static const char usage_head[] =
    "Usage: mpirun -np <ranks> coll_bench [options]\n"
    "The table's collectives timed, every result verified: the device-side all-reduce of\n"
    "one double, put with signal and LL puts between node ranks 0 and 1 (8 B to 64 KiB,\n"
    "half the round trip); then shardtab_all_reduce of floats from --min to --max bytes a\n"
    "rank (auto, one-block, one-shot, two-shot; on GPUs from a graph too), and the exact\n"
    "sum (SHARDTAB_SUM_EXACT, redop 'exact', auto; one-shot too up to 64 KiB), beside\n"
    "MPI_Allreduce and the device copy, in nccl-tests' columns (time in us, algbw and\n"
    "busbw in GB/s, #wrong), the median of --repeats.\n";

static const char usage_tail[] =
    "Environment: SHARDTAB_ALL_REDUCE_ALGO and SHARDTAB_ALL_REDUCE_CUTOVER choose the\n"
    "algorithm of 'auto' (docs/environment.md).\n"
    "Exit status: 0 every result verified, 1 a wrong result or a runtime failure, 2 bad\n"
    "usage.\n";

app_opt_parse_t cb_options_parse(int argc, char **argv, cb_options_t *o, char *err, size_t bytes)
{
    memset(o, 0, sizeof *o);
    o->min = 8;
    o->max = (size_t)1 << 30;
    o->repeats = 5;
    o->device_iters = 1000;
    return app_opt_parse(&cb_option_table, argc, argv, o, err, bytes);
}

/* Across options: the sizes in order. */
static int check(const void *options, char *err, size_t err_bytes)
{
    const cb_options_t *o = options;

    if (o->max >= o->min)
        return 0;
    snprintf(err, err_bytes, "--min (%zu bytes) is larger than --max (%zu)", o->min, o->max);
    return -1;
}

#define FIELD(member) APP_OPT_FIELD(cb_options_t, member)

/* The command line, in the order --help lists it. */
static const app_opt_t option_rows[] = {
    APP_OPT_INT_ROW("min", 0, NULL, "B", FIELD(min), 4, 1L << 31,
                    "the smallest all-reduce, bytes a rank (default 8; 4 to 2^31)"),
    APP_OPT_INT_ROW("max", 0, NULL, "B", FIELD(max), 4, 1L << 31,
                    "the largest (default 1073741824, 1 GiB)"),
    APP_OPT_INT_ROW("repeats", 0, NULL, "R", FIELD(repeats), 1, 64,
                    "timed repeats of each size, the median reported (default 5;\n1 to 64)"),
    APP_OPT_INT_ROW("device-iters", 0, NULL, "N", FIELD(device_iters), 10, 1000000,
                    "device-side calls timed in one kernel (default 1000; 10 to\n1000000)"),
    APP_OPT_FLAG_ROW("allow-shared-gpu", 0, FIELD(allow_shared_gpu), "let ranks share a device"),
    APP_OPT_HELP_ROW("this text"),
    APP_OPT_VERSION_ROW("the version of coll_bench and of the library"),
};

const app_opt_table_t cb_option_table =
    APP_OPT_TABLE(option_rows, cb_options_t, check, 0, 23, NULL, usage_head, usage_tail);
