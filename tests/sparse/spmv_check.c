/* spmv_check.c - the product over the table (kernels/sparse/spmv.h) under
 * mpiexec, on every backend: each rank's rows of a matrix (a generated
 * Poisson matrix or a MatrixMarket file, split by nonzeros as the cg program
 * splits it) times a vector whose shards are the node's table, every column
 * read through the table, every element of the product compared bit for bit
 * with the CPU's (sparse_csr_spmv) on every rank. With --bench N it also times
 * N products, and beside them N device copies of the bytes a product must
 * move at least (the memory's floor, on the same device in the same run):
 * the slowest rank's time, median over rounds, after a warm-up round.
 *
 * Usage: mpiexec -n R spmv_check [--poisson 2d:N|3d:N | --matrix F.mtx]
 *                               [--bench N] [--allow-shared-gpu] [--fault]
 * --fault plants a bug (the test's: one value of the last rank's shard other
 * than the CPU's), which the check must report.
 * Exit 0 verified, 1 a mismatch or a runtime failure, 2 bad usage or a bad
 * matrix (rank 0 prints one message), 77 no device. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shardtab.h"
#include "sparse_csr.h"
#include "sparse_mtx.h"
#include "sparse_poisson.h"
#include "sparse_split.h"
#include "spmv.h"

#define BENCH_ROUNDS 5

/* x_j: a value of every sign and many exponents, never a run of equal ones. */
static double x_value(int64_t j)
{
    const uint64_t h = (uint64_t)j * 0x9E3779B97F4A7C15ull;
    return ((double)(h >> 11) / 9007199254740992.0 - 0.5) * (double)(1 + (j % 7));
}

/* Every rank's verdict: 0 when none failed, else 1 (or 2, bad input, where any
 * rank had it), with rank 0's message, or the first failing rank's. */
