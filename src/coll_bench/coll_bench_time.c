/* coll_bench_time.c - coll_bench's stream side: the calls it times (the
 * all-reduce, MPI_Allreduce, the device copy; on GPUs an empty kernel and a
 * captured graph), the timing loop in nccl-tests' convention, and one size's
 * rows of the table. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll_bench.h"
#include "shardtab.h"

#if defined(SHARDTAB_WITH_GPU)
#  include "gpu_runtime.h"
#  include "latency.h"
#endif

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cb_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, compare_double);
    return t[n / 2];
}

float cb_input(int rank, size_t i)
{
    return (float)(rank + 1) + (float)(i % 13) * 0.25f;
}

shardtab_status_t cb_fill(float *host, float *shard, size_t count, int rank)
{
    for (size_t i = 0; i < count; i++)
        host[i] = cb_input(rank, i);
    return count ? shardtab_memcpy_to_device(shard, host, count * sizeof *host) : SHARDTAB_SUCCESS;
}

long long cb_wrong(const float *got, size_t count, int size)
{
    long long bad = 0;
    for (size_t i = 0; i < count; i++) {
        float want = 0.0f;
        for (int r = 0; r < size; r++)
            want += cb_input(r, i);
        bad += got[i] != want;
    }
    return bad;
}

shardtab_status_t cb_call_all_reduce(void *p)
{
    cb_ctx_t *c = p;
    return shardtab_all_reduce(c->table, (shardtab_op_t)c->op, SHARDTAB_FLOAT, 0, c->count,
                               c->stream);
}

shardtab_status_t cb_call_mpi(void *p)
{
    cb_ctx_t *c = p;
    return MPI_Allreduce(MPI_IN_PLACE, c->host, (int)c->count, MPI_FLOAT, MPI_SUM,
                         MPI_COMM_WORLD) == MPI_SUCCESS
               ? SHARDTAB_SUCCESS
               : shardtab_error_set(SHARDTAB_ERR_MPI, "MPI_Allreduce failed");
}

shardtab_status_t cb_call_copy(void *p)
{
    cb_ctx_t *c = p;
    return shardtab_memcpy_async(c->copy_dst, c->shard, c->count * sizeof(float), c->stream);
}

#if defined(SHARDTAB_WITH_GPU)
static shardtab_status_t call_empty(void *p)
{
    cb_ctx_t *c = p;
    return lat_empty_launch(c->stream) == 0
               ? SHARDTAB_SUCCESS
               : shardtab_error_set(SHARDTAB_ERR_DEVICE, "the empty kernel's launch failed");
}

static shardtab_status_t call_graph(void *p)
{
    cb_ctx_t *c = p;
    return hipGraphLaunch((hipGraphExec_t)c->graph, (hipStream_t)c->stream) == hipSuccess
               ? SHARDTAB_SUCCESS
               : shardtab_error_set(SHARDTAB_ERR_DEVICE, "hipGraphLaunch failed");
}

/* `calls` calls of `call` (the all-reduce, or the empty kernel) captured
 * into one graph; -1 with a reason when the runtime refuses the capture */
static int capture(cb_ctx_t *c, cb_call_t call, int calls, char *why, size_t bytes)
{
    hipGraph_t graph;
    hipGraphExec_t exec;
    hipError_t err = hipStreamBeginCapture((hipStream_t)c->stream, hipStreamCaptureModeThreadLocal);
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int i = 0; i < calls && err == hipSuccess && status == SHARDTAB_SUCCESS; i++)
        status = call(c);
    hipError_t end = hipStreamEndCapture((hipStream_t)c->stream, &graph);
    if (err == hipSuccess)
        err = end;
    if (err == hipSuccess && status == SHARDTAB_SUCCESS)
        err = hipGraphInstantiateWithFlags(&exec, graph, 0);
    if (err != hipSuccess || status != SHARDTAB_SUCCESS) {
        snprintf(why, bytes, "%s",
                 err != hipSuccess ? hipGetErrorString(err) : shardtab_last_error());
        (void)hipGetLastError();
        return -1;
    }
    (void)hipGraphDestroy(graph);
    c->graph = (void *)exec;
    c->graph_calls = calls;
    return 0;
}

