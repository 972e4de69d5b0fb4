/* heat3d.h - the device code of heat3d.c, written once for the GPU kernel
 * (heat3d.hip, HIP or CUDA) and the host backend's C (heat3d_host.c): one
 * 7-point heat step over a block stored with one ghost cell on each side.
 * heat3d.c's check, one rank's steps over the whole domain, runs the same
 * function. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef HEAT3D_H
#define HEAT3D_H

#include <shardtab_device.h> /* SHARDTAB_DEVFN: a device function on GPUs, static inline in C */
#include <stddef.h>

/* A block's interior cells along x, y, z; stored as double
 * u[nz + 2][ny + 2][nx + 2] (x fastest: the halo's axis 0), coordinates 0
 * and n + 1 the ghost cells. */
typedef struct heat3d_block {
    size_t nx, ny, nz;
} heat3d_block_t;

/* The doubles from the block's first (ghost) cell to cell (x, y, z). */
SHARDTAB_DEVFN size_t heat3d_index(heat3d_block_t b, size_t x, size_t y, size_t z)
{
    return (z * (b.ny + 2) + y) * (b.nx + 2) + x;
}

/* Interior cell i (x fastest) of next, from cur and its six neighbours.
 * Exact: with cells that are multiples of 2^-20 in [0, 1), each step adds
 * three bits (0.25, 0.125) and keeps them in [0, 1), so 10 steps stay within
 * a double's 53: a fused multiply-add, any order of the sums and the host's
 * C give the same bits. */
SHARDTAB_DEVFN void heat3d_cell(const double *cur, double *next, heat3d_block_t b, size_t i)
{
    const size_t x = 1 + i % b.nx, y = 1 + i / b.nx % b.ny, z = 1 + i / (b.nx * b.ny);
    const size_t c = heat3d_index(b, x, y, z), sy = b.nx + 2, sz = sy * (b.ny + 2);

    next[c] = 0.25 * cur[c] + 0.125 * ((cur[c - 1] + cur[c + 1]) + (cur[c - sy] + cur[c + sy]) +
                                       (cur[c - sz] + cur[c + sz]));
}

#ifdef __cplusplus
extern "C" {
#endif

/* Every interior cell of next from cur (heat3d_cell), on the default stream
 * (GPUs: a kernel; the host: now). Returns NULL, or the runtime's words for a
 * launch that failed. */
const char *heat3d_sweep(const double *cur, double *next, heat3d_block_t b);

#ifdef __cplusplus
}
#endif

#endif /* HEAT3D_H */
