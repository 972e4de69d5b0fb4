/* coll_bench.c - the table's collectives timed: the device-side chain (put with signal, all-reduce) and the stream-ordered all-reduce in nccl-tests' convention, beside MPI_Allreduce and the device copy in the same run.
 *
 * PURPOSE  First the device side, timed inside one kernel: the device-side
 *          all-reduce of one double (shardtab_all_reduce_block), calls back
 *          to back; one thread's dependent loads of device memory at each
 *          order the waits use (a poll's floor); and put with signal
 *          between node ranks 0 and 1 block to
 *          block (a ping-pong, 8 B to 64 KiB: half the round trip), then the
 *          same ping-pong with LL puts (shardtab_put_ll_block and
 *          _wait_ll_block: the flag in every word, no fence), every
 *          result and every byte put checked. Then for each size from --min
 *          to --max bytes (x2 steps), float sum in place:
 *          shardtab_all_reduce with the automatic choice, one-block (to
 *          64 KiB), one-shot and two-shot; MPI_Allreduce on a host buffer of
 *          the same size (this machine's MPI may not be GPU-aware); the copy
 *          engine's device-to-device copy of the same bytes on the same GPU;
 *          and, on GPUs, the all-reduce replayed from a captured graph (to
 *          64 KiB). Each result is verified element by element (#wrong).
 *          On GPUs an empty kernel of one block, eager and in a graph, is
 *          timed first the same way: the launch floor of every stream call.
 * USAGE    mpiexec -n <ranks> ./coll_bench [--min B] [--max B] [--repeats R]
 *                 [--device-iters N] [--allow-shared-gpu] [--help] [--version]
 * NOTES    Device side: a warm-up launch, then one launch of --device-iters
 *          calls (round trips); median, p10 and p90 of the per-call times
 *          that the kernel's clock measured on rank 0 (all-reduce: the
 *          slowest rank's median). Stream side: warm-up calls first; then R repeats, each after an
 *          MPI_Barrier, of `iters` calls back to back, the stream drained at
 *          the end; a repeat's time per call is the max over ranks; the
 *          median of the repeats is printed. algbw = size / time; busbw =
 *          algbw * 2 (n - 1) / n, nccl-tests' all-reduce factor; copy GB/s
 *          counts the bytes copied (read once, written once). Inputs are
 *          (rank + 1) + (i % 13) / 4: sums of them are exact in any order, so
 *          #wrong counts elements that differ from the exact sum (the
 *          rank-order bits are tests/shardtab/comm/stream_check's to prove).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "latency.h"
#include "shardtab.h"

#if defined(SHARDTAB_WITH_GPU)
#  include "gpu_runtime.h"
#endif

typedef struct cb_options {
    size_t min, max;
    int repeats, allow_shared_gpu, device_iters;
} cb_options_t;

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* seconds per call: the median over repeats of the slowest rank's mean */
static double median_of(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, compare_double);
    return t[n / 2];
}

static float input(int rank, size_t i)
{
    return (float)(rank + 1) + (float)(i % 13) * 0.25f;
}

static shardtab_status_t fill(float *host, float *shard, size_t count, int rank)
{
    for (size_t i = 0; i < count; i++)
        host[i] = input(rank, i);
    return count ? shardtab_memcpy_to_device(shard, host, count * sizeof *host) : SHARDTAB_SUCCESS;
}

static long long wrong(const float *got, size_t count, int size)
{
    long long bad = 0;
    for (size_t i = 0; i < count; i++) {
        float want = 0.0f;
        for (int r = 0; r < size; r++)
            want += input(r, i);
        bad += got[i] != want;
    }
    return bad;
}

typedef shardtab_status_t (*cb_call_t)(void *ctx);

typedef struct cb_ctx {
    shardtab_t *table;
    size_t count;
    void *stream;
    float *host, *shard, *copy_dst;
    void *graph; /* GPU: an instantiated graph of `graph_calls` all-reduces */
    int graph_calls;
} cb_ctx_t;

static shardtab_status_t call_all_reduce(void *p)
{
    cb_ctx_t *c = p;
    return shardtab_all_reduce(c->table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, c->count, c->stream);
}

