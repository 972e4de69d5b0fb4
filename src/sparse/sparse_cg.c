/* sparse_cg.c - the reference conjugate gradient: the textbook loop, nothing
 * reordered, so that a reader can check it line by line against the paper. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "sparse_cg.h"
#include "sparse_error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double dot(int64_t n, const double *u, const double *v)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++)
        sum += u[i] * v[i];
    return sum;
}

int sparse_cg_solve(const sparse_csr_t *a, const double *b, double tol, int64_t niter, double *x,
                    double *history, sparse_cg_result_t *result, char *err, size_t errlen)
{
    const int64_t n = a->nrows;
    memset(result, 0, sizeof *result);
    if (!(tol >= 0) || niter < 0) {
        sparse_set_error(err, errlen, "cg: tol %g must be >= 0 and niter %lld >= 0", tol,
                         (long long)niter);
        return -1;
    }
    const size_t bytes = (size_t)(n ? n : 1) * sizeof(double);
    double *r = malloc(bytes), *p = malloc(bytes), *ap = malloc(bytes);
    if (!r || !p || !ap) {
        free(r);
        free(p);
        free(ap);
        sparse_set_error(err, errlen, "cg: out of memory for 3 vectors of %lld doubles",
                         (long long)n);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        x[i] = 0.0;
        r[i] = b[i];
        p[i] = b[i];
    }
    const double bnorm = sqrt(dot(n, b, b));
    double rr = dot(n, r, r);
    /* b = 0: r = 0 too, and x = 0 the solution */
    double relative = bnorm > 0 ? sqrt(rr) / bnorm : 0.0;
    int status = 0;
    int64_t k = 0;
    if (history)
        history[0] = relative;
    while (k < niter && relative > tol) {
        sparse_csr_spmv(a, p, ap);
        const double pap = dot(n, p, ap);
        if (!(pap > 0)) {
            sparse_set_error(
                err, errlen,
                "cg: (p, A p) = %g at iteration %lld: the matrix is not positive definite", pap,
                (long long)k + 1);
            status = -1;
            break;
        }
        const double alpha = rr / pap;
        for (int64_t i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        const double rr_new = dot(n, r, r);
        const double beta = rr_new / rr;
        for (int64_t i = 0; i < n; i++)
            p[i] = r[i] + beta * p[i];
        rr = rr_new;
        relative = sqrt(rr) / bnorm;
        k++;
        if (history)
            history[k] = relative;
    }
    result->iterations = k;
    result->relative_residual = relative;
    result->converged = status == 0 && relative <= tol;
    free(r);
    free(p);
    free(ap);
    return status;
}
