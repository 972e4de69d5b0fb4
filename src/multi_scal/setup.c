/* setup.c - multi_scal's start, set-up and teardown on every rank (run.h):
 * the command line and hooks, the sizes refused or fitted to host memory
 * before anything is allocated, then the shard, the tables and the node's
 * index space. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bench.h"
#include "bounded.h"
#include "job.h"
#include "cli.h"
#include "scal.h"
#include "test_hooks.h"

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

int ms_setup_start(ms_run_t *run, int argc, char **argv)
{
    shardtab_status_t status;
    char err[APP_MESSAGE_BYTES];

    ms_parse_result_t parsed = ms_options_parse(argc, argv, &run->opts, err, sizeof err);
    if (parsed == MS_PARSE_OK && ms_tuning_from_env(&run->opts, err, sizeof err) != 0)
        parsed = MS_PARSE_ERROR;
    switch (parsed) {
    case MS_PARSE_HELP:
        if (run->rank == 0)
            fputs(app_opt_usage_text(&ms_option_table), stdout);
        return 0;
    case MS_PARSE_VERSION:
        app_say_version("multi_scal", run->rank);
        return 0;
    case MS_PARSE_ERROR:
        if (run->rank == 0)
            fprintf(stderr, "multi_scal: %s\nTry 'multi_scal --help' for more information.\n", err);
        return 2;
    case MS_PARSE_OK:
        break;
    }
    /* the test hooks: a build without them refuses each one that is set */
    if (test_hook_read("MULTI_SCAL_TEST_CORRUPT", &run->corrupt_hook, err, sizeof err) != 0 ||
        test_hook_read("MULTI_SCAL_TEST_MEMORY", &run->memory_hook, err, sizeof err) != 0)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    else
        status = SHARDTAB_SUCCESS;
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the options", 0);
    if (status == SHARDTAB_SUCCESS)
        status = fit_memory(run);
    if (status == SHARDTAB_SUCCESS)
        status = app_agree(MPI_COMM_WORLD, ms_report_open_json(&run->report, &run->opts, run->rank),
                           "the agreement on the JSON file", 0);
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("multi_scal", run->rank, shardtab_last_error());
        return 2;
    }
    run->report.fit = run->fit;

    if (run->opts.variant >= 0)
        scal_set_variant(run->opts.variant);
    (void)scal_set_tuning(run->opts.blocks_per_sm,
                          run->opts.chunk_shape); /* checked by the options */
    return -1;
}

/* ---- the shard and the tables ---------------------------------------------------- */

/* A table over this rank's shard (none where it is empty); the kernels load
 * doubles, two at a time once 16-byte aligned. Collective. */
static shardtab_status_t create_table(const ms_run_t *run, shardtab_t **table)
{
    shardtab_create_params_t create = {.alignment = sizeof(double)};

    return shardtab_create_with(MPI_COMM_WORLD, run->mine.length ? run->shard : NULL,
                                (size_t)run->mine.length * sizeof(double), &create, table);
}

/* A second table over the same shards, made and destroyed 5 times: what a
 * create costs when every peer allocation is open already (it opens nothing).
 * Leaves this rank's median create time and the most it opened in the report.
 * Collective. */
static shardtab_status_t time_second_table(ms_run_t *run)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    double ms[5];
    int opened = 0;

    for (int k = 0; k < 5 && status == SHARDTAB_SUCCESS; k++) {
        shardtab_t *second = NULL;
        status = create_table(run, &second);
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

shardtab_status_t ms_setup_device(ms_run_t *run)
{
    shardtab_status_t status;

    run->mine = ms_partition(run->opts.n, run->size, run->rank);
    for (int k = 0; k < 7; k++) {
        run->expected[k] = ms_initial_value((uint64_t)k);
        for (int it = 0; it < run->opts.iters; it++)
            run->expected[k] = run->expected[k] * run->opts.alpha;
    }
    status = app_agree(MPI_COMM_WORLD, allocate(run), "the agreement after the allocations", 0);
    if (status == SHARDTAB_SUCCESS)
        status = create_table(run, &run->table);
    if (status == SHARDTAB_SUCCESS)
        status = app_agree(MPI_COMM_WORLD, time_second_table(run),
                           "the agreement after the second table", 0);
    if (status == SHARDTAB_SUCCESS)
        status =
            app_agree(MPI_COMM_WORLD, build_offsets(run), "the agreement after the offsets", 0);
    /* every shard holds its values before any kernel, the warm-ups included,
     * reads it (compute-sanitizer initcheck found the gap) */
    if (status == SHARDTAB_SUCCESS)
        status =
            app_agree(MPI_COMM_WORLD, ms_mode_reset(run), "the agreement after the first reset", 0);
    if (status == SHARDTAB_SUCCESS)
        status = ms_report_header(&run->report, &run->opts, run->table, run->mine);
    return status;
}

shardtab_status_t ms_setup_release(ms_run_t *run)
{
    shardtab_status_t first = SHARDTAB_SUCCESS;

    first = app_status_first(first, run->table ? shardtab_destroy(&run->table) : SHARDTAB_SUCCESS);
    first = app_status_first(first, shardtab_mem_free(run->offsets));
    first = app_status_first(first, shardtab_mem_free(run->shard));
    free(run->offsets_host);
    free(run->staging);
    return first;
}
