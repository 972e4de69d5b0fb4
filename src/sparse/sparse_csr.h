/* sparse_csr.h - a square sparse matrix in compressed sparse row form (the
 * cg program's matrix), its allocation, release and product with a vector. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPARSE_CSR_H
#define SPARSE_CSR_H

#include <stdint.h>

/* Column indices are 32-bit, row pointers 64-bit. The solver's product with a
 * vector is bound by memory traffic, and per nonzero it reads a column index
 * and a value: 32-bit indices make that 12 bytes instead of 16, a quarter
 * less. The price is at most 2^31 - 1 rows (a 3D Poisson grid of 1290^3):
 * every reader and generator here refuses more, with a message. The row
 * pointers stay 64-bit because the nonzeros outgrow 32 bits long before the
 * rows do (at 7 a row, from 307 million rows). A wider column is one typedef. */
typedef int32_t sparse_col_t;
#define SPARSE_ROWS_MAX ((int64_t)INT32_MAX) /* rows and columns: what sparse_col_t holds */

typedef struct sparse_csr {
    int64_t nrows;     /* rows = columns: every matrix here is square */
    int64_t nnz;       /* stored entries, row_ptr[nrows] */
    int64_t *row_ptr;  /* nrows + 1 offsets: row i is [row_ptr[i], row_ptr[i + 1]) */
    sparse_col_t *col; /* nnz 0-based columns, ascending within each row */
    double *val;       /* nnz values, beside their columns */
} sparse_csr_t;

/* Allocates a nrows x nrows matrix of nnz entries, arrays uninitialised but
 * row_ptr[0] = 0 and row_ptr[nrows] = nnz. 0, or -1 (sizes out of range, no
 * memory) with *a zeroed. */
int sparse_csr_alloc(sparse_csr_t *a, int64_t nrows, int64_t nnz);
/* Frees the arrays and zeroes *a; a zeroed or NULL matrix is fine. */
void sparse_csr_free(sparse_csr_t *a);
/* y = A x (x and y nrows long, distinct), each row summed in column order by
 * fused multiply-adds from 0 (C's fma: one rounding a term), as the
 * product over the table does on every backend (kernels/sparse/spmv.h):
 * the same bits. */
void sparse_csr_spmv(const sparse_csr_t *a, const double *x, double *y);

#endif /* SPARSE_CSR_H */
