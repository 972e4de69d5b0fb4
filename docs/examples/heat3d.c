/* heat3d.c - a 7-point heat step on a 3-D process grid, its ghost cells
 * filled by the library's halo exchange (shardtab_halo.h): the domain's
 * cells split over a grid of ranks chosen from their count (MPI_Dims_create),
 * periodic along x, with fixed boundary cells along y and z; each step one
 * shardtab_halo_exchange, then the sweep (heat3d.h). Then every rank runs
 * the same steps over the whole domain alone, as a one-rank run does, and
 * compares every cell of its block bit for bit.
 *
 * USAGE  mpiexec -n N ./heat3d [--nx X] [--ny Y] [--nz Z] [--steps K] [--allow-shared-gpu]
 *   --nx, --ny, --nz    cells of the whole domain along each axis, at least
 *                       the ranks along it, at most 128 (default 20, 18, 16)
 *   --steps             steps, 1 to 10 (default 8)
 *   --allow-shared-gpu  let ranks share a GPU (more ranks than GPUs)
 * Prints "heat3d: OK ..." from rank 0 and exits 0; exits 1 when a cell
 * differs, 2 on bad usage.
 *
 * The cells start random (multiples of 2^-20 in [0, 1), heat3d.h says why
 * the steps stay exact); the ghost cells a neighbour fills start as NaN, so
 * that a cell the exchange missed shows. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define EXAMPLE_NAME "heat3d"
#include "example.h"
#include "heat3d.h"

#include <math.h>
#include <shardtab_halo.h>
#include <stdint.h>

/* A cell of the whole domain at (x, y, z), counted with its ghost cells (0:
 * the ghost before the first): random, the same on every rank. */
static double initial(size_t x, size_t y, size_t z)
{
    uint64_t k = ((uint64_t)x * 1000003u + y) * 1000033u + z + 0x9e3779b97f4a7c15u;
    k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9u; /* splitmix64's mix */
    k = (k ^ (k >> 27)) * 0x94d049bb133111ebu;
    k ^= k >> 31;
    return (double)(k >> 44) / (double)(1u << 20);
}

/* the part of n cells that coordinate c of `parts` holds: as even as can be */
static size_t cells_of(size_t n, int parts, int c)
{
    return n / (size_t)parts + ((size_t)c < n % (size_t)parts);
}
static size_t first_of(size_t n, int parts, int c)
{
    size_t rest = n % (size_t)parts;
    return (size_t)c * (n / (size_t)parts) + ((size_t)c < rest ? (size_t)c : rest);
}

/* Both buffers of a block whose first interior cell is the whole domain's
 * (x0, y0, z0) in a domain of `whole`: its cells and the fixed boundary cells
 * along y and z as `initial` gives them, every other ghost cell NaN. */
static void heat3d_fill(double *u, heat3d_block_t b, size_t x0, size_t y0, size_t z0,
                        heat3d_block_t whole)
{
    const size_t cells = (b.nx + 2) * (b.ny + 2) * (b.nz + 2);

    for (size_t z = 0; z < b.nz + 2; z++)
        for (size_t y = 0; y < b.ny + 2; y++)
            for (size_t x = 0; x < b.nx + 2; x++) {
                const size_t gy = y0 + y, gz = z0 + z; /* with the domain's ghosts */
                const int inside =
                    x >= 1 && x <= b.nx && y >= 1 && y <= b.ny && z >= 1 && z <= b.nz;
                const int boundary = gy == 0 || gy == whole.ny + 1 || gz == 0 || gz == whole.nz + 1;
                const double v = inside || boundary ? initial(x0 + x, gy, gz) : NAN;
                u[heat3d_index(b, x, y, z)] = u[cells + heat3d_index(b, x, y, z)] = v;
            }
}

