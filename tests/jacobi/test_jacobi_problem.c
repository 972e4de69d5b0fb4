/* test_jacobi_problem.c - pins jacobi's starting state: a pure function of the global point, so that any split of the rows starts from the bits of a 1-rank run; the anchors' zero state exactly; a random state that makes every interior point live; the periodic wrap of the rows. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jacobi_problem.h"

static const jacobi_init_t zero = {JACOBI_INIT_ZERO, 0};
static const jacobi_init_t random1 = {JACOBI_INIT_RANDOM, 1};
static const jacobi_init_t random2 = {JACOBI_INIT_RANDOM, 2};

static void test_jacobi_zero_start_is_the_anchors_boundaries_and_zeros(void **state)
{
    const int nx = 17, ny = 13;
    (void)state;
    for (int r = 1; r < ny - 1; r++) {
        float y0 = (float)sin(2.0 * (double)3.14159265358979323846f * r / (ny - 1));
        assert_true(jacobi_initial_value(&zero, nx, ny, r, 0) == y0);
        assert_true(jacobi_initial_value(&zero, nx, ny, r, nx - 1) == y0);
        for (int x = 1; x < nx - 1; x++)
            assert_true(jacobi_initial_value(&zero, nx, ny, r, x) == 0.0f);
    }
}

static void test_jacobi_random_start_keeps_the_boundaries_and_fills_every_interior_point(
    void **state)
{
    const int nx = 301, ny = 257;
    int zeros = 0, negative = 0, distinct_bits = 0;
    float first = jacobi_initial_value(&random1, nx, ny, 1, 1);
    (void)state;
    for (int r = 1; r < ny - 1; r++) {
        assert_true(jacobi_initial_value(&random1, nx, ny, r, 0) ==
                    jacobi_initial_value(&zero, nx, ny, r, 0));
        assert_true(jacobi_initial_value(&random1, nx, ny, r, nx - 1) ==
                    jacobi_initial_value(&zero, nx, ny, r, nx - 1));
        for (int x = 1; x < nx - 1; x++) {
            float v = jacobi_initial_value(&random1, nx, ny, r, x);
            assert_true(v >= -1.0f && v < 1.0f);
            /* 24 random bits: every value a multiple of 2^-23 */
            assert_true(ldexpf(v, 23) == floorf(ldexpf(v, 23)));
            zeros += v == 0.0f;
            negative += v < 0.0f;
            distinct_bits += v != first;
        }
    }
    int points = (nx - 2) * (ny - 2);
    assert_true(zeros < 3); /* 2^-24 each */
    assert_true(negative > points * 45 / 100 && negative < points * 55 / 100);
    assert_true(distinct_bits > points - 3);
}

static void test_jacobi_random_start_depends_on_the_seed_and_the_point_only(void **state)
{
    const int nx = 64, ny = 40;
    int differ = 0;
    (void)state;
    for (int r = 1; r < ny - 1; r++)
        for (int x = 1; x < nx - 1; x++) {
            differ += jacobi_initial_value(&random1, nx, ny, r, x) !=
                      jacobi_initial_value(&random2, nx, ny, r, x);
            /* the grid's other extent does not enter: only (seed, row, column) */
            assert_true(jacobi_initial_value(&random1, nx, ny, r, x) ==
                        jacobi_initial_value(&random1, nx + 100, ny + 7, r, x));
        }
    assert_true(differ > (nx - 2) * (ny - 2) - 3);
}

static void test_jacobi_initial_rows_of_any_split_equal_the_whole_grid(void **state)
{
    const int nx = 33, ny = 47, interior = ny - 2;
    float *whole = malloc((size_t)interior * nx * sizeof *whole);
    float *part = malloc((size_t)interior * nx * sizeof *part);
    (void)state;
    assert_non_null(whole);
    assert_non_null(part);
    jacobi_initial_rows(&random1, nx, ny, 1, interior, whole);
    for (int ranks = 1; ranks <= 7; ranks++) {
        memset(part, 0xff, (size_t)interior * nx * sizeof *part);
        for (int k = 0, start = 1; k < ranks; k++) {
            int rows = interior / ranks + (k < interior % ranks);
            jacobi_initial_rows(&random1, nx, ny, start, rows, part + (size_t)(start - 1) * nx);
            start += rows;
        }
        assert_memory_equal(whole, part, (size_t)interior * nx * sizeof *part);
    }
    free(whole);
    free(part);
}

static void test_jacobi_periodic_rows_wrap_to_the_other_end(void **state)
{
    /* ny, a row, the interior row it stands for: rows 0 and ny - 1 are the
     * other end's last and first interior rows */
    static const int cases[][3] = {{10, 0, 8}, {10, 9, 1}, {10, 1, 1},
                                   {10, 8, 8}, {3, 0, 1},  {3, 2, 1}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(jacobi_periodic_row(cases[i][0], cases[i][1]), cases[i][2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobi_zero_start_is_the_anchors_boundaries_and_zeros),
        cmocka_unit_test(
            test_jacobi_random_start_keeps_the_boundaries_and_fills_every_interior_point),
        cmocka_unit_test(test_jacobi_random_start_depends_on_the_seed_and_the_point_only),
        cmocka_unit_test(test_jacobi_initial_rows_of_any_split_equal_the_whole_grid),
        cmocka_unit_test(test_jacobi_periodic_rows_wrap_to_the_other_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
