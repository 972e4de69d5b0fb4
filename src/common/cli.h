/* cli.h - what the project's programs share on their command lines and in
 * their last words: a decimal integer in a range, one word of a list, the
 * message for an option getopt refused, the one error line rank 0 prints, and
 * the exit status a failure maps to. No MPI and no library calls here, so that
 * the programs' option parsers stay unit-testable on their own. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef APP_CLI_H
#define APP_CLI_H

#include <getopt.h>
#include <stddef.h>

/* A decimal integer from lo to hi and nothing else (no blank, no '+', a '-'
 * only before a digit): 0 with *value set, or -1 with "invalid NAME 'TEXT':
 * expected an integer from LO to HI" in err. NULL text is refused alike. */
int app_parse_long(const char *name, const char *text, long lo, long hi, long *value, char *err,
                   size_t err_bytes);

/* A finite decimal number from lo up and nothing else (no leading blank): 0
 * with *value set, or -1 with "invalid NAME 'TEXT': expected a number >= LO". */
int app_parse_double(const char *name, const char *text, double lo, double *value, char *err,
                     size_t err_bytes);

/* TEXT is exactly one of the count words: 0 with *index set, or -1 with
 * "invalid NAME 'TEXT': expected a, b or c" in err. */
int app_parse_word(const char *name, const char *text, const char *const *words, int count,
                   int *index, char *err, size_t err_bytes);

/* Words what getopt_long or getopt_long_only refused, in err:
 *   c       what getopt returned: ':' (a value is missing) or '?' (the rest);
 *   arg     the word it stopped at, argv[optind - 1];
 *   opt     getopt's optopt then (the letter of an unknown short option);
 *   longs   the program's table of long options;
 *   dash    how the program spells a long option: "--" (getopt_long), or "-"
 *           (getopt_long_only, where "-name" is a long option too).
 * Tells apart an unknown option, an ambiguous prefix (naming every candidate),
 * a value given to a flag and a missing value. */
void app_option_error(int c, const char *arg, int opt, const struct option *longs, const char *dash,
                      char *err, size_t err_bytes);

/* The programs' one error line, "PROGRAM: error: MESSAGE", on stderr from
 * rank 0 only (every rank holds the same agreed message). */
void app_say_error(const char *program, int rank, const char *message);

/* The exit status of a run that failed: 2 for bad input (invalid_arg
 * non-zero: the status was SHARDTAB_ERR_INVALID_ARG), 1 for the rest. */
int app_exit_status(int invalid_arg);

#endif /* APP_CLI_H */
