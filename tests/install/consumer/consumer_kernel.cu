/* consumer_kernel.cu - the consumer's device code as a CUDA user writes it:
 * one block of 128 threads runs the body (consumer_body.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <cuda_runtime.h>

#include "consumer_body.h"

__global__ void consumer_kernel(shardtab_signals_t sig, void *const *table, int next,
                                const uint64_t *words, double *value, int *status)
{
    int st = consumer_body(&sig, table, next, words, value);
    if (threadIdx.x == 0)
        *status = st;
}

extern "C" int consumer_round(const shardtab_signals_t *sig, void *const *table, int next,
                              const uint64_t *words, double *value, int *status)
{
    consumer_kernel<<<1, 128>>>(*sig, table, next, words, value, status);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    return (int)err;
}
