/* multi_scal.c - the program: scale a distributed vector through one table of
 * shard pointers per node, and verify every element.
 *
 * PURPOSE  Show that one pointer table works from kernels launched on every GPU
 *          of a node (the AMDGPU.jl bug this project grew out of), and measure it.
 * USAGE    mpirun -np <ranks> ./multi_scal [--n N] [--alpha A] [--mode M]
 *                 [--iters K] [--json FILE] [--allow-shared-gpu] [--check-peers]
 *                 [--bench [--bench-min B] [--bench-max B]] [--variant V]
 * NOTES    One rank per GPU. Each mode reaches memory only through the table, never
 *          through the local pointer: local (own shard), ring (the next node rank's
 *          shard), global (a shard-sized stretch of the node's index space that
 *          straddles two shards). After each mode every rank checks its own shard
 *          exactly against the same multiplications done on the host. MPI carries
 *          set-up, timing and verification only.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "app.h"
#include "cli.h"
#include "bench.h"
#include "check_peers.h"
#include "options.h"
#include "partition.h"
#include "report.h"
#include "scal.h"
#include "shardtab.h"
#include "test_hooks.h"

typedef struct ms_run {
    ms_options_t opts;
    int rank, size;
    ms_shard_t mine;
    shardtab_t *table;
    double *shard;          /* device: this rank's shard */
    double *staging;        /* host: a copy of it */
    uint64_t *offsets_host; /* [node_size + 1] the node's index space */
    uint64_t *offsets;      /* device copy, for the global kernel */
    double expected[7];     /* the value each residue class must end with */
    ms_bench_fit_t fit;     /* --bench, --bench-pairs: sizes fitted to host memory */
    ms_report_t report;
    const char *corrupt_hook; /* test hooks (src/platform/test_hooks.h), read at the start: */
    const char *memory_hook;  /* MULTI_SCAL_TEST_CORRUPT's, _MEMORY's text, or NULL */
} ms_run_t;

/* ---- set-up ------------------------------------------------------------------ */

/* A second table over the same shards, made and destroyed 5 times: what a
 * create costs when every peer allocation is open already (it opens nothing).
 * Leaves this rank's median create time and the most it opened in the report.
 * Collective. */
static shardtab_status_t time_second_table(ms_run_t *run)
{
    shardtab_create_params_t create = {.alignment = sizeof(double)};
    shardtab_status_t status = SHARDTAB_SUCCESS;
    double ms[5];
    int opened = 0;

    for (int k = 0; k < 5 && status == SHARDTAB_SUCCESS; k++) {
        shardtab_t *second = NULL;
        status = shardtab_create_with(MPI_COMM_WORLD, run->mine.length ? run->shard : NULL,
                                      (size_t)run->mine.length * sizeof(double), &create, &second);
        if (status != SHARDTAB_SUCCESS)
            break;
        ms[k] = shardtab_create_ms(second);
        if (shardtab_peers_opened(second) > opened)
            opened = shardtab_peers_opened(second);
        status = shardtab_destroy(&second);
    }
    if (status == SHARDTAB_SUCCESS) {
        for (int i = 1; i < 5; i++) /* insertion sort of five */
            for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
                double t = ms[j];
                ms[j] = ms[j - 1];
                ms[j - 1] = t;
            }
        run->report.second_create_ms = ms[2];
        run->report.second_opened = opened;
    }
    return status;
}

/* Element g starts as 1 + g mod 7: never all ones, so an indexing slip shows. */
static double initial_value(uint64_t g)
{
    return (double)(1 + g % 7);
}

static shardtab_status_t allocate(ms_run_t *run)
{
    size_t len = (size_t)run->mine.length;
    shardtab_status_t status;

    if (run->mine.length > SIZE_MAX / sizeof(double))
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY,
                                  "a shard of %" PRIu64 " doubles does not fit in memory",
                                  run->mine.length);
    run->staging = malloc(len ? len * sizeof(double) : 1);
    if (run->staging == NULL)
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY,
                                  "malloc of a %zu-byte host staging buffer failed",
                                  len * sizeof(double));
    status = shardtab_mem_alloc(len * sizeof(double), (void **)&run->shard);
    return status;
}

