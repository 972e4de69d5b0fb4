/* test_cli.c - pins src/common/cli.c, the command-line helpers every program uses: every message whole, for getopt_long and getopt_long_only alike. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static char err[512];

static const struct option longs[] = {
    {"alpha", required_argument, NULL, 'a'},
    {"allow-shared-gpu", no_argument, NULL, 's'},
    {"bench", no_argument, NULL, 'b'},
    {"bench-min", required_argument, NULL, 'B'},
    {"n", required_argument, NULL, 'n'},
    {"nx", required_argument, NULL, 'x'},
    {NULL, 0, NULL, 0},
};

/* What the program says for argv, parsed as the programs do (opterr 0, a
 * leading ':' so that a missing value is told apart), or "" when it parses. */
static const char *refused(int long_only, int argc, char **argv)
{
    int c;

    memset(err, 0, sizeof err);
    optind = 0;
    opterr = 0;
    while ((c = long_only ? getopt_long_only(argc, argv, ":h", longs, NULL)
                          : getopt_long(argc, argv, ":n:a:sbh", longs, NULL)) != -1) {
        if (c == '?' || c == ':') {
            app_option_error(c, argv[optind - 1], optopt, longs, long_only ? "-" : "--", err,
                             sizeof err);
            return err;
        }
    }
    return err;
}
#define REFUSED(lo, ...)                                                                           \
  refused(lo, (int)(sizeof((char *[]){"prog", __VA_ARGS__}) / sizeof(char *)),                     \
          (char *[]){"prog", __VA_ARGS__})

static void test_parse_long_takes_the_range_and_nothing_else(void **state)
{
    long v = 77;
    (void)state;
    assert_int_equal(app_parse_long("-nx", "3", 3, 10, &v, err, sizeof err), 0);
    assert_int_equal(v, 3);
    assert_int_equal(app_parse_long("-nx", "10", 3, 10, &v, err, sizeof err), 0);
    assert_int_equal(v, 10);
    assert_int_equal(app_parse_long("--x", "-4", -5, 0, &v, err, sizeof err), 0);
    assert_int_equal(v, -4);
    static const char *const bad[] = {
        "2", "11", "", " 4", "4 ", "+4", "0x4", "4k", "-", "--4", "99999999999999999999999", "4.0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[128];
        v = 77;
        assert_int_equal(app_parse_long("-nx", bad[i], 3, 10, &v, err, sizeof err), -1);
        snprintf(want, sizeof want, "invalid -nx '%s': expected an integer from 3 to 10", bad[i]);
        assert_string_equal(err, want);
        assert_int_equal(v, 77); /* untouched on a refusal */
    }
    assert_int_equal(app_parse_long("-nx", NULL, 3, 10, &v, err, sizeof err), -1);
    assert_string_equal(err, "invalid -nx '': expected an integer from 3 to 10");
    assert_int_equal(app_parse_long("n", "9223372036854775807", 0, LONG_MAX, &v, err, sizeof err),
                     0);
    assert_true(v == LONG_MAX);
}

static void test_parse_double_takes_finite_numbers_from_its_least(void **state)
{
    static const char *const bad[] = {"", " 1", "1x", "inf", "nan", "-1", "1e999", "--1"};
    double v = -1;

    (void)state;
    assert_int_equal(app_parse_double("--tol", "0", 0, &v, err, sizeof err), 0);
    assert_true(v == 0.0);
    assert_int_equal(app_parse_double("--tol", "2.5e-7", 0, &v, err, sizeof err), 0);
    assert_true(v == 2.5e-7);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid --tol '%s': expected a number >= 0", bad[i]);
        assert_int_equal(app_parse_double("--tol", bad[i], 0, &v, err, sizeof err), -1);
        assert_string_equal(err, want);
    }
    assert_true(v == 2.5e-7); /* a refusal leaves the value as it was */
}

static void test_parse_word_names_every_choice(void **state)
{
    static const char *const words[] = {"local", "ring", "global", "all"};
    int i = -1;
    (void)state;
    for (int w = 0; w < 4; w++) {
        assert_int_equal(app_parse_word("mode", words[w], words, 4, &i, err, sizeof err), 0);
        assert_int_equal(i, w);
    }
    i = -1;
    assert_int_equal(app_parse_word("mode", "LOCAL", words, 4, &i, err, sizeof err), -1);
    assert_string_equal(err, "invalid mode 'LOCAL': expected local, ring, global or all");
    assert_int_equal(i, -1);
    assert_int_equal(app_parse_word("mode", "loc", words, 4, &i, err, sizeof err), -1);
    assert_int_equal(app_parse_word("mode", "", words, 4, &i, err, sizeof err), -1);
    assert_string_equal(err, "invalid mode '': expected local, ring, global or all");
    assert_int_equal(app_parse_word("--x", "c", words, 2, &i, err, sizeof err), -1);
    assert_string_equal(err, "invalid --x 'c': expected local or ring");
    assert_int_equal(app_parse_word("--x", "c", words, 1, &i, err, sizeof err), -1);
    assert_string_equal(err, "invalid --x 'c': expected local");
}

