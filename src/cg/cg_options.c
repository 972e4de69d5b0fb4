/* cg_options.c - the cg program's command line (cg_options.h): its table of
 * options (opt_table.h), its defaults and its checks across options. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cg_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_launch.h" /* the launch modes: their names and phrases */
#include "cli.h"
#include "opt_table.h"
#include "shardtab.h"

static const char usage_head[] =
    "Usage: mpirun -np <ranks> cg [options]\n"
    "A conjugate-gradient solve of A x = b (b: every entry 1), rows split over the ranks by\n"
    "nonzeros, the matrix-vector product reading the direction vector through the node's\n"
    "table, the dot products reduced on the device, the stop decided on the device.\n";

static const char usage_tail[] =
    "Exit status: 0 verified, 1 a verification or runtime failure, 2 bad usage or a bad\n"
    "matrix file.\n";

static const char *const variant_names[] = {"standard", "pipelined"};
static const char *const cpu_check_names[] = {"auto", "yes", "no"};

const char *cg_variant_name(cg_variant_t variant)
{
    return (unsigned)variant < 2 ? variant_names[variant] : "?";
}

const char *cg_launch_name(cg_launch_t launch)
{
    const cg_launch_mode_t *mode = cg_launch_mode(launch);
    return mode ? mode->name : "?";
}

static const char *cpu_check_name(cg_cpu_check_t check)
{
    return (unsigned)check < 3 ? cpu_check_names[check] : "?";
}

void cg_options_default(cg_options_t *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->poisson.dim = 2;
    opts->poisson.n =
        shardtab_backend() == SHARDTAB_BACKEND_HOST ? CG_DEFAULT_GRID_HOST : CG_DEFAULT_GRID_GPU;
    opts->niter = CG_DEFAULT_NITER;
    opts->tol = 1e-8;
    opts->variant = CG_STANDARD;
    opts->launch = CG_LAUNCH_AUTO;
    opts->repeat = 1;
    opts->cpu_check = CG_CPU_CHECK_AUTO;
}

app_opt_parse_t cg_options_parse(int argc, char **argv, cg_options_t *opts, char *err,
                                 size_t err_bytes)
{
    cg_options_default(opts);
    return app_opt_parse(&cg_option_table, argc, argv, opts, err, err_bytes);
}

/* --poisson's hook: the matrix, and that it was named (--matrix excludes it) */
static int parse_poisson(const char *text, void *opts, char *err, size_t err_bytes)
{
    cg_options_t *o = opts;
    o->poisson_given = 1;
    return sparse_poisson_parse(text, &o->poisson, err, err_bytes);
}

static const char *launch_word(int index)
{
    return cg_launch_name((cg_launch_t)index);
}

static const char *launch_help(int index)
{
    return cg_launch_help((cg_launch_t)index);
}

/* Across options: one matrix. */
static int check(const void *options, char *err, size_t err_bytes)
{
    const cg_options_t *opts = options;

    if (!opts->matrix || !opts->poisson_given)
        return 0;
    snprintf(err, err_bytes, "--matrix and --poisson both name the matrix: give one");
    return -1;
}

#define FIELD(member) APP_OPT_FIELD(cg_options_t, member)
_Static_assert(sizeof(cg_launch_t) == sizeof(int) && sizeof(cg_variant_t) == sizeof(int) &&
                   sizeof(cg_cpu_check_t) == sizeof(int),
               "the words' indices land in int-sized fields");

/* The command line, in the order --help lists it. */
static const app_opt_t option_rows[] = {
    APP_OPT_CUSTOM_ROW("poisson", 0, "2d:N|3d:N", parse_poisson,
                       "the 5-point (7-point) Poisson matrix of an N^2 (N^3) grid\n"
                       "(default 2d:1024 on a GPU, 2d:256 on the host backend)"),
    APP_OPT_TEXT_ROW("matrix", 0, NULL, "F.mtx", FIELD(matrix),
                     "a MatrixMarket file instead: real, symmetric positive definite"),
    APP_OPT_INT_ROW("niter", 0, "-niter", "N", FIELD(niter), 0, CG_MAX_ITER,
                    "at most N iterations (default 10000: the default matrix\n"
                    "converges well within it)"),
    APP_OPT_DOUBLE_ROW("tol", "T", FIELD(tol), 0,
                       "stop once ||r|| <= T ||b|| (default 1e-8; 0: -niter iterations,\n"
                       "unless the residual reaches rounding first)"),
    APP_OPT_WORD_ROW("variant", NULL, "V", FIELD(variant), variant_names, 2,
                     "standard (two reductions an iteration) or pipelined (one,\n"
                     "overlapped with the product; Ghysels-Vanroose); default standard"),
    /* the launch modes' names and phrases: the rows of cg_launch.c */
    APP_OPT_NAMED_ROW("launch", "L", FIELD(launch), launch_word, launch_help, CG_LAUNCH_COUNT,
                      "how the solve launches (default auto):"),
    APP_OPT_FLAG_ROW("repro", 0, FIELD(repro),
                     "every dot product rounded from its exact sum: the same bits\n"
                     "at any number of ranks and on every backend"),
    APP_OPT_INT_ROW("repeat", 0, NULL, "R", FIELD(repeat), 1, CG_MAX_REPEAT,
                    "R timed solves, the median reported (default 1)"),
    APP_OPT_WORD_ROW("cpu-check", NULL, "C", FIELD(cpu_check), cpu_check_names, 3,
                     "auto, yes or no: rank 0 also solves with the CPU's CG and\n"
                     "compares (auto: where nonzeros x iterations <= 4e9): the same\n"
                     "iteration count and x within 1e-6; where neither converged in\n"
                     "-niter iterations and x has parted from the CPU's, x's true\n"
                     "residual within 10x of the CPU's after as many (or of the\n"
                     "solve's own); always, x's true residual within 10x of the\n"
                     "solve's own, or below 1e-6"),
    APP_OPT_TEXT_ROW("json", 0, NULL, "FILE", FIELD(json),
                     "the results, the residual history among them, as JSON"),
    APP_OPT_TEXT_ROW("trace", 0, NULL, "FILE", FIELD(trace), "one iteration's phases, as CSV"),
    APP_OPT_FLAG_ROW("floor", 0, FIELD(floor),
                     "also time device copies of the bytes an iteration must move\n"
                     "(the memory's floor, cg_floor_bytes), beside the solve"),
    APP_OPT_INT_ROW("blocks", 0, NULL, "N", FIELD(blocks), 0, CG_MAX_BLOCKS,
                    "the grid: N blocks (default 0: as many as the device keeps\n"
                    "resident, persistent, or the rows need, stream; a persistent\n"
                    "grid larger than the resident one is refused)"),
    APP_OPT_FLAG_ROW("allow-shared-gpu", 0, FIELD(allow_shared_gpu), "let ranks share a device"),
    APP_OPT_HELP_ROW("this text"),
    APP_OPT_VERSION_ROW("the version of cg and of the library"),
};

