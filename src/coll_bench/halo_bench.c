/* halo_bench.c - the halo exchange (shardtab_halo.h) timed beside what moves the same bytes
 * otherwise, every exchange verified.
 *
 * PURPOSE  For each face shape (2-D faces of 4096 and 16384 doubles with ghost widths 1
 *          and 4, a 3-D face of 256 x 256 doubles; --small: 64 doubles; --latency: 64, 256,
 *          1024, 2048 and 4096 doubles), on a periodic
 *          column of ranks (each rank's two neighbours across its faces): the
 *          stream-ordered exchange (shardtab_halo_exchange), the device-side one
 *          (shardtab_halo_exchange_block, `--device-iters` in one kernel of one block;
 *          --device-blocks N: a cooperative grid of N, shardtab_halo_exchange_blocks),
 *          the copy engines moving the same two faces from the neighbours' shards
 *          (shardtab_memcpy_async through the table's mappings, no sync between ranks),
 *          and host-staged MPI (the two edge faces to the host, MPI_Sendrecv with both
 *          neighbours, the two ghost faces back). The ghost faces are compared with the
 *          neighbours' cells after the stream-ordered and the device-side exchanges.
 * USAGE    mpirun -np <ranks> halo_bench [--repeats R] [--iters N] [--device-iters N]
 *                 [--device-blocks N] [--small] [--latency] [--allow-shared-gpu]
 * NOTES    Stream side: warm-up calls first, then R repeats, each after an MPI_Barrier,
 *          of N calls back to back with the stream drained at the end; a repeat's time
 *          per call is the max over ranks; the median of the repeats is printed.
 *          Device side: one kernel of `--device-iters` exchanges, its time / iters,
 *          the slowest rank's, the median of R. Bytes are those one rank receives an
 *          exchange (two faces); ratios are to the copy engines' time. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "halo_device.h"
#include "job.h"
#include "opt_table.h"
#include "shardtab.h"
#include "shardtab_halo.h"

#if defined(SHARDTAB_WITH_GPU)
#  include "gpu_runtime.h"
#endif

typedef struct hb_options {
    int repeats, iters, device_iters, device_blocks, small, latency, allow_shared_gpu;
} hb_options_t;

#define FIELD(member) APP_OPT_FIELD(hb_options_t, member)
static const app_opt_t option_rows[] = {
    APP_OPT_INT_ROW("repeats", 0, NULL, "R", FIELD(repeats), 1, 64,
                    "timed repeats of each shape, the median reported (default 7)"),
    APP_OPT_INT_ROW("iters", 0, NULL, "N", FIELD(iters), 1, 100000,
                    "stream-side calls a repeat (default 200)"),
    APP_OPT_INT_ROW("device-iters", 0, NULL, "N", FIELD(device_iters), 1, 1000000,
                    "device-side exchanges in one kernel (default 1000)"),
    APP_OPT_INT_ROW("device-blocks", 0, NULL, "N", FIELD(device_blocks), 1, 64,
                    "the device-side kernel's blocks, sharing each exchange (default 1)"),
    APP_OPT_FLAG_ROW("small", 0, FIELD(small), "faces of 64 doubles (a quick check)"),
    APP_OPT_FLAG_ROW("latency", 0, FIELD(latency), "faces of 64 to 4096 doubles, w 1"),
    APP_OPT_FLAG_ROW("allow-shared-gpu", 0, FIELD(allow_shared_gpu), "let ranks share a device"),
    APP_OPT_HELP_ROW("this text"),
    APP_OPT_VERSION_ROW("the version of halo_bench and of the library"),
};
static const app_opt_table_t option_table = APP_OPT_TABLE(
    option_rows, hb_options_t, NULL, 0, 23, NULL,
    "Usage: mpirun -np <ranks> halo_bench [options]\n"
    "The halo exchange timed on a periodic column of ranks, every exchange verified:\n"
    "stream-ordered and device-side, beside the copy engines moving the same faces and\n"
    "host-staged MPI (time in us per exchange, the median of --repeats).\n",
    "Exit status: 0 every exchange verified, 1 a wrong cell or a runtime failure, 2 bad\n"
    "usage.\n");

/* A face shape: cells across the face, its ghost width, 2-D or 3-D. */
typedef struct hb_shape {
    const char *name;
    int dims;
    size_t face, ghost;
} hb_shape_t;

