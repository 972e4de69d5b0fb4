/* example_gpu.h - the one runtime call the examples' .hip files make (did the
 * launch fail?), spelled for HIP (AMD) and for CUDA, when nvcc compiles the
 * same file as CUDA: the installed package's headers give device code, not a
 * runtime mapping. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef EXAMPLE_GPU_H
#define EXAMPLE_GPU_H

#if defined(__CUDACC__)
#  include <cuda_runtime.h>
/* NULL when the last launch went, else the runtime's words */
static inline const char *example_launch_error(void)
{
    cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? NULL : cudaGetErrorString(err);
}
#else
#  include <hip/hip_runtime.h>
static inline const char *example_launch_error(void)
{
    hipError_t err = hipGetLastError();
    return err == hipSuccess ? NULL : hipGetErrorString(err);
}
#endif

#endif /* EXAMPLE_GPU_H */
