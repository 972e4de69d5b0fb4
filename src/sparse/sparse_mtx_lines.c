/* sparse_mtx_lines.c - a MatrixMarket file's lines read and checked one by
 * one: the line reader, the header, the size line, the entry lines. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "sparse_mtx_lines.h"
#include "sparse_error.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HEADER_FORM "'%%%%MatrixMarket matrix coordinate real|integer general|symmetric'"

/* ---- lines and fields ---------------------------------------------------------------------- */

/* The most bytes of one line: a MatrixMarket line holds a few dozen (a comment more). */
#define MTX_LINE_MAX (1u << 20)

/* The next line, its end of line removed: 1, or 0 at the end of the file, -1 on a read
 * error, a NUL byte (the text after it was dropped, and a line that began with one read
 * as blank: N11) or a line longer than MTX_LINE_MAX (one without an end, /dev/zero,
 * read until memory ran out and then as "empty file": N12), each named with its line. */
static int read_line(sparse_mtx_reader_t *r)
{
    size_t length = 0;
    int c;

    if (r->capacity == 0) { /* room for an empty line's end */
        r->line = malloc(256);
        if (r->line == NULL) {
            sparse_set_error(r->err, r->errlen, "%s: out of memory for a line", r->path);
            return -1;
        }
        r->capacity = 256;
    }
    errno = 0;
    while ((c = getc_unlocked(r->file)) != EOF && c != '\n') {
        if (c == '\0') {
            sparse_set_error(r->err, r->errlen,
                             "%s:%lld: a NUL byte at column %zu: not a text file", r->path,
                             r->lineno + 1, length + 1);
            return -1;
        }
        if (length + 2 > r->capacity) {
            if (length >= MTX_LINE_MAX) {
                sparse_set_error(r->err, r->errlen,
                                 "%s:%lld: line too long: more than %u bytes without an end of "
                                 "line (a MatrixMarket line holds a few numbers)",
                                 r->path, r->lineno + 1, MTX_LINE_MAX);
                return -1;
            }
            size_t capacity = r->capacity ? 2 * r->capacity : 256;
            char *line = realloc(r->line, capacity);
            if (line == NULL) {
                sparse_set_error(r->err, r->errlen,
                                 "%s:%lld: out of memory reading the line (%zu bytes so far)",
                                 r->path, r->lineno + 1, length);
                return -1;
            }
            r->line = line;
            r->capacity = capacity;
        }
        r->line[length++] = (char)c;
    }
    if (c == EOF && ferror(r->file)) {
        sparse_set_error(r->err, r->errlen, "%s:%lld: read error: %s", r->path, r->lineno + 1,
                         strerror(errno ? errno : EIO));
        return -1;
    }
    if (c == EOF && length == 0)
        return 0;
    r->lineno++;
    while (length > 0 && r->line[length - 1] == '\r')
        length--;
    r->line[length] = '\0';
    return 1;
}

/* Splits s at blanks: the number of fields, the first max of them in field[]. */
static int split_fields(char *s, char **field, int max)
{
    int count = 0;
    for (char *save = NULL, *f = strtok_r(s, " \t\r\v\f", &save); f;
         f = strtok_r(NULL, " \t\r\v\f", &save)) {
        if (count < max)
            field[count] = f;
        count++;
    }
    return count;
}

/* The line's three fields (a size or an entry line, `form`'s): 0, or -1 with
 * the message. */
static int three_fields(sparse_mtx_reader_t *r, char *field[3], const char *what, const char *form)
{
    int count = split_fields(r->line, field, 3);
    if (count != 3) {
        sparse_set_error(r->err, r->errlen, "%s:%lld: bad %s line: %d fields, expected 3: '%s'",
                         r->path, r->lineno, what, count, form);
        return -1;
    }
    return 0;
}

static int is_blank(const char *s)
{
    return s[strspn(s, " \t\r\v\f")] == '\0';
}

