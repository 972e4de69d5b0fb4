/* jacobi.c - the program: a 2D Jacobi solve whose rows are split over the
 * ranks, with ghost rows stored straight into the neighbours' arrays through
 * one table per node and ordered by device-side signals.
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
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "jacobi.h"
#include "jacobi_op.h"
#include "jacobi_options.h"
#include "mpi_gpu.h"
#include "shardtab.h"
#include "shardtab_device.h"

#ifndef JACOBI_GIT_COMMIT
#define JACOBI_GIT_COMMIT "unknown"
#endif

#define JACOBI_TOL 1.0e-8           /* the anchors' tolerance */
#define JACOBI_NORM_REL_TOL 1.0e-9  /* norms summed in another order must agree this well */
#define JACOBI_WARMUP_ITERS 20      /* the untimed solve first: modules, graphs, peer pages */
#define TAG_DOWN 1                  /* a rank's last row, to the rank below */
#define TAG_UP 2                    /* a rank's first row, to the rank above */

/* One solve's device state: this rank's rows (or the whole grid, for the
 * reference), their ghost rows and the kernel's bookkeeping. */
typedef struct jac_solver {
    int nx, rows;
    jacobi_real_t *a[2];      /* device: rows x nx, twice */
    jacobi_real_t *halo;      /* device: [parity][above, below][nx] */
    jacobi_ctl_t *ctl;        /* device */
    double *partials;         /* device */
    double *history;          /* device */
    int history_len;
    jacobi_real_t *init;      /* host: the starting rows, boundary columns set */
    jacobi_step_t step;
} jac_solver_t;

/* What one solve measured. */
typedef struct jac_outcome {
    double seconds;       /* this rank */
    uint64_t iterations;
    double norm;          /* the last norm decided on */
    uint64_t norm_iter;   /* its iteration, counted from the solve's start */
    double *history;      /* host copy [history_len], rank 0 prints it */
} jac_outcome_t;

typedef struct jac_rank_line {
    int rank, node_id, node_rank, device, start, rows;
    char host[64], device_name[64], pci_bus_id[32], top_via[8], bottom_via[8];
} jac_rank_line_t;

typedef struct jac {
    jacobi_options_t opts;
    int rank, size;
    jacobi_rows_t rows;
    int top, bottom;          /* comm ranks of the neighbours */
    int host_top, host_bottom; /* that edge goes through MPI, not the table */
    int host_norm;            /* the norm goes through MPI, the host decides */
    int host_sync;            /* host-sync variant: a barrier after every step */
    int mpi_direct;           /* MPI reads device buffers (GPU-aware, or host backend) */
    int skip_signal;          /* test hook */
    int nodes;                /* node count of the table, kept past its destroy */
    void *stream;
    shardtab_t *table;
    jac_solver_t run, ref;
    jacobi_real_t *send_first, *send_last, *recv_top, *recv_bottom; /* host staging */
    jacobi_real_t *result, *expected; /* host: my rows, final, and the reference's */
    double *norms;            /* host [2 * size]: every rank's (norm, failed) */
} jac_t;

static const float jacobi_pi = 3.14159265358979323846f; /* as the anchors: a float pi */

/* ---- set-up ---------------------------------------------------------------- */

/* The starting rows [start, start + rows) of the global grid: zero inside,
 * sin(2 pi y / (ny - 1)) on both boundary columns, computed on the host once
 * so that every backend starts from the same bits. */
static void fill_initial(jacobi_real_t *rows_out, int nx, int ny, int start, int rows)
{
    memset(rows_out, 0, (size_t)rows * (size_t)nx * sizeof *rows_out);
    for (int r = 0; r < rows; r++) {
        double y = 2.0 * (double)jacobi_pi * (double)(start + r) / (double)(ny - 1);
        jacobi_real_t v = (jacobi_real_t)sin(y);
        rows_out[(size_t)r * nx] = v;
        rows_out[(size_t)r * nx + nx - 1] = v;
    }
}

static shardtab_status_t no_memory(const char *what, size_t bytes)
{
    return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of %zu bytes for %s failed",
                              bytes, what);
}

static shardtab_status_t kernel_check(int code, const char *what)
{
    if (code == 0)
        return SHARDTAB_SUCCESS;
    return shardtab_error_set(SHARDTAB_ERR_DEVICE, "%s failed: %s", what,
                              jacobi_error_string(code));
}

/* Device buffers of one solver; the halo in coherent memory when peers write it. */
static shardtab_status_t solver_alloc(jac_solver_t *s, int nx, int ny, int start, int rows,
                                      int niter, int coherent_halo)
{
    size_t grid = (size_t)rows * (size_t)nx * sizeof(jacobi_real_t);
    uint64_t partials = 0;
    shardtab_status_t status;

    memset(s, 0, sizeof *s);
    s->nx = nx;
    s->rows = rows;
    s->history_len = niter / 100 + 1;
    s->init = malloc(grid);
    if (s->init == NULL)
        return no_memory("the starting rows", grid);
    fill_initial(s->init, nx, ny, start, rows);
    status = shardtab_mem_alloc(grid, (void **)&s->a[0]);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(grid, (void **)&s->a[1]);
    if (status == SHARDTAB_SUCCESS)
        status = coherent_halo
                     ? shardtab_mem_alloc_coherent(4 * (size_t)nx * sizeof(jacobi_real_t),
                                                   (void **)&s->halo)
                     : shardtab_mem_alloc(4 * (size_t)nx * sizeof(jacobi_real_t), (void **)&s->halo);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(sizeof(jacobi_ctl_t), (void **)&s->ctl);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)s->history_len * sizeof(double), (void **)&s->history);
    if (status != SHARDTAB_SUCCESS)
        return status;

    jacobi_step_t *st = &s->step;
    memset(st, 0, sizeof *st); /* padding too: the kernels cache graphs by its bytes */
    for (int p = 0; p < 2; p++) {
        st->a[p] = s->a[p];
        st->halo[p] = s->halo + (size_t)p * 2 * nx;
    }
    st->nx = nx;
    st->rows = rows;
    st->top_peer = st->bottom_peer = -1;
    st->tol = JACOBI_TOL;
    st->ctl = s->ctl;
    st->history = s->history;
    st->history_len = s->history_len;
    status = kernel_check(jacobi_step_shape(st, &partials), "sizing the Jacobi kernel");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)partials * sizeof(double), (void **)&s->partials);
    st->partials = s->partials;
    return status;
}

