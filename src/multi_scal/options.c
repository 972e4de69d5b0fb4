/* options.c - multi_scal's command line: its table of options (opt_table.h),
 * its defaults and its checks across options. Pure C, no MPI:
 * each rank parses the same argv to the same verdict, and rank 0 alone
 * speaks. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "options.h"
#include "cli.h"
#include "opt_table.h"
#include "scal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_head[] =
    "Usage: multi_scal [options]\n"
    "Scale a vector sharded over the MPI ranks (one per GPU) through one table of\n"
    "shard pointers per node, and verify every element.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "Environment: SHARDTAB_RANKS_PER_NODE=R splits each node into groups of R ranks.\n"
    "Kernel tuning (GPU builds): SCAL_CHUNK_SHAPE=BxU, the chunk kernel's threads per\n"
    "block x 16-byte pairs per thread (256x1, 64x2, 64x4, 128x1, 128x2, 128x4, 256x2,\n"
    "256x4 or 512x2; default 256x1); SCAL_BLOCKS_PER_SM=N (1 to 64), the other\n"
    "variants' grid. A malformed value is bad usage, on every build.\n"
    "Exit status: 0 all verified, 1 a verification or runtime failure, 2 bad usage.\n";

void ms_options_default(ms_options_t *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->n = 600;
    opts->alpha = 2.0;
    opts->modes = MS_MODE_ALL;
    opts->iters = 1;
    opts->bench_min = 1ull << 20;
    opts->bench_max = 4ull << 30;
    opts->variant = -1;
}

int ms_parse_count(const char *text, uint64_t *count, char *err, size_t err_bytes)
{
    unsigned long long value;
    uint64_t scale = 1;
    char *end;

    if (text == NULL || !isdigit((unsigned char)text[0])) {
        snprintf(err, err_bytes,
                 "invalid size '%s': expected a positive integer, optionally "
                 "followed by K, M, G or T",
                 text ? text : "");
        return -1;
    }
    errno = 0;
    value = strtoull(text, &end, 10);
    if (errno == ERANGE) {
        snprintf(err, err_bytes, "size '%s' is too large", text);
        return -1;
    }
    if (*end != '\0') {
        /* K, M, G or T alone: 2^10, 2^20, 2^30 or 2^40 */
        static const char units[] = "KMGT";
        const char *unit = strchr(units, toupper((unsigned char)*end));
        if (unit == NULL || end[1] != '\0') {
            snprintf(err, err_bytes, "invalid size suffix in '%s': use K, M, G or T", text);
            return -1;
        }
        scale = 1ull << (10 * (unit - units + 1));
    }
    if (value == 0) {
        snprintf(err, err_bytes, "size '%s' must be at least 1 element", text);
        return -1;
    }
    /* elements * scale * sizeof(double) must fit in 64 bits */
    if (value > UINT64_MAX / scale || value * scale > UINT64_MAX / sizeof(double)) {
        snprintf(err, err_bytes, "size '%s' is too large: its byte count overflows 64 bits", text);
        return -1;
    }
    *count = value * scale;
    return 0;
}

int ms_parse_alpha(const char *text, double *alpha, char *err, size_t err_bytes)
{
    char *end;
    double value;

    errno = 0;
    value = text && *text && !isspace((unsigned char)*text) ? strtod(text, &end) : 0.0;
    if (text == NULL || *text == '\0' || isspace((unsigned char)*text) || *end != '\0') {
        snprintf(err, err_bytes, "invalid alpha '%s': expected a number", text ? text : "");
        return -1;
    }
    /* ERANGE also flags underflow: a tiny alpha is finite and allowed */
    if (!isfinite(value) || (errno == ERANGE && fabs(value) > 1.0)) {
        snprintf(err, err_bytes, "invalid alpha '%s': must be finite (no inf, nan or overflow)",
                 text);
        return -1;
    }
    *alpha = value;
    return 0;
}

/* The modes' names, in the order of their bits below. */
static const char *const mode_words[] = {"local", "ring", "global", "all"};
static const unsigned mode_bits[] = {MS_MODE_LOCAL, MS_MODE_RING, MS_MODE_GLOBAL, MS_MODE_ALL};
enum { MODE_WORDS = (int)(sizeof mode_words / sizeof mode_words[0]) };
_Static_assert(sizeof mode_bits / sizeof mode_bits[0] == MODE_WORDS, "a bit for every mode name");

int ms_parse_modes(const char *text, unsigned *modes, char *err, size_t err_bytes)
{
    int i;

    if (app_parse_word("mode", text, mode_words, MODE_WORDS, &i, err, err_bytes) != 0)
        return -1;
    *modes = mode_bits[i];
    return 0;
}

