/* opt_table.h - one table of options for the project's programs: a row an
 * option (its long name, its letter, the kind of its value, the range, the
 * field of the program's options struct it lands in, its help lines), from
 * which come the getopt_long parse, the usage text and the unit tests' cases.
 * A program's options are its table, its defaults and its checks across
 * options. Pure C, no MPI, so that every rank reaches the same verdict alone. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef APP_OPT_TABLE_H
#define APP_OPT_TABLE_H

#include <stddef.h>

typedef enum app_opt_kind {
    APP_OPT_FLAG = 0, /* no value: the int field is set to 1 */
    APP_OPT_INT,      /* a decimal integer from lo to hi, into an int, int64_t or size_t field */
    APP_OPT_DOUBLE,   /* a finite decimal number >= lo, into a double field */
    APP_OPT_WORD,     /* one word of a list, its index into an int (or enum) field */
    APP_OPT_TEXT,     /* any non-empty text (a file name), into a const char * field */
    APP_OPT_CUSTOM,   /* the row's own parse hook, for the odd options */
    APP_OPT_HELP,     /* the parse stops: APP_OPT_PARSE_HELP */
    APP_OPT_VERSION   /* the parse stops: APP_OPT_PARSE_VERSION */
} app_opt_kind_t;

typedef struct app_opt {
    const char *name;    /* the long name, without dashes */
    int letter;          /* the short option, 0 for none */
    app_opt_kind_t kind; /* what the value is */
    /* how messages (and, when it starts with a single '-', the help) name the
     * option: "-nx", "--repeat", "iteration count"; NULL: --name */
    const char *what;
    const char *metavar; /* the value in the help ("N", "FILE"); NULL: a flag */
    size_t offset;       /* of the target field in the program's options struct */
    size_t bytes;        /* its size (APP_OPT_INT: 4 or 8) */
    long lo, hi;         /* APP_OPT_INT's range; APP_OPT_DOUBLE's least value is lo */
    /* APP_OPT_WORD: the words, as an array or by index, and each word's help
     * phrase (may be NULL: none; else listed under the row's help lines) */
    const char *const *words;
    const char *(*word_name)(int index);
    const char *(*word_help)(int index);
    int word_count;
    /* APP_OPT_CUSTOM: parses text into the options struct; 0, or -1 with a
     * message in err */
    int (*parse)(const char *text, void *opts, char *err, size_t err_bytes);
    const char *help; /* the help's lines, '\n' between them */
} app_opt_t;

/* A row's target field, as designated initializers: its offset and size. */
#define APP_OPT_FIELD(type, member)                                                                \
  .offset = offsetof(type, member), .bytes = sizeof(((type *)0)->member)

/* A row of each kind, so that a table reads a row a call; field is
 * APP_OPT_FIELD(type, member), what NULL for --name, letter 0 for none. */
#define APP_OPT_FLAG_ROW(name_, letter_, field, help_)                                             \
  {                                                                                                \
    .name = name_, .letter = letter_, .kind = APP_OPT_FLAG, field, .help = help_                   \
  }
#define APP_OPT_INT_ROW(name_, letter_, what_, metavar_, field, lo_, hi_, help_)                   \
  {                                                                                                \
    .name = name_, .letter = letter_, .kind = APP_OPT_INT, .what = what_, .metavar = metavar_,     \
    field, .lo = lo_, .hi = hi_, .help = help_                                                     \
  }
#define APP_OPT_DOUBLE_ROW(name_, metavar_, field, lo_, help_)                                     \
  {                                                                                                \
    .name = name_, .kind = APP_OPT_DOUBLE, .metavar = metavar_, field, .lo = lo_, .help = help_    \
  }
/* words: an array of count; or by index, word_name_(i), with a help phrase
 * each (word_help_ NULL: none) */
#define APP_OPT_WORD_ROW(name_, what_, metavar_, field, words_, count_, help_)                     \
  {                                                                                                \
    .name = name_, .kind = APP_OPT_WORD, .what = what_, .metavar = metavar_, field,                \
    .words = words_, .word_count = count_, .help = help_                                           \
  }
#define APP_OPT_NAMED_ROW(name_, metavar_, field, word_name_, word_help_, count_, help_)           \
  {                                                                                                \
    .name = name_, .kind = APP_OPT_WORD, .metavar = metavar_, field, .word_name = word_name_,      \
    .word_help = word_help_, .word_count = count_, .help = help_                                   \
  }
