/* cg_options.c - the cg program's command line (cg_options.h): getopt_long_only,
 * so that -niter reads as the anchors spell it and --niter as well. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cg_options.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shardtab.h"

static const char usage_text[] =
    "Usage: mpirun -np <ranks> cg [options]\n"
    "A conjugate-gradient solve of A x = b (b: every entry 1), rows split over the ranks by\n"
    "nonzeros, the matrix-vector product reading the direction vector through the node's\n"
    "table, the dot products reduced on the device, the stop decided on the device.\n"
    "  --poisson 2d:N|3d:N   the 5-point (7-point) Poisson matrix of an N^2 (N^3) grid\n"
    "                        (default 2d:1024 on a GPU, 2d:256 on the host backend)\n"
    "  --matrix F.mtx        a MatrixMarket file instead: real, symmetric positive definite\n"
    "  -niter N              at most N iterations (default 10000: the default matrix\n"
    "                        converges well within it)\n"
    "  --tol T               stop once ||r|| <= T ||b|| (default 1e-8; 0: -niter iterations,\n"
    "                        unless the residual reaches rounding first)\n"
    "  --variant V           standard (two reductions an iteration) or pipelined (one,\n"
    "                        overlapped with the product; Ghysels-Vanroose); default standard\n"
    "  --launch L            persistent (one cooperative launch), stream (a launch a\n"
    "                        phase) or auto (persistent where the grid is resident)\n"
    "  --repro               every dot product rounded from its exact sum: the same bits\n"
    "                        at any number of ranks and on every backend\n"
    "  --repeat R            R timed solves, the median reported (default 1)\n"
    "  --cpu-check C         auto, yes or no: rank 0 also solves with the CPU's CG and\n"
    "                        compares (auto: where nonzeros x iterations <= 4e9): the same\n"
    "                        iteration count and x within 1e-6; where neither converged in\n"
    "                        -niter iterations and x has parted from the CPU's, x's true\n"
    "                        residual within 10x of the CPU's after as many (or of the\n"
    "                        solve's own); always, x's true residual within 10x of the\n"
    "                        solve's own, or below 1e-6\n"
    "  --json FILE           the results, the residual history among them, as JSON\n"
    "  --trace FILE          one iteration's phases, as CSV\n"
    "  --floor               also time device copies of the bytes an iteration must move\n"
    "                        (the memory's floor, cg_floor_bytes), beside the solve\n"
    "  --blocks N            the grid: N blocks (default 0: as many as the device keeps\n"
    "                        resident, persistent, or the rows need, stream; a persistent\n"
    "                        grid larger than the resident one is refused)\n"
    "  --allow-shared-gpu    let ranks share a device\n"
    "  -h, --help            this text\n"
    "  --version             the version of cg and of the library\n"
    "Exit status: 0 verified, 1 a verification or runtime failure, 2 bad usage or a bad\n"
    "matrix file.\n";

const char *cg_usage_text(void)
{
    return usage_text;
}

static const char *const variant_names[] = {"standard", "pipelined"};
static const char *const launch_names[] = {"auto", "persistent", "stream"};
static const char *const cpu_check_names[] = {"auto", "yes", "no"};

const char *cg_variant_name(cg_variant_t variant)
{
    return (unsigned)variant < 2 ? variant_names[variant] : "?";
}

const char *cg_launch_name(cg_launch_t launch)
{
    return (unsigned)launch < 3 ? launch_names[launch] : "?";
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

/* a finite decimal number >= 0 and nothing else */
static int parse_tol(const char *text, double *tol, char *err, size_t err_bytes)
{
    char *end = NULL;
    double v = strtod(text, &end);

    /* strtod skips any leading blank: refuse them all, as app_parse_long does */
    if (*text == '\0' || *end != '\0' || !isfinite(v) || v < 0 || isspace((unsigned char)text[0])) {
        snprintf(err, err_bytes, "invalid --tol '%s': expected a number >= 0", text);
        return -1;
    }
    *tol = v;
    return 0;
}