const char *ms_mode_name(unsigned mode)
{
    for (int i = 0; i < MODE_WORDS; i++)
        if (mode_bits[i] == mode)
            return mode_words[i];
    return "?";
}

static int parse_bench_bytes(const char *text, uint64_t *bytes, char *err, size_t err_bytes)
{
    uint64_t value;

    if (ms_parse_count(text, &value, err, err_bytes) != 0)
        return -1;
    if (value < 4096 || value > MS_BENCH_MAX_BYTES || value % sizeof(double) != 0) {
        snprintf(err, err_bytes,
                 "invalid bench size '%s': bytes per shard, a multiple of 8 "
                 "from 4K to 8G",
                 text);
        return -1;
    }
    *bytes = value;
    return 0;
}

/* The hooks of the options whose values are multi_scal's own. */
static int parse_n(const char *text, void *opts, char *err, size_t err_bytes)
{
    return ms_parse_count(text, &((ms_options_t *)opts)->n, err, err_bytes);
}

static int parse_alpha(const char *text, void *opts, char *err, size_t err_bytes)
{
    return ms_parse_alpha(text, &((ms_options_t *)opts)->alpha, err, err_bytes);
}

static int parse_mode(const char *text, void *opts, char *err, size_t err_bytes)
{
    return ms_parse_modes(text, &((ms_options_t *)opts)->modes, err, err_bytes);
}

static int parse_bench_min(const char *text, void *opts, char *err, size_t err_bytes)
{
    return parse_bench_bytes(text, &((ms_options_t *)opts)->bench_min, err, err_bytes);
}

static int parse_bench_max(const char *text, void *opts, char *err, size_t err_bytes)
{
    ms_options_t *o = opts;
    o->bench_max_given = 1; /* refused, never capped, where it does not fit (ms_bench_fit) */
    return parse_bench_bytes(text, &o->bench_max, err, err_bytes);
}

#define FIELD(member) APP_OPT_FIELD(ms_options_t, member)

/* The command line, in the order --help lists it. --help and --version are
 * flags here: a bad option beside them is still bad usage. */
static const app_opt_t option_rows[] = {
    APP_OPT_CUSTOM_ROW("n", 'n', "N", parse_n,
                       "global number of doubles; K, M, G, T suffixes are powers\n"
                       "of 1024 (default 600)"),
    APP_OPT_CUSTOM_ROW("alpha", 'a', "A", parse_alpha,
                       "scale factor, a finite number (default 2.0)"),
    APP_OPT_CUSTOM_ROW("mode", 'm', "MODE", parse_mode,
                       "local | ring | global | all (default all)\n"
                       "  local:  each rank scales its own shard through the table\n"
                       "  ring:   each rank scales the next node rank's shard\n"
                       "  global: each rank scales a shard-sized stretch of the\n"
                       "          node's index space, shifted by half a shard"),
    APP_OPT_INT_ROW("iters", 'i', "iteration count", "K", FIELD(iters), 1, MS_MAX_ITERS,
                    "apply each mode's kernel K times (default 1)"),
    APP_OPT_TEXT_ROW("json", 'j', "option --json", "FILE", FIELD(json),
                     "also write the results as JSON to FILE"),
    APP_OPT_FLAG_ROW("allow-shared-gpu", 's', FIELD(allow_shared_gpu),
                     "let several ranks of a node share one GPU"),
    APP_OPT_FLAG_ROW("check-peers", 'c', FIELD(check_peers),
                     "instead of the modes, print the peer-access matrix, then\n"
                     "write and verify a pattern through the table for every\n"
                     "pair of ranks of each node; exit 0 only if all pass"),
    APP_OPT_FLAG_ROW("bench", 'b', FIELD(bench),
                     "instead of the modes, the benchmark sweep: the table's modes\n"
                     "against device and peer copies, a host-staged update and\n"
                     "MPI messages, per-shard sizes from --bench-min to --bench-max"),
    APP_OPT_CUSTOM_ROW("bench-min", 0, "B", parse_bench_min,
                       "first bytes per shard of the sweep (default 1M)"),
    APP_OPT_CUSTOM_ROW("bench-max", 0, "B", parse_bench_max,
                       "last bytes per shard, x4 steps (default 4G, lowered to what\n"
                       "host memory holds; at most 8G; a size that cannot fit is\n"
                       "refused)"),
    APP_OPT_FLAG_ROW("bench-pairs", 0, FIELD(bench_pairs),
                     "instead of the modes, every ordered pair of a node's ranks:\n"
                     "the writer alone scales the owner's shard (--bench-max bytes)\n"
                     "through the table; prints the matrix of GB/s"),
    APP_OPT_FLAG_ROW("bench-device-only", 0, FIELD(bench_device_only),
                     "skip the host-staged and MPI updates (kernel tuning runs)"),
    APP_OPT_WORD_ROW("variant", "variant", "V", FIELD(variant), scal_variant_names,
                     SCAL_VARIANT_COUNT,
                     "kernel variant: naive, vec2, vec2x4, vec2x8, vec2x4s, chunk\n"
                     "(default chunk)"),
    APP_OPT_FLAG_ROW("help", 'h', FIELD(help), "print this help and exit"),
    APP_OPT_FLAG_ROW("version", 0, FIELD(version), "the version of multi_scal and of the library"),
};
#undef FIELD

