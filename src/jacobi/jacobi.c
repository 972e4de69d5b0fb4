/* jacobi.c - the jacobi program's main: a 2D Jacobi solve whose rows are split
 * over the ranks, with ghost rows stored straight into the neighbours' arrays
 * through one table per node and ordered by device-side signals.
 *
 * PURPOSE  Show that the table serves an iterative multi-GPU code (a stencil
 *          with ghost rows and a reduction every iteration) with no host in
 *          the loop, on the classic problem of NVIDIA's multi-gpu-programming-
 *          models, and measure it beside their NCCL and NVSHMEM versions.
 * USAGE    mpirun -np <ranks> ./jacobi [-nx N] [-ny N] [-niter N] [-nccheck N]
 *                 [--variant table|host-sync|mpi] [--launch auto|persistent|onchip|temporal|graph|stream]
 *                 [--init zero|random[:SEED]] [--cpu-check auto|yes|no] [--repeat R]
 *                 [--json FILE] [--trace FILE] [--allow-shared-gpu]
 * NOTES    The problem, as the anchors define it: Dirichlet boundaries
 *          sin(2 pi y / (ny - 1)) on the left and right columns, periodic rows
 *          (the first interior row's neighbour above is the last interior row),
 *          zero start (or --init random), single precision, stop one iteration
 *          after the L2 norm falls to 1e-8 or after -niter iterations. Rank 0
 *          also solves the whole grid alone, timed (the 1-GPU reference, the
 *          speedup's baseline), while the others wait. Every result is then
 *          checked against an independent plain reference, and that against a
 *          CPU loop where the work is small enough. Each ghost row has a halo
 *          buffer in coherent memory (the table's shards); the rows themselves
 *          stay in ordinary device memory.
 *
 * The rooms: jacobi_problem.c (the starting state), jacobi_solver.c (buffers,
 * wiring), jacobi_exchange.c (the host's part of a step), jacobi_solve.c (the
 * launch mode, one timed solve), jacobi_trace.c (where the time goes),
 * jacobi_verify.c (the checks), jacobi_report.c (output); the kernels are
 * kernels/jacobi_sweep.* (optimised) and kernels/jacobi_plain.* (the plain
 * reference).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bounded.h"
#include "cli.h"
#include "jacobi_job.h"
#include "test_hooks.h"
#include "jacobi_op.h"
#include "jacobi_report.h"
#include "jacobi_solve.h"
#include "jacobi_trace.h"
#include "jacobi_verify.h"
#include "mpi_gpu.h"
#include "shardtab.h"

/* ---- before the device: options, rows, memory, result files ------------------------ */

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

/* Every rank parsed its own command line; a launch that gives ranks different
 * ones (an MPMD launch, a wrapper editing one rank's arguments) would have
 * them wait in different collectives or write past each other's shards. One
 * verdict for the job: help, a parse error (the lowest rank's), options that
 * differ from rank 0's (the lowest such rank's), or go on. Returns the exit
 * code, or -1 to go on. Collective. */
static int agree_options(jacobi_job_t *j, jacobi_parse_t parsed, const char *err)
{
    struct {
        char message[APP_MESSAGE_BYTES];
    } said;
    int worst = (int)parsed, failing = INT_MAX, first = INT_MAX;
    jacobi_options_t zero_opts;
    char text[256];
    const char *step = "the agreement on the command line";

    app_allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, step);
    if (worst == JACOBI_PARSE_ERROR) {
        /* the lowest rank that could not parse says why */
        int mine = parsed == JACOBI_PARSE_ERROR ? j->rank : INT_MAX;
        app_allreduce(&mine, &failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, step);
        if (j->rank == failing)
            snprintf(said.message, sizeof said.message, "%s", err);
        app_bcast(&said, (int)sizeof said, MPI_BYTE, failing, MPI_COMM_WORLD, step);
        if (j->rank == 0) {
            if (failing == 0)
                fprintf(stderr, "jacobi: %s\nTry 'jacobi --help' for more information.\n",
                        said.message);
            else
                fprintf(stderr,
                        "jacobi: error: rank %d could not parse its command line and "
                        "tuning variables, rank 0 could: %s; every rank must get the same "
                        "options\n",
                        failing, said.message);
        }
        return 2;
    }
    if (worst == JACOBI_PARSE_HELP) {
        if (j->rank == 0)
            fputs(jacobi_usage_text(), stdout);
        return 0;
    }
    if (worst == JACOBI_PARSE_VERSION) {
        app_say_version("jacobi", j->rank);
        return 0;
    }
    /* rank 0's options, against this rank's */
    zero_opts = j->opts;
    app_bcast(&zero_opts, (int)sizeof zero_opts, MPI_BYTE, 0, MPI_COMM_WORLD, step);
    int mine = jacobi_options_differ(&j->opts, &zero_opts, text, sizeof text) ? j->rank : INT_MAX;
    app_allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, step);
    if (first == INT_MAX)
        return -1;
    if (j->rank == first)
        snprintf(said.message, sizeof said.message, "%s", text);
    app_bcast(&said, (int)sizeof said, MPI_BYTE, first, MPI_COMM_WORLD, step);
    if (j->rank == 0)
        fprintf(stderr,
                "jacobi: error: rank %d's options differ from rank 0's: %s (the first "
                "difference); every rank must get the same options (an MPMD launch, or a "
                "wrapper that edits one rank's command line?)\n",
                first, said.message);
    return 2;
}

