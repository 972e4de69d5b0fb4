/* test_sparse_cg.c - pins the reference CG: on a 16x16 2D Poisson matrix it converges and A x matches b to 1e-10; tol 0 runs exactly niter iterations; the first iterate and residual bit for bit; n distinct eigenvalues take n iterations; b = 0, niter 0, an indefinite matrix and bad arguments as documented. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sparse_cg.h"
#include "sparse_poisson.h"

/* A right-hand side with every entry different and of either sign. */
static double *varied_rhs(int64_t n)
{
    double *b = malloc((size_t)n * sizeof *b);
    assert_non_null(b);
    for (int64_t i = 0; i < n; i++)
        b[i] = (double)((i * 7919 + 13) % 101) / 37.0 - 1.25 + 0.001 * (double)i;
    return b;
}

static double norm(int64_t n, const double *v)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++)
        sum += v[i] * v[i];
    return sqrt(sum);
}

/* ||b - A x|| / ||b||, the true residual */
static double true_residual(const sparse_csr_t *a, const double *x, const double *b)
{
    double *ax = malloc((size_t)a->nrows * sizeof *ax);
    assert_non_null(ax);
    sparse_csr_spmv(a, x, ax);
    for (int64_t i = 0; i < a->nrows; i++)
        ax[i] = b[i] - ax[i];
    double relative = norm(a->nrows, ax) / norm(a->nrows, b);
    free(ax);
    return relative;
}