/* A decimal integer filling the whole field: 0, 1 not an integer, 2 past int64. */
static int parse_int64(const char *field, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(field, &end, 10);
    if (end == field || *end != '\0')
        return 1;
    if (errno == ERANGE)
        return 2;
    *v = x;
    return 0;
}

/* ---- the header ---------------------------------------------------------------------------- */

static int match(const char *word, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (strcasecmp(word, words[i]) == 0)
            return i;
    return -1;
}

/* Which of the two words it takes (0 or 1) a header word is, of `words`: the
 * two it takes, then two it knows but refuses (the solver needs `needs`).
 * -1 with the message for those and for an unknown word. */
static int header_pick(sparse_mtx_reader_t *r, const char *word, const char *what,
                       const char *const words[4], const char *needs)
{
    const int i = match(word, words, 4);
    if (i >= 2) {
        sparse_set_error(r->err, r->errlen,
                         "%s:1: %s '%s' is not supported: the solver needs %s ('%s' or '%s')",
                         r->path, what, word, needs, words[0], words[1]);
        return -1;
    }
    if (i < 0) {
        sparse_set_error(r->err, r->errlen, "%s:1: unknown %s '%.40s': expected '%s' or '%s'",
                         r->path, what, word, words[0], words[1]);
        return -1;
    }
    return i;
}

int sparse_mtx_header_read(sparse_mtx_reader_t *r, sparse_mtx_header_t *h)
{
    int got = read_line(r);
    if (got < 0)
        return -1;
    if (got == 0) {
        sparse_set_error(r->err, r->errlen, "%s:1: empty file: expected the header " HEADER_FORM,
                         r->path);
        return -1;
    }
    char *field[5];
    int count = split_fields(r->line, field, 5);
    if (count == 0 || strcasecmp(field[0], "%%MatrixMarket") != 0) {
        sparse_set_error(
            r->err, r->errlen,
            "%s:1: not a MatrixMarket file: the first line must be the header " HEADER_FORM,
            r->path);
        return -1;
    }
    if (count != 5) {
        sparse_set_error(
            r->err, r->errlen,
            "%s:1: bad header: %d words after %%%%MatrixMarket, expected 4: " HEADER_FORM, r->path,
            count - 1);
        return -1;
    }
    if (strcasecmp(field[1], "matrix") != 0) {
        sparse_set_error(r->err, r->errlen,
                         "%s:1: object '%.40s' is not supported: expected 'matrix'", r->path,
                         field[1]);
        return -1;
    }
    static const char *const formats[] = {"coordinate", "array"};
    switch (match(field[2], formats, 2)) {
    case 0:
        break;
    case 1:
        sparse_set_error(
            r->err, r->errlen,
            "%s:1: format 'array' is not supported: only 'coordinate' (sparse) matrices "
            "are read",
            r->path);
        return -1;
    default:
        sparse_set_error(r->err, r->errlen, "%s:1: unknown format '%.40s': expected 'coordinate'",
                         r->path, field[2]);
        return -1;
    }
    static const char *const fields[] = {"real", "integer", "pattern", "complex"};
    const int kind = header_pick(r, field[3], "field", fields, "real values");
    if (kind < 0)
        return -1;
    h->integer = kind == 1;
    static const char *const symmetries[] = {"general", "symmetric", "hermitian", "skew-symmetric"};
    const int symmetry = header_pick(r, field[4], "symmetry", symmetries,
                                     "a symmetric positive definite real matrix");
    if (symmetry < 0)
        return -1;
    h->symmetric = symmetry == 1;
    return 0;
}

/* ---- the size line --------------------------------------------------------------------------- */

