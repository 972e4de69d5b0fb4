/* test_sparse_split.c - pins the rows' split by nonzeros: the documented rule against a brute-force reading of it on many row lengths and rank counts, ties to the lower boundary, every rank a row where there are enough, more ranks than rows, offsets near the top of int64; and the split on chunk boundaries, as the rule over the chunks. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sparse_poisson.h"
#include "sparse_split.h"

/* The rule of sparse_split.h read literally, by search over every boundary:
 * distances compared as |parts * row_ptr[r] - k * nnz| (the inputs here are
 * small enough for the products). */
static void brute_force_split(const int64_t *row_ptr, int64_t nrows, int64_t parts, int64_t *first)
{
    first[0] = 0;
    first[parts] = nrows;
    if (nrows < parts) {
        for (int64_t p = 1; p < parts; p++)
            first[p] = p < nrows ? p : nrows;
        return;
    }
    const int64_t nnz = row_ptr[nrows];
    for (int64_t k = 1; k < parts; k++) {
        int64_t best = 0;
        for (int64_t r = 1; r <= nrows; r++)
            if (llabs(parts * row_ptr[r] - k * nnz) < llabs(parts * row_ptr[best] - k * nnz))
                best = r;
        first[k] = best;
    }
    for (int64_t k = 1; k < parts; k++)
        if (first[k] <= first[k - 1])
            first[k] = first[k - 1] + 1;
    for (int64_t k = parts - 1; k >= 1; k--)
        if (first[k] >= first[k + 1])
            first[k] = first[k + 1] - 1;
}

static void assert_split(const int64_t *row_ptr, int64_t nrows, int parts, const int64_t *expected)
{
    int64_t *first = malloc(((size_t)parts + 1) * sizeof *first);
    assert_non_null(first);
    assert_int_equal(sparse_split_rows(row_ptr, nrows, parts, first), 0);
    for (int p = 0; p <= parts; p++)
        assert_int_equal(first[p], expected[p]);
    free(first);
}

/* The properties every split has, and the brute force's boundaries. */
static void check_split(const int64_t *row_ptr, int64_t nrows, int parts)
{
    int64_t *first = malloc(((size_t)parts + 1) * sizeof *first);
    int64_t *expected = malloc(((size_t)parts + 1) * sizeof *expected);
    assert_non_null(first);
    assert_non_null(expected);
    assert_int_equal(sparse_split_rows(row_ptr, nrows, parts, first), 0);
    brute_force_split(row_ptr, nrows, parts, expected);
    assert_int_equal(first[0], 0);
    assert_int_equal(first[parts], nrows);
    for (int p = 0; p < parts; p++) {
        assert_int_equal(first[p + 1], expected[p + 1]);
        assert_true(first[p] <= first[p + 1]);
        if (nrows >= parts)
            assert_true(first[p + 1] - first[p] >= 1);
        else
            assert_int_equal(first[p + 1] - first[p], p < nrows ? 1 : 0);
    }
    free(first);
    free(expected);
}

/* Random row lengths (a 64-bit LCG from *seed): 1 to max_rows rows of 0 to
 * max_len nonzeros, with heavy, about one row in 17 90 heavier; row_ptr holds
 * max_rows + 1. The number of rows. */
static int64_t random_row_ptr(uint64_t *seed, int64_t max_rows, int64_t max_len, int heavy,
                              int64_t *row_ptr)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t nrows = 1 + (int64_t)(*seed >> 33) % max_rows;
    row_ptr[0] = 0;
    for (int64_t i = 0; i < nrows; i++) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        int64_t len = (int64_t)(*seed >> 40) % (max_len + 1);
        if (heavy && (*seed >> 20) % 17 == 0)
            len += 90;
        row_ptr[i + 1] = row_ptr[i] + len;
    }
    return nrows;
}

static void test_sparse_split_one_rank_takes_every_row(void **state)
{
    const int64_t row_ptr[] = {0, 3, 5, 11};
    const int64_t expected[] = {0, 3};
    (void)state;
    assert_split(row_ptr, 3, 1, expected);
}

static void test_sparse_split_a_tie_goes_to_the_lower_boundary(void **state)
{
    /* rows of 1, 2, 1 nonzeros: the half (2) is as far from 1 as from 3 */
    const int64_t three[] = {0, 1, 3, 4};
    const int64_t at_one[] = {0, 1, 3};
    /* six rows of 1 over 4 ranks: 1.5 and 4.5 tie, 3 is exact */
    const int64_t six[] = {0, 1, 2, 3, 4, 5, 6};
    const int64_t at_six[] = {0, 1, 3, 4, 6};
    /* rows 1 and 2 empty: the boundaries at 1, 2 and 3 are all at the half; the lowest */
    const int64_t empty[] = {0, 2, 2, 2, 4};
    const int64_t at_empty[] = {0, 1, 4};
    (void)state;
    assert_split(three, 3, 2, at_one);
    assert_split(six, 6, 4, at_six);
    assert_split(empty, 4, 2, at_empty);
}

