/* test_sparse_mtx.c - pins the MatrixMarket reader and writer on files written into a fresh temporary folder: every accepted form read to the same CSR, entry by entry; every refusal with its exact message; a generated Poisson matrix and awkward values through the writer and back, bit for bit. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sparse_mtx.h"
#include "sparse_poisson.h"

static char folder[512];

static int make_folder(void **state)
{
    const char *tmp = getenv("TMPDIR");
    (void)state;
    snprintf(folder, sizeof folder, "%s/test_sparse_mtx.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(folder) ? 0 : -1;
}

/* Every file is removed once read; what a failed test left is removed here. */
static int remove_folder(void **state)
{
    (void)state;
    DIR *d = opendir(folder);
    if (d) {
        struct dirent *e;
        char path[1024];
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    return rmdir(folder);
}

static void path_of(const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", folder, name);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* text as the file `name`, read and removed: the reader's status. */
static int read_text(const char *name, const char *text, sparse_csr_t *a, char *err, size_t errlen,
                     char *path, size_t pathsize)
{
    path_of(name, path, pathsize);
    write_text(path, text);
    int status = sparse_mtx_read(path, a, err, errlen);
    assert_int_equal(unlink(path), 0);
    return status;
}

static void assert_csr_equal(const sparse_csr_t *a, const sparse_csr_t *b)
{
    assert_int_equal(a->nrows, b->nrows);
    assert_int_equal(a->nnz, b->nnz);
    for (int64_t i = 0; i <= a->nrows; i++)
        assert_int_equal(a->row_ptr[i], b->row_ptr[i]);
    for (int64_t k = 0; k < a->nnz; k++) {
        assert_int_equal(a->col[k], b->col[k]);
        /* bit for bit: -0 differs from 0 */
        assert_memory_equal(&a->val[k], &b->val[k], sizeof(double));
    }
}

/* ---- accepted forms -------------------------------------------------------------------------- */

/*   [ 4.5   -1.25  0      ]
 *   [-1.25   3.75  0.5    ]
 *   [ 0      0.5   2.0625 ]  */
static int64_t m3_row_ptr[] = {0, 2, 5, 7};
static sparse_col_t m3_col[] = {0, 1, 0, 1, 2, 1, 2};
static double m3_val[] = {4.5, -1.25, -1.25, 3.75, 0.5, 0.5, 2.0625};
static const sparse_csr_t m3 = {3, 7, m3_row_ptr, m3_col, m3_val};

/*   [ 7  -2  0 ]
 *   [-2   5  3 ]
 *   [ 0   3  9 ]  */
static int64_t i3_row_ptr[] = {0, 2, 5, 7};
static sparse_col_t i3_col[] = {0, 1, 0, 1, 2, 1, 2};
static double i3_val[] = {7, -2, -2, 5, 3, 3, 9};
static const sparse_csr_t i3 = {3, 7, i3_row_ptr, i3_col, i3_val};

static void expect_read(const char *name, const char *text, const sparse_csr_t *expected)
{
    sparse_csr_t a;
    char err[512] = "", path[1024];
    int status = read_text(name, text, &a, err, sizeof err, path, sizeof path);
    assert_string_equal(err, "");
    assert_int_equal(status, 0);
    assert_csr_equal(&a, expected);
    sparse_csr_free(&a);
}

static void test_sparse_mtx_reads_a_general_file_in_any_order_with_comments_and_blanks(void **state)
{
    (void)state;
    expect_read("general.mtx",
                "%%MatrixMarket matrix coordinate real general\n"
                "% a comment\n"
                "%\n"
                "\n"
                "  \t\n"
                "% another after a blank line\n"
                "3 3 7\n"
                "3 3 2.0625\n"
                "1 2 -1.25\n"
                "2 3 5e-1\n"
                "\n"
                "2 1 -125E-2\n"
                " 1\t1   +4.5 \n"
                "3 2 .5\n"
                "2 2 3.75\n"
                "\n",
                &m3);
}

static void test_sparse_mtx_reads_a_symmetric_file_into_the_full_matrix(void **state)
{
    (void)state;
    expect_read("symmetric.mtx",
                "%%MatrixMarket matrix coordinate real symmetric\n"
                "3 3 5\n"
                "2 1 -1.25\n"
                "1 1 4.5\n"
                "3 3 2.0625\n"
                "3 2 0.5\n"
                "2 2 3.75\n",
                &m3);
}

static void test_sparse_mtx_reads_crlf_lines_and_a_last_line_without_newline(void **state)
{
    (void)state;
    expect_read("crlf.mtx",
                "%%MatrixMarket matrix coordinate real symmetric\r\n"
                "% windows\r\n"
                "3 3 5\r\n"
                "2 1 -1.25\r\n"
                "1 1 4.5\r\n"
                "\r\n"
                "3 3 2.0625\r\n"
                "3 2 0.5\r\n"
                "2 2 3.75",
                &m3);
}

static void test_sparse_mtx_reads_the_header_words_in_any_case(void **state)
{
    (void)state;
    expect_read("case.mtx",
                "%%MATRIXMARKET Matrix COORDINATE Real SYMMETRIC\n"
                "3 3 5\n"
                "1 1 4.5\n2 1 -1.25\n2 2 3.75\n3 2 0.5\n3 3 2.0625\n",
                &m3);
    expect_read("case2.mtx",
                "%%matrixmarket matrix coordinate INTEGER General\n"
                "3 3 7\n"
                "1 1 7\n1 2 -2\n2 1 -2\n2 2 5\n2 3 3\n3 2 3\n3 3 9\n",
                &i3);
}

static void test_sparse_mtx_reads_integer_files_general_and_symmetric(void **state)
{
    (void)state;
    expect_read("int-general.mtx",
                "%%MatrixMarket matrix coordinate integer general\n"
                "3 3 7\n"
                "3 3 9\n2 3 3\n3 2 3\n1 2 -2\n2 1 -2\n2 2 +5\n1 1 7\n",
                &i3);
    expect_read("int-symmetric.mtx",
                "%%MatrixMarket matrix coordinate integer symmetric\n"
                "3 3 5\n"
                "1 1 7\n2 1 -2\n3 2 3\n2 2 5\n3 3 9\n",
                &i3);
}

static void test_sparse_mtx_reads_integers_up_to_2_to_the_53_exactly(void **state)
{
    int64_t row_ptr[] = {0, 1, 2};
    sparse_col_t col[] = {0, 1};
    double val[] = {9007199254740992.0, 9007199254740991.0};
    const sparse_csr_t big = {2, 2, row_ptr, col, val};
    (void)state;
    expect_read("int-big.mtx",
                "%%MatrixMarket matrix coordinate integer symmetric\n"
                "2 2 2\n1 1 9007199254740992\n2 2 9007199254740991\n",
                &big);
}

static void test_sparse_mtx_reads_a_1x1_matrix(void **state)
{
    int64_t row_ptr[] = {0, 1};
    sparse_col_t col[] = {0};
    double val[] = {0.625};
    const sparse_csr_t one = {1, 1, row_ptr, col, val};
    (void)state;
    expect_read("one.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.625\n",
                &one);
}

static void test_sparse_mtx_takes_an_absent_entry_as_the_zero_of_its_mirror(void **state)
{
    /* an explicit 0 at (1, 2), nothing at (2, 1): symmetric in value, kept as written */
    int64_t row_ptr[] = {0, 2, 3};
    sparse_col_t col[] = {0, 1, 1};
    double val[] = {2.5, 0.0, 1.5};
    const sparse_csr_t z = {2, 3, row_ptr, col, val};
    (void)state;
    expect_read("zero.mtx",
                "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 2.5\n1 2 0\n2 2 1.5\n",
                &z);
}

/* ---- refusals, each with its message ------------------------------------------------------- */

#define GEN "%%MatrixMarket matrix coordinate real general\n"
#define SYM "%%MatrixMarket matrix coordinate real symmetric\n"
#define INT "%%MatrixMarket matrix coordinate integer general\n"
#define FORM "'%%MatrixMarket matrix coordinate real|integer general|symmetric'"
#define SPD "the solver needs every diagonal > 0 (positive definite)"
#define SOLVER                                                                                     \
  "the solver needs a symmetric positive definite real matrix ('general' or 'symmetric')"

typedef struct refusal {
    const char *text;
    const char *message; /* after the file's path */
} refusal_t;

static void expect_refusals(const refusal_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sparse_csr_t a;
        char err[512] = "", path[1024], expected[1536], name[32];
        memset(&a, 0x5a, sizeof a);
        snprintf(name, sizeof name, "bad%zu.mtx", i);
        int status = read_text(name, cases[i].text, &a, err, sizeof err, path, sizeof path);
        snprintf(expected, sizeof expected, "%s%s", path, cases[i].message);
        assert_string_equal(err, expected);
        assert_int_equal(status, -1);
        assert_int_equal(a.nrows, 0);
        assert_int_equal(a.nnz, 0);
        assert_null(a.row_ptr);
        assert_null(a.col);
        assert_null(a.val);
    }
}

static void test_sparse_mtx_refuses_each_bad_or_unsupported_header(void **state)
{
    static const refusal_t cases[] = {
        {"", ":1: empty file: expected the header " FORM},
        {"% a comment first\n3 3 0\n",
         ":1: not a MatrixMarket file: the first line must be the header " FORM},
        {"\n" GEN "1 1 1\n1 1 2\n",
         ":1: not a MatrixMarket file: the first line must be the header " FORM},
        {"%%MatrixMarketmatrix coordinate real general\n",
         ":1: not a MatrixMarket file: the first line must be the header " FORM},
        {"%%MatrixMarket\n", ":1: bad header: 0 words after %%MatrixMarket, expected 4: " FORM},
        {"%%MatrixMarket matrix coordinate real\n",
         ":1: bad header: 3 words after %%MatrixMarket, expected 4: " FORM},
        {"%%MatrixMarket matrix coordinate real general extra\n",
         ":1: bad header: 5 words after %%MatrixMarket, expected 4: " FORM},
        {"%%MatrixMarket vector coordinate real general\n",
         ":1: object 'vector' is not supported: expected 'matrix'"},
        {"%%MatrixMarket matrix array real general\n",
         ":1: format 'array' is not supported: only 'coordinate' (sparse) matrices are read"},
        {"%%MatrixMarket matrix coord real general\n",
         ":1: unknown format 'coord': expected 'coordinate'"},
        {"%%MatrixMarket matrix coordinate pattern general\n",
         ":1: field 'pattern' is not supported: the solver needs real values ('real' or "
         "'integer')"},
        {"%%MatrixMarket matrix coordinate complex hermitian\n",
         ":1: field 'complex' is not supported: the solver needs real values ('real' or "
         "'integer')"},
        {"%%MatrixMarket matrix coordinate double general\n",
         ":1: unknown field 'double': expected 'real' or 'integer'"},
        {"%%MatrixMarket matrix coordinate real hermitian\n",
         ":1: symmetry 'hermitian' is not supported: " SOLVER},
        {"%%MatrixMarket matrix coordinate integer skew-symmetric\n",
         ":1: symmetry 'skew-symmetric' is not supported: " SOLVER},
        {"%%MatrixMarket matrix coordinate real upper\n",
         ":1: unknown symmetry 'upper': expected 'general' or 'symmetric'"},
    };
    (void)state;
    expect_refusals(cases, sizeof cases / sizeof cases[0]);
}

/* N11, N12: bytes no text file holds: a NUL (the text after it was dropped, "1 1 4\\0 5"
 * read as 4, and a line that began with one read as blank: an entry lost), and a line
 * with no end (/dev/zero read until memory ran out, then "empty file") */
static void expect_bytes_refused(const char *bytes, size_t n, const char *message)
{
    sparse_csr_t a;
    char err[512] = "", path[1024], expected[1536];
    path_of("bytes.mtx", path, sizeof path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    int status = sparse_mtx_read(path, &a, err, sizeof err);
    assert_int_equal(unlink(path), 0);
    snprintf(expected, sizeof expected, "%s%s", path, message);
    assert_string_equal(err, expected);
    assert_int_equal(status, -1);
}

static void test_sparse_mtx_refuses_a_nul_byte_and_an_endless_line(void **state)
{
    static const char after[] = SYM "1 1 1\n1 1 4\0 5\n";
    static const char first[] = SYM "2 2 2\n1 1 4\n\0"
                                    "2 2 5\n";
    static const char header[] = SYM "1 1 1\n";
    (void)state;
    expect_bytes_refused(after, sizeof after - 1, ":3: a NUL byte at column 6: not a text file");
    expect_bytes_refused(first, sizeof first - 1, ":4: a NUL byte at column 1: not a text file");
    size_t n = sizeof header - 1 + (2u << 20);
    char *endless = malloc(n);
    assert_non_null(endless);
    memcpy(endless, header, sizeof header - 1);
    memset(endless + sizeof header - 1, '1', 2u << 20);
    expect_bytes_refused(endless, n,
                         ":3: line too long: more than 1048576 bytes without an end of line (a "
                         "MatrixMarket line holds a few numbers)");
    free(endless);
}

static void test_sparse_mtx_refuses_each_bad_size_line(void **state)
{
    static const refusal_t cases[] = {
        {GEN, ":1: end of file before the size line 'rows columns entries'"},
        {GEN "% only comments\n\n", ":3: end of file before the size line 'rows columns entries'"},
        {GEN "3 3\n", ":2: bad size line: 2 fields, expected 3: 'rows columns entries'"},
        {GEN "% c\n3 3 7 1\n", ":3: bad size line: 4 fields, expected 3: 'rows columns entries'"},
        {GEN "3 3 x\n",
         ":2: bad size line: 'x' is not a non-negative integer: expected 'rows columns entries'"},
        {GEN "3 3 -1\n",
         ":2: bad size line: '-1' is not a non-negative integer: expected 'rows columns entries'"},
        {GEN "0 0 0\n",
         ":2: bad size line: '0' is not a positive integer: expected 'rows columns entries'"},
        {GEN "2.5 2.5 1\n",
         ":2: bad size line: '2.5' is not a positive integer: expected 'rows columns entries'"},
        {GEN "3 4 5\n", ":2: the matrix is 3 x 4: the solver needs a square matrix"},
        {SYM "4 3 5\n", ":2: the matrix is 4 x 3: the solver needs a square matrix"},
        {GEN "99999999999999999999 99999999999999999999 1\n",
         ":2: size '99999999999999999999' is out of the 64-bit range"},
        {GEN "3 3 99999999999999999999\n",
         ":2: size '99999999999999999999' is out of the 64-bit range"},
        {GEN "2147483648 2147483648 1\n",
         ":2: 2147483648 rows exceed 2147483647, the most that 32-bit column indices hold"},
        {GEN "2 2 5\n", ":2: 5 entries declared, more than the 4 that a 2 x 2 matrix holds"},
        {SYM "2 2 4\n",
         ":2: 4 entries declared, more than the 3 that a 2 x 2 lower triangle holds"},
        {GEN "2147483647 2147483647 4611686014132420610\n",
         ":2: 4611686014132420610 entries declared, more than the 4611686014132420609 that a "
         "2147483647 x 2147483647 matrix holds"},
        {SYM "3 3 2\n1 1 2\n2 2 3\n",
         ":2: 2 entries cannot hold the diagonal of a 3 x 3 matrix: " SPD},
        {GEN "2147483647 2147483647 3\n1 1 2\n2 2 3\n3 3 4\n",
         ":2: 3 entries cannot hold the diagonal of a 2147483647 x 2147483647 matrix: " SPD},
    };
    (void)state;
    expect_refusals(cases, sizeof cases / sizeof cases[0]);
}

static void test_sparse_mtx_refuses_each_bad_entry_line(void **state)
{
    static const refusal_t cases[] = {
        {GEN "2 2 3\n1 1 2.5\n1 2\n",
         ":4: bad entry line: 2 fields, expected 3: 'row column value'"},
        {GEN "2 2 3\n1 1 2.5 7\n", ":3: bad entry line: 4 fields, expected 3: 'row column value'"},
        {GEN "2 2 3\n1.0 1 2.5\n", ":3: bad entry line: row index '1.0' is not an integer"},
        {GEN "2 2 3\n1 x 2.5\n", ":3: bad entry line: column index 'x' is not an integer"},
        {GEN "2 2 3\n1 1 abc\n", ":3: bad entry line: value 'abc' is not a real number"},
        {GEN "2 2 3\n1 1 2.5x\n", ":3: bad entry line: value '2.5x' is not a real number"},
        {GEN "2 2 3\n1 1 inf\n", ":3: value 'inf' is not a finite number"},
        {GEN "2 2 3\n1 1 -nan\n", ":3: value '-nan' is not a finite number"},
        {GEN "2 2 3\n1 1 1e999\n", ":3: value '1e999' is not a finite number"},
        {INT "2 2 3\n1 1 1.5\n",
         ":3: bad entry line: value '1.5' is not an integer (field 'integer')"},
        {INT "2 2 3\n1 1 9007199254740993\n",
         ":3: value 9007199254740993 is beyond 2^53: a double does not hold it exactly"},
        {INT "2 2 3\n1 1 -9007199254740993\n",
         ":3: value -9007199254740993 is beyond 2^53: a double does not hold it exactly"},
        {INT "2 2 3\n1 1 99999999999999999999\n",
         ":3: value 99999999999999999999 is beyond 2^53: a double does not hold it exactly"},
        {GEN "2 2 3\n1 1 2.5\n0 1 2.5\n", ":4: row index 0 is out of range 1..2"},
        {GEN "2 2 3\n3 1 2.5\n", ":3: row index 3 is out of range 1..2"},
        {GEN "2 2 3\n-1 1 2.5\n", ":3: row index -1 is out of range 1..2"},
        {GEN "2 2 3\n1 0 2.5\n", ":3: column index 0 is out of range 1..2"},
        {GEN "2 2 3\n2 3 2.5\n", ":3: column index 3 is out of range 1..2"},
        {GEN "2 2 3\n99999999999999999999 1 2.5\n",
         ":3: row index 99999999999999999999 is out of range 1..2"},
        {SYM "2 2 2\n1 1 2\n1 2 0.5\n",
         ":4: entry (1, 2) lies above the diagonal: a symmetric file holds the lower triangle "
         "only (row >= column)"},
    };
    (void)state;
    expect_refusals(cases, sizeof cases / sizeof cases[0]);
}

static void test_sparse_mtx_refuses_entry_lines_missing_extra_or_after_a_comment(void **state)
{
    static const refusal_t cases[] = {
        {GEN "2 2 3\n1 1 2\n2 2 3\n\n",
         ":5: end of file after 2 of the 3 entry lines the size line declares"},
        {GEN "2 2 3\n1 1 2\n2 2 3",
         ":4: end of file after 2 of the 3 entry lines the size line declares"},
        {GEN "2 2 2\n", ":2: end of file after 0 of the 2 entry lines the size line declares"},
        {GEN "2 2 2\n1 1 2\n2 2 3\n\n2 1 0.5\n",
         ":6: more entry lines than the 2 the size line declares"},
        {GEN "2 2 2\n1 1 2\n% late\n2 2 3\n",
         ":4: a comment after the size line: MatrixMarket allows comments only between the "
         "header and the size line"},
    };
    (void)state;
    expect_refusals(cases, sizeof cases / sizeof cases[0]);
}

static void test_sparse_mtx_refuses_a_duplicate_entry_naming_both_lines(void **state)
{
    static const refusal_t cases[] = {
        {GEN "3 3 4\n1 1 2\n2 2 3\n3 3 4\n2 2 5\n", ":6: duplicate entry (2, 2), first at line 4"},
        {GEN "2 2 4\n1 1 2\n2 1 0.5\n2 2 3\n2 1 0.5\n",
         ":6: duplicate entry (2, 1), first at line 4"},
        /* a symmetric file's duplicate is named as the file has it, not as its mirror */
        {SYM "2 2 3\n2 1 0.5\n1 1 2\n2 1 0.25\n", ":5: duplicate entry (2, 1), first at line 3"},
    };
    (void)state;
    expect_refusals(cases, sizeof cases / sizeof cases[0]);
}

static void test_sparse_mtx_refuses_a_diagonal_missing_or_not_positive(void **state)
{
    static const refusal_t cases[] = {
        {GEN "3 3 3\n1 1 2\n2 2 3\n3 1 0.5\n", ": row 3 has no diagonal entry: " SPD},
        {SYM "3 3 3\n1 1 2\n3 3 3\n3 1 0.5\n", ": row 2 has no diagonal entry: " SPD},
        {GEN "2 2 2\n1 1 2\n2 2 0\n", ":4: diagonal entry (2, 2) = 0 is not positive: " SPD},
        {GEN "2 2 2\n2 2 3\n1 1 -0.5\n", ":4: diagonal entry (1, 1) = -0.5 is not positive: " SPD},
        {SYM "2 2 2\n1 1 2\n2 2 -0\n", ":4: diagonal entry (2, 2) = -0 is not positive: " SPD},
        {INT "2 2 2\n1 1 -3\n2 2 4\n", ":3: diagonal entry (1, 1) = -3 is not positive: " SPD},
        /* the first row in order: row 2 missing before row 3 negative */
        {GEN "3 3 3\n3 3 -1\n1 1 2\n2 1 0\n", ": row 2 has no diagonal entry: " SPD},
    };
    (void)state;
    expect_refusals(cases, sizeof cases / sizeof cases[0]);
}

static void test_sparse_mtx_refuses_a_general_file_that_is_not_symmetric(void **state)
{
    static const refusal_t cases[] = {
        {GEN "2 2 4\n1 1 2\n1 2 0.5\n2 1 0.25\n2 2 3\n",
         ":4: not symmetric: entry (1, 2) = 0.5 but (2, 1) = 0.25 at line 5"},
        {GEN "2 2 3\n1 1 2\n2 1 0.75\n2 2 3\n",
         ":4: not symmetric: entry (2, 1) = 0.75 but (1, 2) is absent (0)"},
        /* the first pair in row order, each value in the digits that tell it apart */
        {GEN "3 3 6\n3 1 0.5\n3 2 0.2\n1 1 2\n2 3 0.1\n2 2 3\n3 3 4\n",
         ":6: not symmetric: entry (2, 3) = 0.1 but (3, 2) = 0.2 at line 4"},
        {GEN "2 2 4\n2 1 0.3\n1 2 0.30000000000000004\n1 1 2\n2 2 3\n",
         ":4: not symmetric: entry (1, 2) = 0.30000000000000004 but (2, 1) = 0.3 at line 3"},
        {INT "2 2 4\n1 1 2\n1 2 -1\n2 1 1\n2 2 3\n",
         ":4: not symmetric: entry (1, 2) = -1 but (2, 1) = 1 at line 5"},
    };
    (void)state;
    expect_refusals(cases, sizeof cases / sizeof cases[0]);
}

static void test_sparse_mtx_refuses_a_file_that_cannot_be_opened(void **state)
{
    sparse_csr_t a;
    char err[512] = "", path[1024], expected[1536];
    (void)state;
    path_of("absent.mtx", path, sizeof path);
    assert_int_equal(sparse_mtx_read(path, &a, err, sizeof err), -1);
    snprintf(expected, sizeof expected, "%s: cannot open: No such file or directory", path);
    assert_string_equal(err, expected);
    assert_null(a.row_ptr);
}

static void test_sparse_mtx_messages_fit_the_caller_buffer(void **state)
{
    sparse_csr_t a;
    char err[8], path[1024];
    (void)state;
    memset(err, 'z', sizeof err);
    assert_int_equal(read_text("short.mtx", "", &a, err, sizeof err, path, sizeof path), -1);
    assert_memory_equal(err, path, 7);
    assert_int_equal(err[7], '\0');
    assert_int_equal(read_text("short.mtx", "", &a, NULL, 0, path, sizeof path), -1);
}

/* ---- the writer and back ------------------------------------------------------------------- */

static void write_and_read_back(const sparse_csr_t *a, sparse_mtx_symmetry_t symmetry)
{
    sparse_csr_t back;
    char err[512] = "", path[1024];
    path_of("round.mtx", path, sizeof path);
    assert_int_equal(sparse_mtx_write(path, a, symmetry, err, sizeof err), 0);
    assert_int_equal(sparse_mtx_read(path, &back, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(unlink(path), 0);
    assert_csr_equal(&back, a);
    sparse_csr_free(&back);
}

static void test_sparse_mtx_poisson_written_and_read_back_is_the_same_csr(void **state)
{
    static const sparse_poisson_t specs[] = {{2, 5}, {3, 3}, {2, 1}};
    (void)state;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        sparse_csr_t a;
        assert_int_equal(sparse_poisson_build(&specs[i], &a, NULL, 0), 0);
        write_and_read_back(&a, SPARSE_MTX_GENERAL);
        write_and_read_back(&a, SPARSE_MTX_SYMMETRIC);
        sparse_csr_free(&a);
    }
}

static void test_sparse_mtx_awkward_values_written_and_read_back_bit_for_bit(void **state)
{
    /* values with 17 significant digits, the smallest subnormal, the largest
     * double, a negative zero off the diagonal: each must come back exactly */
    int64_t row_ptr[] = {0, 3, 6, 9};
    sparse_col_t col[] = {0, 1, 2, 0, 1, 2, 0, 1, 2};
    double val[] = {1.0 / 3.0,
                    -0.1,
                    4.9406564584124654e-324,
                    -0.1,
                    1.7976931348623157e308,
                    -0.0,
                    4.9406564584124654e-324,
                    -0.0,
                    123456789.12345679};
    const sparse_csr_t a = {3, 9, row_ptr, col, val};
    (void)state;
    write_and_read_back(&a, SPARSE_MTX_GENERAL);
    write_and_read_back(&a, SPARSE_MTX_SYMMETRIC);
}

static void test_sparse_mtx_writes_the_header_size_line_and_entries_in_row_order(void **state)
{
    char path[1024], text[1024];
    (void)state;
    path_of("written.mtx", path, sizeof path);
    assert_int_equal(sparse_mtx_write(path, &m3, SPARSE_MTX_SYMMETRIC, NULL, 0), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    assert_int_equal(unlink(path), 0);
    assert_string_equal(text, "%%MatrixMarket matrix coordinate real symmetric\n"
                              "% 3 x 3, the lower triangle\n"
                              "3 3 5\n"
                              "1 1 4.5\n"
                              "2 1 -1.25\n"
                              "2 2 3.75\n"
                              "3 2 0.5\n"
                              "3 3 2.0625\n");
}

static void test_sparse_mtx_write_names_a_file_it_cannot_create(void **state)
{
    char path[1024], err[512] = "", expected[1536];
    (void)state;
    path_of("no/such/folder.mtx", path, sizeof path);
    assert_int_equal(sparse_mtx_write(path, &m3, SPARSE_MTX_GENERAL, err, sizeof err), -1);
    snprintf(expected, sizeof expected, "%s: cannot create: No such file or directory", path);
    assert_string_equal(err, expected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_sparse_mtx_reads_a_general_file_in_any_order_with_comments_and_blanks),
        cmocka_unit_test(test_sparse_mtx_reads_a_symmetric_file_into_the_full_matrix),
        cmocka_unit_test(test_sparse_mtx_reads_crlf_lines_and_a_last_line_without_newline),
        cmocka_unit_test(test_sparse_mtx_reads_the_header_words_in_any_case),
        cmocka_unit_test(test_sparse_mtx_reads_integer_files_general_and_symmetric),
        cmocka_unit_test(test_sparse_mtx_reads_integers_up_to_2_to_the_53_exactly),
        cmocka_unit_test(test_sparse_mtx_reads_a_1x1_matrix),
        cmocka_unit_test(test_sparse_mtx_takes_an_absent_entry_as_the_zero_of_its_mirror),
        cmocka_unit_test(test_sparse_mtx_refuses_each_bad_or_unsupported_header),
        cmocka_unit_test(test_sparse_mtx_refuses_a_nul_byte_and_an_endless_line),
        cmocka_unit_test(test_sparse_mtx_refuses_each_bad_size_line),
        cmocka_unit_test(test_sparse_mtx_refuses_each_bad_entry_line),
        cmocka_unit_test(test_sparse_mtx_refuses_entry_lines_missing_extra_or_after_a_comment),
        cmocka_unit_test(test_sparse_mtx_refuses_a_duplicate_entry_naming_both_lines),
        cmocka_unit_test(test_sparse_mtx_refuses_a_diagonal_missing_or_not_positive),
        cmocka_unit_test(test_sparse_mtx_refuses_a_general_file_that_is_not_symmetric),
        cmocka_unit_test(test_sparse_mtx_refuses_a_file_that_cannot_be_opened),
        cmocka_unit_test(test_sparse_mtx_messages_fit_the_caller_buffer),
        cmocka_unit_test(test_sparse_mtx_poisson_written_and_read_back_is_the_same_csr),
        cmocka_unit_test(test_sparse_mtx_awkward_values_written_and_read_back_bit_for_bit),
        cmocka_unit_test(test_sparse_mtx_writes_the_header_size_line_and_entries_in_row_order),
        cmocka_unit_test(test_sparse_mtx_write_names_a_file_it_cannot_create),
    };
    return cmocka_run_group_tests(tests, make_folder, remove_folder);
}
