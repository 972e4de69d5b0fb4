/* halo_exchange.c - a halo exchange between neighbours through the table: a
 * line of cells split over the ranks (1-D decomposition), a three-point
 * stencil a step; each step every rank writes its end cells into its
 * neighbours' ghost cells with put-with-signal and waits for theirs
 * (halo_exchange.h). The result is checked exactly against the same steps
 * computed serially over the whole line.
 *
 * USAGE  mpiexec -n N ./halo_exchange [--n CELLS] [--iters STEPS] [--allow-shared-gpu]
 *   --n                 cells of the whole line, at least N (default 1000)
 *   --iters             steps, 1 to 20 (default 10)
 *   --allow-shared-gpu  let ranks share a GPU (more ranks than GPUs)
 * Every rank must be on one node (a table reaches the ranks of its node).
 * Prints "halo_exchange: OK ..." from rank 0 and exits 0; exits 1 when a
 * cell differs, 2 on bad usage.
 *
 * Exact: the cells start as multiples of 1/8 and each step adds two bits
 * (0.25, 0.5), so 20 steps stay within a double's 53: the GPUs' fused
 * multiply-adds and the serial loop give the same bits. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define EXAMPLE_NAME "halo_exchange"
#include "example.h"
#include "halo_exchange.h"

#define LEFT_BOUNDARY 5.0 /* the line's outer ghost cells, fixed */
#define RIGHT_BOUNDARY -3.0

static double initial(size_t global_cell)
{
    return 0.125 * (double)((global_cell * 37) % 101) - 4.0;
}

/* rank r's cells: [first, first + count) of the line, as even as can be */
static size_t cells_of(size_t n, int size, int r)
{
    return n / (size_t)size + ((size_t)r < n % (size_t)size);
}
static size_t first_of(size_t n, int size, int r)
{
    size_t rest = n % (size_t)size;
    return (size_t)r * (n / (size_t)size) + ((size_t)r < rest ? (size_t)r : rest);
}

