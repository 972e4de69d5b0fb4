/* test_jacobi_options.c - pins jacobi's command line (defaults, the anchors' -nx and our --nx, a named error for every bad value), its tuning variables (every range, a named error for every malformed or out-of-range value, the header's words), the tests' fault spec, and its row split and ring against the anchors' formulas. */
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
#include "jacobi_options.h"
#include "shardtab.h"

static char err[256];
static jacobi_options_t opts;

OPT_TEST_PARSER(app_opt_parse_t, jacobi_options_parse, APP_OPT_PARSE_ERROR)

/* `option value` is refused by a message naming `name` and quoting the value. */
static void expect_bad_value(const char *option, const char *value, const char *name)
{
    char quoted[64];
    char *argv[] = {"jacobi", (char *)option, (char *)value};
    snprintf(quoted, sizeof quoted, "'%s'", value);
    expect_error(ARGC(argv), argv, name, quoted);
}

/* the default grid's side: by the backend these tests were built for */
static int default_side(void)
{
    return shardtab_backend() == SHARDTAB_BACKEND_HOST ? JACOBI_DEFAULT_SIDE_HOST
                                                       : JACOBI_DEFAULT_SIDE_GPU;
}

static void expect_defaults(const jacobi_options_t *o)
{
    assert_int_equal(o->nx, default_side());
    assert_int_equal(o->ny, default_side());
    assert_int_equal(o->niter, 1000);
    assert_int_equal(o->nccheck, 1);
    assert_int_equal(o->repeat, 1);
    assert_int_equal(o->launch, JACOBI_LAUNCH_AUTO);
    assert_int_equal(o->variant, JACOBI_TABLE);
    assert_int_equal(o->init.kind, JACOBI_INIT_ZERO);
    assert_int_equal(o->cpu_check, JACOBI_CPU_CHECK_AUTO);
    assert_null(o->json);
    assert_null(o->trace);
    assert_int_equal(o->allow_shared_gpu, 0);
    /* the tuning variables' defaults, none set */
    assert_int_equal(o->tuning.min_strip_rows, 4);
    assert_int_equal(o->tuning.vec4, 1);
    assert_int_equal(o->tuning.blocks_per_sm, 0);
    assert_int_equal(o->tuning.rows_in_flight, 0);
    assert_int_equal(o->tuning.norm_block, 1);
    assert_int_equal(o->tuning_set, 0);
}

/* ---- defaults and every option ---------------------------------------------------- */

static void test_jacobi_options_no_arguments_give_the_anchors_defaults(void **state)
{
    char *argv[] = {"jacobi"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
    expect_defaults(&opts);
    assert_string_equal(err, "");
}

static void test_jacobi_options_default_sets_every_field(void **state)
{
    (void)state;
    memset(&opts, 0xA5, sizeof opts);
    jacobi_options_default(&opts);
    expect_defaults(&opts);
}

static void test_jacobi_options_single_dash_forms_of_the_anchors_set_every_field(void **state)
{
    char *argv[] = {"jacobi", "-nx",      "130",        "-ny",      "257",    "-niter",
                    "40",     "-nccheck", "5",          "-variant", "mpi",    "-launch",
                    "stream", "-repeat",  "3",          "-json",    "r.json", "-allow-shared-gpu",
                    "-init",  "random:7", "-cpu-check", "no",       "-trace", "t.csv"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
    assert_int_equal(opts.nx, 130);
    assert_int_equal(opts.ny, 257);
    assert_int_equal(opts.niter, 40);
    assert_int_equal(opts.nccheck, 5);
    assert_int_equal(opts.variant, JACOBI_MPI);
    assert_int_equal(opts.launch, JACOBI_LAUNCH_STREAM);
    assert_int_equal(opts.repeat, 3);
    assert_string_equal(opts.json, "r.json");
    assert_int_equal(opts.allow_shared_gpu, 1);
    assert_int_equal(opts.init.kind, JACOBI_INIT_RANDOM);
    assert_int_equal(opts.init.seed, 7);
    assert_int_equal(opts.cpu_check, JACOBI_CPU_CHECK_NO);
    assert_string_equal(opts.trace, "t.csv");
}

static void test_jacobi_options_double_dash_forms_set_every_field(void **state)
{
    char *argv[] = {
        "jacobi",     "--nx",      "3",           "--ny",      "4",           "--niter",
        "10000000",   "--nccheck", "10000000",    "--variant", "host-sync",   "--launch",
        "persistent", "--repeat",  "100",         "--json",    "/tmp/x.json", "--allow-shared-gpu",
        "--init",     "random",    "--cpu-check", "yes",       "--trace",     "/tmp/t.csv"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
    assert_int_equal(opts.nx, 3);
    assert_int_equal(opts.ny, 4);
    assert_int_equal(opts.niter, JACOBI_MAX_ITER);
    assert_int_equal(opts.nccheck, JACOBI_MAX_ITER);
    assert_int_equal(opts.variant, JACOBI_HOST_SYNC);
    assert_int_equal(opts.launch, JACOBI_LAUNCH_PERSISTENT);
    assert_int_equal(opts.repeat, JACOBI_MAX_REPEAT);
    assert_string_equal(opts.json, "/tmp/x.json");
    assert_int_equal(opts.allow_shared_gpu, 1);
    assert_int_equal(opts.init.kind, JACOBI_INIT_RANDOM);
    assert_int_equal(opts.init.seed, 1); /* random alone: seed 1 */
    assert_int_equal(opts.cpu_check, JACOBI_CPU_CHECK_YES);
    assert_string_equal(opts.trace, "/tmp/t.csv");
}

static void test_jacobi_options_equals_forms_are_accepted(void **state)
{
    char *argv[] = {"jacobi", "-nx=9", "--ny=11", "--variant=table", "-launch=stream"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
    assert_int_equal(opts.nx, 9);
    assert_int_equal(opts.ny, 11);
    assert_int_equal(opts.variant, JACOBI_TABLE);
    assert_int_equal(opts.launch, JACOBI_LAUNCH_STREAM);
}

/* Each word parses to its value in test_opt_table's walk of the rows; here
 * the names the reports print, and "?" past the table. */
static void test_jacobi_options_variant_names(void **state)
{
    (void)state;
    assert_string_equal(jacobi_variant_name(JACOBI_TABLE), "table");
    assert_string_equal(jacobi_variant_name(JACOBI_HOST_SYNC), "host-sync");
    assert_string_equal(jacobi_variant_name(JACOBI_MPI), "mpi");
    assert_string_equal(jacobi_variant_name(JACOBI_VARIANT_COUNT), "?");
    assert_string_equal(jacobi_variant_name((jacobi_variant_t)-1), "?");
}

static void test_jacobi_options_last_value_of_a_repeated_option_wins(void **state)
{
    char *argv[] = {"jacobi",   "-nx",    "100",      "--nx", "200",
                    "--launch", "stream", "--launch", "graph"};
    (void)state;
    assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_OK);
    assert_int_equal(opts.nx, 200);
    assert_int_equal(opts.launch, JACOBI_LAUNCH_GRAPH);
}

static void test_jacobi_options_launch_names(void **state)
{
    (void)state;
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_AUTO), "auto");
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_PERSISTENT), "persistent");
    assert_string_equal(jacobi_launch_name(JACOBI_LAUNCH_COUNT), "?");
}

