/* test_cg_options.c - pins the cg program's command line (src/cg/cg_options.c): the
 * defaults, every option and both of its spellings, every refusal by its exact message
 * (the line rank 0 prints after "cg: error: "), the comparison of two ranks' parses
 * naming the first difference, and the CPU check's threshold. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/opt_test.h"
#include "cg_options.h"
#include "shardtab.h"

static char err[512];
static cg_options_t opts;

static app_opt_parse_t parse(int argc, char **argv)
{
    opt_test_fresh(err, sizeof err, &opts, sizeof opts);
    return cg_options_parse(argc, argv, &opts, err, sizeof err);
}

/* The parse of argv fails with exactly this message. */
static void expect_refusal(int argc, char **argv, const char *message)
{
    const app_opt_parse_t got = parse(argc, argv);
    if (got != APP_OPT_PARSE_ERROR)
        fail_msg("'%s ...' parsed as %d, expected a refusal '%s'", argv[argc > 1 ? 1 : 0], got,
                 message);
    assert_string_equal(err, message);
}

/* `option value` is refused with exactly this message. */
static void expect_bad_value(const char *option, const char *value, const char *message)
{
    char *argv[] = {"cg", (char *)option, (char *)value};
    expect_refusal(ARGC(argv), argv, message);
}

/* the default grid: by the backend these tests were built for */
static int64_t default_grid(void)
{
    return shardtab_backend() == SHARDTAB_BACKEND_HOST ? CG_DEFAULT_GRID_HOST : CG_DEFAULT_GRID_GPU;
}

static void expect_defaults(const cg_options_t *o)
{
    assert_null(o->matrix);
    assert_int_equal(o->poisson.dim, 2);
    assert_int_equal(o->poisson.n, default_grid());
    assert_int_equal(o->niter, CG_DEFAULT_NITER);
    assert_true(o->tol == 1e-8);
    assert_int_equal(o->variant, CG_STANDARD);
    assert_int_equal(o->launch, CG_LAUNCH_AUTO);
    assert_int_equal(o->repro, 0);
    assert_int_equal(o->repeat, 1);
    assert_int_equal(o->cpu_check, CG_CPU_CHECK_AUTO);
    assert_null(o->json);
    assert_null(o->trace);
    assert_int_equal(o->allow_shared_gpu, 0);
    assert_int_equal(o->floor, 0);
    assert_int_equal(o->blocks, 0);
}

/* ---- defaults and every option -------------------------------------------------------- */

static void test_cg_options_no_arguments_give_the_defaults(void **state)
{
    char *argv[] = {"cg"};
    cg_options_t o;
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
    expect_defaults(&opts);
    assert_string_equal(err, "");
    memset(&o, 0x5A, sizeof o);
    cg_options_default(&o);
    expect_defaults(&o);
}

