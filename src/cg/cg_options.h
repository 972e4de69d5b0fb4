/* cg_options.h - the cg program's command line: pure C, no MPI and no
 * library, so that every rank reaches the same verdict alone and the unit
 * tests can pin it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_OPTIONS_H
#define CG_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "opt_table.h" /* the parse's verdicts */

#include "cg.h" /* cg_variant_t, cg_launch_t */
#include "sparse_poisson.h"

#define CG_MAX_ITER 100000000
#define CG_MAX_REPEAT 100
#define CG_MAX_BLOCKS 1048576

/* Whether rank 0 also solves the system with the CPU's plain CG. */
typedef enum cg_cpu_check {
    CG_CPU_CHECK_AUTO = 0, /* where the work is small enough (cg_cpu_check_wanted) */
    CG_CPU_CHECK_YES,
    CG_CPU_CHECK_NO
} cg_cpu_check_t;

typedef struct cg_options {
    const char *matrix;       /* a MatrixMarket file, or NULL: the Poisson matrix */
    sparse_poisson_t poisson; /* --poisson (default 2d:1024) */
    int64_t niter;            /* most iterations */
    double tol;               /* relative residual to stop at; 0: exactly niter iterations */
    cg_variant_t variant;
    cg_launch_t launch;
    int repro;  /* dot products rounded from exact sums */
    int repeat; /* timed solves; the median is reported */
    cg_cpu_check_t cpu_check;
    const char *json;  /* NULL: none */
    const char *trace; /* NULL: none */
    int allow_shared_gpu;
    int floor;         /* also time device copies of the bytes an iteration moves at least */
    int blocks;        /* the grid's blocks; 0: the launch mode's own choice (cg_grid) */
    int poisson_given; /* --poisson was on the command line (--matrix excludes it) */
} cg_options_t;

/* The defaults: a Poisson matrix that solves in seconds on the backend (a 2D grid of
 * CG_DEFAULT_GRID_GPU^2 points on a GPU, CG_DEFAULT_GRID_HOST^2 on the host backend),
 * to --tol 1e-8 in at most CG_DEFAULT_NITER iterations: the default converges. */
#define CG_DEFAULT_GRID_GPU 1024
#define CG_DEFAULT_GRID_HOST 256
#define CG_DEFAULT_NITER 10000

void cg_options_default(cg_options_t *opts);
app_opt_parse_t cg_options_parse(int argc, char **argv, cg_options_t *opts, char *err,
                                 size_t err_bytes);
/* The first option in which two ranks' parses differ, as "-niter 10 against
 * -niter 20" into text; 0 when they agree in everything every rank must
 * share (not the result files' names: rank 0 writes them). */
int cg_options_differ(const cg_options_t *a, const cg_options_t *b, char *text, size_t bytes);
const char *cg_variant_name(cg_variant_t variant);
const char *cg_launch_name(cg_launch_t launch);
/* The command line's table (opt_table.h): the parse, --help and the tests' cases. */
extern const app_opt_table_t cg_option_table;
/* --cpu-check auto: the CPU's CG runs where nonzeros x iterations are at most
 * this (a few seconds of one core). */
#define CG_CPU_CHECK_AUTO_WORK 4000000000.0
int cg_cpu_check_wanted(const cg_options_t *opts, int64_t nnz);

/* The bytes one iteration of a rank's rows moves at least: the matrix once
 * (a 32-bit column and a value a nonzero, a row pointer a row) and the
 * vectors as the variant's kernels read and write them, each once, the
 * product's gathers of remote columns not counted; fused: the standard
 * variant's direction made inside the product (cg.h). */
int64_t cg_floor_bytes(cg_variant_t variant, int fused, int64_t rows, int64_t nnz);

#endif /* CG_OPTIONS_H */
