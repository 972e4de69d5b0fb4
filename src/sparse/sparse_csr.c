/* sparse_csr.c - the CSR matrix's storage and its product with a vector. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "sparse_csr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sparse_csr_alloc(sparse_csr_t *a, int64_t nrows, int64_t nnz)
{
    memset(a, 0, sizeof *a);
    if (nrows < 0 || nrows > SPARSE_ROWS_MAX || nnz < 0 ||
        (uint64_t)nnz > SIZE_MAX / sizeof(double) || (nrows == 0 && nnz != 0))
        return -1;
    a->row_ptr = malloc(((size_t)nrows + 1) * sizeof *a->row_ptr);
    /* malloc(0) may return NULL: an empty matrix still gets its arrays */
    a->col = malloc(nnz ? (size_t)nnz * sizeof *a->col : 1);
    a->val = malloc(nnz ? (size_t)nnz * sizeof *a->val : 1);
    if (!a->row_ptr || !a->col || !a->val) {
        sparse_csr_free(a);
        return -1;
    }
    a->nrows = nrows;
    a->nnz = nnz;
    a->row_ptr[0] = 0;
    a->row_ptr[nrows] = nnz;
    return 0;
}

void sparse_csr_free(sparse_csr_t *a)
{
    if (!a)
        return;
    free(a->row_ptr);
    free(a->col);
    free(a->val);
    memset(a, 0, sizeof *a);
}

void sparse_csr_spmv(const sparse_csr_t *a, const double *x, double *y)
{
    for (int64_t i = 0; i < a->nrows; i++) {
        double sum = 0.0;
        for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
            sum = fma(a->val[k], x[a->col[k]], sum);
        y[i] = sum;
    }
}