int sparse_mtx_size_read(sparse_mtx_reader_t *r, const sparse_mtx_header_t *h, int64_t *rows,
                         int64_t *entries)
{
    int got;
    /* comments and blank lines may stand between the header and the size line */
    while ((got = read_line(r)) > 0 && (r->line[0] == '%' || is_blank(r->line)))
        ;
    if (got < 0)
        return -1;
    if (got == 0) {
        sparse_set_error(r->err, r->errlen,
                         "%s:%lld: end of file before the size line 'rows columns entries'",
                         r->path, r->lineno);
        return -1;
    }
    char *field[3];
    int64_t size[3];
    if (three_fields(r, field, "size", "rows columns entries") != 0)
        return -1;
    for (int i = 0; i < 3; i++) {
        int bad = parse_int64(field[i], &size[i]);
        if (bad == 2) {
            sparse_set_error(r->err, r->errlen, "%s:%lld: size '%.40s' is out of the 64-bit range",
                             r->path, r->lineno, field[i]);
            return -1;
        }
        if (bad || size[i] < (i < 2 ? 1 : 0)) {
            sparse_set_error(r->err, r->errlen,
                             "%s:%lld: bad size line: '%.40s' is not a %s integer: expected 'rows "
                             "columns entries'",
                             r->path, r->lineno, field[i], i < 2 ? "positive" : "non-negative");
            return -1;
        }
    }
    if (size[0] != size[1]) {
        sparse_set_error(r->err, r->errlen,
                         "%s:%lld: the matrix is %lld x %lld: the solver needs a square matrix",
                         r->path, r->lineno, (long long)size[0], (long long)size[1]);
        return -1;
    }
    if (size[0] > SPARSE_ROWS_MAX) {
        sparse_set_error(r->err, r->errlen,
                         "%s:%lld: %lld rows exceed %lld, the most that 32-bit column indices hold",
                         r->path, r->lineno, (long long)size[0], (long long)SPARSE_ROWS_MAX);
        return -1;
    }
    /* rows < 2^31: neither product overflows, nor does a symmetric file's mirroring */
    const int64_t most = h->symmetric ? size[0] * (size[0] + 1) / 2 : size[0] * size[0];
    if (size[2] > most) {
        sparse_set_error(r->err, r->errlen,
                         "%s:%lld: %lld entries declared, more than the %lld that a %lld x %lld %s "
                         "holds",
                         r->path, r->lineno, (long long)size[2], (long long)most,
                         (long long)size[0], (long long)size[0],
                         h->symmetric ? "lower triangle" : "matrix");
        return -1;
    }
    /* so that a file of a few lines never costs the rows' arrays of the size it claims */
    if (size[2] < size[0]) {
        sparse_set_error(
            r->err, r->errlen,
            "%s:%lld: %lld entries cannot hold the diagonal of a %lld x %lld matrix: the "
            "solver needs every diagonal > 0 (positive definite)",
            r->path, r->lineno, (long long)size[2], (long long)size[0], (long long)size[0]);
        return -1;
    }
    *rows = size[0];
    *entries = size[2];
    return 0;
}

/* ---- the entry lines ------------------------------------------------------------------------- */

void sparse_mtx_entries_free(sparse_mtx_entries_t *e)
{
    free(e->at);
    memset(e, 0, sizeof *e);
}

/* Room for one more of at most `declared`, grown by doubling, so that a short
 * file declaring many entries costs what it holds. */
static int entries_reserve(sparse_mtx_entries_t *e, int64_t declared)
{
    if (e->count < e->capacity)
        return 0;
    int64_t capacity = e->capacity ? 2 * e->capacity : 1024;
    if (capacity > declared)
        capacity = declared;
    if ((uint64_t)capacity > SIZE_MAX / sizeof *e->at)
        return -1;
    sparse_mtx_entry_t *at = realloc(e->at, (size_t)capacity * sizeof *e->at);
    if (at == NULL)
        return -1;
    e->at = at;
    e->capacity = capacity;
    return 0;
}

