/* sparse_mtx.h - MatrixMarket files for the cg program and any user's program:
 * read a real symmetric positive-diagonal matrix into CSR, write one back. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPARSE_MTX_H
#define SPARSE_MTX_H

#include <stddef.h>

#include "sparse_csr.h"

/* Reads "%%MatrixMarket matrix coordinate real|integer general|symmetric"
 * (the words in any case) into *a: a symmetric file's lower triangle is
 * mirrored into the full matrix, every row's columns ascending. Comment lines
 * (%) may stand between the header and the size line, blank lines anywhere
 * after the header, as the format allows.
 *
 * Refused, each with one message "FILE:LINE: what" (or "FILE: what" where no
 * line is to blame) in err, errlen bytes, truncated to fit: another format
 * (array), field (pattern, complex) or symmetry (hermitian, skew-symmetric);
 * a bad header, size line or entry line; a comment after the size line; a
 * matrix that is not square or has more than SPARSE_ROWS_MAX rows; more
 * entries declared than the matrix holds, or fewer than its diagonal; an
 * index outside 1..rows; a symmetric file's entry above the diagonal; fewer
 * or more entry lines than declared; a value that is not finite (for the
 * field integer: not an integer a double holds exactly); a duplicate entry;
 * then, in this order, the first row without a diagonal entry or with one
 * <= 0, and for a general file the first entry in row order whose mirror
 * differs (A(i,j) != A(j,i) exactly, an absent entry being 0). The solver
 * needs a symmetric positive definite matrix: these are what a reader can
 * check of it.
 *
 * 0, or -1 with the message and *a zeroed. Nothing is printed. */
int sparse_mtx_read(const char *path, sparse_csr_t *a, char *err, size_t errlen);

typedef enum sparse_mtx_symmetry {
    SPARSE_MTX_GENERAL,  /* every entry */
    SPARSE_MTX_SYMMETRIC /* the entries on and below the diagonal: the caller's matrix symmetric */
} sparse_mtx_symmetry_t;

/* Writes *a as "%%MatrixMarket matrix coordinate real <symmetry>", a comment
 * line, the size line and one line an entry in row order, each value in the
 * fewest digits that read back to the same double. 0, or -1 with a message. */
int sparse_mtx_write(const char *path, const sparse_csr_t *a, sparse_mtx_symmetry_t symmetry,
                     char *err, size_t errlen);

#endif /* SPARSE_MTX_H */
