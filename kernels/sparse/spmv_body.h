/* spmv_body.h - one row of the product over the table (spmv.h), written once
 * for every backend: the HIP and CUDA kernel (spmv.hip) and the host
 * backend's loop (spmv_host.c) call the same function, so CI runs the code
 * the GPUs run. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPMV_BODY_H
#define SPMV_BODY_H

#if defined(SHARDTAB_DEVICE_HOST) ||                                                               \
    !(defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__))
#  include <math.h>
#endif

#include "shardtab_device.h"
#include "spmv.h"

/* The node rank that owns global index c: q with first_row[q] <= c <
 * first_row[q + 1] (a rank without rows owns no index), by bisection. */
SHARDTAB_DEVFN int spmv_owner(const int64_t *first_row, int owners, int64_t c)
{
    int lo = 0, hi = owners - 1;

    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (first_row[mid] <= c)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Where a row's walk over the owners stands: owner q, whose shard holds
 * the columns [first, next), its entry of the table in base. Kept in
 * registers, so that a column of the same owner as the last costs one load
 * of x and no load of the table or of first_row. */
typedef struct spmv_cursor {
    int q;
    int64_t first, next;
    const double *base;
} spmv_cursor_t;

SHARDTAB_DEVFN void spmv_cursor_at(const spmv_rows_t *m, int q, spmv_cursor_t *at)
{
    at->q = q;
    at->first = m->first_row[q];
    at->next = m->first_row[q + 1];
    at->base = m->x[q];
}

/* Column c's value of x: a ghost (another node's column), or its owner's
 * shard's, the owner found by walking up from the previous column's (a
 * row's columns of this node ascend). */
SHARDTAB_DEVFN double spmv_x(const spmv_rows_t *m, int64_t c, spmv_cursor_t *at)
{
    if (c < 0)
        return m->ghost[-1 - c];
    if (c >= at->next) {
        int q = at->q + 1;
        while (c >= m->first_row[q + 1])
            q++;
        spmv_cursor_at(m, q, at);
    }
    return at->base[c - at->first];
}

/* Row i's product: its columns of this node ascend, so the owner only moves
 * up along the row, from the first column's (found by bisection; a ghost
 * column first leaves it at 0). A column of another node is its ghost value,
 * summed in its place in the row: the same order, and so the same bits, as
 * one node's product. The row goes SPMV_BATCH entries at a time, each
 * batch's columns and values loaded, then its values of x, then summed in
 * order, so that a thread may have a batch's gathers in flight at once. */
#ifndef SPMV_BATCH
#  define SPMV_BATCH 1
#endif
SHARDTAB_DEVFN double spmv_row(const spmv_rows_t *m, int64_t i)
{
    const int64_t e0 = m->row_ptr[i], e1 = m->row_ptr[i + 1];
    double sum = 0.0;
    spmv_cursor_t at;

    if (e0 == e1)
        return sum;
    spmv_cursor_at(m, spmv_owner(m->first_row, m->owners, m->col[e0]), &at);
    for (int64_t e = e0; e < e1; e += SPMV_BATCH) {
        int64_t c[SPMV_BATCH];
        double a[SPMV_BATCH], xc[SPMV_BATCH];
        for (int k = 0; k < SPMV_BATCH; k++)
            if (e + k < e1) {
                c[k] = m->col[e + k];
                a[k] = m->val[e + k];
            }
        for (int k = 0; k < SPMV_BATCH; k++)
            if (e + k < e1)
                xc[k] = spmv_x(m, c[k], &at);
        for (int k = 0; k < SPMV_BATCH; k++)
            if (e + k < e1)
                sum = fma(a[k], xc[k], sum);
    }
    return sum;
}

/* Row i's product with p = r + beta p_old, where every column is this
 * rank's own (a rank alone on its node: its rows start at first_row[0]):
 * p's entries made where they are read, each the fma a separate update
 * p = fma(beta, p_old, r) would store, so the same bits as that update
 * followed by spmv_row. */
SHARDTAB_DEVFN double spmv_row_axpy(const spmv_rows_t *m, int64_t i, const double *r,
                                    const double *p_old, double beta)
{
    const int64_t e0 = m->row_ptr[i], e1 = m->row_ptr[i + 1], first = m->first_row[0];
    double sum = 0.0;

    for (int64_t e = e0; e < e1; e++) {
        const int64_t c = m->col[e] - first;
        sum = fma(m->val[e], fma(beta, p_old[c], r[c]), sum);
    }
    return sum;
}

/* Element k of spmv_gather. */
SHARDTAB_DEVFN void spmv_gather_one(const double *x, const int32_t *index, double *out, int64_t k)
{
    out[k] = x[index[k]];
}

#endif /* SPMV_BODY_H */