static void test_jacobi_options_init_takes_zero_random_and_a_seed_up_to_2_pow_64(void **state)
{
    char *zero[] = {"jacobi", "--init", "random:5", "--init", "zero"};
    char *big[] = {"jacobi", "--init", "random:18446744073709551615"};
    char text[48];
    (void)state;
    assert_int_equal(parse(ARGC(zero), zero), APP_OPT_PARSE_OK);
    assert_int_equal(opts.init.kind, JACOBI_INIT_ZERO);
    assert_string_equal(jacobi_init_name(&opts.init, text, sizeof text), "zero");
    assert_int_equal(parse(ARGC(big), big), APP_OPT_PARSE_OK);
    assert_int_equal(opts.init.kind, JACOBI_INIT_RANDOM);
    assert_true(opts.init.seed == UINT64_MAX);
    assert_string_equal(jacobi_init_name(&opts.init, text, sizeof text),
                        "random:18446744073709551615");
}

static void test_jacobi_options_bad_init_and_cpu_check_are_named(void **state)
{
    static const char *const inits[] = {"ones",      "random:", "random:-1",
                                        "random:1x", "Random",  "random:18446744073709551616",
                                        "",          "random 5"};
    (void)state;
    for (int i = 0; i < ARGC(inits); i++)
        expect_bad_value("--init", inits[i], "--init");
    expect_bad_value("--init", "ones", "zero, random or random:SEED");
    expect_bad_value("--cpu-check", "maybe", "auto, yes or no");
    expect_bad_value("--cpu-check", "", "--cpu-check");
}

/* ---- the tests' planted bugs (JACOBI_TEST_FAULT) --------------------------------------- */

static void test_jacobi_test_fault_parses_every_solve_and_kind(void **state)
{
    jacobi_test_fault_t f;
    (void)state;
    assert_int_equal(jacobi_test_fault_parse(NULL, &f, err, sizeof err), 0);
    assert_int_equal(f.kind, JACOBI_TEST_FAULT_NONE);
    assert_int_equal(jacobi_test_fault_parse("", &f, err, sizeof err), 0);
    assert_int_equal(f.kind, JACOBI_TEST_FAULT_NONE);
    assert_int_equal(jacobi_test_fault_parse("run:stale:5:1024:20", &f, err, sizeof err), 0);
    assert_int_equal(f.solves, JACOBI_FAULT_IN_RUN);
    assert_int_equal(f.kind, JACOBI_TEST_FAULT_STALE);
    assert_int_equal(f.row, 5);
    assert_int_equal(f.col, 1024);
    assert_int_equal(f.iteration, 20);
    assert_int_equal(jacobi_test_fault_parse("kernel:norm:1:2:3", &f, err, sizeof err), 0);
    assert_int_equal(f.solves, JACOBI_FAULT_IN_RUN | JACOBI_FAULT_IN_REFERENCE);
    assert_int_equal(f.kind, JACOBI_TEST_FAULT_NORM);
    assert_int_equal(jacobi_test_fault_parse("plain:stop:0:0:9", &f, err, sizeof err), 0);
    assert_int_equal(f.solves, JACOBI_FAULT_IN_PLAIN);
    assert_int_equal(f.kind, JACOBI_TEST_FAULT_STOP);
    assert_int_equal(jacobi_test_fault_parse("reference:stale:0:0:0", &f, err, sizeof err), 0);
    assert_int_equal(f.solves, JACOBI_FAULT_IN_REFERENCE);
}

/* A fault names a place inside the grid's interior (stale, norm: a point;
 * edge, lag: a row; stop: none), or it is refused: planted nowhere, it would
 * let a check "catch" nothing. */
static void test_jacobi_test_fault_must_name_a_place_inside_the_grid(void **state)
{
    static const struct {
        const char *text;
        int ok;
    } cases[] = {{"run:stale:1:1:0", 1},  {"run:stale:18:18:0", 1}, {"run:stale:0:5:0", 0},
                 {"run:stale:19:5:0", 0}, {"run:stale:5:0:0", 0},   {"run:norm:5:19:0", 0},
                 {"run:edge:5:0:0", 1},   {"run:lag:18:99:0", 1},   {"run:edge:0:1:20", 0},
                 {"run:lag:19:1:0", 0},   {"run:stop:0:0:3", 1},    {"plain:stop:99:99:3", 1}};
    jacobi_test_fault_t f;
    (void)state;
    for (int i = 0; i < ARGC(cases); i++) {
        assert_int_equal(jacobi_test_fault_parse(cases[i].text, &f, err, sizeof err), 0);
        memset(err, 0, sizeof err);
        int rc = jacobi_test_fault_check(&f, 20, 20, err, sizeof err);
        if (rc != (cases[i].ok ? 0 : -1))
            fail_msg("'%s' in 20 x 20: %d (%s)", cases[i].text, rc, err);
        if (!cases[i].ok && strstr(err, "the bug would be planted nowhere") == NULL)
            fail_msg("message '%s' for '%s'", err, cases[i].text);
    }
    f.kind = JACOBI_TEST_FAULT_NONE;
    assert_int_equal(jacobi_test_fault_check(&f, 20, 20, err, sizeof err), 0);
}

