/* test_options.c - pins multi_scal's command line and its kernels' tuning
 * variables: defaults, every option's forms, and a named error for every bad
 * value. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/opt_test.h"
#include "options.h"
#include "scal.h"

static char err[256];
static ms_options_t opts;

OPT_TEST_PARSER(ms_parse_result_t, ms_options_parse, MS_PARSE_ERROR)

/* --n VALUE fails, and the message quotes VALUE and contains frag. */
static void expect_bad_n(const char *value, const char *frag)
{
    char *argv[] = {"multi_scal", "--n", (char *)value};
    expect_error(ARGC(argv), argv, frag, value);
}

static void expect_bad_iters(const char *value)
{
    char *argv[] = {"multi_scal", "--iters", (char *)value};
    expect_error(ARGC(argv), argv, "invalid iteration count", "1 to 1000000");
    if (strstr(err, value) == NULL)
        fail_msg("message '%s' does not quote '%s'", err, value);
}

static void expect_bad_alpha(const char *value, const char *frag)
{
    char *argv[] = {"multi_scal", "--alpha", (char *)value};
    expect_error(ARGC(argv), argv, "invalid alpha", frag);
}

static void test_options_no_arguments_give_defaults(void **state)
{
    char *argv[] = {"multi_scal"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), MS_PARSE_OK);
    assert_int_equal(opts.n, 600);
    assert_true(opts.alpha == 2.0);
    assert_int_equal(opts.modes, MS_MODE_ALL);
    assert_int_equal(opts.iters, 1);
    assert_null(opts.json);
    assert_int_equal(opts.allow_shared_gpu, 0);
    assert_int_equal(opts.check_peers, 0);
    assert_int_equal(opts.help, 0);
}

static void test_options_default_sets_documented_values(void **state)
{
    ms_options_t o;
    (void)state;
    memset(&o, 0xFF, sizeof o);
    ms_options_default(&o);
    assert_int_equal(o.n, 600);
    assert_true(o.alpha == 2.0);
    assert_int_equal(o.modes, MS_MODE_LOCAL | MS_MODE_RING | MS_MODE_GLOBAL);
    assert_int_equal(o.iters, 1);
    assert_null(o.json);
    assert_int_equal(o.allow_shared_gpu, 0);
    assert_int_equal(o.check_peers, 0);
    assert_int_equal(o.help, 0);
}

static void test_options_long_forms_set_every_field(void **state)
{
    char *argv[] = {"multi_scal",   "--n",     "1000", "--alpha", "-0.5",     "--mode",
                    "ring",         "--iters", "7",    "--json",  "out.json", "--allow-shared-gpu",
                    "--check-peers"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), MS_PARSE_OK);
    assert_int_equal(opts.n, 1000);
    assert_true(opts.alpha == -0.5);
    assert_int_equal(opts.modes, MS_MODE_RING);
    assert_int_equal(opts.iters, 7);
    assert_string_equal(opts.json, "out.json");
    assert_int_equal(opts.allow_shared_gpu, 1);
    assert_int_equal(opts.check_peers, 1);
    assert_int_equal(opts.help, 0);
}

static void test_options_short_forms_set_every_field(void **state)
{
    char *argv[] = {"multi_scal", "-n", "2M", "-a",     "3.25", "-m", "global",
                    "-i",         "12", "-j", "r.json", "-s",   "-c"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), MS_PARSE_OK);
    assert_int_equal(opts.n, 2u << 20);
    assert_true(opts.alpha == 3.25);
    assert_int_equal(opts.modes, MS_MODE_GLOBAL);
    assert_int_equal(opts.iters, 12);
    assert_string_equal(opts.json, "r.json");
    assert_int_equal(opts.allow_shared_gpu, 1);
    assert_int_equal(opts.check_peers, 1);
}

