/* cg_setup.c - the cg program's start (cg_setup.h): every rank parses, all
 * agree, rank 0 speaks; the same for the matrix every rank reads. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cg_setup.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "bounded.h"
#include "cg_verify.h"
#include "sparse_mtx.h"
#include "sparse_poisson.h"
#include "job.h"
#include "test_hooks.h"

/* Rank 0's options against this rank's: the pointers are compared by text. */
static int differ_from_zero(const void *opts, int rank, char *text, size_t bytes)
{
    const cg_options_t *mine = opts;
    const char *step = "the agreement on the command line";
    cg_options_t zero = *mine;
    char matrix[APP_MESSAGE_BYTES] = "";

    if (rank == 0 && mine->matrix)
        snprintf(matrix, sizeof matrix, "%s", mine->matrix);
    app_bcast(&zero, (int)sizeof zero, MPI_BYTE, 0, MPI_COMM_WORLD, step);
    app_bcast(matrix, (int)sizeof matrix, MPI_CHAR, 0, MPI_COMM_WORLD, step);
    zero.matrix = zero.matrix ? matrix : NULL;
    return cg_options_differ(mine, &zero, text, bytes);
}

static const app_options_spec_t options_spec = {"cg", "cg: error: ",    "its command line",
                                                "",   &cg_option_table, differ_from_zero};

int cg_setup_options(int rank, int argc, char **argv, cg_options_t *opts)
{
    char err[APP_MESSAGE_BYTES] = "";
    const app_opt_parse_t parsed = cg_options_parse(argc, argv, opts, err, sizeof err);

    return app_options_agree(&options_spec, rank, (int)parsed, err, opts);
}

int cg_setup_ranks_on_device(void)
{
    MPI_Comm node;
    int shared, count;

    app_barrier(MPI_COMM_WORLD, "the barrier before the node split", 0);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    count = app_device_ranks(node, &shared);
    MPI_Comm_free(&node);
    return shared ? (count > 1 ? count : 2) : 1;
}

/* N7: every rank read the same matrix, not only the same --matrix text (one relative
 * path read in two working directories gave different matrices: MPI_Gatherv aborted
 * with MPI_ERR_TRUNCATE). Its size, its nonzeros and a hash of every entry, against
 * rank 0's; a difference is bad usage on every rank. Collective. */
static shardtab_status_t agree_matrix(int rank, const cg_options_t *opts, const sparse_csr_t *a)
{
    const char *step = "the agreement on the matrix read";
    uint64_t mine[3] = {(uint64_t)a->nrows, (uint64_t)a->nnz, CG_FNV_BASIS}, zero[3];
    int first = INT_MAX, differs;

    mine[2] = cg_fnv1a(mine[2], a->row_ptr, (size_t)(a->nrows + 1) * sizeof *a->row_ptr);
    mine[2] = cg_fnv1a(mine[2], a->col, (size_t)a->nnz * sizeof *a->col);
    mine[2] = cg_fnv1a(mine[2], a->val, (size_t)a->nnz * sizeof *a->val);
    memcpy(zero, mine, sizeof zero);
    app_bcast(zero, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD, step);
    differs = memcmp(zero, mine, sizeof zero) != 0 ? rank : INT_MAX;
    app_allreduce(&differs, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, step);
    if (first == INT_MAX)
        return SHARDTAB_SUCCESS;
    app_bcast(mine, 3, MPI_UINT64_T, first, MPI_COMM_WORLD, step);
    return shardtab_error_set(
        SHARDTAB_ERR_INVALID_ARG,
        "rank %d read another matrix than rank 0 from %s%s%s: %" PRIu64 " rows, %" PRIu64
        " nonzeros, entries hash %016" PRIx64 " against %" PRIu64 " rows, %" PRIu64
        " nonzeros, hash %016" PRIx64 "; every rank must read the same file (a relative path is "
        "read in each rank's own working directory)",
        first, opts->matrix ? "--matrix '" : "--poisson", opts->matrix ? opts->matrix : "",
        opts->matrix ? "'" : "", mine[0], mine[1], mine[2], zero[0], zero[1], zero[2]);
}

shardtab_status_t cg_setup_inputs(int rank, int size, const cg_options_t *opts, sparse_csr_t *a,
                                  app_outfile_t *json, app_outfile_t *trace, cg_stall_t *stall)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    char err[APP_MESSAGE_BYTES] = "";

    if (opts->matrix) {
        if (sparse_mtx_read(opts->matrix, a, err, sizeof err) != 0)
            status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    } else if (sparse_poisson_build(&opts->poisson, a, err, sizeof err) != 0) {
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on reading the matrix", 0);
    if (status == SHARDTAB_SUCCESS)
        status = agree_matrix(rank, opts, a);
    if (status == SHARDTAB_SUCCESS && rank == 0 && opts->json && opts->trace &&
        app_same_file(opts->json, opts->trace))
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                    "--json and --trace name the same file ('%s'): each needs a "
                                    "file of its own",
                                    opts->json);
    if (status == SHARDTAB_SUCCESS && rank == 0 && opts->json &&
        app_outfile_open_named(json, opts->json, "JSON file", err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    if (status == SHARDTAB_SUCCESS && rank == 0 && opts->trace &&
        app_outfile_open_named(trace, opts->trace, "trace file", err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the matrix and the files", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;
    stall->text = NULL;
    stall->rank = -1;
    stall->iteration = -1;
    if (test_hook_read("CG_TEST_STALL", &stall->text, err, sizeof err) != 0 ||
        (stall->text != NULL &&
         test_hook_rank_and("CG_TEST_STALL", stall->text, size, opts->niter, &stall->rank,
                            &stall->iteration, err, sizeof err) != 0))
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the test hooks", 0);
    return status;
}