static shardtab_status_t call_mpi(void *p)
{
    cb_ctx_t *c = p;
    return MPI_Allreduce(MPI_IN_PLACE, c->host, (int)c->count, MPI_FLOAT, MPI_SUM,
                         MPI_COMM_WORLD) == MPI_SUCCESS
               ? SHARDTAB_SUCCESS
               : shardtab_error_set(SHARDTAB_ERR_MPI, "MPI_Allreduce failed");
}

static shardtab_status_t call_copy(void *p)
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
#endif

/* The median seconds per call of `call`, `iters` calls a repeat; per_launch
 * divides a launch into that many calls (a graph of several). */
static shardtab_status_t time_call(cb_ctx_t *c, cb_call_t call, int iters, int repeats,
                                   int per_launch, double *seconds)
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
        *seconds = median_of(t, repeats);
    return status;
}

/* ---- the device side: timed inside one kernel ------------------------------------ */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* us[0..2]: median, p10, p90 of n tick counts, each divided by `per` */
static void spread(uint64_t *t, int n, double per, double us[3])
{
    const double scale = 1e6 / lat_clock_hz() / per;
    qsort(t, (size_t)n, sizeof *t, compare_u64);
    us[0] = (double)t[n / 2] * scale;
    us[1] = (double)t[n / 10] * scale;
    us[2] = (double)t[(n * 9) / 10] * scale;
}

/* A launch's end: its runtime code, then the block's SHARDTAB_WAIT_* status
 * (the library says why a wait gave up) */
static shardtab_status_t ended(cb_ctx_t *c, int code, const int *dstatus, const char *what)
{
    int got = 0;
    shardtab_status_t status =
        code == 0
            ? shardtab_stream_synchronize(c->stream)
            : shardtab_error_set(SHARDTAB_ERR_DEVICE, "%s: launch failed (code %d)", what, code);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_host(&got, dstatus, sizeof got);
    if (status == SHARDTAB_SUCCESS && got != 0)
        status = shardtab_signal_check(c->table);
    if (status == SHARDTAB_SUCCESS && got != 0)
        status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "%s: the block ended with status %d", what,
                                    got);
    return status;
}

typedef struct cb_device {
    shardtab_signals_t sig;
    double *in, *out;       /* device: one double; one per call */
    uint64_t *ticks;        /* device: one per call */
    int *status;            /* device: the block's */
    void *block;            /* the allocation the four lie in */
    float *ll_src, *ll_dst; /* device: the LL ping-pong's message, and what it got */
} cb_device_t;

/* The device-side all-reduce of one double, o->device_iters calls in one
 * launch after a warm-up launch (`held`: one claim for the launch); every
 * result checked. */
