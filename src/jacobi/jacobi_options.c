/* jacobi_options.c - parsing and checking the jacobi command line (the
 * anchors' single-dash options, and ours) and its tuning variables (the
 * environment's JACOBI_*: checked here, on the host, for every backend), and
 * the row split. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_options.h"
#include "cli.h"
#include "opt_table.h"
#include "shardtab.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char usage_head[] =
    "Usage: jacobi [options]\n"
    "Solve the 2D Poisson equation with Jacobi's 5-point stencil on an NX x NY grid\n"
    "(the problem of NVIDIA's multi-gpu-programming-models), rows split over the MPI\n"
    "ranks (one per GPU); ghost rows and the norm go through one table per node.\n"
    "Verifies every point bit for bit, the iterations and the norms against an\n"
    "independent plain reference computed in the run.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "A neighbour on another node (or SHARDTAB_RANKS_PER_NODE=1) gets its ghost rows\n"
    "by MPI. SHARDTAB_WAIT_TIMEOUT=S bounds every device-side wait (default 10 s).\n"
    "\n"
    "Tuning variables (environment; unset or empty: the default, which the\n"
    "measurements of docs/performance.md chose). Every rank checks them: a malformed\n"
    "or out-of-range value is bad usage. The output header and the JSON record them;\n"
    "the host backend's loops use only JACOBI_TEMPORAL_DEPTH.\n"
    "  JACOBI_MIN_STRIP_ROWS=N  1 to 64 (default 4): the fewest rows in a strip of\n"
    "                   tiles; fewer strips, fewer partial sums to add for the norm\n"
    "  JACOBI_VEC4=0|1  1 (default): four columns a thread with 16-byte accesses\n"
    "                   where nx is a multiple of 4; 0: one column a thread\n"
    "  JACOBI_BLOCKS_PER_SM=N\n"
    "                   1 to 16 (default: the step kernel's own, 4 for one column a\n"
    "                   thread, 3 for four): graph and stream launches cut the rows\n"
    "                   into tiles for this many blocks a multiprocessor (a persistent\n"
    "                   grid is cut for the blocks that are co-resident)\n"
    "  JACOBI_ROWS_IN_FLIGHT=N\n"
    "                   1, 4 or 8 (default: each kernel's own; the step kernel 8 for\n"
    "                   one column a thread and 4 for four, the persistent kernel 4\n"
    "                   and 8): the rows each thread loads ahead of its updates\n"
    "  JACOBI_NORM_BLOCK=0|1\n"
    "                   persistent launches: 1 (default) keeps block 0 for the norm,\n"
    "                   0 gives it tiles to sweep too\n"
    "  JACOBI_ONCHIP_ROWS=N\n"
    "                   onchip launches: 2, 4, 8 or 16 rows a tile (default: the\n"
    "                   fewest that let every tile have a multiprocessor of its own)\n"
    "  JACOBI_TEMPORAL_DEPTH=N\n"
    "                   temporal launches: 1, 3, 5 or 7 (default) iterations a pass\n"
    "  JACOBI_TEMPORAL_ROWS=N\n"
    "                   temporal launches on a GPU: 4 to 4096 own rows a tile streams\n"
    "                   (default: the plan's, fewer halo rows against a shorter\n"
    "                   last wave of tiles)\n"
    "\n"
    "Exit status: 0 verified, 1 a verification or runtime failure, 2 bad usage.\n";

static const char *const variant_names[JACOBI_VARIANT_COUNT] = {"table", "host-sync", "mpi"};
static const char *const cpu_check_words[] = {"auto", "yes", "no"};
const char *jacobi_variant_name(jacobi_variant_t variant)
{
    return (unsigned)variant < JACOBI_VARIANT_COUNT ? variant_names[variant] : "?";
}

const char *jacobi_init_name(const jacobi_init_t *init, char *text, size_t bytes)
{
    if (init->kind == JACOBI_INIT_RANDOM)
        snprintf(text, bytes, "random:%" PRIu64, init->seed);
    else
        snprintf(text, bytes, "zero");
    return text;
}

/* zero, random, or random:SEED with SEED a decimal integer below 2^64 */
static int parse_init(const char *text, jacobi_init_t *init, char *err, size_t err_bytes)
{
    const char *seed = NULL;
    char *end = NULL;

    if (strcmp(text, "zero") == 0) {
        init->kind = JACOBI_INIT_ZERO;
        init->seed = 0;
        return 0;
    }
    if (strcmp(text, "random") == 0) {
        init->kind = JACOBI_INIT_RANDOM;
        init->seed = 1;
        return 0;
    }
    if (strncmp(text, "random:", 7) == 0)
        seed = text + 7;
    if (seed != NULL && isdigit((unsigned char)seed[0])) {
        errno = 0;
        unsigned long long v = strtoull(seed, &end, 10);
        if (*end == '\0' && errno == 0) {
            init->kind = JACOBI_INIT_RANDOM;
            init->seed = (uint64_t)v;
            return 0;
        }
    }
    snprintf(err, err_bytes,
             "invalid --init '%s': expected zero, random or random:SEED (SEED a decimal integer "
             "below 2^64)",
             text);
    return -1;
}

