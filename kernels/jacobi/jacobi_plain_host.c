/* jacobi_plain_host.c - the independent reference's "kernels" on the host
 * backend (jacobi_plain.h): the same plain loops, one point at a time. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_op.h"
#include "jacobi_plain.h"

int jacobi_plain_sweep(const jacobi_plain_t *p, int k, void *stream)
{
    const jacobi_real_t *a = p->grid[k & 1];
    jacobi_real_t *next = p->grid[(k & 1) ^ 1];
    const size_t nx = (size_t)p->nx;

    (void)stream;
    for (int y = 1; y < p->ny - 1; y++)
        for (int x = 1; x < p->nx - 1; x++) {
            const size_t at = (size_t)y * nx + (size_t)x;
            jacobi_real_t v = jacobi_value(a[at - 1], a[at + 1], a[at - nx], a[at + nx]);
            if (p->fault.kind == JACOBI_FAULT_STALE && k == p->fault.iteration &&
                y == p->fault.row && x == p->fault.col)
                v = a[at];
            next[at] = v;
        }
    for (int x = 1; x < p->nx - 1; x++) { /* the periodic rows */
        next[x] = next[(size_t)(p->ny - 2) * nx + (size_t)x];
        next[(size_t)(p->ny - 1) * nx + (size_t)x] = next[nx + (size_t)x];
    }
    return 0;
}

int jacobi_plain_norm(const jacobi_plain_t *p, int k, void *stream)
{
    const jacobi_real_t *old = p->grid[k & 1], *next = p->grid[(k & 1) ^ 1];
    const size_t nx = (size_t)p->nx;

    (void)stream;
    for (int y = 1; y < p->ny - 1; y++) {
        double sum = 0.0;
        for (int x = 1; x < p->nx - 1; x++)
            sum +=
                jacobi_residue2(next[(size_t)y * nx + (size_t)x], old[(size_t)y * nx + (size_t)x]);
        p->row_norm2[y] = sum;
    }
    return 0;
}