static shardtab_status_t device_all_reduce(cb_ctx_t *c, cb_device_t *d, int iters, int held,
                                           double us[3], double *slowest)
{
    const int n = shardtab_node_size(c->table), me = shardtab_node_rank(c->table);
    const double mine = 0.25 + me, want = 0.25 * n + 0.5 * n * (n - 1);
    uint64_t *ticks = malloc((size_t)iters * sizeof *ticks);
    double *out = malloc((size_t)iters * sizeof *out);
    shardtab_status_t status =
        ticks && out ? shardtab_memcpy_to_device(d->in, &mine, sizeof mine)
                     : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the timings failed");

    for (int pass = 0; pass < 2 && status == SHARDTAB_SUCCESS; pass++) {
        const int calls = pass == 0 ? iters / 10 + 1 : iters;
        status = shardtab_agree(MPI_COMM_WORLD, status); /* every rank ready: launch together */
        if (status == SHARDTAB_SUCCESS)
            status = ended(c,
                           lat_all_reduce_launch(&d->sig, d->in, d->out, calls, held, d->ticks,
                                                 d->status, c->stream),
                           d->status, "the device-side all-reduce");
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_host(out, d->out, (size_t)calls * sizeof *out);
        for (int i = 0; i < calls && status == SHARDTAB_SUCCESS; i++)
            if (out[i] != want)
                status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                            "device-side all-reduce %d gave %.17g, not %.17g", i,
                                            out[i], want);
        status = shardtab_agree(MPI_COMM_WORLD, status);
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_host(ticks, d->ticks, (size_t)iters * sizeof *ticks);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS) {
        spread(ticks, iters, 1.0, us);
        MPI_Reduce(&us[0], slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    free(ticks);
    free(out);
    return status;
}

/* One thread's dependent loads of device memory (lat_load_chain_launch),
 * each order in turn: ns[how] a load, the median of 5 launches after one of
 * warm-up; every chain checked to end where the ring says. The ring is the
 * first words of d->out. */
static shardtab_status_t device_loads(cb_ctx_t *c, cb_device_t *d, int iters, double ns[3])
{
    enum { RING = 64, RUNS = 5 };
    const int m = iters < RING ? iters : RING, loads = 10000;
    uint64_t ring[RING], got[2];
    double t[RUNS];
    shardtab_status_t status;

    for (int i = 0; i < m; i++)
        ring[i] = (uint64_t)((i + 1) % m);
    status = shardtab_memcpy_to_device(d->out, ring, (size_t)m * sizeof *ring);
    for (int how = 0; how < 3 && status == SHARDTAB_SUCCESS; how++) {
        for (int r = -1; r < RUNS && status == SHARDTAB_SUCCESS; r++) {
            if (lat_load_chain_launch((uint64_t *)d->out, how, loads, d->ticks, c->stream) != 0)
                status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "the load chain's launch failed");
            if (status == SHARDTAB_SUCCESS)
                status = shardtab_stream_synchronize(c->stream);
            if (status == SHARDTAB_SUCCESS)
                status = shardtab_memcpy_to_host(got, d->ticks, sizeof got);
            if (status == SHARDTAB_SUCCESS && got[1] != (uint64_t)(loads % m))
                status =
                    shardtab_error_set(SHARDTAB_ERR_VERIFY, "the load chain ended at %llu, not %d",
                                       (unsigned long long)got[1], loads % m);
            if (r >= 0)
                t[r] = (double)got[0] / lat_clock_hz() * 1e9 / loads;
        }
        if (status == SHARDTAB_SUCCESS)
            ns[how] = median_of(t, RUNS);
    }
    return status;
}

/* A ping-pong's end, on every rank: what node ranks 0 and 1 (`runs`) got at
 * `got` (device memory, `bytes`) against what the other put; rank 0's round
 * trips into us (half of each); the floats that differ, summed over the
 * ranks, into *wrong_out. `status` is the ping-pong's so far. */
