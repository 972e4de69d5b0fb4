/* coll_bench.c - the table's stream-ordered all-reduce timed in nccl-tests' convention, beside MPI_Allreduce and the device copy in the same run.
 *
 * PURPOSE  For each size from --min to --max bytes (x2 steps), float sum in
 *          place: shardtab_all_reduce with the automatic choice, one-shot and
 *          two-shot; MPI_Allreduce on a host buffer of the same size (this
 *          machine's MPI may not be GPU-aware); the copy engine's
 *          device-to-device copy of the same bytes on the same GPU; and, on
 *          GPUs, the all-reduce replayed from a captured graph. Each result is
 *          verified element by element (#wrong).
 * USAGE    mpiexec -n <ranks> ./coll_bench [--min B] [--max B] [--repeats R]
 *                 [--allow-shared-gpu]
 * NOTES    Method: warm-up calls first; then R repeats, each after an
 *          MPI_Barrier, of `iters` calls back to back, the stream drained at
 *          the end; a repeat's time per call is the max over ranks; the
 *          median of the repeats is printed. algbw = size / time; busbw =
 *          algbw * 2 (n - 1) / n, nccl-tests' all-reduce factor; copy GB/s
 *          counts the bytes copied (read once, written once). Inputs are
 *          (rank + 1) + (i % 13) / 4: sums of them are exact in any order, so
 *          #wrong counts elements that differ from the exact sum (the
 *          rank-order bits are tests/shardtab/comm/stream_check's to prove).
 */
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shardtab.h"

#if defined(SHARDTAB_WITH_GPU)
#  include "gpu_runtime.h"
#endif

typedef struct cb_options {
    size_t min, max;
    int repeats, allow_shared_gpu;
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
static shardtab_status_t call_graph(void *p)
{
    cb_ctx_t *c = p;
    return hipGraphLaunch((hipGraphExec_t)c->graph, (hipStream_t)c->stream) == hipSuccess
               ? SHARDTAB_SUCCESS
               : shardtab_error_set(SHARDTAB_ERR_DEVICE, "hipGraphLaunch failed");
}

/* graph_calls all-reduces captured into one graph; NULL with a reason when
 * the runtime refuses the capture */
static int capture(cb_ctx_t *c, int calls, char *why, size_t bytes)
{
    hipGraph_t graph;
    hipGraphExec_t exec;
    hipError_t err = hipStreamBeginCapture((hipStream_t)c->stream, hipStreamCaptureModeThreadLocal);
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int i = 0; i < calls && err == hipSuccess && status == SHARDTAB_SUCCESS; i++)
        status = call_all_reduce(c);
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

static int parse(int argc, char **argv, cb_options_t *o, char *err, size_t bytes)
{
    static const struct option longs[] = {
        {"min", required_argument, NULL, 'm'},
        {"max", required_argument, NULL, 'M'},
        {"repeats", required_argument, NULL, 'r'},
        {"allow-shared-gpu", no_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    const long most = 1L << 31; /* 2 GiB a rank */
    long v = 0;
    int c, rc = 0;

    o->min = 8;
    o->max = (size_t)1 << 30;
    o->repeats = 5;
    o->allow_shared_gpu = 0;
    optind = 0;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
        switch (c) {
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
    static const char *const algos[3] = {"auto", "one-shot", "two-shot"};
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
    if (parse(argc, argv, &o, err, sizeof err) != 0) {
        app_say_error("coll_bench", rank, err);
        MPI_Finalize();
        return app_exit_status(1);
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
        status = shardtab_create_with(MPI_COMM_WORLD, c.shard, o.max, &params, &c.table);
    }
    if (status == SHARDTAB_SUCCESS && rank == 0) {
        shardtab_device_info_t info;
        (void)shardtab_device_info(&info);
        printf("# coll_bench: %d ranks, %d nodes, backend %s, device %s; median of %d repeats, "
               "the slowest rank's time per call\n",
               size, shardtab_node_count(c.table), shardtab_backend_name(info.backend), info.name,
               o.repeats);
        printf("# %10s %11s %6s %5s %9s %10s %8s %8s %7s %10s %9s\n", "size", "count", "type",
               "redop", "algo", "time(us)", "algbw", "busbw", "#wrong", "mpi(us)", "copy GB/s");
    }
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
        for (int a = 0; a < 3 && status == SHARDTAB_SUCCESS; a++) {
            double seconds = 0;
            long long bad = 0;
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
        if (status == SHARDTAB_SUCCESS && bytes <= 4096) {
            char why[160] = "";
            double seconds = 0;
            int ok = capture(&c, 20, why, sizeof why);
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