/* Across options: the sweep's sizes in order, one alternative to the modes. */
static int check(const void *options, char *err, size_t err_bytes)
{
    const ms_options_t *opts = options;

    if (opts->bench && opts->bench_min > opts->bench_max) {
        snprintf(err, err_bytes, "--bench-min is larger than --bench-max");
        return -1;
    }
    if (opts->bench + opts->check_peers + opts->bench_pairs > 1) {
        snprintf(err, err_bytes, "--bench, --bench-pairs and --check-peers exclude each other");
        return -1;
    }
    return 0;
}

const app_opt_table_t ms_option_table =
    APP_OPT_TABLE(option_rows, ms_options_t, check, 0, 23, "    ", usage_head, usage_tail);

ms_parse_result_t ms_options_parse(int argc, char **argv, ms_options_t *opts, char *err,
                                   size_t err_bytes)
{
    ms_options_default(opts);
    if (app_opt_parse(&ms_option_table, argc, argv, opts, err, err_bytes) != APP_OPT_PARSE_OK)
        return MS_PARSE_ERROR;
    return opts->help ? MS_PARSE_HELP : opts->version ? MS_PARSE_VERSION : MS_PARSE_OK;
}

/* ---- the kernels' tuning variables ------------------------------------------------------ */

static const char *const tuning_names[MS_TUNING_COUNT] = {"SCAL_BLOCKS_PER_SM", "SCAL_CHUNK_SHAPE"};

#define SHAPE_ENTRY(block, unroll) {block, unroll},
static const struct {
    int block, unroll;
} chunk_shapes[] = {SCAL_CHUNK_SHAPES(SHAPE_ENTRY)};
#undef SHAPE_ENTRY
#define CHUNK_SHAPES ((int)(sizeof chunk_shapes / sizeof chunk_shapes[0]))
_Static_assert(SCAL_MAX_BLOCKS_PER_SM == 64, "the message and the help say 1 to 64");

const char *ms_tuning_name(ms_tuning_var_t var)
{
    return (unsigned)var < MS_TUNING_COUNT ? tuning_names[var] : "?";
}

/* SCAL_BLOCKS_PER_SM: a decimal integer from 1 to SCAL_MAX_BLOCKS_PER_SM. */
static int parse_blocks_per_sm(const char *text, int *blocks, char *err, size_t err_bytes)
{
    char *end = NULL;
    long value = -1;

    errno = 0;
    if (isdigit((unsigned char)text[0]))
        value = strtol(text, &end, 10);
    if (!isdigit((unsigned char)text[0]) || *end != '\0' || errno != 0 || value < 1 ||
        value > SCAL_MAX_BLOCKS_PER_SM) {
        snprintf(
            err, err_bytes,
            "invalid %s '%s' (environment): expected an integer from 1 to %d, or unset for the "
            "default",
            tuning_names[MS_TUNE_BLOCKS_PER_SM], text, SCAL_MAX_BLOCKS_PER_SM);
        return -1;
    }
    *blocks = (int)value;
    return 0;
}

/* SCAL_CHUNK_SHAPE=BxU: one of the compiled shapes, by its index. */
static int parse_chunk_shape(const char *text, int *shape, char *err, size_t err_bytes)
{
    int block = 0, unroll = 0, used = 0;
    size_t at;

    if (sscanf(text, "%dx%d%n", &block, &unroll, &used) == 2 && text[used] == '\0')
        for (int i = 0; i < CHUNK_SHAPES; i++)
            if (chunk_shapes[i].block == block && chunk_shapes[i].unroll == unroll) {
                *shape = i;
                return 0;
            }
    at = (size_t)snprintf(err, err_bytes, "%s='%s' is not a compiled shape (",
                          tuning_names[MS_TUNE_CHUNK_SHAPE], text);
    for (int i = 0; i < CHUNK_SHAPES && at < err_bytes; i++)
        at += (size_t)snprintf(err + at, err_bytes - at, "%s%dx%d", i ? ", " : "",
                               chunk_shapes[i].block, chunk_shapes[i].unroll);
    if (at < err_bytes)
        snprintf(err + at, err_bytes - at, ")");
    return -1;
}