static void test_jacobi_test_fault_refuses_anything_else_with_the_form(void **state)
{
    static const char *const bad[] = {"run",
                                      "run:stale",
                                      "run:stale:1:2",
                                      "run:stale:1:2:3:4",
                                      "job:stale:1:2:3",
                                      "run:none:1:2:3",
                                      "run:bit:1:2:3",
                                      "run:stale:-1:2:3",
                                      "run:stale:1:2:x",
                                      "RUN:stale:1:2:3"};
    jacobi_test_fault_t f;
    (void)state;
    for (int i = 0; i < ARGC(bad); i++) {
        memset(err, 0, sizeof err);
        assert_int_equal(jacobi_test_fault_parse(bad[i], &f, err, sizeof err), -1);
        assert_int_equal(f.kind, JACOBI_TEST_FAULT_NONE);
        if (strstr(err, bad[i]) == NULL || strstr(err, "<run|reference|kernel|plain>") == NULL)
            fail_msg("message '%s' for '%s'", err, bad[i]);
    }
}

static void test_jacobi_options_help_in_every_form_returns_help(void **state)
{
    char *forms[] = {"-h", "--help", "-help"};
    (void)state;
    for (int i = 0; i < ARGC(forms); i++) {
        char *argv[] = {"jacobi", "-nx", "64", forms[i]};
        assert_int_equal(parse(ARGC(argv), argv), APP_OPT_PARSE_HELP);
    }
}

static void test_jacobi_options_usage_text_names_every_option(void **state)
{
    static const char *const names[] = {"-nx",
                                        "-ny",
                                        "-niter",
                                        "-nccheck",
                                        "--variant",
                                        "--launch",
                                        "persistent",
                                        "--init",
                                        "--cpu-check",
                                        "--repeat",
                                        "--json",
                                        "--trace",
                                        "--allow-shared-gpu",
                                        "--help",
                                        "SHARDTAB_WAIT_TIMEOUT",
                                        "Exit status",
                                        "JACOBI_MIN_STRIP_ROWS",
                                        "JACOBI_VEC4",
                                        "JACOBI_BLOCKS_PER_SM",
                                        "JACOBI_ROWS_IN_FLIGHT",
                                        "JACOBI_NORM_BLOCK",
                                        "JACOBI_ONCHIP_ROWS",
                                        "onchip"};
    (void)state;
    assert_true(strncmp(app_opt_usage_text(&jacobi_option_table), "Usage: jacobi", 13) == 0);
    for (int i = 0; i < ARGC(names); i++)
        if (strstr(app_opt_usage_text(&jacobi_option_table), names[i]) == NULL)
            fail_msg("the usage text does not mention '%s'", names[i]);
}

/* ---- bad values: each message names its option and quotes the value ------------------ */

static void test_jacobi_options_grid_sides_refuse_out_of_range_and_non_integers(void **state)
{
    static const char *const bad[] = {"2", "0",  "-3",  "1048577", "abc",
                                      "",  "5x", "1.5", "0x10",    "99999999999999999999"};
    (void)state;
    for (int i = 0; i < ARGC(bad); i++) {
        expect_bad_value("-nx", bad[i], "-nx");
        expect_bad_value("--nx", bad[i], "-nx");
        expect_bad_value("-ny", bad[i], "-ny");
    }
    expect_bad_value("--nx", "2", "from 3 to 1048576");
}

static void test_jacobi_options_grid_sides_accept_both_limits(void **state)
{
    char *low[] = {"jacobi", "-nx", "3", "-ny", "3"};
    char *high[] = {"jacobi", "-nx", "1048576", "-ny", "16"};
    (void)state;
    assert_int_equal(parse(ARGC(low), low), APP_OPT_PARSE_OK);
    assert_int_equal(opts.nx, 3);
    assert_int_equal(opts.ny, 3);
    assert_int_equal(parse(ARGC(high), high), APP_OPT_PARSE_OK);
    assert_int_equal(opts.nx, JACOBI_MAX_SIDE);
}

static void test_jacobi_options_grid_of_more_than_2_pow_36_points_is_refused(void **state)
{
    char *exact[] = {"jacobi", "-nx", "262144", "-ny", "262144"}; /* 2^36: allowed */
    char *over[] = {"jacobi", "-nx", "262144", "-ny", "262145"};
    (void)state;
    assert_int_equal(parse(ARGC(exact), exact), APP_OPT_PARSE_OK);
    expect_error(ARGC(over), over, "262144 x 262145 grid", "2^36");
}

static void test_jacobi_options_iteration_counts_refuse_out_of_range_and_non_integers(void **state)
{
    static const char *const bad[] = {"0", "-1", "10000001", "ten", "", "3 "};
    (void)state;
    for (int i = 0; i < ARGC(bad); i++) {
        expect_bad_value("-niter", bad[i], "-niter");
        expect_bad_value("--niter", bad[i], "-niter");
        expect_bad_value("-nccheck", bad[i], "-nccheck");
    }
    expect_bad_value("-niter", "0", "from 1 to 10000000");
}

static void test_jacobi_options_repeat_refuses_out_of_range_and_non_integers(void **state)
{
    static const char *const bad[] = {"0", "101", "-2", "x", ""};
    (void)state;
    for (int i = 0; i < ARGC(bad); i++)
        expect_bad_value("--repeat", bad[i], "--repeat");
    expect_bad_value("--repeat", "0", "from 1 to 100");
}

static void test_jacobi_options_unknown_variant_and_launch_are_named(void **state)
{
    static const char *const variants[] = {"nvshmem", "TABLE", "", "host"};
    (void)state;
    for (int i = 0; i < ARGC(variants); i++)
        expect_bad_value("--variant", variants[i], "--variant");
    expect_bad_value("--variant", "nvshmem", "table, host-sync or mpi");
    expect_bad_value("--launch", "graphs", "--launch");
    expect_bad_value("--launch", "", "auto, persistent, graph, stream, onchip or temporal");
}