static void test_options_equals_and_attached_forms_are_accepted(void **state)
{
    char *argv[] = {"multi_scal",   "--n=4K",    "--alpha=1.5",
                    "--mode=local", "--iters=3", "--json=x.json"};
    char *argv2[] = {"multi_scal", "-n4k", "-a0.25", "-mall", "-i9", "-jy.json"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), MS_PARSE_OK);
    assert_int_equal(opts.n, 4096);
    assert_true(opts.alpha == 1.5);
    assert_int_equal(opts.modes, MS_MODE_LOCAL);
    assert_int_equal(opts.iters, 3);
    assert_string_equal(opts.json, "x.json");

    assert_int_equal(parse(ARGC(argv2), argv2), MS_PARSE_OK);
    assert_int_equal(opts.n, 4096);
    assert_true(opts.alpha == 0.25);
    assert_int_equal(opts.modes, MS_MODE_ALL);
    assert_int_equal(opts.iters, 9);
    assert_string_equal(opts.json, "y.json");
}

static void test_options_help_short_and_long_return_help(void **state)
{
    char *a[] = {"multi_scal", "-h"};
    char *b[] = {"multi_scal", "--help"};
    char *c[] = {"multi_scal", "-n", "8", "--help", "-s"};
    (void)state;
    assert_int_equal(parse(ARGC(a), a), MS_PARSE_HELP);
    assert_int_equal(opts.help, 1);
    assert_int_equal(parse(ARGC(b), b), MS_PARSE_HELP);
    assert_int_equal(opts.help, 1);
    assert_int_equal(parse(ARGC(c), c), MS_PARSE_HELP);
    assert_int_equal(opts.n, 8);
    assert_int_equal(opts.allow_shared_gpu, 1);
    assert_non_null(strstr(app_opt_usage_text(&ms_option_table), "--allow-shared-gpu"));
}

static void test_options_bundled_short_flags_are_accepted(void **state)
{
    char *argv[] = {"multi_scal", "-sn", "16"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), MS_PARSE_OK);
    assert_int_equal(opts.allow_shared_gpu, 1);
    assert_int_equal(opts.n, 16);
}

static void test_options_last_value_of_a_repeated_option_wins(void **state)
{
    char *argv[] = {"multi_scal", "-n", "5", "--n", "6", "-m", "ring", "-m", "local"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), MS_PARSE_OK);
    assert_int_equal(opts.n, 6);
    assert_int_equal(opts.modes, MS_MODE_LOCAL);
}

static void test_options_parse_twice_resets_state(void **state)
{
    char *bad[] = {"multi_scal", "-i", "0"};
    char *first[] = {"multi_scal", "-n", "10", "-s"};
    char *second[] = {"multi_scal", "-a", "4"};
    (void)state;
    expect_error(ARGC(bad), bad, "iteration", NULL);
    assert_int_equal(parse(ARGC(first), first), MS_PARSE_OK);
    assert_int_equal(opts.n, 10);
    /* the second parse starts from defaults and from argv[1] again */
    assert_int_equal(parse(ARGC(second), second), MS_PARSE_OK);
    assert_int_equal(opts.n, 600);
    assert_true(opts.alpha == 4.0);
    assert_int_equal(opts.allow_shared_gpu, 0);
}

static void test_options_count_suffixes_are_powers_of_1024_in_either_case(void **state)
{
    static const struct {
        const char *text;
        uint64_t value;
    } cases[] = {
        {"1", 1},
        {"600", 600},
        {"4K", 4ull << 10},
        {"4k", 4ull << 10},
        {"3M", 3ull << 20},
        {"3m", 3ull << 20},
        {"2G", 2ull << 30},
        {"2g", 2ull << 30},
        {"5T", 5ull << 40},
        {"5t", 5ull << 40},
        {"007", 7},
        {"2097151T", 2097151ull << 40},            /* bytes 2^64 - 2^43: fits */
        {"2305843009213693951", (1ull << 61) - 1}, /* bytes 2^64 - 8: fits */
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t count = 0;
        memset(err, 0, sizeof err);
        if (ms_parse_count(cases[i].text, &count, err, sizeof err) != 0)
            fail_msg("'%s' rejected: %s", cases[i].text, err);
        assert_int_equal(count, cases[i].value);
    }
}

static void test_options_n_rejects_zero(void **state)
{
    (void)state;
    expect_bad_n("0", "at least 1");
    expect_bad_n("0K", "at least 1");
    expect_bad_n("000", "at least 1");
}

static void test_options_n_rejects_negative_and_non_numeric(void **state)
{
    (void)state;
    expect_bad_n("-5", "invalid size");
    expect_bad_n("+5", "invalid size");
    expect_bad_n("abc", "invalid size");
    expect_bad_n("K", "invalid size");
    expect_bad_n(" 5", "invalid size");
    expect_bad_n("", "expected a positive integer");
}

