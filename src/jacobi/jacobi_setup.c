/* jacobi_setup.c - the jacobi program's start and end on every rank
 * (jacobi_setup.h): what is refused before the device, and the device's
 * buffers, solvers and table set up and torn down. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "jacobi_op.h"
#include "jacobi_verify.h"
#include "job.h"
#include "mpi_gpu.h"
#include "test_hooks.h"

/* ---- before the device: options, rows, memory, result files ------------------------ */

/* Rank 0's options, against this rank's. */
static int differ_from_zero(const void *opts, int rank, char *text, size_t bytes)
{
    jacobi_options_t zero = *(const jacobi_options_t *)opts;

    (void)rank;
    app_bcast(&zero, (int)sizeof zero, MPI_BYTE, 0, MPI_COMM_WORLD,
              "the agreement on the command line");
    return jacobi_options_differ(opts, &zero, text, bytes);
}

static const app_options_spec_t options_spec = {
    "jacobi",
    "jacobi: ",
    "its command line and tuning variables",
    " (an MPMD launch, or a wrapper that edits one rank's command line?)",
    &jacobi_option_table,
    differ_from_zero};

/* Every rank parsed its own command line; a launch that gives ranks different
 * ones (an MPMD launch, a wrapper editing one rank's arguments) would have
 * them wait in different collectives or write past each other's shards. */
int jacobi_setup_options(jacobi_job_t *j, int argc, char **argv)
{
    char err[APP_MESSAGE_BYTES] = "";
    app_opt_parse_t parsed = jacobi_options_parse(argc, argv, &j->opts, err, sizeof err);

    if (parsed == APP_OPT_PARSE_OK && jacobi_tuning_from_env(&j->opts, err, sizeof err) != 0)
        parsed = APP_OPT_PARSE_ERROR;
    return app_options_agree(&options_spec, j->rank, (int)parsed, err, &j->opts);
}

/* Host bytes this rank needs (and the device's, which are host memory too on
 * the host backend): its rows' start, result and expected rows, staging; rank
 * 0 also the whole grid's start and the verification's grids. */
static uint64_t rank_memory(const jacobi_job_t *j)
{
    const uint64_t row = (uint64_t)j->opts.nx * sizeof(jacobi_real_t);
    const uint64_t mine = (uint64_t)j->rows.count * row;
    const uint64_t halo = jacobi_halo_bytes(&j->opts); /* its starting copy on the host too */
    uint64_t host = 3 * mine + 4 * row + halo / 2, device = 2 * mine + halo, verify_host,
             verify_device;

    jacobi_verify_memory(&j->opts, j->rank, &verify_host, &verify_device);
    host += verify_host;
    device += verify_device;
    return host + (shardtab_backend() == SHARDTAB_BACKEND_HOST ? device : 0);
}

/* The node's need, summed over its ranks, against what it has: refused up
 * front, once for the node, before any rank touches a page. Collective. */
static shardtab_status_t check_host_memory(jacobi_job_t *j, MPI_Comm node)
{
    uint64_t mine = rank_memory(j), node_need = 0, have = shardtab_host_memory_available();
    int node_rank = 0;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    app_allreduce(&mine, &node_need, 1, MPI_UINT64_T, MPI_SUM, node, "the node's memory check");
    MPI_Comm_rank(node, &node_rank);
    j->memory_rank = mine;
    j->memory_node = node_need;
    j->memory_available = have;
    if (node_rank == 0 && have != 0 && node_need > have)
        status = shardtab_error_set(
            SHARDTAB_ERR_INVALID_ARG,
            "a %d x %d grid on the %d ranks of this node needs %.2f GiB of host memory (rank 0 "
            "holds the whole grid %s times for the references and their checks), and %.2f GiB is "
            "available: use a smaller grid, fewer ranks per node or --cpu-check no",
            j->opts.nx, j->opts.ny, j->node_size, node_need / 1073741824.0, "four to six",
            have / 1073741824.0);
    return status;
}

/* Every test hook of jacobi's (src/platform/test_hooks.h), read once at the
 * start: the planted bug parsed and checked against the grid, the ranks the
 * others name, the corrupted point's text. 0, or -1 with a message (a hook
 * set in a build without hooks, or a malformed one). */
