/* spmv_host.c - the host backend's product over the table (spmv.h): the rows
 * in order, each by spmv_body.h, x's shards in the node's shared memory. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "spmv.h"

#include "spmv_body.h"

int spmv(const spmv_rows_t *m, double *y, void *stream)
{
    (void)stream;
    for (int64_t i = 0; i < m->rows; i++)
        y[i] = spmv_row(m, i);
    return 0;
}

int spmv_gather(const double *x, const int32_t *index, int64_t n, double *out, void *stream)
{
    (void)stream;
    for (int64_t k = 0; k < n; k++)
        spmv_gather_one(x, index, out, k);
    return 0;
}

const char *spmv_error_string(int code)
{
    return code == 0 ? "no error" : "unknown error";
}
