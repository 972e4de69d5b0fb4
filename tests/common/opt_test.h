/* opt_test.h - what the programs' options tests share (tests/cg, tests/jacobi,
 * tests/multi_scal): the count of a literal argv, a fresh start for each
 * parse, the check that a refusal's message holds what it must, and the
 * parse and expect_error every such file starts with. The
 * cases every row of a table owes come from tests/common/test_opt_table.c. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef OPT_TEST_H
#define OPT_TEST_H

#include <string.h>

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* err cleared and opts filled with junk, so that a message must come from
 * the next parse and the parser must set every field itself. */
static inline void opt_test_fresh(char *err, size_t err_bytes, void *opts, size_t opts_bytes)
{
    memset(err, 0, err_bytes);
    memset(opts, 0xA5, opts_bytes);
}

/* Fails unless message is not empty and holds frag1 and frag2 (NULL: none). */
static inline void opt_test_message_holds(const char *message, const char *frag1, const char *frag2)
{
    assert_true(message[0] != '\0');
    if (frag1 && strstr(message, frag1) == NULL)
        fail_msg("message '%s' does not contain '%s'", message, frag1);
    if (frag2 && strstr(message, frag2) == NULL)
        fail_msg("message '%s' does not contain '%s'", message, frag2);
}

/* A test file's parse(argc, argv): its program's parser (options_parse) over
 * the file's static opts and err, each from a fresh start; and
 * expect_error(argc, argv, frag1, frag2): the parse fails (error_value) with
 * a message holding both fragments. */
#define OPT_TEST_PARSER(result_t, options_parse, error_value)                                      \
  static result_t parse(int argc, char **argv)                                                     \
  {                                                                                                \
    opt_test_fresh(err, sizeof err, &opts, sizeof opts);                                           \
    return options_parse(argc, argv, &opts, err, sizeof err);                                      \
  }                                                                                                \
  static void expect_error(int argc, char **argv, const char *frag1, const char *frag2)            \
  {                                                                                                \
    assert_int_equal(parse(argc, argv), error_value);                                              \
    opt_test_message_holds(err, frag1, frag2);                                                     \
  }

#endif /* OPT_TEST_H */
