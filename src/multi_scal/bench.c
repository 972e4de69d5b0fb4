/* bench.c - multi_scal --bench: a size sweep that times, in one run and on the
 * same buffers, the table's modes against the copy engines of the same GPUs,
 * the host-staged update and the same update by MPI messages.
 *
 * Method: for each per-shard size a fresh table; every operation gets warm-up
 * runs, then repeats, each started after a barrier and timed with device events
 * (host clock for the host-staged and MPI paths, which synchronize anyway); a
 * repeat's time is the max over ranks; we report the median with min and max.
 * GB/s counts bytes read plus bytes written per GPU. Link GB/s counts bytes that
 * cross a link per direction: a remote scale moves its shard once each way, a
 * ring scale twice (its own reads and the neighbour's writes share the link).
 * kernel-push and kernel-pull copy a shard to or from the peer with a kernel's
 * own stores or loads, to tell the cost of SM-issued remote traffic from the
 * copy engines'.
 * The table modes alternate alpha between 2 and 1/2, so after an even number of
 * runs every shard must hold its initial values again: the sweep verifies that
 * exactly before it trusts the figures. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "bounded.h"
#include "job.h"
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition.h"
#include "scal.h"

static const char *const op_names[MS_OP_COUNT] = {
    [MS_OP_LOCAL] = "local",
    [MS_OP_REMOTE] = "remote",
    [MS_OP_RING] = "ring",
    [MS_OP_GLOBAL] = "global",
    [MS_OP_HOST_STAGED] = "host-staged",
    [MS_OP_MPI] = "mpi-p2p",
    [MS_OP_D2D_COPY] = "copy-d2d",
    [MS_OP_PEER_ONE] = "copy-peer-1way",
    [MS_OP_PEER_BOTH] = "copy-peer-2way",
    [MS_OP_KERNEL_PUSH] = "kernel-push",
    [MS_OP_KERNEL_PULL] = "kernel-pull",
    [MS_OP_PAIR] = "pair",
};

const char *ms_bench_op_name(int op)
{
    return op >= 0 && op < MS_OP_COUNT ? op_names[op] : "?";
}

int ms_bench_host_buffers(shardtab_backend_t backend)
{
    /* setup_size: host and host_peer (malloc) on every backend; on the host
     * backend the shard and scratch too, and while shardtab_create exports the
     * shard it exists twice (its pages, and the shared file they are copied
     * into) */
    return backend == SHARDTAB_BACKEND_HOST ? 5 : 2;
}

typedef struct bench_ctx {
    shardtab_t *table;
    double *const *device_table;
    double *shard, *scratch;              /* device */
    double *host, *host_peer;             /* host staging for the host and MPI paths */
    uint64_t *offsets_device, offsets[2]; /* global mode: a node of equal shards */
    uint64_t len;                         /* doubles per shard */
    int rank, size, me, nodes, next;
    int max_nodes;               /* largest node: every rank runs the same operations */
    int mpi_next, mpi_prev;      /* the MPI ring runs over all ranks */
    int pair_writer, pair_owner; /* MS_OP_PAIR: who scales whose shard */
    scal_timer_t *timer;
} bench_ctx_t;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double alpha_for(int run)
{
    return run % 2 ? 0.5 : 2.0; /* powers of two: exact, and they undo each other */
}

static void host_scale(double *x, uint64_t n, double alpha)
{
    for (uint64_t i = 0; i < n; i++)
        x[i] = x[i] * alpha;
}