int main(int argc, char **argv)
{
    long n = 1000, iters = 10, shared_gpu = 0;
    example_option_t options[] = {{"--n", 1, 100000000, &n},
                                  {"--iters", 1, 20, &iters},
                                  {"--allow-shared-gpu", 0, 0, &shared_gpu}};
    int rank, size;

    if (example_start(&argc, &argv, options, 3, &rank, &size) != 0)
        return 2;
    if (n < size) {
        if (rank == 0)
            fprintf(stderr, "%s: --n %ld: fewer cells than the %d ranks\n", EXAMPLE_NAME, n, size);
        MPI_Finalize();
        return 2;
    }

    /* 1. this rank's part of the line: two buffers of ghost + cells + ghost, in
     * memory that the neighbours may write while this rank's kernels run */
    shardtab_init_params_t init = {.allow_shared_device = (int)shared_gpu};
    EXAMPLE_CALL(shardtab_init(MPI_COMM_WORLD, &init));
    const size_t cells = cells_of((size_t)n, size, rank), first = first_of((size_t)n, size, rank);
    const size_t bytes = 2 * (cells + 2) * sizeof(double);
    double *shard = NULL, *host = example_host(bytes);
    EXAMPLE_CALL(shardtab_mem_alloc_coherent(bytes, (void **)&shard));
    shardtab_t *table = NULL;
    EXAMPLE_CALL(shardtab_create(MPI_COMM_WORLD, shard, bytes, &table));
    if (shardtab_node_count(table) != 1) { /* every rank knows it: all leave alike */
        if (rank == 0)
            fprintf(stderr, "%s: the ranks are on %d nodes; run them on one\n", EXAMPLE_NAME,
                    shardtab_node_count(table));
        EXAMPLE_CALL(shardtab_destroy(&table));
        EXAMPLE_CALL(shardtab_mem_free(shard));
        EXAMPLE_CALL(shardtab_finalize());
        free(host);
        MPI_Finalize();
        return 2;
    }

    /* 2. the neighbours, as node ranks, and their sizes */
    halo_layout_t layout = {.left = rank > 0 ? shardtab_node_rank_of(table, rank - 1) : -1,
                            .right = rank < size - 1 ? shardtab_node_rank_of(table, rank + 1) : -1,
                            .cells = cells,
                            .left_cells = rank > 0 ? cells_of((size_t)n, size, rank - 1) : 0,
                            .right_cells =
                                rank < size - 1 ? cells_of((size_t)n, size, rank + 1) : 0};

    /* 3. both buffers: the cells, and the line's ends in the outer ghost cells */
    for (uint64_t b = 0; b < 2; b++) {
        host[halo_index(cells, b, 0)] = rank == 0 ? LEFT_BOUNDARY : 0.0;
        host[halo_index(cells, b, cells + 1)] = rank == size - 1 ? RIGHT_BOUNDARY : 0.0;
        for (size_t c = 1; c <= cells; c++)
            host[halo_index(cells, b, c)] = initial(first + c - 1);
    }
    EXAMPLE_CALL(shardtab_memcpy_to_device(shard, host, bytes));
    MPI_Barrier(MPI_COMM_WORLD); /* every shard set before any neighbour writes into it */

    /* 4. the steps: the signals order them, no host synchronization between */
    shardtab_signals_t sig;
    EXAMPLE_CALL(shardtab_signals(table, &sig));
    for (long s = 0; s < iters; s++) {
        const char *why =
            halo_exchange_step(&sig, shardtab_device_table(table), layout, (uint64_t)s);
        if (why != NULL) {
            fprintf(stderr, "%s: rank %d: step %ld did not launch: %s\n", EXAMPLE_NAME, rank, s,
                    why);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    shardtab_status_t status = shardtab_device_synchronize();
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(table); /* did a wait give up? */
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS)
        example_abort("the steps", status);

    /* 5. the same steps serially over the whole line; every cell compared */
    double *line = example_host(2 * ((size_t)n + 2) * sizeof(double));
    for (uint64_t b = 0; b < 2; b++) {
        line[halo_index((size_t)n, b, 0)] = LEFT_BOUNDARY;
        line[halo_index((size_t)n, b, (size_t)n + 1)] = RIGHT_BOUNDARY;
        for (size_t c = 1; c <= (size_t)n; c++)
            line[halo_index((size_t)n, b, c)] = initial(c - 1);
    }
    for (uint64_t s = 0; s < (uint64_t)iters; s++) {
        const double *cur = line + halo_index((size_t)n, s, 0);
        double *next = line + halo_index((size_t)n, s + 1, 0);
        for (size_t c = 1; c <= (size_t)n; c++)
            next[c] = halo_update(cur[c - 1], cur[c], cur[c + 1]);
    }
    long wrong = 0;
    EXAMPLE_CALL(shardtab_memcpy_to_host(host, shard, bytes));
    for (size_t c = 1; c <= cells; c++) {
        double got = host[halo_index(cells, (uint64_t)iters, c)];
        double want = line[halo_index((size_t)n, (uint64_t)iters, first + c)];
        if (got != want && wrong++ == 0)
            fprintf(stderr, "%s: rank %d: cell %zu is %.17g after %ld steps, serially %.17g\n",
                    EXAMPLE_NAME, rank, first + c - 1, got, iters, want);
    }

    char what[160];
    snprintf(what, sizeof what,
             "(%d ranks, backend %s, %ld cells, %ld steps, every cell as the "
             "serial steps give it)",
             size, shardtab_backend_name(shardtab_backend()), n, iters);
    EXAMPLE_CALL(shardtab_destroy(&table));
    EXAMPLE_CALL(shardtab_mem_free(shard));
    EXAMPLE_CALL(shardtab_finalize());
    free(line);
    free(host);
    int exit_status = example_verdict(wrong, what);
    MPI_Finalize();
    return exit_status;
}