/* ---- the tuning variables ------------------------------------------------------------ */

static const jacobi_tuning_t default_tuning = JACOBI_TUNING_DEFAULTS;

static const struct tuning_spec {
    const char *name;
    size_t offset;        /* of its value in jacobi_tuning_t */
    int lo, hi;           /* an integer from lo to hi ... */
    int powers;           /* ... and 1: 1, 4 or 8 (the rows in flight the kernels are built for);
                             2: 2, 4, 8 or 16 (the tile rows the on-chip kernels are built for);
                             3: odd (a temporal pass writes the other buffer) */
    const char *expected; /* what the message asks for */
} tuning_specs[JACOBI_TUNING_COUNT] = {
    {"JACOBI_MIN_STRIP_ROWS", offsetof(jacobi_tuning_t, min_strip_rows), 1, 64, 0,
     "an integer from 1 to 64"},
    {"JACOBI_VEC4", offsetof(jacobi_tuning_t, vec4), 0, 1, 0, "0 or 1"},
    {"JACOBI_BLOCKS_PER_SM", offsetof(jacobi_tuning_t, blocks_per_sm), 1, JACOBI_MAX_BLOCKS_PER_SM,
     0, "an integer from 1 to 16"},
    {"JACOBI_ROWS_IN_FLIGHT", offsetof(jacobi_tuning_t, rows_in_flight), 1, 8, 1, "1, 4 or 8"},
    {"JACOBI_NORM_BLOCK", offsetof(jacobi_tuning_t, norm_block), 0, 1, 0, "0 or 1"},
    {"JACOBI_ONCHIP_ROWS", offsetof(jacobi_tuning_t, onchip_rows), 2, 16, 2, "2, 4, 8 or 16"},
    {"JACOBI_TEMPORAL_DEPTH", offsetof(jacobi_tuning_t, temporal_depth), 1, 7, 3, "1, 3, 5 or 7"},
    {"JACOBI_TEMPORAL_ROWS", offsetof(jacobi_tuning_t, temporal_rows), 4, 4096, 0,
     "an integer from 4 to 4096"},
};
_Static_assert(JACOBI_MAX_BLOCKS_PER_SM == 16, "the message and the help say 1 to 16");

static int *tuning_field(jacobi_tuning_t *t, int var)
{
    return (int *)((char *)t + tuning_specs[var].offset);
}

const char *jacobi_tuning_name(jacobi_tuning_var_t var)
{
    return (unsigned)var < JACOBI_TUNING_COUNT ? tuning_specs[var].name : "?";
}

int jacobi_tuning_value(const jacobi_tuning_t *t, jacobi_tuning_var_t var)
{
    if ((unsigned)var >= JACOBI_TUNING_COUNT)
        return 0;
    return *(const int *)((const char *)t + tuning_specs[var].offset);
}

int jacobi_tuning_is_auto(const jacobi_tuning_t *t, jacobi_tuning_var_t var)
{
    return (var == JACOBI_TUNE_BLOCKS_PER_SM || var == JACOBI_TUNE_ROWS_IN_FLIGHT ||
            var == JACOBI_TUNE_ONCHIP_ROWS || var == JACOBI_TUNE_TEMPORAL_ROWS) &&
           jacobi_tuning_value(t, var) == 0;
}

