/* stream_collectives.c - the host-called collectives on a stream, over the
 * table's shards (shardtab.h): an all-reduce (sum) of each rank's doubles and
 * an all-gather of each rank's int64s, in place, in regions of every rank's
 * shard. Every element is checked exactly, and the bytes before the regions
 * must be untouched.
 *
 * USAGE  mpiexec -n N ./stream_collectives [--n ELEMENTS] [--allow-shared-gpu]
 *   --n                 doubles each rank contributes to the sum (default 1000)
 *   --allow-shared-gpu  let ranks share a GPU (more ranks than GPUs)
 * Prints "stream_collectives: OK ..." from rank 0 and exits 0; exits 1 when
 * a value differs, 2 on bad usage.
 *
 * Offsets are BYTES from the start of each rank's shard, counts are ELEMENTS
 * of the type (in C and Fortran; Python's offsets are elements). Shard layout:
 *   bytes [0, 16)                  two doubles the calls must leave alone
 *   bytes [16, 16 + 8n)            n doubles: the sum's region
 *   then size * GATHERED int64s    the all-gather's region, rank r's at r * GATHERED */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define EXAMPLE_NAME "stream_collectives"
#include "example.h"

#include <stdint.h>

#define GATHERED 3 /* int64s each rank contributes to the all-gather */

/* rank r's doubles: multiples of 1/8 far below 2^53, so that the sum of any
 * number of them is exact in any order: the expected bits are known */
static double summand(int rank, size_t i)
{
    return 1024.0 * (rank + 1) + 0.125 * (double)(i % 1000) - 3.0 * rank;
}

static int64_t gathered(int rank, int j)
{
    return (int64_t)(rank + 1) * 1000003 * (j + 1) - 7;
}

int main(int argc, char **argv)
{
    long n = 1000, shared_gpu = 0;
    example_option_t options[] = {{"--n", 1, 100000000, &n},
                                  {"--allow-shared-gpu", 0, 0, &shared_gpu}};
    int rank, size;

    if (example_start(&argc, &argv, options, 2, &rank, &size) != 0)
        return 2;

    /* the shard's layout, in bytes */
    const double guard[2] = {7.5, -2.25};
    const size_t sum_offset = sizeof guard;
    const size_t gather_offset = sum_offset + (size_t)n * sizeof(double);
    const size_t bytes = gather_offset + (size_t)size * GATHERED * sizeof(int64_t);

    shardtab_init_params_t init = {.allow_shared_device = (int)shared_gpu};
    EXAMPLE_CALL(shardtab_init(MPI_COMM_WORLD, &init));
    char *shard = NULL, *host = example_host(bytes);
    EXAMPLE_CALL(shardtab_mem_alloc(bytes, (void **)&shard));
    shardtab_t *table = NULL;
    EXAMPLE_CALL(shardtab_create(MPI_COMM_WORLD, shard, bytes, &table));

    /* this rank's values, copied into its shard */
    double *sums = (double *)(host + sum_offset);
    int64_t *all = (int64_t *)(host + gather_offset);
    memcpy(host, guard, sizeof guard);
    for (size_t i = 0; i < (size_t)n; i++)
        sums[i] = summand(rank, i);
    for (int k = 0; k < size * GATHERED; k++)
        all[k] = k / GATHERED == rank ? gathered(rank, k % GATHERED) : -1;
    EXAMPLE_CALL(shardtab_memcpy_to_device(shard, host, bytes));

    /* the collectives: every rank, same order, same arguments; byte offsets,
     * counts in elements; enqueued on the stream (NULL: the default stream;
     * any hipStream_t or cudaStream_t), run at once on the host backend */
    shardtab_stream_t stream = NULL;
    shardtab_status_t status =
        shardtab_all_reduce(table, SHARDTAB_SUM, SHARDTAB_DOUBLE, sum_offset, (size_t)n, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_all_gather(table, SHARDTAB_INT64, gather_offset, GATHERED, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(table);       /* did the node refuse a call? */
    status = shardtab_agree(MPI_COMM_WORLD, status); /* one verdict, every rank */
    if (status != SHARDTAB_SUCCESS)
        example_abort("the collectives", status);

    /* check every byte of the shard */
    long wrong = 0;
    EXAMPLE_CALL(shardtab_memcpy_to_host(host, shard, bytes));
    if (memcmp(host, guard, sizeof guard) != 0 && wrong++ == 0)
        fprintf(stderr, "%s: rank %d: the bytes before byte %zu changed\n", EXAMPLE_NAME, rank,
                sum_offset);
    for (size_t i = 0; i < (size_t)n; i++) {
        double want = 0.0;
        for (int r = 0; r < size; r++)
            want += summand(r, i);
        if (sums[i] != want && wrong++ == 0)
            fprintf(stderr, "%s: rank %d: sum element %zu is %.17g, expected %.17g\n", EXAMPLE_NAME,
                    rank, i, sums[i], want);
    }
    for (int k = 0; k < size * GATHERED; k++) {
        int64_t want = gathered(k / GATHERED, k % GATHERED);
        if (all[k] != want && wrong++ == 0)
            fprintf(stderr, "%s: rank %d: gathered element %d is %lld, expected %lld\n",
                    EXAMPLE_NAME, rank, k, (long long)all[k], (long long)want);
    }

    char what[160];
    snprintf(what, sizeof what,
             "(%d ranks, backend %s, sum of %ld doubles at byte %zu, all-gather of %d int64s a "
             "rank at byte %zu)",
             size, shardtab_backend_name(shardtab_backend()), n, sum_offset, GATHERED,
             gather_offset);
    EXAMPLE_CALL(shardtab_destroy(&table));
    EXAMPLE_CALL(shardtab_mem_free(shard));
    EXAMPLE_CALL(shardtab_finalize());
    free(host);
    int exit_status = example_verdict(wrong, what);
    MPI_Finalize();
    return exit_status;
}
