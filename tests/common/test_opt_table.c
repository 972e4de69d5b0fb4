/* test_opt_table.c - the four programs' option tables walked row by row
 * (src/common/opt_table.h): every numeric option refuses the ends just
 * outside its range and takes the ends inside it, every word option takes
 * each of its words and refuses another, every flag refuses a value, every
 * file option refuses an empty name, every valued option needs its value,
 * and --help lists every row. A new row is tested by being a row. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cg_options.h"
#include "coll_bench.h"
#include "jacobi_options.h"
#include "opt_table.h"
#include "options.h"

static const app_opt_table_t *const tables[] = {&jacobi_option_table, &cg_option_table,
                                                &ms_option_table, &cb_option_table};
enum { TABLES = sizeof tables / sizeof tables[0] };

static union {
    max_align_t align;
    char bytes[8192];
} opts;
static char err[1024];

/* What the table's rows make of "prog ARG" (and a second word, if any): the
 * table's parse without its checks across options, on a zeroed struct. */
static app_opt_parse_t parse(const app_opt_table_t *t, const char *arg, const char *value)
{
    char *argv[] = {"prog", (char *)arg, (char *)value, NULL};
    app_opt_table_t rows_only = *t;

    rows_only.check = NULL;
    assert_true(t->opts_bytes <= sizeof opts.bytes);
    memset(&opts, 0, sizeof opts);
    memset(err, 0, sizeof err);
    return app_opt_parse(&rows_only, value ? 3 : 2, argv, &opts, err, sizeof err);
}

static long field_value(const app_opt_t *row)
{
    if (row->bytes == sizeof(int64_t)) {
        int64_t v;
        memcpy(&v, opts.bytes + row->offset, sizeof v);
        return (long)v;
    }
    int v;
    memcpy(&v, opts.bytes + row->offset, sizeof v);
    return v;
}

/* Every row of every table that `wanted` picks, given to `check`. */
static void each_row(int (*wanted)(const app_opt_t *),
                     void (*check)(const app_opt_table_t *, const app_opt_t *))
{
    for (int t = 0; t < TABLES; t++)
        for (int i = 0; i < tables[t]->count; i++)
            if (wanted(&tables[t]->rows[i]))
                check(tables[t], &tables[t]->rows[i]);
}

static int is_int(const app_opt_t *row)
{
    return row->kind == APP_OPT_INT;
}

static int is_word(const app_opt_t *row)
{
    return row->kind == APP_OPT_WORD;
}

static int takes_no_value(const app_opt_t *row)
{
    return row->metavar == NULL;
}

static int takes_a_value(const app_opt_t *row)
{
    return row->metavar != NULL;
}

/* lo - 1 and hi + 1 refused, in the words of app_parse_long; lo and hi land */
static void check_range(const app_opt_table_t *table, const app_opt_t *row)
{
    const long outside[2] = {row->lo - 1, row->hi + 1}, ends[2] = {row->lo, row->hi};
    char arg[64], want[256], what[64];

    app_opt_what(row, what, sizeof what);
    for (int e = 0; e < 2; e++) {
        snprintf(arg, sizeof arg, "--%s=%ld", row->name, outside[e]);
        snprintf(want, sizeof want, "invalid %s '%ld': expected an integer from %ld to %ld", what,
                 outside[e], row->lo, row->hi);
        assert_int_equal(parse(table, arg, NULL), APP_OPT_PARSE_ERROR);
        assert_string_equal(err, want);
        snprintf(arg, sizeof arg, "--%s=%ld", row->name, ends[e]);
        assert_int_equal(parse(table, arg, NULL), APP_OPT_PARSE_OK);
        assert_int_equal(field_value(row), ends[e]);
    }
}

/* each word lands as its index; another is refused, naming the option */
static void check_words(const app_opt_table_t *table, const app_opt_t *row)
{
    char arg[96], want[96], what[64];

    for (int w = 0; w < row->word_count; w++) {
        snprintf(arg, sizeof arg, "--%s=%s", row->name,
                 row->words ? row->words[w] : row->word_name(w));
        assert_int_equal(parse(table, arg, NULL), APP_OPT_PARSE_OK);
        assert_int_equal(field_value(row), w);
    }
    snprintf(arg, sizeof arg, "--%s=no-such-word", row->name);
    snprintf(want, sizeof want, "invalid %s 'no-such-word': expected ",
             app_opt_what(row, what, sizeof what));
    assert_int_equal(parse(table, arg, NULL), APP_OPT_PARSE_ERROR);
    assert_memory_equal(err, want, strlen(want));
}

/* --name=1 refused: a flag */
static void check_flag(const app_opt_table_t *table, const app_opt_t *row)
{
    char arg[96], want[256];

    snprintf(arg, sizeof arg, "--%s=1", row->name);
    snprintf(want, sizeof want, "option '%s' takes no value (--%s is a flag)", arg, row->name);
    assert_int_equal(parse(table, arg, NULL), APP_OPT_PARSE_ERROR);
    assert_string_equal(err, want);
}