static void test_cg_options_every_option_is_parsed(void **state)
{
    char *argv[] = {"cg",          "--poisson",
                    "3d:12",       "-niter",
                    "437",         "--tol",
                    "2.5e-7",      "--variant",
                    "pipelined",   "--launch",
                    "stream",      "--repro",
                    "--repeat",    "7",
                    "--cpu-check", "no",
                    "--json",      "out.json",
                    "--trace",     "out.csv",
                    "--floor",     "--allow-shared-gpu",
                    "--blocks",    "264"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
    assert_string_equal(err, "");
    assert_null(opts.matrix);
    assert_int_equal(opts.poisson.dim, 3);
    assert_int_equal(opts.poisson.n, 12);
    assert_int_equal(opts.niter, 437);
    assert_true(opts.tol == 2.5e-7);
    assert_int_equal(opts.variant, CG_PIPELINED);
    assert_int_equal(opts.launch, CG_LAUNCH_STREAM);
    assert_int_equal(opts.repro, 1);
    assert_int_equal(opts.repeat, 7);
    assert_int_equal(opts.cpu_check, CG_CPU_CHECK_NO);
    assert_string_equal(opts.json, "out.json");
    assert_string_equal(opts.trace, "out.csv");
    assert_int_equal(opts.floor, 1);
    assert_int_equal(opts.allow_shared_gpu, 1);
    assert_int_equal(opts.blocks, 264);
}

static void test_cg_options_matrix_keeps_the_default_poisson_aside(void **state)
{
    char *argv[] = {"cg", "--matrix", "some/dir/a.mtx", "-niter", "0"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
    assert_string_equal(opts.matrix, "some/dir/a.mtx");
    assert_int_equal(opts.niter, 0);
    assert_int_equal(opts.poisson.dim, 2);
    assert_int_equal(opts.poisson.n, default_grid());
}

/* -name and --name alike (getopt_long_only), --name=value, and unique prefixes */
static void test_cg_options_both_spellings_values_after_equals_and_prefixes(void **state)
{
    char *a[] = {"cg", "--niter=12", "-tol=0", "-variant", "pipelined", "-launch=persistent"};
    char *b[] = {"cg",  "-n",  "99",   "--var", "standard", "--cpu",
                 "yes", "-po", "2d:3", "-rept", "4"};
    char *c[] = {"cg", "-repro", "-allow", "-floor", "-json", "j", "--trace=t"};
    (void)state;
    assert_int_equal(parse(ARGC(a), a), APP_OPT_PARSE_OK);
    assert_int_equal(opts.niter, 12);
    assert_true(opts.tol == 0.0);
    assert_int_equal(opts.variant, CG_PIPELINED);
    assert_int_equal(opts.launch, CG_LAUNCH_PERSISTENT);

    /* -rept is not a prefix of --repeat: refused below; here the rest */
    char *b_ok[] = {"cg", "-n", "99", "--var", "standard", "--cpu", "yes", "-po", "2d:3"};
    assert_int_equal(parse(ARGC(b_ok), b_ok), APP_OPT_PARSE_OK);
    assert_int_equal(opts.niter, 99);
    assert_int_equal(opts.variant, CG_STANDARD);
    assert_int_equal(opts.cpu_check, CG_CPU_CHECK_YES);
    assert_int_equal(opts.poisson.dim, 2);
    assert_int_equal(opts.poisson.n, 3);
    expect_refusal(ARGC(b), b, "unknown option '-rept'");

    assert_int_equal(parse(ARGC(c), c), APP_OPT_PARSE_OK);
    assert_int_equal(opts.repro, 1);
    assert_int_equal(opts.allow_shared_gpu, 1);
    assert_int_equal(opts.floor, 1);
    assert_string_equal(opts.json, "j");
    assert_string_equal(opts.trace, "t");
}

static void test_cg_options_every_word_of_each_list_is_taken(void **state)
{
    static const char *const variants[] = {"standard", "pipelined"};
    static const char *const launches[] = {"auto", "persistent", "stream"};
    static const char *const checks[] = {"auto", "yes", "no"};
    (void)state;
    for (int i = 0; i < 2; i++) {
        char *argv[] = {"cg", "--variant", (char *)variants[i]};
        assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
        assert_int_equal(opts.variant, i);
        assert_string_equal(cg_variant_name((cg_variant_t)i), variants[i]);
    }
    for (int i = 0; i < 3; i++) {
        char *argv[] = {"cg", "--launch", (char *)launches[i]};
        assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
        assert_int_equal(opts.launch, i);
        assert_string_equal(cg_launch_name((cg_launch_t)i), launches[i]);
    }
    for (int i = 0; i < 3; i++) {
        char *argv[] = {"cg", "--cpu-check", (char *)checks[i]};
        assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
        assert_int_equal(opts.cpu_check, i);
    }
    assert_string_equal(cg_variant_name((cg_variant_t)2), "?");
    assert_string_equal(cg_variant_name((cg_variant_t)-1), "?");
    assert_string_equal(cg_launch_name((cg_launch_t)3), "?");
}

static void test_cg_options_ranges_accept_both_limits(void **state)
{
    char *lo[] = {"cg", "-niter", "0", "--repeat", "1", "--tol", "0", "--blocks", "0"};
    char *hi[] = {"cg",    "-niter", "100000000", "--repeat", "100",
                  "--tol", "1e300",  "--blocks",  "1048576"};
    char *big[] = {"cg", "--poisson", "2d:46340"};
    char *big3[] = {"cg", "--poisson", "3d:1290"};
    (void)state;
    assert_int_equal(parse(ARGC(lo), lo), APP_OPT_PARSE_OK);
    assert_int_equal(opts.niter, 0);
    assert_int_equal(opts.repeat, 1);
    assert_true(opts.tol == 0.0);
    assert_int_equal(opts.blocks, 0);
    assert_int_equal(parse(ARGC(hi), hi), APP_OPT_PARSE_OK);
    assert_int_equal(opts.niter, CG_MAX_ITER);
    assert_int_equal(opts.repeat, CG_MAX_REPEAT);
    assert_true(opts.tol == 1e300);
    assert_int_equal(opts.blocks, CG_MAX_BLOCKS);
    assert_int_equal(parse(ARGC(big), big), APP_OPT_PARSE_OK);
    assert_int_equal(opts.poisson.n, SPARSE_POISSON_2D_MAX);
    assert_int_equal(parse(ARGC(big3), big3), APP_OPT_PARSE_OK);
    assert_int_equal(opts.poisson.n, SPARSE_POISSON_3D_MAX);
}

/* the last of a repeated option wins, as getopt reads them in order */
static void test_cg_options_a_repeated_option_keeps_the_last(void **state)
{
    char *argv[] = {"cg",        "-niter",   "5",      "--variant", "pipelined", "-niter", "6",
                    "--variant", "standard", "--json", "a",         "--json",    "b"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
    assert_int_equal(opts.niter, 6);
    assert_int_equal(opts.variant, CG_STANDARD);
    assert_string_equal(opts.json, "b");
}

static void test_cg_options_help_in_every_spelling(void **state)
{
    static const char *const forms[] = {"-h", "--help", "-help", "--he"};
    (void)state;
    for (int i = 0; i < ARGC(forms); i++) {
        char *argv[] = {"cg", "-niter", "5", (char *)forms[i], "--variant", "bogus"};
        assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_HELP);
    }
}

/* the usage names every option the parser takes, and the exit statuses */
static void test_cg_options_usage_names_every_option(void **state)
{
    static const char *const names[] = {
        "--poisson 2d:N|3d:N",
        "--matrix F.mtx",
        "-niter N",
        "--tol T",
        "--variant V",
        "--launch L",
        "--repro",
        "--repeat R",
        "--cpu-check C",
        "--json FILE",
        "--trace FILE",
        "--floor",
        "--blocks N",
        "--allow-shared-gpu",
        "-h, --help",
        "(default 2d:1024 on a GPU, 2d:256 on the host backend)",
        "(default 10000",
        "(default 1e-8",
        "Exit status: 0 verified, 1 a verification or runtime failure, 2 bad usage or a bad"};
    const char *text = app_opt_usage_text(&cg_option_table);
    (void)state;
    assert_true(strncmp(text, "Usage: mpirun -np <ranks> cg [options]\n", 39) == 0);
    for (int i = 0; i < ARGC(names); i++)
        if (strstr(text, names[i]) == NULL)
            fail_msg("the usage does not name '%s'", names[i]);
}

/* ---- refusals, each by its exact message ------------------------------------------------- */

static void test_cg_options_unknown_options_are_named(void **state)
{
    static const char *const forms[] = {"--bogus", "-bogus", "-x", "--variants", "--niter5"};
    (void)state;
    for (int i = 0; i < ARGC(forms); i++) {
        char *argv[] = {"cg", (char *)forms[i], "1"};
        char want[64];
        snprintf(want, sizeof want, "unknown option '%s'", forms[i]);
        expect_refusal(ARGC(argv), argv, want);
    }
}

static void test_cg_options_ambiguous_prefixes_name_every_candidate(void **state)
{
    char *two[] = {"cg", "--rep", "2"};
    char *two_single[] = {"cg", "-rep", "2"};
    char *eq[] = {"cg", "--rep=2"};
    (void)state;
    expect_refusal(ARGC(two), two, "ambiguous option '--rep' (could be -repro, -repeat)");
    expect_refusal(ARGC(two_single), two_single,
                   "ambiguous option '-rep' (could be -repro, -repeat)");
    expect_refusal(ARGC(eq), eq, "ambiguous option '--rep' (could be -repro, -repeat)");
}

/* Every flag given a value as --name=V: tests/common/test_opt_table.c; here
 * the single-dash spelling, named as typed. */
static void test_cg_options_a_flag_given_a_value_is_refused(void **state)
{
    char *b[] = {"cg", "-repro=yes"};
    (void)state;
    expect_refusal(ARGC(b), b, "option '-repro=yes' takes no value (-repro is a flag)");
}

static void test_cg_options_missing_value_is_named_as_typed(void **state)
{
    static const char *const forms[] = {"-niter",      "--niter",   "--tol",    "--poisson",
                                        "--matrix",    "--variant", "--launch", "--repeat",
                                        "--cpu-check", "--json",    "--trace"};
    (void)state;
    for (int i = 0; i < ARGC(forms); i++) {
        char *argv[] = {"cg", "--repro", (char *)forms[i]};
        char want[64];
        snprintf(want, sizeof want, "option '%s' needs a value", forms[i]);
        expect_refusal(ARGC(argv), argv, want);
    }
}

static void test_cg_options_words_outside_their_lists_are_refused(void **state)
{
    (void)state;
    expect_bad_value("--variant", "bogus",
                     "invalid --variant 'bogus': expected standard or pipelined");
    expect_bad_value("--variant", "Standard",
                     "invalid --variant 'Standard': expected standard or pipelined");
    expect_bad_value("--variant", "", "invalid --variant '': expected standard or pipelined");
    expect_bad_value("--launch", "bogus",
                     "invalid --launch 'bogus': expected auto, persistent or stream");
    expect_bad_value("--launch", "graph",
                     "invalid --launch 'graph': expected auto, persistent or stream");
    expect_bad_value("--cpu-check", "maybe",
                     "invalid --cpu-check 'maybe': expected auto, yes or no");
}

static void test_cg_options_counts_out_of_range_or_not_integers_are_refused(void **state)
{
    static const char *const niters[] = {"-1",  "100000001",           "1.5", "", " 5", "+5", "5x",
                                         "1e3", "99999999999999999999"};
    static const char *const repeats[] = {"0", "101", "-1", "two", ""};
    static const char *const blocks[] = {"-1", "1048577", "1.5", "many", ""};
    (void)state;
    for (int i = 0; i < ARGC(niters); i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid -niter '%s': expected an integer from 0 to 100000000",
                 niters[i]);
        expect_bad_value("-niter", niters[i], want);
    }
    for (int i = 0; i < ARGC(repeats); i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid --repeat '%s': expected an integer from 1 to 100",
                 repeats[i]);
        expect_bad_value("--repeat", repeats[i], want);
    }
    for (int i = 0; i < ARGC(blocks); i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid --blocks '%s': expected an integer from 0 to 1048576",
                 blocks[i]);
        expect_bad_value("--blocks", blocks[i], want);
    }
}

