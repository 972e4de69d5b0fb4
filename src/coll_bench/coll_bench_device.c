/* coll_bench_device.c - coll_bench's device side, timed inside one kernel:
 * the device-side all-reduce of one double, one thread's dependent loads at
 * each order the waits use, and the put-with-signal and LL ping-pongs
 * between node ranks 0 and 1; every result and every byte put checked. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_bench.h"
#include "latency.h"
#include "shardtab.h"

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
            ns[how] = cb_median(t, RUNS);
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
        bad += c->host[i] != cb_input(1 - me, i);
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
    if (status == SHARDTAB_SUCCESS)
        status = cb_fill(c->host, src, count, me);
    if (status == SHARDTAB_SUCCESS)
        status = cb_fill(c->host, c->shard, count, me + 7);
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
    if (status == SHARDTAB_SUCCESS)
        status = cb_fill(c->host, d->ll_src, count, me);
    if (status == SHARDTAB_SUCCESS)
        status = cb_fill(c->host, d->ll_dst, count, me + 7);
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

shardtab_status_t cb_device_side(cb_ctx_t *c, const cb_options_t *o, int rank, int *code)
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