static shardtab_status_t solver_free(jac_solver_t *s)
{
    void *device[] = {s->a[0], s->a[1], s->halo, s->ctl, s->history, s->partials};
    shardtab_status_t first = SHARDTAB_SUCCESS;

    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++) {
        shardtab_status_t st = shardtab_mem_free(device[i]);
        if (first == SHARDTAB_SUCCESS)
            first = st;
    }
    free(s->init);
    memset(s, 0, sizeof *s);
    return first;
}

/* Back to the starting state for a new solve: rows, ghost rows (zero, as the
 * neighbours' starting interiors), a clean history, and the bookkeeping with
 * the iteration count kept (signals only ever grow). Synchronous. */
static shardtab_status_t solver_reset(jac_solver_t *s, void *stream)
{
    size_t grid = (size_t)s->rows * (size_t)s->nx * sizeof(jacobi_real_t);
    size_t halo = 4 * (size_t)s->nx * sizeof(jacobi_real_t);
    size_t history = (size_t)s->history_len * sizeof(double);
    size_t zero_bytes = halo > history ? halo : history;
    jacobi_ctl_t ctl;
    shardtab_status_t status;
    void *zeros = calloc(1, zero_bytes);

    if (zeros == NULL)
        return no_memory("zeros", zero_bytes);
    status = shardtab_memcpy_async(&ctl, s->ctl, sizeof ctl, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    if (status == SHARDTAB_SUCCESS) {
        ctl.base = ctl.iteration;
        ctl.stop_at = JACOBI_NO_STOP;
        ctl.norm = 0.0;
        ctl.norm_iter = ctl.iteration;
        status = shardtab_memcpy_async(s->ctl, &ctl, sizeof ctl, stream);
    }
    for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
        status = shardtab_memcpy_async(s->a[p], s->init, grid, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(s->halo, zeros, halo, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(s->history, zeros, history, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    free(zeros);
    return status;
}

/* The first solve of a fresh solver starts at iteration 0 with nothing decided. */
static shardtab_status_t solver_start(jac_solver_t *s, void *stream)
{
    jacobi_ctl_t ctl;

    memset(&ctl, 0, sizeof ctl);
    ctl.stop_at = JACOBI_NO_STOP;
    shardtab_status_t status = shardtab_memcpy_async(s->ctl, &ctl, sizeof ctl, stream);
    return status == SHARDTAB_SUCCESS ? shardtab_stream_synchronize(stream) : status;
}

/* ---- the ring: which edges go through the table, which through MPI ----------- */

static shardtab_status_t wire_edges(jac_t *j)
{
    jacobi_step_t *st = &j->run.step;
    int node_top = shardtab_node_rank_of(j->table, j->top);
    int node_bottom = shardtab_node_rank_of(j->table, j->bottom);
    int me = shardtab_node_rank(j->table);
    int single_node = shardtab_node_count(j->table) == 1;
    int nx = j->opts.nx;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    j->host_top = j->opts.variant == JACOBI_MPI || node_top < 0;
    j->host_bottom = j->opts.variant == JACOBI_MPI || node_bottom < 0;
    /* every rank's norm, and the stop, on the device only where the node is the job */
    j->host_norm = j->opts.variant == JACOBI_MPI || !single_node;
    j->host_sync = j->opts.variant == JACOBI_HOST_SYNC;
    st->device_norm = !j->host_norm;
    st->device_sync = j->opts.variant == JACOBI_TABLE;
    st->nccheck = j->opts.nccheck;
    st->skip_signal = j->skip_signal;
    if (!j->host_top) {
        void *base;
        size_t bytes;
        status = shardtab_peer(j->table, j->top, &base, &bytes);
        /* my first row becomes the top neighbour's ghost row below */
        for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
            st->top_dest[p] = (jacobi_real_t *)base + (size_t)p * 2 * nx + nx;
        st->top_peer = node_top != me ? node_top : -1; /* one rank: no signal to itself */
    }
    if (!j->host_bottom && status == SHARDTAB_SUCCESS) {
        void *base;
        size_t bytes;
        status = shardtab_peer(j->table, j->bottom, &base, &bytes);
        /* my last row becomes the bottom neighbour's ghost row above */
        for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
            st->bottom_dest[p] = (jacobi_real_t *)base + (size_t)p * 2 * nx;
        st->bottom_peer = node_bottom != me ? node_bottom : -1;
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signals(j->table, &st->sig);
    return status;
}

/* The reference: the whole grid on this rank's device, its own rows wrapping
 * around to its own ghost rows, as the anchors' single-GPU code does. */
static void wire_reference(jac_solver_t *s, int nccheck)
{
    jacobi_step_t *st = &s->step;
    for (int p = 0; p < 2; p++) {
        st->top_dest[p] = s->halo + (size_t)p * 2 * s->nx + s->nx;
        st->bottom_dest[p] = s->halo + (size_t)p * 2 * s->nx;
    }
    st->device_norm = 1; /* one rank: its own norm decides, on the device */
    st->nccheck = nccheck;
}

/* ---- the host's part of a step: MPI edges, MPI norm, host sync -------------- */

static shardtab_status_t mpi_check(int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (rc == MPI_SUCCESS)
        return SHARDTAB_SUCCESS;
    MPI_Error_string(rc, text, &len);
    return shardtab_error_set(SHARDTAB_ERR_MPI, "%s failed: %s", what, text);
}

/* After step k: send the edge rows that go by MPI, receive the ghost rows of
 * k + 1 into the halo; then the norm, if the host owns it, with the device's
 * rules: the norm of k is computed now (*pending) and decided on after k + 1,
 * which is then the last step when it is <= tol (*stop).
 * Only the MPI calls the algorithm needs: a rank that failed (local) still
 * takes part in them, and its failure travels with the norms (or, for
 * host-sync, in the allreduce that is its barrier), so every rank learns of
 * it at the same step (*failed) and nobody waits alone. Returns local. */
static shardtab_status_t host_step(jac_t *j, uint64_t k, uint64_t base, jac_outcome_t *out,
                                   double *pending, int *stop, shardtab_status_t local,
                                   int *failed)
{
    jac_solver_t *s = &j->run;
    const int nx = s->nx, next = (int)((k + 1) & 1);
    const size_t row_bytes = (size_t)nx * sizeof(jacobi_real_t);
    jacobi_real_t *first = s->a[next], *last = s->a[next] + (size_t)(s->rows - 1) * nx;
    jacobi_real_t *ghost_top = s->halo + (size_t)next * 2 * nx, *ghost_bottom = ghost_top + nx;
    const int norm_iter = ((k - base) % (uint64_t)j->opts.nccheck) == 0;
    const int decision = k > base && ((k - 1 - base) % (uint64_t)j->opts.nccheck) == 0;
    double local2 = 0.0;

    *failed = 0;
    if (!j->mpi_direct && local == SHARDTAB_SUCCESS) {
        if (j->host_top)
            local = shardtab_memcpy_async(j->send_first, first, row_bytes, j->stream);
        if (j->host_bottom && local == SHARDTAB_SUCCESS)
            local = shardtab_memcpy_async(j->send_last, last, row_bytes, j->stream);
    }
    if (j->host_norm && norm_iter && local == SHARDTAB_SUCCESS)
        local = shardtab_memcpy_async(&local2, &s->ctl->local_norm2, sizeof local2, j->stream);
    if (local == SHARDTAB_SUCCESS)
        local = shardtab_stream_synchronize(j->stream);

    if (j->host_top || j->host_bottom) {
        jacobi_real_t *in_top = j->mpi_direct ? ghost_top : j->recv_top;
        jacobi_real_t *in_bottom = j->mpi_direct ? ghost_bottom : j->recv_bottom;
        MPI_Request req[4];
        int nreq = 0;
        if (j->host_top) {
            MPI_Irecv(in_top, nx, MPI_FLOAT, j->top, TAG_DOWN, MPI_COMM_WORLD, &req[nreq++]);
            MPI_Isend(j->mpi_direct ? first : j->send_first, nx, MPI_FLOAT, j->top, TAG_UP,
                      MPI_COMM_WORLD, &req[nreq++]);
        }
        if (j->host_bottom) {
            MPI_Irecv(in_bottom, nx, MPI_FLOAT, j->bottom, TAG_UP, MPI_COMM_WORLD, &req[nreq++]);
            MPI_Isend(j->mpi_direct ? last : j->send_last, nx, MPI_FLOAT, j->bottom, TAG_DOWN,
                      MPI_COMM_WORLD, &req[nreq++]);
        }
        shardtab_status_t s2 = mpi_check(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE),
                                         "MPI_Waitall of the ghost rows");
        if (local == SHARDTAB_SUCCESS)
            local = s2;
        if (!j->mpi_direct && j->host_top && local == SHARDTAB_SUCCESS)
            local = shardtab_memcpy_async(ghost_top, j->recv_top, row_bytes, j->stream);
        if (!j->mpi_direct && j->host_bottom && local == SHARDTAB_SUCCESS)
            local = shardtab_memcpy_async(ghost_bottom, j->recv_bottom, row_bytes, j->stream);
    }

    if (j->host_norm && decision) {
        uint64_t done = k - 1 - base;
        out->norm = *pending;
        out->norm_iter = done;
        if (done % 100 == 0 && done / 100 < (uint64_t)s->history_len)
            out->history[done / 100] = out->norm;
        *stop = out->norm <= JACOBI_TOL;
    }
    if (j->host_norm && norm_iter) {
        /* every rank's (norm, failed), added in rank order: the same bits everywhere */
        double mine[2] = {local2, local != SHARDTAB_SUCCESS}, global2 = 0.0;
        shardtab_status_t s2 = mpi_check(
            MPI_Allgather(mine, 2, MPI_DOUBLE, j->norms, 2, MPI_DOUBLE, MPI_COMM_WORLD),
            "MPI_Allgather of the norms");
        for (int r = 0; r < j->size && s2 == SHARDTAB_SUCCESS; r++) {
            global2 += j->norms[2 * r];
            *failed |= j->norms[2 * r + 1] != 0.0;
        }
        if (local == SHARDTAB_SUCCESS)
            local = s2;
        *failed |= s2 != SHARDTAB_SUCCESS;
        *pending = sqrt(global2);
    } else if (j->host_sync) {
        /* the barrier of host-sync, carrying who failed */
        int flag = local != SHARDTAB_SUCCESS, any = 1;
        shardtab_status_t s2 =
            mpi_check(MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
                      "MPI_Allreduce (the host-sync barrier)");
        if (local == SHARDTAB_SUCCESS)
            local = s2;
        *failed = any || s2 != SHARDTAB_SUCCESS;
    }
    return local;
}

/* ---- one solve ----------------------------------------------------------------- */

static shardtab_status_t read_outcome(jac_solver_t *s, void *stream, int host_norm,
                                      jac_outcome_t *out)
{
    jacobi_ctl_t ctl;
    shardtab_status_t status = shardtab_memcpy_async(&ctl, s->ctl, sizeof ctl, stream);

    if (status == SHARDTAB_SUCCESS && !host_norm)
        status = shardtab_memcpy_async(out->history, s->history,
                                       (size_t)s->history_len * sizeof(double), stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    if (status != SHARDTAB_SUCCESS)
        return status;
    out->iterations = ctl.iteration - ctl.base;
    if (!host_norm) {
        out->norm = ctl.norm;
        out->norm_iter = ctl.norm_iter - ctl.base;
    }
    return SHARDTAB_SUCCESS;
}

/* Runs one solve of at most `iterations` steps of solver s. distributed: the
 * job's solve (barriers around the clock, the host's part of each step where
 * there is one); else this rank's reference, alone. Collective when distributed. */
static shardtab_status_t solve(jac_t *j, jac_solver_t *s, int distributed, int iterations,
                               jac_outcome_t *out)
{
    shardtab_status_t status = solver_reset(s, j->stream);
    int host_loop = distributed && (j->host_top || j->host_bottom || j->host_norm || j->host_sync);
    uint64_t base = 0;
    double start;

    memset(out->history, 0, (size_t)s->history_len * sizeof(double));
    out->norm = 0.0;
    out->norm_iter = 0;
    if (status == SHARDTAB_SUCCESS) {
        jacobi_ctl_t ctl;
        status = shardtab_memcpy_async(&ctl, s->ctl, sizeof ctl, j->stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
        base = ctl.base;
    }
    if (distributed) {
        /* nobody starts before every rank has reset the ghost rows others write */
        status = shardtab_agree(MPI_COMM_WORLD, status);
        if (status != SHARDTAB_SUCCESS)
            return status;
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (status != SHARDTAB_SUCCESS) {
        return status;
    }

    start = MPI_Wtime();
    if (!host_loop) {
        /* the table's way: enqueue everything, the device decides when to stop */
        /* graphs for the table variant's solve, and for every reference */
        int graph = j->opts.graph && (!distributed || j->opts.variant == JACOBI_TABLE);
        status = kernel_check(jacobi_run(&s->step, iterations, j->stream, graph),
                              "the Jacobi kernel");
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
    } else {
        double pending = 0.0;
        int stop = 0, failed = 0;
        for (int it = 0; it < iterations && !stop && !failed; it++) {
            if (status == SHARDTAB_SUCCESS)
                status = kernel_check(jacobi_run(&s->step, 1, j->stream, 0), "the Jacobi kernel");
            status = host_step(j, base + (uint64_t)it, base, out, &pending, &stop, status, &failed);
        }
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
    }
    if (distributed) {
        status = shardtab_agree(MPI_COMM_WORLD, status);
        if (status == SHARDTAB_SUCCESS)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    out->seconds = MPI_Wtime() - start;
    if (status == SHARDTAB_SUCCESS)
        status = read_outcome(s, j->stream, distributed && j->host_norm, out);
    /* a device wait that gave up: every rank reports the rank that waited */
    if (distributed && status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(j->table);
    return distributed ? shardtab_agree(MPI_COMM_WORLD, status) : status;
}

/* ---- the CPU check of the reference --------------------------------------------- */

#define JACOBI_CPU_CHECK_MAX_WORK 400000000.0 /* point updates: a few seconds of one core */

/* The whole solve once more, by a plain loop on this CPU with the same update
 * (jacobi_op.h), the same periodic ghost rows and the same stop rule: the
 * reference kernel must give the same bits, so a kernel that computes the
 * wrong thing consistently on every rank cannot pass. Rank 0, small grids. */
static shardtab_status_t cpu_check(const jac_t *j, const jac_outcome_t *ref, int *checked,
                                   int *ok)
{
    const int nx = j->opts.nx, ny = j->opts.ny, rows = ny - 2, nccheck = j->opts.nccheck;
    const size_t plane = (size_t)ny * (size_t)nx;
    jacobi_real_t *a = calloc(plane, sizeof *a), *b = calloc(plane, sizeof *b);
    jacobi_real_t *gpu = malloc((size_t)rows * (size_t)nx * sizeof *gpu);
    double pending = 0.0;
    uint64_t it = 0;
    jacobi_ctl_t ctl;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    *checked = 0;
    *ok = 1; /* not checked is not failed */
    if (j->rank != 0 || (double)rows * nx * j->opts.niter > JACOBI_CPU_CHECK_MAX_WORK) {
        free(a), free(b), free(gpu);
        return SHARDTAB_SUCCESS;
    }
    if (a == NULL || b == NULL || gpu == NULL) {
        free(a), free(b), free(gpu);
        return no_memory("the CPU check", 3 * plane * sizeof *a);
    }
    /* rows 0 and ny-1 are the periodic ghost rows: zero inside, as the halos start */
    fill_initial(a + nx, nx, ny, 1, rows);
    fill_initial(b + nx, nx, ny, 1, rows);
    for (int stop = 0; it < (uint64_t)j->opts.niter && !stop; it++) {
        double norm2 = 0.0;
        for (int r = 1; r <= rows; r++) {
            const jacobi_real_t *row = a + (size_t)r * nx;
            jacobi_real_t *out = b + (size_t)r * nx;
            for (int x = 1; x < nx - 1; x++) {
                out[x] = jacobi_value(row[x - 1], row[x + 1], row[x - nx], row[x + nx]);
                norm2 += jacobi_residue2(out[x], row[x]);
            }
        }
        memcpy(b + 1, b + (size_t)rows * nx + 1, (size_t)(nx - 2) * sizeof *b);
        memcpy(b + (size_t)(rows + 1) * nx + 1, b + (size_t)nx + 1, (size_t)(nx - 2) * sizeof *b);
        if (it > 0 && (it - 1) % (uint64_t)nccheck == 0 && pending <= JACOBI_TOL)
            stop = 1; /* the norm of it - 1 decides, after it: the anchors' lag */
        if (it % (uint64_t)nccheck == 0)
            pending = sqrt(norm2);
        jacobi_real_t *t = a;
        a = b, b = t;
    }
    status = shardtab_memcpy_async(&ctl, j->ref.ctl, sizeof ctl, j->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(j->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(gpu, j->ref.a[ctl.iteration & 1],
                                       (size_t)rows * nx * sizeof *gpu, j->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(j->stream);
    if (status == SHARDTAB_SUCCESS) {
        *checked = 1;
        *ok = it == ref->iterations &&
              memcmp(gpu, a + nx, (size_t)rows * nx * sizeof *gpu) == 0;
        printf("# reference check: the 1-GPU reference %s a CPU loop of the same update bit for "
               "bit (%" PRIu64 " points, %" PRIu64 " iterations on the CPU, %" PRIu64
               " on the GPU)\n",
               *ok ? "equals" : "DIFFERS FROM", (uint64_t)rows * (uint64_t)nx, it,
               ref->iterations);
        fflush(stdout);
    }
    free(a), free(b), free(gpu);
    return status;
}

/* The median of a few timings. */
static double median(double *v, int n)
{
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
            double t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- output ------------------------------------------------------------------- */

static void say_error(int rank, const char *message)
{
    if (rank == 0) {
        fprintf(stderr, "jacobi: error: %s\n", message);
        fflush(stderr);
    }
}

static int exit_code_for(shardtab_status_t status)
{
    return status == SHARDTAB_ERR_INVALID_ARG ? 2 : 1;
}

/* Collective: every rank's line, printed by rank 0 in rank order. */
static shardtab_status_t print_header(const jac_t *j, jac_rank_line_t **lines_out)
{
    shardtab_device_info_t info;
    jac_rank_line_t mine, *lines = NULL;
    shardtab_status_t status = shardtab_device_info(&info);
    char mpi_line[256];

    memset(&mine, 0, sizeof mine);
    mine.rank = j->rank;
    mine.node_id = shardtab_node_id(j->table);
    mine.node_rank = shardtab_node_rank(j->table);
    mine.device = info.device;
    mine.start = j->rows.start;
    mine.rows = j->rows.count;
    {
        char name[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        MPI_Get_processor_name(name, &len);
        snprintf(mine.host, sizeof mine.host, "%.63s", name);
    }
    snprintf(mine.device_name, sizeof mine.device_name, "%s", info.name);
    snprintf(mine.pci_bus_id, sizeof mine.pci_bus_id, "%s", info.pci_bus_id);
    snprintf(mine.top_via, sizeof mine.top_via, "%s", j->host_top ? "mpi" : "table");
    snprintf(mine.bottom_via, sizeof mine.bottom_via, "%s", j->host_bottom ? "mpi" : "table");
    if (j->rank == 0) {
        lines = malloc((size_t)j->size * sizeof *lines);
        if (lines == NULL)
            status = no_memory("the rank lines", (size_t)j->size * sizeof *lines);
    }
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS) {
        free(lines);
        return status;
    }
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, lines, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    app_mpi_gpu_support(mpi_line, sizeof mpi_line);
    if (j->rank == 0) {
        const jacobi_options_t *o = &j->opts;
        printf("# jacobi %d.%d.%d: 2D Jacobi, 5-point stencil, ghost rows through one table per "
               "node\n",
               SHARDTAB_VERSION_MAJOR, SHARDTAB_VERSION_MINOR, SHARDTAB_VERSION_PATCH);
        printf("# backend %s, %d ranks, %d nodes, variant %s%s, grid %d x %d, at most %d "
               "iterations, norm every %d, tol %g, %d timed solve(s) after a warm-up\n",
               shardtab_backend_name(shardtab_backend()), j->size,
               shardtab_node_count(j->table), jacobi_variant_name(o->variant),
               o->variant == JACOBI_TABLE ? (o->graph ? " (graph launches)" : " (stream launches)")
                                          : "",
               o->nx, o->ny, o->niter, o->nccheck, JACOBI_TOL, o->repeat);
        printf("# MPI: %s; ghost rows by MPI go %s\n", mpi_line,
               j->mpi_direct ? "straight from device memory" : "through host buffers");
        for (int r = 0; r < j->size; r++) {
            const jac_rank_line_t *l = &lines[r];
            printf("# Rank %3d on %-16s node %3d node-rank %3d device %2d %-14s [%s] rows [%d, "
                   "%d) %d rows, above via %s, below via %s\n",
                   l->rank, l->host, l->node_id, l->node_rank, l->device, l->device_name,
                   l->pci_bus_id, l->start, l->start + l->rows, l->rows, l->top_via, l->bottom_via);
        }
        fflush(stdout);
    }
    *lines_out = lines;
    return SHARDTAB_SUCCESS;
}

static void print_norms(const jac_t *j, const jac_outcome_t *ref, const jac_outcome_t *run)
{
    int shown = (int)(run->iterations > ref->iterations ? run->iterations : ref->iterations);

    if (j->rank != 0)
        return;
    printf("#  iter   norm (1 GPU)          norm (%d GPUs)\n", j->size);
    for (int i = 0; i < j->run.history_len && i * 100 < shown - 1; i++)
        printf("%7d   %.15e   %.15e\n", i * 100, ref->history[i], run->history[i]);
}

static void write_json(const jac_t *j, app_outfile_t *out, const jac_rank_line_t *lines,
                       const jac_outcome_t *ref, const jac_outcome_t *run, const double *ref_t,
                       const double *run_t, double ref_median, double run_median,
                       uint64_t mismatches, double norm_diff, int verified)
{
    FILE *f = out->f;
    const jacobi_options_t *o = &j->opts;

    fprintf(f, "{\n  \"program\": \"jacobi\",\n  \"version\": \"%d.%d.%d\",\n",
            SHARDTAB_VERSION_MAJOR, SHARDTAB_VERSION_MINOR, SHARDTAB_VERSION_PATCH);
    app_json_provenance(f, JACOBI_GIT_COMMIT);
    fprintf(f, "  \"backend\": \"%s\",\n  \"ranks\": %d,\n  \"nodes\": %d,\n",
            shardtab_backend_name(shardtab_backend()), j->size, j->nodes);
    fprintf(f, "  \"variant\": \"%s\",\n  \"launch\": \"%s\",\n", jacobi_variant_name(o->variant),
            o->variant == JACOBI_TABLE && o->graph ? "graph" : "stream");
    fprintf(f, "  \"nx\": %d,\n  \"ny\": %d,\n  \"niter\": %d,\n  \"nccheck\": %d,\n  \"tol\": %g,\n",
            o->nx, o->ny, o->niter, o->nccheck, JACOBI_TOL);
    fprintf(f, "  \"iterations\": %" PRIu64 ",\n  \"iterations_reference\": %" PRIu64 ",\n",
            run->iterations, ref->iterations);
    fprintf(f, "  \"seconds\": %.9f,\n  \"seconds_all\": [", run_median);
    for (int i = 0; i < o->repeat; i++)
        fprintf(f, "%s%.9f", i ? ", " : "", run_t[i]);
    fprintf(f, "],\n  \"reference_seconds\": %.9f,\n  \"reference_seconds_all\": [", ref_median);
    for (int i = 0; i < o->repeat; i++)
        fprintf(f, "%s%.9f", i ? ", " : "", ref_t[i]);
    fprintf(f, "],\n  \"speedup\": %.6f,\n  \"efficiency_percent\": %.4f,\n",
            run_median > 0 ? ref_median / run_median : 0.0,
            run_median > 0 ? ref_median / (j->size * run_median) * 100 : 0.0);
    fprintf(f, "  \"norm\": %.17g,\n  \"norm_reference\": %.17g,\n  \"norm_iteration\": %" PRIu64
               ",\n  \"norm_relative_difference\": %.6e,\n  \"norm_tolerance\": %g,\n",
            run->norm, ref->norm, run->norm_iter, norm_diff, JACOBI_NORM_REL_TOL);
    fprintf(f, "  \"mismatches\": %" PRIu64 ",\n  \"verified\": %s,\n  \"rank_info\": [\n",
            mismatches, verified ? "true" : "false");
    for (int r = 0; r < j->size; r++) {
        const jac_rank_line_t *l = &lines[r];
        fprintf(f, "    {\"rank\": %d, \"host\": ", l->rank);
        app_json_string(f, l->host);
        fprintf(f, ", \"node\": %d, \"node_rank\": %d, \"device\": %d, \"device_name\": ",
                l->node_id, l->node_rank, l->device);
        app_json_string(f, l->device_name);
        fputs(", \"pci_bus_id\": ", f);
        app_json_string(f, l->pci_bus_id);
        fprintf(f, ", \"row_start\": %d, \"rows\": %d, \"above_via\": \"%s\", \"below_via\": "
                   "\"%s\"}%s\n",
                l->start, l->rows, l->top_via, l->bottom_via, r + 1 < j->size ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}

/* ---- verification -------------------------------------------------------------- */

/* Test hook: JACOBI_TEST_CORRUPT=<row>:<column> (global) nudges that point of
 * the distributed result by one ulp before the comparison, so that the tests
 * can prove a single wrong bit is seen. Not for users; it never fires unless set. */
static void corrupt_for_test(jac_t *j)
{
    const char *text = getenv("JACOBI_TEST_CORRUPT");
    long row, col;

    if (text == NULL || sscanf(text, "%ld:%ld", &row, &col) != 2)
        return;
    if (row < j->rows.start || row >= j->rows.start + j->rows.count || col < 0 || col >= j->opts.nx)
        return;
    jacobi_real_t *point = &j->result[(size_t)(row - j->rows.start) * j->opts.nx + (size_t)col];
    *point = nextafterf(*point, INFINITY);
}

/* Every point of my rows against the reference's, to the bit; counts and the
 * first bad point travel to rank 0. Collective. */
static shardtab_status_t verify(jac_t *j, const jac_outcome_t *ref, const jac_outcome_t *run,
                                uint64_t *mismatches_out, uint64_t *first_bad, float *first_pair,
                                double *norm_diff, int *verified)
{
    const int nx = j->opts.nx;
    const size_t my_bytes = (size_t)j->rows.count * (size_t)nx * sizeof(jacobi_real_t);
    uint64_t iter_run, iter_ref, bad = 0, total = 0, first = UINT64_MAX, global_first;
    jacobi_ctl_t ctl;
    shardtab_status_t status;
    float pair[2] = {0, 0};

    /* the latest rows are in a[iterations & 1]; the reference's likewise */
    status = shardtab_memcpy_async(&ctl, j->run.ctl, sizeof ctl, j->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(j->stream);
    iter_run = ctl.iteration;
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(j->result, j->run.a[iter_run & 1], my_bytes, j->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(&ctl, j->ref.ctl, sizeof ctl, j->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(j->stream);
    iter_ref = ctl.iteration;
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(
            j->expected, j->ref.a[iter_ref & 1] + (size_t)(j->rows.start - 1) * nx, my_bytes,
            j->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(j->stream);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS)
        return status;

    corrupt_for_test(j);
    for (size_t i = 0; i < (size_t)j->rows.count * (size_t)nx; i++) {
        /* memcmp, not ==: to the bit, and a NaN never passes */
        if (memcmp(&j->result[i], &j->expected[i], sizeof j->result[i]) != 0 && bad++ == 0) {
            first = (uint64_t)(j->rows.start + (int)(i / (size_t)nx)) * (uint64_t)nx + i % (size_t)nx;
            pair[0] = j->result[i];
            pair[1] = j->expected[i];
        }
    }
    MPI_Allreduce(&bad, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&first, &global_first, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    if (total > 0) {
        int owner = first == global_first ? j->rank : j->size, root;
        MPI_Allreduce(&owner, &root, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Bcast(pair, 2, MPI_FLOAT, root, MPI_COMM_WORLD);
    }
    *mismatches_out = total;
    *first_bad = global_first;
    first_pair[0] = pair[0];
    first_pair[1] = pair[1];
    *norm_diff = fabs(run->norm - ref->norm) / (ref->norm > 0 ? ref->norm : 1.0);
    *verified = total == 0 && run->iterations == ref->iterations &&
                run->norm_iter == ref->norm_iter && *norm_diff <= JACOBI_NORM_REL_TOL;
    return SHARDTAB_SUCCESS;
}

/* The run's last line: the verdict. */
static void print_verdict(const jac_t *j, const jac_outcome_t *ref, const jac_outcome_t *run,
                          uint64_t total, uint64_t first, const float *pair, double norm_diff,
                          int verified, int cpu_ok)
{
    const uint64_t nx = (uint64_t)j->opts.nx, points = (uint64_t)(j->opts.ny - 2) * nx;

    if (j->rank != 0)
        return;
    if (!cpu_ok)
        printf("# verify jacobi: FAILED (the 1-GPU reference differs from the CPU loop; "
               "%" PRIu64 " of %" PRIu64 " points of the distributed run differ from it)\n",
               total, points);
    else if (verified)
        printf("# verify jacobi: OK (%" PRIu64 " points bit-exact against the 1-GPU reference, "
               "%" PRIu64 " iterations each, norm %.9e vs %.9e at iteration %" PRIu64
               ", relative difference %.1e <= %.0e)\n",
               points, run->iterations, run->norm, ref->norm, run->norm_iter, norm_diff,
               JACOBI_NORM_REL_TOL);
    else if (total > 0)
        printf("# verify jacobi: FAILED (%" PRIu64 " of %" PRIu64 " points differ, the first at "
               "row %" PRIu64 " column %" PRIu64 ": %.9g, reference %.9g; %" PRIu64
               " iterations, reference %" PRIu64 ")\n",
               total, points, first / nx, first % nx, (double)pair[0], (double)pair[1],
               run->iterations, ref->iterations);
    else
        printf("# verify jacobi: FAILED (every point bit-exact, but %" PRIu64 " iterations vs %"
               PRIu64 " of the reference, or the norm %.9e at iteration %" PRIu64 " vs %.9e at %"
               PRIu64 ": relative difference %.1e, tolerance %.0e)\n",
               run->iterations, ref->iterations, run->norm, run->norm_iter, ref->norm,
               ref->norm_iter, norm_diff, JACOBI_NORM_REL_TOL);
    fflush(stdout);
}

/* ---- main ---------------------------------------------------------------------- */

/* Host memory a rank needs: the reference's starting grid, its rows' result
 * and reference, its own starting rows, staging. Refused up front when the
 * node cannot hold it for every rank on it. */
static shardtab_status_t check_host_memory(const jac_t *j, int ranks_on_node)
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

static shardtab_status_t allocate_host(jac_t *j)
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
        return no_memory("host rows", 2 * mine + 4 * row);
    return SHARDTAB_SUCCESS;
}

static void free_host(jac_t *j)
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
static shardtab_status_t release(jac_t *j)
{
    shardtab_status_t first = shardtab_stream_synchronize(j->stream), s;

    jacobi_graph_release();
    if (j->table && (s = shardtab_destroy(&j->table)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    if ((s = solver_free(&j->run)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    if ((s = solver_free(&j->ref)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
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

int main(int argc, char **argv)
{
    shardtab_init_params_t init = {0};
    shardtab_create_params_t params = {0};
    shardtab_status_t status;
    jac_t j;
    jac_rank_line_t *lines = NULL;
    jac_outcome_t ref = {0}, run = {0};
    double *ref_t = NULL, *run_t = NULL, ref_median = 0, run_median = 0, norm_diff = 0;
    uint64_t mismatches = 0, first_bad = UINT64_MAX;
    float bad_pair[2] = {0, 0};
    app_outfile_t json = {0};
    char err[256];
    int verified = 0, exit_code = 0, ranks_on_node = 1, have_json = 0;
    MPI_Comm node;

    memset(&j, 0, sizeof j);
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
        say_error(j.rank, shardtab_last_error());
        app_outfile_discard(&json);
        MPI_Finalize();
        return exit_code_for(status);
    }
    j.top = jacobi_top(j.size, j.rank);
    j.bottom = jacobi_bottom(j.size, j.rank);
    j.skip_signal = skip_signal_for_test(j.rank);
    ref_t = calloc((size_t)j.opts.repeat, sizeof *ref_t);
    run_t = calloc((size_t)j.opts.repeat, sizeof *run_t);
    ref.history = calloc((size_t)(j.opts.niter / 100 + 1), sizeof(double));
    run.history = calloc((size_t)(j.opts.niter / 100 + 1), sizeof(double));

    /* ---- device, stream, buffers, table ---- */
    init.allow_shared_device = j.opts.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &init);
    if (status != SHARDTAB_SUCCESS) {
        say_error(j.rank, shardtab_last_error());
        app_outfile_discard(&json);
        MPI_Finalize();
        return exit_code_for(status);
    }
    if (!ref_t || !run_t || !ref.history || !run.history)
        status = no_memory("timings", (size_t)j.opts.repeat * sizeof(double));
    if (status == SHARDTAB_SUCCESS)
        status = kernel_check(jacobi_stream_create(&j.stream), "creating a stream");
    if (status == SHARDTAB_SUCCESS)
        status = allocate_host(&j);
    if (status == SHARDTAB_SUCCESS)
        status = solver_alloc(&j.run, j.opts.nx, j.opts.ny, j.rows.start, j.rows.count,
                              j.opts.niter, 1);
    if (status == SHARDTAB_SUCCESS)
        status = solver_alloc(&j.ref, j.opts.nx, j.opts.ny, 1, j.opts.ny - 2, j.opts.niter, 0);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS) {
        /* the shards are the halo buffers: what a neighbour writes into */
        params.stream = j.stream;
        params.signal_slots = JACOBI_SIGNAL_SLOTS(j.size); /* the same on every rank */
        params.alignment = 16;                            /* the kernel's 16-byte accesses */
        status = shardtab_create_with(MPI_COMM_WORLD, j.run.halo,
                                      4 * (size_t)j.opts.nx * sizeof(jacobi_real_t), &params,
                                      &j.table);
    }
    if (status == SHARDTAB_SUCCESS) {
        shardtab_device_info_t info;
        shardtab_device_info(&info);
        j.mpi_direct = info.backend == SHARDTAB_BACKEND_HOST ||
                       app_mpi_gpu_aware(shardtab_backend_name(info.backend));
        status = shardtab_agree(MPI_COMM_WORLD, wire_edges(&j));
    }
    if (status == SHARDTAB_SUCCESS) {
        wire_reference(&j.ref, j.opts.nccheck);
        status = shardtab_agree(MPI_COMM_WORLD, solver_start(&j.run, j.stream));
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(MPI_COMM_WORLD, solver_start(&j.ref, j.stream));
    if (status == SHARDTAB_SUCCESS) {
        j.nodes = shardtab_node_count(j.table);
        status = print_header(&j, &lines);
    }

    /* ---- the 1-GPU reference, on every rank's own device at once ---- */
    if (status == SHARDTAB_SUCCESS) {
        int warm = j.opts.niter < JACOBI_WARMUP_ITERS ? j.opts.niter : JACOBI_WARMUP_ITERS;
        status = solve(&j, &j.ref, 0, warm, &ref);
        for (int i = 0; i < j.opts.repeat && status == SHARDTAB_SUCCESS; i++) {
            status = solve(&j, &j.ref, 0, j.opts.niter, &ref);
            ref_t[i] = ref.seconds;
        }
        status = shardtab_agree(MPI_COMM_WORLD, status);
    }
    /* ---- a CPU loop checks the reference on small grids ---- */
    int cpu_checked = 0, cpu_ok = 1;
    if (status == SHARDTAB_SUCCESS) {
        status = shardtab_agree(MPI_COMM_WORLD, cpu_check(&j, &ref, &cpu_checked, &cpu_ok));
        MPI_Bcast(&cpu_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    /* ---- the distributed solve ---- */
    if (status == SHARDTAB_SUCCESS) {
        int warm = j.opts.niter < JACOBI_WARMUP_ITERS ? j.opts.niter : JACOBI_WARMUP_ITERS;
        status = solve(&j, &j.run, 1, warm, &run);
        for (int i = 0; i < j.opts.repeat && status == SHARDTAB_SUCCESS; i++) {
            double slowest;
            status = solve(&j, &j.run, 1, j.opts.niter, &run);
            MPI_Allreduce(&run.seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            run_t[i] = slowest;
        }
    }
    if (status == SHARDTAB_SUCCESS) {
        double *sorted = malloc(2 * (size_t)j.opts.repeat * sizeof *sorted);
        if (sorted) {
            memcpy(sorted, ref_t, (size_t)j.opts.repeat * sizeof *sorted);
            memcpy(sorted + j.opts.repeat, run_t, (size_t)j.opts.repeat * sizeof *sorted);
            /* rank 0's reference time, as the anchors report theirs */
            ref_median = median(sorted, j.opts.repeat);
            run_median = median(sorted + j.opts.repeat, j.opts.repeat);
            free(sorted);
        }
        MPI_Bcast(&ref_median, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        print_norms(&j, &ref, &run);
        status = verify(&j, &ref, &run, &mismatches, &first_bad, bad_pair, &norm_diff, &verified);
        if (!cpu_ok)
            verified = 0;
    }
    if (status == SHARDTAB_SUCCESS && j.rank == 0) {
        printf("# 1 GPU reference: %" PRIu64 " iterations, %.6f s (median of %d); %d GPUs, "
               "variant %s: %" PRIu64 " iterations, %.6f s (median of %d)\n",
               ref.iterations, ref_median, j.opts.repeat, j.size,
               jacobi_variant_name(j.opts.variant), run.iterations, run_median, j.opts.repeat);
        /* the anchors' summary line, nx before ny */
        printf("%dx%d: 1 GPU: %8.4f s, %d GPUs: %8.4f s, speedup: %8.2f, efficiency: %8.2f\n",
               j.opts.nx, j.opts.ny, ref_median, j.size, run_median,
               run_median > 0 ? ref_median / run_median : 0.0,
               run_median > 0 ? ref_median / (j.size * run_median) * 100 : 0.0);
        fflush(stdout);
    }
    if (status == SHARDTAB_SUCCESS) /* the last line */
        print_verdict(&j, &ref, &run, mismatches, first_bad, bad_pair, norm_diff, verified, cpu_ok);

    /* ---- teardown: a leaked mapping is a failed run too ---- */
    {
        shardtab_status_t released = shardtab_agree(MPI_COMM_WORLD, release(&j));
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    if (status != SHARDTAB_SUCCESS) {
        say_error(j.rank, shardtab_last_error());
        exit_code = exit_code_for(status);
    } else if (!verified) {
        exit_code = 1;
    }
    if (have_json) {
        if (status == SHARDTAB_SUCCESS) {
            write_json(&j, &json, lines, &ref, &run, ref_t, run_t, ref_median, run_median,
                       mismatches, norm_diff, verified);
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
    free(ref_t);
    free(run_t);
    free(ref.history);
    free(run.history);
    MPI_Finalize();
    return exit_code;
}