static shardtab_status_t pingpong_tally(cb_ctx_t *c, cb_device_t *d, const void *got, int runs,
                                        size_t bytes, int iters, uint64_t *ticks,
                                        shardtab_status_t status, double us[3],
                                        long long *wrong_out)
{
    const int me = shardtab_node_rank(c->table);
    long long bad = 0;

    if (status == SHARDTAB_SUCCESS && runs)
        status = shardtab_memcpy_to_host(c->host, got, bytes);
    for (size_t i = 0; status == SHARDTAB_SUCCESS && runs && i < bytes / sizeof(float); i++)
        bad += c->host[i] != input(1 - me, i);
    if (status == SHARDTAB_SUCCESS && me == 0)
        status = shardtab_memcpy_to_host(ticks, d->ticks, (size_t)iters * sizeof *ticks);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS) {
        if (me == 0)
            spread(ticks, iters, 2.0, us);
        MPI_Allreduce(&bad, wrong_out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
    return status;
}

/* Put with signal between node ranks 0 and 1, `bytes` each way, iters round
 * trips; on return *wrong counts the bytes (as floats) that did not arrive. */
static shardtab_status_t device_pingpong(cb_ctx_t *c, cb_device_t *d, size_t bytes, size_t half,
                                         int iters, uint64_t *base, double us[3],
                                         long long *wrong_out)
{
    const int me = shardtab_node_rank(c->table), n = shardtab_node_size(c->table);
    const size_t count = bytes / sizeof(float);
    float *src = (float *)((char *)c->shard + half); /* the put's source; it lands at 0 */
    uint64_t *ticks = malloc((size_t)iters * sizeof *ticks);
    shardtab_status_t status =
        ticks ? SHARDTAB_SUCCESS
              : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the timings failed");

    /* what this rank sends, and what its landing place holds before */
    for (size_t i = 0; i < count && status == SHARDTAB_SUCCESS; i++)
        c->host[i] = input(me, i);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(src, c->host, bytes);
    for (size_t i = 0; i < count && status == SHARDTAB_SUCCESS; i++)
        c->host[i] = input(me + 7, i);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(c->shard, c->host, bytes);
    for (int pass = 0; pass < 2 && status == SHARDTAB_SUCCESS; pass++) {
        const int trips = pass == 0 ? iters / 10 + 1 : iters;
        status = shardtab_agree(MPI_COMM_WORLD, status);
        if (status == SHARDTAB_SUCCESS && me < 2 && n >= 2)
            status = ended(c,
                           lat_pingpong_launch(&d->sig, shardtab_device_table(c->table), src, 0,
                                               bytes, trips, *base, d->ticks, d->status, c->stream),
                           d->status, "the put-with-signal ping-pong");
        *base += (uint64_t)trips;
    }
    status = pingpong_tally(c, d, c->shard, me < 2 && n >= 2, bytes, iters, ticks, status, us,
                            wrong_out);
    free(ticks);
    return status;
}

/* LL puts between node ranks 0 and 1, `bytes` each way, iters round trips,
 * each rank's LL buffer (2 * bytes) at byte 0 of its shard, zeroed before
 * each launch (the flags start at 1 again); on return *wrong counts the
 * floats of the last message each got that differ from what the other put. */
static shardtab_status_t device_ll_pingpong(cb_ctx_t *c, cb_device_t *d, size_t bytes, int iters,
                                            double us[3], long long *wrong_out)
{
    const int me = shardtab_node_rank(c->table), n = shardtab_node_size(c->table);
    const size_t count = bytes / sizeof(float);
    const int runs = me < 2 && n >= 2;
    uint64_t *ticks = malloc((size_t)iters * sizeof *ticks);
    void *zeros = calloc(1, 2 * bytes);
    shardtab_status_t status =
        ticks && zeros ? SHARDTAB_SUCCESS
                       : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the timings failed");

    /* what this rank sends, and what dst holds before */
    for (size_t i = 0; i < count && status == SHARDTAB_SUCCESS; i++)
        c->host[i] = input(me, i);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(d->ll_src, c->host, bytes);
    for (size_t i = 0; i < count && status == SHARDTAB_SUCCESS; i++)
        c->host[i] = input(me + 7, i);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(d->ll_dst, c->host, bytes);
    for (int pass = 0; pass < 2 && status == SHARDTAB_SUCCESS; pass++) {
        const int trips = pass == 0 ? iters / 10 + 1 : iters;
        if (runs) /* no flag left in the buffer: every put of the launch is new there */
            status = shardtab_memcpy_to_device(c->shard, zeros, 2 * bytes);
        status = shardtab_agree(MPI_COMM_WORLD, status); /* both zeroed before either puts */
        if (status == SHARDTAB_SUCCESS && runs)
            status = ended(c,
                           lat_ll_pingpong_launch(&d->sig, shardtab_device_table(c->table),
                                                  d->ll_src, d->ll_dst, 0, bytes, trips, d->ticks,
                                                  d->status, c->stream),
                           d->status, "the LL ping-pong");
    }
    status = pingpong_tally(c, d, d->ll_dst, runs, bytes, iters, ticks, status, us, wrong_out);
    free(ticks);
    free(zeros);
    return status;
}

/* The device side's table of figures (rank 0 prints); 1 when a result was wrong */
static shardtab_status_t device_side(cb_ctx_t *c, const cb_options_t *o, int rank, int *code)
{
    const int iters = o->device_iters, n = shardtab_node_size(c->table);
    const size_t half = o->max / 2 & ~(size_t)255; /* the ping-pong's source, from here */
    const size_t most = half < ((size_t)64 << 10) ? half : (size_t)64 << 10;
    cb_device_t d;
    double us[3] = {0, 0, 0}, slowest = 0;
    uint64_t base = 0;
    const size_t bytes = 32 + (size_t)iters * (sizeof(double) + sizeof(uint64_t));
    shardtab_status_t status;

    memset(&d, 0, sizeof d);
    status = shardtab_signals(c->table, &d.sig);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(bytes, &d.block);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(2 * most + 16, (void **)&d.ll_src);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS) {
        if (d.block)
            (void)shardtab_mem_free(d.block);
        if (d.ll_src)
            (void)shardtab_mem_free(d.ll_src);
        return status;
    }
    d.in = d.block;
    d.status = (int *)((char *)d.block + 8);
    d.ticks = (uint64_t *)((char *)d.block + 32);
    d.out = (double *)(d.ticks + iters);
    d.ll_dst = d.ll_src + most / sizeof(float);
    if (rank == 0)
        printf("# coll_bench device side: %d ranks a node; the kernel's clock on rank 0, %d calls "
               "(round trips) a launch after a warm-up launch\n",
               n, iters);
    for (int held = 0; held < 2 && status == SHARDTAB_SUCCESS; held++) {
        status = device_all_reduce(c, &d, iters, held, us, &slowest);
        if (status == SHARDTAB_SUCCESS && rank == 0)
            printf("#   device-side all-reduce of 8 B (shardtab_all_reduce_block, %d threads, %s): "
                   "median %.2f us, p10 %.2f, p90 %.2f; the slowest rank's median %.2f us; every "
                   "result verified\n",
                   LAT_THREADS, held ? "held: one claim a kernel" : "a claim a call", us[0], us[1],
                   us[2], slowest);
    }
    if (status == SHARDTAB_SUCCESS) {
        double ns[3] = {0, 0, 0};
        status = device_loads(c, &d, iters, ns);
        if (status == SHARDTAB_SUCCESS && rank == 0)
            printf("#   one thread's dependent loads of device memory, a load: relaxed at system "
                   "scope %.0f ns, at device scope %.0f ns, an LL word's %.0f ns\n",
                   ns[0], ns[1], ns[2]);
        status = shardtab_agree(MPI_COMM_WORLD, status);
    }
    if (status == SHARDTAB_SUCCESS && rank == 0) {
        if (n >= 2 && most >= 8)
            printf("#   put with signal, block to block, node ranks 0 and 1 (half the round "
                   "trip):\n#   %10s %10s %8s %8s %7s\n",
                   "size", "time(us)", "p10", "p90", "#wrong");
        fflush(stdout);
    }
    for (size_t b = 8; n >= 2 && b <= most && status == SHARDTAB_SUCCESS; b *= 2) {
        long long bad = 0;
        status = device_pingpong(c, &d, b, half, iters, &base, us, &bad);
        if (status == SHARDTAB_SUCCESS && bad != 0)
            *code = 1;
        if (status == SHARDTAB_SUCCESS && rank == 0) {
            printf("    %10zu %10.2f %8.2f %8.2f %7lld\n", b, us[0], us[1], us[2], bad);
            fflush(stdout);
        }
    }
    if (status == SHARDTAB_SUCCESS && rank == 0 && n >= 2 && most >= 8) {
        printf("#   LL put (shardtab_put_ll_block, _wait_ll_block: a flag in every 8-byte word, no "
               "fence), block to block, node ranks 0 and 1 (half the round trip):\n#   %10s %10s "
               "%8s %8s %7s\n",
               "size", "time(us)", "p10", "p90", "#wrong");
        fflush(stdout);
    }
    for (size_t b = 8; n >= 2 && b <= most && status == SHARDTAB_SUCCESS; b *= 2) {
        long long bad = 0;
        status = device_ll_pingpong(c, &d, b, iters, us, &bad);
        if (status == SHARDTAB_SUCCESS && bad != 0)
            *code = 1;
        if (status == SHARDTAB_SUCCESS && rank == 0) {
            printf("    %10zu %10.2f %8.2f %8.2f %7lld\n", b, us[0], us[1], us[2], bad);
            fflush(stdout);
        }
    }
    (void)shardtab_mem_free(d.block);
    if (d.ll_src)
        (void)shardtab_mem_free(d.ll_src);
    return status;
}

