/* test_fault.c - pins SHARDTAB_FAULT parsing (st_fault_parse: "<step>:<rank>") and st_parse_positive_int. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const step_names[ST_FAULT_STEP_COUNT] = {
    "alloc", "export", "exchange", "open", "upload", "close", "free",
};

static void expect_fault(const char *text, st_fault_step_t step, int rank)
{
    st_fault_step_t got_step = ST_FAULT_STEP_COUNT;
    int got_rank = -99;
    if (st_fault_parse(text, &got_step, &got_rank) != 0)
        fail_msg("'%s' rejected", text);
    assert_int_equal(got_step, step);
    assert_int_equal(got_rank, rank);
}

static void expect_no_fault(const char *text)
{
    st_fault_step_t step = ST_FAULT_STEP_COUNT;
    int rank = -99;
    if (st_fault_parse(text, &step, &rank) == 0)
        fail_msg("'%s' accepted as step %d rank %d", text ? text : "(null)", (int)step, rank);
    /* nothing written on failure */
    assert_int_equal(step, ST_FAULT_STEP_COUNT);
    assert_int_equal(rank, -99);
}

static void expect_int(const char *text, int value)
{
    int got = -99;
    if (st_parse_positive_int(text, &got) != 0)
        fail_msg("'%s' rejected", text);
    assert_int_equal(got, value);
}

static void expect_no_int(const char *text)
{
    int got = -99;
    if (st_parse_positive_int(text, &got) == 0)
        fail_msg("'%s' accepted as %d", text ? text : "(null)", got);
    assert_int_equal(got, -99);
}

static void test_fault_parse_accepts_every_step_at_rank_zero_and_three(void **state)
{
    char text[32];
    (void)state;
    for (int s = 0; s < ST_FAULT_STEP_COUNT; s++) {
        snprintf(text, sizeof text, "%s:0", step_names[s]);
        expect_fault(text, (st_fault_step_t)s, 0);
        snprintf(text, sizeof text, "%s:3", step_names[s]);
        expect_fault(text, (st_fault_step_t)s, 3);
    }
    expect_fault("open:0", ST_FAULT_OPEN, 0);
    expect_fault("close:3", ST_FAULT_CLOSE, 3);
}

static void test_fault_parse_accepts_large_ranks(void **state)
{
    char text[32];
    (void)state;
    expect_fault("exchange:1023", ST_FAULT_EXCHANGE, 1023);
    snprintf(text, sizeof text, "free:%d", INT_MAX);
    expect_fault(text, ST_FAULT_FREE, INT_MAX);
}

static void test_fault_parse_rejects_missing_rank(void **state)
{
    (void)state;
    expect_no_fault("open");
    expect_no_fault("open:");
    expect_no_fault("");
    expect_no_fault(NULL);
}

static void test_fault_parse_rejects_bad_rank(void **state)
{
    (void)state;
    expect_no_fault("open:-1");
    expect_no_fault("open:+1");
    expect_no_fault("open:1x");
    expect_no_fault("open:x");
    expect_no_fault("open:1.0");
    expect_no_fault("open:1:2");
    expect_no_fault("open:2147483648");
    expect_no_fault("open:99999999999999999999");
}

static void test_fault_parse_rejects_unknown_or_missing_step(void **state)
{
    (void)state;
    expect_no_fault("opne:1");
    expect_no_fault(":1");
    expect_no_fault("OPEN:1");
    expect_no_fault("ope:1");    /* a prefix of a step */
    expect_no_fault("opener:1"); /* a step as a prefix */
    expect_no_fault("open :1");
    expect_no_fault(" open:1");
    expect_no_fault("1:open");
}

static void test_fault_step_names_match_the_parser(void **state)
{
    (void)state;
    for (int s = 0; s < ST_FAULT_STEP_COUNT; s++)
        assert_string_equal(st_fault_step_name((st_fault_step_t)s), step_names[s]);
    assert_string_equal(st_fault_step_name(ST_FAULT_STEP_COUNT), "?");
    assert_string_equal(st_fault_step_name((st_fault_step_t)-1), "?");
}

static void test_parse_positive_int_accepts_positive_decimals(void **state)
{
    char text[32];
    (void)state;
    expect_int("1", 1);
    expect_int("4", 4);
    expect_int("0010", 10);
    expect_int("65536", 65536);
    snprintf(text, sizeof text, "%d", INT_MAX);
    expect_int(text, INT_MAX);
}

static void test_parse_positive_int_rejects_zero_signs_and_junk(void **state)
{
    (void)state;
    expect_no_int("0");
    expect_no_int("00");
    expect_no_int("-1");
    expect_no_int("+1");
    expect_no_int("");
    expect_no_int(NULL);
    expect_no_int("abc");
    expect_no_int("4x");
    expect_no_int("4 ");
    expect_no_int("1.5");
    expect_no_int("0x10");
    expect_no_int("2147483648"); /* INT_MAX + 1 */
    expect_no_int("99999999999999999999");
}

/* "a positive decimal integer": signs are refused up front, so a sign or a
 * blank hidden behind leading white space must be refused as well. */
static void test_parse_positive_int_rejects_leading_white_space(void **state)
{
    (void)state;
    expect_no_int(" 4");
    expect_no_int("\t4");
    expect_no_int(" +4");
    expect_no_fault("open: 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_parse_accepts_every_step_at_rank_zero_and_three),
        cmocka_unit_test(test_fault_parse_accepts_large_ranks),
        cmocka_unit_test(test_fault_parse_rejects_missing_rank),
        cmocka_unit_test(test_fault_parse_rejects_bad_rank),
        cmocka_unit_test(test_fault_parse_rejects_unknown_or_missing_step),
        cmocka_unit_test(test_fault_step_names_match_the_parser),
        cmocka_unit_test(test_parse_positive_int_accepts_positive_decimals),
        cmocka_unit_test(test_parse_positive_int_rejects_zero_signs_and_junk),
        cmocka_unit_test(test_parse_positive_int_rejects_leading_white_space),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
