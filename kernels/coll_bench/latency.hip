/* latency.hip - coll_bench's device-side timings on GPUs (HIP; compiled as
 * CUDA on NVIDIA): one block of LAT_THREADS runs each body. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "latency_body.h"

__global__ void lat_pingpong_kernel(shardtab_signals_t sig, void *const *table, const void *src,
                                    size_t dst_offset, size_t bytes, int iters, uint64_t base,
                                    uint64_t *ticks, int *status)
{
    int st = lat_pingpong_block(&sig, table, src, dst_offset, bytes, iters, base, ticks);
    if (shardtab_detail_block_leader())
        *status = st;
}

extern "C" int lat_pingpong_launch(const shardtab_signals_t *sig, void *const *table,
                                   const void *src, size_t dst_offset, size_t bytes, int iters,
                                   uint64_t base, uint64_t *ticks, int *status, void *stream)
{
    lat_pingpong_kernel<<<1, LAT_THREADS, 0, (hipStream_t)stream>>>(
        *sig, table, src, dst_offset, bytes, iters, base, ticks, status);
    return (int)hipGetLastError();
}

__global__ void lat_ll_pingpong_kernel(shardtab_signals_t sig, void *const *table, const void *src,
                                       void *dst, size_t ll_offset, size_t bytes, int iters,
                                       uint64_t *ticks, int *status)
{
    int st = lat_ll_pingpong_block(&sig, table, src, dst, ll_offset, bytes, iters, ticks);
    if (shardtab_detail_block_leader())
        *status = st;
}

extern "C" int lat_ll_pingpong_launch(const shardtab_signals_t *sig, void *const *table,
                                      const void *src, void *dst, size_t ll_offset, size_t bytes,
                                      int iters, uint64_t *ticks, int *status, void *stream)
{
    lat_ll_pingpong_kernel<<<1, LAT_THREADS, 0, (hipStream_t)stream>>>(
        *sig, table, src, dst, ll_offset, bytes, iters, ticks, status);
    return (int)hipGetLastError();
}

__global__ void lat_all_reduce_kernel(shardtab_signals_t sig, const double *in, double *out,
                                      int iters, int held, uint64_t *ticks, int *status)
{
    int st = lat_all_reduce_block(&sig, in, out, iters, held, ticks);
    if (shardtab_detail_block_leader())
        *status = st;
}

extern "C" int lat_all_reduce_launch(const shardtab_signals_t *sig, const double *in, double *out,
                                     int iters, int held, uint64_t *ticks, int *status,
                                     void *stream)
{
    lat_all_reduce_kernel<<<1, LAT_THREADS, 0, (hipStream_t)stream>>>(*sig, in, out, iters, held,
                                                                      ticks, status);
    return (int)hipGetLastError();
}

__global__ void lat_load_chain_kernel(uint64_t *ring, int how, int iters, uint64_t *ticks)
{
    lat_load_chain_block(ring, how, iters, ticks);
}

extern "C" int lat_load_chain_launch(uint64_t *ring, int how, int iters, uint64_t *ticks,
                                     void *stream)
{
    lat_load_chain_kernel<<<1, 32, 0, (hipStream_t)stream>>>(ring, how, iters, ticks);
    return (int)hipGetLastError();
}

__global__ void lat_empty_kernel(void) {}

extern "C" int lat_empty_launch(void *stream)
{
    lat_empty_kernel<<<1, LAT_THREADS, 0, (hipStream_t)stream>>>();
    return (int)hipGetLastError();
}

extern "C" double lat_clock_hz(void)
{
    int device = 0;
    hipDeviceProp_t props;
    if (hipGetDevice(&device) != hipSuccess || hipGetDeviceProperties(&props, device) != hipSuccess)
        return 1e9;
    return gpu_wall_clock_hz(device, &props);
}
