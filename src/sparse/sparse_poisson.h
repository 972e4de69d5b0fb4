/* sparse_poisson.h - the cg program's generated matrices: the 2D 5-point and
 * 3D 7-point Poisson operators on an N^d grid, and their spec strings. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPARSE_POISSON_H
#define SPARSE_POISSON_H

#include <stddef.h>
#include <stdint.h>

#include "sparse_csr.h"

/* The grid point (x, y[, z]) is row x + N y (+ N^2 z): x varies fastest. Each
 * row holds 2d on the diagonal and -1 for each neighbour inside the grid
 * (Dirichlet boundary: a neighbour outside is dropped), columns ascending;
 * symmetric positive definite. */
typedef struct sparse_poisson {
    int dim;   /* 2 or 3 */
    int64_t n; /* grid points along each axis, >= 1 */
} sparse_poisson_t;

/* Largest N whose N^2 (2D) or N^3 (3D) rows fit SPARSE_ROWS_MAX. */
#define SPARSE_POISSON_2D_MAX 46340
#define SPARSE_POISSON_3D_MAX 1290

/* Parses "2d:N" or "3d:N" (N decimal digits, nothing else). 0, or -1 with a
 * message naming the spec in err (errlen bytes, truncated to fit). */
int sparse_poisson_parse(const char *spec, sparse_poisson_t *out, char *err, size_t errlen);
/* The spec's rows: N^dim. */
int64_t sparse_poisson_rows(const sparse_poisson_t *p);
/* The spec's nonzeros: 5 N^2 - 4 N (2D), 7 N^3 - 6 N^2 (3D). */
int64_t sparse_poisson_nnz(const sparse_poisson_t *p);
/* Builds the matrix into *a (freed with sparse_csr_free). 0, or -1 (a spec
 * out of range, no memory) with a message in err and *a zeroed. */
int sparse_poisson_build(const sparse_poisson_t *p, sparse_csr_t *a, char *err, size_t errlen);

#endif /* SPARSE_POISSON_H */
