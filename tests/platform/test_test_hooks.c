/* test_test_hooks.c - pins src/platform/test_hooks.h, compiled twice: with the
 * hooks (the test build) a set hook's text is read and an unset or empty one
 * is NULL; without them (TEST_HOOKS_OFF: the installed build) an unset or empty
 * hook is NULL and a set one is refused with a message that names it and says
 * what build reads it; a rank hook's text parsed strictly (N13). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#ifdef TEST_HOOKS_OFF
#  undef SHARDTAB_TEST_HOOKS
#endif
#include "test_hooks.h"

static void unset_or_empty_is_null(void **state)
{
    (void)state;
    const char *text = "not touched";
    char err[256] = "";

    unsetenv("JACOBI_TEST_STALL");
    assert_int_equal(test_hook_read("JACOBI_TEST_STALL", &text, err, sizeof err), 0);
    assert_null(text);
    setenv("JACOBI_TEST_STALL", "", 1);
    text = "not touched";
    assert_int_equal(test_hook_read("JACOBI_TEST_STALL", &text, err, sizeof err), 0);
    assert_null(text);
    assert_string_equal(err, "");
    unsetenv("JACOBI_TEST_STALL");
}

static void set_hook(void **state)
{
    (void)state;
    const char *text = NULL;
    char err[256] = "";

    setenv("SHARDTAB_FAULT", "open:1", 1);
    int rc = test_hook_read("SHARDTAB_FAULT", &text, err, sizeof err);
#ifdef TEST_HOOKS_OFF
    assert_int_equal(SHARDTAB_HAVE_TEST_HOOKS, 0);
    assert_int_equal(rc, -1);
    assert_null(text);
    assert_string_equal(err, "SHARDTAB_FAULT is set, but it is a test hook and this build has "
                             "none: unset it (a test build, configured with "
                             "-DSHARDTAB_TEST_HOOKS=ON, reads it)");
#else
    assert_int_equal(SHARDTAB_HAVE_TEST_HOOKS, 1);
    assert_int_equal(rc, 0);
    assert_non_null(text);
    assert_string_equal(text, "open:1");
    assert_string_equal(err, "");
#endif
    unsetenv("SHARDTAB_FAULT");
}

/* "<rank>[:<n>]": decimals alone, the rank one the job has, n within its range */
static void rank_hooks_parse_strictly(void **state)
{
    (void)state;
    char err[256] = "";
    int rank = -9;
    long n = -9;

    assert_int_equal(test_hook_rank_and("H", "0", 3, -1, &rank, &n, err, sizeof err), 0);
    assert_int_equal(rank, 0);
    assert_int_equal(n, -1);
    assert_int_equal(test_hook_rank_and("H", "2:40", 3, 100, &rank, &n, err, sizeof err), 0);
    assert_int_equal(rank, 2);
    assert_int_equal(n, 40);
    const char *const malformed[] = {"abc", "-1", "0x1", " 1", "1 ", "+1", "1:", ":4", "1:x"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        char want[256];
        snprintf(want, sizeof want,
                 "H='%s' is not <rank>[:<iteration>]: decimal numbers, the iteration 0 to 100",
                 malformed[i]);
        assert_int_equal(test_hook_rank_and("H", malformed[i], 3, 100, &rank, &n, err, sizeof err),
                         -1);
        assert_string_equal(err, want);
    }
    assert_int_equal(test_hook_rank_and("H", "1:2", 3, -1, &rank, &n, err, sizeof err), -1);
    assert_string_equal(err, "H='1:2' is not a rank: a decimal number");
    assert_int_equal(test_hook_rank_and("H", "1:101", 3, 100, &rank, &n, err, sizeof err), -1);
    assert_int_equal(test_hook_rank_and("H", "3", 3, -1, &rank, &n, err, sizeof err), -1);
    assert_string_equal(err, "H='3' names rank 3, and the job has 3 ranks (0 to 2)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unset_or_empty_is_null),
        cmocka_unit_test(set_hook),
        cmocka_unit_test(rank_hooks_parse_strictly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
