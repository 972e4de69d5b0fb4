/* jacobi.c - the jacobi program's main: a 2D Jacobi solve whose rows are split
 * over the ranks, with ghost rows stored straight into the neighbours' arrays
 * through one table per node and ordered by device-side signals.
 *
 * PURPOSE  Show that the table serves an iterative multi-GPU code (a stencil
 *          with ghost rows and a reduction every iteration) with no host in
 *          the loop, on the classic problem of NVIDIA's multi-gpu-programming-
 *          models, and measure it beside their NCCL and NVSHMEM versions.
 * USAGE    mpirun -np <ranks> ./jacobi [-nx N] [-ny N] [-niter N] [-nccheck N]
 *                 [--variant table|host-sync|mpi] [--launch graph|stream]
 *                 [--repeat R] [--json FILE] [--allow-shared-gpu]
 * NOTES    The problem, as the anchors define it: Dirichlet boundaries
 *          sin(2 pi y / (ny - 1)) on the left and right columns, periodic rows
 *          (the first interior row's neighbour above is the last interior row),
 *          zero start, single precision, stop one iteration after the L2 norm
 *          falls to 1e-8 or after -niter iterations. Every rank computes the
 *          whole grid alone on its own device first (the 1-GPU reference, timed
 *          too) and compares its rows of the distributed result with it bit for
 *          bit. Each ghost row has a halo buffer in coherent memory (the table's
 *          shards); the rows themselves stay in ordinary device memory.
 *
 * The rooms: jacobi_solver.c (buffers, wiring), jacobi_exchange.c (the host's
 * part of a step), jacobi_solve.c (one timed solve), jacobi_verify.c (the
 * checks), jacobi_report.c (output); kernels/jacobi_sweep.* (the kernels).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "jacobi_job.h"
#include "jacobi_report.h"
#include "jacobi_solve.h"
#include "jacobi_verify.h"
#include "mpi_gpu.h"
#include "shardtab.h"

#define JACOBI_WARMUP_ITERS 20 /* the untimed solve first: modules, graphs, peer pages */

/* Host memory a rank needs: the reference's starting grid, its rows' result
 * and reference, its own starting rows, staging. Refused up front when the
 * node cannot hold it for every rank on it. */
static shardtab_status_t check_host_memory(const jacobi_job_t *j, int ranks_on_node)
{
    uint64_t nx = (uint64_t)j->opts.nx;
    uint64_t need = sizeof(jacobi_real_t) * nx * ((uint64_t)j->opts.ny + 3 * (uint64_t)j->rows.count + 4);
    uint64_t have = shardtab_host_memory_available();

    if (have != 0 && need * (uint64_t)ranks_on_node > have)
        return shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                  "a %d x %d grid needs %.2f GiB of host memory on each of the %d "
                                  "ranks of this node, and %.2f GiB is available: use a smaller "
                                  "grid or fewer ranks per node",
                                  j->opts.nx, j->opts.ny, need / 1073741824.0, ranks_on_node,
                                  have / 1073741824.0);
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t allocate_host(jacobi_job_t *j)
{
    size_t row = (size_t)j->opts.nx * sizeof(jacobi_real_t);
    size_t mine = (size_t)j->rows.count * row;

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
}

