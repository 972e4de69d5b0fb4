/* test_sparse_halo.c - pins a rank's columns on other nodes (sparse_halo.h): the ghosts distinct and ascending, each part's run of them, and the rows' columns rewritten so that every one reads the value it read before, in the same order. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sparse_halo.h"
#include "sparse_poisson.h"
#include "sparse_split.h"

/* Part `me` of a split into `parts`, its node the parts [node_lo, node_hi):
 * every property of the plan and the rewritten columns. */
static void check_plan(const sparse_csr_t *a, int parts, int me, int node_lo, int node_hi)
{
    int64_t first[17];
    sparse_halo_t h;
    char err[128];

    assert_int_equal(sparse_split_rows(a->row_ptr, a->nrows, parts, first), 0);
    const int64_t lo = first[node_lo], hi = first[node_hi];
    const int64_t e0 = a->row_ptr[first[me]], e1 = a->row_ptr[first[me + 1]];
    sparse_col_t *col = malloc((size_t)(e1 - e0 + 1) * sizeof *col);
    assert_non_null(col);
    assert_int_equal(sparse_halo_build(a, first, parts, me, lo, hi, col, &h, err, sizeof err), 0);

    /* the ghosts: distinct, ascending, none of the node's */
    for (int64_t g = 0; g < h.nghost; g++) {
        assert_true(h.ghost_col[g] < lo || h.ghost_col[g] >= hi);
        if (g > 0)
            assert_true(h.ghost_col[g] > h.ghost_col[g - 1]);
    }
    /* part p's run holds exactly its ghosts */
    assert_int_equal(h.from_first[0], 0);
    assert_int_equal(h.from_first[parts], h.nghost);
    for (int p = 0; p < parts; p++)
        for (int64_t g = h.from_first[p]; g < h.from_first[p + 1]; g++)
            assert_true(h.ghost_col[g] >= first[p] && h.ghost_col[g] < first[p + 1]);
    /* every entry reads what it read: a node column as it was, another's as its ghost;
     * and every ghost is read */
    int *read = calloc((size_t)h.nghost + 1, sizeof *read);
    assert_non_null(read);
    for (int64_t e = e0; e < e1; e++) {
        const int64_t c = col[e - e0];
        if (c >= 0) {
            assert_int_equal(c, a->col[e]);
            assert_true(c >= lo && c < hi);
        } else {
            assert_true(-1 - c < h.nghost);
            assert_int_equal(h.ghost_col[-1 - c], a->col[e]);
            read[-1 - c] = 1;
        }
    }
    for (int64_t g = 0; g < h.nghost; g++)
        assert_int_equal(read[g], 1);
    free(read);
    free(col);
    sparse_halo_free(&h);
}

static void test_sparse_halo_poisson_parts_on_nodes_of_every_shape(void **state)
{
    const sparse_poisson_t grids[] = {{2, 9}, {3, 5}};
    (void)state;
    for (size_t k = 0; k < sizeof grids / sizeof grids[0]; k++) {
        sparse_csr_t a;
        char err[128];
        assert_int_equal(sparse_poisson_build(&grids[k], &a, err, sizeof err), 0);
        for (int parts = 1; parts <= 8; parts++)
            for (int me = 0; me < parts; me++)
                /* nodes of 1, 2 and 3 parts around me, and the whole job */
                for (int width = 1; width <= 3; width++) {
                    const int node_lo = me - me % width;
                    const int node_hi = node_lo + width < parts ? node_lo + width : parts;
                    check_plan(&a, parts, me, node_lo, node_hi);
                }
        sparse_csr_free(&a);
    }
}

static void test_sparse_halo_one_node_has_no_ghosts(void **state)
{
    const sparse_poisson_t grid = {2, 6};
    sparse_csr_t a;
    int64_t first[5];
    sparse_halo_t h;
    char err[128];
    (void)state;
    assert_int_equal(sparse_poisson_build(&grid, &a, err, sizeof err), 0);
    assert_int_equal(sparse_split_rows(a.row_ptr, a.nrows, 4, first), 0);
    sparse_col_t *col = malloc((size_t)a.nnz * sizeof *col);
    assert_non_null(col);
    assert_int_equal(sparse_halo_build(&a, first, 4, 2, 0, a.nrows, col, &h, err, sizeof err), 0);
    assert_int_equal(h.nghost, 0);
    free(col);
    sparse_halo_free(&h);
    sparse_csr_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_halo_poisson_parts_on_nodes_of_every_shape),
        cmocka_unit_test(test_sparse_halo_one_node_has_no_ghosts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