static void test_jacobi_options_missing_value_is_named_as_typed(void **state)
{
    static const char *const options[] = {"-nx",       "--ny",        "-niter",   "-nccheck",
                                          "--variant", "--launch",    "--repeat", "--json",
                                          "--init",    "--cpu-check", "--trace"};
    (void)state;
    for (int i = 0; i < ARGC(options); i++) {
        char *argv[] = {"jacobi", (char *)options[i]};
        char want[64];
        snprintf(want, sizeof want, "option '%s' needs a value", options[i]);
        expect_error(ARGC(argv), argv, want, NULL);
    }
}

static void test_jacobi_options_ambiguous_n_is_refused_and_named(void **state)
{
    /* -n could be -nx, -ny, -niter or -nccheck; the message quotes the name, not a value */
    static const char *const forms[] = {"-n", "--n", "--n=5"};
    static const char *const quoted[] = {"'-n'", "'--n'", "'--n'"};
    (void)state;
    for (int i = 0; i < ARGC(forms); i++) {
        char *argv[] = {"jacobi", (char *)forms[i], "5"};
        expect_error(ARGC(argv), argv, "ambiguous", quoted[i]);
        expect_error(ARGC(argv), argv, quoted[i], "(could be -nx, -ny, -niter, -nccheck)");
    }
}

static void test_jacobi_options_unknown_options_are_named(void **state)
{
    static const char *const forms[] = {"-x", "--bogus", "-nz", "--allow-shared-gpu=1"};
    (void)state;
    for (int i = 0; i < ARGC(forms); i++) {
        char *argv[] = {"jacobi", (char *)forms[i]};
        char want[64];
        snprintf(want, sizeof want, "'%s'", forms[i]);
        expect_error(ARGC(argv), argv, "option", want);
    }
}

static void test_jacobi_options_extra_arguments_are_refused_wherever_they_stand(void **state)
{
    char *last[] = {"jacobi", "-nx", "64", "stray"};
    char *first[] = {"jacobi", "stray", "-nx", "64"};
    char *two[] = {"jacobi", "one", "two"};
    char *dash[] = {"jacobi", "-"};
    (void)state;
    expect_error(ARGC(last), last, "unexpected argument 'stray'", NULL);
    expect_error(ARGC(first), first, "unexpected argument 'stray'", NULL);
    expect_error(ARGC(two), two, "unexpected argument 'one'", NULL);
    expect_error(ARGC(dash), dash, "unexpected argument '-'", NULL);
}

static void test_jacobi_options_error_message_is_truncated_to_the_buffer(void **state)
{
    char small[12];
    char *argv[] = {"jacobi", "--variant", "a-variant-name-much-longer-than-the-buffer"};
    (void)state;
    memset(small, 'Z', sizeof small);
    assert_int_equal(jacobi_options_parse(ARGC(argv), argv, &opts, small, 8), APP_OPT_PARSE_ERROR);
    assert_int_equal(strlen(small), 7);
    assert_int_equal(small[8], 'Z'); /* nothing written past err_bytes */
}

static void test_jacobi_options_parse_after_an_error_starts_from_defaults(void **state)
{
    char *bad[] = {"jacobi", "-nx", "64", "-niter", "0"};
    char *good[] = {"jacobi", "-ny", "64"};
    (void)state;
    expect_error(ARGC(bad), bad, "-niter", NULL);
    assert_int_equal(parse(ARGC(good), good), APP_OPT_PARSE_OK);
    assert_int_equal(opts.nx, default_side());
    assert_int_equal(opts.ny, 64);
    assert_int_equal(opts.niter, 1000);
}

/* -hx stops inside a bundle of short options (help, then 'x'). The next parse
 * must start from argv[1] of its own argv: getopt's state is reset with
 * optind = 0 in glibc, not 1 (src/multi_scal/options.c does it so). */
static void test_jacobi_options_parse_after_help_in_a_bundle_starts_afresh(void **state)
{
    char *help[] = {"jacobi", "-hx"};
    char *good[] = {"jacobi", "-nx", "64"};
    (void)state;
    assert_int_equal(parse(ARGC(help), help), APP_OPT_PARSE_HELP);
    assert_int_equal(parse(ARGC(good), good), APP_OPT_PARSE_OK);
    assert_int_equal(opts.nx, 64);
}

/* ---- the tuning variables (environment) ------------------------------------------------ */

static const char *const tuning_names[JACOBI_TUNING_COUNT] = {
    "JACOBI_MIN_STRIP_ROWS", "JACOBI_VEC4",        "JACOBI_BLOCKS_PER_SM",  "JACOBI_ROWS_IN_FLIGHT",
    "JACOBI_NORM_BLOCK",     "JACOBI_ONCHIP_ROWS", "JACOBI_TEMPORAL_DEPTH", "JACOBI_TEMPORAL_ROWS"};

/* Parses one variable set to `value`, the others unset. */
static int tune_one(int var, const char *value)
{
    const char *text[JACOBI_TUNING_COUNT] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    text[var] = value;
    memset(err, 0, sizeof err);
    jacobi_options_default(&opts);
    return jacobi_tuning_parse(&opts, text, err, sizeof err);
}

static void test_jacobi_tuning_names_each_variable(void **state)
{
    (void)state;
    for (int v = 0; v < JACOBI_TUNING_COUNT; v++)
        assert_string_equal(jacobi_tuning_name((jacobi_tuning_var_t)v), tuning_names[v]);
    assert_string_equal(jacobi_tuning_name(JACOBI_TUNING_COUNT), "?");
    assert_string_equal(jacobi_tuning_name((jacobi_tuning_var_t)-1), "?");
}