static void test_options_n_rejects_fraction(void **state)
{
    (void)state;
    expect_bad_n("1.5", "invalid size");
    expect_bad_n("1e3", "invalid size");
}

static void test_options_n_rejects_bad_suffix(void **state)
{
    (void)state;
    expect_bad_n("4X", "suffix");
    expect_bad_n("4KB", "suffix");
    expect_bad_n("4kk", "suffix");
    expect_bad_n("4 K", "suffix");
    expect_bad_n("4P", "suffix");
}

static void test_options_n_rejects_value_beyond_2_pow_64(void **state)
{
    (void)state;
    expect_bad_n("18446744073709551616", "too large"); /* 2^64 */
    expect_bad_n("99999999999999999999999", "too large");
    expect_bad_n("18446744073709551615K", "too large");
}

static void test_options_n_rejects_sizes_whose_bytes_overflow_64_bits(void **state)
{
    (void)state;
    /* n < 2^64 but n * sizeof(double) >= 2^64 */
    expect_bad_n("2305843009213693952", "overflows 64 bits");  /* 2^61 */
    expect_bad_n("18446744073709551615", "overflows 64 bits"); /* 2^64 - 1 */
    expect_bad_n("16777216T", "too large");                    /* 2^64 elements */
    expect_bad_n("2097152T", "overflows 64 bits");             /* 2^61 elements */
    expect_bad_n("2147483648G", "overflows 64 bits");          /* 2^61 elements */
}

static void test_options_missing_value_is_named(void **state)
{
    char *a[] = {"multi_scal", "--n"};
    char *b[] = {"multi_scal", "-a"};
    char *c[] = {"multi_scal", "-s", "--mode"};
    char *d[] = {"multi_scal", "-i"};
    char *e[] = {"multi_scal", "--json"};
    (void)state;
    expect_error(ARGC(a), a, "'--n'", "needs a value");
    expect_error(ARGC(b), b, "'-a'", "needs a value");
    expect_error(ARGC(c), c, "'--mode'", "needs a value");
    expect_error(ARGC(d), d, "'-i'", "needs a value");
    expect_error(ARGC(e), e, "'--json'", "needs a value");
}

static void test_options_unknown_long_option_is_named(void **state)
{
    char *a[] = {"multi_scal", "--bogus"};
    char *b[] = {"multi_scal", "-n", "4", "--verbose=1"};
    (void)state;
    expect_error(ARGC(a), a, "unknown option", "'--bogus'");
    expect_error(ARGC(b), b, "unknown option", "--verbose");
}

static void test_options_unknown_short_option_is_named(void **state)
{
    char *a[] = {"multi_scal", "-x"};
    char *b[] = {"multi_scal", "-sq"};
    (void)state;
    expect_error(ARGC(a), a, "unknown option", "'-x'");
    expect_error(ARGC(b), b, "unknown option", "'-q'");
}

/* getopt_long answers '?' for "--a" as for "--bogus"; the message must say
 * that the prefix is ambiguous and list what it could be. */
static void test_options_ambiguous_long_option_lists_the_candidates(void **state)
{
    char *a[] = {"multi_scal", "--a"};
    char *b[] = {"multi_scal", "--bench-m=1M"};
    char *c[] = {"multi_scal", "--b"};
    char *d[] = {"multi_scal", "--a=2"};
    (void)state;
    assert_int_equal(parse(ARGC(a), a), MS_PARSE_ERROR);
    assert_string_equal(err, "ambiguous option '--a' (could be --alpha, --allow-shared-gpu)");
    assert_int_equal(parse(ARGC(b), b), MS_PARSE_ERROR);
    assert_string_equal(err, "ambiguous option '--bench-m' (could be --bench-min, --bench-max)");
    expect_error(ARGC(c), c, "ambiguous option '--b' (could be --bench, --bench-min, ", NULL);
    expect_error(ARGC(d), d, "ambiguous option '--a' (could be --alpha, ", NULL);
}

/* A prefix of one option, or an option that is a prefix of others, is no
 * ambiguity; a name that starts no option stays unknown. */
