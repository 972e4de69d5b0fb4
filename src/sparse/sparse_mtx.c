/* sparse_mtx.c - the MatrixMarket reader and writer: the file's lines read
 * and checked (sparse_mtx_lines.c), then the whole matrix (duplicates,
 * diagonal, symmetry) in CSR; and the writer. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "sparse_mtx.h"
#include "sparse_error.h"
#include "sparse_mtx_lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fewest significant digits that read back to the same double. */
static void format_double(char *buf, size_t size, double v)
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* ---- the matrix: rows in order, then its checks --------------------------------------------- */

typedef struct slot {
    long long line;
    double val;
    sparse_col_t col;
} slot_t;

static int slot_order(const void *a, const void *b)
{
    const slot_t *x = a, *y = b;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* The entries into CSR, a symmetric file's mirrored, each row sorted by
 * column (then line, so that a duplicate names its first line); *lines the
 * line of each stored entry. */
static int build(sparse_mtx_reader_t *r, const sparse_mtx_header_t *h, int64_t rows,
                 const sparse_mtx_entries_t *e, sparse_csr_t *a, long long **lines)
{
    int64_t stored = e->count;
    if (h->symmetric)
        for (int64_t k = 0; k < e->count; k++)
            stored += e->at[k].row != e->at[k].col;
    slot_t *slots = NULL;
    int64_t *next = NULL;
    *lines = NULL;
    if ((uint64_t)stored > SIZE_MAX / sizeof *slots || sparse_csr_alloc(a, rows, stored) != 0 ||
        !(slots = malloc(stored ? (size_t)stored * sizeof *slots : 1)) ||
        !(*lines = malloc(stored ? (size_t)stored * sizeof **lines : 1)) ||
        !(next = malloc((size_t)rows * sizeof *next))) {
        free(slots);
        free(*lines);
        *lines = NULL;
        sparse_csr_free(a);
        sparse_set_error(r->err, r->errlen, "%s: out of memory for %lld stored entries", r->path,
                         (long long)stored);
        return -1;
    }
    /* counting sort by row: row_ptr[i + 1] counts row i, then the prefix sums */
    memset(a->row_ptr, 0, ((size_t)rows + 1) * sizeof *a->row_ptr);
    for (int64_t k = 0; k < e->count; k++) {
        a->row_ptr[e->at[k].row + 1]++;
        if (h->symmetric && e->at[k].row != e->at[k].col)
            a->row_ptr[e->at[k].col + 1]++;
    }
    for (int64_t i = 0; i < rows; i++)
        a->row_ptr[i + 1] += a->row_ptr[i];
    memcpy(next, a->row_ptr, (size_t)rows * sizeof *next);
    for (int64_t k = 0; k < e->count; k++) {
        slots[next[e->at[k].row]++] = (slot_t){e->at[k].line, e->at[k].val, e->at[k].col};
        if (h->symmetric && e->at[k].row != e->at[k].col)
            slots[next[e->at[k].col]++] = (slot_t){e->at[k].line, e->at[k].val, e->at[k].row};
    }
    free(next);
    for (int64_t i = 0; i < rows; i++) {
        slot_t *row = slots + a->row_ptr[i];
        int64_t n = a->row_ptr[i + 1] - a->row_ptr[i];
        int sorted = 1;
        for (int64_t k = 1; k < n && sorted; k++)
            sorted = slot_order(&row[k - 1], &row[k]) < 0;
        if (!sorted)
            qsort(row, (size_t)n, sizeof *row, slot_order);
    }
    for (int64_t k = 0; k < stored; k++) {
        a->col[k] = slots[k].col;
        a->val[k] = slots[k].val;
        (*lines)[k] = slots[k].line;
    }
    free(slots);
    return 0;
}

/* The entry (i, j) of a, or -1: a binary search of row i. */
static int64_t find(const sparse_csr_t *a, int64_t i, int64_t j)
{
    int64_t lo = a->row_ptr[i], hi = a->row_ptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a->col[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->row_ptr[i + 1] && a->col[lo] == j ? lo : -1;
}

static int check(sparse_mtx_reader_t *r, const sparse_mtx_header_t *h, const sparse_csr_t *a,
                 const long long *lines)
{
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->row_ptr[i] + 1; k < a->row_ptr[i + 1]; k++)
            if (a->col[k] == a->col[k - 1]) {
                /* a symmetric file's mirror names the entry as the file has it */
                long long row = i + 1, col = a->col[k] + 1;
                if (h->symmetric && row < col) {
                    long long swap = row;
                    row = col;
                    col = swap;
                }
                sparse_set_error(r->err, r->errlen,
                                 "%s:%lld: duplicate entry (%lld, %lld), first at line %lld",
                                 r->path, lines[k], row, col, lines[k - 1]);
                return -1;
            }
    for (int64_t i = 0; i < a->nrows; i++) {
        int64_t k = find(a, i, i);
        if (k < 0) {
            sparse_set_error(
                r->err, r->errlen,
                "%s: row %lld has no diagonal entry: the solver needs every diagonal > 0 "
                "(positive definite)",
                r->path, (long long)i + 1);
            return -1;
        }
        if (!(a->val[k] > 0)) {
            char value[32];
            format_double(value, sizeof value, a->val[k]);
            sparse_set_error(
                r->err, r->errlen,
                "%s:%lld: diagonal entry (%lld, %lld) = %s is not positive: the solver "
                "needs every diagonal > 0 (positive definite)",
                r->path, lines[k], (long long)i + 1, (long long)i + 1, value);
            return -1;
        }
    }
    if (h->symmetric)
        return 0; /* mirrored: symmetric as built */
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            const int64_t j = a->col[k];
            if (j == i)
                continue;
            const int64_t m = find(a, j, i);
            const double mirror = m < 0 ? 0.0 : a->val[m];
            if (a->val[k] == mirror)
                continue;
            char value[32], other[32];
            format_double(value, sizeof value, a->val[k]);
            format_double(other, sizeof other, mirror);
            if (m < 0)
                sparse_set_error(
                    r->err, r->errlen,
                    "%s:%lld: not symmetric: entry (%lld, %lld) = %s but (%lld, %lld) is "
                    "absent (0)",
                    r->path, lines[k], (long long)i + 1, (long long)j + 1, value, (long long)j + 1,
                    (long long)i + 1);
            else
                sparse_set_error(
                    r->err, r->errlen,
                    "%s:%lld: not symmetric: entry (%lld, %lld) = %s but (%lld, %lld) = %s "
                    "at line %lld",
                    r->path, lines[k], (long long)i + 1, (long long)j + 1, value, (long long)j + 1,
                    (long long)i + 1, other, lines[m]);
            return -1;
        }
    return 0;
}

