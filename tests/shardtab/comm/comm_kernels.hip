/* comm_kernels.hip - comm_check's kernels (comm_kernels.h): the calls of
 * comm_calls.h as a user's kernel makes them. HIP for AMD, compiled as CUDA
 * for NVIDIA. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "comm_calls.h"
#include "comm_kernels.h"

__global__ void comm_call_kernel(shardtab_signals_t sig, comm_call_t call, const void *in,
                                 void *out, int *status)
{
    int st = comm_call_block(&sig, &call, in, out);
    if (shardtab_detail_block_leader() && st != SHARDTAB_WAIT_OK)
        atomicMax(status, st);
}

__global__ void comm_put_kernel(shardtab_signals_t sig, void *const *table, int peer, size_t offset,
                                const void *src, size_t bytes, int slot, uint64_t round,
                                int *status)
{
    int st = comm_put_block(&sig, table, peer, offset, src, bytes, slot, round);
    if (shardtab_detail_block_leader())
        *status = st;
}

extern "C" int comm_call_launch(const shardtab_signals_t *sig, const comm_call_t *call,
                                const void *in, void *out, int *status, int threads, int blocks,
                                void *stream)
{
    comm_call_kernel<<<blocks, threads, 0, (hipStream_t)stream>>>(*sig, *call, in, out, status);
    return (int)hipGetLastError();
}

extern "C" int comm_put_launch(const shardtab_signals_t *sig, void *const *table, int peer,
                               size_t offset, const void *src, size_t bytes, int slot,
                               uint64_t round, int *status, int threads, void *stream)
{
    comm_put_kernel<<<1, threads, 0, (hipStream_t)stream>>>(*sig, table, peer, offset, src, bytes,
                                                            slot, round, status);
    return (int)hipGetLastError();
}

__global__ void comm_ll_kernel(shardtab_signals_t sig, void *const *table, comm_ll_t ll,
                               const unsigned char *src, unsigned char *dst, int *status)
{
    int st = comm_ll_block(&sig, table, &ll, src, dst);
    if (shardtab_detail_block_leader())
        *status = st;
}

extern "C" int comm_ll_launch(const shardtab_signals_t *sig, void *const *table,
                              const comm_ll_t *ll, const unsigned char *src, unsigned char *dst,
                              int *status, int threads, void *stream)
{
    comm_ll_kernel<<<1, threads, 0, (hipStream_t)stream>>>(*sig, table, *ll, src, dst, status);
    return (int)hipGetLastError();
}

__global__ void comm_bench_kernel(shardtab_signals_t sig, int slot, int iters, int held, int trace,
                                  double *value, uint64_t *ticks, int *status)
{
    int st = comm_bench_block(&sig, slot, iters, held, trace, value, ticks);
    if (shardtab_detail_block_leader())
        *status = st;
}

extern "C" int comm_bench_launch(const shardtab_signals_t *sig, int slot, int iters, int held,
                                 int trace, double *value, uint64_t *ticks, int *status,
                                 int threads, void *stream)
{
    comm_bench_kernel<<<1, threads, 0, (hipStream_t)stream>>>(*sig, slot, iters, held, trace, value,
                                                              ticks, status);
    return (int)hipGetLastError();
}

__global__ void comm_held_stop_kernel(shardtab_signals_t sig, int slot, int values, int calls,
                                      int stop_rank, int stop_after, double *out, int *status)
{
    int st = comm_held_stop_block(&sig, slot, values, calls, stop_rank, stop_after, out);
    if (shardtab_detail_block_leader())
        *status = st;
}

extern "C" int comm_held_stop_launch(const shardtab_signals_t *sig, int slot, int values, int calls,
                                     int stop_rank, int stop_after, double *out, int *status,
                                     int threads, void *stream)
{
    comm_held_stop_kernel<<<1, threads, 0, (hipStream_t)stream>>>(
        *sig, slot, values, calls, stop_rank, stop_after, out, status);
    return (int)hipGetLastError();
}

__global__ void comm_dot_exact_kernel(shardtab_signals_t sig, int slot, const double *x,
                                      const double *y, size_t n, double *out, int *status)
{
    int st = comm_dot_exact_block(&sig, slot, x, y, n, out);
    if (shardtab_detail_block_leader())
        *status = st;
}

extern "C" int comm_dot_exact_launch(const shardtab_signals_t *sig, int slot, const double *x,
                                     const double *y, size_t n, double *out, int *status,
                                     int threads, void *stream)
{
    comm_dot_exact_kernel<<<1, threads, 0, (hipStream_t)stream>>>(*sig, slot, x, y, n, out, status);
    return (int)hipGetLastError();
}

__global__ void comm_concurrent_kernel(shardtab_signals_t sig, int slot_a, int values_a, int slot_b,
                                       int rounds, int held, const double *in, double *out,
                                       int *status)
{
    int st = comm_concurrent_block(&sig, (int)blockIdx.x, slot_a, values_a, slot_b, rounds, held,
                                   in, out);
    if (shardtab_detail_block_leader() && st != SHARDTAB_WAIT_OK)
        atomicMax(status, st);
}

extern "C" int comm_concurrent_launch(const shardtab_signals_t *sig, int slot_a, int values_a,
                                      int slot_b, int rounds, int held, const double *in,
                                      double *out, int *status, void *stream)
{
    comm_concurrent_kernel<<<3, 64, 0, (hipStream_t)stream>>>(*sig, slot_a, values_a, slot_b,
                                                              rounds, held, in, out, status);
    return (int)hipGetLastError();
}

extern "C" double comm_clock_hz(void)
{
    int device = 0;
    hipDeviceProp_t props;
    if (hipGetDevice(&device) != hipSuccess || hipGetDeviceProperties(&props, device) != hipSuccess)
        return 1e9;
    return gpu_wall_clock_hz(device, &props);
}