/* One run of an operation on this rank; *ms is its time (0 when idle). */
static shardtab_status_t run_once(bench_ctx_t *c, int op, int run, double *ms)
{
    size_t bytes = (size_t)c->len * sizeof(double);
    double alpha = alpha_for(run), start = 0.0;
    int code = 0, device_timed = op != MS_OP_HOST_STAGED && op != MS_OP_MPI;
    int active = 1;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    void *peer = NULL;
    size_t peer_bytes = 0;

    *ms = 0.0;
    if ((op == MS_OP_REMOTE || op == MS_OP_PEER_ONE || op == MS_OP_KERNEL_PUSH ||
         op == MS_OP_KERNEL_PULL) &&
        !(c->me == 0 && c->nodes > 1))
        active = 0;
    if (op == MS_OP_PAIR && !(c->me == c->pair_writer && c->pair_owner < c->nodes))
        active = 0;
    if ((op == MS_OP_RING || op == MS_OP_PEER_BOTH) && c->nodes < 2)
        active = 0;
    if (!active)
        return SHARDTAB_SUCCESS;
    if (device_timed)
        code = scal_timer_start(c->timer);
    else
        start = MPI_Wtime();

    switch (op) {
    case MS_OP_LOCAL:
        code = code ? code : scal_shard(c->device_table, c->me, c->len, alpha);
        break;
    case MS_OP_REMOTE:
        code = code ? code : scal_shard(c->device_table, 1, c->len, alpha);
        break;
    case MS_OP_RING:
        code = code ? code : scal_shard(c->device_table, c->next, c->len, alpha);
        break;
    case MS_OP_PAIR:
        code = code ? code : scal_shard(c->device_table, c->pair_owner, c->len, alpha);
        break;
    case MS_OP_GLOBAL: {
        scal_range_t r = {
            c->device_table, c->offsets_device, c->nodes, c->len * (uint64_t)c->nodes, 0, c->len};
        r.begin = (c->len * (uint64_t)c->me + c->len / 2) % r.total;
        code = code ? code : scal_range(&r, alpha);
        break;
    }
    case MS_OP_D2D_COPY:
        code = code ? code : scal_copy(c->scratch, c->shard, bytes);
        break;
    case MS_OP_PEER_ONE:
    case MS_OP_PEER_BOTH:
        status =
            shardtab_peer(c->table, shardtab_member(c->table, op == MS_OP_PEER_ONE ? 1 : c->next),
                          &peer, &peer_bytes);
        if (status == SHARDTAB_SUCCESS && peer != (void *)c->shard)
            code = code ? code : scal_copy(peer, c->shard, bytes);
        break;
    case MS_OP_KERNEL_PUSH:
    case MS_OP_KERNEL_PULL:
        status = shardtab_peer(c->table, shardtab_member(c->table, 1), &peer, &peer_bytes);
        if (status == SHARDTAB_SUCCESS && op == MS_OP_KERNEL_PUSH)
            code = code ? code : scal_copy_kernel(peer, c->shard, c->len);
        else if (status == SHARDTAB_SUCCESS)
            code = code ? code : scal_copy_kernel(c->scratch, peer, c->len);
        break;
    case MS_OP_HOST_STAGED:
        status = shardtab_memcpy_to_host(c->host, c->shard, bytes);
        host_scale(c->host, c->len, alpha);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_device(c->shard, c->host, bytes);
        break;
    case MS_OP_MPI:
        /* the owner ships its shard to the rank that updates it, and back */
        status = shardtab_memcpy_to_host(c->host, c->shard, bytes);
        app_sendrecv(c->host, (int)c->len, MPI_DOUBLE, c->mpi_prev, 7, c->host_peer, (int)c->len,
                     MPI_DOUBLE, c->mpi_next, 7, MPI_COMM_WORLD,
                     "the exchange in run_once() (bench.c)");
        host_scale(c->host_peer, c->len, alpha);
        app_sendrecv(c->host_peer, (int)c->len, MPI_DOUBLE, c->mpi_next, 8, c->host, (int)c->len,
                     MPI_DOUBLE, c->mpi_prev, 8, MPI_COMM_WORLD,
                     "the exchange in run_once() (bench.c)");
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_device(c->shard, c->host, bytes);
        break;
    default:
        break;
    }
    if (device_timed && code == 0)
        code = scal_timer_stop(c->timer, ms);
    else if (!device_timed)
        *ms = (MPI_Wtime() - start) * 1e3;
    if (code != 0 && status == SHARDTAB_SUCCESS)
        status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "bench %s: %s", ms_bench_op_name(op),
                                    scal_error_string(code));
    return status;
}

