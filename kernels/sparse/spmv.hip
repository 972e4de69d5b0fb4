/* spmv.hip - the product over the table (spmv.h) on GPUs, written once in
 * HIP (built by clang as HIP for AMD GPUs, by nvcc as CUDA through
 * gpu_runtime.h): one thread a row, grid-stride, each row by spmv_body.h.
 * The table and the rows' arrays live in this GPU's memory; an entry of the
 * table may point to a node peer's shard, opened by IPC. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>

#include "gpu_runtime.h"
#include "spmv.h"
#include "spmv_body.h"

#define SPMV_BLOCK 256
#define SPMV_BLOCKS_PER_SM 8 /* resident blocks of 256 a multiprocessor the grid fills */

__global__ void __launch_bounds__(SPMV_BLOCK) spmv_kernel(spmv_rows_t m, double *y)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;

    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m.rows; i += stride)
        y[i] = spmv_row(&m, i);
}

__global__ void __launch_bounds__(SPMV_BLOCK)
    spmv_gather_kernel(const double *x, const int32_t *index, int64_t n, double *out)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;

    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
        spmv_gather_one(x, index, out, k);
}

/* The multiprocessors of the calling thread's device, asked of the runtime
 * once a device: the launch is timed, and small products are launch-bound. */
static hipError_t multiprocessors(int *sms)
{
    static thread_local int cached_device = -1, cached_sms = 0;
    int device;
    hipError_t err = hipGetDevice(&device);

    if (err == hipSuccess && device != cached_device) {
        err = hipDeviceGetAttribute(&cached_sms, hipDeviceAttributeMultiprocessorCount, device);
        if (err == hipSuccess)
            cached_device = device;
    }
    *sms = cached_sms;
    return err;
}

extern "C" int spmv(const spmv_rows_t *m, double *y, void *stream)
{
    int sms = 0;
    hipError_t err = multiprocessors(&sms);

    if (err != hipSuccess || m->rows == 0)
        return (int)err;
    const int64_t wanted = (m->rows + SPMV_BLOCK - 1) / SPMV_BLOCK;
    const int64_t cap = (int64_t)sms * SPMV_BLOCKS_PER_SM;
    const unsigned blocks = (unsigned)(wanted < cap ? wanted : cap);
    spmv_kernel<<<blocks, SPMV_BLOCK, 0, (hipStream_t)stream>>>(*m, y);
    return (int)hipGetLastError();
}

extern "C" int spmv_gather(const double *x, const int32_t *index, int64_t n, double *out,
                           void *stream)
{
    int sms = 0;
    hipError_t err = multiprocessors(&sms);

    if (err != hipSuccess || n == 0)
        return (int)err;
    const int64_t wanted = (n + SPMV_BLOCK - 1) / SPMV_BLOCK;
    const int64_t cap = (int64_t)sms * SPMV_BLOCKS_PER_SM;
    const unsigned blocks = (unsigned)(wanted < cap ? wanted : cap);
    spmv_gather_kernel<<<blocks, SPMV_BLOCK, 0, (hipStream_t)stream>>>(x, index, n, out);
    return (int)hipGetLastError();
}

extern "C" const char *spmv_error_string(int code)
{
    return hipGetErrorString((hipError_t)code);
}
