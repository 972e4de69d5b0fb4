/* test_jacobi_plan.c - the modes' table and the plan's neutral code
 * (kernels/jacobi/jacobi_plan.c, jacobi_cut.c): every mode named once, with
 * one line of usage, every fallback chain ending in a mode that cannot be
 * refused, the launch note's words naming the mode they fall back to, the
 * choice of a mode (auto's bounds, the host's loop, a refusal that stands),
 * auto refused a plan of its own, and the step's strips covering the rows.
 * Nothing here touches a device. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "jacobi_cut.h"
#include "jacobi_plan.h"

static void test_every_mode_has_one_name_and_auto_has_no_hooks(void **state)
{
    /* the words of --launch, the reports and the JSON: the tests and scripts read them */
    static const char *const names[JACOBI_LAUNCH_COUNT] = {
        [JACOBI_LAUNCH_AUTO] = "auto",     [JACOBI_LAUNCH_PERSISTENT] = "persistent",
        [JACOBI_LAUNCH_GRAPH] = "graph",   [JACOBI_LAUNCH_STREAM] = "stream",
        [JACOBI_LAUNCH_ONCHIP] = "onchip", [JACOBI_LAUNCH_TEMPORAL] = "temporal"};
    (void)state;
    for (int l = 0; l < JACOBI_LAUNCH_COUNT; l++)
        assert_string_equal(jacobi_launch_name((jacobi_launch_t)l), names[l]);
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_COUNT), "?");
    assert_string_equal(jacobi_launch_name((jacobi_launch_t)-1), "?");
    assert_null(jacobi_launch_mode(JACOBI_LAUNCH_COUNT));
    for (int a = 0; a < JACOBI_LAUNCH_COUNT; a++)
        for (int b = a + 1; b < JACOBI_LAUNCH_COUNT; b++)
            assert_string_not_equal(jacobi_launch_name((jacobi_launch_t)a),
                                    jacobi_launch_name((jacobi_launch_t)b));
    const jacobi_launch_mode_t *a = jacobi_launch_mode(JACOBI_LAUNCH_AUTO);
    assert_null(a->how);
    assert_null(a->plan.run);
    assert_null(a->plan.size);
    assert_int_equal(a->device_driven, 0);
    for (int l = 1; l < JACOBI_LAUNCH_COUNT; l++) {
        const jacobi_launch_mode_t *m = jacobi_launch_mode((jacobi_launch_t)l);
        assert_non_null(m->how);
        assert_non_null(m->plan.run);
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
        while (jacobi_launch_mode(at)->fallback.to != JACOBI_LAUNCH_AUTO) {
            const jacobi_launch_mode_t *m = jacobi_launch_mode(at);
            const char *to = jacobi_launch_name(m->fallback.to);
            assert_non_null(m->fallback.refused);
            assert_non_null(m->fallback.instead);
            assert_true(m->device_driven); /* only the device's own modes are refused */
            if (strncmp(m->fallback.instead, to, strlen(to)) != 0)
                fail_msg("%s falls back to %s, and its note says '%s instead'", m->name, to,
                         m->fallback.instead);
            at = m->fallback.to;
            assert_true(++steps < JACOBI_LAUNCH_COUNT);
        }
        assert_null(jacobi_launch_mode(at)->fallback.refused);
        assert_int_equal(jacobi_launch_mode(at)->device_driven, 0);
        assert_null(jacobi_launch_mode(at)->plan.fits);
    }
}

/* Every mode's usage line is one line, short enough to stand beside its name
 * in --launch's usage. */
static void test_every_mode_has_one_line_of_help(void **state)
{
    (void)state;
    for (int l = 0; l < JACOBI_LAUNCH_COUNT; l++) {
        const char *help = jacobi_launch_help((jacobi_launch_t)l);
        assert_non_null(help);
        assert_true(help[0] != '\0');
        assert_null(strchr(help, '\n'));
        assert_true(strlen(help) <= 60);
    }
    assert_string_equal(jacobi_launch_help(JACOBI_LAUNCH_COUNT), "?");
}

static jacobi_launch_ask_t ask_of(jacobi_launch_t asked, int reference, int gpu, int rows)
{
    const jacobi_launch_ask_t ask = {.asked = asked,
                                     .reference = reference,
                                     .gpu = gpu,
                                     .ranks_on_device = 1,
                                     .nx = 1024,
                                     .rows = rows};
    return ask;
}

/* Auto by the measurements: on a GPU temporal from 8 Mi points a rank, on
 * chip from 2 Mi, else persistent; persistent on the host backend; graph
 * where the run's ranks share the device (not the reference, alone on it);
 * stream wherever the host takes part in every step; any other mode as asked. */
