/* table_kernel.hip - table_kernel's device code on GPUs: the element
 * (table_kernel.h) in a grid-stride loop. HIP for AMD; the same file compiled
 * as CUDA for NVIDIA (CMake: the source's LANGUAGE CUDA). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "example_gpu.h"
#include "table_kernel.h"

__global__ void table_kernel(double *const *table, int me, int next, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        table_kernel_element(table, me, next, n, i);
}

extern "C" const char *table_kernel_run(void *const *table, int me, int next, size_t n)
{
    size_t wanted = (n + 255) / 256; /* blocks of 256 threads; grid-stride beyond 1024 */
    unsigned blocks = wanted < 1024 ? (unsigned)wanted : 1024u;
    table_kernel<<<blocks, 256>>>((double *const *)table, me, next, n);
    return example_launch_error();
}
