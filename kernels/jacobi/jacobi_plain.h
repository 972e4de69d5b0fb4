/* jacobi_plain.h - the independent reference of the jacobi program: the whole
 * grid, written plainly so that it shares no code with the optimised sweep but
 * the update expression itself (jacobi_op.h): one point a thread, no vectors,
 * no strips, no fused norm, the periodic ghost rows copied by a kernel of
 * their own, the norm by a kernel of its own and summed on the host. The host
 * drives it one iteration at a time (jacobi_verify.c). One implementation per
 * backend: jacobi_plain.hip (HIP and CUDA), jacobi_plain_host.c (CPUs). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_PLAIN_H
#define JACOBI_PLAIN_H

#include "jacobi_sweep.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jacobi_plain {
    jacobi_real_t *grid[2]; /* device: ny x nx each; rows 0 and ny - 1 are the periodic
                               copies of rows ny - 2 and 1 */
    double *row_norm2;      /* device [ny]: each interior row's sum of squared residues */
    int nx, ny;
    jacobi_fault_t fault; /* a test's planted bug; its row is a grid row (1 .. ny - 2) */
} jacobi_plain_t;

/* Iteration k (from the start): grid[(k & 1) ^ 1] from grid[k & 1], then its
 * ghost rows. Enqueued on stream; returns 0 or a runtime code. */
int jacobi_plain_sweep(const jacobi_plain_t *plain, int k, void *stream);
/* After iteration k: row_norm2[r] = the sum over the row's interior points of
 * (new - old)^2, for every interior row r. */
int jacobi_plain_norm(const jacobi_plain_t *plain, int k, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* JACOBI_PLAIN_H */
