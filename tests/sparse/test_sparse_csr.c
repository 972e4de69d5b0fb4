/* test_sparse_csr.c - pins the CSR storage: what an allocation sets and refuses, a release that zeroes, and the product with a vector summed row by row in column order. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sparse_csr.h"

static void test_sparse_csr_alloc_sets_the_ends_of_the_row_pointers(void **state)
{
    sparse_csr_t a;
    (void)state;
    assert_int_equal(sparse_csr_alloc(&a, 7, 19), 0);
    assert_int_equal(a.nrows, 7);
    assert_int_equal(a.nnz, 19);
    assert_int_equal(a.row_ptr[0], 0);
    assert_int_equal(a.row_ptr[7], 19);
    assert_non_null(a.col);
    assert_non_null(a.val);
    sparse_csr_free(&a);
    assert_int_equal(a.nrows, 0);
    assert_int_equal(a.nnz, 0);
    assert_null(a.row_ptr);
    assert_null(a.col);
    assert_null(a.val);
    sparse_csr_free(&a); /* a zeroed matrix, and NULL, are fine */
    sparse_csr_free(NULL);
}

static void test_sparse_csr_alloc_of_no_rows_has_arrays(void **state)
{
    sparse_csr_t a;
    (void)state;
    assert_int_equal(sparse_csr_alloc(&a, 0, 0), 0);
    assert_non_null(a.row_ptr);
    assert_int_equal(a.row_ptr[0], 0);
    sparse_csr_free(&a);
}

static void test_sparse_csr_alloc_refuses_sizes_out_of_range_and_zeroes(void **state)
{
    sparse_csr_t a;
    const int64_t bad[][2] = {{-1, 0}, {5, -3}, {SPARSE_ROWS_MAX + 1, 4}, {0, 2}, {3, INT64_MAX}};
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&a, 0x5a, sizeof a);
        assert_int_equal(sparse_csr_alloc(&a, bad[i][0], bad[i][1]), -1);
        assert_int_equal(a.nrows, 0);
        assert_null(a.row_ptr);
        assert_null(a.col);
        assert_null(a.val);
    }
}

static void test_sparse_csr_spmv_sums_each_row_in_column_order(void **state)
{
    /* [ 2.5   0   -1.25 ]   [ 0.5 ]   [ 2.5 * 0.5 - 1.25 * 4 ]
     * [ 0     3    0    ] x [ -2  ] = [ -6 ]
     * [ 0.75  0.5  0    ]   [ 4   ]   [ 0.375 - 1 ]    row 2 has no diagonal: any pattern */
    int64_t row_ptr[] = {0, 2, 3, 5};
    sparse_col_t col[] = {0, 2, 1, 0, 1};
    double val[] = {2.5, -1.25, 3.0, 0.75, 0.5};
    const sparse_csr_t a = {3, 5, row_ptr, col, val};
    const double x[] = {0.5, -2.0, 4.0};
    double y[3] = {99, 99, 99};
    (void)state;
    sparse_csr_spmv(&a, x, y);
    assert_true(y[0] == 2.5 * 0.5 + -1.25 * 4.0);
    assert_true(y[1] == -6.0);
    assert_true(y[2] == 0.75 * 0.5 + 0.5 * -2.0);
}

/* Each term is one fused multiply-add: -(1 + 2^-29) + (1 + 2^-30)^2 is 2^-60
 * fused, 0 with the product rounded first. */
static void test_sparse_csr_spmv_fuses_each_term(void **state)
{
    int64_t row_ptr[] = {0, 2, 3};
    sparse_col_t col[] = {0, 1, 1};
    double val[] = {-(1.0 + 0x1p-29), 1.0 + 0x1p-30, 1.0};
    const sparse_csr_t a = {2, 3, row_ptr, col, val};
    const double x[] = {1.0, 1.0 + 0x1p-30};
    double y[2] = {99, 99};
    (void)state;
    sparse_csr_spmv(&a, x, y);
    assert_true(y[0] == 0x1p-60);
    assert_true(y[1] == 1.0 + 0x1p-30);
}

static void test_sparse_csr_spmv_of_an_empty_row_is_zero(void **state)
{
    int64_t row_ptr[] = {0, 1, 1};
    sparse_col_t col[] = {1};
    double val[] = {-3.5};
    const sparse_csr_t a = {2, 1, row_ptr, col, val};
    const double x[] = {7.0, 2.0};
    double y[2] = {99, 99};
    (void)state;
    sparse_csr_spmv(&a, x, y);
    assert_true(y[0] == -7.0);
    assert_true(y[1] == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_csr_alloc_sets_the_ends_of_the_row_pointers),
        cmocka_unit_test(test_sparse_csr_alloc_of_no_rows_has_arrays),
        cmocka_unit_test(test_sparse_csr_alloc_refuses_sizes_out_of_range_and_zeroes),
        cmocka_unit_test(test_sparse_csr_spmv_sums_each_row_in_column_order),
        cmocka_unit_test(test_sparse_csr_spmv_fuses_each_term),
        cmocka_unit_test(test_sparse_csr_spmv_of_an_empty_row_is_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