static int agree(int code, const char *msg, int rank)
{
    int worst = 0, first = -1, mine = code ? rank : 1 << 30;
    char text[256] = "";

    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst == 0)
        return 0;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == first)
        snprintf(text, sizeof text, "%s", msg);
    MPI_Bcast(text, (int)sizeof text, MPI_CHAR, first, MPI_COMM_WORLD);
    if (rank == 0)
        fprintf(stderr, "spmv_check: error: %s\n", text);
    return worst;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    shardtab_init_params_t init = {0};
    const char *spec = "2d:64", *path = NULL;
    int rank, size, bench = 0, code = 0, fault = 0;
    char err[256] = "";
    sparse_csr_t a = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc && err[0] == '\0'; i++) {
        if (strcmp(argv[i], "--allow-shared-gpu") == 0)
            init.allow_shared_device = 1;
        else if (strcmp(argv[i], "--poisson") == 0 && i + 1 < argc)
            spec = argv[++i];
        else if (strcmp(argv[i], "--matrix") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strcmp(argv[i], "--fault") == 0)
            fault = 1;
        else if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > 1000000)
                snprintf(err, sizeof err, "invalid --bench '%s': expected 1 to 1000000 products",
                         argv[i]);
            bench = (int)n;
        } else
            snprintf(err, sizeof err, "unknown option '%s'", argv[i]);
    }
    /* the matrix, whole on every rank (a check's sizes) */
    if (err[0] == '\0' && path) {
        if (sparse_mtx_read(path, &a, err, sizeof err) != 0)
            code = 2;
    } else if (err[0] == '\0') {
        sparse_poisson_t p;
        if (sparse_poisson_parse(spec, &p, err, sizeof err) != 0 ||
            sparse_poisson_build(&p, &a, err, sizeof err) != 0)
            code = 2;
    } else {
        code = 2;
    }
    if ((code = agree(code, err, rank)) != 0) {
        sparse_csr_free(&a);
        MPI_Finalize();
        return code;
    }
    shardtab_status_t status = shardtab_init(MPI_COMM_WORLD, &init);
    if (status == SHARDTAB_ERR_NO_DEVICE) {
        if (rank == 0)
            printf("# spmv_check: skipped (%s)\n", shardtab_last_error());
        sparse_csr_free(&a);
        MPI_Finalize();
        return 77;
    }

    /* the rows split by nonzeros; this rank's slice of them */
    int64_t *first_row = malloc((size_t)(size + 1) * sizeof *first_row);
    if (first_row == NULL || sparse_split_rows(a.row_ptr, a.nrows, size, first_row) != 0) {
        fprintf(stderr, "spmv_check: rank %d: no memory for the split\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int64_t r0 = first_row[rank], rows = first_row[rank + 1] - r0;
    const int64_t e0 = a.row_ptr[r0], nnz = a.row_ptr[r0 + rows] - e0;
    int64_t *row_ptr = malloc((size_t)(rows + 1) * sizeof *row_ptr);
    double *x_host = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *x_host);
    double *y_host = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *y_host);
    double *x_all = malloc((size_t)(a.nrows > 0 ? a.nrows : 1) * sizeof *x_all);
    double *want = malloc((size_t)(a.nrows > 0 ? a.nrows : 1) * sizeof *want);
    if (!row_ptr || !x_host || !y_host || !x_all || !want) {
        fprintf(stderr, "spmv_check: rank %d: no memory for the vectors\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int64_t i = 0; i <= rows; i++)
        row_ptr[i] = a.row_ptr[r0 + i] - e0;
    for (int64_t j = 0; j < a.nrows; j++)
        x_all[j] = x_value(j);
    for (int64_t i = 0; i < rows; i++)
        x_host[i] = x_all[r0 + i];
    /* the planted bug: the first value of x of the last rank with rows is not
     * the one the CPU multiplies, so the rows that read it differ, the rank
     * before's too (through the table) */
    int planted = size - 1;
    while (planted > 0 && first_row[planted + 1] == first_row[planted])
        planted--;
    if (fault && rank == planted)
        x_host[0] = -x_host[0];
    sparse_csr_spmv(&a, x_all, want);

    /* device copies; x's shard is the table's */
    double *x = NULL, *y = NULL, *val = NULL;
    int64_t *d_row_ptr = NULL, *d_first = NULL;
    int32_t *col = NULL;
    shardtab_t *table = NULL;
    const size_t xb = (size_t)rows * sizeof(double);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(xb > 0 ? xb : 8, (void **)&x);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(xb > 0 ? xb : 8, (void **)&y);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)(rows + 1) * sizeof(int64_t), (void **)&d_row_ptr);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int32_t), (void **)&col);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(double), (void **)&val);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)(size + 1) * sizeof(int64_t), (void **)&d_first);
    if (status == SHARDTAB_SUCCESS && rows > 0)
        status = shardtab_memcpy_to_device(x, x_host, xb);
    if (status == SHARDTAB_SUCCESS)
        status =
            shardtab_memcpy_to_device(d_row_ptr, row_ptr, (size_t)(rows + 1) * sizeof(int64_t));
    if (status == SHARDTAB_SUCCESS && nnz > 0)
        status = shardtab_memcpy_to_device(col, a.col + e0, (size_t)nnz * sizeof(int32_t));
    if (status == SHARDTAB_SUCCESS && nnz > 0)
        status = shardtab_memcpy_to_device(val, a.val + e0, (size_t)nnz * sizeof(double));
    if (status == SHARDTAB_SUCCESS)
        status =
            shardtab_memcpy_to_device(d_first, first_row, (size_t)(size + 1) * sizeof(int64_t));
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_create(MPI_COMM_WORLD, x, xb, &table);
    snprintf(err, sizeof err, "%s", status == SHARDTAB_SUCCESS ? "" : shardtab_last_error());
    code = status == SHARDTAB_SUCCESS ? 0 : 1;
    /* the product reads x through one node's table: a node rank is the comm rank */
    if (code == 0 && shardtab_node_rank(table) != rank) {
        snprintf(err, sizeof err, "rank %d is node rank %d: the split is by comm rank", rank,
                 shardtab_node_rank(table));
        code = 1;
    }
    if (code == 0 && shardtab_node_count(table) != 1) {
        snprintf(err, sizeof err,
                 "the %d ranks span %d nodes: the product reads x through one node's table", size,
                 shardtab_node_count(table));
        code = 2;
    }
    if ((code = agree(code, err, rank)) != 0)
        goto out;

    /* the product, then every element against the CPU's */
    const spmv_rows_t m = {
        rows, d_row_ptr, col, val, d_first, size, (double *const *)shardtab_device_table(table),
        NULL}; /* one node: no ghosts */
    int rc = spmv(&m, y, NULL);
    status = rc == 0 ? shardtab_device_synchronize() : SHARDTAB_ERR_DEVICE;
    if (status == SHARDTAB_SUCCESS && rows > 0)
        status = shardtab_memcpy_to_host(y_host, y, xb);
    int64_t wrong = 0, first_wrong = -1;
    for (int64_t i = 0; i < rows && status == SHARDTAB_SUCCESS; i++)
        if (memcmp(&y_host[i], &want[r0 + i], sizeof(double)) != 0 && wrong++ == 0)
            first_wrong = r0 + i;
    if (status != SHARDTAB_SUCCESS)
        snprintf(err, sizeof err, "rank %d: the product: %s", rank,
                 rc ? spmv_error_string(rc) : shardtab_last_error());
    else if (wrong)
        snprintf(err, sizeof err,
                 "rank %d: %lld of its %lld rows differ from the CPU's, the first row %lld: %.17g, "
                 "expected %.17g",
                 rank, (long long)wrong, (long long)rows, (long long)first_wrong,
                 y_host[first_wrong - r0], want[first_wrong]);
    if ((code = agree(status != SHARDTAB_SUCCESS || wrong, err, rank)) != 0)
        goto out;
    if (rank == 0)
        printf("# spmv_check: OK (%lld rows, %lld nonzeros, %d ranks, every element bit for bit "
               "against the CPU's)\n",
               (long long)a.nrows, (long long)a.row_ptr[a.nrows], size);

    /* the rate: the slowest rank's time for bench products, median over rounds;
     * then as many copies of the bytes this rank's product must move at least
     * (its matrix: 12 a nonzero, 8 a row pointer; x once, y once), read and
     * written once each as a copy does */
    if (bench) {
        const size_t mine_bytes =
            (size_t)(12 * nnz + 8 * (rows + 1) + 16 * rows) / 2 / 16 * 16 + 16;
        void *src = NULL, *dst = NULL;
        double t[2][BENCH_ROUNDS];
        int failed;
        rc = shardtab_mem_alloc(mine_bytes, &src) != SHARDTAB_SUCCESS ||
             shardtab_mem_alloc(mine_bytes, &dst) != SHARDTAB_SUCCESS;
        /* every rank goes on or stops together: each round's one reduction
         * carries its time and whether it failed */
        MPI_Allreduce(&rc, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        for (int what = 0; what < 2 && !failed; what++)
            for (int round = -1; round < BENCH_ROUNDS && !failed; round++) {
                MPI_Barrier(MPI_COMM_WORLD);
                const double t0 = MPI_Wtime();
                for (int k = 0; k < bench && rc == 0; k++)
                    rc = what == 0 ? spmv(&m, y, NULL)
                                   : shardtab_memcpy_async(dst, src, mine_bytes, NULL) !=
                                         SHARDTAB_SUCCESS;
                if (rc == 0 && shardtab_device_synchronize() != SHARDTAB_SUCCESS)
                    rc = -1;
                double mine[2] = {MPI_Wtime() - t0, rc != 0}, worst[2];
                MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                failed = worst[1] != 0;
                if (round >= 0)
                    t[what][round] = worst[0] / bench;
            }
        (void)shardtab_mem_free(src);
        (void)shardtab_mem_free(dst);
        snprintf(err, sizeof err, "rank %d: a timed product or copy failed", rank);
        if ((code = agree(rc != 0, err, rank)) != 0)
            goto out;
        qsort(t[0], BENCH_ROUNDS, sizeof t[0][0], cmp_double);
        qsort(t[1], BENCH_ROUNDS, sizeof t[1][0], cmp_double);
        const double ts = t[0][BENCH_ROUNDS / 2], tc = t[1][BENCH_ROUNDS / 2];
        if (rank == 0)
            printf("# spmv_check bench: %lld rows, %lld nonzeros, %d ranks: %.2f us a product, "
                   "%.2f us a copy of its bytes (rank 0: %zu read, %zu written): %.2f x the "
                   "copy's time (median of %d rounds of %d)\n",
                   (long long)a.nrows, (long long)a.row_ptr[a.nrows], size, ts * 1e6, tc * 1e6,
                   mine_bytes, mine_bytes, ts / tc, BENCH_ROUNDS, bench);
    }

out:
    if (table)
        (void)shardtab_destroy(&table);
    (void)shardtab_mem_free(x);
    (void)shardtab_mem_free(y);
    (void)shardtab_mem_free(d_row_ptr);
    (void)shardtab_mem_free(col);
    (void)shardtab_mem_free(val);
    (void)shardtab_mem_free(d_first);
    (void)shardtab_finalize();
    free(first_row);
    free(row_ptr);
    free(x_host);
    free(y_host);
    free(x_all);
    free(want);
    sparse_csr_free(&a);
    MPI_Finalize();
    return code;
}
