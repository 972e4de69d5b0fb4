/* sparse_poisson.c - generates the 2D and 3D Poisson matrices row by row, the
 * columns ascending as the grid's lexicographic order gives them. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "sparse_poisson.h"
#include "sparse_error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The row count's limit, one message for the parser and the builder. */
static int check_size(const sparse_poisson_t *p, const char *spec, char *err, size_t errlen)
{
    if (p->dim != 2 && p->dim != 3) {
        sparse_set_error(err, errlen, "poisson spec '%s': dimension %d: expected 2d or 3d", spec,
                         p->dim);
        return -1;
    }
    if (p->n < 1) {
        sparse_set_error(err, errlen, "poisson spec '%s': N must be >= 1", spec);
        return -1;
    }
    const int64_t max = p->dim == 2 ? SPARSE_POISSON_2D_MAX : SPARSE_POISSON_3D_MAX;
    if (p->n > max) {
        sparse_set_error(err, errlen,
                         "poisson spec '%s': N^%d rows exceed %lld, the most that 32-bit column "
                         "indices hold (%dd: N <= %lld)",
                         spec, p->dim, (long long)SPARSE_ROWS_MAX, p->dim, (long long)max);
        return -1;
    }
    return 0;
}

int sparse_poisson_parse(const char *spec, sparse_poisson_t *out, char *err, size_t errlen)
{
    sparse_poisson_t p = {0, 0};
    if (strncmp(spec, "2d:", 3) == 0)
        p.dim = 2;
    else if (strncmp(spec, "3d:", 3) == 0)
        p.dim = 3;
    const char *digits = spec + 3;
    size_t ndigits = p.dim ? strspn(digits, "0123456789") : 0;
    if (!p.dim || ndigits == 0 || digits[ndigits] != '\0') {
        sparse_set_error(err, errlen,
                         "poisson spec '%s': expected 2d:N or 3d:N, N a positive integer", spec);
        return -1;
    }
    errno = 0;
    long long n = strtoll(digits, NULL, 10);
    /* a number past int64 is past every limit: say so as for any N too large */
    p.n = errno == ERANGE ? INT64_MAX : n;
    if (check_size(&p, spec, err, errlen) != 0)
        return -1;
    *out = p;
    return 0;
}

int64_t sparse_poisson_rows(const sparse_poisson_t *p)
{
    return p->dim == 2 ? p->n * p->n : p->n * p->n * p->n;
}

int64_t sparse_poisson_nnz(const sparse_poisson_t *p)
{
    const int64_t n = p->n;
    return p->dim == 2 ? 5 * n * n - 4 * n : 7 * n * n * n - 6 * n * n;
}

int sparse_poisson_build(const sparse_poisson_t *p, sparse_csr_t *a, char *err, size_t errlen)
{
    char spec[48];
    snprintf(spec, sizeof spec, "%dd:%lld", p->dim, (long long)p->n);
    memset(a, 0, sizeof *a);
    if (check_size(p, spec, err, errlen) != 0)
        return -1;
    const int64_t n = p->n, rows = sparse_poisson_rows(p);
    if (sparse_csr_alloc(a, rows, sparse_poisson_nnz(p)) != 0) {
        sparse_set_error(err, errlen,
                         "poisson spec '%s': out of memory for %lld rows, %lld nonzeros", spec,
                         (long long)rows, (long long)sparse_poisson_nnz(p));
        return -1;
    }
    const double diagonal = 2.0 * p->dim;
    const int64_t nz = p->dim == 3 ? n : 1; /* planes */
    int64_t k = 0;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < n; y++)
            for (int64_t x = 0; x < n; x++) {
                const int64_t row = x + n * (y + n * z);
                a->row_ptr[row] = k;
                /* the neighbours in ascending column order: -z, -y, -x, self, +x, +y, +z */
                struct {
                    int inside;
                    int64_t col;
                    double val;
                } entry[7] = {
                    {p->dim == 3 && z > 0, row - n * n, -1.0},
                    {y > 0, row - n, -1.0},
                    {x > 0, row - 1, -1.0},
                    {1, row, diagonal},
                    {x < n - 1, row + 1, -1.0},
                    {y < n - 1, row + n, -1.0},
                    {p->dim == 3 && z < n - 1, row + n * n, -1.0},
                };
                for (int e = 0; e < 7; e++)
                    if (entry[e].inside) {
                        a->col[k] = (sparse_col_t)entry[e].col;
                        a->val[k] = entry[e].val;
                        k++;
                    }
            }
    return 0;
}
