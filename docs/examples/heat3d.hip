/* heat3d.hip - heat3d's device code on GPUs: the cell (heat3d.h) in a
 * grid-stride loop. HIP for AMD; the same file compiled as CUDA for NVIDIA
 * (CMake: the source's LANGUAGE CUDA). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "example_gpu.h"
#include "heat3d.h"

__global__ void heat3d_kernel(const double *cur, double *next, heat3d_block_t b, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        heat3d_cell(cur, next, b, i);
}

extern "C" const char *heat3d_sweep(const double *cur, double *next, heat3d_block_t b)
{
    size_t n = b.nx * b.ny * b.nz;
    size_t wanted = (n + 255) / 256; /* blocks of 256 threads; grid-stride beyond 1024 */
    unsigned blocks = wanted < 1024 ? (unsigned)wanted : 1024u;
    heat3d_kernel<<<blocks, 256>>>(cur, next, b, n);
    return example_launch_error();
}