static void test_options_unique_prefix_and_exact_name_are_not_ambiguous(void **state)
{
    char *a[] = {"multi_scal", "--alp", "3", "--allow", "--bench", "--bench-mi", "64K"};
    char *b[] = {"multi_scal", "--zz"};
    (void)state;
    assert_int_equal(parse(ARGC(a), a), MS_PARSE_OK);
    assert_true(opts.alpha == 3.0);
    assert_int_equal(opts.allow_shared_gpu, 1);
    assert_int_equal(opts.bench, 1);
    assert_int_equal(opts.bench_min, 64u << 10);
    expect_error(ARGC(b), b, "unknown option '--zz'", NULL);
}

static void test_options_bench_max_given_only_when_on_the_command_line(void **state)
{
    char *a[] = {"multi_scal", "--bench"};
    char *b[] = {"multi_scal", "--bench", "--bench-max", "16M"};
    (void)state;
    assert_int_equal(parse(ARGC(a), a), MS_PARSE_OK);
    assert_int_equal(opts.bench_max, 4ull << 30);
    assert_int_equal(opts.bench_max_given, 0);
    assert_int_equal(parse(ARGC(b), b), MS_PARSE_OK);
    assert_int_equal(opts.bench_max, 16u << 20);
    assert_int_equal(opts.bench_max_given, 1);
}

/* ms_bench_fit of o on a node with `available` bytes, `ranks` ranks of
 * `buffers` buffers succeeds: the sweep's top step, and whether it was capped. */
static ms_bench_fit_t expect_fit(const ms_options_t *o, unsigned long long available, int ranks,
                                 int buffers, unsigned long long top, int capped)
{
    ms_bench_fit_t fit;
    memset(&fit, 0xA5, sizeof fit);
    assert_int_equal(ms_bench_fit(o, available, ranks, buffers, &fit, err, sizeof err), 0);
    assert_int_equal(fit.top, top);
    assert_int_equal(fit.capped, capped);
    return fit;
}

/* The default sweep is capped to the largest x4 step that fits a node's ranks;
 * unknown memory (0) or a size that fits keeps it (uncapped, `--bench` on a
 * 24 GiB machine reaches 4 GiB per shard and is OOM-killed). */
static void test_options_bench_fit_caps_the_default_to_what_fits(void **state)
{
    ms_options_t o;
    (void)state;
    ms_options_default(&o);
    o.bench = 1;
    /* 24 GiB, 2 ranks x 5 buffers: 2.4 GiB a shard, so 1 GiB of 1M, 4M, ... 4G */
    const ms_bench_fit_t fit = expect_fit(&o, 24ull << 30, 2, 5, 1ull << 30, 1);
    assert_int_equal(fit.asked, 4ull << 30);
    assert_int_equal(fit.available, 24ull << 30);
    assert_int_equal(fit.ranks_on_node, 2);
    assert_int_equal(fit.buffers, 5);
    expect_fit(&o, 40ull << 30, 2, 5, 4ull << 30, 0); /* exactly enough for 4 GiB a shard */
    expect_fit(&o, 0, 8, 5, 4ull << 30, 0);           /* unknown memory: kept */
    o.bench_min = 3ull << 20; /* the steps start at --bench-min: 3M, 12M, 48M, 192M */
    expect_fit(&o, 1ull << 30, 1, 5, 192ull << 20, 1);
    o.bench_min = 1ull << 20; /* one byte short of 4M a shard for 4 ranks x 2 buffers: 1M */
    expect_fit(&o, (32ull << 20) - 1, 4, 2, 1ull << 20, 1);
}

static void test_options_bench_fit_refuses_an_explicit_size_that_cannot_fit(void **state)
{
    char *argv[] = {"multi_scal", "--bench", "--bench-max", "1G"};
    ms_bench_fit_t fit;
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), MS_PARSE_OK);
    memset(err, 0, sizeof err);
    assert_int_equal(ms_bench_fit(&opts, 8ull << 30, 2, 5, &fit, err, sizeof err), -1);
    if (strstr(err, "--bench-max 1.00 GiB per shard does not fit in host memory") == NULL ||
        strstr(err, "2 ranks on a node x 5 buffers") == NULL ||
        strstr(err, "need 10.00 GiB, and 8.00 GiB is available") == NULL ||
        strstr(err, "use --bench-max 819M or less") == NULL)
        fail_msg("message: %s", err);
    expect_fit(&opts, 10ull << 30, 2, 5, 1ull << 30, 0); /* an explicit size that fits: kept */
}

