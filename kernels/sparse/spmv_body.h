/* spmv_body.h - one row of the product over the table (spmv.h), written once
 * for every backend: the HIP and CUDA kernel (spmv.hip) and the host
 * backend's loop (spmv_host.c) call the same function, so CI runs the code
 * the GPUs run. */
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

/* Row i's product: its columns of this node ascend, so the owner only moves
 * up along the row, from the first column's (found by bisection; a ghost
 * column first leaves it at 0). A column of another node is its ghost value,
 * summed in its place in the row: the same order, and so the same bits, as
 * one node's product. */
SHARDTAB_DEVFN double spmv_row(const spmv_rows_t *m, int64_t i)
{
    const int64_t e0 = m->row_ptr[i], e1 = m->row_ptr[i + 1];
    double sum = 0.0;
    int q = e0 < e1 ? spmv_owner(m->first_row, m->owners, m->col[e0]) : 0;

    for (int64_t e = e0; e < e1; e++) {
        const int64_t c = m->col[e];
        double xc;
        if (c < 0) {
            xc = m->ghost[-1 - c];
        } else {
            while (c >= m->first_row[q + 1])
                q++;
            xc = m->x[q][c - m->first_row[q]];
        }
        sum = fma(m->val[e], xc, sum);
    }
    return sum;
}

/* Element k of spmv_gather. */
SHARDTAB_DEVFN void spmv_gather_one(const double *x, const int32_t *index, double *out, int64_t k)
{
    out[k] = x[index[k]];
}

#endif /* SPMV_BODY_H */
