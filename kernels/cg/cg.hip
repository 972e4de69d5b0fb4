/* cg.hip - the conjugate-gradient solve of cg.h on GPUs, written once in HIP
 * (built by clang as HIP for AMD GPUs, by nvcc as CUDA through
 * gpu_runtime.h): the kernels are thin shells around cg_body.h, which the
 * host backend runs too; this file sizes the grids and launches them. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <limits.h>
#include <stdio.h>
#include <stdint.h>

#include "gpu_runtime.h"

#include "cg_body.h"

#define CG_STREAM_BLOCKS_PER_SM 8 /* resident blocks of 256 a multiprocessor a phase fills */
/* The persistent grid: every block resident, but not more than 2 a
 * multiprocessor until its threads hold this many rows each. */
#define CG_PERSISTENT_ROWS_PER_THREAD 8

/* Each kernel in two instantiations: REPRO fixes args.repro, so that the
 * plain kernels carry neither the exact path's registers nor its shared
 * memory (the compiler folds the constant through the inlined body). */
template <int REPRO> __global__ void __launch_bounds__(CG_BLOCK) cg_start_kernel(cg_args_t g)
{
    __shared__ int64_t block_limbs[REPRO ? 2 * CG_EXACT_WORDS : 1];
    __shared__ cg_state_t st;
    g.repro = REPRO;
    cg_start_block(&g, (int)blockIdx.x, &st, block_limbs);
}

template <int REPRO>
__global__ void __launch_bounds__(CG_BLOCK) cg_stream_kernel(cg_args_t g, int phase)
{
    __shared__ int64_t block_limbs[REPRO ? 2 * CG_EXACT_WORDS : 1];
    __shared__ cg_state_t st;
    g.repro = REPRO;
    cg_stream_block(&g, phase, (int)blockIdx.x, &st, block_limbs);
}

template <int REPRO>
__global__ void __launch_bounds__(CG_BLOCK) cg_decide_kernel(cg_args_t g, int decision)
{
    __shared__ cg_state_t st;
    g.repro = REPRO;
    cg_decide_block(&g, &st, decision);
}

/* The persistent grid's occupancy: blocks a multiprocessor keeps resident
 * at least (the registers a thread may hold follow); a build may set it. */
#ifndef CG_PERSISTENT_MIN_BLOCKS
#  define CG_PERSISTENT_MIN_BLOCKS 4
#endif

template <int REPRO>
__global__ void __launch_bounds__(CG_BLOCK, REPRO ? 3 : CG_PERSISTENT_MIN_BLOCKS)
    cg_persistent_kernel(cg_args_t g)
{
    __shared__ int64_t block_limbs[REPRO ? 2 * CG_EXACT_WORDS : 1];
    __shared__ cg_state_t st;
    g.repro = REPRO;
    cg_persistent_body(&g, (int)blockIdx.x, &st, block_limbs);
}

/* Each kernel's launch, for one instantiation. */
template <int REPRO> static int start_launch(const cg_args_t *args, hipStream_t stream)
{
    cg_start_kernel<REPRO><<<(unsigned)args->blocks, CG_BLOCK, 0, stream>>>(*args);
    return (int)hipGetLastError();
}

template <int REPRO> static int stream_launch(const cg_args_t *args, int phase, hipStream_t stream)
{
    cg_stream_kernel<REPRO><<<(unsigned)args->blocks, CG_BLOCK, 0, stream>>>(*args, phase);
    return (int)hipGetLastError();
}

template <int REPRO>
static int decide_launch(const cg_args_t *args, int decision, hipStream_t stream)
{
    cg_decide_kernel<REPRO><<<1, CG_BLOCK, 0, stream>>>(*args, decision);
    return (int)hipGetLastError();
}

/* --repro's instantiation of a kernel or launch, chosen here once for every
 * launcher (args->repro is set once, as the solver is made). */