/* One entry line into e: 0, or -1 with the message. */
static int parse_entry(sparse_mtx_reader_t *r, const sparse_mtx_header_t *h, int64_t rows,
                       sparse_mtx_entries_t *e)
{
    char *field[3];
    if (three_fields(r, field, "entry", "row column value") != 0)
        return -1;
    int64_t index[2];
    static const char *const names[] = {"row", "column"};
    for (int i = 0; i < 2; i++) {
        int bad = parse_int64(field[i], &index[i]);
        if (bad == 1) {
            sparse_set_error(r->err, r->errlen,
                             "%s:%lld: bad entry line: %s index '%.40s' is not an integer", r->path,
                             r->lineno, names[i], field[i]);
            return -1;
        }
        if (bad == 2 || index[i] < 1 || index[i] > rows) {
            sparse_set_error(r->err, r->errlen, "%s:%lld: %s index %.40s is out of range 1..%lld",
                             r->path, r->lineno, names[i], field[i], (long long)rows);
            return -1;
        }
    }
    if (h->symmetric && index[0] < index[1]) {
        sparse_set_error(
            r->err, r->errlen,
            "%s:%lld: entry (%lld, %lld) lies above the diagonal: a symmetric file holds "
            "the lower triangle only (row >= column)",
            r->path, r->lineno, (long long)index[0], (long long)index[1]);
        return -1;
    }
    double value;
    if (h->integer) {
        int64_t v;
        int bad = parse_int64(field[2], &v);
        /* beyond 2^53 a double no longer holds every integer */
        if (bad == 1) {
            sparse_set_error(r->err, r->errlen,
                             "%s:%lld: bad entry line: value '%.40s' is not an integer (field "
                             "'integer')",
                             r->path, r->lineno, field[2]);
            return -1;
        }
        if (bad == 2 || v > (INT64_C(1) << 53) || v < -(INT64_C(1) << 53)) {
            sparse_set_error(
                r->err, r->errlen,
                "%s:%lld: value %.40s is beyond 2^53: a double does not hold it exactly", r->path,
                r->lineno, field[2]);
            return -1;
        }
        value = (double)v;
    } else {
        char *end;
        value = strtod(field[2], &end);
        if (end == field[2] || *end != '\0') {
            sparse_set_error(r->err, r->errlen,
                             "%s:%lld: bad entry line: value '%.40s' is not a real number", r->path,
                             r->lineno, field[2]);
            return -1;
        }
        if (!isfinite(value)) {
            sparse_set_error(r->err, r->errlen, "%s:%lld: value '%.40s' is not a finite number",
                             r->path, r->lineno, field[2]);
            return -1;
        }
    }
    e->at[e->count++] = (sparse_mtx_entry_t){(sparse_col_t)(index[0] - 1),
                                             (sparse_col_t)(index[1] - 1), value, r->lineno};
    return 0;
}

int sparse_mtx_entries_read(sparse_mtx_reader_t *r, const sparse_mtx_header_t *h, int64_t rows,
                            int64_t declared, sparse_mtx_entries_t *e)
{
    int got;
    while ((got = read_line(r)) > 0) {
        if (is_blank(r->line))
            continue;
        if (r->line[0] == '%') {
            sparse_set_error(r->err, r->errlen,
                             "%s:%lld: a comment after the size line: MatrixMarket allows comments "
                             "only between the header and the size line",
                             r->path, r->lineno);
            return -1;
        }
        if (e->count == declared) {
            sparse_set_error(r->err, r->errlen,
                             "%s:%lld: more entry lines than the %lld the size line declares",
                             r->path, r->lineno, (long long)declared);
            return -1;
        }
        if (entries_reserve(e, declared) != 0) {
            sparse_set_error(r->err, r->errlen, "%s:%lld: out of memory for %lld entries", r->path,
                             r->lineno, (long long)declared);
            return -1;
        }
        if (parse_entry(r, h, rows, e) != 0)
            return -1;
    }
    if (got < 0)
        return -1;
    if (e->count < declared) {
        sparse_set_error(r->err, r->errlen,
                         "%s:%lld: end of file after %lld of the %lld entry lines the size line "
                         "declares",
                         r->path, r->lineno, (long long)e->count, (long long)declared);
        return -1;
    }
    return 0;
}