static void test_options_bench_fit_refuses_when_even_the_smallest_size_cannot_fit(void **state)
{
    ms_options_t o;
    ms_bench_fit_t fit;
    (void)state;
    ms_options_default(&o);
    memset(err, 0, sizeof err);
    assert_int_equal(ms_bench_fit(&o, 8ull << 20, 2, 5, &fit, err, sizeof err), -1);
    assert_non_null(strstr(err, "not even --bench-min 1.00 MiB per shard fits"));
    memset(err, 0, sizeof err);
    assert_int_equal(ms_bench_fit(&o, 20000, 2, 5, &fit, err, sizeof err), -1);
    assert_non_null(strstr(err, "no bench size fits in host memory"));
}

static void test_options_human_bytes_uses_powers_of_1024(void **state)
{
    char buf[32];
    (void)state;
    assert_string_equal(ms_human_bytes(600, buf, sizeof buf), "600 B");
    assert_string_equal(ms_human_bytes(4096, buf, sizeof buf), "4.00 KiB");
    assert_string_equal(ms_human_bytes(1.5 * (1 << 30), buf, sizeof buf), "1.50 GiB");
}

static void test_options_unknown_mode_is_named(void **state)
{
    char *a[] = {"multi_scal", "--mode", "fast"};
    char *b[] = {"multi_scal", "-m", "LOCAL"};
    char *c[] = {"multi_scal", "-m", ""};
    (void)state;
    expect_error(ARGC(a), a, "invalid mode", "'fast'");
    expect_error(ARGC(b), b, "invalid mode", "'LOCAL'");
    expect_error(ARGC(c), c, "invalid mode", "''");
}

static void test_options_every_variant_name_selects_it_and_an_unknown_one_lists_them(void **state)
{
    const char *const *names = scal_variant_names;
    char *none[] = {"multi_scal"};
    char *bad[] = {"multi_scal", "--variant", "vec4"};
    (void)state;
    assert_int_equal(parse(ARGC(none), none), MS_PARSE_OK);
    assert_int_equal(opts.variant,
                     -1); /* the default, SCAL_VARIANT_DEFAULT, chosen by the launcher */
    for (int v = 0; v < SCAL_VARIANT_COUNT; v++) {
        char *argv[] = {"multi_scal", "--variant", (char *)names[v]};
        assert_int_equal(parse(ARGC(argv), argv), MS_PARSE_OK);
        assert_int_equal(opts.variant, v);
    }
    expect_error(ARGC(bad), bad, "invalid variant 'vec4'",
                 "expected naive, vec2, vec2x4, vec2x8, vec2x4s or chunk");
}

static void test_options_iters_rejects_zero_negative_text_and_too_many(void **state)
{
    char big[32];
    (void)state;
    expect_bad_iters("0");
    expect_bad_iters("-1");
    expect_bad_iters("abc");
    expect_bad_iters("");
    expect_bad_iters("5x");
    expect_bad_iters("1.0");
    expect_bad_iters("99999999999999999999");
    snprintf(big, sizeof big, "%d", MS_MAX_ITERS + 1);
    expect_bad_iters(big);
}

static void test_options_iters_accepts_one_and_the_maximum(void **state)
{
    char max[32];
    char *a[] = {"multi_scal", "-i", "1"};
    char *b[] = {"multi_scal", "--iters", max};
    (void)state;
    snprintf(max, sizeof max, "%d", MS_MAX_ITERS);
    assert_int_equal(parse(ARGC(a), a), MS_PARSE_OK);
    assert_int_equal(opts.iters, 1);
    assert_int_equal(parse(ARGC(b), b), MS_PARSE_OK);
    assert_int_equal(opts.iters, MS_MAX_ITERS);
}

static void test_options_alpha_rejects_text_and_non_finite_values(void **state)
{
    (void)state;
    expect_bad_alpha("abc", "expected a number");
    expect_bad_alpha("2.0x", "expected a number");
    expect_bad_alpha("", "expected a number");
    expect_bad_alpha(" 2", "expected a number");
    expect_bad_alpha("inf", "finite");
    expect_bad_alpha("-inf", "finite");
    expect_bad_alpha("nan", "finite");
    expect_bad_alpha("1e999", "finite");
    expect_bad_alpha("-1e999", "finite");
}

