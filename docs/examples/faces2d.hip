/* faces2d.hip - faces2d's device code on GPUs: the cell (faces2d.h) in a
 * grid-stride loop. HIP for AMD; the same file compiled as CUDA for NVIDIA
 * (CMake: the source's LANGUAGE CUDA). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "example_gpu.h"
#include "faces2d.h"

__global__ void faces2d_kernel(const double *cur, double *next, faces2d_strip_t s, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        faces2d_cell(cur, next, s, i);
}

extern "C" const char *faces2d_sweep(const double *cur, double *next, faces2d_strip_t s)
{
    size_t n = s.nx * s.rows;
    size_t wanted = (n + 255) / 256; /* blocks of 256 threads; grid-stride beyond 1024 */
    unsigned blocks = wanted < 1024 ? (unsigned)wanted : 1024u;
    faces2d_kernel<<<blocks, 256>>>(cur, next, s, n);
    return example_launch_error();
}
