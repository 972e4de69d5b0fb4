/* sparse_split.h - the cg program's rows over its ranks: contiguous ranges,
 * even in nonzeros, the same split computed alone by every rank (on chunk
 * boundaries where asked). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPARSE_SPLIT_H
#define SPARSE_SPLIT_H

#include <stdint.h>

/* Splits rows 0..nrows-1 (row i holding row_ptr[i + 1] - row_ptr[i]
 * nonzeros) over nparts ranks: rank p owns [first_row[p], first_row[p + 1]),
 * first_row[0] = 0 and first_row[nparts] = nrows (first_row: nparts + 1).
 *
 * The rule, integer arithmetic only, so that every rank gets the same bits:
 *  1. boundary k (0 < k < nparts) goes to the row boundary r whose offset
 *     row_ptr[r] is nearest k * nnz / nparts; a tie goes to the lower r (the
 *     earlier rank takes fewer). Every rank's nonzeros are then within the
 *     largest row's of nnz / nparts.
 *  2. nrows >= nparts: every rank gets a row, boundaries moved as little as
 *     that takes: first up (first_row[k] >= first_row[k - 1] + 1, k rising),
 *     then down (first_row[k] <= first_row[k + 1] - 1, k falling).
 *  3. nrows < nparts: rank p < nrows owns row p alone, the others none.
 * 0, or -1 (nparts < 1 or nrows < 0) with first_row untouched. */
int sparse_split_rows(const int64_t *row_ptr, int64_t nrows, int nparts, int64_t *first_row);
/* The same rule over chunks of `align` consecutive rows (the last chunk may
 * be shorter): every boundary but nrows a multiple of align, so that no
 * chunk is split. align 1 is sparse_split_rows. 0, or -1 (also align < 1). */
int sparse_split_rows_aligned(const int64_t *row_ptr, int64_t nrows, int nparts, int64_t align,
                              int64_t *first_row);

#endif /* SPARSE_SPLIT_H */