static void test_jacobi_tuning_unset_and_empty_are_the_defaults(void **state)
{
    const char *none[JACOBI_TUNING_COUNT] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const char *empty[JACOBI_TUNING_COUNT] = {"", "", "", "", "", "", "", ""};
    const jacobi_tuning_t kernels = JACOBI_TUNING_DEFAULTS;
    (void)state;
    memset(&opts, 0xA5, sizeof opts);
    assert_int_equal(jacobi_tuning_parse(&opts, none, err, sizeof err), 0);
    assert_memory_equal(&opts.tuning, &kernels, sizeof kernels);
    assert_int_equal(opts.tuning_set, 0);
    memset(&opts, 0xA5, sizeof opts);
    assert_int_equal(jacobi_tuning_parse(&opts, empty, err, sizeof err), 0);
    assert_memory_equal(&opts.tuning, &kernels, sizeof kernels);
    assert_int_equal(opts.tuning_set, 0);
    assert_true(jacobi_tuning_is_auto(&opts.tuning, JACOBI_TUNE_BLOCKS_PER_SM));
    assert_true(jacobi_tuning_is_auto(&opts.tuning, JACOBI_TUNE_ROWS_IN_FLIGHT));
    assert_true(jacobi_tuning_is_auto(&opts.tuning, JACOBI_TUNE_ONCHIP_ROWS));
    assert_true(jacobi_tuning_is_auto(&opts.tuning, JACOBI_TUNE_TEMPORAL_ROWS));
    assert_false(jacobi_tuning_is_auto(&opts.tuning, JACOBI_TUNE_VEC4));
}

static void test_jacobi_tuning_accepts_every_value_of_each_range(void **state)
{
    static const struct {
        int var, lo, hi;
    } ranges[] = {{JACOBI_TUNE_MIN_STRIP_ROWS, 1, 64},
                  {JACOBI_TUNE_VEC4, 0, 1},
                  {JACOBI_TUNE_BLOCKS_PER_SM, 1, 16},
                  {JACOBI_TUNE_NORM_BLOCK, 0, 1},
                  {JACOBI_TUNE_TEMPORAL_ROWS, 4, 4096}};
    static const char *const rows[] = {"1", "4", "8"};
    char text[16];
    (void)state;
    for (int i = 0; i < ARGC(ranges); i++)
        for (int v = ranges[i].lo; v <= ranges[i].hi; v++) {
            snprintf(text, sizeof text, "%d", v);
            if (tune_one(ranges[i].var, text) != 0)
                fail_msg("%s=%s refused: %s", tuning_names[ranges[i].var], text, err);
            assert_int_equal(jacobi_tuning_value(&opts.tuning, (jacobi_tuning_var_t)ranges[i].var),
                             v);
            assert_int_equal(opts.tuning_set, 1u << ranges[i].var);
            assert_false(jacobi_tuning_is_auto(&opts.tuning, (jacobi_tuning_var_t)ranges[i].var));
        }
    for (int i = 0; i < ARGC(rows); i++) {
        assert_int_equal(tune_one(JACOBI_TUNE_ROWS_IN_FLIGHT, rows[i]), 0);
        assert_int_equal(opts.tuning.rows_in_flight, atoi(rows[i]));
    }
    /* a temporal pass's depth: odd, 1 to 7 (it writes the other buffer) */
    for (int depth = 1; depth <= 7; depth += 2) {
        snprintf(text, sizeof text, "%d", depth);
        assert_int_equal(tune_one(JACOBI_TUNE_TEMPORAL_DEPTH, text), 0);
        assert_int_equal(opts.tuning.temporal_depth, depth);
        assert_false(jacobi_tuning_is_auto(&opts.tuning, JACOBI_TUNE_TEMPORAL_DEPTH));
    }
    /* the fields the kernels take */
    assert_int_equal(tune_one(JACOBI_TUNE_MIN_STRIP_ROWS, "33"), 0);
    assert_int_equal(opts.tuning.min_strip_rows, 33);
    assert_int_equal(tune_one(JACOBI_TUNE_VEC4, "0"), 0);
    assert_int_equal(opts.tuning.vec4, 0);
    assert_int_equal(tune_one(JACOBI_TUNE_BLOCKS_PER_SM, "16"), 0);
    assert_int_equal(opts.tuning.blocks_per_sm, JACOBI_MAX_BLOCKS_PER_SM);
    assert_int_equal(tune_one(JACOBI_TUNE_NORM_BLOCK, "0"), 0);
    assert_int_equal(opts.tuning.norm_block, 0);
}

static void test_jacobi_tuning_refuses_malformed_and_out_of_range_values_by_name(void **state)
{
    static const struct {
        int var;
        const char *value, *expected;
    } bad[] = {
        {JACOBI_TUNE_MIN_STRIP_ROWS, "0", "an integer from 1 to 64"},
        {JACOBI_TUNE_MIN_STRIP_ROWS, "65", "an integer from 1 to 64"},
        {JACOBI_TUNE_MIN_STRIP_ROWS, "4rows", "an integer from 1 to 64"},
        {JACOBI_TUNE_MIN_STRIP_ROWS, " 4", "an integer from 1 to 64"},
        {JACOBI_TUNE_MIN_STRIP_ROWS, "4 ", "an integer from 1 to 64"},
        {JACOBI_TUNE_MIN_STRIP_ROWS, "+4", "an integer from 1 to 64"},
        {JACOBI_TUNE_MIN_STRIP_ROWS, "99999999999999999999", "an integer from 1 to 64"},
        {JACOBI_TUNE_VEC4, "2", "0 or 1"},
        {JACOBI_TUNE_VEC4, "yes", "0 or 1"},
        {JACOBI_TUNE_VEC4, "-1", "0 or 1"},
        {JACOBI_TUNE_BLOCKS_PER_SM, "0", "an integer from 1 to 16"},
        {JACOBI_TUNE_BLOCKS_PER_SM, "17", "an integer from 1 to 16"},
        {JACOBI_TUNE_BLOCKS_PER_SM, "3.5", "an integer from 1 to 16"},
        {JACOBI_TUNE_BLOCKS_PER_SM, "0x4", "an integer from 1 to 16"},
        {JACOBI_TUNE_ROWS_IN_FLIGHT, "0", "1, 4 or 8"},
        {JACOBI_TUNE_ROWS_IN_FLIGHT, "2", "1, 4 or 8"},
        {JACOBI_TUNE_ROWS_IN_FLIGHT, "5", "1, 4 or 8"},
        {JACOBI_TUNE_ROWS_IN_FLIGHT, "16", "1, 4 or 8"},
        {JACOBI_TUNE_ROWS_IN_FLIGHT, "eight", "1, 4 or 8"},
        {JACOBI_TUNE_NORM_BLOCK, "on", "0 or 1"},
        {JACOBI_TUNE_TEMPORAL_DEPTH, "0", "1, 3, 5 or 7"},
        {JACOBI_TUNE_TEMPORAL_DEPTH, "2", "1, 3, 5 or 7"},
        {JACOBI_TUNE_TEMPORAL_DEPTH, "6", "1, 3, 5 or 7"},
        {JACOBI_TUNE_TEMPORAL_DEPTH, "9", "1, 3, 5 or 7"},
        {JACOBI_TUNE_TEMPORAL_DEPTH, "five", "1, 3, 5 or 7"},
        {JACOBI_TUNE_TEMPORAL_ROWS, "0", "an integer from 4 to 4096"},
        {JACOBI_TUNE_TEMPORAL_ROWS, "3", "an integer from 4 to 4096"},
        {JACOBI_TUNE_TEMPORAL_ROWS, "4097", "an integer from 4 to 4096"},
        {JACOBI_TUNE_TEMPORAL_ROWS, "128rows", "an integer from 4 to 4096"},
        {JACOBI_TUNE_NORM_BLOCK, "10", "0 or 1"},
    };
    const jacobi_tuning_t kernels = JACOBI_TUNING_DEFAULTS;
    char want[96];
    (void)state;
    for (int i = 0; i < ARGC(bad); i++) {
        if (tune_one(bad[i].var, bad[i].value) != -1)
            fail_msg("%s='%s' accepted", tuning_names[bad[i].var], bad[i].value);
        snprintf(want, sizeof want, "invalid %s '%s' (environment): expected %s",
                 tuning_names[bad[i].var], bad[i].value, bad[i].expected);
        if (strstr(err, want) == NULL)
            fail_msg("message '%s' does not contain '%s'", err, want);
        /* nothing half-set */
        assert_memory_equal(&opts.tuning, &kernels, sizeof kernels);
        assert_int_equal(opts.tuning_set, 0);
    }
}