/* `call` replayed from a graph of 20 calls, `launches` launches a repeat:
 * the median seconds a call, where every rank could capture the graph
 * (*all_ok 0; else why, this rank's reason or empty). Collective. */
static shardtab_status_t time_graph(cb_ctx_t *c, cb_call_t call, int launches, int repeats,
                                    double *seconds, int *all_ok, char *why, size_t bytes)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    int ok = capture(c, call, 20, why, bytes);

    MPI_Allreduce(&ok, all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (*all_ok == 0)
        status = cb_time_call(c, call_graph, launches, repeats, 20, seconds);
    if (ok == 0)
        (void)hipGraphExecDestroy((hipGraphExec_t)c->graph);
    return status;
}

/* The all-reduce of `bytes` replayed from a graph (to 64 KiB); rank 0
 * prints its row, or why there is none. */
static shardtab_status_t graph_row(cb_ctx_t *c, const cb_options_t *o, size_t bytes, int iters,
                                   int rank)
{
    char why[160] = "";
    double seconds = 0;
    int all_ok = 0;
    shardtab_status_t status = time_graph(c, cb_call_all_reduce, iters / 10 + 1, o->repeats,
                                          &seconds, &all_ok, why, sizeof why);

    if (status == SHARDTAB_SUCCESS && rank == 0) {
        if (all_ok == 0)
            printf("  %10zu %11zu %6s %5s %9s %10.2f %8s %8s %7s   (20 calls a graph)\n", bytes,
                   bytes / sizeof(float), "float", "sum", "graph", seconds * 1e6, "", "", "-");
        else
            printf("# %zu B: no graph (%s)\n", bytes, why);
    }
    return status;
}
#endif

shardtab_status_t cb_time_call(cb_ctx_t *c, cb_call_t call, int iters, int repeats, int per_launch,
                               double *seconds)
{
    double t[64];
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int w = 0; w < 3 && status == SHARDTAB_SUCCESS; w++)
        status = call(c);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(c->stream);
    for (int r = 0; r < repeats && status == SHARDTAB_SUCCESS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), mine;
        for (int i = 0; i < iters && status == SHARDTAB_SUCCESS; i++)
            status = call(c);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(c->stream);
        mine = (MPI_Wtime() - t0) / ((double)iters * per_launch);
        MPI_Allreduce(&mine, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(c->table);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS)
        *seconds = cb_median(t, repeats);
    return status;
}

/* ---- one size, and the launch floor -------------------------------------------------- */

/* A size's rows: the plain sum by each algorithm, then the exact sum by the
 * automatic choice and, up to 64 KiB (where that choice is one block, or near
 * its limit), by one-shot. algo NULL: the automatic choice, which the caller's
 * SHARDTAB_ALL_REDUCE_ALGO steers. */
static const struct cb_row {
    const char *algo;
    shardtab_op_t op;
    int small_only; /* up to 64 KiB only */
} cb_rows[] = {
    {NULL, SHARDTAB_SUM, 0},       {"one-block", SHARDTAB_SUM, 1},
    {"one-shot", SHARDTAB_SUM, 0}, {"two-shot", SHARDTAB_SUM, 0},
    {NULL, SHARDTAB_SUM_EXACT, 0}, {"one-shot", SHARDTAB_SUM_EXACT, 1},
};