static const char usage_text[] =
    "Usage: mpirun -np <ranks> coll_bench [options]\n"
    "The table's collectives timed, every result verified: the device-side all-reduce of\n"
    "one double, put with signal and LL puts between node ranks 0 and 1 (8 B to 64 KiB,\n"
    "half the round trip); then shardtab_all_reduce of floats from --min to --max bytes a\n"
    "rank (auto, one-block, one-shot, two-shot; on GPUs from a graph too) beside\n"
    "MPI_Allreduce and the device copy, in nccl-tests' columns (time in us, algbw and\n"
    "busbw in GB/s, #wrong), the median of --repeats.\n"
    "  --min B              the smallest all-reduce, bytes a rank (default 8; 4 to 2^31)\n"
    "  --max B              the largest (default 1073741824, 1 GiB)\n"
    "  --repeats R          timed repeats of each size, the median reported (default 5;\n"
    "                       1 to 64)\n"
    "  --device-iters N     device-side calls timed in one kernel (default 1000; 10 to\n"
    "                       1000000)\n"
    "  --allow-shared-gpu   let ranks share a device\n"
    "  -h, --help           this text\n"
    "  --version            the version of coll_bench and of the library\n"
    "Environment: SHARDTAB_ALL_REDUCE_ALGO and SHARDTAB_ALL_REDUCE_CUTOVER choose the\n"
    "algorithm of 'auto' (docs/environment.md).\n"
    "Exit status: 0 every result verified, 1 a wrong result or a runtime failure, 2 bad\n"
    "usage.\n";