/* Collective teardown in reverse order of set-up; the first failure wins. */
static shardtab_status_t release(jacobi_job_t *j)
{
    shardtab_status_t first = shardtab_stream_synchronize(j->stream), s;

    jacobi_graph_release();
    if (j->table && (s = shardtab_destroy(&j->table)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    if ((s = jacobi_solver_free(&j->run)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    if ((s = jacobi_solver_free(&j->ref)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    jacobi_stream_destroy(j->stream);
    j->stream = NULL;
    free_host(j);
    return first;
}

/* Reads JACOBI_TEST_SKIP_SIGNAL=<rank>: that rank never signals its
 * neighbours, so that the tests can watch every rank's wait run out. Not for
 * users; it never fires unless set. */
static int skip_signal_for_test(int rank)
{
    const char *text = getenv("JACOBI_TEST_SKIP_SIGNAL");
    char *end;
    long r;

    if (text == NULL || *text == '\0')
        return 0;
    r = strtol(text, &end, 10);
    return *end == '\0' && r == rank;
}

/* Device, stream, host buffers, both solvers, the table and its wiring. Collective. */
static shardtab_status_t set_up(jacobi_job_t *j)
{
    shardtab_create_params_t params = {0};
    shardtab_status_t status = jacobi_kernel_check(jacobi_stream_create(&j->stream),
                                                   "creating a stream");
    if (status == SHARDTAB_SUCCESS)
        status = allocate_host(j);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_solver_alloc(&j->run, j->opts.nx, j->opts.ny, j->rows.start,
                                     j->rows.count, j->opts.niter, 1);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_solver_alloc(&j->ref, j->opts.nx, j->opts.ny, 1, j->opts.ny - 2,
                                     j->opts.niter, 0);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS) {
        /* the shards are the halo buffers: what a neighbour writes into */
        params.stream = j->stream;
        params.signal_slots = JACOBI_SIGNAL_SLOTS(j->size); /* the same on every rank */
        params.alignment = 16;                             /* the kernel's 16-byte accesses */
        status = shardtab_create_with(MPI_COMM_WORLD, j->run.halo,
                                      4 * (size_t)j->opts.nx * sizeof(jacobi_real_t), &params,
                                      &j->table);
    }
    if (status == SHARDTAB_SUCCESS) {
        shardtab_device_info_t info;
        shardtab_device_info(&info);
        j->mpi_direct = info.backend == SHARDTAB_BACKEND_HOST ||
                        app_mpi_gpu_aware(shardtab_backend_name(info.backend));
        status = shardtab_agree(MPI_COMM_WORLD, jacobi_wire_edges(j));
    }
    if (status == SHARDTAB_SUCCESS) {
        jacobi_wire_reference(&j->ref, j->opts.nccheck);
        status = shardtab_agree(MPI_COMM_WORLD, jacobi_solver_start(&j->run, j->stream));
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(MPI_COMM_WORLD, jacobi_solver_start(&j->ref, j->stream));
    if (status == SHARDTAB_SUCCESS)
        j->nodes = shardtab_node_count(j->table);
    return status;
}

/* A warm-up solve, then opts.repeat timed ones; times[i] is this rank's
 * (reference) or the slowest rank's (distributed). */
static shardtab_status_t timed_solves(jacobi_job_t *j, jacobi_solver_t *s, int distributed,
                                      jacobi_outcome_t *out, double *times)
{
    int warm = j->opts.niter < JACOBI_WARMUP_ITERS ? j->opts.niter : JACOBI_WARMUP_ITERS;
    shardtab_status_t status = jacobi_solve(j, s, distributed, warm, out);

    for (int i = 0; i < j->opts.repeat && status == SHARDTAB_SUCCESS; i++) {
        status = jacobi_solve(j, s, distributed, j->opts.niter, out);
        times[i] = out->seconds;
        if (distributed)
            MPI_Allreduce(&out->seconds, &times[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    return status;
}

/* rank 0's reference time, as the anchors report theirs, and the job's */
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
    MPI_Bcast(&t->ref_median, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    shardtab_init_params_t init = {0};
    shardtab_status_t status;
    jacobi_job_t j;
    jacobi_rank_line_t *lines = NULL;
    jacobi_outcome_t ref = {0}, run = {0};
    jacobi_timings_t times = {0};
    jacobi_verdict_t verdict;
    app_outfile_t json = {0};
    char err[256];
    int exit_code = 0, ranks_on_node = 1, have_json = 0;
    MPI_Comm node;

    memset(&j, 0, sizeof j);
    jacobi_verdict_init(&verdict);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);

    /* ---- options: every rank parses, rank 0 speaks ---- */
    switch (jacobi_options_parse(argc, argv, &j.opts, err, sizeof err)) {
    case JACOBI_PARSE_HELP:
        if (j.rank == 0)
            fputs(jacobi_usage_text(), stdout);
        MPI_Finalize();
        return 0;
    case JACOBI_PARSE_ERROR:
        if (j.rank == 0)
            fprintf(stderr, "jacobi: %s\nTry 'jacobi --help' for more information.\n", err);
        MPI_Finalize();
        return 2;
    case JACOBI_PARSE_OK:
        break;
    }
    status = SHARDTAB_SUCCESS;
    if (jacobi_split_rows(j.opts.ny, j.size, j.rank, &j.rows, err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j.rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks_on_node);
    MPI_Comm_free(&node);
    if (status == SHARDTAB_SUCCESS)
        status = check_host_memory(&j, ranks_on_node);
    if (status == SHARDTAB_SUCCESS && j.rank == 0 && j.opts.json) {
        if (app_outfile_open(&json, j.opts.json, err, sizeof err) != 0)
            status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
        else
            have_json = 1;
    }
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS) {
        jacobi_say_error(j.rank, shardtab_last_error());
        app_outfile_discard(&json);
        MPI_Finalize();
        return jacobi_exit_code_for(status);
    }
    j.top = jacobi_top(j.size, j.rank);
    j.bottom = jacobi_bottom(j.size, j.rank);
    j.skip_signal = skip_signal_for_test(j.rank);
    times.ref = calloc((size_t)j.opts.repeat, sizeof *times.ref);
    times.run = calloc((size_t)j.opts.repeat, sizeof *times.run);
    ref.history = calloc((size_t)(j.opts.niter / 100 + 1), sizeof(double));
    run.history = calloc((size_t)(j.opts.niter / 100 + 1), sizeof(double));

    /* ---- device, stream, buffers, table ---- */
    init.allow_shared_device = j.opts.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &init);
    if (status != SHARDTAB_SUCCESS) {
        jacobi_say_error(j.rank, shardtab_last_error());
        app_outfile_discard(&json);
        MPI_Finalize();
        return jacobi_exit_code_for(status);
    }
    if (!times.ref || !times.run || !ref.history || !run.history)
        status = jacobi_no_memory("timings", (size_t)j.opts.repeat * sizeof(double));
    if (status == SHARDTAB_SUCCESS)
        status = set_up(&j);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_print_header(&j, &lines);

    /* ---- the 1-GPU reference, on every rank's own device at once ---- */
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(MPI_COMM_WORLD, timed_solves(&j, &j.ref, 0, &ref, times.ref));
    /* ---- a CPU loop checks the reference on small grids ---- */
    if (status == SHARDTAB_SUCCESS)
        status = jacobi_cpu_check(&j, &ref, &verdict);
    /* ---- the distributed solve ---- */
    if (status == SHARDTAB_SUCCESS)
        status = timed_solves(&j, &j.run, 1, &run, times.run);
    if (status == SHARDTAB_SUCCESS) {
        take_medians(&j, &times);
        jacobi_print_norms(&j, &ref, &run);
        status = jacobi_verify(&j, &ref, &run, &verdict);
    }
    if (status == SHARDTAB_SUCCESS) {
        jacobi_print_summary(&j, &ref, &run, &times);
        jacobi_print_verdict(&j, &ref, &run, &verdict); /* the last line */
    }

    /* ---- teardown: a leaked mapping is a failed run too ---- */
    {
        shardtab_status_t released = shardtab_agree(MPI_COMM_WORLD, release(&j));
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    if (status != SHARDTAB_SUCCESS) {
        jacobi_say_error(j.rank, shardtab_last_error());
        exit_code = jacobi_exit_code_for(status);
    } else if (!verdict.verified) {
        exit_code = 1;
    }
    if (have_json) {
        if (status == SHARDTAB_SUCCESS) {
            jacobi_write_json(&j, &json, lines, &ref, &run, &times, &verdict);
            if (app_outfile_commit(&json, err, sizeof err) != 0) {
                fprintf(stderr, "jacobi: error: %s\n", err);
                exit_code = 1;
            }
        } else {
            app_outfile_discard(&json);
        }
    }
    shardtab_finalize();
    free(lines);
    free(times.ref);
    free(times.run);
    free(ref.history);
    free(run.history);
    MPI_Finalize();
    return exit_code;
}