cg_parse_t cg_options_parse(int argc, char **argv, cg_options_t *opts, char *err, size_t err_bytes)
{
    enum {
        OPT_POISSON = 256,
        OPT_MATRIX,
        OPT_NITER,
        OPT_TOL,
        OPT_VARIANT,
        OPT_LAUNCH,
        OPT_REPRO,
        OPT_REPEAT,
        OPT_CPU_CHECK,
        OPT_JSON,
        OPT_TRACE,
        OPT_SHARED,
        OPT_FLOOR,
        OPT_BLOCKS,
        OPT_VERSION
    };
    static const struct option longs[] = {
        {"poisson", required_argument, NULL, OPT_POISSON},
        {"matrix", required_argument, NULL, OPT_MATRIX},
        {"niter", required_argument, NULL, OPT_NITER},
        {"tol", required_argument, NULL, OPT_TOL},
        {"variant", required_argument, NULL, OPT_VARIANT},
        {"launch", required_argument, NULL, OPT_LAUNCH},
        {"repro", no_argument, NULL, OPT_REPRO},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"cpu-check", required_argument, NULL, OPT_CPU_CHECK},
        {"json", required_argument, NULL, OPT_JSON},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"allow-shared-gpu", no_argument, NULL, OPT_SHARED},
        {"floor", no_argument, NULL, OPT_FLOOR},
        {"blocks", required_argument, NULL, OPT_BLOCKS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    int c, rc = 0, poisson_given = 0;
    long value;

    cg_options_default(opts);
    optind = 0; /* 0, not 1: glibc then also forgets a half-read bundle of a previous parse */
    opterr = 0;
    while (rc == 0 && (c = getopt_long_only(argc, argv, ":h", longs, NULL)) != -1) {
        int word;
        switch (c) {
        case OPT_POISSON:
            rc = sparse_poisson_parse(optarg, &opts->poisson, err, err_bytes);
            poisson_given = 1;
            break;
        case OPT_MATRIX:
            if (*optarg == '\0') {
                snprintf(err, err_bytes, "--matrix needs a file name");
                rc = -1;
            }
            opts->matrix = optarg;
            break;
        case OPT_NITER:
            rc = app_parse_long("-niter", optarg, 0, CG_MAX_ITER, &value, err, err_bytes);
            opts->niter = value;
            break;
        case OPT_TOL:
            rc = parse_tol(optarg, &opts->tol, err, err_bytes);
            break;
        case OPT_VARIANT:
            rc = app_parse_word("--variant", optarg, variant_names, 2, &word, err, err_bytes);
            opts->variant = (cg_variant_t)word;
            break;
        case OPT_LAUNCH:
            rc = app_parse_word("--launch", optarg, launch_names, 3, &word, err, err_bytes);
            opts->launch = (cg_launch_t)word;
            break;
        case OPT_REPRO:
            opts->repro = 1;
            break;
        case OPT_REPEAT:
            rc = app_parse_long("--repeat", optarg, 1, CG_MAX_REPEAT, &value, err, err_bytes);
            opts->repeat = (int)value;
            break;
        case OPT_CPU_CHECK:
            rc = app_parse_word("--cpu-check", optarg, cpu_check_names, 3, &word, err, err_bytes);
            opts->cpu_check = (cg_cpu_check_t)word;
            break;
        case OPT_JSON:
        case OPT_TRACE:
            if (*optarg == '\0') {
                snprintf(err, err_bytes, "%s needs a file name",
                         c == OPT_JSON ? "--json" : "--trace");
                rc = -1;
            }
            *(c == OPT_JSON ? &opts->json : &opts->trace) = optarg;
            break;
        case OPT_SHARED:
            opts->allow_shared_gpu = 1;
            break;
        case OPT_FLOOR:
            opts->floor = 1;
            break;
        case OPT_BLOCKS:
            rc = app_parse_long("--blocks", optarg, 0, CG_MAX_BLOCKS, &value, err, err_bytes);
            opts->blocks = (int)value;
            break;
        case 'h':
            return CG_PARSE_HELP;
        case OPT_VERSION:
            return CG_PARSE_VERSION;
        default:
            /* "-": getopt_long_only takes -name for a long option too (cli.h) */
            app_option_error(c, argv[optind - 1], optopt, longs, "-", err, err_bytes);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && optind < argc) {
        snprintf(err, err_bytes, "unexpected argument '%s'", argv[optind]);
        rc = -1;
    }
    if (rc == 0 && opts->matrix && poisson_given) {
        snprintf(err, err_bytes, "--matrix and --poisson both name the matrix: give one");
        rc = -1;
    }
    return rc == 0 ? CG_PARSE_OK : CG_PARSE_ERROR;
}

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
