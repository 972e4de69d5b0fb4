/* cg_update.h - the vector updates of cg's solve (cg_body.h): the
 * direction, the iterate and the residual (standard), every vector of the
 * pipelined recurrence, and the start's dot products, each with the block's
 * part of the next reduction. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_UPDATE_H
#define CG_UPDATE_H

#include "cg_reduce.h"

/* ---- the updates: every block, its rows ------------------------------------------- */

/* The direction of iteration st->iteration, after its product: fused, the
 * pair's newer buffer. */
CG_DEVFN const double *cg_direction(const cg_args_t *g, const cg_state_t *st)
{
    return g->fused ? g->p_pair[(st->iteration + 1) & 1] : g->p;
}

/* Standard, the direction: p = r + beta p. */
CG_DEVFN void cg_update_p(const cg_args_t *g, const cg_state_t *st, int b)
{
    const double beta = st->beta;
    double *CG_RESTRICT p = g->p;
    const double *CG_RESTRICT r = g->r;
    CG_ROWS_STREAMED(g, b, i, live)
    if (live)
        p[i] = fma(beta, p[i], r[i]);
}

/* Standard, the iterate and residual: x += alpha p, r -= alpha q, and the
 * block's part of (r, r) as reduction r. */
CG_DEVFN void cg_update_xr(const cg_args_t *g, const cg_state_t *st, int b, int64_t *block_limbs)
{
    const double alpha = st->alpha;
    const uint64_t red = st->reductions;
    double *CG_RESTRICT x = g->x, *CG_RESTRICT r = g->r;
    const double *CG_RESTRICT p = cg_direction(g, st), *CG_RESTRICT q = g->q;
    cg_dots_t d;

    cg_reduction_begin(g, &d, b, red, block_limbs);
    CG_ROWS_STREAMED(g, b, i, live)
    {
        double ri = 0.0;
        if (live) {
            x[i] = fma(alpha, p[i], x[i]);
            ri = fma(-alpha, q[i], r[i]);
            r[i] = ri;
        }
        cg_dots_add(&d, 0, ri, ri, i, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, 1, b, red, block_limbs);
}

/* The start: the block's part of (r, r) (standard), or of (r, r) and (w, r),
 * w the shard of iteration 0 (pipelined), as reduction 0. */
CG_DEVFN void cg_start_dots(const cg_args_t *g, int b, int count, const double *w,
                            int64_t *block_limbs)
{
    cg_dots_t d;

    cg_reduction_begin(g, &d, b, 0, block_limbs);
    CG_ROWS(g, b, i, live)
    {
        const double ri = live ? g->r[i] : 0.0;
        cg_dots_add(&d, 0, ri, ri, i, g->repro, block_limbs);
        if (count == 2)
            cg_dots_add(&d, 1, live ? w[i] : 0.0, ri, i, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, count, b, 0, block_limbs);
}

/* Pipelined, every vector of iteration k = st->iteration, then the block's
 * parts of gamma and delta of k + 1 as the next reduction. */
CG_DEVFN void cg_update_pipelined(const cg_args_t *g, const cg_state_t *st, int b,
                                  int64_t *block_limbs)
{
    const double alpha = st->alpha, beta = st->beta;
    const uint64_t k = st->iteration, red = st->reductions;
    const double *CG_RESTRICT w = g->w[k & 1], *CG_RESTRICT q = g->q;
    double *CG_RESTRICT w_next = g->w[(k + 1) & 1];
    double *CG_RESTRICT z = g->z, *CG_RESTRICT s = g->s, *CG_RESTRICT p = g->p;
    double *CG_RESTRICT x = g->x, *CG_RESTRICT r = g->r;
    cg_dots_t d;

    cg_reduction_begin(g, &d, b, red, block_limbs);
    CG_ROWS_STREAMED(g, b, i, live)
    {
        double ri = 0.0, wn = 0.0;
        if (live) {
            const double wi = w[i];
            const double zi = fma(beta, z[i], q[i]);
            const double si = fma(beta, s[i], wi);
            const double pi = fma(beta, p[i], r[i]);
            z[i] = zi;
            s[i] = si;
            p[i] = pi;
            x[i] = fma(alpha, pi, x[i]);
            ri = fma(-alpha, si, r[i]);
            wn = fma(-alpha, zi, wi);
            r[i] = ri;
            w_next[i] = wn;
        }
        cg_dots_add(&d, 0, ri, ri, i, g->repro, block_limbs);
        cg_dots_add(&d, 1, wn, ri, i, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, 2, b, red, block_limbs);
}

#endif /* CG_UPDATE_H */