static void test_the_choice_follows_the_measurements(void **state)
{
    jacobi_launch_ask_t ask;
    (void)state;
    ask = ask_of(JACOBI_LAUNCH_AUTO, 0, 1, 8192);
    assert_int_equal(jacobi_launch_choose(&ask), JACOBI_LAUNCH_TEMPORAL);
    ask.rows = 8191;
    assert_int_equal(jacobi_launch_choose(&ask), JACOBI_LAUNCH_ONCHIP);
    ask.rows = 2048;
    assert_int_equal(jacobi_launch_choose(&ask), JACOBI_LAUNCH_ONCHIP);
    ask.rows = 2047;
    assert_int_equal(jacobi_launch_choose(&ask), JACOBI_LAUNCH_PERSISTENT);
    ask = ask_of(JACOBI_LAUNCH_AUTO, 0, 0, 8192);
    assert_int_equal(jacobi_launch_choose(&ask), JACOBI_LAUNCH_PERSISTENT);
    ask = ask_of(JACOBI_LAUNCH_AUTO, 0, 1, 8192);
    ask.ranks_on_device = 2;
    assert_int_equal(jacobi_launch_choose(&ask), JACOBI_LAUNCH_GRAPH);
    ask.reference = 1;
    assert_int_equal(jacobi_launch_choose(&ask), JACOBI_LAUNCH_TEMPORAL);
    for (int l = 0; l < JACOBI_LAUNCH_COUNT; l++) {
        ask = ask_of((jacobi_launch_t)l, 0, 1, 16);
        ask.host_loop = 1;
        assert_int_equal(jacobi_launch_choose(&ask), JACOBI_LAUNCH_STREAM);
        ask.reference = 1; /* the reference runs alone: no host loop */
        if (l != JACOBI_LAUNCH_AUTO)
            assert_int_equal(jacobi_launch_choose(&ask), l);
    }
}

/* A refused plan: the run's mode asked for stands refused, auto's choice
 * falls back as the table says; the reference's on-chip tiles and temporal
 * passes fall back even where asked, its persistent grid does not. */
static void test_a_refusal_falls_back_unless_the_mode_was_asked_for(void **state)
{
    jacobi_launch_ask_t ask = ask_of(JACOBI_LAUNCH_ONCHIP, 0, 1, 16);
    (void)state;
    assert_int_equal(jacobi_launch_instead(&ask, JACOBI_LAUNCH_ONCHIP), JACOBI_LAUNCH_AUTO);
    ask.reference = 1;
    assert_int_equal(jacobi_launch_instead(&ask, JACOBI_LAUNCH_ONCHIP), JACOBI_LAUNCH_PERSISTENT);
    assert_int_equal(jacobi_launch_instead(&ask, JACOBI_LAUNCH_PERSISTENT), JACOBI_LAUNCH_GRAPH);
    ask.asked = JACOBI_LAUNCH_PERSISTENT;
    assert_int_equal(jacobi_launch_instead(&ask, JACOBI_LAUNCH_PERSISTENT), JACOBI_LAUNCH_AUTO);
    ask = ask_of(JACOBI_LAUNCH_AUTO, 0, 1, 16);
    assert_int_equal(jacobi_launch_instead(&ask, JACOBI_LAUNCH_TEMPORAL), JACOBI_LAUNCH_PERSISTENT);
    assert_int_equal(jacobi_launch_instead(&ask, JACOBI_LAUNCH_GRAPH), JACOBI_LAUNCH_AUTO);
    /* temporal passes only where asked, or auto on a GPU: their deep ghost rows */
    assert_true(jacobi_launch_may_run(JACOBI_LAUNCH_TEMPORAL, 0, JACOBI_LAUNCH_TEMPORAL));
    assert_true(jacobi_launch_may_run(JACOBI_LAUNCH_AUTO, 1, JACOBI_LAUNCH_TEMPORAL));
    assert_false(jacobi_launch_may_run(JACOBI_LAUNCH_AUTO, 0, JACOBI_LAUNCH_TEMPORAL));
    assert_false(jacobi_launch_may_run(JACOBI_LAUNCH_ONCHIP, 1, JACOBI_LAUNCH_TEMPORAL));
    assert_true(jacobi_launch_may_run(JACOBI_LAUNCH_ONCHIP, 1, JACOBI_LAUNCH_GRAPH));
}

/* The note's words for a refusal, one after the other. */
static void test_the_note_tells_each_refusal(void **state)
{
    char note[96] = "";
    (void)state;
    jacobi_launch_note_refusal(note, sizeof note, JACOBI_LAUNCH_ONCHIP, "rank 1: too wide");
    assert_string_equal(note, "not on chip (rank 1: too wide): persistent instead");
    jacobi_launch_note_refusal(note, sizeof note, JACOBI_LAUNCH_PERSISTENT, "no room");
    /* cut at the note's end, as the program's fixed buffer */
    assert_string_equal(note, "not on chip (rank 1: too wide): persistent instead; persistent "
                              "launches cannot run here (no roo");
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
        cmocka_unit_test(test_every_mode_has_one_line_of_help),
        cmocka_unit_test(test_the_choice_follows_the_measurements),
        cmocka_unit_test(test_a_refusal_falls_back_unless_the_mode_was_asked_for),
        cmocka_unit_test(test_the_note_tells_each_refusal),
        cmocka_unit_test(test_auto_has_no_plan_of_its_own),
        cmocka_unit_test(test_the_strips_cover_the_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
