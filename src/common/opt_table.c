/* opt_table.c - the option table's parse and usage text (opt_table.h): the
 * one getopt loop of the project's programs. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "opt_table.h"
#include "cli.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { MOST_ROWS = 40, LONG_VAL = 256 }; /* getopt's val of row i: LONG_VAL + i */

const char *app_opt_what(const app_opt_t *row, char *text, size_t bytes)
{
    if (row->what)
        snprintf(text, bytes, "%s", row->what);
    else
        snprintf(text, bytes, "--%s", row->name);
    return text;
}

static const char *word_of(const app_opt_t *row, int i)
{
    return row->words ? row->words[i] : row->word_name(i);
}

/* One value into the row's field. */
static int take_value(const app_opt_t *row, const char *text, void *opts, char *err,
                      size_t err_bytes)
{
    char *field = (char *)opts + row->offset, what[64];
    long value = 0;
    int word = 0;

    app_opt_what(row, what, sizeof what);
    switch (row->kind) {
    case APP_OPT_FLAG:
        *(int *)field = 1;
        return 0;
    case APP_OPT_INT:
        if (app_parse_long(what, text, row->lo, row->hi, &value, err, err_bytes) != 0)
            return -1;
        if (row->bytes == sizeof(int64_t))
            *(int64_t *)field = value; /* an int64_t or a size_t: lo >= 0 there */
        else
            *(int *)field = (int)value;
        return 0;
    case APP_OPT_DOUBLE:
        return app_parse_double(what, text, (double)row->lo, (double *)field, err, err_bytes);
    case APP_OPT_WORD: {
        const char *words[MOST_ROWS];
        int count = row->word_count < MOST_ROWS ? row->word_count : MOST_ROWS;
        for (int i = 0; i < count; i++)
            words[i] = word_of(row, i);
        if (app_parse_word(what, text, words, count, &word, err, err_bytes) != 0)
            return -1;
        *(int *)field = word;
        return 0;
    }
    case APP_OPT_TEXT:
        *(const char **)field = text;
        if (*text == '\0') {
            snprintf(err, err_bytes, "%s needs a file name", what);
            return -1;
        }
        return 0;
    case APP_OPT_CUSTOM:
        return row->parse(text, opts, err, err_bytes);
    default:
        return 0;
    }
}