static void test_cg_options_tolerance_must_be_a_finite_number_not_below_zero(void **state)
{
    static const char *const bad[] = {"-1",    "-1e-300", "abc", "",    " 1e-3", "\t1e-3", "\n1",
                                      "1e-3 ", "1x",      "nan", "inf", "-inf",  "1e400"};
    static const char *const good[] = {"0", "1e-12", "0.5", "3", "1E-6", ".25"};
    static const double value[] = {0.0, 1e-12, 0.5, 3.0, 1e-6, 0.25};
    (void)state;
    for (int i = 0; i < ARGC(bad); i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid --tol '%s': expected a number >= 0", bad[i]);
        expect_bad_value("--tol", bad[i], want);
    }
    for (int i = 0; i < ARGC(good); i++) {
        char *argv[] = {"cg", "--tol", (char *)good[i]};
        assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
        assert_true(opts.tol == value[i]);
    }
}

static void test_cg_options_poisson_specs_are_refused_by_their_fault(void **state)
{
    (void)state;
    expect_bad_value("--poisson", "4d:5",
                     "poisson spec '4d:5': expected 2d:N or 3d:N, N a positive integer");
    expect_bad_value("--poisson",
                     "2d:", "poisson spec '2d:': expected 2d:N or 3d:N, N a positive integer");
    expect_bad_value("--poisson", "3d:-2",
                     "poisson spec '3d:-2': expected 2d:N or 3d:N, N a positive integer");
    expect_bad_value("--poisson", "2d:8x",
                     "poisson spec '2d:8x': expected 2d:N or 3d:N, N a positive integer");
    expect_bad_value("--poisson", "64",
                     "poisson spec '64': expected 2d:N or 3d:N, N a positive integer");
    expect_bad_value("--poisson", "2d:0", "poisson spec '2d:0': N must be >= 1");
    expect_bad_value("--poisson", "3d:000", "poisson spec '3d:000': N must be >= 1");
    expect_bad_value("--poisson", "2d:46341",
                     "poisson spec '2d:46341': N^2 rows exceed 2147483647, the most that 32-bit "
                     "column indices hold (2d: N <= 46340)");
    expect_bad_value("--poisson", "3d:1291",
                     "poisson spec '3d:1291': N^3 rows exceed 2147483647, the most that 32-bit "
                     "column indices hold (3d: N <= 1290)");
}