shardtab_status_t cb_stream_size(cb_ctx_t *c, const cb_options_t *o, size_t bytes, int rank,
                                 int size, int *code)
{
    const size_t count = bytes / sizeof(float);
    const int iters = bytes <= (1u << 20) ? 100 : bytes <= (64u << 20) ? 20 : 5;
    /* the caller's SHARDTAB_ALL_REDUCE_ALGO: what the rows by the automatic choice run */
    const char *given = getenv("SHARDTAB_ALL_REDUCE_ALGO");
    char callers[256];
    double mpi = 0, copy = 0;
    shardtab_status_t status;

    if (given != NULL)
        snprintf(callers, sizeof callers, "%s", given);

    c->count = count;
    status = cb_fill(c->host, c->shard, count, rank);
    if (status == SHARDTAB_SUCCESS)
        status = cb_time_call(c, cb_call_mpi, iters, o->repeats, 1, &mpi);
    if (status == SHARDTAB_SUCCESS)
        status = cb_time_call(c, cb_call_copy, iters, o->repeats, 1, &copy);
    for (size_t a = 0; a < sizeof cb_rows / sizeof *cb_rows && status == SHARDTAB_SUCCESS; a++) {
        const struct cb_row *row = &cb_rows[a];
        double seconds = 0;
        long long bad = 0;
        if (row->small_only && bytes > ((size_t)64 << 10))
            continue;
        if (row->algo != NULL)
            setenv("SHARDTAB_ALL_REDUCE_ALGO", row->algo, 1);
        c->op = row->op;
        status = cb_time_call(c, cb_call_all_reduce, iters, o->repeats, 1, &seconds);
        /* then one call on fresh inputs, every element checked */
        if (status == SHARDTAB_SUCCESS)
            status = cb_fill(c->host, c->shard, count, rank);
        if (status == SHARDTAB_SUCCESS)
            status = cb_call_all_reduce(c);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(c->stream);
        if (status == SHARDTAB_SUCCESS && count)
            status = shardtab_memcpy_to_host(c->host, c->shard, bytes);
        if (status == SHARDTAB_SUCCESS)
            bad = cb_wrong(c->host, count, size);
        if (given != NULL)
            setenv("SHARDTAB_ALL_REDUCE_ALGO", callers, 1);
        else
            unsetenv("SHARDTAB_ALL_REDUCE_ALGO");
        long long total = 0;
        MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        status = shardtab_agree(MPI_COMM_WORLD, status);
        if (status == SHARDTAB_SUCCESS && total != 0)
            *code = 1;
        if (status == SHARDTAB_SUCCESS && rank == 0) {
            double algbw = (double)bytes / seconds / 1e9;
            printf("  %10zu %11zu %6s %5s %9s %10.2f %8.2f %8.2f %7lld %10.2f %9.1f\n", bytes,
                   count, "float", row->op == SHARDTAB_SUM_EXACT ? "exact" : "sum",
                   row->algo != NULL ? row->algo : "auto", seconds * 1e6, algbw,
                   algbw * 2.0 * (size - 1) / size, total, mpi * 1e6, (double)bytes / copy / 1e9);
            fflush(stdout);
        }
        if (status == SHARDTAB_SUCCESS)
            status = cb_fill(c->host, c->shard, count, rank);
    }
    c->op = SHARDTAB_SUM;
#if defined(SHARDTAB_WITH_GPU)
    if (status == SHARDTAB_SUCCESS && bytes <= ((size_t)64 << 10))
        status = graph_row(c, o, bytes, iters, rank);
#endif
    return status;
}

shardtab_status_t cb_launch_floor(cb_ctx_t *c, const cb_options_t *o, int rank)
{
#if defined(SHARDTAB_WITH_GPU)
    char why[160] = "";
    double eager = 0, graphed = 0;
    int all_ok = 0;
    shardtab_status_t status = cb_time_call(c, call_empty, 100, o->repeats, 1, &eager);

    if (status == SHARDTAB_SUCCESS)
        status = time_graph(c, call_empty, 11, o->repeats, &graphed, &all_ok, why, sizeof why);
    if (status == SHARDTAB_SUCCESS && rank == 0) {
        if (all_ok == 0)
            printf("# launch floor: an empty kernel of one block on the stream, %.2f us a "
                   "launch, %.2f us in a graph of 20\n",
                   eager * 1e6, graphed * 1e6);
        else
            printf("# launch floor: an empty kernel, %.2f us a launch; no graph (%s)\n",
                   eager * 1e6, why);
    }
    return status;
#else
    (void)c, (void)o, (void)rank;
    return SHARDTAB_SUCCESS;
#endif
}
