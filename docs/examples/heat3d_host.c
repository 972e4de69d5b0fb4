/* heat3d_host.c - heat3d's device code on the host backend: the cell
 * (heat3d.h) in a loop. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "heat3d.h"

const char *heat3d_sweep(const double *cur, double *next, heat3d_block_t b)
{
    for (size_t i = 0; i < b.nx * b.ny * b.nz; i++)
        heat3d_cell(cur, next, b, i);
    return NULL;
}
