/* jacobi_row_host.h - the host backend's sweep of one row, planted faults
 * included: one body for the rank-wide sweep (jacobi_sweep_host.c) and the
 * on-chip mode's tiles (jacobi_onchip_host.c), so that both compute, and fail
 * on purpose, alike. The GPU kernels have their own (vectorized) row loops;
 * the plain reference (jacobi_plain_host.c) keeps its own on purpose: it is
 * what these are checked against. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_ROW_HOST_H
#define JACOBI_ROW_HOST_H

#include "jacobi_op.h"
#include "jacobi_sweep.h"

/* Writes the interior points 1 to nx - 2 of out from row and its neighbours up
 * and down (out's boundary points are the caller's), and returns sum with the
 * row's squared residues added one point after another when norm_iter (sum
 * as given else): the caller's running sum goes through, so the order of the
 * additions, and so the norm's bits, are those of one loop over the rows.
 * fault_row is the rank-local row of out when a fault is planted this
 * iteration, else -1: that point keeps its value (JACOBI_FAULT_STALE) or
 * counts its residue twice (JACOBI_FAULT_NORM). */
static inline double jacobi_row_host(const jacobi_step_t *s, const jacobi_real_t *up,
                                     const jacobi_real_t *row, const jacobi_real_t *down,
                                     jacobi_real_t *out, int fault_row, int norm_iter, double sum)
{
    const int nx = s->nx;
    const int fault_col = fault_row >= 0 && fault_row == s->fault.row ? s->fault.col : -1;

    for (int x = 1; x < nx - 1; x++) {
        jacobi_real_t v = jacobi_value(row[x - 1], row[x + 1], up[x], down[x]);
        if (x == fault_col) {
            if (s->fault.kind == JACOBI_FAULT_STALE)
                v = row[x];
            else if (s->fault.kind == JACOBI_FAULT_NORM && norm_iter)
                sum += jacobi_residue2(v, row[x]);
        }
        out[x] = v;
        if (norm_iter)
            sum += jacobi_residue2(v, row[x]);
    }
    return sum;
}

#endif /* JACOBI_ROW_HOST_H */