static void test_options_stray_positional_argument_is_rejected(void **state)
{
    char *a[] = {"multi_scal", "extra"};
    char *b[] = {"multi_scal", "-n", "4", "extra", "-s"};
    char *c[] = {"multi_scal", "--", "-n"};
    (void)state;
    expect_error(ARGC(a), a, "unexpected argument", "'extra'");
    expect_error(ARGC(b), b, "unexpected argument", "'extra'");
    expect_error(ARGC(c), c, "unexpected argument", "'-n'");
}

static void test_options_error_message_is_truncated_to_the_buffer(void **state)
{
    char small[16];
    char *argv[] = {"multi_scal", "--mode", "a-very-long-unknown-mode-name"};
    (void)state;
    memset(small, 'z', sizeof small);
    assert_int_equal(ms_options_parse(ARGC(argv), argv, &opts, small, sizeof small),
                     MS_PARSE_ERROR);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, "invalid mode 'a", sizeof small);
}

static void test_options_parse_count_direct(void **state)
{
    uint64_t count = 42;
    (void)state;
    assert_int_equal(ms_parse_count("8K", &count, err, sizeof err), 0);
    assert_int_equal(count, 8192);
    count = 42;
    memset(err, 0, sizeof err);
    assert_int_equal(ms_parse_count("8Q", &count, err, sizeof err), -1);
    assert_int_equal(count, 42); /* untouched on failure */
    assert_non_null(strstr(err, "'8Q'"));
    memset(err, 0, sizeof err);
    assert_int_equal(ms_parse_count(NULL, &count, err, sizeof err), -1);
    assert_non_null(strstr(err, "invalid size"));
    assert_int_equal(count, 42);
}

static void test_options_parse_alpha_direct(void **state)
{
    double alpha = 7.0;
    (void)state;
    assert_int_equal(ms_parse_alpha("-1.25e2", &alpha, err, sizeof err), 0);
    assert_true(alpha == -125.0);
    assert_int_equal(ms_parse_alpha("0", &alpha, err, sizeof err), 0);
    assert_true(alpha == 0.0);
    assert_int_equal(ms_parse_alpha("1e308", &alpha, err, sizeof err), 0);
    assert_true(alpha == 1e308);
    alpha = 7.0;
    memset(err, 0, sizeof err);
    assert_int_equal(ms_parse_alpha("nan", &alpha, err, sizeof err), -1);
    assert_true(alpha == 7.0);
    assert_non_null(strstr(err, "'nan'"));
    memset(err, 0, sizeof err);
    assert_int_equal(ms_parse_alpha("1e999", &alpha, err, sizeof err), -1);
    assert_non_null(strstr(err, "overflow"));
    memset(err, 0, sizeof err);
    assert_int_equal(ms_parse_alpha(NULL, &alpha, err, sizeof err), -1);
    assert_non_null(strstr(err, "expected a number"));
    assert_true(alpha == 7.0);
}

static void test_options_parse_modes_direct(void **state)
{
    unsigned modes = 0;
    (void)state;
    assert_int_equal(ms_parse_modes("local", &modes, err, sizeof err), 0);
    assert_int_equal(modes, MS_MODE_LOCAL);
    assert_int_equal(ms_parse_modes("ring", &modes, err, sizeof err), 0);
    assert_int_equal(modes, MS_MODE_RING);
    assert_int_equal(ms_parse_modes("global", &modes, err, sizeof err), 0);
    assert_int_equal(modes, MS_MODE_GLOBAL);
    assert_int_equal(ms_parse_modes("all", &modes, err, sizeof err), 0);
    assert_int_equal(modes, MS_MODE_ALL);
    modes = 99;
    memset(err, 0, sizeof err);
    assert_int_equal(ms_parse_modes("rings", &modes, err, sizeof err), -1);
    assert_int_equal(modes, 99);
    assert_non_null(strstr(err, "'rings'"));
    assert_non_null(strstr(err, "local, ring, global or all"));
    /* and the names come back */
    assert_string_equal(ms_mode_name(MS_MODE_LOCAL), "local");
    assert_string_equal(ms_mode_name(MS_MODE_RING), "ring");
    assert_string_equal(ms_mode_name(MS_MODE_GLOBAL), "global");
    assert_string_equal(ms_mode_name(MS_MODE_ALL), "all");
    assert_string_equal(ms_mode_name(0), "?");
}

