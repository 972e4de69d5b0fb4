/* halo_kernels.hip - halo_check's device-side exchanges (halo_kernels.h):
 * one block a rank, every thread taking part, as a persistent solver's
 * exchanging block would; or a cooperative grid sharing each exchange. HIP
 * for AMD, compiled as CUDA for NVIDIA. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "halo_kernels.h"

__global__ void halo_device_kernel(shardtab_signals_t sig, shardtab_halo_device_t halo, int iters)
{
    for (int i = 0; i < iters; i++)
        if (shardtab_halo_exchange_block(&sig, &halo) != SHARDTAB_WAIT_OK)
            return; /* recorded in the pad */
}

/* every block its share of each exchange, the grid's sync after each; a
 * block whose wait gave up goes on to the syncs (the node has stopped: the
 * others' waits end too) */
__global__ void halo_device_grid_kernel(shardtab_signals_t sig, shardtab_halo_device_t halo,
                                        int iters)
{
    for (int i = 0; i < iters; i++) {
        (void)shardtab_halo_exchange_blocks(&sig, &halo, (int)blockIdx.x, (int)gridDim.x);
        cooperative_groups::this_grid().sync();
    }
}

extern "C" int halo_device_launch(const shardtab_signals_t *sig, const shardtab_halo_device_t *halo,
                                  int iters, int blocks, void *stream)
{
    if (blocks <= 1) {
        halo_device_kernel<<<1, 256, 0, (hipStream_t)stream>>>(*sig, *halo, iters);
        return (int)hipGetLastError();
    }
    shardtab_signals_t s = *sig;
    shardtab_halo_device_t h = *halo;
    void *args[] = {&s, &h, &iters};
    return (int)hipLaunchCooperativeKernel((const void *)halo_device_grid_kernel,
                                           dim3((unsigned)blocks), dim3(256), args, 0,
                                           (hipStream_t)stream);
}
