/* jacobi_options.h - the jacobi program's command line, its tuning variables
 * and its row split: pure C, no MPI, so that every rank reaches the same
 * verdict alone and the unit tests can pin them. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_OPTIONS_H
#define JACOBI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "opt_table.h" /* the parse's verdicts */

#include "jacobi_launch.h" /* jacobi_launch_t: --launch, one of the modes' table */
#include "jacobi_sweep.h"  /* jacobi_tuning_t: the values the kernels' plans take */

typedef enum jacobi_variant {
    JACOBI_TABLE = 0, /* ghost rows through the table, device signals, device stop */
    JACOBI_HOST_SYNC, /* the same stores, ordered by a host sync + MPI_Barrier per iteration */
    JACOBI_MPI,       /* ghost rows by MPI messages (host-staged unless MPI is GPU-aware) */
    JACOBI_VARIANT_COUNT
} jacobi_variant_t;

/* The starting state of the interior: zero (the anchors' state: information
 * spreads from the boundary columns one column per iteration, so most of a
 * large grid stays zero on both sides of any comparison) or every point drawn
 * from a seeded generator (every point live from the first iteration). */
typedef enum jacobi_init_kind { JACOBI_INIT_ZERO = 0, JACOBI_INIT_RANDOM } jacobi_init_kind_t;

typedef struct jacobi_init {
    jacobi_init_kind_t kind;
    uint64_t seed; /* random only */
} jacobi_init_t;

/* Whether rank 0 also runs the whole solve as a plain CPU loop. */
typedef enum jacobi_cpu_check {
    JACOBI_CPU_CHECK_AUTO = 0, /* where the work is small enough (jacobi_verify.c) */
    JACOBI_CPU_CHECK_YES,
    JACOBI_CPU_CHECK_NO
} jacobi_cpu_check_t;

#define JACOBI_MAX_SIDE (1 << 20)
#define JACOBI_MAX_ITER 10000000
#define JACOBI_MAX_REPEAT 100

typedef struct jacobi_options {
    int nx, ny;             /* grid points, boundaries included */
    int niter;              /* most iterations per solve */
    int nccheck;            /* the norm every nccheck-th iteration */
    int repeat;             /* timed solves; the median is reported */
    jacobi_launch_t launch; /* how the steps are launched; auto: by measurement (jacobi_solve.c) */
    jacobi_variant_t variant;
    jacobi_init_t init; /* the interior's starting state */
    jacobi_cpu_check_t cpu_check;
    const char *json;  /* NULL: no JSON */
    const char *trace; /* NULL: no trace; else a traced solve's per-iteration CSV */
    int allow_shared_gpu;
    jacobi_tuning_t tuning; /* the tuning variables (jacobi_tuning_from_env), checked */
    unsigned tuning_set;    /* bit v: variable v was set (else its default) */
} jacobi_options_t;

/* The default grid, by backend: the anchors' 16384^2 on a GPU (2 GiB a grid), and a
 * 1024^2 grid on the host backend, which solves in seconds there. */
#define JACOBI_DEFAULT_SIDE_GPU 16384
#define JACOBI_DEFAULT_SIDE_HOST 1024

void jacobi_options_default(jacobi_options_t *opts);
/* The first option in which two ranks' parses differ, into text as "-nx 8192
 * against -nx 1024" (a's, then b's); 0 when they agree in everything every
 * rank must share (not --json's and --trace's file names: rank 0 writes them). */
int jacobi_options_differ(const jacobi_options_t *a, const jacobi_options_t *b, char *text,
                          size_t bytes);
app_opt_parse_t jacobi_options_parse(int argc, char **argv, jacobi_options_t *opts, char *err,
                                     size_t err_bytes);
const char *jacobi_variant_name(jacobi_variant_t variant);
/* "zero" or "random:SEED" into text; returns text. */
const char *jacobi_init_name(const jacobi_init_t *init, char *text, size_t bytes);
/* The command line's table (opt_table.h): the parse, --help and the tests' cases. */
extern const app_opt_table_t jacobi_option_table;

/* The tuning variables, environment variables of the measurements
 * (docs/performance.md): every rank reads and checks them, as it parses its
 * command line, and the program records them in its header and JSON. */
typedef enum jacobi_tuning_var {
    JACOBI_TUNE_MIN_STRIP_ROWS = 0, /* JACOBI_MIN_STRIP_ROWS: 1 to 64, default 4 */
    JACOBI_TUNE_VEC4,               /* JACOBI_VEC4: 0 or 1, default 1 */
    JACOBI_TUNE_BLOCKS_PER_SM,      /* JACOBI_BLOCKS_PER_SM: 1 to 16, default the kernel's */
    JACOBI_TUNE_ROWS_IN_FLIGHT,     /* JACOBI_ROWS_IN_FLIGHT: 1, 4 or 8, default the kernel's */
    JACOBI_TUNE_NORM_BLOCK,         /* JACOBI_NORM_BLOCK: 0 or 1, default 1 */
    JACOBI_TUNE_ONCHIP_ROWS,        /* JACOBI_ONCHIP_ROWS: 2, 4, 8 or 16, default the plan's */
    JACOBI_TUNE_TEMPORAL_DEPTH,     /* JACOBI_TEMPORAL_DEPTH: 1, 3, 5 or 7, default 7 */
    JACOBI_TUNE_TEMPORAL_ROWS,      /* JACOBI_TEMPORAL_ROWS: 4 to 4096, default the plan's */
    JACOBI_TUNING_COUNT
} jacobi_tuning_var_t;

