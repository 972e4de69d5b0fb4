/* test_jacobi_plan.c - the modes' table and the plan's neutral code
 * (kernels/jacobi/jacobi_plan.c, jacobi_cut.c): every mode named once and
 * parsed back, every fallback chain ending in a mode that cannot be refused,
 * the launch note's words naming the mode they fall back to, auto refused a
 * plan of its own, and the step's strips covering the rows. Nothing here
 * touches a device. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "jacobi_plan.h"

static void test_every_mode_has_one_name_and_auto_has_no_hooks(void **state)
{
    (void)state;
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_AUTO), "auto");
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_PERSISTENT), "persistent");
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_GRAPH), "graph");
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_STREAM), "stream");
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_ONCHIP), "onchip");
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_TEMPORAL), "temporal");
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_COUNT), "?");
    assert_string_equal(jacobi_launch_name((jacobi_launch_t)-1), "?");
    assert_null(jacobi_launch_mode(JACOBI_LAUNCH_COUNT));
    for (int a = 0; a < JACOBI_LAUNCH_COUNT; a++)
        for (int b = a + 1; b < JACOBI_LAUNCH_COUNT; b++)
            assert_string_not_equal(jacobi_launch_name((jacobi_launch_t)a),
                                    jacobi_launch_name((jacobi_launch_t)b));
    const jacobi_launch_mode_t *a = jacobi_launch_mode(JACOBI_LAUNCH_AUTO);
    assert_null(a->how);
    assert_null(a->run);
    assert_null(a->size);
    assert_int_equal(a->device_driven, 0);
    for (int l = 1; l < JACOBI_LAUNCH_COUNT; l++) {
        const jacobi_launch_mode_t *m = jacobi_launch_mode((jacobi_launch_t)l);
        assert_non_null(m->how);
        assert_non_null(m->run);
        assert_true(!m->tiled || m->device_driven); /* tiles and passes run on the device alone */
    }
}

/* From any mode, the refusals lead within the table's length to one with no
 * fallback, which no plan refuses (graph, stream) and which a solve the host
 * takes part in can run; each step's note says where it goes. */
static void test_every_fallback_chain_ends_in_a_mode_without_refusal(void **state)
{
    (void)state;
    for (int l = 1; l < JACOBI_LAUNCH_COUNT; l++) {
        jacobi_launch_t at = (jacobi_launch_t)l;
        int steps = 0;
        while (jacobi_launch_mode(at)->fallback != JACOBI_LAUNCH_AUTO) {
            const jacobi_launch_mode_t *m = jacobi_launch_mode(at);
            const char *to = jacobi_launch_name(m->fallback);
            assert_non_null(m->refused);
            assert_non_null(m->instead);
            assert_true(m->device_driven); /* only the device's own modes are refused */
            if (strncmp(m->instead, to, strlen(to)) != 0)
                fail_msg("%s falls back to %s, and its note says '%s instead'", m->name, to,
                         m->instead);
            at = m->fallback;
            assert_true(++steps < JACOBI_LAUNCH_COUNT);
        }
        assert_null(jacobi_launch_mode(at)->refused);
        assert_int_equal(jacobi_launch_mode(at)->device_driven, 0);
        assert_null(jacobi_launch_mode(at)->fits);
    }
}

static void test_auto_has_no_plan_of_its_own(void **state)
{
    jacobi_step_t s;
    jacobi_plan_t *plan = NULL;
    char why[160];
    (void)state;
    memset(&s, 0, sizeof s);
    assert_int_equal(jacobi_plan_create(&s, NULL, JACOBI_LAUNCH_AUTO, NULL, &plan, why, sizeof why),
                     JACOBI_PLAN_NOT_RESIDENT);
    assert_null(plan);
    assert_string_equal(why, "launch mode auto has no plan of its own");
    assert_int_equal(
        jacobi_plan_create(&s, NULL, JACOBI_LAUNCH_COUNT, NULL, &plan, why, sizeof why),
        JACOBI_PLAN_NOT_RESIDENT);
    assert_null(plan);
    /* the queries of a plan that is not one */
    int cols = -1, rows = -1;
    assert_int_equal(jacobi_plan_tiles(NULL), 0);
    assert_int_equal(jacobi_plan_tile_rows(NULL), 0);
    assert_int_equal(jacobi_plan_temporal_cut(NULL, &cols, &rows), 0);
    assert_int_equal(cols, -1);
}

/* The step kernel's strips: no more tiles than `blocks`, no more strips
 * than rows of min_rows allow, and every row in one strip. */
static void test_the_strips_cover_the_rows(void **state)
{
    (void)state;
    for (int rows = 1; rows <= 300; rows += 7)
        for (int bx = 1; bx <= 5; bx++)
            for (int blocks = 1; blocks <= 600; blocks += 37)
                for (int min_rows = 1; min_rows <= 64; min_rows *= 4) {
                    jacobi_step_t s;
                    memset(&s, 0, sizeof s);
                    s.rows = rows;
                    s.blocks_x = bx;
                    jacobi_step_cut(&s, blocks, min_rows);
                    assert_true(s.strips >= 1);
                    assert_true((long)s.strips * s.rows_per_strip >= rows);
                    assert_true((long)(s.strips - 1) * s.rows_per_strip < rows);
                    assert_true(s.strips <=
                                (rows + min_rows - 1) / min_rows); /* min_rows allows them */
                    assert_true(s.strips == 1 ||
                                s.strips <= blocks / bx); /* about `blocks` tiles */
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_mode_has_one_name_and_auto_has_no_hooks),
        cmocka_unit_test(test_every_fallback_chain_ends_in_a_mode_without_refusal),
        cmocka_unit_test(test_auto_has_no_plan_of_its_own),
        cmocka_unit_test(test_the_strips_cover_the_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