/* Warm-up and repeats of one operation; fills the row's figures. */
static shardtab_status_t measure(bench_ctx_t *c, int op, int warmups, int reps, ms_bench_row_t *row)
{
    double *times = calloc((size_t)reps, sizeof *times);
    shardtab_status_t status = SHARDTAB_SUCCESS;
    double bytes = 2.0 * (double)c->len * sizeof(double);

    if (times == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "calloc of bench times failed");
    status = app_agree(MPI_COMM_WORLD, status, "the agreement in measure() (bench.c)", 0);
    for (int i = 0; i < warmups + reps && status == SHARDTAB_SUCCESS; i++) {
        double ms, slowest;
        app_barrier(MPI_COMM_WORLD, "the barrier in measure() (bench.c)", 0);
        status = app_agree(MPI_COMM_WORLD, run_once(c, op, i, &ms),
                           "the agreement in measure() (bench.c)", 0);
        app_allreduce(&ms, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD,
                      "the allreduce in measure() (bench.c)");
        if (i >= warmups)
            times[i - warmups] = slowest;
    }
    if (status == SHARDTAB_SUCCESS) {
        qsort(times, (size_t)reps, sizeof *times, cmp_double);
        double med = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
        row->op = op;
        row->reps = reps;
        row->gbps_median = bytes / (med * 1e-3) / 1e9;
        row->gbps_min = bytes / (times[reps - 1] * 1e-3) / 1e9;
        row->gbps_max = bytes / (times[0] * 1e-3) / 1e9;
        /* link bytes per direction: see the file comment */
        if (op == MS_OP_REMOTE || op == MS_OP_PEER_ONE || op == MS_OP_PEER_BOTH ||
            op == MS_OP_KERNEL_PUSH || op == MS_OP_KERNEL_PULL)
            row->link_gbps = row->gbps_median / 2.0;
        else if (op == MS_OP_RING)
            /* two ranks: both streams share one link; more: each direction of
             * a link carries one shard (the writes one way, the reads back) */
            row->link_gbps = c->max_nodes == 2 ? row->gbps_median : row->gbps_median / 2.0;
        row->baseline = -1;
    }
    free(times);
    return status;
}

static void fill_initial(double *x, uint64_t n, uint64_t start)
{
    for (uint64_t i = 0; i < n; i++)
        x[i] = (double)(1 + (start + i) % 7);
}

