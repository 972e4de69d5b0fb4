/* cg_setup.h - the cg program's start, on every rank: the command line
 * parsed and agreed, the matrix read (or built) and agreed, rank 0's result
 * files opened, the test hook read, and the ranks that share this device. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_SETUP_H
#define CG_SETUP_H

#include "app.h"
#include "cg_options.h"
#include "shardtab.h"
#include "sparse_csr.h"

/* Parses argv on every rank and agrees: -1 to run, else the exit status
 * (0 after --help or --version, 2 for bad usage: rank 0 said why). */
int cg_setup_options(int rank, int argc, char **argv, cg_options_t *opts);

/* The test hook CG_TEST_STALL (src/platform/test_hooks.h): a rank that stops. */
typedef struct cg_stall {
    const char *text; /* NULL: none */
    int rank;         /* -1: none */
    long iteration;   /* -1: none */
} cg_stall_t;

/* The matrix on every rank (every rank's the same), rank 0's result files
 * opened, the test hook read; agreed: bad input is SHARDTAB_ERR_INVALID_ARG
 * on every rank. Collective. */
shardtab_status_t cg_setup_inputs(int rank, int size, const cg_options_t *opts, sparse_csr_t *a,
                                  app_outfile_t *json, app_outfile_t *trace, cg_stall_t *stall);

/* Ranks of this node bound to this rank's device. Collective. */
int cg_setup_ranks_on_device(void);

#endif /* CG_SETUP_H */