int ms_tuning_parse(ms_options_t *opts, const char *const text[MS_TUNING_COUNT], char *err,
                    size_t err_bytes)
{
    const char *blocks = text[MS_TUNE_BLOCKS_PER_SM], *shape = text[MS_TUNE_CHUNK_SHAPE];
    int rc = 0;

    opts->blocks_per_sm = 0;
    opts->chunk_shape = 0;
    if (blocks != NULL && blocks[0] != '\0')
        rc = parse_blocks_per_sm(blocks, &opts->blocks_per_sm, err, err_bytes);
    if (rc == 0 && shape != NULL && shape[0] != '\0')
        rc = parse_chunk_shape(shape, &opts->chunk_shape, err, err_bytes);
    if (rc != 0) {
        opts->blocks_per_sm = 0;
        opts->chunk_shape = 0;
    }
    return rc;
}

int ms_tuning_from_env(ms_options_t *opts, char *err, size_t err_bytes)
{
    const char *text[MS_TUNING_COUNT];

    for (int v = 0; v < MS_TUNING_COUNT; v++)
        text[v] = getenv(tuning_names[v]);
    return ms_tuning_parse(opts, text, err, err_bytes);
}

const char *ms_human_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

/* A size the options accept, at most bytes: "2G", "768M" (rounded down). */
static const char *option_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char suffix[] = "KMGT";
    int u = 0;
    uint64_t unit = 1024;
    while (u < 3 && bytes / (unit * 1024) >= 1) {
        unit *= 1024;
        u++;
    }
    snprintf(buf, len, "%llu%c", (unsigned long long)(bytes / unit), suffix[u]);
    return buf;
}

int ms_bench_fit(const ms_options_t *opts, uint64_t available, int ranks_on_node, int buffers,
                 ms_bench_fit_t *fit, char *err, size_t err_bytes)
{
    /* host bytes a node needs per byte of shard */
    uint64_t per_byte =
        (uint64_t)(ranks_on_node > 0 ? ranks_on_node : 1) * (uint64_t)(buffers > 0 ? buffers : 1);
    uint64_t largest = available ? available / per_byte : UINT64_MAX; /* bytes per shard */
    uint64_t top = opts->bench_max;
    char asked[32], need[32], have[32], most[32];

    if (top > largest) {
        ms_human_bytes((double)top * (double)per_byte, need, sizeof need);
        ms_human_bytes((double)available, have, sizeof have);
        option_bytes(largest, most, sizeof most);
        if (largest < 4096) {
            snprintf(err, err_bytes,
                     "no bench size fits in host memory: %d ranks on a node x %d "
                     "buffers of a shard need at least %s, and %s is available; use fewer ranks "
                     "per node",
                     ranks_on_node, buffers,
                     ms_human_bytes(4096.0 * (double)per_byte, need, sizeof need), have);
            return -1;
        }
        if (opts->bench_max_given) {
            snprintf(err, err_bytes,
                     "--bench-max %s per shard does not fit in host memory: %d "
                     "ranks on a node x %d buffers of a shard need %s, and %s is available; use "
                     "--bench-max %s or less, or fewer ranks per node",
                     ms_human_bytes((double)top, asked, sizeof asked), ranks_on_node, buffers, need,
                     have, most);
            return -1;
        }
        if (opts->bench_min > largest) {
            ms_human_bytes((double)opts->bench_min * (double)per_byte, need, sizeof need);
            snprintf(err, err_bytes,
                     "not even --bench-min %s per shard fits in host memory: %d "
                     "ranks on a node x %d buffers of a shard need %s, and %s is available; use "
                     "--bench-min %s or less, or fewer ranks per node",
                     ms_human_bytes((double)opts->bench_min, asked, sizeof asked), ranks_on_node,
                     buffers, need, have, most);
            return -1;
        }
        /* the default: the largest size of the sweep that fits */
        top = opts->bench_min;
        while (top <= largest / 4 && top * 4 <= opts->bench_max)
            top *= 4;
    }
    memset(fit, 0, sizeof *fit);
    fit->top = top;
    fit->asked = opts->bench_max;
    fit->capped = top < opts->bench_max;
    fit->available = available;
    fit->ranks_on_node = ranks_on_node;
    fit->buffers = buffers;
    return 0;
}