int sparse_mtx_read(const char *path, sparse_csr_t *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    sparse_mtx_reader_t r = {path, fopen(path, "r"), NULL, 0, 0, err, errlen};
    if (!r.file) {
        sparse_set_error(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    sparse_mtx_header_t h = {0, 0};
    int64_t rows = 0, declared = 0;
    sparse_mtx_entries_t e = {0, 0, NULL};
    long long *lines = NULL;
    int status = -1;
    if (sparse_mtx_header_read(&r, &h) == 0 &&
        sparse_mtx_size_read(&r, &h, &rows, &declared) == 0 &&
        sparse_mtx_entries_read(&r, &h, rows, declared, &e) == 0) {
        free(r.line); /* the lines are read: what is left is memory */
        r.line = NULL;
        fclose(r.file);
        r.file = NULL;
        if (build(&r, &h, rows, &e, a, &lines) == 0) {
            sparse_mtx_entries_free(&e);
            status = check(&r, &h, a, lines);
            if (status != 0)
                sparse_csr_free(a);
        }
    }
    sparse_mtx_entries_free(&e);
    free(lines);
    free(r.line);
    if (r.file)
        fclose(r.file);
    return status;
}

int sparse_mtx_write(const char *path, const sparse_csr_t *a, sparse_mtx_symmetry_t symmetry,
                     char *err, size_t errlen)
{
    const int symmetric = symmetry == SPARSE_MTX_SYMMETRIC;
    int64_t count = 0;
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
            count += !symmetric || a->col[k] <= i;
    FILE *file = fopen(path, "w");
    if (!file) {
        sparse_set_error(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    fprintf(file, "%%%%MatrixMarket matrix coordinate real %s\n",
            symmetric ? "symmetric" : "general");
    fprintf(file, "%% %lld x %lld, %s\n", (long long)a->nrows, (long long)a->nrows,
            symmetric ? "the lower triangle" : "every entry");
    fprintf(file, "%lld %lld %lld\n", (long long)a->nrows, (long long)a->nrows, (long long)count);
    char value[32];
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
            if (!symmetric || a->col[k] <= i) {
                format_double(value, sizeof value, a->val[k]);
                fprintf(file, "%lld %lld %s\n", (long long)i + 1, (long long)a->col[k] + 1, value);
            }
    int failed = ferror(file);
    int saved = errno;
    if (fclose(file) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        sparse_set_error(err, errlen, "%s: write error: %s", path, strerror(saved ? saved : EIO));
        return -1;
    }
    return 0;
}
