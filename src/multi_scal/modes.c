/* modes.c - one of multi_scal's modes (local, ring, global) run through the
 * table, timed, and every element of every shard verified exactly. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "scal.h"

double ms_initial_value(uint64_t g)
{
    return (double)(1 + g % 7);
}

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

shardtab_status_t ms_mode_reset(ms_run_t *run)
{
    for (uint64_t i = 0; i < run->mine.length; i++)
        run->staging[i] = ms_initial_value(run->mine.start + i);
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

shardtab_status_t ms_mode_run(ms_run_t *run, unsigned mode, ms_mode_result_t *res)
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
    status = app_agree(MPI_COMM_WORLD, ms_mode_reset(run), "the agreement after a mode's reset", 0);
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
