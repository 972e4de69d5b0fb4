/* faces2d.c - a 5-point heat step over rows split between the ranks (a
 * periodic ring, as jacobi splits them), with the library's direct faces
 * (shardtab_faces.h): the sweep stores each strip's first and last rows into
 * the neighbours' ghost rows as it computes them, through the table; a
 * neighbour on another node gets them through shardtab_faces_exchange after
 * the sweep; a barrier on the stream, and the next step reads them. The ghost
 * rows are double-buffered (two parities), so a neighbour writes step k + 1's
 * while this rank still reads step k's. Then every rank runs the same steps
 * over the whole domain alone, as a one-rank run does, and compares every
 * cell of its rows bit for bit.
 *
 * USAGE  mpiexec -n N ./faces2d [--nx X] [--ny Y] [--steps K] [--allow-shared-gpu]
 *   --nx                cells along x (periodic), 1 to 4096 (default 24)
 *   --ny                rows (periodic), at least the ranks, at most 4096 (default 20)
 *   --steps             steps, 1 to 10 (default 8)
 *   --allow-shared-gpu  let ranks share a GPU (more ranks than GPUs)
 * Prints "faces2d: OK ..." from rank 0 and exits 0; exits 1 when a cell
 * differs, 2 on bad usage. With SHARDTAB_RANKS_PER_NODE (simulated nodes) the
 * rows between nodes go through MPI.
 *
 * The cells start random (multiples of 2^-20 in [0, 1), faces2d.h says why
 * the steps stay exact); the ghost rows of the second parity start as NaN,
 * so that a row the neighbours missed shows. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define EXAMPLE_NAME "faces2d"
#include "example.h"
#include "faces2d.h"

#include <math.h>
#include <shardtab_faces.h>
#include <stdint.h>

/* Cell (x, y) of the whole domain: random, the same on every rank. */
static double initial(size_t x, size_t y)
{
    uint64_t k = (uint64_t)x * 1000003u + y + 0x9e3779b97f4a7c15u;
    k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9u; /* splitmix64's mix */
    k = (k ^ (k >> 27)) * 0x94d049bb133111ebu;
    k ^= k >> 31;
    return (double)(k >> 44) / (double)(1u << 20);
}

