/* test_cg_launch.c - pins the cg program's table of launch modes and the choice made
 * over it (kernels/cg/cg_launch.h) on the host backend, whose grid is one block that
 * is always resident: each row's name, help and fallback; the mode each job shape
 * gets, asked or by auto, with auto's note; and the refusals' exact messages (the
 * program prints them as they are). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cg_launch.h"

static cg_args_t args;

/* The choice for a job of `ranks` ranks on `nodes` nodes, `share` ranks on this
 * rank's device: its return code, the mode, auto's note and the message. */
typedef struct choice {
    int rc;
    cg_launch_t launch;
    int blocks, most;
    char note[256], why[512];
} choice_t;

static choice_t choose(cg_launch_t asked, int ranks, int nodes, int share)
{
    const cg_launch_where_t where = {&args, 1, ranks, nodes, share};
    choice_t c;

    memset(&c, 0, sizeof c);
    c.launch = CG_LAUNCH_COUNT;
    c.rc = cg_launch_choose(&where, asked, &c.launch, &c.blocks, &c.most, c.note, sizeof c.note,
                            c.why, sizeof c.why);
    return c;
}

static void test_table(void **state)
{
    (void)state;
    const char *const names[CG_LAUNCH_COUNT] = {"auto", "persistent", "stream"};
    for (int m = 0; m < CG_LAUNCH_COUNT; m++) {
        const cg_launch_mode_t *mode = cg_launch_mode((cg_launch_t)m);
        assert_non_null(mode);
        assert_string_equal(mode->name, names[m]);
        assert_non_null(mode->help);
        assert_string_equal(cg_launch_help((cg_launch_t)m), mode->help);
        /* auto alone has no run of its own; auto's chain ends at a mode without fallback */
        assert_int_equal(mode->run == NULL, m == CG_LAUNCH_AUTO);
        assert_true((unsigned)mode->fallback < CG_LAUNCH_COUNT);
    }
    assert_null(cg_launch_mode(CG_LAUNCH_COUNT));
    assert_string_equal(cg_launch_help(CG_LAUNCH_COUNT), "?");
    assert_string_equal(cg_launch_help(CG_LAUNCH_PERSISTENT), "one cooperative launch");
    assert_string_equal(cg_launch_help(CG_LAUNCH_STREAM), "a launch a phase");
    assert_string_equal(cg_launch_help(CG_LAUNCH_AUTO),
                        "persistent where the grid is resident, else stream");
}

static void test_auto(void **state)
{
    (void)state;
    choice_t c = choose(CG_LAUNCH_AUTO, 1, 1, 1);
    assert_int_equal(c.rc, 0);
    assert_int_equal(c.launch, CG_LAUNCH_PERSISTENT);
    assert_string_equal(c.note, "auto: the grid is resident");
    assert_int_equal(c.blocks, 1);

    c = choose(CG_LAUNCH_AUTO, 2, 1, 2); /* without MPS a peer on the device may not run */
    assert_int_equal(c.rc, 0);
    assert_int_equal(c.launch, CG_LAUNCH_STREAM);
    assert_string_equal(c.note, "auto: 2 ranks share the device");

    c = choose(CG_LAUNCH_AUTO, 4, 2, 2); /* the nodes first */
    assert_int_equal(c.rc, 0);
    assert_int_equal(c.launch, CG_LAUNCH_STREAM);
    assert_string_equal(c.note, "auto: 2 nodes");
}

static void test_asked(void **state)
{
    (void)state;
    choice_t c = choose(CG_LAUNCH_PERSISTENT, 2, 1, 2); /* asked: the device's share is not a bar */
    assert_int_equal(c.rc, 0);
    assert_int_equal(c.launch, CG_LAUNCH_PERSISTENT);
    assert_string_equal(c.note, "");

    c = choose(CG_LAUNCH_STREAM, 4, 2, 1);
    assert_int_equal(c.rc, 0);
    assert_int_equal(c.launch, CG_LAUNCH_STREAM);
    assert_string_equal(c.note, "");

    c = choose(CG_LAUNCH_PERSISTENT, 4, 2, 1);
    assert_int_equal(c.rc, CG_LAUNCH_REFUSED);
    assert_int_equal(c.launch, CG_LAUNCH_COUNT);
    assert_string_equal(c.why, "--launch persistent: the 4 ranks span 2 nodes: between nodes the "
                               "host moves the columns and sums the dot products between "
                               "launches (use --launch stream or auto)");

    c = choose(CG_LAUNCH_COUNT, 1, 1, 1);
    assert_int_equal(c.rc, CG_LAUNCH_REFUSED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_table), cmocka_unit_test(test_auto),
                                       cmocka_unit_test(test_asked)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
