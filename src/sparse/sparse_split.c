/* sparse_split.c - the rows-by-nonzeros split: nearest boundaries to the even
 * share, then every rank a row; exact integer arithmetic throughout. */
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

int sparse_split_rows(const int64_t *row_ptr, int64_t nrows, int nparts, int64_t *first_row)
{
    if (nparts < 1 || nrows < 0)
        return -1;
    const int64_t parts = nparts;
    first_row[0] = 0;
    first_row[parts] = nrows;
    if (nrows < parts) {
        for (int64_t p = 1; p < parts; p++)
            first_row[p] = p < nrows ? p : nrows;
        return 0;
    }
    const int64_t nnz = row_ptr[nrows] - row_ptr[0];
    const int64_t share = nnz / parts, extra = nnz % parts;
    for (int64_t k = 1; k < parts; k++) {
        /* target k nnz / parts = q + rem / parts; k * extra < parts^2 < 2^62 */
        const int64_t q = k * share + (k * extra) / parts, rem = (k * extra) % parts;
        /* last: the last boundary at or below the target's whole part */
        int64_t last = 0, hi = nrows;
        while (last < hi) {
            int64_t mid = last + (hi - last + 1) / 2;
            if (row_ptr[mid] - row_ptr[0] <= q)
                last = mid;
            else
                hi = mid - 1;
        }
        /* lo: the lowest boundary of the same offset (rows of no nonzeros before it) */
        int64_t lo = 0;
        hi = last;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (row_ptr[mid] < row_ptr[last])
                lo = mid + 1;
            else
                hi = mid;
        }
        /* the next boundary above the target, where there is one, may be nearer */
        int64_t r = lo;
        if (last < nrows &&
            !lower_wins(row_ptr[lo] - row_ptr[0], row_ptr[last + 1] - row_ptr[0], q, rem, parts))
            r = last + 1;
        first_row[k] = r;
    }
    for (int64_t k = 1; k < parts; k++)
        if (first_row[k] < first_row[k - 1] + 1)
            first_row[k] = first_row[k - 1] + 1;
    for (int64_t k = parts - 1; k >= 1; k--)
        if (first_row[k] > first_row[k + 1] - 1)
            first_row[k] = first_row[k + 1] - 1;
    return 0;
}
