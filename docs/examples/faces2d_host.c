/* faces2d_host.c - faces2d's device code on the host backend: the cell
 * (faces2d.h) in a loop. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "faces2d.h"

const char *faces2d_sweep(const double *cur, double *next, faces2d_strip_t s)
{
    for (size_t i = 0; i < s.nx * s.rows; i++)
        faces2d_cell(cur, next, s, i);
    return NULL;
}
