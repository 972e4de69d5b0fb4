/* sparse_halo.c - a rank's columns on other nodes and its rows' columns
 * rewritten for the product (sparse_halo.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "sparse_halo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_col(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The first k with v[k] >= c (v ascending, n of them). */
static int64_t lower_bound(const int64_t *v, int64_t n, int64_t c)
{
    int64_t lo = 0, hi = n;

    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (v[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int sparse_halo_build(const sparse_csr_t *a, const int64_t *first_row, int nparts, int me,
                      int64_t node_first, int64_t node_end, sparse_col_t *col, sparse_halo_t *h,
                      char *err, size_t err_bytes)
{
    const int64_t e0 = a->row_ptr[first_row[me]], e1 = a->row_ptr[first_row[me + 1]];
    int64_t outside = 0;

    memset(h, 0, sizeof *h);
    for (int64_t e = e0; e < e1; e++)
        outside += a->col[e] < node_first || a->col[e] >= node_end;
    h->ghost_col = malloc((size_t)(outside ? outside : 1) * sizeof *h->ghost_col);
    h->from_first = malloc((size_t)(nparts + 1) * sizeof *h->from_first);
    if (h->ghost_col == NULL || h->from_first == NULL) {
        sparse_halo_free(h);
        snprintf(err, err_bytes, "no memory for the columns of other nodes (%lld of them)",
                 (long long)outside);
        return -1;
    }
    /* the distinct columns, ascending */
    int64_t n = 0;
    for (int64_t e = e0; e < e1; e++)
        if (a->col[e] < node_first || a->col[e] >= node_end)
            h->ghost_col[n++] = a->col[e];
    qsort(h->ghost_col, (size_t)n, sizeof *h->ghost_col, cmp_col);
    int64_t distinct = 0;
    for (int64_t k = 0; k < n; k++)
        if (distinct == 0 || h->ghost_col[k] != h->ghost_col[distinct - 1])
            h->ghost_col[distinct++] = h->ghost_col[k];
    h->nghost = distinct;
    /* each part's run of them, and the rows' columns rewritten in their order */
    for (int p = 0; p <= nparts; p++)
        h->from_first[p] = lower_bound(h->ghost_col, distinct, first_row[p]);
    for (int64_t e = e0; e < e1; e++) {
        const int64_t c = a->col[e];
        col[e - e0] = c >= node_first && c < node_end
                          ? (sparse_col_t)c
                          : (sparse_col_t)(-1 - lower_bound(h->ghost_col, distinct, c));
    }
    return 0;
}

void sparse_halo_free(sparse_halo_t *h)
{
    free(h->ghost_col);
    free(h->from_first);
    memset(h, 0, sizeof *h);
}