static void test_cg_options_empty_file_names_are_refused(void **state)
{
    (void)state;
    expect_bad_value("--matrix", "", "--matrix needs a file name");
    expect_bad_value("--json", "", "--json needs a file name");
    expect_bad_value("--trace", "", "--trace needs a file name");
}

static void test_cg_options_matrix_and_poisson_together_are_refused_in_either_order(void **state)
{
    char *a[] = {"cg", "--matrix", "a.mtx", "--poisson", "2d:4"};
    char *b[] = {"cg", "--poisson", "3d:4", "-niter", "3", "--matrix", "a.mtx"};
    (void)state;
    expect_refusal(ARGC(a), a, "--matrix and --poisson both name the matrix: give one");
    expect_refusal(ARGC(b), b, "--matrix and --poisson both name the matrix: give one");
}

static void test_cg_options_extra_arguments_are_refused_wherever_they_stand(void **state)
{
    char *after[] = {"cg", "-niter", "5", "extra"};
    char *before[] = {"cg", "extra", "-niter", "5"};
    char *dashes[] = {"cg", "-niter", "5", "--", "-x"};
    (void)state;
    expect_refusal(ARGC(after), after, "unexpected argument 'extra'");
    expect_refusal(ARGC(before), before, "unexpected argument 'extra'");
    expect_refusal(ARGC(dashes), dashes, "unexpected argument '-x'");
}

