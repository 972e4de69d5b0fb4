/* cg_verify.h - the cg program's checks, on rank 0: x gathered, its true
 * residual, the CPU's plain CG where wanted, and the verdict; and the hash
 * that fingerprints x and the residual history (and the matrix every rank
 * read). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_VERIFY_H
#define CG_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "cg_options.h"
#include "cg_solver.h"
#include "shardtab.h"
#include "sparse_csr.h"

/* The largest difference, relative to the largest entry of the CPU's x,
 * that the check accepts between the device's x and the CPU's: both are CG
 * in double, rounded differently (fma, summation order), and CG carries a
 * rounding difference along, so this is loose against eps and tight
 * against any real bug (a wrong row, a stale value, a lost update). */
#define CG_VERIFY_TOL 1e-6
#define CG_TRUE_RESIDUAL_FLOOR 1e-6
#define CG_STOP_ROUNDING 1e-12 /* a stop below this relative residual is rounding's */

typedef struct cg_verdict {
    int verified;
    int cpu_checked;
    int64_t cpu_iterations;
    double cpu_relative;
    double max_diff;      /* max |x - x_cpu| / max |x_cpu| */
    double true_relative; /* ||b - A x|| / ||b||, x the device's */
    double cpu_true;      /* the same of the CPU's x */
    int unconverged;      /* both ran -niter without converging */
    int parted;           /* ... and x parted from the CPU's: judged by residuals (N6) */
    uint64_t x_print, history_print;
    char why[512];
} cg_verdict_t;

/* FNV-1a over n bytes, from h (CG_FNV_BASIS to start). */
#define CG_FNV_BASIS 0xcbf29ce484222325ull
uint64_t cg_fnv1a(uint64_t h, const void *bytes, size_t n);

/* The whole x on rank 0 (NULL elsewhere). Collective. */
shardtab_status_t cg_verify_gather_x(const cg_solver_t *s, int64_t nrows, double **whole);

/* Rank 0: the true residual, the fingerprints, and the CPU's CG where
 * wanted, into v (v->verified, and v->why where not). */
shardtab_status_t cg_verify_check(const cg_options_t *opts, const sparse_csr_t *a, const double *x,
                                  const cg_outcome_t *run, cg_verdict_t *v);

/* A solve that stopped for a reason of the matrix or the device, as the
 * error it is: not positive definite, out of double's range (bad input), or
 * a device wait that gave up; SHARDTAB_SUCCESS for the rest. */
shardtab_status_t cg_verify_outcome(const cg_outcome_t *run);

#endif /* CG_VERIFY_H */