static void test_sparse_cg_solves_2d_poisson_16x16_to_a_true_residual_of_1e_10(void **state)
{
    const sparse_poisson_t p = {2, 16};
    const int64_t niter = 1000;
    const double tol = 1e-12;
    sparse_csr_t a;
    sparse_cg_result_t result;
    char err[256] = "";
    (void)state;
    assert_int_equal(sparse_poisson_build(&p, &a, NULL, 0), 0);
    double *b = varied_rhs(a.nrows), *x = malloc((size_t)a.nrows * sizeof *x);
    double *history = malloc((size_t)(niter + 1) * sizeof *history);
    assert_non_null(x);
    assert_non_null(history);
    assert_int_equal(sparse_cg_solve(&a, b, tol, niter, x, history, &result, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_true(result.converged);
    assert_true(result.iterations > 10 && result.iterations <= a.nrows);
    assert_true(true_residual(&a, x, b) <= 1e-10);
    /* the history: 1 at the start, above tol until the last iteration, the last one returned */
    assert_true(history[0] == 1.0);
    for (int64_t k = 0; k < result.iterations; k++)
        assert_true(history[k] > tol);
    assert_true(history[result.iterations] <= tol);
    assert_true(history[result.iterations] == result.relative_residual);
    free(b);
    free(x);
    free(history);
    sparse_csr_free(&a);
}

static void test_sparse_cg_with_tol_0_runs_exactly_niter_iterations(void **state)
{
    const sparse_poisson_t p = {2, 16};
    const int64_t niter = 30;
    sparse_csr_t a;
    sparse_cg_result_t result, again;
    (void)state;
    assert_int_equal(sparse_poisson_build(&p, &a, NULL, 0), 0);
    double *b = varied_rhs(a.nrows), *x = malloc((size_t)a.nrows * sizeof *x);
    double history[32], longer[41];
    assert_non_null(x);
    history[niter + 1] = -7.0; /* one past the last: never written */
    assert_int_equal(sparse_cg_solve(&a, b, 0.0, niter, x, history, &result, NULL, 0), 0);
    assert_int_equal(result.iterations, niter);
    assert_false(result.converged);
    assert_true(history[niter + 1] == -7.0);
    for (int64_t k = 0; k <= niter; k++)
        assert_true(history[k] > 0 && isfinite(history[k]));
    assert_true(history[niter] < history[0]);
    /* the same first iterations, bit for bit, in a longer run */
    assert_int_equal(sparse_cg_solve(&a, b, 0.0, 40, x, longer, &again, NULL, 0), 0);
    assert_int_equal(again.iterations, 40);
    assert_memory_equal(history, longer, (size_t)(niter + 1) * sizeof *history);
    /* and without a history */
    assert_int_equal(sparse_cg_solve(&a, b, 0.0, niter, x, NULL, &again, NULL, 0), 0);
    assert_int_equal(again.iterations, niter);
    assert_true(again.relative_residual == history[niter]);
    free(b);
    free(x);
    sparse_csr_free(&a);
}

static void test_sparse_cg_first_iterate_is_alpha_b_bit_for_bit(void **state)
{
    const sparse_poisson_t p = {3, 4};
    sparse_csr_t a;
    sparse_cg_result_t result;
    (void)state;
    assert_int_equal(sparse_poisson_build(&p, &a, NULL, 0), 0);
    const int64_t n = a.nrows;
    double *b = varied_rhs(n), *x = malloc((size_t)n * sizeof *x);
    double *ab = malloc((size_t)n * sizeof *ab), history[2];
    /* x1 = alpha b, alpha = (b, b) / (b, A b); r1 = b - alpha A b: sums in index order */
    sparse_csr_spmv(&a, b, ab);
    double bb = 0.0, bab = 0.0, rr = 0.0;
    for (int64_t i = 0; i < n; i++) {
        bb += b[i] * b[i];
        bab += b[i] * ab[i];
    }
    const double alpha = bb / bab;
    for (int64_t i = 0; i < n; i++) {
        const double r = b[i] - alpha * ab[i];
        rr += r * r;
    }
    assert_int_equal(sparse_cg_solve(&a, b, 0.0, 1, x, history, &result, NULL, 0), 0);
    assert_int_equal(result.iterations, 1);
    for (int64_t i = 0; i < n; i++)
        assert_true(x[i] == 0.0 + alpha * b[i]);
    assert_true(history[0] == 1.0);
    assert_true(history[1] == sqrt(rr) / sqrt(bb));
    free(b);
    free(x);
    free(ab);
    sparse_csr_free(&a);
}

static void test_sparse_cg_three_distinct_eigenvalues_take_three_iterations(void **state)
{
    /* [ 4.5 -1.25 0 ; -1.25 3.75 0.5 ; 0 0.5 2.0625 ]: SPD, eigenvalues distinct */
    int64_t row_ptr[] = {0, 2, 5, 7};
    sparse_col_t col[] = {0, 1, 0, 1, 2, 1, 2};
    double val[] = {4.5, -1.25, -1.25, 3.75, 0.5, 0.5, 2.0625};
    const sparse_csr_t a = {3, 7, row_ptr, col, val};
    const double b[] = {1.5, -2.0, 0.75};
    double x[3], history[11];
    sparse_cg_result_t result;
    (void)state;
    assert_int_equal(sparse_cg_solve(&a, b, 1e-12, 10, x, history, &result, NULL, 0), 0);
    assert_int_equal(result.iterations, 3);
    assert_true(result.converged);
    assert_true(history[2] > 1e-3);
    assert_true(true_residual(&a, x, b) <= 1e-14);
}

static void test_sparse_cg_of_b_zero_or_niter_zero_does_no_iteration(void **state)
{
    const sparse_poisson_t p = {2, 5};
    sparse_csr_t a;
    sparse_cg_result_t result;
    double zero[25] = {0}, x[25], history[3] = {-1, -1, -1};
    (void)state;
    assert_int_equal(sparse_poisson_build(&p, &a, NULL, 0), 0);
    for (int i = 0; i < 25; i++)
        x[i] = 3.5 + i;
    assert_int_equal(sparse_cg_solve(&a, zero, 0.0, 2, x, history, &result, NULL, 0), 0);
    assert_int_equal(result.iterations, 0);
    assert_true(result.converged);
    assert_true(result.relative_residual == 0.0);
    assert_true(history[0] == 0.0 && history[1] == -1.0);
    for (int i = 0; i < 25; i++)
        assert_true(x[i] == 0.0);

    double *b = varied_rhs(25);
    for (int i = 0; i < 25; i++)
        x[i] = -2.25 * i;
    assert_int_equal(sparse_cg_solve(&a, b, 1e-6, 0, x, history, &result, NULL, 0), 0);
    assert_int_equal(result.iterations, 0);
    assert_false(result.converged);
    assert_true(result.relative_residual == 1.0);
    for (int i = 0; i < 25; i++)
        assert_true(x[i] == 0.0);
    free(b);
    sparse_csr_free(&a);
}

static void test_sparse_cg_refuses_an_indefinite_matrix(void **state)
{
    int64_t row_ptr[] = {0, 1, 2};
    sparse_col_t col[] = {0, 1};
    double val[] = {1.0, -1.0};
    const sparse_csr_t a = {2, 2, row_ptr, col, val};
    const double b[] = {0.5, 2.0};
    double x[2];
    sparse_cg_result_t result;
    char err[256] = "";
    (void)state;
    assert_int_equal(sparse_cg_solve(&a, b, 1e-8, 10, x, NULL, &result, err, sizeof err), -1);
    assert_string_equal(err,
                        "cg: (p, A p) = -3.75 at iteration 1: the matrix is not positive definite");
    assert_int_equal(result.iterations, 0);
    assert_false(result.converged);
}

static void test_sparse_cg_refuses_a_bad_tol_or_niter(void **state)
{
    int64_t row_ptr[] = {0, 1};
    sparse_col_t col[] = {0};
    double val[] = {2.5};
    const sparse_csr_t a = {1, 1, row_ptr, col, val};
    const double b[] = {0.75};
    double x[1];
    sparse_cg_result_t result;
    char err[256];
    (void)state;
    assert_int_equal(sparse_cg_solve(&a, b, -1.0, 10, x, NULL, &result, err, sizeof err), -1);
    assert_string_equal(err, "cg: tol -1 must be >= 0 and niter 10 >= 0");
    assert_int_equal(sparse_cg_solve(&a, b, NAN, 10, x, NULL, &result, err, sizeof err), -1);
    assert_string_equal(err, "cg: tol nan must be >= 0 and niter 10 >= 0");
    assert_int_equal(sparse_cg_solve(&a, b, 1e-6, -1, x, NULL, &result, err, sizeof err), -1);
    assert_string_equal(err, "cg: tol 1e-06 must be >= 0 and niter -1 >= 0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_cg_solves_2d_poisson_16x16_to_a_true_residual_of_1e_10),
        cmocka_unit_test(test_sparse_cg_with_tol_0_runs_exactly_niter_iterations),
        cmocka_unit_test(test_sparse_cg_first_iterate_is_alpha_b_bit_for_bit),
        cmocka_unit_test(test_sparse_cg_three_distinct_eigenvalues_take_three_iterations),
        cmocka_unit_test(test_sparse_cg_of_b_zero_or_niter_zero_does_no_iteration),
        cmocka_unit_test(test_sparse_cg_refuses_an_indefinite_matrix),
        cmocka_unit_test(test_sparse_cg_refuses_a_bad_tol_or_niter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