static void test_jacobi_tuning_names_the_first_bad_variable_and_keeps_none(void **state)
{
    const char *text[JACOBI_TUNING_COUNT] = {"8", "0", "99", "2", "1", "3", "4", "2"};
    const jacobi_tuning_t kernels = JACOBI_TUNING_DEFAULTS;
    (void)state;
    assert_int_equal(jacobi_tuning_parse(&opts, text, err, sizeof err), -1);
    assert_non_null(strstr(err, "JACOBI_BLOCKS_PER_SM '99'"));
    assert_null(strstr(err, "JACOBI_ROWS_IN_FLIGHT"));
    assert_memory_equal(&opts.tuning, &kernels, sizeof kernels);
    assert_int_equal(opts.tuning_set, 0);
}

static void test_jacobi_tuning_is_read_from_the_environment(void **state)
{
    (void)state;
    for (int v = 0; v < JACOBI_TUNING_COUNT; v++)
        unsetenv(tuning_names[v]);
    jacobi_options_default(&opts);
    assert_int_equal(jacobi_tuning_from_env(&opts, err, sizeof err), 0);
    assert_int_equal(opts.tuning_set, 0);
    setenv("JACOBI_ROWS_IN_FLIGHT", "4", 1);
    setenv("JACOBI_NORM_BLOCK", "0", 1);
    setenv("JACOBI_VEC4", "", 1); /* empty: unset */
    assert_int_equal(jacobi_tuning_from_env(&opts, err, sizeof err), 0);
    assert_int_equal(opts.tuning.rows_in_flight, 4);
    assert_int_equal(opts.tuning.norm_block, 0);
    assert_int_equal(opts.tuning.vec4, 1);
    assert_int_equal(opts.tuning_set,
                     (1u << JACOBI_TUNE_ROWS_IN_FLIGHT) | (1u << JACOBI_TUNE_NORM_BLOCK));
    setenv("JACOBI_MIN_STRIP_ROWS", "many", 1);
    memset(err, 0, sizeof err);
    assert_int_equal(jacobi_tuning_from_env(&opts, err, sizeof err), -1);
    assert_non_null(strstr(err, "invalid JACOBI_MIN_STRIP_ROWS 'many'"));
    for (int v = 0; v < JACOBI_TUNING_COUNT; v++)
        unsetenv(tuning_names[v]);
}

static void test_jacobi_tuning_describe_says_value_and_whether_set(void **state)
{
    const char *text[JACOBI_TUNING_COUNT] = {NULL, "0", NULL, "8", NULL, "16"};
    char line[64];
    (void)state;
    jacobi_options_default(&opts);
    assert_int_equal(jacobi_tuning_parse(&opts, text, err, sizeof err), 0);
    assert_string_equal(
        jacobi_tuning_describe(&opts, JACOBI_TUNE_MIN_STRIP_ROWS, line, sizeof line),
        "JACOBI_MIN_STRIP_ROWS=4 (default)");
    assert_string_equal(jacobi_tuning_describe(&opts, JACOBI_TUNE_VEC4, line, sizeof line),
                        "JACOBI_VEC4=0 (set)");
    assert_string_equal(jacobi_tuning_describe(&opts, JACOBI_TUNE_BLOCKS_PER_SM, line, sizeof line),
                        "JACOBI_BLOCKS_PER_SM=auto (default)");
    assert_string_equal(
        jacobi_tuning_describe(&opts, JACOBI_TUNE_ROWS_IN_FLIGHT, line, sizeof line),
        "JACOBI_ROWS_IN_FLIGHT=8 (set)");
    assert_string_equal(jacobi_tuning_describe(&opts, JACOBI_TUNE_NORM_BLOCK, line, sizeof line),
                        "JACOBI_NORM_BLOCK=1 (default)");
    assert_string_equal(jacobi_tuning_describe(&opts, JACOBI_TUNE_ONCHIP_ROWS, line, sizeof line),
                        "JACOBI_ONCHIP_ROWS=16 (set)");
}