static void test_sparse_split_nearest_boundary_to_each_even_share(void **state)
{
    /* rows of 2, 2, 2, 2 over 3 ranks: 8/3 nearest 2, 16/3 nearest 6 */
    const int64_t even[] = {0, 2, 4, 6, 8};
    const int64_t at_even[] = {0, 1, 3, 4};
    /* rows 5, 1, 1, 1, 1, 1: the share 5 is row 0's alone */
    const int64_t heavy[] = {0, 5, 6, 7, 8, 9, 10};
    const int64_t at_heavy[] = {0, 1, 6};
    (void)state;
    assert_split(even, 4, 3, at_even);
    assert_split(heavy, 6, 2, at_heavy);
}

static void test_sparse_split_every_rank_gets_a_row_when_there_are_enough(void **state)
{
    /* a heavy first row: the first two shares both nearest boundary 0 or 1, moved up */
    const int64_t first_heavy[] = {0, 100, 101, 102, 103};
    const int64_t at_first[] = {0, 1, 2, 4};
    /* a heavy last row: every boundary nearest 3, moved down */
    const int64_t last_heavy[] = {0, 1, 2, 3, 103};
    const int64_t at_last[] = {0, 2, 3, 4};
    /* no nonzeros at all: one row each, the rest to the last rank */
    const int64_t none[] = {0, 0, 0, 0, 0, 0};
    const int64_t at_none[] = {0, 1, 2, 5};
    /* as many ranks as rows: a row each, whatever their weights */
    const int64_t skewed[] = {0, 1, 50, 51, 52};
    const int64_t at_skewed[] = {0, 1, 2, 3, 4};
    (void)state;
    assert_split(first_heavy, 4, 3, at_first);
    assert_split(last_heavy, 4, 3, at_last);
    assert_split(none, 5, 3, at_none);
    assert_split(skewed, 4, 4, at_skewed);
}

static void test_sparse_split_more_ranks_than_rows_leaves_the_last_ranks_empty(void **state)
{
    const int64_t row_ptr[] = {0, 4, 7, 9};
    const int64_t expected[] = {0, 1, 2, 3, 3, 3, 3};
    const int64_t no_rows[] = {0};
    const int64_t at_no_rows[] = {0, 0, 0};
    (void)state;
    assert_split(row_ptr, 3, 6, expected);
    assert_split(no_rows, 0, 2, at_no_rows);
}

static void test_sparse_split_poisson_rows_at_many_rank_counts(void **state)
{
    static const sparse_poisson_t specs[] = {{2, 16}, {3, 6}, {2, 3}};
    static const int parts[] = {1,  2,  3,   4,   5,   7,   8,   9,   16,
                                31, 64, 215, 216, 217, 255, 256, 257, 1000};
    (void)state;
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        sparse_csr_t a;
        assert_int_equal(sparse_poisson_build(&specs[s], &a, NULL, 0), 0);
        int64_t max_row = 0;
        for (int64_t i = 0; i < a.nrows; i++)
            if (a.row_ptr[i + 1] - a.row_ptr[i] > max_row)
                max_row = a.row_ptr[i + 1] - a.row_ptr[i];
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            const int p = parts[i];
            check_split(a.row_ptr, a.nrows, p);
            /* where every rank has rows to spare, each is within a row of the even share */
            if (a.nrows >= 4 * p) {
                int64_t first[65];
                assert_true(p < 65);
                assert_int_equal(sparse_split_rows(a.row_ptr, a.nrows, p, first), 0);
                for (int r = 0; r < p; r++) {
                    const int64_t mine = a.row_ptr[first[r + 1]] - a.row_ptr[first[r]];
                    assert_true(llabs(p * mine - a.nnz) <= p * max_row);
                }
            }
        }
        sparse_csr_free(&a);
    }
}

static void test_sparse_split_agrees_with_the_rule_on_random_row_lengths(void **state)
{
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    (void)state;
    for (int trial = 0; trial < 200; trial++) {
        int64_t row_ptr[61];
        /* 0 to 12 nonzeros, a few rows far heavier */
        const int64_t nrows = random_row_ptr(&seed, 60, 12, 1, row_ptr);
        for (int parts = 1; parts <= 70; parts++)
            check_split(row_ptr, nrows, parts);
    }
}