app_opt_parse_t app_opt_parse(const app_opt_table_t *table, int argc, char **argv, void *opts,
                              char *err, size_t err_bytes)
{
    struct option longs[MOST_ROWS + 1];
    char shorts[2 * MOST_ROWS + 2] = ":"; /* ':' first: a missing value is told apart */
    size_t used = 1;
    int count = table->count < MOST_ROWS ? table->count : MOST_ROWS, c, rc = 0;

    for (int i = 0; i < count; i++) {
        const app_opt_t *row = &table->rows[i];
        const int takes = row->metavar != NULL;
        longs[i] =
            (struct option){row->name, takes ? required_argument : no_argument, NULL, LONG_VAL + i};
        if (row->letter) {
            shorts[used++] = (char)row->letter;
            if (takes)
                shorts[used++] = ':';
        }
    }
    longs[count] = (struct option){NULL, 0, NULL, 0};
    shorts[used] = '\0';
    optind = 0; /* 0, not 1: glibc then also forgets a half-read bundle of a previous parse */
    opterr = 0; /* the messages are ours */
    while (rc == 0 && (c = table->long_only ? getopt_long_only(argc, argv, shorts, longs, NULL)
                                            : getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const app_opt_t *row = NULL;
        if (c >= LONG_VAL && c < LONG_VAL + count)
            row = &table->rows[c - LONG_VAL];
        for (int i = 0; row == NULL && c != ':' && c != '?' && i < count; i++)
            if (table->rows[i].letter == c)
                row = &table->rows[i];
        if (row == NULL) { /* ':' a value missing, '?' an option refused */
            app_option_error(c, argv[optind - 1], optopt, longs, table->long_only ? "-" : "--", err,
                             err_bytes);
            rc = -1;
        } else if (row->kind == APP_OPT_HELP) {
            return APP_OPT_PARSE_HELP;
        } else if (row->kind == APP_OPT_VERSION) {
            return APP_OPT_PARSE_VERSION;
        } else {
            rc = take_value(row, optarg, opts, err, err_bytes);
        }
    }
    if (rc == 0 && optind < argc) {
        snprintf(err, err_bytes, "unexpected argument '%s'", argv[optind]);
        rc = -1;
    }
    if (rc == 0 && table->check)
        rc = table->check(opts, err, err_bytes);
    return rc == 0 ? APP_OPT_PARSE_OK : APP_OPT_PARSE_ERROR;
}

const char *app_opt_spelling(const app_opt_table_t *table, const app_opt_t *row, char *text,
                             size_t bytes)
{
    const int single = row->what && row->what[0] == '-' && row->what[1] != '-';
    char letter[8] = "";

    if (row->letter)
        snprintf(letter, sizeof letter, "-%c, ", row->letter);
    else if (table->no_letter_pad && row->kind != APP_OPT_VERSION)
        snprintf(letter, sizeof letter, "%s", table->no_letter_pad);
    snprintf(text, bytes, "%s%s%s%s%s", letter, single ? "" : "--", single ? row->what : row->name,
             row->metavar ? " " : "", row->metavar ? row->metavar : "");
    return text;
}

/* Appends to text at *used, never past bytes. */
static void put(char *text, size_t bytes, size_t *used, const char *format, const char *a,
                const char *b)
{
    if (*used < bytes)
        *used += (size_t)snprintf(text + *used, bytes - *used, format, a, b);
}

/* A word row's phrases under its help, two columns in from it: the words,
 * then each phrase in one column, wrapped at spaces within the usage text's
 * width. */
static void put_word_help(char *text, size_t bytes, size_t *used, int column, const app_opt_t *row)
{
    enum { WIDTH = 80 };
    int longest = 0;

    for (int w = 0; w < row->word_count; w++)
        if ((int)strlen(word_of(row, w)) > longest)
            longest = (int)strlen(word_of(row, w));
    const int at = column + 2 + longest + 2, room = WIDTH - at > 20 ? WIDTH - at : 20;
    for (int w = 0; w < row->word_count; w++) {
        const char *phrase = row->word_help(w);
        int len = (int)strlen(phrase), indent = column + 2;
        if (*used < bytes)
            *used += (size_t)snprintf(text + *used, bytes - *used, "%*s%-*s  ", indent, "", longest,
                                      word_of(row, w));
        while (len > room) { /* the last space that fits, else the phrase whole */
            int cut = room;
            while (cut > 0 && phrase[cut] != ' ')
                cut--;
            if (cut == 0)
                break;
            if (*used < bytes)
                *used +=
                    (size_t)snprintf(text + *used, bytes - *used, "%.*s\n%*s", cut, phrase, at, "");
            phrase += cut + 1;
            len -= cut + 1;
        }
        put(text, bytes, used, "%s\n%s", phrase, "");
    }
}

const char *app_opt_usage(const app_opt_table_t *table, char *text, size_t bytes)
{
    char spelled[96], pad[64];
    size_t used = 0;
    const int column = table->column < (int)sizeof pad ? table->column : (int)sizeof pad - 1;

    memset(pad, ' ', (size_t)column);
    pad[column] = '\0';
    put(text, bytes, &used, "%s%s", table->head, "");
    for (int i = 0; i < table->count; i++) {
        const app_opt_t *row = &table->rows[i];
        const char *line = row->help ? row->help : "";
        int width = 2 + (int)strlen(app_opt_spelling(table, row, spelled, sizeof spelled));

        put(text, bytes, &used, "  %s%s", spelled, width + 1 <= column ? pad + width : "\n");
        if (width + 1 > column)
            put(text, bytes, &used, "%s%s", pad, "");
        for (;;) { /* the help's lines, each at the column */
            const size_t len = strcspn(line, "\n");
            if (used < bytes)
                used += (size_t)snprintf(text + used, bytes - used, "%.*s\n", (int)len, line);
            if (line[len] == '\0')
                break;
            line += len + 1;
            put(text, bytes, &used, "%s%s", pad, "");
        }
        if (row->kind == APP_OPT_WORD && row->word_help)
            put_word_help(text, bytes, &used, column, row);
    }
    put(text, bytes, &used, "%s%s", table->tail ? table->tail : "", "");
    return text;
}

const char *app_opt_usage_text(const app_opt_table_t *table)
{
    enum { KEPT = 8, BYTES = 16384 };
    static const app_opt_table_t *tables[KEPT];
    static char texts[KEPT][BYTES];
    int i = 0;

    while (i < KEPT - 1 && tables[i] != NULL && tables[i] != table)
        i++;
    if (tables[i] != table) { /* new, or the last slot, made again for each newcomer */
        tables[i] = table;
        app_opt_usage(table, texts[i], BYTES);
    }
    return texts[i];
}