static void test_jacobi_tuning_differences_between_ranks_are_named(void **state)
{
    jacobi_options_t a, b;
    const char *vec4_off[JACOBI_TUNING_COUNT] = {NULL, "0", NULL, NULL, NULL};
    const char *vec4_on[JACOBI_TUNING_COUNT] = {NULL, "1", NULL, NULL, NULL};
    char text[160];
    (void)state;
    jacobi_options_default(&a);
    jacobi_options_default(&b);
    assert_int_equal(jacobi_options_differ(&a, &b, text, sizeof text), 0);
    assert_int_equal(jacobi_tuning_parse(&a, vec4_off, err, sizeof err), 0);
    assert_int_equal(jacobi_options_differ(&a, &b, text, sizeof text), 1);
    assert_string_equal(text, "JACOBI_VEC4=0 (set) against JACOBI_VEC4=1 (default)");
    /* the same value, set on one rank only: still a difference, the record would lie */
    assert_int_equal(jacobi_tuning_parse(&a, vec4_on, err, sizeof err), 0);
    assert_int_equal(jacobi_options_differ(&a, &b, text, sizeof text), 1);
    assert_string_equal(text, "JACOBI_VEC4=1 (set) against JACOBI_VEC4=1 (default)");
    assert_int_equal(jacobi_tuning_parse(&b, vec4_on, err, sizeof err), 0);
    assert_int_equal(jacobi_options_differ(&a, &b, text, sizeof text), 0);
}

static void test_jacobi_usage_text_lists_every_tuning_variable_with_range_and_default(void **state)
{
    static const char *const lines[] = {
        "  JACOBI_MIN_STRIP_ROWS=N  1 to 64 (default 4)",
        "  JACOBI_VEC4=0|1  1 (default)",
        "  JACOBI_BLOCKS_PER_SM=N\n                   1 to 16 (default: the step kernel's own, 4",
        "  JACOBI_ROWS_IN_FLIGHT=N\n                   1, 4 or 8 (default: each kernel's own",
        "  JACOBI_NORM_BLOCK=0|1\n                   persistent launches: 1 (default)",
        "a malformed\nor out-of-range value is bad usage"};
    (void)state;
    for (int i = 0; i < ARGC(lines); i++)
        if (strstr(app_opt_usage_text(&jacobi_option_table), lines[i]) == NULL)
            fail_msg("the usage text does not hold '%s'", lines[i]);
}

/* ---- the row split ----------------------------------------------------------------------- */

/* An independent oracle for the split the anchors use (read, not copied): the
 * interior rows go out evenly, and the last (rows mod ranks) ranks take one row
 * more; a rank starts after the even shares of the ranks before it and the
 * extra rows of those of them that took one. */
static jacobi_rows_t anchors_rows(int ny, int size, int rank)
{
    int interior = ny - 2, even = interior / size, extra = interior % size;
    int first_with_extra = size - extra;
    jacobi_rows_t rows;
    rows.count = even + (rank >= first_with_extra ? 1 : 0);
    rows.start = 1 + rank * even + (rank > first_with_extra ? rank - first_with_extra : 0);
    return rows;
}

static void test_jacobi_split_rows_gives_the_anchors_split_for_a_small_grid(void **state)
{
    /* 8 interior rows over 3 ranks: 2, 3, 3 */
    static const jacobi_rows_t want[3] = {{1, 2}, {3, 3}, {6, 3}};
    (void)state;
    for (int r = 0; r < 3; r++) {
        jacobi_rows_t rows = {-1, -1};
        assert_int_equal(jacobi_split_rows(10, 3, r, &rows, err, sizeof err), 0);
        assert_int_equal(rows.start, want[r].start);
        assert_int_equal(rows.count, want[r].count);
    }
}

/* Contiguous, covering 1 .. ny-2 exactly, low ranks first, as the anchors split. */
static void check_split(int ny, int ranks)
{
    int interior = ny - 2, next = 1, low = interior / ranks, seen_high = 0;

    for (int r = 0; r < ranks; r++) {
        jacobi_rows_t rows = {-1, -1}, anchors = anchors_rows(ny, ranks, r);
        if (jacobi_split_rows(ny, ranks, r, &rows, err, sizeof err) != 0)
            fail_msg("ny %d, %d ranks, rank %d: refused: %s", ny, ranks, r, err);
        if (rows.start != next || rows.count < 1)
            fail_msg("ny %d, %d ranks, rank %d: rows [%d, +%d), expected to start at %d", ny, ranks,
                     r, rows.start, rows.count, next);
        if (rows.count != low && rows.count != low + 1)
            fail_msg("ny %d, %d ranks, rank %d: %d rows, expected %d or %d", ny, ranks, r,
                     rows.count, low, low + 1);
        if (seen_high && rows.count == low)
            fail_msg("ny %d, %d ranks: rank %d has fewer rows than a rank before it", ny, ranks, r);
        seen_high |= rows.count == low + 1;
        if (rows.start != anchors.start || rows.count != anchors.count)
            fail_msg("ny %d, %d ranks, rank %d: [%d, +%d), the anchors [%d, +%d)", ny, ranks, r,
                     rows.start, rows.count, anchors.start, anchors.count);
        next += rows.count;
    }
    if (next != interior + 1)
        fail_msg("ny %d, %d ranks: the rows end at %d, expected %d", ny, ranks, next - 1, interior);
}

static void test_jacobi_split_rows_covers_the_interior_exactly_for_many_grids(void **state)
{
    static const int big[] = {1000, 16384, 16385, 65537, JACOBI_MAX_SIDE};
    static const int big_ranks[] = {1, 2, 3, 7, 8, 64, 999, 4096};
    (void)state;
    for (int ny = 3; ny <= 300; ny++)
        for (int ranks = 1; ranks <= ny - 2 && ranks <= 64; ranks++)
            check_split(ny, ranks);
    for (int i = 0; i < ARGC(big); i++)
        for (int j = 0; j < ARGC(big_ranks); j++)
            if (big_ranks[j] <= big[i] - 2)
                check_split(big[i], big_ranks[j]);
    /* one row each, the tightest split */
    check_split(66, 64);
    check_split(JACOBI_MAX_SIDE, JACOBI_MAX_SIDE - 2);
}