/* 0 to run, 1 for --help, 2 for --version (print, exit 0), -1 with a message in err */
static int parse(int argc, char **argv, cb_options_t *o, char *err, size_t bytes)
{
    static const struct option longs[] = {
        {"min", required_argument, NULL, 'm'},
        {"max", required_argument, NULL, 'M'},
        {"repeats", required_argument, NULL, 'r'},
        {"device-iters", required_argument, NULL, 'd'},
        {"allow-shared-gpu", no_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'v'},
        {NULL, 0, NULL, 0},
    };
    const long most = 1L << 31; /* 2 GiB a rank */
    long v = 0;
    int c, rc = 0;

    o->min = 8;
    o->max = (size_t)1 << 30;
    o->repeats = 5;
    o->device_iters = 1000;
    o->allow_shared_gpu = 0;
    optind = 0;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
        switch (c) {
        case 'h':
            return 1;
        case 'v':
            return 2;
        case 'm':
            if ((rc = app_parse_long("--min", optarg, 4, most, &v, err, bytes)) == 0)
                o->min = (size_t)v;
            break;
        case 'M':
            if ((rc = app_parse_long("--max", optarg, 4, most, &v, err, bytes)) == 0)
                o->max = (size_t)v;
            break;
        case 'r':
            if ((rc = app_parse_long("--repeats", optarg, 1, 64, &v, err, bytes)) == 0)
                o->repeats = (int)v;
            break;
        case 'd':
            if ((rc = app_parse_long("--device-iters", optarg, 10, 1000000, &v, err, bytes)) == 0)
                o->device_iters = (int)v;
            break;
        case 's':
            o->allow_shared_gpu = 1;
            break;
        default: /* ':' a value missing, '?' an option refused */
            app_option_error(c, argv[optind - 1], optopt, longs, "--", err, bytes);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && optind < argc) {
        snprintf(err, bytes, "unexpected argument '%s'", argv[optind]);
        rc = -1;
    }
    if (rc == 0 && o->max < o->min) {
        snprintf(err, bytes, "--min (%zu bytes) is larger than --max (%zu)", o->min, o->max);
        rc = -1;
    }
    return rc;
}

