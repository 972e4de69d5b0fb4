/* signal_kernels.hip - signal_example's kernels (signal_kernels.h), as a user's
 * kernels would call shardtab_device.h: one block a rank, every thread taking
 * part. HIP for AMD, compiled as CUDA for NVIDIA. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "example_round.h"
#include "signal_kernels.h"

#define GAVE_UP (1ull << 40) /* a count no round can reach */

__global__ void example_kernel(shardtab_signals_t sig, int *const *table, uint64_t round,
                               unsigned long long *mismatches)
{
    int bad = example_round(&sig, table, round, (int)threadIdx.x, (int)blockDim.x);
    if (bad != 0)
        atomicAdd(mismatches,
                  bad < 0 ? (threadIdx.x == 0 ? GAVE_UP : 0ull) : (unsigned long long)bad);
}

__global__ void barrier_kernel(shardtab_signals_t sig, int *const *table, uint64_t round,
                               unsigned long long *mismatches)
{
    int bad = barrier_round(&sig, table, round, (int)threadIdx.x, (int)blockDim.x);
    if (bad != 0)
        atomicAdd(mismatches,
                  bad < 0 ? (threadIdx.x == 0 ? GAVE_UP : 0ull) : (unsigned long long)bad);
}

__global__ void concurrent_kernel(shardtab_signals_t sig)
{
    (void)shardtab_barrier_block(&sig); /* one of the blocks must be refused */
}

extern "C" int example_round_launch(const shardtab_signals_t *sig, int *const *table,
                                    uint64_t round, int threads, unsigned long long *mismatches,
                                    void *stream)
{
    example_kernel<<<1, threads, 0, (hipStream_t)stream>>>(*sig, table, round, mismatches);
    return (int)hipGetLastError();
}

extern "C" int barrier_round_launch(const shardtab_signals_t *sig, int *const *table,
                                    uint64_t round, int threads, unsigned long long *mismatches,
                                    void *stream)
{
    barrier_kernel<<<1, threads, 0, (hipStream_t)stream>>>(*sig, table, round, mismatches);
    return (int)hipGetLastError();
}

extern "C" int concurrent_barriers_launch(const shardtab_signals_t *sig, int blocks, void *stream)
{
    concurrent_kernel<<<blocks, 64, 0, (hipStream_t)stream>>>(*sig);
    return (int)hipGetLastError();
}
