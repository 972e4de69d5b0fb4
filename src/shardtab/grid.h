/* grid.h - the process grid that shardtab_halo.h and shardtab_faces.h share:
 * comm rank r at (r % grid[0], r / grid[0] % grid[1], r / (grid[0] grid[1])),
 * axis 0 fastest; a rank's coordinates, and its neighbour one step away,
 * across a periodic axis's ends too. Used by halo.c and faces.c. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_GRID_H
#define ST_GRID_H

#include <stdint.h>

#include "shardtab/halo_types.h" /* SHARDTAB_HALO_MAX_DIMS */

/* rank r's coordinate on each axis of grid */
static inline void st_grid_coords(const int64_t grid[SHARDTAB_HALO_MAX_DIMS], int r,
                                  int c[SHARDTAB_HALO_MAX_DIMS])
{
    c[0] = r % (int)grid[0];
    c[1] = r / (int)grid[0] % (int)grid[1];
    c[2] = r / (int)(grid[0] * grid[1]);
}

/* The neighbour of rank r at offset dir (each -1, 0 or 1 an axis), or -1
 * past a non-periodic end. */
static inline int st_grid_neighbor(const int64_t grid[SHARDTAB_HALO_MAX_DIMS],
                                   const int64_t periodic[SHARDTAB_HALO_MAX_DIMS], int r,
                                   const int dir[SHARDTAB_HALO_MAX_DIMS])
{
    int c[SHARDTAB_HALO_MAX_DIMS];

    st_grid_coords(grid, r, c);
    for (int a = 0; a < SHARDTAB_HALO_MAX_DIMS; a++) {
        c[a] += dir[a];
        if (c[a] < 0 || c[a] >= (int)grid[a]) {
            if (!periodic[a])
                return -1;
            c[a] = (c[a] + (int)grid[a]) % (int)grid[a];
        }
    }
    return c[0] + (int)grid[0] * (c[1] + (int)grid[1] * c[2]);
}

#endif /* ST_GRID_H */