/* The node's index space is its members' shards in node-rank order. */
static shardtab_status_t build_offsets(ms_run_t *run)
{
    int nodes = shardtab_node_size(run->table);
    size_t bytes = ((size_t)nodes + 1) * sizeof(uint64_t);
    shardtab_status_t status;

    run->offsets_host = malloc(bytes);
    if (run->offsets_host == NULL)
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of node offsets failed");
    run->offsets_host[0] = 0;
    for (int q = 0; q < nodes; q++) {
        int member = shardtab_member(run->table, q);
        run->offsets_host[q + 1] =
            run->offsets_host[q] + ms_partition(run->opts.n, run->size, member).length;
    }
    status = shardtab_mem_alloc(bytes, (void **)&run->offsets);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(run->offsets, run->offsets_host, bytes);
    return status;
}

/* ---- one mode ------------------------------------------------------------------ */

static uint64_t shard_length(const ms_run_t *run, int node_rank)
{
    return run->offsets_host[node_rank + 1] - run->offsets_host[node_rank];
}

static shardtab_status_t launch(const ms_run_t *run, unsigned mode)
{
    double *const *table = (double *const *)shardtab_device_table(run->table);
    int me = shardtab_node_rank(run->table), nodes = shardtab_node_size(run->table);
    const char *kernel = "scal_shard";
    int code = 0;

    if (mode == MS_MODE_LOCAL) {
        code = scal_shard(table, me, shard_length(run, me), run->opts.alpha);
    } else if (mode == MS_MODE_RING) {
        int next = (me + 1) % nodes;
        code = scal_shard(table, next, shard_length(run, next), run->opts.alpha);
    } else {
        /* The same shift for every rank, so the stretches tile the node exactly. */
        uint64_t total = run->offsets_host[nodes], shift = total / (uint64_t)nodes / 2;
        scal_range_t range = {
            .table = table,
            .offsets = run->offsets,
            .nshards = nodes,
            .total = total,
            .begin = total ? (run->offsets_host[me] + shift) % total : 0,
            .count = shard_length(run, me),
        };
        kernel = "scal_range";
        code = scal_range(&range, run->opts.alpha);
    }
    if (code != 0)
        return shardtab_error_set(SHARDTAB_ERR_DEVICE, "kernel %s (mode %s) failed: %s", kernel,
                                  ms_mode_name(mode), scal_error_string(code));
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t reset_shard(ms_run_t *run)
{
    for (uint64_t i = 0; i < run->mine.length; i++)
        run->staging[i] = initial_value(run->mine.start + i);
    shardtab_status_t status = shardtab_memcpy_to_device(run->shard, run->staging,
                                                         (size_t)run->mine.length * sizeof(double));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_device_synchronize();
    return status;
}

/* Test hook: MULTI_SCAL_TEST_CORRUPT=<global index> nudges that element by one
 * ulp after the kernels, so the tests can prove the verifier sees a single
 * wrong bit. */
static shardtab_status_t corrupt_for_test(ms_run_t *run)
{
    const char *text = run->corrupt_hook;
    uint64_t g;
    double value;
    char *end;

    if (text == NULL)
        return SHARDTAB_SUCCESS;
    g = strtoull(text, &end, 10);
    if (*end != '\0' || g < run->mine.start || g - run->mine.start >= run->mine.length)
        return SHARDTAB_SUCCESS;
    double *element = run->shard + (g - run->mine.start);
    shardtab_status_t status = shardtab_memcpy_to_host(&value, element, sizeof value);
    value = nextafter(value, INFINITY);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(element, &value, sizeof value);
    return status;
}

/* Compares every element of this rank's shard exactly; then the counts and the
 * first bad element travel to rank 0. */
static shardtab_status_t verify(ms_run_t *run, ms_mode_result_t *res)
{
    uint64_t bad = 0, first = UINT64_MAX, total_bad = 0, global_first = UINT64_MAX;
    double pair[2] = {0.0, 0.0};
    shardtab_status_t status;

    status = shardtab_memcpy_to_host(run->staging, run->shard,
                                     (size_t)run->mine.length * sizeof(double));
    status = app_agree(MPI_COMM_WORLD, status, "the agreement before the verification's counts", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;
    for (uint64_t i = 0; i < run->mine.length; i++) {
        uint64_t g = run->mine.start + i;
        double want = run->expected[g % 7];
        /* memcmp, not ==: exact to the bit, and a NaN never passes */
        if (memcmp(&run->staging[i], &want, sizeof want) != 0) {
            if (bad++ == 0) {
                first = g;
                pair[0] = run->staging[i];
                pair[1] = want;
            }
        }
    }
    app_allreduce(&bad, &total_bad, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD,
                  "the verification's counts");
    app_allreduce(&first, &global_first, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD,
                  "the verification's counts");
    if (total_bad > 0)
        app_bcast(pair, 2, MPI_DOUBLE, ms_partition_owner(run->opts.n, run->size, global_first),
                  MPI_COMM_WORLD, "the verification's first bad element");
    res->mismatches = total_bad;
    res->first_bad = global_first;
    res->got = pair[0];
    res->want = pair[1];
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t run_mode(ms_run_t *run, unsigned mode, ms_mode_result_t *res)
{
    shardtab_status_t status;
    double start, seconds, slowest;

    memset(res, 0, sizeof *res);
    res->mode = mode;
    res->iters = run->opts.iters;
    /* one warm-up launch (module load, first touch of peer memory) out of the
     * clock; the values it changes are reset right after */
    status = launch(run, mode);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_device_synchronize();
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after a mode's warm-up", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;
    status = app_agree(MPI_COMM_WORLD, reset_shard(run), "the agreement after a mode's reset", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;

    app_barrier(MPI_COMM_WORLD, "the barrier before a mode's timed run", 0);
    start = MPI_Wtime();
    for (int it = 0; it < run->opts.iters && status == SHARDTAB_SUCCESS; it++)
        status = launch(run, mode);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_device_synchronize();
    seconds = MPI_Wtime() - start;
    if (status == SHARDTAB_SUCCESS)
        status = corrupt_for_test(run);
    /* also the barrier before verification: every writer of my shard is done */
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after a mode's timed run", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;
    app_allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD,
                  "the slowest rank's time");
    res->seconds = slowest;
    res->gbps = slowest > 0
                    ? 2.0 * sizeof(double) * (double)run->opts.n * run->opts.iters / slowest / 1e9
                    : 0.0;
    return verify(run, res);
}

/* ---- host memory: refuse what cannot fit, fit the defaults -------------------- */

/* Test hook: MULTI_SCAL_TEST_MEMORY=<bytes> stands in for the host memory
 * available, so the tests can run the sizing of a small machine on any
 * machine. */
static uint64_t memory_available(const ms_run_t *run)
{
    const char *text = run->memory_hook;
    unsigned long long bytes;
    char *end;

    if (text) {
        bytes = strtoull(text, &end, 10);
        if (*end == '\0' && bytes > 0)
            return (uint64_t)bytes;
    }
    return shardtab_host_memory_available();
}

/* Shard-sized host buffers a rank holds for the modes: the staging copy, and on
 * the host backend the shard itself, twice while shardtab_create exports it
 * (its pages, and the shared file they are copied into). */
static int mode_host_buffers(void)
{
    return shardtab_backend() == SHARDTAB_BACKEND_HOST ? 3 : 1;
}

/* The ranks of a node allocate at once, so together they must fit in what the
 * node has left (MemAvailable, capped by the cgroup's limit); else the OOM
 * killer ends the job with no message. An explicit size that cannot fit is
 * refused here, before anything is allocated; the bench's default top size is
 * lowered to one that fits. Device memory is the runtime's to refuse. Every
 * rank reaches the same sizes. Collective. */
static shardtab_status_t fit_memory(ms_run_t *run)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    MPI_Comm node;
    int node_ranks, most_ranks;
    uint64_t have = memory_available(run), node_have, spare, least_spare;
    double need, node_need; /* doubles: n * 8 * buffers can pass 2^64 */
    char err[APP_MESSAGE_BYTES], text[3][32];

    /* the split has no bounded form: every rank is there first */
    app_barrier(MPI_COMM_WORLD, "the barrier before the node split", 0);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, run->rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_ranks);
    have = have ? have : UINT64_MAX; /* unknown: no limit */
    need = (double)ms_partition(run->opts.n, run->size, run->rank).length * sizeof(double) *
           mode_host_buffers();
    app_allreduce(&have, &node_have, 1, MPI_UINT64_T, MPI_MIN, node, "the node's memory check");
    app_allreduce(&need, &node_need, 1, MPI_DOUBLE, MPI_SUM, node, "the node's memory check");
    MPI_Comm_free(&node);
    if (node_need > (double)node_have)
        status = shardtab_error_set(
            SHARDTAB_ERR_INVALID_ARG,
            "--n %" PRIu64 " (%s of doubles) does not fit in host memory: the %d ranks of this "
            "node need %s (%d buffers of a shard each), and %s is available; use a smaller --n "
            "or more nodes",
            run->opts.n,
            ms_human_bytes((double)run->opts.n * sizeof(double), text[0], sizeof text[0]),
            node_ranks, ms_human_bytes(node_need, text[1], sizeof text[1]), mode_host_buffers(),
            ms_human_bytes((double)node_have, text[2], sizeof text[2]));
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on host memory", 0);
    if (status != SHARDTAB_SUCCESS || !(run->opts.bench || run->opts.bench_pairs))
        return status;

    /* the bench's buffers come on top of the modes' shard; the fullest node
     * and the least memory left decide, so that every rank sweeps the same sizes */
    spare = node_have == UINT64_MAX ? UINT64_MAX : node_have - (uint64_t)node_need;
    app_allreduce(&spare, &least_spare, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD,
                  "the job's memory check");
    app_allreduce(&node_ranks, &most_ranks, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                  "the job's memory check");
    if (ms_bench_fit(&run->opts, least_spare == UINT64_MAX ? 0 : least_spare, most_ranks,
                     ms_bench_host_buffers(shardtab_backend()), &run->fit, err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    else
        run->opts.bench_max = run->fit.top;
    return app_agree(MPI_COMM_WORLD, status, "the agreement on host memory", 0);
}

/* ---- main ---------------------------------------------------------------------- */

/* Tears down in reverse order of set-up; keeps going past a failure and
 * returns the first. Collective (shardtab_destroy). */
static shardtab_status_t release(ms_run_t *run)
{
    shardtab_status_t first = SHARDTAB_SUCCESS, s;

    if (run->table && (s = shardtab_destroy(&run->table)) != SHARDTAB_SUCCESS)
        first = s;
    if ((s = shardtab_mem_free(run->offsets)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    if ((s = shardtab_mem_free(run->shard)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    free(run->offsets_host);
    free(run->staging);
    return first;
}

int main(int argc, char **argv)
{
    static const unsigned mode_order[] = {MS_MODE_LOCAL, MS_MODE_RING, MS_MODE_GLOBAL};
    shardtab_init_params_t params = {0};
    shardtab_status_t status;
    ms_run_t run;
    char err[APP_MESSAGE_BYTES];
    ms_bench_row_t *bench_rows = NULL;
    ms_peer_pair_t *peer_pairs = NULL;
    double *pair_gbps = NULL;
    int exit_code = 0, failed = 0;

    memset(&run, 0, sizeof run);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &run.size);
    app_bound_init("multi_scal");

    /* ---- options and tuning variables: every rank parses, rank 0 speaks ---- */
    ms_parse_result_t parsed = ms_options_parse(argc, argv, &run.opts, err, sizeof err);
    if (parsed == MS_PARSE_OK && ms_tuning_from_env(&run.opts, err, sizeof err) != 0)
        parsed = MS_PARSE_ERROR;
    switch (parsed) {
    case MS_PARSE_HELP:
        if (run.rank == 0)
            fputs(ms_usage_text(), stdout);
        MPI_Finalize();
        return 0;
    case MS_PARSE_VERSION:
        app_say_version("multi_scal", run.rank);
        MPI_Finalize();
        return 0;
    case MS_PARSE_ERROR:
        if (run.rank == 0)
            fprintf(stderr, "multi_scal: %s\nTry 'multi_scal --help' for more information.\n", err);
        MPI_Finalize();
        return 2;
    case MS_PARSE_OK:
        break;
    }
    /* the test hooks: a build without them refuses each one that is set */
    if (test_hook_read("MULTI_SCAL_TEST_CORRUPT", &run.corrupt_hook, err, sizeof err) != 0 ||
        test_hook_read("MULTI_SCAL_TEST_MEMORY", &run.memory_hook, err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    else
        status = SHARDTAB_SUCCESS;
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the options", 0);
    if (status == SHARDTAB_SUCCESS)
        status = fit_memory(&run);
    if (status == SHARDTAB_SUCCESS)
        status = app_agree(MPI_COMM_WORLD, ms_report_open_json(&run.report, &run.opts, run.rank),
                           "the agreement on the JSON file", 0);
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("multi_scal", run.rank, shardtab_last_error());
        MPI_Finalize();
        return 2;
    }
    run.report.fit = run.fit;

    if (run.opts.variant >= 0)
        scal_set_variant(run.opts.variant);
    (void)scal_set_tuning(run.opts.blocks_per_sm,
                          run.opts.chunk_shape); /* checked by the options */

    /* ---- device, shard, table ---- */
    params.allow_shared_device = run.opts.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &params);
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("multi_scal", run.rank, shardtab_last_error());
        ms_report_discard_json(&run.report);
        MPI_Finalize();
        return app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    }
    run.mine = ms_partition(run.opts.n, run.size, run.rank);
    for (int k = 0; k < 7; k++) {
        run.expected[k] = initial_value((uint64_t)k);
        for (int it = 0; it < run.opts.iters; it++)
            run.expected[k] = run.expected[k] * run.opts.alpha;
    }
    status = app_agree(MPI_COMM_WORLD, allocate(&run), "the agreement after the allocations", 0);
    if (status == SHARDTAB_SUCCESS) {
        /* the kernels load doubles, two at a time once 16-byte aligned */
        shardtab_create_params_t create = {.alignment = sizeof(double)};
        status =
            shardtab_create_with(MPI_COMM_WORLD, run.mine.length ? run.shard : NULL,
                                 (size_t)run.mine.length * sizeof(double), &create, &run.table);
    }
    if (status == SHARDTAB_SUCCESS)
        status = app_agree(MPI_COMM_WORLD, time_second_table(&run),
                           "the agreement after the second table", 0);
    if (status == SHARDTAB_SUCCESS)
        status =
            app_agree(MPI_COMM_WORLD, build_offsets(&run), "the agreement after the offsets", 0);
    /* every shard holds its values before any kernel, the warm-ups included,
     * reads it (compute-sanitizer initcheck found the gap) */
    if (status == SHARDTAB_SUCCESS)
        status =
            app_agree(MPI_COMM_WORLD, reset_shard(&run), "the agreement after the first reset", 0);
    if (status == SHARDTAB_SUCCESS)
        status = ms_report_header(&run.report, &run.opts, run.table, run.mine);

    /* ---- --check-peers: every pair written and verified, instead of the modes ---- */
    if (status == SHARDTAB_SUCCESS && run.opts.check_peers) {
        ms_check_peers_args_t check = {run.table, run.shard, run.staging, run.offsets_host};
        int all_ok = 0;
        status = ms_check_peers(&check, &all_ok, &peer_pairs, &run.report.npairs);
        run.report.pairs = peer_pairs;
        failed |= !all_ok;
    }

    /* ---- --bench: the sweep, verified, instead of the modes ---- */
    if (status == SHARDTAB_SUCCESS && run.opts.bench) {
        int verified = 0, nrows = 0;
        status = ms_bench_run(&run.opts, &bench_rows, &nrows, &verified);
        if (status == SHARDTAB_SUCCESS)
            ms_report_bench(&run.report, bench_rows, nrows, verified);
        failed |= !verified;
    }

    /* ---- --bench-pairs: the pairwise matrix, verified, instead of the modes ---- */
    if (status == SHARDTAB_SUCCESS && run.opts.bench_pairs) {
        int verified = 0, n = 0;
        status = ms_bench_pairs(&run.opts, &pair_gbps, &n, &verified);
        if (status == SHARDTAB_SUCCESS)
            ms_report_pairs(&run.report, pair_gbps, n, verified);
        failed |= !verified;
    }

    /* ---- the modes, each verified ---- */
    for (size_t m = 0; m < 3 && status == SHARDTAB_SUCCESS && !run.opts.check_peers &&
                       !run.opts.bench && !run.opts.bench_pairs;
         m++) {
        ms_mode_result_t res;
        if (!(run.opts.modes & mode_order[m]))
            continue;
        status = run_mode(&run, mode_order[m], &res);
        if (status == SHARDTAB_SUCCESS) {
            ms_report_mode(&run.report, &res);
            failed |= res.mismatches > 0;
        }
    }

    /* Teardown failures count too: a leaked mapping is a failed run. */
    {
        shardtab_status_t released =
            app_agree(MPI_COMM_WORLD, release(&run), "the agreement after the teardown", 0);
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("multi_scal", run.rank, shardtab_last_error());
        exit_code = app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    } else if (failed) {
        exit_code = 1;
    }
    shardtab_finalize();
    if (status == SHARDTAB_SUCCESS)
        exit_code = ms_report_finish(&run.report, exit_code);
    else
        ms_report_discard_json(&run.report);
    free(bench_rows);
    free(peer_pairs);
    free(pair_gbps);
    MPI_Finalize();
    return exit_code;
}