/* ---- the kernels' tuning variables (SCAL_BLOCKS_PER_SM, SCAL_CHUNK_SHAPE) ---- */

/* ms_tuning_parse on the two variables' texts; err cleared first. */
static int tune(const char *blocks, const char *shape)
{
    const char *text[MS_TUNING_COUNT] = {blocks, shape};
    memset(err, 0, sizeof err);
    return ms_tuning_parse(&opts, text, err, sizeof err);
}

static void test_options_tuning_unset_or_empty_is_the_default(void **state)
{
    char *argv[] = {"multi_scal"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), MS_PARSE_OK);
    assert_int_equal(opts.blocks_per_sm, 0);
    assert_int_equal(opts.chunk_shape, 0);
    assert_int_equal(tune(NULL, NULL), 0);
    assert_int_equal(opts.blocks_per_sm, 0);
    assert_int_equal(opts.chunk_shape, 0);
    assert_int_equal(tune("", ""), 0);
    assert_int_equal(opts.blocks_per_sm, 0);
    assert_int_equal(opts.chunk_shape, 0);
    assert_string_equal(ms_tuning_name(MS_TUNE_BLOCKS_PER_SM), "SCAL_BLOCKS_PER_SM");
    assert_string_equal(ms_tuning_name(MS_TUNE_CHUNK_SHAPE), "SCAL_CHUNK_SHAPE");
    assert_string_equal(ms_tuning_name(MS_TUNING_COUNT), "?");
}

#define SHAPE_TEXT(block, unroll) #block "x" #unroll,
static void test_options_tuning_takes_blocks_from_1_to_64_and_every_compiled_shape(void **state)
{
    static const char *const shapes[] = {SCAL_CHUNK_SHAPES(SHAPE_TEXT)};
    (void)state;
    assert_int_equal(tune("1", NULL), 0);
    assert_int_equal(opts.blocks_per_sm, 1);
    assert_int_equal(tune("64", NULL), 0);
    assert_int_equal(opts.blocks_per_sm, SCAL_MAX_BLOCKS_PER_SM);
    assert_int_equal(tune("32", "256x1"), 0);
    assert_int_equal(opts.blocks_per_sm, 32);
    assert_int_equal(opts.chunk_shape, 0); /* the default comes first */
    assert_int_equal((int)(sizeof shapes / sizeof shapes[0]), SCAL_CHUNK_SHAPE_COUNT);
    for (int i = 0; i < SCAL_CHUNK_SHAPE_COUNT; i++) {
        assert_int_equal(tune(NULL, shapes[i]), 0);
        assert_int_equal(opts.chunk_shape, i);
        assert_int_equal(opts.blocks_per_sm, 0);
    }
}
#undef SHAPE_TEXT

/* The parse of (blocks, shape) fails with exactly `want` (printf'd with bad),
 * and both values are back to their defaults. */
static void expect_tuning_error(const char *blocks, const char *shape, const char *want,
                                const char *bad)
{
    char text[256];
    assert_int_equal(tune(blocks, shape), -1);
    snprintf(text, sizeof text, want, bad);
    assert_string_equal(err, text);
    assert_int_equal(opts.blocks_per_sm, 0);
    assert_int_equal(opts.chunk_shape, 0);
}

static void test_options_tuning_refuses_a_malformed_value_and_names_it(void **state)
{
    static const char *const bad_blocks[] = {
        "0", "65", "abc", "12abc", "-3", " 5", "3.5", "+4", "99999999999999999999"};
    static const char *const bad_shapes[] = {"256x3", "abc",    "256x1x", "256",
                                             "x1",    "256x1 ", "1024x1"};
    (void)state;
    for (size_t i = 0; i < sizeof bad_blocks / sizeof bad_blocks[0]; i++)
        expect_tuning_error(
            bad_blocks[i], "128x2",
            "invalid SCAL_BLOCKS_PER_SM '%s' (environment): expected an integer from 1 "
            "to 64, or unset for the default",
            bad_blocks[i]);
    /* a good value beside a bad one is undone too */
    for (size_t i = 0; i < sizeof bad_shapes / sizeof bad_shapes[0]; i++)
        expect_tuning_error(
            "8", bad_shapes[i],
            "SCAL_CHUNK_SHAPE='%s' is not a compiled shape (256x1, 64x2, 64x4, 128x1, "
            "128x2, 128x4, 256x2, 256x4, 512x2)",
            bad_shapes[i]);
}

