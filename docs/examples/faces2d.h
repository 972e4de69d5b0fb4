/* faces2d.h - the device code of faces2d.c, written once for the GPU kernel
 * (faces2d.hip, HIP or CUDA) and the host backend's C (faces2d_host.c): one
 * 5-point heat step over a strip of rows, periodic in x, whose first and last
 * rows are also stored, as they are computed, into the neighbours' ghost rows
 * (the library's direct faces, shardtab_faces.h). faces2d.c's check, one
 * rank's steps over the whole domain, runs the same function. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef FACES2D_H
#define FACES2D_H

#include <shardtab_device.h> /* SHARDTAB_DEVFN: a device function on GPUs, static inline in C */
#include <stddef.h>

/* A step over a strip of rows x nx cells (row-major, no ghost columns: x
 * wraps around). */
typedef struct faces2d_strip {
    size_t nx, rows;
    const double *above, *below; /* the ghost rows the step reads: rows -1 and `rows` */
    double *to_above, *to_below; /* where its first and last rows go besides next: the
                                    neighbours' ghost rows of the next step, or NULL */
} faces2d_strip_t;

/* Cell i (x fastest) of next from cur and its four neighbours; on the strip's
 * first (last) row, also into to_above (to_below). Exact: with cells that
 * are multiples of 2^-20 in [0, 1), each step adds three bits and keeps them
 * in [0, 1) (the weights sum to 1), so 10 steps stay within a double's 53: a
 * fused multiply-add, any order of the sums and the host's C give the same
 * bits. */
SHARDTAB_DEVFN void faces2d_cell(const double *cur, double *next, faces2d_strip_t s, size_t i)
{
    const size_t x = i % s.nx, y = i / s.nx;
    const double *row = cur + y * s.nx;
    const double up = y == 0 ? s.above[x] : cur[(y - 1) * s.nx + x];
    const double down = y + 1 == s.rows ? s.below[x] : cur[(y + 1) * s.nx + x];
    const double v =
        0.5 * row[x] + 0.125 * ((row[(x + s.nx - 1) % s.nx] + row[(x + 1) % s.nx]) + (up + down));

    next[i] = v;
    if (y == 0 && s.to_above)
        s.to_above[x] = v;
    if (y + 1 == s.rows && s.to_below)
        s.to_below[x] = v;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Every cell of next from cur (faces2d_cell), on the default stream (GPUs: a
 * kernel; the host: now). Returns NULL, or the runtime's words for a launch
 * that failed. */
const char *faces2d_sweep(const double *cur, double *next, faces2d_strip_t s);

#ifdef __cplusplus
}
#endif

#endif /* FACES2D_H */