/* A message that does not fit is cut, never overrun. */
static void test_messages_fit_any_buffer(void **state)
{
    static const char *const words[] = {"local", "ring", "global", "all"};
    char small[12];
    int i;
    (void)state;
    memset(small, 'x', sizeof small);
    assert_int_equal(app_parse_word("mode", "zz", words, 4, &i, small, 8), -1);
    assert_int_equal(strlen(small), 7);
    assert_int_equal(small[8], 'x');
    char *argv[] = {"prog", "--b"};
    optind = 0;
    opterr = 0;
    assert_int_equal(getopt_long(2, argv, ":", longs, NULL), '?');
    app_option_error('?', argv[1], optopt, longs, "--", small, 10);
    assert_int_equal(strlen(small), 9);
    assert_int_equal(small[10], 'x');
}

static void test_option_errors_getopt_long(void **state)
{
    (void)state;
    assert_string_equal(REFUSED(0, "--bogus"), "unknown option '--bogus'");
    assert_string_equal(REFUSED(0, "--bogus=1"), "unknown option '--bogus=1'");
    assert_string_equal(REFUSED(0, "-z"), "unknown option '-z'");
    assert_string_equal(REFUSED(0, "-sz"), "unknown option '-z'"); /* inside a bundle */
    assert_string_equal(REFUSED(0, "--alpha"), "option '--alpha' needs a value");
    assert_string_equal(REFUSED(0, "-a"), "option '-a' needs a value");
    assert_string_equal(
        REFUSED(0, "--allow-shared-gpu=1"),
        "option '--allow-shared-gpu=1' takes no value (--allow-shared-gpu is a flag)");
    assert_string_equal(REFUSED(0, "--allow=1"),
                        "option '--allow=1' takes no value (--allow-shared-gpu is a flag)");
    assert_string_equal(REFUSED(0, "--al"),
                        "ambiguous option '--al' (could be --alpha, --allow-shared-gpu)");
    assert_string_equal(REFUSED(0, "--al=3"),
                        "ambiguous option '--al' (could be --alpha, --allow-shared-gpu)");
    /* an exact name wins over the longer ones it starts */
    assert_string_equal(REFUSED(0, "--bench", "--n", "4"), "");
    assert_string_equal(REFUSED(0, "--bench=2"),
                        "option '--bench=2' takes no value (--bench is a flag)");
}

static void test_option_errors_getopt_long_only(void **state)
{
    (void)state;
    assert_string_equal(REFUSED(1, "-bogus"), "unknown option '-bogus'");
    assert_string_equal(REFUSED(1, "--bogus"), "unknown option '--bogus'");
    assert_string_equal(REFUSED(1, "-z"), "unknown option '-z'");
    assert_string_equal(REFUSED(1, "-nx"), "option '-nx' needs a value");
    assert_string_equal(REFUSED(1, "-nx", "5", "-n"), "option '-n' needs a value");
    assert_string_equal(REFUSED(1, "-al", "2"),
                        "ambiguous option '-al' (could be -alpha, -allow-shared-gpu)");
    assert_string_equal(REFUSED(1, "-allow=yes"),
                        "option '-allow=yes' takes no value (-allow-shared-gpu is a flag)");
    assert_string_equal(
        REFUSED(1, "--allow-shared-gpu=1"),
        "option '--allow-shared-gpu=1' takes no value (--allow-shared-gpu is a flag)");
    assert_string_equal(REFUSED(1, "-nx", "5", "--bench", "-alpha", "1"), "");
}

static void test_say_error_and_exit_status(void **state)
{
    (void)state;
    assert_int_equal(app_exit_status(1), 2);
    assert_int_equal(app_exit_status(0), 1);
    app_say_error("prog", 1, "not printed: rank 1 is silent"); /* nothing to check but no crash */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_long_takes_the_range_and_nothing_else),
        cmocka_unit_test(test_parse_double_takes_finite_numbers_from_its_least),
        cmocka_unit_test(test_parse_word_names_every_choice),
        cmocka_unit_test(test_messages_fit_any_buffer),
        cmocka_unit_test(test_option_errors_getopt_long),
        cmocka_unit_test(test_option_errors_getopt_long_only),
        cmocka_unit_test(test_say_error_and_exit_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
