/* test_sparse_poisson.c - pins the generated Poisson matrices (every entry of a small 2D and 3D grid written out by hand, the structure of larger ones checked point by point against the grid) and the spec strings, each bad one refused with its message. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparse_poisson.h"

static void assert_csr_equal(const sparse_csr_t *a, int64_t nrows, const int64_t *row_ptr,
                             const sparse_col_t *col, const double *val)
{
    assert_int_equal(a->nrows, nrows);
    assert_int_equal(a->nnz, row_ptr[nrows]);
    for (int64_t i = 0; i <= nrows; i++)
        assert_int_equal(a->row_ptr[i], row_ptr[i]);
    for (int64_t k = 0; k < a->nnz; k++) {
        assert_int_equal(a->col[k], col[k]);
        assert_true(a->val[k] == val[k]);
    }
}

static void test_sparse_poisson_2d_3x3_is_every_entry_as_written(void **state)
{
    /* row x + 3 y: 4 on the diagonal, -1 for each neighbour inside the grid */
    static const int64_t row_ptr[] = {0, 3, 7, 10, 14, 19, 23, 26, 30, 33};
    static const sparse_col_t col[] = {0, 1, 3, 0, 1, 2, 4, 1, 2, 5, 0, 3, 4, 6, 1, 3, 4,
                                       5, 7, 2, 4, 5, 8, 3, 6, 7, 4, 6, 7, 8, 5, 7, 8};
    static const double val[] = {4,  -1, -1, -1, 4, -1, -1, -1, 4,  -1, -1, 4, -1, -1, -1, -1, 4,
                                 -1, -1, -1, -1, 4, -1, -1, 4,  -1, -1, -1, 4, -1, -1, -1, 4};
    const sparse_poisson_t p = {2, 3};
    sparse_csr_t a;
    char err[256] = "";
    (void)state;
    assert_int_equal(sparse_poisson_build(&p, &a, err, sizeof err), 0);
    assert_csr_equal(&a, 9, row_ptr, col, val);
    assert_int_equal(sparse_poisson_rows(&p), 9);
    assert_int_equal(sparse_poisson_nnz(&p), 33);
    sparse_csr_free(&a);
}

static void test_sparse_poisson_3d_2x2x2_is_every_entry_as_written(void **state)
{
    /* row x + 2 y + 4 z: every point a corner, three neighbours each */
    static const int64_t row_ptr[] = {0, 4, 8, 12, 16, 20, 24, 28, 32};
    static const sparse_col_t col[] = {0, 1, 2, 4, 0, 1, 3, 5, 0, 2, 3, 6, 1, 2, 3, 7,
                                       0, 4, 5, 6, 1, 4, 5, 7, 2, 4, 6, 7, 3, 5, 6, 7};
    static const double val[] = {
        6,  -1, -1, -1, /* row 0 */ -1, 6,  -1, -1, /* row 1 */
        -1, 6,  -1, -1, /* row 2 */ -1, -1, 6,  -1, /* row 3 */
        -1, 6,  -1, -1, /* row 4 */ -1, -1, 6,  -1, /* row 5 */
        -1, -1, 6,  -1, /* row 6 */ -1, -1, -1, 6,  /* row 7 */
    };
    const sparse_poisson_t p = {3, 2};
    sparse_csr_t a;
    (void)state;
    assert_int_equal(sparse_poisson_build(&p, &a, NULL, 0), 0);
    assert_csr_equal(&a, 8, row_ptr, col, val);
    sparse_csr_free(&a);
}

static void test_sparse_poisson_of_one_point_is_its_diagonal(void **state)
{
    for (int dim = 2; dim <= 3; dim++) {
        const sparse_poisson_t p = {dim, 1};
        sparse_csr_t a;
        (void)state;
        assert_int_equal(sparse_poisson_build(&p, &a, NULL, 0), 0);
        assert_int_equal(a.nrows, 1);
        assert_int_equal(a.nnz, 1);
        assert_int_equal(a.col[0], 0);
        assert_true(a.val[0] == 2.0 * dim);
        sparse_csr_free(&a);
    }
}