int main(int argc, char **argv)
{
    static const char *const algos[4] = {"auto", "one-block", "one-shot", "two-shot"};
    shardtab_init_params_t init = {0};
    cb_options_t o;
    cb_ctx_t c;
    int rank, size, code = 0;
    char err[200];
    shardtab_status_t status;

    memset(&c, 0, sizeof c);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int parsed = parse(argc, argv, &o, err, sizeof err);
    if (parsed < 0) {
        app_say_error("coll_bench", rank, err);
        MPI_Finalize();
        return app_exit_status(1);
    }
    if (parsed > 0) { /* --help or --version */
        if (parsed == 1 && rank == 0)
            fputs(usage_text, stdout);
        if (parsed == 2)
            app_say_version("coll_bench", rank);
        MPI_Finalize();
        return 0;
    }
    init.allow_shared_device = o.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &init);
    c.host = malloc(o.max);
    if (status == SHARDTAB_SUCCESS && c.host == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of %zu bytes failed", o.max);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(o.max, (void **)&c.shard);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(o.max, (void **)&c.copy_dst);
#if defined(SHARDTAB_WITH_GPU)
    if (status == SHARDTAB_SUCCESS &&
        hipStreamCreateWithFlags((hipStream_t *)&c.stream, hipStreamNonBlocking) != hipSuccess)
        status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "hipStreamCreateWithFlags failed");
#endif
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS) {
        shardtab_create_params_t params = {0};
        params.stream = c.stream;
        params.signal_slots = LAT_SLOTS(size);
        status = shardtab_create_with(MPI_COMM_WORLD, c.shard, o.max, &params, &c.table);
    }
    if (status == SHARDTAB_SUCCESS)
        status = device_side(&c, &o, rank, &code);
    if (status == SHARDTAB_SUCCESS && rank == 0) {
        shardtab_device_info_t info;
        (void)shardtab_device_info(&info);
        const int nodes = shardtab_node_count(c.table);
        printf("# coll_bench: %d rank%s, %d node%s, backend %s, device %s; median of %d repeats, "
               "the slowest rank's time per call\n",
               size, app_s(size), nodes, app_s(nodes), shardtab_backend_name(info.backend),
               info.name, o.repeats);
        printf("# %10s %11s %6s %5s %9s %10s %8s %8s %7s %10s %9s\n", "size", "count", "type",
               "redop", "algo", "time(us)", "algbw", "busbw", "#wrong", "mpi(us)", "copy GB/s");
    }
#if defined(SHARDTAB_WITH_GPU)
    if (status == SHARDTAB_SUCCESS) { /* what any stream-ordered call pays to launch */
        char why[160] = "";
        double eager = 0, graphed = 0;
        int ok = 0, all_ok = 0;
        status = time_call(&c, call_empty, 100, o.repeats, 1, &eager);
        if (status == SHARDTAB_SUCCESS)
            ok = capture(&c, call_empty, 20, why, sizeof why);
        if (status == SHARDTAB_SUCCESS) {
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            if (all_ok == 0)
                status = time_call(&c, call_graph, 11, o.repeats, 20, &graphed);
            if (ok == 0)
                (void)hipGraphExecDestroy((hipGraphExec_t)c.graph);
        }
        if (status == SHARDTAB_SUCCESS && rank == 0) {
            if (all_ok == 0)
                printf("# launch floor: an empty kernel of one block on the stream, %.2f us a "
                       "launch, %.2f us in a graph of 20\n",
                       eager * 1e6, graphed * 1e6);
            else
                printf("# launch floor: an empty kernel, %.2f us a launch; no graph (%s)\n",
                       eager * 1e6, why);
        }
    }
