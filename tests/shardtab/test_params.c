/* test_params.c - pins src/shardtab/params.c: shardtab_create_params_t resolved
 * (the defaults, each value kept or refused with its message), SHARDTAB_WAIT_TIMEOUT
 * read only when the caller gives no limit and only as a plain decimal number of
 * seconds, and SHARDTAB_RANKS_PER_NODE as a positive integer. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

static const char *said(void)
{
    return st_thread_last_error() + st_error_prefix_bytes();
}

static int clear_environment(void **state)
{
    (void)state;
    unsetenv("SHARDTAB_WAIT_TIMEOUT");
    unsetenv("SHARDTAB_RANKS_PER_NODE");
    return 0;
}

static void test_params_default_when_none_are_given(void **state)
{
    shardtab_create_params_t out;
    (void)state;
    memset(&out, 0x5a, sizeof out);
    assert_int_equal(st_create_params_resolve(NULL, &out), SHARDTAB_SUCCESS);
    assert_null(out.stream);
    assert_int_equal(out.signal_slots, SHARDTAB_SIGNAL_SLOTS_DEFAULT);
    assert_true(out.wait_timeout_s == SHARDTAB_WAIT_TIMEOUT_DEFAULT_S);
    assert_int_equal(out.alignment, 1);
    assert_null(out.label);
}

static void test_params_keep_what_the_caller_gives(void **state)
{
    int stream_stand_in;
    shardtab_create_params_t in = {.stream = &stream_stand_in,
                                   .signal_slots = 1 << 20,
                                   .wait_timeout_s = 1e6,
                                   .alignment = 4096,
                                   .label = "halo"};
    shardtab_create_params_t out;
    (void)state;
    setenv("SHARDTAB_WAIT_TIMEOUT", "3", 1); /* the caller's limit wins */
    assert_int_equal(st_create_params_resolve(&in, &out), SHARDTAB_SUCCESS);
    assert_ptr_equal(out.stream, &stream_stand_in);
    assert_int_equal(out.signal_slots, 1 << 20);
    assert_true(out.wait_timeout_s == 1e6);
    assert_int_equal(out.alignment, 4096);
    assert_string_equal(out.label, "halo");
    in.signal_slots = 7;
    in.wait_timeout_s = 0.25;
    in.alignment = 1;
    assert_int_equal(st_create_params_resolve(&in, &out), SHARDTAB_SUCCESS);
    assert_int_equal(out.signal_slots, 7);
    assert_true(out.wait_timeout_s == 0.25);
    assert_int_equal(out.alignment, 1);
}

static void refused(const shardtab_create_params_t *in, const char *message)
{
    shardtab_create_params_t out;
    assert_int_equal(st_create_params_resolve(in, &out), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), message);
}

static void test_params_refuse_each_bad_value(void **state)
{
    shardtab_create_params_t in = {.alignment = 48};
    (void)state;
    refused(&in, "alignment 48 is not a power of two");
    in.alignment = 3;
    refused(&in, "alignment 3 is not a power of two");
    in.alignment = 64;
    in.signal_slots = -1;
    refused(&in, "signal_slots -1 is outside [0, 1048576]");
    in.signal_slots = (1 << 20) + 1;
    refused(&in, "signal_slots 1048577 is outside [0, 1048576]");
    in.signal_slots = 9;
    in.wait_timeout_s = -0.5;
    refused(&in,
            "wait_timeout_s -0.5 is not 0 (the default) or a number of seconds in [0.001, 1e6]");
    in.wait_timeout_s = 1e6 + 1;
    refused(&in,
            "wait_timeout_s 1e+06 is not 0 (the default) or a number of seconds in [0.001, 1e6]");
    in.wait_timeout_s = NAN;
    refused(&in,
            "wait_timeout_s nan is not 0 (the default) or a number of seconds in [0.001, 1e6]");
    in.wait_timeout_s = 0.0005; /* below the floor: ranks in step would miss each other */
    refused(&in,
            "wait_timeout_s 0.0005 is not 0 (the default) or a number of seconds in [0.001, 1e6]");
}