int jacobi_tuning_parse(jacobi_options_t *opts, const char *const text[JACOBI_TUNING_COUNT],
                        char *err, size_t err_bytes)
{
    opts->tuning = default_tuning;
    opts->tuning_set = 0;
    for (int v = 0; v < JACOBI_TUNING_COUNT; v++) {
        const struct tuning_spec *spec = &tuning_specs[v];
        const char *t = text[v];
        char *end = NULL;
        long value = -1;

        if (t == NULL || *t == '\0')
            continue;
        errno = 0;
        if (isdigit((unsigned char)t[0]))
            value = strtol(t, &end, 10);
        if (!isdigit((unsigned char)t[0]) || *end != '\0' || errno != 0 || value < spec->lo ||
            value > spec->hi || (spec->powers == 1 && value != 1 && value != 4 && value != 8) ||
            (spec->powers == 2 && value != 2 && value != 4 && value != 8 && value != 16) ||
            (spec->powers == 3 && value % 2 == 0)) {
            snprintf(err, err_bytes,
                     "invalid %s '%s' (environment): expected %s, or unset for the default",
                     spec->name, t, spec->expected);
            opts->tuning = default_tuning;
            opts->tuning_set = 0;
            return -1;
        }
        *tuning_field(&opts->tuning, v) = (int)value;
        opts->tuning_set |= 1u << v;
    }
    return 0;
}

int jacobi_tuning_from_env(jacobi_options_t *opts, char *err, size_t err_bytes)
{
    const char *text[JACOBI_TUNING_COUNT];

    for (int v = 0; v < JACOBI_TUNING_COUNT; v++)
        text[v] = getenv(tuning_specs[v].name);
    return jacobi_tuning_parse(opts, text, err, err_bytes);
}

const char *jacobi_tuning_describe(const jacobi_options_t *opts, jacobi_tuning_var_t var,
                                   char *text, size_t bytes)
{
    int value = jacobi_tuning_value(&opts->tuning, var);
    const char *how =
        (unsigned)var < JACOBI_TUNING_COUNT && (opts->tuning_set >> var & 1u) ? "set" : "default";

    if (jacobi_tuning_is_auto(&opts->tuning, var))
        snprintf(text, bytes, "%s=auto (%s)", jacobi_tuning_name(var), how);
    else
        snprintf(text, bytes, "%s=%d (%s)", jacobi_tuning_name(var), value, how);
    return text;
}

/* ---- the command line ------------------------------------------------------------------ */

void jacobi_options_default(jacobi_options_t *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->tuning = default_tuning;
    opts->tuning_set = 0;
    opts->nx = opts->ny = shardtab_backend() == SHARDTAB_BACKEND_HOST ? JACOBI_DEFAULT_SIDE_HOST
                                                                      : JACOBI_DEFAULT_SIDE_GPU;
    opts->niter = 1000;
    opts->nccheck = 1;
    opts->repeat = 1;
    opts->launch = JACOBI_LAUNCH_AUTO;
    opts->variant = JACOBI_TABLE;
    opts->init.kind = JACOBI_INIT_ZERO;
    opts->init.seed = 0;
    opts->cpu_check = JACOBI_CPU_CHECK_AUTO;
}

app_opt_parse_t jacobi_options_parse(int argc, char **argv, jacobi_options_t *opts, char *err,
                                     size_t err_bytes)
{
    jacobi_options_default(opts);
    return app_opt_parse(&jacobi_option_table, argc, argv, opts, err, err_bytes);
}

/* --init's hook: zero, random or random:SEED */
static int parse_init_option(const char *text, void *opts, char *err, size_t err_bytes)
{
    return parse_init(text, &((jacobi_options_t *)opts)->init, err, err_bytes);
}

/* Across options: the grid's size. */
static int check(const void *options, char *err, size_t err_bytes)
{
    const jacobi_options_t *opts = options;

    if ((long)opts->nx * (long)opts->ny <= (1L << 36))
        return 0;
    snprintf(err, err_bytes, "a %d x %d grid has more than 2^36 points", opts->nx, opts->ny);
    return -1;
}