static void test_jacobi_split_rows_refuses_more_ranks_than_rows_with_a_message(void **state)
{
    static const int cases[][2] = {{10, 9}, {3, 2}, {2, 1}, {4, 100}};
    (void)state;
    for (int i = 0; i < ARGC(cases); i++) {
        int ny = cases[i][0], ranks = cases[i][1];
        char want[64];
        for (int r = 0; r<ranks; r += ranks> 3 ? ranks - 1 : 1) {
            jacobi_rows_t rows = {-7, -7};
            memset(err, 0, sizeof err);
            assert_int_equal(jacobi_split_rows(ny, ranks, r, &rows, err, sizeof err), -1);
            /* output written only on success */
            assert_int_equal(rows.start, -7);
            assert_int_equal(rows.count, -7);
            snprintf(want, sizeof want, "%d ranks but only %d interior rows (-ny %d)", ranks,
                     ny - 2, ny);
            if (strstr(err, want) == NULL)
                fail_msg("message '%s' does not contain '%s'", err, want);
            snprintf(want, sizeof want, "-ny %d or more", ranks + 2);
            if (strstr(err, want) == NULL)
                fail_msg("message '%s' does not contain '%s'", err, want);
        }
    }
}

/* ---- the ring ------------------------------------------------------------------------------- */

static void test_jacobi_top_and_bottom_form_the_anchors_periodic_ring(void **state)
{
    (void)state;
    assert_int_equal(jacobi_top(1, 0), 0);
    assert_int_equal(jacobi_bottom(1, 0), 0);
    assert_int_equal(jacobi_top(2, 0), 1);
    assert_int_equal(jacobi_bottom(2, 0), 1);
    for (int ranks = 1; ranks <= 65; ranks++) {
        int r = 0;
        assert_int_equal(jacobi_top(ranks, 0), ranks - 1);
        assert_int_equal(jacobi_bottom(ranks, ranks - 1), 0);
        for (int q = 0; q < ranks; q++) {
            assert_int_equal(jacobi_top(ranks, q), q > 0 ? q - 1 : ranks - 1);
            assert_int_equal(jacobi_bottom(ranks, q), (q + 1) % ranks);
            assert_int_equal(jacobi_top(ranks, jacobi_bottom(ranks, q)), q);
            assert_int_equal(jacobi_bottom(ranks, jacobi_top(ranks, q)), q);
        }
        /* one cycle through every rank */
        for (int step = 1; step < ranks; step++) {
            r = jacobi_bottom(ranks, r);
            assert_int_not_equal(r, 0);
        }
        assert_int_equal(jacobi_bottom(ranks, r), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobi_options_no_arguments_give_the_anchors_defaults),
        cmocka_unit_test(test_jacobi_options_default_sets_every_field),
        cmocka_unit_test(test_jacobi_options_single_dash_forms_of_the_anchors_set_every_field),
        cmocka_unit_test(test_jacobi_options_double_dash_forms_set_every_field),
        cmocka_unit_test(test_jacobi_options_equals_forms_are_accepted),
        cmocka_unit_test(test_jacobi_options_variant_names),
        cmocka_unit_test(test_jacobi_options_last_value_of_a_repeated_option_wins),
        cmocka_unit_test(test_jacobi_options_launch_names),
        cmocka_unit_test(test_jacobi_options_init_takes_zero_random_and_a_seed_up_to_2_pow_64),
        cmocka_unit_test(test_jacobi_options_bad_init_and_cpu_check_are_named),
        cmocka_unit_test(test_jacobi_test_fault_parses_every_solve_and_kind),
        cmocka_unit_test(test_jacobi_test_fault_refuses_anything_else_with_the_form),
        cmocka_unit_test(test_jacobi_test_fault_must_name_a_place_inside_the_grid),
        cmocka_unit_test(test_jacobi_options_help_in_every_form_returns_help),
        cmocka_unit_test(test_jacobi_options_usage_text_names_every_option),
        cmocka_unit_test(test_jacobi_options_grid_sides_refuse_out_of_range_and_non_integers),
        cmocka_unit_test(test_jacobi_options_grid_sides_accept_both_limits),
        cmocka_unit_test(test_jacobi_options_grid_of_more_than_2_pow_36_points_is_refused),
        cmocka_unit_test(test_jacobi_options_iteration_counts_refuse_out_of_range_and_non_integers),
        cmocka_unit_test(test_jacobi_options_repeat_refuses_out_of_range_and_non_integers),
        cmocka_unit_test(test_jacobi_options_unknown_variant_and_launch_are_named),
        cmocka_unit_test(test_jacobi_options_missing_value_is_named_as_typed),
        cmocka_unit_test(test_jacobi_options_ambiguous_n_is_refused_and_named),
        cmocka_unit_test(test_jacobi_options_unknown_options_are_named),
        cmocka_unit_test(test_jacobi_options_extra_arguments_are_refused_wherever_they_stand),
        cmocka_unit_test(test_jacobi_options_error_message_is_truncated_to_the_buffer),
        cmocka_unit_test(test_jacobi_options_parse_after_an_error_starts_from_defaults),
        cmocka_unit_test(test_jacobi_tuning_names_each_variable),
        cmocka_unit_test(test_jacobi_tuning_unset_and_empty_are_the_defaults),
        cmocka_unit_test(test_jacobi_tuning_accepts_every_value_of_each_range),
        cmocka_unit_test(test_jacobi_tuning_refuses_malformed_and_out_of_range_values_by_name),
        cmocka_unit_test(test_jacobi_tuning_names_the_first_bad_variable_and_keeps_none),
        cmocka_unit_test(test_jacobi_tuning_is_read_from_the_environment),
        cmocka_unit_test(test_jacobi_tuning_describe_says_value_and_whether_set),
        cmocka_unit_test(test_jacobi_tuning_differences_between_ranks_are_named),
        cmocka_unit_test(test_jacobi_usage_text_lists_every_tuning_variable_with_range_and_default),
        cmocka_unit_test(test_jacobi_split_rows_gives_the_anchors_split_for_a_small_grid),
        cmocka_unit_test(test_jacobi_split_rows_covers_the_interior_exactly_for_many_grids),
        cmocka_unit_test(test_jacobi_split_rows_refuses_more_ranks_than_rows_with_a_message),
        cmocka_unit_test(test_jacobi_top_and_bottom_form_the_anchors_periodic_ring),
        /* last: on the known bug, it leaves getopt's state to whatever parses next */
        cmocka_unit_test(test_jacobi_options_parse_after_help_in_a_bundle_starts_afresh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