/* the first bad option is the one named, and a later parse starts afresh */
static void test_cg_options_first_refusal_is_named_and_the_next_parse_starts_afresh(void **state)
{
    char *two[] = {"cg", "--launch", "bogus", "--variant", "bogus"};
    char *fine[] = {"cg", "--poisson", "3d:5"};
    (void)state;
    expect_refusal(ARGC(two), two, "invalid --launch 'bogus': expected auto, persistent or stream");
    assert_int_equal(parse(ARGC(fine), fine), APP_OPT_PARSE_OK);
    assert_int_equal(opts.launch, CG_LAUNCH_AUTO);
    assert_int_equal(opts.variant, CG_STANDARD);
    assert_int_equal(opts.poisson.dim, 3);
    assert_int_equal(opts.poisson.n, 5);
}

static void test_cg_options_message_is_cut_to_the_buffer(void **state)
{
    char small[12];
    char *argv[] = {"cg", "--variant", "bogus"};
    cg_options_t o;
    (void)state;
    memset(small, 'z', sizeof small);
    assert_int_equal(cg_options_parse(ARGC(argv), argv, &o, small, sizeof small),
                     APP_OPT_PARSE_ERROR);
    assert_string_equal(small, "invalid --v");
}

/* ---- two ranks' parses: the first difference named ------------------------------------- */

static cg_options_t parsed(int argc, char **argv)
{
    cg_options_t o;
    char e[256];
    assert_int_equal(cg_options_parse(argc, argv, &o, e, sizeof e), APP_OPT_PARSE_OK);
    return o;
}