/* --launch's words and phrases: the modes' rows */
static const char *launch_word(int index)
{
    return jacobi_launch_name((jacobi_launch_t)index);
}

static const char *launch_help(int index)
{
    return jacobi_launch_help((jacobi_launch_t)index);
}

#define FIELD(member) APP_OPT_FIELD(jacobi_options_t, member)
_Static_assert(sizeof(jacobi_launch_t) == sizeof(int) && sizeof(jacobi_variant_t) == sizeof(int) &&
                   sizeof(jacobi_cpu_check_t) == sizeof(int),
               "the words' indices land in int-sized fields");
_Static_assert(JACOBI_CPU_CHECK_AUTO == 0 && JACOBI_CPU_CHECK_YES == 1 && JACOBI_CPU_CHECK_NO == 2,
               "cpu_check_words[] in jacobi_cpu_check_t's order");

/* The command line, in the order --help lists it. */
static const app_opt_t option_rows[] = {
    APP_OPT_INT_ROW("nx", 0, "-nx", "N", FIELD(nx), 3, JACOBI_MAX_SIDE,
                    "grid points in x, boundaries included (default 16384 on a GPU,\n"
                    "1024 on the host backend)"),
    APP_OPT_INT_ROW("ny", 0, "-ny", "N", FIELD(ny), 3, JACOBI_MAX_SIDE,
                    "grid points in y, boundaries included (default: as -nx's)"),
    APP_OPT_INT_ROW("niter", 0, "-niter", "N", FIELD(niter), 1, JACOBI_MAX_ITER,
                    "iterations at most (default 1000)"),
    APP_OPT_INT_ROW("nccheck", 0, "-nccheck", "N", FIELD(nccheck), 1, JACOBI_MAX_ITER,
                    "compute the L2 norm every N iterations (default 1); the solve\n"
                    "stops one iteration after a norm <= 1e-8, as the anchors do"),
    APP_OPT_WORD_ROW("variant", NULL, "V", FIELD(variant), variant_names, JACOBI_VARIANT_COUNT,
                     "table (default): ghost rows stored into the neighbours'\n"
                     "  arrays through the table, ordered by device signals, the\n"
                     "  norm reduced through the table, the stop decided on the\n"
                     "  device; no MPI and no host synchronization in the loop\n"
                     "host-sync: the same, with a host synchronization and an\n"
                     "  MPI_Barrier after every iteration\n"
                     "mpi: ghost rows by MPI messages, host-staged unless MPI says\n"
                     "  it is GPU-aware; the norm by MPI"),
    /* the modes' names and phrases: the rows of jacobi_plan.c */
    APP_OPT_NAMED_ROW("launch", "L", FIELD(launch), launch_word, launch_help, JACOBI_LAUNCH_COUNT,
                      "how a device-driven solve (variant table, every neighbour on\n"
                      "the node) launches its steps. auto: on a GPU temporal where a\n"
                      "rank holds 8 Mi points or more, onchip where the rows fit on\n"
                      "chip, else persistent where its grid fits and the GPU is not\n"
                      "shared, else graph. The output and the JSON say which ran and\n"
                      "why; an explicit persistent, onchip or temporal that cannot\n"
                      "run exits 2. The modes:"),
    APP_OPT_CUSTOM_ROW("init", 0, "I", parse_init_option,
                       "the interior's starting state: zero (default, the anchors')\n"
                       "or random[:SEED] (every point drawn from a generator seeded\n"
                       "with SEED, default 1, the same for any number of ranks)"),
    APP_OPT_WORD_ROW("cpu-check", NULL, "C", FIELD(cpu_check), cpu_check_words, 3,
                     "auto (default: where the grid and iterations are small\n"
                     "enough), yes or no: rank 0 also solves with a plain CPU loop\n"
                     "and compares points, iterations and norms"),
    APP_OPT_INT_ROW("repeat", 0, NULL, "R", FIELD(repeat), 1, JACOBI_MAX_REPEAT,
                    "timed solves after one warm-up solve; the median is\n"
                    "reported (default 1)"),
    APP_OPT_TEXT_ROW("json", 0, NULL, "FILE", FIELD(json),
                     "also write the results as JSON to FILE"),
    APP_OPT_TEXT_ROW("trace", 0, NULL, "FILE", FIELD(trace),
                     "after the timed solves, one more solve with device\n"
                     "timestamps: every rank's per-iteration phases to FILE (CSV),\n"
                     "their medians printed"),
    APP_OPT_FLAG_ROW("allow-shared-gpu", 0, FIELD(allow_shared_gpu),
                     "let several ranks of a node share one GPU"),
    APP_OPT_HELP_ROW("print this help and exit"),
    APP_OPT_VERSION_ROW("the version of jacobi and of the library"),
};

