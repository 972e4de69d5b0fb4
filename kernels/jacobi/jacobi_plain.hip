/* jacobi_plain.hip - the independent reference's kernels (jacobi_plain.h),
 * written once in HIP for AMD and NVIDIA: one point a thread, the rows by a
 * grid-stride loop (a grid's y extent is limited), nothing fused. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "jacobi_op.h"
#include "jacobi_plain.h"

#define PLAIN_BLOCK 256
#define PLAIN_MAX_GRID_Y 65535

__global__ void plain_sweep(jacobi_plain_t p, int k)
{
    const jacobi_real_t *a = p.grid[k & 1];
    jacobi_real_t *next = p.grid[(k & 1) ^ 1];
    const int x = 1 + (int)(blockIdx.x * blockDim.x + threadIdx.x);

    if (x >= p.nx - 1)
        return;
    for (int y = 1 + (int)blockIdx.y; y < p.ny - 1; y += (int)gridDim.y) {
        const size_t at = (size_t)y * p.nx + x;
        jacobi_real_t v = jacobi_value(a[at - 1], a[at + 1], a[at - p.nx], a[at + p.nx]);
        if (p.fault.kind == JACOBI_FAULT_STALE && k == p.fault.iteration && y == p.fault.row &&
            x == p.fault.col)
            v = a[at];
        next[at] = v;
    }
}

/* The periodic rows: row 0 is row ny - 2, row ny - 1 is row 1. */
__global__ void plain_wrap(jacobi_plain_t p, int k)
{
    jacobi_real_t *g = p.grid[(k & 1) ^ 1];
    const int x = 1 + (int)(blockIdx.x * blockDim.x + threadIdx.x);

    if (x >= p.nx - 1)
        return;
    g[x] = g[(size_t)(p.ny - 2) * p.nx + x];
    g[(size_t)(p.ny - 1) * p.nx + x] = g[(size_t)p.nx + x];
}

/* One block a row: each thread sums its columns, then a tree over the block. */
__global__ void plain_norm(jacobi_plain_t p, int k)
{
    __shared__ double sums[PLAIN_BLOCK];
    const jacobi_real_t *old = p.grid[k & 1], *next = p.grid[(k & 1) ^ 1];

    for (int y = 1 + (int)blockIdx.x; y < p.ny - 1; y += (int)gridDim.x) {
        double sum = 0.0;
        for (int x = 1 + (int)threadIdx.x; x < p.nx - 1; x += PLAIN_BLOCK)
            sum += jacobi_residue2(next[(size_t)y * p.nx + x], old[(size_t)y * p.nx + x]);
        sums[threadIdx.x] = sum;
        __syncthreads();
        for (int half = PLAIN_BLOCK / 2; half > 0; half >>= 1) {
            if ((int)threadIdx.x < half)
                sums[threadIdx.x] += sums[threadIdx.x + half];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            p.row_norm2[y] = sums[0];
        __syncthreads();
    }
}

extern "C" int jacobi_plain_sweep(const jacobi_plain_t *p, int k, void *stream)
{
    hipStream_t s = (hipStream_t)stream;
    unsigned columns = (unsigned)((p->nx - 2 + PLAIN_BLOCK - 1) / PLAIN_BLOCK);
    unsigned rows = (unsigned)(p->ny - 2 < PLAIN_MAX_GRID_Y ? p->ny - 2 : PLAIN_MAX_GRID_Y);

    plain_sweep<<<dim3(columns, rows), PLAIN_BLOCK, 0, s>>>(*p, k);
    hipError_t err = hipGetLastError();
    if (err != hipSuccess)
        return (int)err;
    plain_wrap<<<columns, PLAIN_BLOCK, 0, s>>>(*p, k);
    return (int)hipGetLastError();
}

extern "C" int jacobi_plain_norm(const jacobi_plain_t *p, int k, void *stream)
{
    unsigned rows = (unsigned)(p->ny - 2 < PLAIN_MAX_GRID_Y ? p->ny - 2 : PLAIN_MAX_GRID_Y);

    plain_norm<<<rows, PLAIN_BLOCK, 0, (hipStream_t)stream>>>(*p, k);
    return (int)hipGetLastError();
}