static void test_options_tuning_message_is_truncated_to_the_buffer(void **state)
{
    const char *text[MS_TUNING_COUNT] = {NULL, "bogus"};
    char small[24];
    (void)state;
    memset(small, 'Z', sizeof small);
    assert_int_equal(ms_tuning_parse(&opts, text, small, sizeof small), -1);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_int_equal(strncmp(small, "SCAL_CHUNK_SHAPE='bogus'", sizeof small - 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_no_arguments_give_defaults),
        cmocka_unit_test(test_options_default_sets_documented_values),
        cmocka_unit_test(test_options_long_forms_set_every_field),
        cmocka_unit_test(test_options_short_forms_set_every_field),
        cmocka_unit_test(test_options_equals_and_attached_forms_are_accepted),
        cmocka_unit_test(test_options_help_short_and_long_return_help),
        cmocka_unit_test(test_options_bundled_short_flags_are_accepted),
        cmocka_unit_test(test_options_last_value_of_a_repeated_option_wins),
        cmocka_unit_test(test_options_parse_twice_resets_state),
        cmocka_unit_test(test_options_count_suffixes_are_powers_of_1024_in_either_case),
        cmocka_unit_test(test_options_n_rejects_zero),
        cmocka_unit_test(test_options_n_rejects_negative_and_non_numeric),
        cmocka_unit_test(test_options_n_rejects_fraction),
        cmocka_unit_test(test_options_n_rejects_bad_suffix),
        cmocka_unit_test(test_options_n_rejects_value_beyond_2_pow_64),
        cmocka_unit_test(test_options_n_rejects_sizes_whose_bytes_overflow_64_bits),
        cmocka_unit_test(test_options_missing_value_is_named),
        cmocka_unit_test(test_options_unknown_long_option_is_named),
        cmocka_unit_test(test_options_unknown_short_option_is_named),
        cmocka_unit_test(test_options_ambiguous_long_option_lists_the_candidates),
        cmocka_unit_test(test_options_unique_prefix_and_exact_name_are_not_ambiguous),
        cmocka_unit_test(test_options_bench_max_given_only_when_on_the_command_line),
        cmocka_unit_test(test_options_bench_fit_caps_the_default_to_what_fits),
        cmocka_unit_test(test_options_bench_fit_refuses_an_explicit_size_that_cannot_fit),
        cmocka_unit_test(test_options_bench_fit_refuses_when_even_the_smallest_size_cannot_fit),
        cmocka_unit_test(test_options_human_bytes_uses_powers_of_1024),
        cmocka_unit_test(test_options_unknown_mode_is_named),
        cmocka_unit_test(test_options_every_variant_name_selects_it_and_an_unknown_one_lists_them),
        cmocka_unit_test(test_options_iters_rejects_zero_negative_text_and_too_many),
        cmocka_unit_test(test_options_iters_accepts_one_and_the_maximum),
        cmocka_unit_test(test_options_alpha_rejects_text_and_non_finite_values),
        cmocka_unit_test(test_options_stray_positional_argument_is_rejected),
        cmocka_unit_test(test_options_error_message_is_truncated_to_the_buffer),
        cmocka_unit_test(test_options_parse_count_direct),
        cmocka_unit_test(test_options_parse_alpha_direct),
        cmocka_unit_test(test_options_parse_modes_direct),
        cmocka_unit_test(test_options_tuning_unset_or_empty_is_the_default),
        cmocka_unit_test(test_options_tuning_takes_blocks_from_1_to_64_and_every_compiled_shape),
        cmocka_unit_test(test_options_tuning_refuses_a_malformed_value_and_names_it),
        cmocka_unit_test(test_options_tuning_message_is_truncated_to_the_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