static void test_sparse_split_offsets_near_the_top_of_int64_do_not_overflow(void **state)
{
    /* the half of 9e18 is 4.5e18: boundary 1 is 1 away, boundary 2 is 2 away */
    const int64_t row_ptr[] = {0, 4499999999999999999, 4500000000000000002, 9000000000000000000};
    const int64_t expected[] = {0, 1, 3};
    /* thirds of INT64_MAX - 1 (a multiple of 3 plus 0): boundaries exactly on them */
    const int64_t third = (INT64_MAX - 1) / 3;
    const int64_t thirds[] = {0, third - 1, third, 2 * third, 2 * third + 1, 3 * third};
    const int64_t at_thirds[] = {0, 2, 3, 5};
    (void)state;
    assert_split(row_ptr, 3, 2, expected);
    assert_split(thirds, 5, 3, at_thirds);
}

static void test_sparse_split_refuses_no_ranks_and_leaves_the_output(void **state)
{
    const int64_t row_ptr[] = {0, 2, 4};
    int64_t first[3] = {77, 88, 99};
    (void)state;
    assert_int_equal(sparse_split_rows(row_ptr, 2, 0, first), -1);
    assert_int_equal(sparse_split_rows(row_ptr, 2, -3, first), -1);
    assert_int_equal(sparse_split_rows(row_ptr, -1, 2, first), -1);
    assert_int_equal(first[0], 77);
    assert_int_equal(first[1], 88);
    assert_int_equal(first[2], 99);
}

/* The aligned split is the rule over the chunks (each chunk's nonzeros its
 * rows'), the chunks' boundaries turned back into rows: checked against the
 * brute force over a chunk row_ptr built here, on random row lengths. */
static void test_sparse_split_aligned_is_the_rule_over_chunks(void **state)
{
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    const int64_t aligns[] = {1, 2, 3, 32};
    (void)state;
    for (int trial = 0; trial < 100; trial++) {
        int64_t row_ptr[201];
        const int64_t nrows = random_row_ptr(&seed, 200, 8, 0, row_ptr);
        for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++) {
            const int64_t align = aligns[a], chunks = (nrows + align - 1) / align;
            int64_t chunk_ptr[201], first[41], expected[41];
            for (int64_t c = 0; c <= chunks; c++)
                chunk_ptr[c] = row_ptr[c * align < nrows ? c * align : nrows];
            for (int parts = 1; parts <= 40; parts++) {
                assert_int_equal(sparse_split_rows_aligned(row_ptr, nrows, parts, align, first), 0);
                brute_force_split(chunk_ptr, chunks, parts, expected);
                for (int p = 0; p <= parts; p++) {
                    const int64_t row = expected[p] * align < nrows ? expected[p] * align : nrows;
                    assert_int_equal(first[p], row);
                    /* every boundary a chunk's, or the end */
                    assert_true(first[p] % align == 0 || first[p] == nrows);
                }
            }
        }
    }
}

static void test_sparse_split_aligned_refuses_an_align_below_one(void **state)
{
    const int64_t row_ptr[] = {0, 2, 4};
    int64_t first[3] = {77, 88, 99};
    (void)state;
    assert_int_equal(sparse_split_rows_aligned(row_ptr, 2, 2, 0, first), -1);
    assert_int_equal(sparse_split_rows_aligned(row_ptr, 2, 2, -32, first), -1);
    assert_int_equal(first[0], 77);
    assert_int_equal(first[1], 88);
    assert_int_equal(first[2], 99);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_split_one_rank_takes_every_row),
        cmocka_unit_test(test_sparse_split_a_tie_goes_to_the_lower_boundary),
        cmocka_unit_test(test_sparse_split_nearest_boundary_to_each_even_share),
        cmocka_unit_test(test_sparse_split_every_rank_gets_a_row_when_there_are_enough),
        cmocka_unit_test(test_sparse_split_more_ranks_than_rows_leaves_the_last_ranks_empty),
        cmocka_unit_test(test_sparse_split_poisson_rows_at_many_rank_counts),
        cmocka_unit_test(test_sparse_split_agrees_with_the_rule_on_random_row_lengths),
        cmocka_unit_test(test_sparse_split_offsets_near_the_top_of_int64_do_not_overflow),
        cmocka_unit_test(test_sparse_split_refuses_no_ranks_and_leaves_the_output),
        cmocka_unit_test(test_sparse_split_aligned_is_the_rule_over_chunks),
        cmocka_unit_test(test_sparse_split_aligned_refuses_an_align_below_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