/* --name last refused: its value is missing; a file option's empty name too */
static void check_value_needed(const app_opt_table_t *table, const app_opt_t *row)
{
    char arg[96], want[256], what[64];

    snprintf(arg, sizeof arg, "--%s", row->name);
    snprintf(want, sizeof want, "option '%s' needs a value", arg);
    assert_int_equal(parse(table, arg, NULL), APP_OPT_PARSE_ERROR);
    assert_string_equal(err, want);
    if (row->kind != APP_OPT_TEXT)
        return;
    snprintf(want, sizeof want, "%s needs a file name", app_opt_what(row, what, sizeof what));
    assert_int_equal(parse(table, arg, ""), APP_OPT_PARSE_ERROR);
    assert_string_equal(err, want);
}

/* A walk: the rows it picks and what each owes. */
typedef struct walk {
    int (*wanted)(const app_opt_t *);
    void (*check)(const app_opt_table_t *, const app_opt_t *);
} walk_t;

static void test_walk(void **state)
{
    const walk_t *walk = *state;
    each_row(walk->wanted, walk->check);
}

static void test_usage_lists_every_row_with_its_help(void **state)
{
    static char text[16384];
    (void)state;
    for (int t = 0; t < TABLES; t++) {
        app_opt_usage(tables[t], text, sizeof text);
        assert_true(strncmp(text, "Usage: ", 7) == 0);
        for (int i = 0; i < tables[t]->count; i++) {
            const app_opt_t *row = &tables[t]->rows[i];
            char spelled[96], first[128];
            app_opt_spelling(tables[t], row, spelled, sizeof spelled);
            snprintf(first, sizeof first, "%.*s", (int)strcspn(row->help, "\n"), row->help);
            assert_non_null(strstr(text, spelled));
            assert_non_null(strstr(text, first));
        }
    }
}

static void test_the_tables_answer_help_and_version(void **state)
{
    (void)state;
    for (int t = 0; t < TABLES; t++) {
        const app_opt_parse_t help = parse(tables[t], "--help", NULL);
        assert_true(help == APP_OPT_PARSE_HELP ||
                    (help == APP_OPT_PARSE_OK && tables[t] == &ms_option_table));
        assert_int_not_equal(parse(tables[t], "--version", NULL), APP_OPT_PARSE_ERROR);
        assert_int_equal(parse(tables[t], "stray", NULL), APP_OPT_PARSE_ERROR);
        assert_string_equal(err, "unexpected argument 'stray'");
    }
}

static const char *mode_help(int index)
{
    static const char *const phrases[] = {
        "the fast one",
        "the safe one, which never leaves the device until its last iteration ends"};
    return phrases[index];
}

/* A word option whose words have help phrases lists them under its own lines,
 * the phrases in one column and wrapped within 80 columns, and a long spelling
 * puts the help on the next line. */
static void test_usage_puts_word_help_under_the_row(void **state)
{
    static const char *const words[] = {"fast", "safe"};
    static const app_opt_t rows[] = {
        {.name = "mode",
         .kind = APP_OPT_WORD,
         .metavar = "M",
         .offset = 0,
         .bytes = sizeof(int),
         .words = words,
         .word_help = mode_help,
         .word_count = 2,
         .help = "how to run:\none of"},
        {.name = "a-rather-long-flag",
         .kind = APP_OPT_FLAG,
         .offset = 0,
         .bytes = sizeof(int),
         .help = "a flag"},
    };
    static const app_opt_table_t table = {.rows = rows,
                                          .count = 2,
                                          .opts_bytes = sizeof(int),
                                          .column = 12,
                                          .head = "Usage: x\n",
                                          .tail = "end\n"};
    char text[512];
    (void)state;
    assert_string_equal(
        app_opt_usage(&table, text, sizeof text),
        "Usage: x\n"
        "  --mode M  how to run:\n"
        "            one of\n"
        "              fast  the fast one\n"
        "              safe  the safe one, which never leaves the device until its last\n"
        "                    iteration ends\n"
        "  --a-rather-long-flag\n"
        "            a flag\n"
        "end\n");
}

int main(void)
{
    static const walk_t ranges = {is_int, check_range}, words = {is_word, check_words},
                        flags = {takes_no_value, check_flag},
                        values = {takes_a_value, check_value_needed};
    const struct CMUnitTest tests[] = {
        {"every numeric option refuses past its range and takes its ends", test_walk, NULL, NULL,
         (void *)&ranges},
        {"every word option takes each word and refuses another", test_walk, NULL, NULL,
         (void *)&words},
        {"every flag refuses a value", test_walk, NULL, NULL, (void *)&flags},
        {"every valued option needs its value, and a file option a name", test_walk, NULL, NULL,
         (void *)&values},
        cmocka_unit_test(test_usage_lists_every_row_with_its_help),
        cmocka_unit_test(test_the_tables_answer_help_and_version),
        cmocka_unit_test(test_usage_puts_word_help_under_the_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