static int read_test_hooks(jacobi_job_t *j, char *err, size_t err_bytes)
{
    const char *fault, *skip, *slow, *stall;

    if (test_hook_read("JACOBI_TEST_FAULT", &fault, err, err_bytes) != 0 ||
        test_hook_read("JACOBI_TEST_SKIP_SIGNAL", &skip, err, err_bytes) != 0 ||
        test_hook_read("JACOBI_TEST_SLOW_RANK", &slow, err, err_bytes) != 0 ||
        test_hook_read("JACOBI_TEST_STALL", &stall, err, err_bytes) != 0 ||
        test_hook_read("JACOBI_TEST_CORRUPT", &j->corrupt_for_test, err, err_bytes) != 0)
        return -1;
    if (jacobi_test_fault_parse(fault, &j->fault, err, err_bytes) != 0 ||
        jacobi_test_fault_check(&j->fault, j->opts.nx, j->opts.ny, err, err_bytes) != 0)
        return -1;
    /* JACOBI_TEST_SKIP_SIGNAL: that rank never signals its neighbours (every
     * rank's wait runs out); JACOBI_TEST_STALL: that rank stops itself with
     * SIGSTOP as the distributed solve starts (its peers must end the job);
     * JACOBI_TEST_SLOW_RANK: the host backend's temporal passes start 2 ms
     * late on that rank (its neighbours must wait for its rows) */
    const char *const names[3] = {"JACOBI_TEST_SKIP_SIGNAL", "JACOBI_TEST_SLOW_RANK",
                                  "JACOBI_TEST_STALL"};
    const char *const texts[3] = {skip, slow, stall};
    int *const flags[3] = {&j->skip_signal, &j->slow_passes, &j->stall_for_test};
    for (int h = 0; h < 3; h++) {
        int named = -1;
        long unused;
        /* strictly (N13): a malformed value, or a rank the job has not, is refused */
        if (texts[h] && test_hook_rank_and(names[h], texts[h], j->size, -1, &named, &unused, err,
                                           err_bytes) != 0)
            return -1;
        *flags[h] = named == j->rank;
    }
    return 0;
}