/* "JACOBI_VEC4", or "?" for no variable. */
const char *jacobi_tuning_name(jacobi_tuning_var_t var);
/* Variable var's value in t; 0 for BLOCKS_PER_SM, ROWS_IN_FLIGHT and
 * ONCHIP_ROWS means "auto": each kernel's (or plan's) own. */
int jacobi_tuning_value(const jacobi_tuning_t *t, jacobi_tuning_var_t var);
/* Is variable var "auto" in t (each kernel's own value)? */
int jacobi_tuning_is_auto(const jacobi_tuning_t *t, jacobi_tuning_var_t var);
/* Sets opts->tuning and opts->tuning_set from each variable's text
 * (text[var]; NULL or "": unset, its default). 0, or -1 with a message naming
 * the first variable that is malformed or out of range (opts->tuning then
 * back to the defaults). */
int jacobi_tuning_parse(jacobi_options_t *opts, const char *const text[JACOBI_TUNING_COUNT],
                        char *err, size_t err_bytes);
/* The same, each variable read from the environment. */
int jacobi_tuning_from_env(jacobi_options_t *opts, char *err, size_t err_bytes);
/* "JACOBI_VEC4=1 (default)", "JACOBI_ROWS_IN_FLIGHT=8 (set)",
 * "JACOBI_BLOCKS_PER_SM=auto (default)" into text; returns text. */
const char *jacobi_tuning_describe(const jacobi_options_t *opts, jacobi_tuning_var_t var,
                                   char *text, size_t bytes);

/* The anchors' split of the ny - 2 interior rows over `ranks`: the first ranks
 * get (ny-2)/ranks rows, the last (ny-2) mod ranks ranks one more. start is the
 * global index of the first row (1-based: row 0 is the top boundary). */
typedef struct jacobi_rows {
    int start, count;
} jacobi_rows_t;

/* 0, or -1 with a message when a rank would get no row. */
int jacobi_split_rows(int ny, int ranks, int rank, jacobi_rows_t *rows, char *err,
                      size_t err_bytes);
/* The periodic ring of the anchors: the rank above (top) and below (bottom). */
int jacobi_top(int ranks, int rank);
int jacobi_bottom(int ranks, int rank);

/* A planted bug for the tests (JACOBI_TEST_FAULT=<solve>:<kind>:<row>:<col>:<iteration>),
 * to prove that each check can fail. Never set by users. */
typedef enum jacobi_fault_solve {
    JACOBI_FAULT_IN_RUN = 1,       /* the distributed solve */
    JACOBI_FAULT_IN_REFERENCE = 2, /* the optimised kernel's 1-GPU reference */
    JACOBI_FAULT_IN_KERNEL = 3,    /* both: a bug of the optimised kernel itself */
    JACOBI_FAULT_IN_PLAIN = 4      /* the independent reference */
} jacobi_fault_solve_t;

typedef enum jacobi_test_fault_kind {
    JACOBI_TEST_FAULT_NONE = 0,
    JACOBI_TEST_FAULT_STALE, /* the point keeps its old value at that iteration */
    JACOBI_TEST_FAULT_NORM,  /* the point's residue is counted twice in that iteration's norm */
    JACOBI_TEST_FAULT_STOP,  /* the solve stops after that iteration (row and column unused) */
    JACOBI_TEST_FAULT_EDGE,  /* on chip: the tile holding the row takes its upper neighbour's
                                edge row from the other time's words, their time unchecked
                                (column unused) */
    JACOBI_TEST_FAULT_LAG    /* on chip: the tile holding the row runs one iteration past
                                the stop (column and iteration unused) */
} jacobi_test_fault_kind_t;

typedef struct jacobi_test_fault {
    int solves; /* jacobi_fault_solve_t bits */
    jacobi_test_fault_kind_t kind;
    int row, col;  /* global: row 1 is the first interior row */
    int iteration; /* counted from the solve's start */
} jacobi_test_fault_t;

/* 0, or -1 with a message; NULL or "" is no fault. */
int jacobi_test_fault_parse(const char *text, jacobi_test_fault_t *fault, char *err,
                            size_t err_bytes);
/* 0, or -1 with a message where the fault names a place outside the nx x ny
 * grid's interior (stale and norm a point, edge and lag a row, stop none): a
 * bug planted nowhere would make a test pass for the wrong reason. */
int jacobi_test_fault_check(const jacobi_test_fault_t *fault, int nx, int ny, char *err,
                            size_t err_bytes);

#endif /* JACOBI_OPTIONS_H */