static void expect_differ(const cg_options_t *a, const cg_options_t *b, const char *text)
{
    char got[512];
    memset(got, 0, sizeof got);
    assert_int_equal(cg_options_differ(a, b, got, sizeof got), 1);
    assert_string_equal(got, text);
}

static void test_cg_options_differ_is_0_for_the_same_options(void **state)
{
    char *argv[] = {"cg", "--matrix", "m.mtx", "-niter", "40", "--tol", "1e-6", "--repro"};
    char *argv2[] = {"cg", "--matrix", "m.mtx", "-niter", "40", "--tol", "1e-6", "--repro"};
    char path[] = "m.mtx"; /* the same name at another address */
    char text[64] = "untouched";
    cg_options_t a = parsed(ARGC(argv), argv), b = parsed(ARGC(argv2), argv2);
    (void)state;
    b.matrix = path;
    assert_int_equal(cg_options_differ(&a, &b, text, sizeof text), 0);
    /* the result files are rank 0's alone: their names may differ, not whether given */
    a.json = "a.json";
    b.json = "b.json";
    a.trace = "a.csv";
    b.trace = "b.csv";
    assert_int_equal(cg_options_differ(&a, &b, text, sizeof text), 0);
    assert_string_equal(text, "untouched");
}

static void test_cg_options_differ_names_each_field(void **state)
{
    char *base[] = {"cg", "--poisson", "2d:8", "-niter", "10"};
    cg_options_t a = parsed(ARGC(base), base), b;
    (void)state;

    b = a;
    b.matrix = "b.mtx";
    expect_differ(&a, &b, "--matrix (none) against --matrix b.mtx");
    a.matrix = "a.mtx";
    expect_differ(&a, &b, "--matrix a.mtx against --matrix b.mtx");
    a.matrix = NULL;

    b = a;
    b.poisson.dim = 3;
    expect_differ(&a, &b, "--poisson 2d:8 against --poisson 3d:8");
    b = a;
    b.poisson.n = 9;
    expect_differ(&a, &b, "--poisson 2d:8 against --poisson 2d:9");

    b = a;
    b.niter = 20;
    expect_differ(&a, &b, "-niter 10 against -niter 20");

    b = a;
    b.tol = 1e-6;
    expect_differ(&a, &b, "--tol 1e-08 against --tol 9.9999999999999995e-07");
    b.tol = -0.0; /* a different sign is a different tolerance's bits */
    a.tol = 0.0;
    expect_differ(&a, &b, "--tol 0 against --tol -0");
    a.tol = 1e-8;

    b = a;
    b.variant = CG_PIPELINED;
    expect_differ(&a, &b,
                  "--variant standard --launch auto --repeat 1 against --variant pipelined "
                  "--launch auto --repeat 1");
    b = a;
    b.launch = CG_LAUNCH_STREAM;
    expect_differ(&a, &b,
                  "--variant standard --launch auto --repeat 1 against --variant standard "
                  "--launch stream --repeat 1");
    b = a;
    b.repro = 1;
    expect_differ(&a, &b,
                  "--variant standard --launch auto --repeat 1 against --variant standard "
                  "--launch auto --repro --repeat 1");
    b = a;
    b.repeat = 3;
    expect_differ(&a, &b,
                  "--variant standard --launch auto --repeat 1 against --variant standard "
                  "--launch auto --repeat 3");

    b = a;
    b.blocks = 132;
    expect_differ(&a, &b, "--blocks 0 against --blocks 132");
    b = a;
    b.cpu_check = CG_CPU_CHECK_NO;
    expect_differ(&a, &b, "--cpu-check auto against --cpu-check no");
    b = a;
    b.allow_shared_gpu = 1;
    expect_differ(&a, &b, "no --allow-shared-gpu against --allow-shared-gpu");
    expect_differ(&b, &a, "--allow-shared-gpu against no --allow-shared-gpu");
    b = a;
    b.floor = 1;
    expect_differ(&a, &b, "no --floor against --floor");
    /* N8: a trace is one more solve on every rank; --trace on one rank only waited 30 s
     * and blamed a rank "stopped, stuck or gone" */
    b = a;
    b.trace = "t.csv";
    expect_differ(&a, &b, "no --trace against --trace");
    expect_differ(&b, &a, "--trace against no --trace");
    b = a;
    b.json = "r.json";
    expect_differ(&a, &b, "no --json against --json");
}

