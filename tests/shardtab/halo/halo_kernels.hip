/* halo_kernels.hip - halo_check's device-side exchanges (halo_kernels.h):
 * one block a rank, every thread taking part, as a persistent solver's
 * exchanging block would. HIP for AMD, compiled as CUDA for NVIDIA. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "halo_kernels.h"

__global__ void halo_device_kernel(shardtab_signals_t sig, shardtab_halo_device_t halo, int iters)
{
    for (int i = 0; i < iters; i++)
        if (shardtab_halo_exchange_block(&sig, &halo) != SHARDTAB_WAIT_OK)
            return; /* recorded in the pad */
}

extern "C" int halo_device_launch(const shardtab_signals_t *sig, const shardtab_halo_device_t *halo,
                                  int iters, void *stream)
{
    halo_device_kernel<<<1, 256, 0, (hipStream_t)stream>>>(*sig, *halo, iters);
    return (int)hipGetLastError();
}