/* ---- the device, its buffers and the table ------------------------------------------------ */

static shardtab_status_t allocate_host(jacobi_job_t *j)
{
    size_t row = (size_t)j->opts.nx * sizeof(jacobi_real_t);
    size_t mine = (size_t)j->rows.count * row;
    size_t whole = (size_t)(j->opts.ny - 2) * row;

    j->result = malloc(mine);
    j->expected = malloc(mine);
    j->send_first = malloc(row);
    j->send_last = malloc(row);
    j->recv_top = malloc(row);
    j->recv_bottom = malloc(row);
    j->norms = malloc(2 * (size_t)j->size * sizeof *j->norms);
    if (!j->result || !j->expected || !j->send_first || !j->send_last || !j->recv_top ||
        !j->recv_bottom || !j->norms)
        return jacobi_no_memory("host rows", 2 * mine + 4 * row);
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
    free(j->send_first);
    free(j->send_last);
    free(j->recv_top);
    free(j->recv_bottom);
    free(j->norms);
    free(j->ref_rows);
    free(j->plain_rows);
}

/* Collective teardown in reverse order of set-up; the first failure wins. */
static shardtab_status_t release(jacobi_job_t *j)
{
    shardtab_status_t first = shardtab_stream_synchronize(j->stream), s;

    if (j->table && (s = shardtab_destroy(&j->table)) != SHARDTAB_SUCCESS &&
        first == SHARDTAB_SUCCESS)
        first = s;
    if ((s = jacobi_solver_free(&j->run)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    if ((s = jacobi_solver_free(&j->ref)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    if ((s = shardtab_mem_free(j->plain_norm2)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    j->plain_norm2 = NULL;
    jacobi_stream_destroy(j->stream);
    j->stream = NULL;
    free_host(j);
    return first;
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

/* Ranks of this node bound to this rank's device (1 unless --allow-shared-gpu
 * put several there). Collective. */
static int ranks_on_my_device(MPI_Comm node)
{
    shardtab_device_info_t info;
    char *ids;
    int size = 1, count = 0;

    shardtab_device_info(&info);
    MPI_Comm_size(node, &size);
    ids = malloc((size_t)size * sizeof info.pci_bus_id);
    if (ids == NULL)
        return info.shared ? 2 : 1; /* at least two, if shared: enough for the choice */
    app_allgather(info.pci_bus_id, (int)sizeof info.pci_bus_id, MPI_CHAR, ids,
                  (int)sizeof info.pci_bus_id, MPI_CHAR, node, "the exchange of device ids");
    for (int r = 0; r < size; r++)
        count += strcmp(ids + (size_t)r * sizeof info.pci_bus_id, info.pci_bus_id) == 0;
    free(ids);
    return info.shared ? count : 1;
}

/* Stream, host buffers, the solvers (the reference on rank 0 only), the
 * table and its wiring, the test's planted bug. Collective. */
static shardtab_status_t set_up(jacobi_job_t *j)
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

/* rank 0's reference time (rank 0 alone), and the job's */
static void take_medians(const jacobi_job_t *j, jacobi_timings_t *t)
{
    double *sorted = malloc(2 * (size_t)j->opts.repeat * sizeof *sorted);

    if (sorted) {
        memcpy(sorted, t->ref, (size_t)j->opts.repeat * sizeof *sorted);
        memcpy(sorted + j->opts.repeat, t->run, (size_t)j->opts.repeat * sizeof *sorted);
        t->ref_median = jacobi_median(sorted, j->opts.repeat);
        t->run_median = jacobi_median(sorted + j->opts.repeat, j->opts.repeat);
        free(sorted);
    }
    app_bcast(&t->ref_median, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, "the broadcast of the medians");
}

static int outcome_alloc(jacobi_outcome_t *o, const jacobi_options_t *opts)
{
    memset(o, 0, sizeof *o);
    o->history_len = jacobi_history_len(opts->niter, opts->nccheck);
    o->history = calloc((size_t)o->history_len, sizeof(double));
    return o->history != NULL;
}

/* A failure before the device: one message from rank 0, the files left as they were. */
static int leave_early(const jacobi_job_t *j, shardtab_status_t status, app_outfile_t *json,
                       app_outfile_t *trace)
{
    app_say_error("jacobi", j->rank, shardtab_last_error());
    app_outfile_discard(json);
    app_outfile_discard(trace);
    MPI_Finalize();
    return app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
}

int main(int argc, char **argv)
{
    shardtab_init_params_t init = {0};
    shardtab_status_t status = SHARDTAB_SUCCESS;
    jacobi_job_t j;
    jacobi_rank_line_t *lines = NULL;
    jacobi_outcome_t ref, run, plain, traced;
    jacobi_timings_t times = {0};
    jacobi_verdict_t verdict;
    app_outfile_t json = {0}, trace = {0};
    char err[APP_MESSAGE_BYTES];
    int exit_code = 0, have_json = 0, have_trace = 0;
    MPI_Comm node;

    memset(&j, 0, sizeof j);
    jacobi_verdict_init(&verdict);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    app_bound_init("jacobi");

    /* ---- options and tuning variables: every rank parses, all agree, rank 0 speaks ---- */
    {
        jacobi_parse_t parsed = jacobi_options_parse(argc, argv, &j.opts, err, sizeof err);
        if (parsed == JACOBI_PARSE_OK && jacobi_tuning_from_env(&j.opts, err, sizeof err) != 0)
            parsed = JACOBI_PARSE_ERROR;
        int code = agree_options(&j, parsed, err);
        if (code >= 0) {
            MPI_Finalize();
            return code;
        }
    }
    if (read_test_hooks(&j, err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    if (status == SHARDTAB_SUCCESS &&
        jacobi_split_rows(j.opts.ny, j.size, j.rank, &j.rows, err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    /* the split has no bounded form: every rank is there first */
    app_barrier(MPI_COMM_WORLD, "the barrier before the node split", 0);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j.rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &j.node_size);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the rows", 0);
    if (status == SHARDTAB_SUCCESS)
        status = app_agree(MPI_COMM_WORLD, check_host_memory(&j, node),
                           "the agreement on host memory", 0);
    if (status == SHARDTAB_SUCCESS && j.rank == 0 && j.opts.json) {
        if (app_outfile_open_named(&json, j.opts.json, "JSON file", err, sizeof err) != 0)
            status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
        else
            have_json = 1;
    }
    if (status == SHARDTAB_SUCCESS && j.rank == 0 && j.opts.json && j.opts.trace &&
        app_same_file(j.opts.json, j.opts.trace))
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                    "--json and --trace name the same file ('%s', '%s'): each "
                                    "needs a file of its own",
                                    j.opts.json, j.opts.trace);
    if (status == SHARDTAB_SUCCESS && j.rank == 0 && j.opts.trace) {
        if (app_outfile_open_named(&trace, j.opts.trace, "trace file", err, sizeof err) != 0)
            status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
        else
            have_trace = 1;
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the result files", 0);
    if (status != SHARDTAB_SUCCESS) {
        MPI_Comm_free(&node);
        return leave_early(&j, status, &json, &trace);
    }
    j.top = jacobi_top(j.size, j.rank);
    j.bottom = jacobi_bottom(j.size, j.rank);

    /* ---- device, stream, buffers, table, launch mode ---- */
    init.allow_shared_device = j.opts.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &init);
    if (status != SHARDTAB_SUCCESS) {
        MPI_Comm_free(&node);
        return leave_early(&j, status, &json, &trace);
    }
    j.ranks_on_device = ranks_on_my_device(node);
    MPI_Comm_free(&node);
    times.ref = calloc((size_t)j.opts.repeat, sizeof *times.ref);
    times.run = calloc((size_t)j.opts.repeat, sizeof *times.run);
    if (!outcome_alloc(&ref, &j.opts) + !outcome_alloc(&run, &j.opts) +
            !outcome_alloc(&plain, &j.opts) + !outcome_alloc(&traced, &j.opts) ||
        !times.ref || !times.run)
        status = jacobi_no_memory("timings and norms", (size_t)j.opts.niter * sizeof(double));
    if (status == SHARDTAB_SUCCESS)
        status = set_up(&j);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after the set-up", 0);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_choose_launch(&j);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_print_header(&j, &lines);

    /* ---- the 1-GPU reference: rank 0 alone, the others waiting quietly ---- */
    if (status == SHARDTAB_SUCCESS) {
        shardtab_status_t mine = SHARDTAB_SUCCESS;
        if (j.rank == 0)
            mine = jacobi_timed_solves(&j, &j.ref, 0, &ref, times.ref);
        /* the others wait for rank 0's work too; rank 0, whose work is done,
         * for them only as long as any step */
        status = app_agree(MPI_COMM_WORLD, mine, "the agreement after rank 0's reference",
                           j.rank == 0 ? 0.0 : jacobi_alone_work_s(&j.opts, j.opts.repeat + 1));
    }
    /* ---- the distributed solve, timed ---- */
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_timed_solves(&j, &j.run, 1, &run, times.run);
    /* ---- every result against the plain reference (the timed solve's rows) ---- */
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_verify_references(&j, &ref, &plain, &verdict);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_verify_run(&j, &run, &plain, &verdict);
    /* ---- then, if asked, one more solve with device timestamps ---- */
    if (status == SHARDTAB_SUCCESS && j.opts.trace)
        status = jacobi_trace_run(&j, &traced, have_trace ? &trace : NULL);
    if (status == SHARDTAB_SUCCESS)
        take_medians(&j, &times);

    /* ---- teardown before the verdict: a leaked mapping is a failed run too,
     * and a run that fails there never prints "OK" first ---- */
    {
        shardtab_status_t released =
            app_agree(MPI_COMM_WORLD, release(&j), "the agreement after the teardown", 0);
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    if (status == SHARDTAB_SUCCESS) {
        jacobi_print_norms(&j, &ref, &run);
        jacobi_print_summary(&j, &ref, &run, &times);
        jacobi_print_verdict(&j, &run, &verdict); /* the last line */
    }
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("jacobi", j.rank, shardtab_last_error());
        exit_code = app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    } else if (!verdict.verified) {
        exit_code = 1;
    }
    /* The JSON and the trace: a run that got as far as its verdict writes
     * them, a failed verification included (the file is the record of it,
     * "verified": false); a run that failed before writes nothing and leaves
     * an existing file as it was. A file that cannot be written fails the run
     * (exit 1) after its verdict, the same for both. Rank 0 writes; every rank
     * exits with the same status. */
    if (status == SHARDTAB_SUCCESS) {
        int write_failed = 0;
        if (have_json) {
            jacobi_write_json(&j, &json, lines, &ref, &run, &plain, &times, &verdict, exit_code);
            if (app_outfile_commit(&json, err, sizeof err) != 0) {
                fprintf(stderr, "jacobi: error: %s; the results above are not saved\n", err);
                fflush(stderr);
                write_failed = 1;
            }
        }
        if (have_trace && app_outfile_commit(&trace, err, sizeof err) != 0) {
            fprintf(stderr, "jacobi: error: %s; the trace above is not saved\n", err);
            fflush(stderr);
            write_failed = 1;
        }
        app_bcast(&write_failed, 1, MPI_INT, 0, MPI_COMM_WORLD, "the broadcast of the files' fate");
        if (write_failed && exit_code == 0)
            exit_code = 1;
    }
    app_outfile_discard(&json);
    app_outfile_discard(&trace); /* committed above; else nothing is written */
    shardtab_finalize();
    free(lines);
    free(times.ref);
    free(times.run);
    free(ref.history);
    free(run.history);
    free(plain.history);
    free(traced.history);
    MPI_Finalize();
    return exit_code;
}
