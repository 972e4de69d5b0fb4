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
    "rank (auto, one-block, one-shot, two-shot; on GPUs from a graph too) beside\n"
    "MPI_Allreduce and the device copy, in nccl-tests' columns (time in us, algbw and\n"
    "busbw in GB/s, #wrong), the median of --repeats.\n";

static const char usage_tail[] =
    "Environment: SHARDTAB_ALL_REDUCE_ALGO and SHARDTAB_ALL_REDUCE_CUTOVER choose the\n"
    "algorithm of 'auto' (docs/environment.md).\n"
    "Exit status: 0 every result verified, 1 a wrong result or a runtime failure, 2 bad\n"
    "usage.\n";

#define FIELD(member) APP_OPT_FIELD(cb_options_t, member)

/* The command line, in the order --help lists it. */
static const app_opt_t option_rows[] = {
    {.name = "min",
     .kind = APP_OPT_INT,
     .metavar = "B",
     FIELD(min),
     .lo = 4,
     .hi = 1L << 31,
     .help = "the smallest all-reduce, bytes a rank (default 8; 4 to 2^31)"},
    {.name = "max",
     .kind = APP_OPT_INT,
     .metavar = "B",
     FIELD(max),
     .lo = 4,
     .hi = 1L << 31,
     .help = "the largest (default 1073741824, 1 GiB)"},
    {.name = "repeats",
     .kind = APP_OPT_INT,
     .metavar = "R",
     FIELD(repeats),
     .lo = 1,
     .hi = 64,
     .help = "timed repeats of each size, the median reported (default 5;\n1 to 64)"},
    {.name = "device-iters",
     .kind = APP_OPT_INT,
     .metavar = "N",
     FIELD(device_iters),
     .lo = 10,
     .hi = 1000000,
     .help = "device-side calls timed in one kernel (default 1000; 10 to\n1000000)"},
    {.name = "allow-shared-gpu",
     .kind = APP_OPT_FLAG,
     FIELD(allow_shared_gpu),
     .help = "let ranks share a device"},
    {.name = "help", .letter = 'h', .kind = APP_OPT_HELP, .help = "this text"},
    {.name = "version",
     .kind = APP_OPT_VERSION,
     .help = "the version of coll_bench and of the library"},
};
#undef FIELD

const app_opt_table_t cb_option_table = {
    .rows = option_rows,
    .count = (int)(sizeof option_rows / sizeof option_rows[0]),
    .opts_bytes = sizeof(cb_options_t),
    .long_only = 0,
    .column = 23,
    .head = usage_head,
    .tail = usage_tail,
};

const char *cb_usage_text(void)
{
    static char text[4096];
    return text[0] ? text : app_opt_usage(&cb_option_table, text, sizeof text);
}

cb_parse_t cb_options_parse(int argc, char **argv, cb_options_t *o, char *err, size_t bytes)
{
    app_opt_parse_t parsed;

    memset(o, 0, sizeof *o);
    o->min = 8;
    o->max = (size_t)1 << 30;
    o->repeats = 5;
    o->device_iters = 1000;
    parsed = app_opt_parse(&cb_option_table, argc, argv, o, err, bytes);
    if (parsed == APP_OPT_PARSE_OK && o->max < o->min) {
        snprintf(err, bytes, "--min (%zu bytes) is larger than --max (%zu)", o->min, o->max);
        return CB_PARSE_ERROR;
    }
    _Static_assert(CB_PARSE_HELP == (int)APP_OPT_PARSE_HELP &&
                       CB_PARSE_VERSION == (int)APP_OPT_PARSE_VERSION &&
                       CB_PARSE_ERROR == (int)APP_OPT_PARSE_ERROR,
                   "the verdicts in opt_table.h's order");
    return (cb_parse_t)parsed;
}
