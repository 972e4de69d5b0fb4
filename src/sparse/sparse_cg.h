/* sparse_cg.h - the plain CPU conjugate gradient in double: the reference
 * that the cg program's GPU solver is checked against. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPARSE_CG_H
#define SPARSE_CG_H

#include <stddef.h>
#include <stdint.h>

#include "sparse_csr.h"

typedef struct sparse_cg_result {
    int64_t iterations;       /* iterations run, <= niter */
    int converged;            /* the last relative residual <= tol */
    double relative_residual; /* the last ||r|| / ||b||, r the recursive residual */
} sparse_cg_result_t;

/* Solves A x = b (A symmetric positive definite) by Hestenes-Stiefel CG from
 * x0 = 0: r = b, p = r; each iteration alpha = (r, r) / (p, A p),
 * x += alpha p, r -= alpha A p, beta = (r, r)_new / (r, r), p = r + beta p.
 * Dot products and rows summed in index order, one accumulator.
 *
 * Stops before an iteration where ||r|| <= tol ||b||, or after niter. With
 * tol 0 that is exactly niter iterations, unless r becomes exactly 0 (x is
 * then exact, and one more step would divide 0 by 0). b = 0 gives x = 0 in no
 * iteration, relative residual 0.
 *
 * history (NULL, or niter + 1 doubles): history[k] = ||r_k|| / ||b|| for
 * k = 0..iterations. x: nrows doubles, overwritten. 0, or -1 with a message
 * in err: tol negative or not a number, niter < 0, no memory, or (p, A p)
 * <= 0 (the matrix is not positive definite), x then the last iterate. */
int sparse_cg_solve(const sparse_csr_t *a, const double *b, double tol, int64_t niter, double *x,
                    double *history, sparse_cg_result_t *result, char *err, size_t errlen);

#endif /* SPARSE_CG_H */
