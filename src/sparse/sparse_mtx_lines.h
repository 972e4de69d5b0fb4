/* sparse_mtx_lines.h - a MatrixMarket file read line by line, for
 * sparse_mtx.c: the header, the size line and the entry lines, each checked as
 * it is read, the entries kept in file order. What the whole matrix must be
 * (no duplicates, its diagonal, its symmetry) sparse_mtx.c checks in CSR. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPARSE_MTX_LINES_H
#define SPARSE_MTX_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sparse_csr.h"

/* The file being read, and where a message goes: each function below puts
 * its one message "FILE:LINE: what" in err and returns -1. */
typedef struct sparse_mtx_reader {
    const char *path;
    FILE *file;
    char *line;
    size_t capacity;
    long long lineno; /* of the line last read */
    char *err;
    size_t errlen;
} sparse_mtx_reader_t;

/* What the header line says. */
typedef struct sparse_mtx_header {
    int integer;   /* field integer, else real */
    int symmetric; /* symmetry symmetric, else general */
} sparse_mtx_header_t;

/* The entry lines as read, 0-based, each with its line number. */
typedef struct sparse_mtx_entry {
    sparse_col_t row, col; /* 0-based */
    double val;
    long long line;
} sparse_mtx_entry_t;
typedef struct sparse_mtx_entries {
    int64_t count, capacity;
    sparse_mtx_entry_t *at;
} sparse_mtx_entries_t;

/* The header line: "%%MatrixMarket matrix coordinate real|integer
 * general|symmetric" (the words in any case). 0 or -1. */
int sparse_mtx_header_read(sparse_mtx_reader_t *r, sparse_mtx_header_t *h);
/* The size line "rows columns entries", after any comment and blank lines: a
 * square matrix of at most SPARSE_ROWS_MAX rows, its entries at least its
 * diagonal and at most what it (a symmetric file: its lower triangle) holds.
 * 0 or -1. */
int sparse_mtx_size_read(sparse_mtx_reader_t *r, const sparse_mtx_header_t *h, int64_t *rows,
                         int64_t *entries);
/* The `declared` entry lines "row column value" into *e (blank lines
 * skipped, no comments): indices in 1..rows, a symmetric file's on or below
 * the diagonal, finite values. 0 or -1; free *e with sparse_mtx_entries_free
 * either way. */
int sparse_mtx_entries_read(sparse_mtx_reader_t *r, const sparse_mtx_header_t *h, int64_t rows,
                            int64_t declared, sparse_mtx_entries_t *e);
void sparse_mtx_entries_free(sparse_mtx_entries_t *e);

#endif /* SPARSE_MTX_LINES_H */
