/* signal_gpu.hip - the library's one kernel: shardtab_barrier_on_stream's
 * barrier, a single thread joining the node-wide barrier of shardtab_device.h.
 * HIP for AMD, compiled as CUDA for NVIDIA, like the program's kernels. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "shardtab_device.h"

__global__ void st_barrier_kernel(shardtab_signals_t signals)
{
    /* a wait that gives up records itself in the pad; shardtab_signal_check reads it */
    (void)shardtab_barrier(&signals);
}

extern "C" int st_gpu_barrier_launch(const shardtab_signals_t *signals, void *stream)
{
    st_barrier_kernel<<<1, 1, 0, (hipStream_t)stream>>>(*signals);
    return (int)hipGetLastError();
}
