/* sparse_halo.h - a rank's columns on other nodes: which of them its rows
 * read (its ghosts, ascending, so grouped by the rank that owns them), and
 * its rows' column indices rewritten for the product over the node's table
 * (kernels/sparse/spmv.h): a column of its node kept, another node's -1 - g
 * for ghost g. No MPI: the lists are exchanged by the program. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPARSE_HALO_H
#define SPARSE_HALO_H

#include <stddef.h>
#include <stdint.h>

#include "sparse_csr.h"

typedef struct sparse_halo {
    int64_t nghost;      /* distinct columns of other nodes this rank's rows read */
    int64_t *ghost_col;  /* [nghost]: their global columns, ascending */
    int64_t *from_first; /* [nparts + 1]: ghosts [from_first[p], from_first[p + 1]) are
                            part p's */
} sparse_halo_t;

/* Part `me` of the split first_row ([nparts + 1], sparse_split.h) holds rows
 * [first_row[me], first_row[me + 1]) of a; its node holds the rows
 * [node_first, node_end) (whole parts). col receives its rows' columns
 * (first_row[me + 1]'s row_ptr - first_row[me]'s of them), rewritten.
 * 0, or -1 with a message in err (no memory). */
int sparse_halo_build(const sparse_csr_t *a, const int64_t *first_row, int nparts, int me,
                      int64_t node_first, int64_t node_end, sparse_col_t *col, sparse_halo_t *h,
                      char *err, size_t err_bytes);
void sparse_halo_free(sparse_halo_t *h);

#endif /* SPARSE_HALO_H */