static double timeout_from(const char *text)
{
    shardtab_create_params_t out;
    setenv("SHARDTAB_WAIT_TIMEOUT", text, 1);
    assert_int_equal(st_create_params_resolve(NULL, &out), SHARDTAB_SUCCESS);
    return out.wait_timeout_s;
}

static void test_wait_timeout_variable_takes_plain_decimal_seconds(void **state)
{
    (void)state;
    assert_true(timeout_from("5") == 5.0);
    assert_true(timeout_from("2.5") == 2.5);
    assert_true(timeout_from(".5") == 0.5);
    assert_true(timeout_from("7.") == 7.0);
    assert_true(timeout_from("1e1") == 10.0);
    assert_true(timeout_from("25E-1") == 2.5);
    assert_true(timeout_from("1e+6") == 1e6);
    assert_true(timeout_from("0.001") == 0.001);                      /* the floor */
    assert_true(timeout_from("") == SHARDTAB_WAIT_TIMEOUT_DEFAULT_S); /* empty: unset */
}

static void test_wait_timeout_variable_refuses_anything_else(void **state)
{
    static const char *const bad[] = {" 5", "5 ",  "0x10",      "inf",     "nan", "-1", "+1",
                                      "0",  "0.0", "1e7",       "1000001", "e5",  "5e", "5e+",
                                      ".",  "1,5", "0.0000001", "0.0009",  "1e-4"};
    char want[256];
    shardtab_create_params_t out;
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("SHARDTAB_WAIT_TIMEOUT", bad[i], 1);
        if (st_create_params_resolve(NULL, &out) != SHARDTAB_ERR_INVALID_ARG)
            fail_msg("SHARDTAB_WAIT_TIMEOUT='%s' accepted", bad[i]);
        snprintf(want, sizeof want,
                 "SHARDTAB_WAIT_TIMEOUT='%s' is not a number of seconds in [0.001, 1e6] (below "
                 "1 ms, ranks that arrive together would miss each other)",
                 bad[i]);
        assert_string_equal(said(), want);
    }
}

static void test_ranks_per_node_is_a_positive_integer_or_unset(void **state)
{
    static const char *const bad[] = {"0", "-2", "x", "2x", " 2", "2.0"};
    char want[256];
    int rpn = -7;
    (void)state;
    assert_int_equal(st_ranks_per_node_from_env(&rpn), SHARDTAB_SUCCESS);
    assert_int_equal(rpn, 0);
    setenv("SHARDTAB_RANKS_PER_NODE", "", 1);
    rpn = -7;
    assert_int_equal(st_ranks_per_node_from_env(&rpn), SHARDTAB_SUCCESS);
    assert_int_equal(rpn, 0);
    setenv("SHARDTAB_RANKS_PER_NODE", "3", 1);
    assert_int_equal(st_ranks_per_node_from_env(&rpn), SHARDTAB_SUCCESS);
    assert_int_equal(rpn, 3);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("SHARDTAB_RANKS_PER_NODE", bad[i], 1);
        assert_int_equal(st_ranks_per_node_from_env(&rpn), SHARDTAB_ERR_INVALID_ARG);
        snprintf(want, sizeof want, "SHARDTAB_RANKS_PER_NODE='%s' is not a positive integer",
                 bad[i]);
        assert_string_equal(said(), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_params_default_when_none_are_given, clear_environment),
        cmocka_unit_test_setup(test_params_keep_what_the_caller_gives, clear_environment),
        cmocka_unit_test_setup(test_params_refuse_each_bad_value, clear_environment),
        cmocka_unit_test_setup(test_wait_timeout_variable_takes_plain_decimal_seconds,
                               clear_environment),
        cmocka_unit_test_setup(test_wait_timeout_variable_refuses_anything_else, clear_environment),
        cmocka_unit_test_setup(test_ranks_per_node_is_a_positive_integer_or_unset,
                               clear_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