template <typename K> static K instance_of(const cg_args_t *args, K exact, K plain)
{
    return args->repro ? exact : plain;
}

static const void *persistent_kernel(const cg_args_t *args)
{
    return (const void *)instance_of(args, cg_persistent_kernel<1>, cg_persistent_kernel<0>);
}

extern "C" int cg_grid(const cg_args_t *args, int resident, int share, int *blocks, int *most,
                       char *why, size_t why_bytes)
{
    int device, sms = 0, cooperative = 0, per_sm = 0;
    hipError_t err = hipGetDevice(&device);

    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device);
    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, device);
    if (err == hipSuccess)
        err = hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_kernel(args),
                                                           CG_BLOCK, 0);
    if (err != hipSuccess)
        return (int)err;
    const int own = sms / (share > 1 ? share : 1); /* every rank's grid resident at once */
    const int64_t wanted = (args->a.rows + CG_BLOCK - 1) / CG_BLOCK;
    int64_t cap = (int64_t)own * CG_STREAM_BLOCKS_PER_SM;
    if (resident) {
        if (!cooperative) {
            snprintf(why, why_bytes, "device %d has no cooperative launch", device);
            return CG_NOT_RESIDENT;
        }
        if (per_sm < 1 || own < 1) {
            snprintf(why, why_bytes,
                     own < 1 ? "%d ranks share device %d of %d multiprocessors: their persistent "
                               "grids cannot all be resident at once"
                             : "no block of the persistent kernel fits a multiprocessor of "
                               "device %d",
                     own < 1 ? share : device, device, sms);
            return CG_NOT_RESIDENT;
        }
        cap = (int64_t)own * per_sm;
    }
    if (cap < 1)
        cap = 1;
    *most = resident ? (int)cap : INT_MAX;
    int64_t grid = wanted < 1 ? 1 : wanted < cap ? wanted : cap;
    if (resident) {
        /* every block sums every block's part at each meeting, and counts in
         * at one word: while the rows are few, fewer blocks meet faster than
         * they lose in work (measured on the H200, docs/performance.md) */
        int64_t enough = args->a.rows / (CG_PERSISTENT_ROWS_PER_THREAD * CG_BLOCK);
        if (enough < 2 * (int64_t)own)
            enough = 2 * (int64_t)own;
        if (grid > enough)
            grid = enough;
    }
    *blocks = (int)grid;
    return 0;
}

extern "C" int cg_start(const cg_args_t *args, void *stream)
{
    return instance_of(args, start_launch<1>, start_launch<0>)(args, (hipStream_t)stream);
}

extern "C" int cg_stream_phase(const cg_args_t *args, int phase, void *stream)
{
    return instance_of(args, stream_launch<1>, stream_launch<0>)(args, phase, (hipStream_t)stream);
}

extern "C" int cg_decide(const cg_args_t *args, int decision, void *stream)
{
    return instance_of(args, decide_launch<1>, decide_launch<0>)(args, decision,
                                                                 (hipStream_t)stream);
}

extern "C" int cg_persistent(const cg_args_t *args, void *stream)
{
    cg_args_t copy = *args;
    void *params[] = {&copy};
    hipError_t err =
        hipLaunchCooperativeKernel(persistent_kernel(args), dim3((unsigned)args->blocks),
                                   dim3(CG_BLOCK), params, 0, (hipStream_t)stream);
    return (int)(err != hipSuccess ? err : hipGetLastError());
}

extern "C" double cg_clock_hz(void)
{
    int device = 0;
    hipDeviceProp_t props;

    if (hipGetDevice(&device) != hipSuccess ||
        hipGetDeviceProperties(&props, device) != hipSuccess) {
        (void)hipGetLastError();
        return 1e9;
    }
    return gpu_wall_clock_hz(device, &props);
}

extern "C" const char *cg_error_string(int code)
{
    return hipGetErrorString((hipError_t)code);
}