typedef struct hb_run {
    int rank, size;
    const hb_options_t *o;
    shardtab_t *table;
    shardtab_halo_t *halo;
    double *shard, *host;
    void *stream;
    size_t face, ghost, depth,
        bytes;    /* cells a face, its width, interior rows, the array's bytes */
    int up, down; /* comm ranks of the neighbours */
} hb_run_t;

static double value_of(int rank, size_t i)
{
    return (double)rank * 1e6 + (double)(i % 999983) * 0.25 + 0.125;
}

/* ---- the timed calls ------------------------------------------------------------------- */

typedef shardtab_status_t (*hb_call_t)(hb_run_t *r);

static shardtab_status_t call_exchange(hb_run_t *r)
{
    return shardtab_halo_exchange(r->halo, r->stream);
}

/* the two ghost faces from the neighbours' edge faces, by the copy engines */
static shardtab_status_t call_copy(hb_run_t *r)
{
    const size_t face_bytes = r->face * r->ghost * sizeof(double);
    void *up_base = NULL, *down_base = NULL;
    size_t up_bytes, down_bytes;
    shardtab_status_t status = shardtab_peer(r->table, r->up, &up_base, &up_bytes);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_peer(r->table, r->down, &down_base, &down_bytes);
    if (status != SHARDTAB_SUCCESS)
        return status;
    /* low ghosts <- the lower neighbour's top interior; high ghosts <- the upper's bottom */
    const double *down_top = (const double *)down_base + r->face * r->depth;
    const double *up_bottom = (const double *)up_base + r->face * r->ghost;
    status = shardtab_memcpy_async(r->shard, down_top, face_bytes, r->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(r->shard + r->face * (r->ghost + r->depth), up_bottom,
                                       face_bytes, r->stream);
    return status;
}

/* the edge faces to the host, MPI with both neighbours, the ghost faces back */
static shardtab_status_t call_mpi(hb_run_t *r)
{
    const size_t cells = r->face * r->ghost, face_bytes = cells * sizeof(double);
    double *send_low = r->host, *send_high = r->host + cells, *recv_low = r->host + 2 * cells,
           *recv_high = r->host + 3 * cells;
    shardtab_status_t status =
        shardtab_memcpy_async(send_low, r->shard + r->face * r->ghost, face_bytes, r->stream);
    if (status == SHARDTAB_SUCCESS)
        status =
            shardtab_memcpy_async(send_high, r->shard + r->face * r->depth, face_bytes, r->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(r->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mpi_check(MPI_Sendrecv(send_high, (int)cells, MPI_DOUBLE, r->up, 1,
                                                 recv_low, (int)cells, MPI_DOUBLE, r->down, 1,
                                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                                    "MPI_Sendrecv");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mpi_check(MPI_Sendrecv(send_low, (int)cells, MPI_DOUBLE, r->down, 2,
                                                 recv_high, (int)cells, MPI_DOUBLE, r->up, 2,
                                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                                    "MPI_Sendrecv");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(r->shard, recv_low, face_bytes, r->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(r->shard + r->face * (r->ghost + r->depth), recv_high,
                                       face_bytes, r->stream);
    return status;
}

static shardtab_status_t call_device(hb_run_t *r)
{
    shardtab_signals_t sig;
    shardtab_halo_device_t dev;
    shardtab_status_t status = shardtab_signals(r->table, &sig);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_halo_device(r->halo, &dev);
    const int launched = status == SHARDTAB_SUCCESS
                             ? halo_device_exchanges(&sig, &dev, r->o->device_iters,
                                                     r->o->device_blocks, NULL, r->stream)
                             : 0;
    if (launched != 0)
        status = shardtab_error_set(SHARDTAB_ERR_DEVICE,
                                    "launch of the device-side exchanges failed (runtime error %d)",
                                    launched);
    return status;
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median over repeats of the slowest rank's seconds per call (a call: `per` of them). */
static shardtab_status_t time_call(hb_run_t *r, hb_call_t call, int iters, int per, double *out)
{
    double t[64];
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int w = 0; w < 3 && status == SHARDTAB_SUCCESS; w++) /* warm-up */
        status = call(r);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(r->stream);
    for (int k = 0; k < r->o->repeats && status == SHARDTAB_SUCCESS; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int i = 0; i < iters && status == SHARDTAB_SUCCESS; i++)
            status = call(r);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(r->stream);
        double mine = (MPI_Wtime() - t0) / ((double)iters * per);
        MPI_Allreduce(&mine, &t[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(r->table);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    qsort(t, (size_t)r->o->repeats, sizeof t[0], compare_double);
    *out = t[r->o->repeats / 2];
    return status;
}

/* ---- one shape ----------------------------------------------------------------------- */

/* the interior filled, the ghosts cleared */
static shardtab_status_t fill(hb_run_t *r)
{
    const size_t cells = r->bytes / sizeof(double);
    for (size_t i = 0; i < cells; i++)
        r->host[i] = value_of(r->rank, i);
    memset(r->host, 0, r->face * r->ghost * sizeof(double));
    memset(r->host + r->face * (r->ghost + r->depth), 0, r->face * r->ghost * sizeof(double));
    shardtab_status_t status = shardtab_memcpy_to_device(r->shard, r->host, r->bytes);
    return shardtab_agree(MPI_COMM_WORLD, status);
}

/* ghost cells that differ from the neighbours' cells */
static shardtab_status_t check(hb_run_t *r, long long *wrong)
{
    const size_t cells = r->face * r->ghost;
    shardtab_status_t status = shardtab_memcpy_to_host(r->host, r->shard, r->bytes);
    long long mine = 0, all = 0;

    for (size_t i = 0; i < cells && status == SHARDTAB_SUCCESS; i++) {
        mine += r->host[i] != value_of(r->down, r->face * r->depth + i);
        mine += r->host[r->face * (r->ghost + r->depth) + i] != value_of(r->up, cells + i);
    }
    status = shardtab_agree(MPI_COMM_WORLD, status);
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    *wrong += all;
    return status;
}

static shardtab_status_t run_shape(hb_run_t *r, const hb_shape_t *s, long long *wrong_total)
{
    shardtab_halo_params_t p;
    double t_stream = 0, t_device = 0, t_copy = 0, t_mpi = 0;
    long long wrong = 0;

    memset(&p, 0, sizeof p);
    r->face = s->face;
    r->ghost = s->ghost;
    r->depth = s->ghost > 8 ? s->ghost : 8;
    r->bytes = r->face * (r->depth + 2 * r->ghost) * sizeof(double);
    p.dims = s->dims;
    p.elem_bytes = sizeof(double);
    if (s->dims == 2) { /* rows of `face` cells, the ranks a column */
        p.grid[0] = 1, p.grid[1] = r->size;
        p.block[0] = r->face, p.block[1] = r->depth;
        p.ghost[1] = r->ghost;
        p.periodic[1] = 1;
    } else { /* planes of 256 x 256 */
        p.grid[0] = p.grid[1] = 1, p.grid[2] = r->size;
        p.block[0] = 256, p.block[1] = r->face / 256, p.block[2] = r->depth;
        p.ghost[2] = r->ghost;
        p.periodic[2] = 1;
    }
    shardtab_status_t status = shardtab_halo_create(r->table, &p, &r->halo);
    r->up = (r->rank + 1) % r->size;
    r->down = (r->rank + r->size - 1) % r->size;
    if (status == SHARDTAB_SUCCESS)
        status = fill(r);
    if (status == SHARDTAB_SUCCESS)
        status = time_call(r, call_exchange, r->o->iters, 1, &t_stream);
    if (status == SHARDTAB_SUCCESS)
        status = check(r, &wrong);
    if (status == SHARDTAB_SUCCESS)
        status = fill(r);
    if (status == SHARDTAB_SUCCESS)
        status = time_call(r, call_device, 1, r->o->device_iters, &t_device);
    if (status == SHARDTAB_SUCCESS)
        status = check(r, &wrong);
    if (status == SHARDTAB_SUCCESS)
        status = time_call(r, call_copy, r->o->iters, 1, &t_copy);
    if (status == SHARDTAB_SUCCESS)
        status = time_call(r, call_mpi, r->o->iters, 1, &t_mpi);
    if (r->halo != NULL) {
        shardtab_status_t destroyed = shardtab_halo_destroy(&r->halo);
        status = status != SHARDTAB_SUCCESS ? status : destroyed;
    }
    if (status == SHARDTAB_SUCCESS && r->rank == 0)
        printf("  %-15s %10zu %10.2f %10.2f %10.2f %10.2f %8.2f %8.2f %7lld\n", s->name,
               2 * r->face * r->ghost * sizeof(double), t_stream * 1e6, t_device * 1e6,
               t_copy * 1e6, t_mpi * 1e6, t_stream / t_copy, t_device / t_copy, wrong);
    *wrong_total += wrong;
    return status;
}

int main(int argc, char **argv)
{
    static const hb_shape_t shapes[] = {
        {"2d 4096 w1", 2, 4096, 1},   {"2d 4096 w4", 2, 4096, 4},     {"2d 16384 w1", 2, 16384, 1},
        {"2d 16384 w4", 2, 16384, 4}, {"3d 256x256 w1", 3, 65536, 1},
    };
    static const hb_shape_t small = {"2d 64 w1", 2, 64, 1};
    static const hb_shape_t latency[] = {
        {"2d 64 w1", 2, 64, 1},     {"2d 256 w1", 2, 256, 1},   {"2d 1024 w1", 2, 1024, 1},
        {"2d 2048 w1", 2, 2048, 1}, {"2d 4096 w1", 2, 4096, 1},
    };
    shardtab_init_params_t init = {0};
    hb_options_t o = {7, 200, 1000, 1, 0, 0, 0};
    hb_run_t r;
    char err[200];
    long long wrong = 0;
    int code = 0;

    memset(&r, 0, sizeof r);
    r.o = &o;
    app_job_start(&argc, &argv, "halo_bench", &r.rank, &r.size);
    const app_opt_parse_t parsed = app_opt_parse(&option_table, argc, argv, &o, err, sizeof err);
    if (parsed == APP_OPT_PARSE_ERROR) {
        app_say_error("halo_bench", r.rank, err);
        return app_job_end(app_exit_status(1));
    }
    if (parsed != APP_OPT_PARSE_OK) {
        if (parsed == APP_OPT_PARSE_HELP && r.rank == 0)
            fputs(app_opt_usage_text(&option_table), stdout);
        if (parsed == APP_OPT_PARSE_VERSION)
            app_say_version("halo_bench", r.rank);
        return app_job_end(0);
    }
    const size_t most = 65536 * (8 + 2) * sizeof(double); /* the largest shape's array */
    init.allow_shared_device = o.allow_shared_gpu;
    shardtab_status_t status = shardtab_init(MPI_COMM_WORLD, &init);
    r.host = malloc(most);
    if (status == SHARDTAB_SUCCESS && r.host == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of %zu bytes failed", most);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(most, (void **)&r.shard);
#if defined(SHARDTAB_WITH_GPU)
    if (status == SHARDTAB_SUCCESS &&
        hipStreamCreateWithFlags((hipStream_t *)&r.stream, hipStreamNonBlocking) != hipSuccess)
        status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "hipStreamCreateWithFlags failed");
#endif
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS) {
        shardtab_create_params_t params = {0};
        params.stream = r.stream;
        status = shardtab_create_with(MPI_COMM_WORLD, r.shard, most, &params, &r.table);
    }
    if (status == SHARDTAB_SUCCESS && r.rank == 0) {
        shardtab_device_info_t info;
        (void)shardtab_device_info(&info);
        printf("# halo_bench: %d ranks, %d nodes, backend %s, device %s; a periodic column, "
               "median of %d repeats, the slowest rank's time per exchange; device-side by "
               "%d block%s\n",
               r.size, shardtab_node_count(r.table), shardtab_backend_name(info.backend), info.name,
               o.repeats, o.device_blocks, o.device_blocks == 1 ? "" : "s");
        printf("# %-15s %10s %10s %10s %10s %10s %8s %8s %7s\n", "shape", "bytes", "stream(us)",
               "device(us)", "copy(us)", "mpi(us)", "str/copy", "dev/copy", "#wrong");
    }
    const hb_shape_t *list = o.small ? &small : o.latency ? latency : shapes;
    const size_t count = o.small     ? 1
                         : o.latency ? sizeof latency / sizeof latency[0]
                                     : sizeof shapes / sizeof shapes[0];
    for (size_t i = 0; i < count && status == SHARDTAB_SUCCESS; i++)
        status = run_shape(&r, &list[i], &wrong);
    if (status == SHARDTAB_SUCCESS && r.rank == 0)
        printf("# halo_bench: %s\n", wrong == 0 ? "every exchange verified" : "WRONG cells");
    {
        shardtab_status_t s = r.table ? shardtab_destroy(&r.table) : SHARDTAB_SUCCESS;
        if (r.shard)
            (void)shardtab_mem_free(r.shard);
        s = shardtab_agree(MPI_COMM_WORLD, s);
        if (status == SHARDTAB_SUCCESS)
            status = s;
    }
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("halo_bench", r.rank, shardtab_last_error());
        code = app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    } else if (wrong != 0) {
        code = 1;
    }
    free(r.host);
#if defined(SHARDTAB_WITH_GPU)
    if (r.stream)
        (void)hipStreamDestroy((hipStream_t)r.stream);
#endif
    shardtab_finalize();
    return app_job_end(code);
}
