/* halo_exchange.hip - halo_exchange's device code on GPUs: one block runs the
 * step (halo_exchange.h), each thread its share of the cells. HIP for AMD; the
 * same file compiled as CUDA for NVIDIA (CMake: the source's LANGUAGE CUDA). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "example_gpu.h"
#include "halo_exchange.h"

#define HALO_BLOCK 256

__global__ void halo_kernel(shardtab_signals_t sig, double *const *table, halo_layout_t layout,
                            uint64_t s)
{
    /* a failed wait returns early on every thread; shardtab_signal_check says why */
    (void)halo_step(&sig, table, layout, s, threadIdx.x, blockDim.x);
}

extern "C" const char *halo_exchange_step(const shardtab_signals_t *sig, void *const *table,
                                          halo_layout_t layout, uint64_t s)
{
    halo_kernel<<<1, HALO_BLOCK>>>(*sig, (double *const *)table, layout, s);
    return example_launch_error();
}