static shardtab_status_t verify_initial(bench_ctx_t *c, int *ok)
{
    uint64_t start = c->len * (uint64_t)c->rank, bad = 0, total = 0;
    shardtab_status_t status =
        shardtab_memcpy_to_host(c->host, c->shard, (size_t)c->len * sizeof(double));

    for (uint64_t i = 0; status == SHARDTAB_SUCCESS && i < c->len; i++) {
        double want = (double)(1 + (start + i) % 7);
        bad += memcmp(&c->host[i], &want, sizeof want) != 0;
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement in verify_initial() (bench.c)", 0);
    app_allreduce(&bad, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD,
                  "the allreduce in verify_initial() (bench.c)");
    *ok = total == 0;
    return status;
}

/* Collective (shardtab_destroy). Keeps going past failures, returns the first. */
static shardtab_status_t release_ctx(bench_ctx_t *c)
{
    shardtab_status_t first = SHARDTAB_SUCCESS;

    first = app_status_first(first, c->table ? shardtab_destroy(&c->table) : SHARDTAB_SUCCESS);
    first = app_status_first(first, shardtab_mem_free(c->shard));
    first = app_status_first(first, shardtab_mem_free(c->scratch));
    first = app_status_first(first, shardtab_mem_free(c->offsets_device));
    free(c->host);
    free(c->host_peer);
    c->shard = c->scratch = NULL;
    c->offsets_device = NULL;
    c->host = c->host_peer = NULL;
    return first;
}

/* A fresh table over fresh shards of shard_bytes on every rank. Collective. */
static shardtab_status_t setup_size(bench_ctx_t *c, uint64_t shard_bytes, double *max_create_ms)
{
    size_t bytes = (size_t)shard_bytes;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    c->len = shard_bytes / sizeof(double);
    c->host = malloc(bytes);
    c->host_peer = malloc(bytes);
    if (c->host == NULL || c->host_peer == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of 2 x %zu host bytes failed",
                                    bytes);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(bytes, (void **)&c->shard);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(bytes, (void **)&c->scratch);
    if (status == SHARDTAB_SUCCESS) {
        fill_initial(c->host, c->len, c->len * (uint64_t)c->rank);
        status = shardtab_memcpy_to_device(c->shard, c->host, bytes);
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement in setup_size() (bench.c)", 0);
    if (status == SHARDTAB_SUCCESS) {
        shardtab_create_params_t create = {.alignment = sizeof(double)};
        status = shardtab_create_with(MPI_COMM_WORLD, c->shard, bytes, &create, &c->table);
    }
    if (status != SHARDTAB_SUCCESS) {
        release_ctx(c);
        return status;
    }
    c->device_table = (double *const *)shardtab_device_table(c->table);
    c->me = shardtab_node_rank(c->table);
    c->nodes = shardtab_node_size(c->table);
    app_allreduce(&c->nodes, &c->max_nodes, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                  "the allreduce in setup_size() (bench.c)");
    c->next = (c->me + 1) % c->nodes;
    c->next = c->nodes > 1 ? c->next : c->me;
    c->mpi_next = (c->rank + 1) % c->size;
    c->mpi_prev = (c->rank - 1 + c->size) % c->size;
    {
        /* global mode over this node: equal shards, offsets k * len */
        uint64_t *offsets = malloc(((size_t)c->nodes + 1) * sizeof *offsets);
        if (offsets == NULL)
            status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of offsets failed");
        for (int q = 0; status == SHARDTAB_SUCCESS && q <= c->nodes; q++)
            offsets[q] = c->len * (uint64_t)q;
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_mem_alloc(((size_t)c->nodes + 1) * sizeof *offsets,
                                        (void **)&c->offsets_device);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_device(c->offsets_device, offsets,
                                               ((size_t)c->nodes + 1) * sizeof *offsets);
        free(offsets);
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement in setup_size() (bench.c)", 0);
    if (status == SHARDTAB_SUCCESS) {
        double create_ms = shardtab_create_ms(c->table);
        app_allreduce(&create_ms, max_create_ms, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD,
                      "the allreduce in setup_size() (bench.c)");
    } else {
        release_ctx(c);
    }
    return status;
}

/* One size: a fresh table, every operation, the table modes verified. */
static shardtab_status_t sweep_size(bench_ctx_t *c, const ms_options_t *opts, uint64_t shard_bytes,
                                    ms_bench_row_t *rows, int *nrows, int *verified)
{
    static const int order[] = {MS_OP_LOCAL,       MS_OP_REMOTE,      MS_OP_RING,
                                MS_OP_GLOBAL,      MS_OP_HOST_STAGED, MS_OP_MPI,
                                MS_OP_D2D_COPY,    MS_OP_PEER_ONE,    MS_OP_PEER_BOTH,
                                MS_OP_KERNEL_PUSH, MS_OP_KERNEL_PULL};
    shardtab_status_t status = SHARDTAB_SUCCESS;
    double max_create_ms = 0.0;
    int reps = (int)fmin(40.0, fmax(6.0, (double)(2ull << 30) / (double)shard_bytes));
    int slow_reps, ok = 1, first = *nrows;

    reps += reps % 2; /* even, so alpha 2 and 1/2 cancel (see the file comment) */
    slow_reps = shard_bytes >= (1ull << 30) ? 2 : shard_bytes >= (64ull << 20) ? 4 : reps;
    status = setup_size(c, shard_bytes, &max_create_ms);
    if (status != SHARDTAB_SUCCESS)
        return status;

    for (size_t k = 0; k < sizeof order / sizeof order[0] && status == SHARDTAB_SUCCESS; k++) {
        int op = order[k];
        int n = op == MS_OP_HOST_STAGED || op == MS_OP_MPI ? slow_reps : reps;
        ms_bench_row_t *row = &rows[*nrows];
        /* every operation before the copies ran an even number of times with
         * alpha 2 and 1/2: the shards must hold their initial values again */
        if (op == MS_OP_D2D_COPY)
            status = verify_initial(c, &ok);
        /* the MPI ring runs over all ranks, the table's only inside a node */
        /* decided by the largest node, so that all ranks enter the same
         * collectives; a rank alone on its node idles (run_once) */
        if ((op == MS_OP_REMOTE || op == MS_OP_PEER_ONE || op == MS_OP_RING ||
             op == MS_OP_PEER_BOTH || op == MS_OP_KERNEL_PUSH || op == MS_OP_KERNEL_PULL) &&
            c->max_nodes < 2)
            continue;
        if ((op == MS_OP_MPI && c->size < 2) ||
            ((op == MS_OP_MPI || op == MS_OP_HOST_STAGED) && opts->bench_device_only))
            continue;
        memset(row, 0, sizeof *row);
        row->shard_bytes = shard_bytes;
        row->create_ms = max_create_ms;
        if (status == SHARDTAB_SUCCESS)
            status = measure(c, op, 2, n, row);
        if (status == SHARDTAB_SUCCESS)
            (*nrows)++;
    }
    *verified &= ok;

    /* ratios against the physical baselines measured at this size */
    for (int i = first; i < *nrows; i++) {
        ms_bench_row_t *r = &rows[i];
        int base = r->op == MS_OP_LOCAL    ? MS_OP_D2D_COPY
                   : r->op == MS_OP_REMOTE ? MS_OP_PEER_ONE
                   : r->op == MS_OP_RING   ? MS_OP_PEER_BOTH
                                           : -1;
        for (int j = first; j < *nrows && base >= 0; j++) {
            if (rows[j].op != base)
                continue;
            r->baseline = base;
            r->ratio = base == MS_OP_D2D_COPY ? r->gbps_median / rows[j].gbps_median
                                              : r->link_gbps / rows[j].link_gbps;
        }
    }
    {
        shardtab_status_t released =
            app_agree(MPI_COMM_WORLD, release_ctx(c), "the agreement in sweep_size() (bench.c)", 0);
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    return status;
}

shardtab_status_t ms_bench_run(const ms_options_t *opts, ms_bench_row_t **rows_out, int *nrows,
                               int *verified)
{
    bench_ctx_t c;
    ms_bench_row_t *rows;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    int sizes = 0;

    memset(&c, 0, sizeof c);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    for (uint64_t s = opts->bench_min; s <= opts->bench_max; s *= 4)
        sizes++;
    rows = calloc((size_t)sizes * MS_OP_COUNT + 1, sizeof *rows);
    if (rows == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "calloc of bench rows failed");
    else if (scal_timer_create(&c.timer) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "creating the bench timer failed");
    status = app_agree(MPI_COMM_WORLD, status, "the agreement in ms_bench_run() (bench.c)", 0);
    *nrows = 0;
    *verified = 1;
    for (uint64_t s = opts->bench_min; s <= opts->bench_max && status == SHARDTAB_SUCCESS; s *= 4)
        status = sweep_size(&c, opts, s, rows, nrows, verified);
    if (c.timer)
        scal_timer_destroy(c.timer);
    if (status != SHARDTAB_SUCCESS) {
        free(rows);
        return status;
    }
    *rows_out = rows;
    return SHARDTAB_SUCCESS;
}

shardtab_status_t ms_bench_pairs(const ms_options_t *opts, double **matrix_out, int *n_out,
                                 int *verified)
{
    bench_ctx_t c;
    double create_ms, *matrix = NULL;
    int largest = 0, ok = 1;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    memset(&c, 0, sizeof c);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    if (scal_timer_create(&c.timer) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "creating the bench timer failed");
    status = app_agree(MPI_COMM_WORLD, status, "the agreement in ms_bench_pairs() (bench.c)", 0);
    if (status == SHARDTAB_SUCCESS)
        status = setup_size(&c, opts->bench_max, &create_ms);
    if (status == SHARDTAB_SUCCESS) {
        /* every rank walks the pairs of the largest node, so all stay in step */
        app_allreduce(&c.nodes, &largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                      "the allreduce in ms_bench_pairs() (bench.c)");
        matrix = calloc((size_t)largest * (size_t)largest, sizeof *matrix);
        if (matrix == NULL)
            status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "calloc of the pair matrix failed");
        status =
            app_agree(MPI_COMM_WORLD, status, "the agreement in ms_bench_pairs() (bench.c)", 0);
    }
    for (int w = 0; w < largest && status == SHARDTAB_SUCCESS; w++) {
        for (int o = 0; o < largest && status == SHARDTAB_SUCCESS; o++) {
            ms_bench_row_t row;
            memset(&row, 0, sizeof row);
            c.pair_writer = w;
            c.pair_owner = o;
            status = measure(&c, MS_OP_PAIR, 2, 8, &row);
            matrix[w * largest + o] = row.gbps_median;
        }
    }
    if (status == SHARDTAB_SUCCESS)
        status = verify_initial(&c, &ok);
    {
        shardtab_status_t released = app_agree(MPI_COMM_WORLD, release_ctx(&c),
                                               "the agreement in ms_bench_pairs() (bench.c)", 0);
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    if (c.timer)
        scal_timer_destroy(c.timer);
    if (status != SHARDTAB_SUCCESS) {
        free(matrix);
        return status;
    }
    *matrix_out = matrix;
    *n_out = largest;
    *verified = ok;
    return SHARDTAB_SUCCESS;
}