#endif
    for (size_t bytes = o.min; bytes <= o.max && status == SHARDTAB_SUCCESS; bytes *= 2) {
        const size_t count = bytes / sizeof(float);
        const int iters = bytes <= (1u << 20) ? 100 : bytes <= (64u << 20) ? 20 : 5;
        double mpi = 0, copy = 0;
        c.count = count;
        status = fill(c.host, c.shard, count, rank);
        if (status == SHARDTAB_SUCCESS)
            status = time_call(&c, call_mpi, iters, o.repeats, 1, &mpi);
        if (status == SHARDTAB_SUCCESS)
            status = time_call(&c, call_copy, iters, o.repeats, 1, &copy);
        for (int a = 0; a < 4 && status == SHARDTAB_SUCCESS; a++) {
            double seconds = 0;
            long long bad = 0;
            if (a == 1 && bytes > ((size_t)64 << 10))
                continue; /* one-block: for small messages only */
            if (a > 0)
                setenv("SHARDTAB_ALL_REDUCE_ALGO", algos[a], 1);
            status = time_call(&c, call_all_reduce, iters, o.repeats, 1, &seconds);
            /* then one call on fresh inputs, every element checked */
            if (status == SHARDTAB_SUCCESS)
                status = fill(c.host, c.shard, count, rank);
            if (status == SHARDTAB_SUCCESS)
                status = call_all_reduce(&c);
            if (status == SHARDTAB_SUCCESS)
                status = shardtab_stream_synchronize(c.stream);
            if (status == SHARDTAB_SUCCESS && count)
                status = shardtab_memcpy_to_host(c.host, c.shard, bytes);
            if (status == SHARDTAB_SUCCESS)
                bad = wrong(c.host, count, size);
            unsetenv("SHARDTAB_ALL_REDUCE_ALGO");
            long long total = 0;
            MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            status = shardtab_agree(MPI_COMM_WORLD, status);
            if (status == SHARDTAB_SUCCESS && total != 0)
                code = 1;
            if (status == SHARDTAB_SUCCESS && rank == 0) {
                double algbw = (double)bytes / seconds / 1e9;
                printf("  %10zu %11zu %6s %5s %9s %10.2f %8.2f %8.2f %7lld %10.2f %9.1f\n", bytes,
                       count, "float", "sum", algos[a], seconds * 1e6, algbw,
                       algbw * 2.0 * (size - 1) / size, total, mpi * 1e6,
                       (double)bytes / copy / 1e9);
                fflush(stdout);
            }
            if (status == SHARDTAB_SUCCESS)
                status = fill(c.host, c.shard, count, rank);
        }
#if defined(SHARDTAB_WITH_GPU)
        if (status == SHARDTAB_SUCCESS && bytes <= ((size_t)64 << 10)) {
            char why[160] = "";
            double seconds = 0;
            int ok = capture(&c, call_all_reduce, 20, why, sizeof why);
            int all_ok = 0;
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            if (all_ok == 0)
                status = time_call(&c, call_graph, iters / 10 + 1, o.repeats, 20, &seconds);
            if (status == SHARDTAB_SUCCESS && rank == 0) {
                if (all_ok == 0)
                    printf("  %10zu %11zu %6s %5s %9s %10.2f %8s %8s %7s   (20 calls a graph)\n",
                           bytes, count, "float", "sum", "graph", seconds * 1e6, "", "", "-");
                else
                    printf("# %zu B: no graph (%s)\n", bytes, why);
            }
            if (ok == 0)
                (void)hipGraphExecDestroy((hipGraphExec_t)c.graph);
        }
#endif
    }
    if (status == SHARDTAB_SUCCESS && rank == 0)
        printf("# coll_bench: %s\n",
               code == 0 ? "every result verified" : "WRONG results (see #wrong)");
    {
        shardtab_status_t s = c.table ? shardtab_destroy(&c.table) : SHARDTAB_SUCCESS;
        if (c.shard)
            (void)shardtab_mem_free(c.shard);
        if (c.copy_dst)
            (void)shardtab_mem_free(c.copy_dst);
        s = shardtab_agree(MPI_COMM_WORLD, s);
        if (status == SHARDTAB_SUCCESS)
            status = s;
    }
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("coll_bench", rank, shardtab_last_error());
        code = app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    }
    free(c.host);
#if defined(SHARDTAB_WITH_GPU)
    if (c.stream)
        (void)hipStreamDestroy((hipStream_t)c.stream);
#endif
    shardtab_finalize();
    MPI_Finalize();
    return code;
}