/* getopt_long_only: -niter as the anchors spell it, --niter as well */
const app_opt_table_t cg_option_table =
    APP_OPT_TABLE(option_rows, cg_options_t, check, 1, 24, NULL, usage_head, usage_tail);

int cg_options_differ(const cg_options_t *a, const cg_options_t *b, char *text, size_t bytes)
{
    if ((a->matrix == NULL) != (b->matrix == NULL) ||
        (a->matrix && strcmp(a->matrix, b->matrix) != 0)) {
        snprintf(text, bytes, "--matrix %s against --matrix %s", a->matrix ? a->matrix : "(none)",
                 b->matrix ? b->matrix : "(none)");
        return 1;
    }
    if (a->poisson.dim != b->poisson.dim || a->poisson.n != b->poisson.n) {
        snprintf(text, bytes, "--poisson %dd:%lld against --poisson %dd:%lld", a->poisson.dim,
                 (long long)a->poisson.n, b->poisson.dim, (long long)b->poisson.n);
        return 1;
    }
    if (a->niter != b->niter) {
        snprintf(text, bytes, "-niter %lld against -niter %lld", (long long)a->niter,
                 (long long)b->niter);
        return 1;
    }
    if (memcmp(&a->tol, &b->tol, sizeof a->tol) != 0) {
        snprintf(text, bytes, "--tol %.17g against --tol %.17g", a->tol, b->tol);
        return 1;
    }
    if (a->variant != b->variant || a->launch != b->launch || a->repro != b->repro ||
        a->repeat != b->repeat) {
        snprintf(text, bytes,
                 "--variant %s --launch %s%s --repeat %d against --variant %s --launch %s%s "
                 "--repeat %d",
                 cg_variant_name(a->variant), cg_launch_name(a->launch), a->repro ? " --repro" : "",
                 a->repeat, cg_variant_name(b->variant), cg_launch_name(b->launch),
                 b->repro ? " --repro" : "", b->repeat);
        return 1;
    }
    if (a->blocks != b->blocks) {
        snprintf(text, bytes, "--blocks %d against --blocks %d", a->blocks, b->blocks);
        return 1;
    }
    if (a->cpu_check != b->cpu_check) {
        snprintf(text, bytes, "--cpu-check %s against --cpu-check %s", cpu_check_name(a->cpu_check),
                 cpu_check_name(b->cpu_check));
        return 1;
    }
    /* the files: only rank 0 writes them, but a trace is one more solve on every rank,
     * and every rank must know whether the results are kept (N8) */
    if ((a->json != NULL) != (b->json != NULL) || (a->trace != NULL) != (b->trace != NULL)) {
        const int json = (a->json != NULL) != (b->json != NULL);
        const char *flag = json ? "--json" : "--trace";
        const int given = json ? a->json != NULL : a->trace != NULL;
        snprintf(text, bytes, "%s%s against %s%s", given ? "" : "no ", flag, given ? "no " : "",
                 flag);
        return 1;
    }
    if (a->allow_shared_gpu != b->allow_shared_gpu || a->floor != b->floor) {
        const int shared = a->allow_shared_gpu != b->allow_shared_gpu;
        const char *flag = shared ? "--allow-shared-gpu" : "--floor";
        const int given = shared ? a->allow_shared_gpu : a->floor;
        snprintf(text, bytes, "%s%s against %s%s", given ? "" : "no ", flag, given ? "no " : "",
                 flag);
        return 1;
    }
    return 0;
}

int cg_cpu_check_wanted(const cg_options_t *opts, int64_t nnz)
{
    if (opts->cpu_check != CG_CPU_CHECK_AUTO)
        return opts->cpu_check == CG_CPU_CHECK_YES;
    return (double)nnz * (double)(opts->niter + 1) <= CG_CPU_CHECK_AUTO_WORK;
}

int64_t cg_floor_bytes(cg_variant_t variant, int fused, int64_t rows, int64_t nnz)
{
    /* standard: the product reads p and writes q (16 a row), x and r read
     * x, p, q, r and write x, r (48), p reads r, p and writes p (24); fused,
     * the product reads r and the last p and writes q and p (32), x and r
     * as before (48); pipelined: the product 16, the updates read z, q, s,
     * w, p, r, x and write z, s, p, x, r, w (104) */
    const int64_t per_row = variant == CG_PIPELINED ? 120 : fused ? 80 : 88;
    return 12 * nnz + 8 * (rows + 1) + per_row * rows;
}