/* Every entry of a larger grid from the grid itself: the diagonal 2 dim at
 * the point, -1 at each neighbour one step along one axis, nothing else,
 * columns strictly ascending, the matrix symmetric. */
static void check_against_the_grid(int dim, int64_t n)
{
    const sparse_poisson_t p = {dim, n};
    sparse_csr_t a;
    char err[256] = "";
    assert_int_equal(sparse_poisson_build(&p, &a, err, sizeof err), 0);
    const int64_t rows = dim == 2 ? n * n : n * n * n;
    assert_int_equal(a.nrows, rows);
    assert_int_equal(a.nnz, sparse_poisson_nnz(&p));
    assert_int_equal(a.nnz, dim == 2 ? 5 * n * n - 4 * n : 7 * n * n * n - 6 * n * n);
    for (int64_t row = 0; row < rows; row++) {
        const int64_t c[3] = {row % n, row / n % n, dim == 3 ? row / (n * n) : 0};
        int inside = 0;
        for (int axis = 0; axis < dim; axis++)
            inside += (c[axis] > 0) + (c[axis] < n - 1);
        assert_int_equal(a.row_ptr[row + 1] - a.row_ptr[row], 1 + inside);
        for (int64_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; k++) {
            const int64_t j = a.col[k];
            const int64_t d[3] = {j % n, j / n % n, dim == 3 ? j / (n * n) : 0};
            int64_t distance = 0;
            for (int axis = 0; axis < 3; axis++)
                distance += llabs(d[axis] - c[axis]);
            if (j == row)
                assert_true(a.val[k] == 2.0 * dim);
            else {
                assert_int_equal(distance, 1);
                assert_true(a.val[k] == -1.0);
            }
            if (k > a.row_ptr[row])
                assert_true(a.col[k - 1] < j);
            /* the mirror (j, row) is there */
            int mirrored = 0;
            for (int64_t m = a.row_ptr[j]; m < a.row_ptr[j + 1]; m++)
                mirrored += a.col[m] == row && a.val[m] == a.val[k];
            assert_int_equal(mirrored, 1);
        }
    }
    sparse_csr_free(&a);
}

static void test_sparse_poisson_2d_and_3d_grids_match_the_stencil_at_every_point(void **state)
{
    (void)state;
    check_against_the_grid(2, 2);
    check_against_the_grid(2, 7);
    check_against_the_grid(3, 3);
    check_against_the_grid(3, 5);
}

static void test_sparse_poisson_parse_reads_both_forms_to_their_limits(void **state)
{
    static const struct {
        const char *spec;
        int dim;
        int64_t n;
        int64_t rows;
    } ok[] = {
        {"2d:16", 2, 16, 256},
        {"3d:7", 3, 7, 343},
        {"2d:1", 2, 1, 1},
        {"3d:007", 3, 7, 343},
        {"2d:46340", 2, 46340, 2147395600},
        {"3d:1290", 3, 1290, 2146689000},
    };
    (void)state;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sparse_poisson_t p = {0, 0};
        char err[256] = "";
        assert_int_equal(sparse_poisson_parse(ok[i].spec, &p, err, sizeof err), 0);
        assert_int_equal(p.dim, ok[i].dim);
        assert_int_equal(p.n, ok[i].n);
        assert_int_equal(sparse_poisson_rows(&p), ok[i].rows);
        assert_string_equal(err, "");
    }
}

