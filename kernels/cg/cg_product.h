/* cg_product.h - the matrix-vector product of cg's solve (cg_body.h): a
 * block's rows of y = A x through the node's table (spmv_body.h), with the
 * block's part of a dot product beside it; and the standard variant's fused
 * product, which makes the direction p at every column. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_PRODUCT_H
#define CG_PRODUCT_H

#include "cg_reduce.h"
#include "spmv_body.h"

/* ---- the product: every block, its rows ------------------------------------------- */

/* The product of this block's rows with the vector of table x: y = A x, and
 * with v: the block's part of (v, y) as reduction r. */
CG_DEVFN void cg_product(const cg_args_t *g, int b, double *const *x, double *y, const double *v,
                         uint64_t r, int64_t *block_limbs)
{
    spmv_rows_t m = g->a;
    cg_dots_t d;

    m.x = x;
    if (v)
        cg_reduction_begin(g, &d, b, r, block_limbs);
    CG_ROWS(g, b, i, live)
    {
        double yi = 0.0, vi = 0.0;
        if (live) {
            yi = spmv_row(&m, i);
            y[i] = yi;
            if (v)
                vi = v[i];
        }
        if (v)
            cg_dots_add(&d, 0, vi, yi, i, g->repro, block_limbs);
    }
    if (v)
        cg_block_deliver(g, &d, 1, b, r, block_limbs);
}

/* Standard, fused: the product with p = r + beta p_old made at every column
 * (spmv_row_axpy), row i's p stored in the other buffer of the pair, and the
 * block's part of (p, q) as reduction r. */
CG_DEVFN void cg_product_fused(const cg_args_t *g, const cg_state_t *st, int b,
                               int64_t *block_limbs)
{
    const double beta = st->beta;
    const uint64_t k = st->iteration, red = st->reductions;
    const double *CG_RESTRICT p_old = g->p_pair[k & 1], *CG_RESTRICT r = g->r;
    double *CG_RESTRICT p_new = g->p_pair[(k + 1) & 1], *CG_RESTRICT q = g->q;
    cg_dots_t d;

    cg_reduction_begin(g, &d, b, red, block_limbs);
    CG_ROWS(g, b, i, live)
    {
        double yi = 0.0, pi = 0.0;
        if (live) {
            yi = spmv_row_axpy(&g->a, i, r, p_old, beta);
            pi = fma(beta, p_old[i], r[i]);
            q[i] = yi;
            p_new[i] = pi;
        }
        cg_dots_add(&d, 0, pi, yi, i, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, 1, b, red, block_limbs);
}

#endif /* CG_PRODUCT_H */