/* getopt_long_only: -nx as the anchors spell it, --nx as well */
const app_opt_table_t jacobi_option_table =
    APP_OPT_TABLE(option_rows, jacobi_options_t, check, 1, 19, NULL, usage_head, usage_tail);

int jacobi_split_rows(int ny, int ranks, int rank, jacobi_rows_t *rows, char *err, size_t err_bytes)
{
    int interior = ny - 2, low = ranks > 0 ? interior / ranks : 0;
    int num_low = ranks * (low + 1) - interior; /* ranks with `low` rows */

    if (ranks <= 0 || rank < 0 || rank >= ranks) {
        snprintf(err, err_bytes, "rank %d is not one of %d ranks", rank, ranks);
        return -1;
    }
    if (low < 1) {
        snprintf(err, err_bytes,
                 "%d ranks but only %d interior rows (-ny %d): every rank needs at least one "
                 "row; use -ny %d or more, or fewer ranks",
                 ranks, interior, ny, ranks + 2);
        return -1;
    }
    if (rank < num_low) {
        rows->count = low;
        rows->start = 1 + rank * low;
    } else {
        rows->count = low + 1;
        rows->start = 1 + num_low * low + (rank - num_low) * (low + 1);
    }
    return 0;
}

int jacobi_top(int ranks, int rank)
{
    return rank > 0 ? rank - 1 : ranks - 1;
}

int jacobi_bottom(int ranks, int rank)
{
    return (rank + 1) % ranks;
}

int jacobi_test_fault_parse(const char *text, jacobi_test_fault_t *fault, char *err,
                            size_t err_bytes)
{
    static const struct {
        const char *name;
        int solves;
    } solves[] = {{"run", JACOBI_FAULT_IN_RUN},
                  {"reference", JACOBI_FAULT_IN_REFERENCE},
                  {"kernel", JACOBI_FAULT_IN_KERNEL},
                  {"plain", JACOBI_FAULT_IN_PLAIN}};
    static const char *const kinds[] = {"none", "stale", "norm", "stop", "edge", "lag"};
    char solve[16], kind[16];
    int row, col, iteration, used = 0;

    memset(fault, 0, sizeof *fault);
    if (text == NULL || *text == '\0')
        return 0;
    if (sscanf(text, "%15[a-z]:%15[a-z]:%d:%d:%d%n", solve, kind, &row, &col, &iteration, &used) !=
            5 ||
        text[used] != '\0' || row < 0 || col < 0 || iteration < 0)
        goto bad;
    for (size_t i = 0; i < sizeof solves / sizeof solves[0]; i++)
        if (strcmp(solve, solves[i].name) == 0)
            fault->solves = solves[i].solves;
    for (int k = JACOBI_TEST_FAULT_STALE; k <= JACOBI_TEST_FAULT_LAG; k++)
        if (strcmp(kind, kinds[k]) == 0)
            fault->kind = (jacobi_test_fault_kind_t)k;
    if (fault->solves == 0 || fault->kind == JACOBI_TEST_FAULT_NONE)
        goto bad;
    fault->row = row;
    fault->col = col;
    fault->iteration = iteration;
    return 0;
bad:
    memset(fault, 0, sizeof *fault);
    snprintf(
        err, err_bytes,
        "JACOBI_TEST_FAULT='%s': expected <run|reference|kernel|plain>:<stale|norm|stop|edge|lag>:"
        "<row>:<column>:<iteration>",
        text);
    return -1;
}

