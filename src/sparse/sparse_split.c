/* sparse_split.c - the rows-by-nonzeros split: nearest boundaries to the even
 * share, then every rank a row (or a chunk of rows); exact integer arithmetic
 * throughout. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "sparse_split.h"

/* Whether row boundary a is nearer than b (a < b) to the target q + rem / parts,
 * a <= q < b, where a tie is "nearer" (the lower boundary wins): with
 * d = (q - a) - (b - q), a is nearer or tied iff d + 2 rem / parts <= 0, decided
 * without a product that could overflow. */
static int lower_wins(int64_t a, int64_t b, int64_t q, int64_t rem, int64_t parts)
{
    const int64_t d = (q - a) - (b - q);
    if (d <= -2)
        return 1;
    if (d == -1)
        return 2 * rem <= parts;
    if (d == 0)
        return rem == 0;
    return 0;
}

/* The offset of boundary k of n chunks of `align` rows: row_ptr at row
 * k * align, or at nrows for the last, from row_ptr[0]. */
static int64_t offset_at(const int64_t *row_ptr, int64_t nrows, int64_t align, int64_t k)
{
    const int64_t row = k * align < nrows ? k * align : nrows;
    return row_ptr[row] - row_ptr[0];
}

int sparse_split_rows_aligned(const int64_t *row_ptr, int64_t nrows, int nparts, int64_t align,
                              int64_t *first_row)
{
    if (nparts < 1 || nrows < 0 || align < 1)
        return -1;
    /* the rule over chunks: chunk k spans rows [k align, min((k + 1) align, nrows)) */
    const int64_t n = nrows / align + (nrows % align != 0);
    const int64_t parts = nparts;
    first_row[0] = 0;
    first_row[parts] = n;
    if (n < parts) {
        for (int64_t p = 1; p < parts; p++)
            first_row[p] = p < n ? p : n;
    } else {
        const int64_t nnz = offset_at(row_ptr, nrows, align, n);
        const int64_t share = nnz / parts, extra = nnz % parts;
        for (int64_t k = 1; k < parts; k++) {
            /* target k nnz / parts = q + rem / parts; k * extra < parts^2 < 2^62 */
            const int64_t q = k * share + (k * extra) / parts, rem = (k * extra) % parts;
            /* last: the last boundary at or below the target's whole part */
            int64_t last = 0, hi = n;
            while (last < hi) {
                int64_t mid = last + (hi - last + 1) / 2;
                if (offset_at(row_ptr, nrows, align, mid) <= q)
                    last = mid;
                else
                    hi = mid - 1;
            }
            /* lo: the lowest boundary of the same offset (chunks of no nonzeros before it) */
            const int64_t at_last = offset_at(row_ptr, nrows, align, last);
            int64_t lo = 0;
            hi = last;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (offset_at(row_ptr, nrows, align, mid) < at_last)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            /* the next boundary above the target, where there is one, may be nearer */
            int64_t r = lo;
            if (last < n &&
                !lower_wins(at_last, offset_at(row_ptr, nrows, align, last + 1), q, rem, parts))
                r = last + 1;
            first_row[k] = r;
        }
        for (int64_t k = 1; k < parts; k++)
            if (first_row[k] < first_row[k - 1] + 1)
                first_row[k] = first_row[k - 1] + 1;
        for (int64_t k = parts - 1; k >= 1; k--)
            if (first_row[k] > first_row[k + 1] - 1)
                first_row[k] = first_row[k + 1] - 1;
    }
    /* chunks back to rows */
    for (int64_t p = 0; p <= parts; p++)
        first_row[p] = first_row[p] * align < nrows ? first_row[p] * align : nrows;
    return 0;
}

int sparse_split_rows(const int64_t *row_ptr, int64_t nrows, int nparts, int64_t *first_row)
{
    return sparse_split_rows_aligned(row_ptr, nrows, nparts, 1, first_row);
}
