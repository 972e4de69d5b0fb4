/* jacobi_block_sum.h - a double summed over a block in a fixed order, written
 * once for every backend: on a GPU, each warp's share by shuffles, then the
 * warps' shares by the first warp; on the host backend, whose block is one
 * thread, the value itself. The on-chip tiles (jacobi_onchip.h) and the
 * temporal passes (jacobi_temporal.h, jacobi_temporal_stream.h) sum their
 * norms with it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_BLOCK_SUM_H
#define JACOBI_BLOCK_SUM_H

#include "shardtab_device.h"

/* A double summed over the block in a fixed order; the leader gets it.
 * Also in two halves, for a caller whose own barriers order them: each warp's
 * share into slots[warp] (JACOBI_BLOCK_SLOTS of them); then, past a barrier,
 * the block's sum of the slots (the leader's). jacobi_block_sum is the two
 * between barriers of its own: the same additions, the same bits. */
#define JACOBI_BLOCK_SLOTS 32
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
__device__ static inline double jacobi_warp_sum(double v)
{
#  if defined(SHARDTAB_DEVICE_CUDA)
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
#  else
    for (int offset = warpSize / 2; offset > 0; offset >>= 1)
        v += __shfl_down(v, offset);
#  endif
    return v;
}

__device__ static inline void jacobi_block_partial(double v, double *slots)
{
    v = jacobi_warp_sum(v);
    if ((int)threadIdx.x % warpSize == 0)
        slots[(int)threadIdx.x / warpSize] = v;
}

__device__ static inline double jacobi_block_total(const double *slots)
{
    const int lane = (int)threadIdx.x % warpSize,
              nwarps = ((int)blockDim.x + warpSize - 1) / warpSize;

    return (int)threadIdx.x < warpSize ? jacobi_warp_sum(lane < nwarps ? slots[lane] : 0.0) : 0.0;
}

__device__ static inline double jacobi_block_sum(double v)
{
    __shared__ double warps[JACOBI_BLOCK_SLOTS];

    __syncthreads(); /* warps[] free: an earlier sum has been read */
    jacobi_block_partial(v, warps);
    __syncthreads();
    return jacobi_block_total(warps);
}
#else
static inline void jacobi_block_partial(double v, double *slots)
{
    slots[0] = v;
}

static inline double jacobi_block_total(const double *slots)
{
    return slots[0];
}

static inline double jacobi_block_sum(double v)
{
    return v;
}
#endif

#endif /* JACOBI_BLOCK_SUM_H */