int jacobi_test_fault_check(const jacobi_test_fault_t *fault, int nx, int ny, char *err,
                            size_t err_bytes)
{
    /* edge and lag name a tile by its row alone; stale and norm a point */
    const int by_row =
        fault->kind == JACOBI_TEST_FAULT_EDGE || fault->kind == JACOBI_TEST_FAULT_LAG;

    if (fault->kind == JACOBI_TEST_FAULT_NONE || fault->kind == JACOBI_TEST_FAULT_STOP ||
        (fault->row >= 1 && fault->row <= ny - 2 &&
         (by_row || (fault->col >= 1 && fault->col <= nx - 2))))
        return 0;
    if (by_row)
        snprintf(err, err_bytes,
                 "JACOBI_TEST_FAULT names row %d: not an interior row of the %d x %d grid (rows 1 "
                 "to %d), so "
                 "the bug would be planted nowhere (the fields are "
                 "<solve>:<kind>:<row>:<column>:<iteration>)",
                 fault->row, nx, ny, ny - 2);
    else
        snprintf(err, err_bytes,
                 "JACOBI_TEST_FAULT names row %d, column %d: not an interior point of the %d x %d "
                 "grid (rows "
                 "1 to %d, columns 1 to %d), so the bug would be planted nowhere (the fields are "
                 "<solve>:<kind>:<row>:<column>:<iteration>)",
                 fault->row, fault->col, nx, ny, ny - 2, nx - 2);
    return -1;
}

int jacobi_options_differ(const jacobi_options_t *a, const jacobi_options_t *b, char *text,
                          size_t bytes)
{
    char one[48], two[48];
#define DIFFER_INT(field, name)                                                                    \
  if (a->field != b->field) {                                                                      \
    snprintf(text, bytes, "%s %d against %s %d", name, (int)a->field, name, (int)b->field);        \
    return 1;                                                                                      \
  }
    DIFFER_INT(nx, "-nx")
    DIFFER_INT(ny, "-ny")
    DIFFER_INT(niter, "-niter")
    DIFFER_INT(nccheck, "-nccheck")
    DIFFER_INT(repeat, "--repeat")
#undef DIFFER_INT
    if (a->variant != b->variant) {
        snprintf(text, bytes, "--variant %s against --variant %s", jacobi_variant_name(a->variant),
                 jacobi_variant_name(b->variant));
        return 1;
    }
    if (a->launch != b->launch) {
        snprintf(text, bytes, "--launch %s against --launch %s", jacobi_launch_name(a->launch),
                 jacobi_launch_name(b->launch));
        return 1;
    }
    if (a->init.kind != b->init.kind || a->init.seed != b->init.seed) {
        snprintf(text, bytes, "--init %s against --init %s",
                 jacobi_init_name(&a->init, one, sizeof one),
                 jacobi_init_name(&b->init, two, sizeof two));
        return 1;
    }
    if (a->cpu_check != b->cpu_check) {
        snprintf(text, bytes, "--cpu-check %s against --cpu-check %s",
                 cpu_check_words[a->cpu_check], cpu_check_words[b->cpu_check]);
        return 1;
    }
    if (a->allow_shared_gpu != b->allow_shared_gpu) {
        snprintf(text, bytes, "%s",
                 a->allow_shared_gpu ? "--allow-shared-gpu against none"
                                     : "no --allow-shared-gpu against it");
        return 1;
    }
    if ((a->trace != NULL) != (b->trace != NULL)) {
        snprintf(text, bytes, "%s", a->trace ? "--trace against none" : "no --trace against one");
        return 1;
    }
    for (int v = 0; v < JACOBI_TUNING_COUNT; v++) {
        jacobi_tuning_var_t var = (jacobi_tuning_var_t)v;
        if (jacobi_tuning_value(&a->tuning, var) != jacobi_tuning_value(&b->tuning, var) ||
            (a->tuning_set >> v & 1u) != (b->tuning_set >> v & 1u)) {
            snprintf(text, bytes, "%s against %s", jacobi_tuning_describe(a, var, one, sizeof one),
                     jacobi_tuning_describe(b, var, two, sizeof two));
            return 1;
        }
    }
    return 0;
}