/* the matrix before the grid before the counts: the first in that order is named */
static void test_cg_options_differ_names_the_first_difference_only(void **state)
{
    char *one[] = {"cg", "--poisson", "2d:8", "-niter", "10", "--variant", "pipelined"};
    char *two[] = {"cg", "--poisson", "3d:8", "-niter", "11", "--variant", "standard"};
    cg_options_t a = parsed(ARGC(one), one), b = parsed(ARGC(two), two);
    char small[16];
    (void)state;
    expect_differ(&a, &b, "--poisson 2d:8 against --poisson 3d:8");
    assert_int_equal(cg_options_differ(&a, &b, small, sizeof small), 1);
    assert_string_equal(small, "--poisson 2d:8 ");
}

/* ---- the CPU's check: asked, refused, or where the work is small enough ----------------- */

static void test_cg_options_cpu_check_threshold(void **state)
{
    cg_options_t o;
    (void)state;
    cg_options_default(&o);
    o.niter = 999; /* 1000 residuals: work = nnz x 1000 */
    assert_int_equal(cg_cpu_check_wanted(&o, 4000000), 1);
    assert_int_equal(cg_cpu_check_wanted(&o, 4000001), 0);
    o.cpu_check = CG_CPU_CHECK_YES;
    assert_int_equal(cg_cpu_check_wanted(&o, INT64_C(1) << 40), 1);
    o.cpu_check = CG_CPU_CHECK_NO;
    assert_int_equal(cg_cpu_check_wanted(&o, 5), 0);
    o.cpu_check = CG_CPU_CHECK_AUTO;
    o.niter = CG_MAX_ITER;
    assert_int_equal(cg_cpu_check_wanted(&o, 39), 1);
    assert_int_equal(cg_cpu_check_wanted(&o, 40), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cg_options_no_arguments_give_the_defaults),
        cmocka_unit_test(test_cg_options_every_option_is_parsed),
        cmocka_unit_test(test_cg_options_matrix_keeps_the_default_poisson_aside),
        cmocka_unit_test(test_cg_options_both_spellings_values_after_equals_and_prefixes),
        cmocka_unit_test(test_cg_options_every_word_of_each_list_is_taken),
        cmocka_unit_test(test_cg_options_ranges_accept_both_limits),
        cmocka_unit_test(test_cg_options_a_repeated_option_keeps_the_last),
        cmocka_unit_test(test_cg_options_help_in_every_spelling),
        cmocka_unit_test(test_cg_options_usage_names_every_option),
        cmocka_unit_test(test_cg_options_unknown_options_are_named),
        cmocka_unit_test(test_cg_options_ambiguous_prefixes_name_every_candidate),
        cmocka_unit_test(test_cg_options_a_flag_given_a_value_is_refused),
        cmocka_unit_test(test_cg_options_missing_value_is_named_as_typed),
        cmocka_unit_test(test_cg_options_words_outside_their_lists_are_refused),
        cmocka_unit_test(test_cg_options_counts_out_of_range_or_not_integers_are_refused),
        cmocka_unit_test(test_cg_options_tolerance_must_be_a_finite_number_not_below_zero),
        cmocka_unit_test(test_cg_options_poisson_specs_are_refused_by_their_fault),
        cmocka_unit_test(test_cg_options_empty_file_names_are_refused),
        cmocka_unit_test(test_cg_options_matrix_and_poisson_together_are_refused_in_either_order),
        cmocka_unit_test(test_cg_options_extra_arguments_are_refused_wherever_they_stand),
        cmocka_unit_test(test_cg_options_first_refusal_is_named_and_the_next_parse_starts_afresh),
        cmocka_unit_test(test_cg_options_message_is_cut_to_the_buffer),
        cmocka_unit_test(test_cg_options_differ_is_0_for_the_same_options),
        cmocka_unit_test(test_cg_options_differ_names_each_field),
        cmocka_unit_test(test_cg_options_differ_names_the_first_difference_only),
        cmocka_unit_test(test_cg_options_cpu_check_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