#define APP_OPT_TEXT_ROW(name_, letter_, what_, metavar_, field, help_)                            \
  {                                                                                                \
    .name = name_, .letter = letter_, .kind = APP_OPT_TEXT, .what = what_, .metavar = metavar_,    \
    field, .help = help_                                                                           \
  }
#define APP_OPT_CUSTOM_ROW(name_, letter_, metavar_, parse_, help_)                                \
  {                                                                                                \
    .name = name_, .letter = letter_, .kind = APP_OPT_CUSTOM, .metavar = metavar_,                 \
    .parse = parse_, .help = help_                                                                 \
  }
/* -h, --help and --version: the parse stops there */
#define APP_OPT_HELP_ROW(help_)                                                                    \
  {                                                                                                \
    .name = "help", .letter = 'h', .kind = APP_OPT_HELP, .help = help_                             \
  }
#define APP_OPT_VERSION_ROW(help_)                                                                 \
  {                                                                                                \
    .name = "version", .kind = APP_OPT_VERSION, .help = help_                                      \
  }

/* A table's rows and their count, as designated initializers. */
#define APP_OPT_ROWS(rows_) .rows = rows_, .count = (int)(sizeof rows_ / sizeof rows_[0])

typedef struct app_opt_table {
    const app_opt_t *rows;
    int count;
    size_t opts_bytes; /* sizeof the options struct the rows write into */
    /* the checks across options, after a clean parse: 0, or -1 with a
     * message in err (NULL: none) */
    int (*check)(const void *opts, char *err, size_t err_bytes);
    /* 1: getopt_long_only, "-name" is a long option too (the anchors' -nx); 0:
     * getopt_long, with short options */
    int long_only;
    int column; /* where the help lines start */
    /* before a row without a letter, in a table where other rows have one
     * ("    ", under "-n, "); NULL: nothing */
    const char *no_letter_pad;
    const char *head; /* the usage text before the options ("Usage: ...") */
    const char *tail; /* and after them */
} app_opt_table_t;

/* A table: its rows, the program's options struct, the checks across
 * options, the getopt flavour, the help's column, the pad before a row
 * without a letter, and the usage text before and after the rows (see the
 * fields below). */
#define APP_OPT_TABLE(rows_, type_, check_, long_only_, column_, pad_, head_, tail_)               \
  {                                                                                                \
    APP_OPT_ROWS(rows_), .opts_bytes = sizeof(type_), .check = check_, .long_only = long_only_,    \
                         .column = column_, .no_letter_pad = pad_, .head = head_, .tail = tail_    \
  }

typedef enum app_opt_parse {
    APP_OPT_PARSE_OK = 0,
    APP_OPT_PARSE_HELP,
    APP_OPT_PARSE_VERSION,
    APP_OPT_PARSE_ERROR /* one line in err */
} app_opt_parse_t;

/* Parses argv by the table into opts (which the caller has set to its
 * defaults): every option, then no argument left, then the table's check. Reentrant across calls
 * (getopt is reset). The messages: app_parse_long's, app_parse_word's,
 * app_parse_double's, "WHAT needs a file name" for empty text,
 * app_option_error's, and "unexpected argument 'X'". */
app_opt_parse_t app_opt_parse(const app_opt_table_t *table, int argc, char **argv, void *opts,
                              char *err, size_t err_bytes);

/* The usage text: head, a block a row ("  -l, --name META" then its help
 * lines at the column, on the next line where the spelling is too long), tail.
 * Returns text (cut at bytes). */
const char *app_opt_usage(const app_opt_table_t *table, char *text, size_t bytes);

/* The usage text, made once a table (at most 8 tables) and kept. */
const char *app_opt_usage_text(const app_opt_table_t *table);

/* How the help spells a row: "-nx N", "-n, --n N", "--json FILE" (no padding). */
const char *app_opt_spelling(const app_opt_table_t *table, const app_opt_t *row, char *text,
                             size_t bytes);

/* How messages name a row: its what, else "--name"; into text, returns text. */
const char *app_opt_what(const app_opt_t *row, char *text, size_t bytes);

#endif /* APP_OPT_TABLE_H */
