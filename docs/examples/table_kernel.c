/* table_kernel.c - the table and a kernel: each rank allocates its shard
 * through the library, the node's ranks make one table of their shards, and
 * a kernel on each rank reads the next node rank's shard through the table and
 * writes into its own. Every output element is then checked exactly.
 *
 * USAGE  mpiexec -n N ./table_kernel [--n ELEMENTS] [--allow-shared-gpu]
 *   --n                 doubles in each rank's input (default 1000)
 *   --allow-shared-gpu  let ranks share a GPU (more ranks than GPUs)
 * Prints "table_kernel: OK ..." from rank 0 and exits 0; exits 1 when an
 * element differs (each rank names its first), 2 on bad usage.
 *
 * The device code is table_kernel.hip on GPUs and table_kernel_host.c on the
 * host backend, both around one element written once (table_kernel.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define EXAMPLE_NAME "table_kernel"
#include "example.h"
#include "table_kernel.h"

/* rank r's input: different on every rank and element, exact in a double */
static double input_value(int rank, size_t i)
{
    return 1000.0 * rank + 0.25 * (double)i + 0.5;
}

int main(int argc, char **argv)
{
    long n = 1000, shared_gpu = 0;
    example_option_t options[] = {{"--n", 1, 100000000, &n},
                                  {"--allow-shared-gpu", 0, 0, &shared_gpu}};
    int rank, size;

    if (example_start(&argc, &argv, options, 2, &rank, &size) != 0)
        return 2;

    /* 1. bind this rank's device, allocate the shard there: input, then output */
    shardtab_init_params_t init = {.allow_shared_device = (int)shared_gpu};
    EXAMPLE_CALL(shardtab_init(MPI_COMM_WORLD, &init));
    size_t bytes = 2 * (size_t)n * sizeof(double);
    double *shard = NULL, *host = example_host(bytes);
    EXAMPLE_CALL(shardtab_mem_alloc(bytes, (void **)&shard));

    /* 2. the table of the node's shards (collective) */
    shardtab_t *table = NULL;
    EXAMPLE_CALL(shardtab_create(MPI_COMM_WORLD, shard, bytes, &table));
    int me = shardtab_node_rank(table), next = (me + 1) % shardtab_node_size(table);
    int next_rank = shardtab_member(table, next);

    /* 3. the input, copied in (never written from the host), and every rank's in
     * place before any kernel reads it */
    for (size_t i = 0; i < (size_t)n; i++)
        host[i] = input_value(rank, i);
    EXAMPLE_CALL(shardtab_memcpy_to_device(shard, host, (size_t)n * sizeof(double)));
    MPI_Barrier(MPI_COMM_WORLD);

    /* 4. the kernel: this rank's output from the next node rank's input */
    const char *why = table_kernel_run(shardtab_device_table(table), me, next, (size_t)n);
    if (why != NULL) {
        fprintf(stderr, "%s: rank %d: the kernel did not launch: %s\n", EXAMPLE_NAME, rank, why);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    EXAMPLE_CALL(shardtab_device_synchronize());

    /* 5. check every output element exactly */
    long wrong = 0;
    EXAMPLE_CALL(shardtab_memcpy_to_host(host, shard + n, (size_t)n * sizeof(double)));
    for (size_t i = 0; i < (size_t)n; i++) {
        double want = 2.0 * input_value(next_rank, i) - (double)i;
        if (host[i] != want && wrong++ == 0)
            fprintf(stderr, "%s: rank %d: output element %zu is %.17g, expected %.17g\n",
                    EXAMPLE_NAME, rank, i, host[i], want);
    }

    char what[160];
    snprintf(what, sizeof what,
             "(%d ranks, backend %s, %ld doubles a rank, each read its node "
             "neighbour's shard in a kernel)",
             size, shardtab_backend_name(shardtab_backend()), n);

    /* 6. every kernel has finished (synchronized above): tear down */
    EXAMPLE_CALL(shardtab_destroy(&table));
    EXAMPLE_CALL(shardtab_mem_free(shard));
    EXAMPLE_CALL(shardtab_finalize());
    free(host);
    int status = example_verdict(wrong, what);
    MPI_Finalize();
    return status;
}