static void test_sparse_poisson_parse_refuses_each_bad_spec_with_its_message(void **state)
{
#define FORM "expected 2d:N or 3d:N, N a positive integer"
#define WIDE "the most that 32-bit column indices hold"
    static const struct {
        const char *spec, *message;
    } bad[] = {
        {"", "poisson spec '': " FORM},
        {"2d", "poisson spec '2d': " FORM},
        {"2d:", "poisson spec '2d:': " FORM},
        {"4d:3", "poisson spec '4d:3': " FORM},
        {"2D:3", "poisson spec '2D:3': " FORM},
        {" 2d:3", "poisson spec ' 2d:3': " FORM},
        {"2d:x", "poisson spec '2d:x': " FORM},
        {"2d:-3", "poisson spec '2d:-3': " FORM},
        {"2d:+3", "poisson spec '2d:+3': " FORM},
        {"2d:3x", "poisson spec '2d:3x': " FORM},
        {"2d:3 ", "poisson spec '2d:3 ': " FORM},
        {"3d:1.5", "poisson spec '3d:1.5': " FORM},
        {"2d:0", "poisson spec '2d:0': N must be >= 1"},
        {"3d:000", "poisson spec '3d:000': N must be >= 1"},
        {"2d:46341",
         "poisson spec '2d:46341': N^2 rows exceed 2147483647, " WIDE " (2d: N <= 46340)"},
        {"3d:1291", "poisson spec '3d:1291': N^3 rows exceed 2147483647, " WIDE " (3d: N <= 1290)"},
        {"3d:99999999999999999999999",
         "poisson spec '3d:99999999999999999999999': N^3 rows exceed 2147483647, " WIDE
         " (3d: N <= 1290)"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sparse_poisson_t p = {5, 55};
        char err[256] = "";
        assert_int_equal(sparse_poisson_parse(bad[i].spec, &p, err, sizeof err), -1);
        assert_string_equal(err, bad[i].message);
        assert_int_equal(p.dim, 5); /* untouched */
        assert_int_equal(p.n, 55);
    }
#undef FORM
#undef WIDE
}

static void test_sparse_poisson_messages_fit_the_caller_buffer(void **state)
{
    sparse_poisson_t p;
    char err[12];
    (void)state;
    memset(err, 'z', sizeof err);
    assert_int_equal(sparse_poisson_parse("2d:0", &p, err, sizeof err), -1);
    assert_string_equal(err, "poisson spe");
    assert_int_equal(sparse_poisson_parse("2d:0", &p, NULL, 0), -1);
}

static void test_sparse_poisson_build_refuses_a_spec_out_of_range(void **state)
{
    static const struct {
        sparse_poisson_t p;
        const char *message;
    } bad[] = {
        {{4, 3}, "poisson spec '4d:3': dimension 4: expected 2d or 3d"},
        {{2, 0}, "poisson spec '2d:0': N must be >= 1"},
        {{3, -2}, "poisson spec '3d:-2': N must be >= 1"},
        {{3, 1291},
         "poisson spec '3d:1291': N^3 rows exceed 2147483647, the most that 32-bit column "
         "indices hold (3d: N <= 1290)"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sparse_csr_t a;
        char err[256] = "";
        memset(&a, 0x5a, sizeof a);
        assert_int_equal(sparse_poisson_build(&bad[i].p, &a, err, sizeof err), -1);
        assert_string_equal(err, bad[i].message);
        assert_null(a.row_ptr);
        assert_int_equal(a.nrows, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_poisson_2d_3x3_is_every_entry_as_written),
        cmocka_unit_test(test_sparse_poisson_3d_2x2x2_is_every_entry_as_written),
        cmocka_unit_test(test_sparse_poisson_of_one_point_is_its_diagonal),
        cmocka_unit_test(test_sparse_poisson_2d_and_3d_grids_match_the_stencil_at_every_point),
        cmocka_unit_test(test_sparse_poisson_parse_reads_both_forms_to_their_limits),
        cmocka_unit_test(test_sparse_poisson_parse_refuses_each_bad_spec_with_its_message),
        cmocka_unit_test(test_sparse_poisson_messages_fit_the_caller_buffer),
        cmocka_unit_test(test_sparse_poisson_build_refuses_a_spec_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