int main(int argc, char **argv)
{
    long nx = 20, ny = 18, nz = 16, steps = 8, shared_gpu = 0;
    example_option_t options[] = {{"--nx", 1, 128, &nx},
                                  {"--ny", 1, 128, &ny},
                                  {"--nz", 1, 128, &nz},
                                  {"--steps", 1, 10, &steps},
                                  {"--allow-shared-gpu", 0, 0, &shared_gpu}};
    int rank, size, dims[3] = {0, 0, 0};

    if (example_start(&argc, &argv, options, 5, &rank, &size) != 0)
        return 2;

    /* 1. the process grid: MPI_Dims_create's, its last dimension as the halo's
     * axis 0 (x), as MPI_Cart_create orders the ranks; this rank's block */
    MPI_Dims_create(size, 3, dims);
    const int grid[3] = {dims[2], dims[1], dims[0]};
    const long whole_n[3] = {nx, ny, nz};
    for (int a = 0; a < 3; a++)
        if (whole_n[a] < grid[a]) { /* every rank sees it: all leave alike */
            if (rank == 0)
                fprintf(stderr, "%s: --n%c %ld: fewer cells than the %d ranks along that axis\n",
                        EXAMPLE_NAME, "xyz"[a], whole_n[a], grid[a]);
            MPI_Finalize();
            return 2;
        }
    const int coord[3] = {rank % grid[0], rank / grid[0] % grid[1], rank / (grid[0] * grid[1])};
    const heat3d_block_t whole = {(size_t)nx, (size_t)ny, (size_t)nz};
    const heat3d_block_t b = {cells_of(whole.nx, grid[0], coord[0]),
                              cells_of(whole.ny, grid[1], coord[1]),
                              cells_of(whole.nz, grid[2], coord[2])};
    const size_t x0 = first_of(whole.nx, grid[0], coord[0]),
                 y0 = first_of(whole.ny, grid[1], coord[1]),
                 z0 = first_of(whole.nz, grid[2], coord[2]);

    /* 2. the shard: two buffers of the padded block (the steps alternate), a
     * halo over each */
    shardtab_init_params_t init = {.allow_shared_device = (int)shared_gpu};
    EXAMPLE_CALL(shardtab_init(MPI_COMM_WORLD, &init));
    const size_t cells = (b.nx + 2) * (b.ny + 2) * (b.nz + 2), bytes = 2 * cells * sizeof(double);
    double *shard = NULL, *host = example_host(bytes);
    EXAMPLE_CALL(shardtab_mem_alloc(bytes, (void **)&shard));
    shardtab_t *table = NULL;
    EXAMPLE_CALL(shardtab_create(MPI_COMM_WORLD, shard, bytes, &table));
    shardtab_halo_params_t hp = {.dims = 3,
                                 .grid = {grid[0], grid[1], grid[2]},
                                 .periodic = {1, 0, 0},
                                 .block = {b.nx, b.ny, b.nz},
                                 .ghost = {1, 1, 1},
                                 .elem_bytes = sizeof(double)}; /* strides 0: packed */
    shardtab_halo_t *halo[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        hp.offset = (size_t)k * cells * sizeof(double);
        EXAMPLE_CALL(shardtab_halo_create(table, &hp, &halo[k]));
    }
    long wrong = 0;
    for (int a = 0; a < 3; a++) /* the library places this rank where it was computed */
        if (shardtab_halo_coord(halo[0], a) != coord[a] && wrong++ == 0)
            fprintf(stderr, "%s: rank %d: coordinate %d along axis %d, the library says %d\n",
                    EXAMPLE_NAME, rank, coord[a], a, shardtab_halo_coord(halo[0], a));

    /* 3. the steps: an exchange into the buffer the sweep reads, then the sweep */
    heat3d_fill(host, b, x0, y0, z0, whole);
    EXAMPLE_CALL(shardtab_memcpy_to_device(shard, host, bytes));
    for (long s = 0; s < steps; s++) {
        EXAMPLE_CALL(shardtab_halo_exchange(halo[s % 2], NULL));
        const char *why = heat3d_sweep(shard + (s % 2) * cells, shard + (1 - s % 2) * cells, b);
        if (why != NULL) {
            fprintf(stderr, "%s: rank %d: step %ld did not launch: %s\n", EXAMPLE_NAME, rank, s,
                    why);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    shardtab_status_t status = shardtab_device_synchronize();
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(table); /* did the node refuse an exchange? */
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS)
        example_abort("the steps", status);
    EXAMPLE_CALL(shardtab_memcpy_to_host(host, shard, bytes));

    /* 4. the same steps over the whole domain, as one rank runs them: the
     * periodic x ghosts copied from the other end, then the same sweep */
    const size_t whole_cells = (whole.nx + 2) * (whole.ny + 2) * (whole.nz + 2);
    double *domain = example_host(2 * whole_cells * sizeof(double));
    heat3d_fill(domain, whole, 0, 0, 0, whole);
    for (long s = 0; s < steps; s++) {
        double *cur = domain + (s % 2) * whole_cells, *next = domain + (1 - s % 2) * whole_cells;
        for (size_t z = 1; z <= whole.nz; z++)
            for (size_t y = 1; y <= whole.ny; y++) {
                cur[heat3d_index(whole, 0, y, z)] = cur[heat3d_index(whole, whole.nx, y, z)];
                cur[heat3d_index(whole, whole.nx + 1, y, z)] = cur[heat3d_index(whole, 1, y, z)];
            }
        for (size_t i = 0; i < whole.nx * whole.ny * whole.nz; i++)
            heat3d_cell(cur, next, whole, i);
    }

    /* 5. every cell of this rank's block, bit for bit */
    const double *got = host + (steps % 2) * cells, *want = domain + (steps % 2) * whole_cells;
    for (size_t z = 1; z <= b.nz; z++)
        for (size_t y = 1; y <= b.ny; y++)
            for (size_t x = 1; x <= b.nx; x++) {
                double g = got[heat3d_index(b, x, y, z)];
                double w = want[heat3d_index(whole, x0 + x, y0 + y, z0 + z)];
                if (memcmp(&g, &w, sizeof g) != 0 && wrong++ == 0)
                    fprintf(stderr,
                            "%s: rank %d: cell (%zu, %zu, %zu) is %.17g after %ld steps, one "
                            "rank's steps give %.17g\n",
                            EXAMPLE_NAME, rank, x0 + x - 1, y0 + y - 1, z0 + z - 1, g, steps, w);
            }

    char what[200];
    snprintf(what, sizeof what,
             "(%d ranks on a %dx%dx%d grid, backend %s, %ldx%ldx%ld cells, %ld steps, every "
             "cell as one rank's steps over the whole domain give it)",
             size, grid[0], grid[1], grid[2], shardtab_backend_name(shardtab_backend()), nx, ny, nz,
             steps);
    for (int k = 0; k < 2; k++)
        EXAMPLE_CALL(shardtab_halo_destroy(&halo[k]));
    EXAMPLE_CALL(shardtab_destroy(&table));
    EXAMPLE_CALL(shardtab_mem_free(shard));
    EXAMPLE_CALL(shardtab_finalize());
    free(domain);
    free(host);
    int exit_status = example_verdict(wrong, what);
    MPI_Finalize();
    return exit_status;
}
