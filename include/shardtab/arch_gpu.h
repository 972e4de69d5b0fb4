/* shardtab/arch_gpu.h - the block's primitives that CUDA and HIP write alike
 * (threadIdx, blockDim, __syncthreads, int4): the thread's number in its
 * block, the block's size and leader, its barrier, a 16-byte copy. The host
 * backend gives the same names for its block of one thread (arch_host.h).
 *
 * Not included directly: arch_cuda.h and arch_hip.h include it once they
 * have included their runtime's header and defined SHARDTAB_DEVFN. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_ARCH_GPU_H
#define SHARDTAB_ARCH_GPU_H

/* the block's threads, numbered 0 .. shardtab_detail_block_threads() - 1 */
SHARDTAB_DEVFN int shardtab_detail_block_thread(void)
{
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
SHARDTAB_DEVFN int shardtab_detail_block_threads(void)
{
    return (int)(blockDim.x * blockDim.y * blockDim.z);
}
SHARDTAB_DEVFN int shardtab_detail_block_leader(void)
{
    return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}
SHARDTAB_DEVFN void shardtab_detail_block_sync(void)
{
    __syncthreads();
}
/* one 16-byte load and one 16-byte store (both 16-byte aligned) */
SHARDTAB_DEVFN void shardtab_detail_copy16(void *dst, const void *src)
{
    *(int4 *)dst = *(const int4 *)src;
}

#endif /* SHARDTAB_ARCH_GPU_H */