shardtab_status_t jacobi_setup_inputs(jacobi_job_t *j, MPI_Comm *node, app_outfile_t *json,
                                      app_outfile_t *trace)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    char err[APP_MESSAGE_BYTES];

    if (read_test_hooks(j, err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    if (status == SHARDTAB_SUCCESS &&
        jacobi_split_rows(j->opts.ny, j->size, j->rank, &j->rows, err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    /* the split has no bounded form: every rank is there first */
    app_barrier(MPI_COMM_WORLD, "the barrier before the node split", 0);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j->rank, MPI_INFO_NULL, node);
    MPI_Comm_size(*node, &j->node_size);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the rows", 0);
    if (status == SHARDTAB_SUCCESS)
        status = app_agree(MPI_COMM_WORLD, check_host_memory(j, *node),
                           "the agreement on host memory", 0);
    if (status == SHARDTAB_SUCCESS && j->rank == 0 && j->opts.json) {
        if (app_outfile_open_named(json, j->opts.json, "JSON file", err, sizeof err) != 0)
            status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    }
    if (status == SHARDTAB_SUCCESS && j->rank == 0 && j->opts.json && j->opts.trace &&
        app_same_file(j->opts.json, j->opts.trace))
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                    "--json and --trace name the same file ('%s', '%s'): each "
                                    "needs a file of its own",
                                    j->opts.json, j->opts.trace);
    if (status == SHARDTAB_SUCCESS && j->rank == 0 && j->opts.trace) {
        if (app_outfile_open_named(trace, j->opts.trace, "trace file", err, sizeof err) != 0)
            status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the result files", 0);
    return status;
}

/* ---- the device, its buffers and the table ------------------------------------------------ */

int jacobi_setup_ranks_on_device(MPI_Comm node)
{
    int shared, count = app_device_ranks(node, &shared);

    /* no memory for the exchange: at least two, if shared, enough for the choice */
    return !shared ? 1 : count ? count : 2;
}

static shardtab_status_t allocate_host(jacobi_job_t *j)
{
    size_t row = (size_t)j->opts.nx * sizeof(jacobi_real_t);
    size_t mine = (size_t)j->rows.count * row;
    size_t whole = (size_t)(j->opts.ny - 2) * row;

    j->result = malloc(mine);
    j->expected = malloc(mine);
    j->norms = malloc(2 * (size_t)j->size * sizeof *j->norms);
    if (!j->result || !j->expected || !j->norms)
        return jacobi_no_memory("host rows", 2 * mine);
    if (j->rank == 0) {
        j->ref_rows = malloc(whole);
        j->plain_rows = malloc(whole);
        if (!j->ref_rows || !j->plain_rows)
            return jacobi_no_memory("the references' rows", 2 * whole);
    }
    return SHARDTAB_SUCCESS;
}

static void free_host(jacobi_job_t *j)
{
    free(j->result);
    free(j->expected);
    free(j->norms);
    free(j->ref_rows);
    free(j->plain_rows);
}

shardtab_status_t jacobi_setup_release(jacobi_job_t *j)
{
    shardtab_status_t first = shardtab_stream_synchronize(j->stream);

    for (int part = 0; part < JACOBI_FACES_PARTS; part++)
        first = app_status_first(first, shardtab_faces_destroy(&j->faces[part]));
    first = app_status_first(first, j->table ? shardtab_destroy(&j->table) : SHARDTAB_SUCCESS);
    first = app_status_first(first, jacobi_solver_free(&j->run));
    first = app_status_first(first, jacobi_solver_free(&j->ref));
    first = app_status_first(first, shardtab_mem_free(j->plain_norm2));
    j->plain_norm2 = NULL;
    jacobi_stream_destroy(j->stream);
    j->stream = NULL;
    free_host(j);
    return first;
}

shardtab_status_t jacobi_setup_device(jacobi_job_t *j)
{
    shardtab_create_params_t params = {0};
    shardtab_status_t status =
        jacobi_kernel_check(jacobi_stream_create(&j->stream), "creating a stream");
    if (status == SHARDTAB_SUCCESS)
        status = allocate_host(j);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_solver_alloc(&j->run, &j->opts, j->rows.start, j->rows.count, 1, 0);
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        status = jacobi_solver_alloc(&j->ref, &j->opts, 1, j->opts.ny - 2, 0, 1);
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        status = shardtab_mem_alloc((size_t)j->opts.ny * sizeof(double), (void **)&j->plain_norm2);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after the buffers", 0);
    if (status == SHARDTAB_SUCCESS) {
        /* the shards are the halo buffers: what a neighbour writes into */
        params.stream = j->stream;
        params.signal_slots = JACOBI_SIGNAL_SLOTS(j->size); /* the same on every rank */
        params.alignment = 16;                              /* the kernel's 16-byte accesses */
        params.label = "jacobi ghost rows";                 /* the library's messages name it */
        status = shardtab_create_with(MPI_COMM_WORLD, j->run.halo, j->run.halo_bytes, &params,
                                      &j->table);
    }
    if (status == SHARDTAB_SUCCESS) {
        shardtab_device_info_t info;
        shardtab_device_info(&info);
        j->mpi_direct = info.backend == SHARDTAB_BACKEND_HOST ||
                        app_mpi_gpu_aware(shardtab_backend_name(info.backend));
        status =
            app_agree(MPI_COMM_WORLD, jacobi_wire_edges(j), "the agreement after the wiring", 0);
    }
    if (status == SHARDTAB_SUCCESS) {
        jacobi_solver_plant(&j->run, &j->fault, JACOBI_FAULT_IN_RUN);
        status = jacobi_solver_start(&j->run, j->stream);
        if (status == SHARDTAB_SUCCESS && j->rank == 0) {
            jacobi_wire_reference(&j->ref, j->opts.nccheck);
            jacobi_solver_plant(&j->ref, &j->fault, JACOBI_FAULT_IN_REFERENCE);
            status = jacobi_solver_start(&j->ref, j->stream);
        }
        status = app_agree(MPI_COMM_WORLD, status, "the agreement after the solvers' start", 0);
    }
    if (status == SHARDTAB_SUCCESS) {
        j->nodes = shardtab_node_count(j->table);
        /* ranks leave a solve together (its stop is decided on the device, or
         * agreed; a wait that gives up stops every peer's at once): a few
         * seconds is plenty */
        j->agree_limit_s = 5.0;
    }
    return status;
}
