/* spmv.h - the cg program's sparse matrix-vector product over the table: a
 * rank's rows of a CSR matrix times a vector whose shards are the node's
 * table, each column's value read where it lives, this rank's shard or a
 * node peer's, through the table's pointers: no halo list, no packing, no
 * host. Only the columns of ranks on other nodes come through a ghost buffer
 * (their values moved by MPI, spmv_gather packing what a rank sends). One
 * launcher a backend (spmv.hip for HIP and CUDA, spmv_host.c for CPUs); the
 * row's product is written once (spmv_body.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPMV_H
#define SPMV_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A rank's rows, everything device memory of the calling rank. */
typedef struct spmv_rows {
    int64_t rows;             /* this rank's */
    const int64_t *row_ptr;   /* [rows + 1], row_ptr[0] = 0 */
    const int32_t *col;       /* [nnz]: global columns of this node's ranks, ascending
                                 within a row, and -1 - g for ghost[g], a column of a
                                 rank on another node, in the row's column order */
    const double *val;        /* [nnz] */
    const int64_t *first_row; /* [owners + 1]: node rank q owns the global rows and the x
                                 values [first_row[q], first_row[q + 1]) */
    int owners;               /* the node's ranks */
    double *const *x;         /* the table: node rank q's shard of x, first_row[q + 1] -
                                 first_row[q] values (NULL where that is none) */
    const double *ghost;      /* the values of the columns on other nodes (NULL: none) */
} spmv_rows_t;

/* y = A x for this rank's rows (y: rows values, this rank's device memory),
 * each row summed in column order by fused multiply-adds from 0, so that
 * every backend and the CPU (sparse_csr_spmv) give the same bits. Every
 * shard of x must be complete before the call, and stay so until it is done:
 * the caller's agreement orders it (a barrier of the table). Asynchronous on
 * GPUs, on stream (NULL: the default stream). Returns 0 or a runtime code. */
int spmv(const spmv_rows_t *m, double *y, void *stream);
/* out[k] = x[index[k]] for k < n (device memory of the calling rank): the
 * values of x a rank on another node reads, packed for MPI. Asynchronous on
 * GPUs, on stream. Returns 0 or a runtime code. */
int spmv_gather(const double *x, const int32_t *index, int64_t n, double *out, void *stream);
/* The runtime's text for a code returned above. */
const char *spmv_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif /* SPMV_H */
