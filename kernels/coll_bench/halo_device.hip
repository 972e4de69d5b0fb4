/* halo_device.hip - halo_bench's and halo_check's device-side exchanges (halo_device.h): one
 * block a rank, or a cooperative grid sharing each exchange. HIP for AMD,
 * compiled as CUDA for NVIDIA. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "halo_device.h"

__global__ void halo_device_kernel(shardtab_signals_t sig, shardtab_halo_device_t halo, int iters,
                                   halo_device_vary_t vary)
{
    for (int i = 0; i < iters; i++) {
        if (i > 0 && vary.origin) {
            halo_device_vary_round(&vary, i, threadIdx.x, blockDim.x);
            __syncthreads();
        }
        if (shardtab_halo_exchange_block(&sig, &halo) != SHARDTAB_WAIT_OK)
            return; /* recorded in the pad */
        if (vary.origin)
            halo_device_check_round(&vary, i, threadIdx.x, blockDim.x);
    }
}

/* a block that gave up goes on to the syncs: the node has stopped */
__global__ void halo_device_grid_kernel(shardtab_signals_t sig, shardtab_halo_device_t halo,
                                        int iters, halo_device_vary_t vary)
{
    const uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
                   threads = (uint64_t)gridDim.x * blockDim.x;
    for (int i = 0; i < iters; i++) {
        if (i > 0 && vary.origin) {
            halo_device_vary_round(&vary, i, thread, threads);
            cooperative_groups::this_grid().sync();
        }
        (void)shardtab_halo_exchange_blocks(&sig, &halo, (int)blockIdx.x, (int)gridDim.x);
        cooperative_groups::this_grid().sync();
        if (vary.origin)
            halo_device_check_round(&vary, i, thread, threads);
    }
}

extern "C" int halo_device_exchanges(const shardtab_signals_t *sig,
                                     const shardtab_halo_device_t *halo, int iters, int blocks,
                                     const halo_device_vary_t *vary, void *stream)
{
    halo_device_vary_t v = {};
    if (vary)
        v = *vary;
    if (blocks <= 1) {
        halo_device_kernel<<<1, HALO_DEVICE_THREADS, 0, (hipStream_t)stream>>>(*sig, *halo, iters,
                                                                               v);
        return (int)hipGetLastError();
    }
    shardtab_signals_t s = *sig;
    shardtab_halo_device_t h = *halo;
    void *args[] = {&s, &h, &iters, &v};
    return (int)hipLaunchCooperativeKernel((const void *)halo_device_grid_kernel,
                                           dim3((unsigned)blocks), dim3(HALO_DEVICE_GRID_THREADS),
                                           args, 0, (hipStream_t)stream);
}