int main(int argc, char **argv)
{
    long nx = 24, ny = 20, steps = 8, shared_gpu = 0;
    example_option_t options[] = {{"--nx", 1, 4096, &nx},
                                  {"--ny", 1, 4096, &ny},
                                  {"--steps", 1, 10, &steps},
                                  {"--allow-shared-gpu", 0, 0, &shared_gpu}};
    int rank, size;

    if (example_start(&argc, &argv, options, 4, &rank, &size) != 0)
        return 2;
    if (ny < size) { /* every rank sees it: all leave alike */
        if (rank == 0)
            fprintf(stderr, "%s: --ny %ld: fewer rows than the %d ranks\n", EXAMPLE_NAME, ny, size);
        MPI_Finalize();
        return 2;
    }

    /* 1. this rank's rows, as even a split as can be */
    const size_t w = (size_t)nx,
                 rows = (size_t)ny / (size_t)size + ((size_t)rank < (size_t)ny % (size_t)size);
    const size_t y0 =
        (size_t)rank * ((size_t)ny / (size_t)size) +
        ((size_t)rank < (size_t)ny % (size_t)size ? (size_t)rank : (size_t)ny % (size_t)size);

    /* 2. the shard: two buffers of the rows (the steps alternate), then the
     * ghost rows as direct faces: one axis (the rows), a ring of ranks, a row
     * a face, two parities, laid out by the library after the buffers */
    shardtab_faces_params_t fp = {.dims = 1,
                                  .grid = {size},
                                  .periodic = {1},
                                  .face_bytes = {w * sizeof(double)},
                                  .parities = 2,
                                  .offset = 2 * rows * w * sizeof(double)};
    const size_t bytes = fp.offset + shardtab_faces_bytes(&fp);
    shardtab_init_params_t init = {.allow_shared_device = (int)shared_gpu};
    EXAMPLE_CALL(shardtab_init(MPI_COMM_WORLD, &init));
    double *shard = NULL, *host = example_host(bytes);
    EXAMPLE_CALL(shardtab_mem_alloc(bytes, (void **)&shard));
    shardtab_t *table = NULL;
    EXAMPLE_CALL(shardtab_create(MPI_COMM_WORLD, shard, bytes, &table));
    shardtab_faces_t *faces = NULL;
    EXAMPLE_CALL(shardtab_faces_create(table, &fp, &faces));
    long wrong = 0, through[3] = {0, 0, 0};
    for (int side = 0; side < 2; side++) { /* side 0: the rank above (rank - 1), 1: below */
        const int want = (rank + (side ? 1 : size - 1)) % size;
        if (shardtab_faces_neighbor(faces, 0, side) != want && wrong++ == 0)
            fprintf(stderr, "%s: rank %d: neighbour %d on side %d, the library says %d\n",
                    EXAMPLE_NAME, rank, want, side, shardtab_faces_neighbor(faces, 0, side));
        through[shardtab_faces_route(faces, 0, side)]++;
    }
    const int by_mpi = through[SHARDTAB_FACES_MPI] > 0;

    /* 3. the starting state: the rows; parity 0's ghost rows as the neighbours'
     * edge rows (periodic); parity 1's NaN, which step 0 fills */
    for (size_t i = 0; i < rows * w; i++)
        host[i] = host[rows * w + i] = initial(i % w, y0 + i / w);
    for (int side = 0; side < 2; side++) {
        const size_t y = side ? (y0 + rows) % (size_t)ny : (y0 + (size_t)ny - 1) % (size_t)ny;
        double *ghost0 = host + shardtab_faces_offset(&fp, 0, side, 0) / sizeof(double);
        double *ghost1 = host + shardtab_faces_offset(&fp, 0, side, 1) / sizeof(double);
        for (size_t x = 0; x < w; x++) {
            ghost0[x] = initial(x, y);
            ghost1[x] = NAN;
        }
    }
    EXAMPLE_CALL(shardtab_memcpy_to_device(shard, host, bytes));
    /* every rank's ghost rows set before any rank's first step stores into them */
    EXAMPLE_CALL(shardtab_barrier_on_stream(table, NULL));

    /* 4. the steps: step k reads parity k % 2's ghost rows and stores its edge
     * rows into the neighbours' of the other parity; those on other nodes go
     * through MPI after the sweep; the barrier orders every rank's stores
     * before any rank's next step */
    for (long s = 0; s < steps; s++) {
        const int p = (int)(s % 2);
        double *cur = shard + (size_t)p * rows * w, *next = shard + (size_t)(1 - p) * rows * w;
        const faces2d_strip_t strip = {w,
                                       rows,
                                       shardtab_faces_ghost(faces, 0, 0, p),
                                       shardtab_faces_ghost(faces, 0, 1, p),
                                       shardtab_faces_dest(faces, 0, 0, 1 - p),
                                       shardtab_faces_dest(faces, 0, 1, 1 - p)};
        const char *why = faces2d_sweep(cur, next, strip);
        if (why != NULL) {
            fprintf(stderr, "%s: rank %d: step %ld did not launch: %s\n", EXAMPLE_NAME, rank, s,
                    why);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (by_mpi) { /* the first and last rows, to the neighbours on other nodes */
            const void *edges[2] = {next, next + (rows - 1) * w};
            EXAMPLE_CALL(shardtab_faces_exchange(faces, 1 - p, edges, NULL));
        }
        EXAMPLE_CALL(shardtab_barrier_on_stream(table, NULL));
    }
    shardtab_status_t status = shardtab_device_synchronize();
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(table); /* did the node give up a barrier? */
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS)
        example_abort("the steps", status);
    EXAMPLE_CALL(shardtab_memcpy_to_host(host, shard, bytes));

    /* 5. the same steps over the whole domain, as one rank runs them: its own
     * last and first rows its ghost rows */
    double *domain = example_host(2 * (size_t)ny * w * sizeof(double));
    for (size_t i = 0; i < (size_t)ny * w; i++)
        domain[i] = initial(i % w, i / w);
    for (long s = 0; s < steps; s++) {
        const double *cur = domain + (size_t)(s % 2) * (size_t)ny * w;
        double *next = domain + (size_t)(1 - s % 2) * (size_t)ny * w;
        const faces2d_strip_t whole = {w, (size_t)ny, cur + ((size_t)ny - 1) * w, cur, NULL, NULL};
        for (size_t i = 0; i < (size_t)ny * w; i++)
            faces2d_cell(cur, next, whole, i);
    }

    /* 6. every cell of this rank's rows, bit for bit */
    const double *got = host + (size_t)(steps % 2) * rows * w;
    const double *want = domain + (size_t)(steps % 2) * (size_t)ny * w + y0 * w;
    for (size_t i = 0; i < rows * w; i++)
        if (memcmp(&got[i], &want[i], sizeof got[i]) != 0 && wrong++ == 0)
            fprintf(stderr,
                    "%s: rank %d: cell (%zu, %zu) is %.17g after %ld steps, one rank's steps "
                    "give %.17g\n",
                    EXAMPLE_NAME, rank, i % w, y0 + i / w, got[i], steps, want[i]);

    long routes[3];
    MPI_Allreduce(through, routes, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    char what[200];
    snprintf(what, sizeof what,
             "(%d ranks, backend %s, %ldx%ld cells, %ld steps, edge rows through the table %ld, "
             "through MPI %ld; every cell as one rank's steps over the whole domain give it)",
             size, shardtab_backend_name(shardtab_backend()), nx, ny, steps,
             routes[SHARDTAB_FACES_TABLE], routes[SHARDTAB_FACES_MPI]);
    EXAMPLE_CALL(shardtab_faces_destroy(&faces));
    EXAMPLE_CALL(shardtab_destroy(&table));
    EXAMPLE_CALL(shardtab_mem_free(shard));
    EXAMPLE_CALL(shardtab_finalize());
    free(domain);
    free(host);
    int exit_status = example_verdict(wrong, what);
    MPI_Finalize();
    return exit_status;
}
