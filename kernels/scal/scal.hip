/* scal.hip - multi_scal's GPU kernels, written once in HIP: built by clang as
 * HIP for AMD GPUs, and by nvcc as CUDA (through gpu_runtime.h) for NVIDIA.
 * Every kernel reaches memory through the table that lives in this GPU's own
 * memory; an entry may point to a peer GPU's shard, opened by IPC. The tuning
 * comes in checked (scal_set_tuning); nothing here reads the environment. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_runtime.h"
#include "scal.h"
#include "scal_op.h"

#define SCAL_BLOCK 256
#define SCAL_DEFAULT_BLOCKS_PER_SM 32

/* Resident blocks per multiprocessor the grid aims at: the tuning's
 * (SCAL_BLOCKS_PER_SM, scal_set_tuning), else the default. */
static int tuned_blocks_per_sm = 0;

static uint64_t blocks_per_sm(void)
{
    return tuned_blocks_per_sm > 0 ? (uint64_t)tuned_blocks_per_sm : SCAL_DEFAULT_BLOCKS_PER_SM;
}

/* Blocks for n elements: enough to fill the GPU several times over, grid-stride
 * beyond that. Asked of the runtime once per device. */
static hipError_t grid_for(uint64_t n, unsigned *blocks)
{
    static thread_local int cached_device = -1, cached_sms = 0;
    int device;
    hipError_t err = hipGetDevice(&device);

    if (err != hipSuccess)
        return err;
    if (device != cached_device) {
        err = hipDeviceGetAttribute(&cached_sms, hipDeviceAttributeMultiprocessorCount, device);
        if (err != hipSuccess)
            return err;
        cached_device = device;
    }
    uint64_t wanted = (n + SCAL_BLOCK - 1) / SCAL_BLOCK;
    uint64_t cap = (uint64_t)cached_sms * blocks_per_sm();
    *blocks = (unsigned)(wanted < cap ? wanted : cap);
    return hipSuccess;
}

/* The naive kernel: one double per thread per grid-stride step. */
__global__ void scal_shard_naive(double *const *table, int shard, uint64_t n, double alpha)
{
    double *x = table[shard];
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        scal_element(x, i, alpha);
}

/* 16-byte loads, UNROLL of them in flight per thread before any store: a remote
 * shard is far away (a link, not HBM), so bytes in flight decide the rate.
 * The entry may be 8-byte aligned only: peel one element to reach 16. */
/* Streaming (evict-first) 16-byte accesses: the data is touched once. */
__device__ inline double2 load_stream(const double2 *p)
{
#if defined(__CUDACC__)
    return __ldcs(p);
#else
    const double *q = reinterpret_cast<const double *>(p);
    double2 v;
    v.x = __builtin_nontemporal_load(q);
    v.y = __builtin_nontemporal_load(q + 1);
    return v;
#endif
}

__device__ inline void store_stream(double2 *p, double2 v)
{
#if defined(__CUDACC__)
    __stcs(p, v);
#else
    double *q = reinterpret_cast<double *>(p);
    __builtin_nontemporal_store(static_cast<double>(v.x), q);
    __builtin_nontemporal_store(static_cast<double>(v.y), q + 1);
#endif
}

template <int UNROLL, bool STREAM>
__global__ void scal_shard_vec2(double *const *table, int shard, uint64_t n, double alpha)
{
    double *x = table[shard];
    uint64_t head = ((uintptr_t)x & 15) ? 1 : 0;
    uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;

    if (head > n)
        head = n;
    if (tid == 0 && head)
        scal_element(x, 0, alpha);
    double2 *x2 = reinterpret_cast<double2 *>(x + head);
    uint64_t pairs = (n - head) / 2;
    for (uint64_t base = tid; base < pairs; base += stride * UNROLL) {
        double2 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            uint64_t i = base + (uint64_t)u * stride;
            if (i < pairs)
                v[u] = STREAM ? load_stream(&x2[i]) : x2[i];
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            uint64_t i = base + (uint64_t)u * stride;
            if (i < pairs) {
                v[u].x = scal_value(v[u].x, alpha);
                v[u].y = scal_value(v[u].y, alpha);
                if (STREAM)
                    store_stream(&x2[i], v[u]);
                else
                    x2[i] = v[u];
            }
        }
    }
    if (tid == 0 && ((n - head) & 1))
        scal_element(x, n - 1, alpha);
}

/* The non-persistent kernel: the shard is cut into chunks of BLOCK * UNROLL
 * 16-byte pairs, and the grid has one block per chunk (as PyTorch's elementwise
 * kernels do), so the blocks resident at any moment touch one narrow, moving
 * window of memory and a finished block frees its slot for the next chunk.
 * Thread t of a block handles pairs t, t + BLOCK, ...: each of its UNROLL loads
 * is coalesced across the warp, and all of them are in flight before the first
 * store. The grid stops at 2^31 threads (CUDA allows 2^31 - 1 blocks, HIP
 * fewer than 2^32 work-items in all): past that (a 32 GiB shard at 256 x 1)
 * it strides over the chunks. The 8-byte head and tail are peeled as in vec2. */
#define CHUNK_GRID_THREADS (1ull << 31)

template <int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
    scal_shard_chunk(double *const *table, int shard, uint64_t n, double alpha)
{
    double *x = table[shard];
    uint64_t head = ((uintptr_t)x & 15) ? 1 : 0;

    if (head > n)
        head = n;
    double2 *x2 = reinterpret_cast<double2 *>(x + head);
    uint64_t pairs = (n - head) / 2;
    uint64_t chunks = (pairs + (uint64_t)BLOCK * UNROLL - 1) / ((uint64_t)BLOCK * UNROLL);

    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (head)
            scal_element(x, 0, alpha);
        if ((n - head) & 1)
            scal_element(x, n - 1, alpha);
    }
    for (uint64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        uint64_t base = c * BLOCK * UNROLL + threadIdx.x;
        double2 v[UNROLL];
        if (base + (uint64_t)(UNROLL - 1) * BLOCK < pairs) { /* a whole chunk: no bounds tests */
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                v[u] = x2[base + (uint64_t)u * BLOCK];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                v[u].x = scal_value(v[u].x, alpha);
                v[u].y = scal_value(v[u].y, alpha);
                x2[base + (uint64_t)u * BLOCK] = v[u];
            }
        } else {
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                if (base + (uint64_t)u * BLOCK < pairs)
                    v[u] = x2[base + (uint64_t)u * BLOCK];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                if (base + (uint64_t)u * BLOCK < pairs) {
                    v[u].x = scal_value(v[u].x, alpha);
                    v[u].y = scal_value(v[u].y, alpha);
                    x2[base + (uint64_t)u * BLOCK] = v[u];
                }
            }
        }
    }
}

/* The chunk kernel's shapes, threads per block x pairs per thread, each with
 * its kernel (on HIP a kernel handle: launch it only with <<< >>>). The default
 * was chosen by measurement (docs/performance.md) and comes first. */
typedef void (*chunk_kernel_t)(double *const *, int, uint64_t, double);
#define CHUNK_SHAPE(B, U) {B, U, scal_shard_chunk<B, U>, "chunk " #B "x" #U},
static const struct chunk_shape {
    int block, unroll;
    chunk_kernel_t kernel;
    const char *label;
} chunk_shapes[] = {SCAL_CHUNK_SHAPES(CHUNK_SHAPE)};
#define CHUNK_SHAPES ((int)(sizeof chunk_shapes / sizeof chunk_shapes[0]))

static int chosen_shape = -1; /* scal_set_chunk_shape's; -1: the tuning's */
static int tuned_shape = 0;   /* scal_set_tuning's (SCAL_CHUNK_SHAPE); 0: the default */
static uint64_t chunk_grid_threads = CHUNK_GRID_THREADS;

static const struct chunk_shape *current_chunk_shape(void)
{
    return &chunk_shapes[chosen_shape >= 0 ? chosen_shape : tuned_shape];
}

extern "C" int scal_set_tuning(int blocks_per_sm, int chunk_shape)
{
    if (blocks_per_sm < 0 || blocks_per_sm > SCAL_MAX_BLOCKS_PER_SM || chunk_shape < 0 ||
        chunk_shape >= CHUNK_SHAPES)
        return -1;
    tuned_blocks_per_sm = blocks_per_sm;
    tuned_shape = chunk_shape;
    return 0;
}

extern "C" int scal_chunk_shape(int index, int *block, int *unroll)
{
    if (index < 0 || index >= CHUNK_SHAPES)
        return -1;
    *block = chunk_shapes[index].block;
    *unroll = chunk_shapes[index].unroll;
    return 0;
}

extern "C" int scal_set_chunk_shape(int index, uint64_t grid_threads)
{
    if (index < -1 || index >= CHUNK_SHAPES)
        return -1;
    chosen_shape = index;
    chunk_grid_threads = grid_threads ? grid_threads : CHUNK_GRID_THREADS;
    return 0;
}

__global__ void scal_range_kernel(scal_range_t r, double alpha)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; k < r.count; k += stride) {
        uint64_t g = r.begin + k;
        if (g >= r.total)
            g -= r.total;
        int s = scal_locate(r.offsets, r.nshards, g);
        scal_element(r.table[s], g - r.offsets[s], alpha);
    }
}

__global__ void scal_fill_kernel(double *const *table, int shard, uint64_t n, uint64_t seed)
{
    double *x = table[shard];
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
        x[k] = scal_pattern(seed, k);
}

static scal_variant_t current_variant = SCAL_VARIANT_DEFAULT;

extern "C" const char *scal_kernel_label(int variant)
{
    if (variant == SCAL_VARIANT_CHUNK)
        return current_chunk_shape()->label;
    return scal_variant_name(variant);
}

extern "C" const char *scal_set_variant(int variant)
{
    if (variant < 0 || variant >= SCAL_VARIANT_COUNT)
        return NULL;
    current_variant = (scal_variant_t)variant;
    return scal_variant_name(variant);
}

extern "C" int scal_shard(double *const *table, int shard, uint64_t n, double alpha)
{
    unsigned blocks;
    hipError_t err;

    if (n == 0)
        return 0;
    if (current_variant == SCAL_VARIANT_CHUNK) {
        const struct chunk_shape *shape = current_chunk_shape();
        uint64_t per_block = (uint64_t)shape->block * shape->unroll;
        uint64_t chunks = (n / 2 + per_block - 1) / per_block; /* n / 2 >= the kernel's pairs */
        uint64_t most = chunk_grid_threads / (uint64_t)shape->block;
        blocks = (unsigned)(chunks == 0 ? 1 : chunks < most ? chunks : most > 0 ? most : 1);
        shape->kernel<<<blocks, shape->block>>>(table, shard, n, alpha);
        return (int)hipGetLastError();
    }
    /* the persistent variants: the vector ones move two doubles per step */
    if ((err = grid_for(current_variant == SCAL_VARIANT_NAIVE ? n : (n + 1) / 2, &blocks)) !=
        hipSuccess)
        return (int)err;
    switch (current_variant) {
    case SCAL_VARIANT_NAIVE:
        scal_shard_naive<<<blocks, SCAL_BLOCK>>>(table, shard, n, alpha);
        break;
    case SCAL_VARIANT_VEC2:
        scal_shard_vec2<1, false><<<blocks, SCAL_BLOCK>>>(table, shard, n, alpha);
        break;
    case SCAL_VARIANT_VEC2X8:
        scal_shard_vec2<8, false><<<blocks, SCAL_BLOCK>>>(table, shard, n, alpha);
        break;
    case SCAL_VARIANT_VEC2X4S:
        scal_shard_vec2<4, true><<<blocks, SCAL_BLOCK>>>(table, shard, n, alpha);
        break;
    default:
        scal_shard_vec2<4, false><<<blocks, SCAL_BLOCK>>>(table, shard, n, alpha);
        break;
    }
    return (int)hipGetLastError();
}

extern "C" int scal_range(const scal_range_t *range, double alpha)
{
    unsigned blocks;
    hipError_t err;

    if (range->count == 0)
        return 0;
    if ((err = grid_for(range->count, &blocks)) != hipSuccess)
        return (int)err;
    scal_range_kernel<<<blocks, SCAL_BLOCK>>>(*range, alpha);
    return (int)hipGetLastError();
}

extern "C" int scal_fill(double *const *table, int shard, uint64_t n, uint64_t seed)
{
    unsigned blocks;
    hipError_t err;

    if (n == 0)
        return 0;
    if ((err = grid_for(n, &blocks)) != hipSuccess)
        return (int)err;
    scal_fill_kernel<<<blocks, SCAL_BLOCK>>>(table, shard, n, seed);
    return (int)hipGetLastError();
}

extern "C" const char *scal_error_string(int code)
{
    return hipGetErrorString((hipError_t)code);
}

/* ---- benchmark services: copies and device-event timers ------------------ */

/* dst and src come from hipMalloc bases: 16-byte aligned. */
__global__ void scal_copy_vec2x4(double2 *dst, const double2 *src, uint64_t pairs)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t base = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; base < pairs;
         base += stride * 4) {
        double2 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            if (base + u * stride < pairs)
                v[u] = src[base + u * stride];
#pragma unroll
        for (int u = 0; u < 4; u++)
            if (base + u * stride < pairs)
                dst[base + u * stride] = v[u];
    }
}

__global__ void scal_copy_tail(double *dst, const double *src, uint64_t i)
{
    dst[i] = src[i];
}

extern "C" int scal_copy_kernel(double *dst, const double *src, uint64_t n)
{
    unsigned blocks;
    hipError_t err;

    if (((uintptr_t)dst | (uintptr_t)src) & 15)
        return (int)hipErrorInvalidValue;
    if (n / 2 > 0) {
        if ((err = grid_for(n / 2, &blocks)) != hipSuccess)
            return (int)err;
        scal_copy_vec2x4<<<blocks, SCAL_BLOCK>>>(reinterpret_cast<double2 *>(dst),
                                                 reinterpret_cast<const double2 *>(src), n / 2);
    }
    if (n % 2)
        scal_copy_tail<<<1, 1>>>(dst, src, n - 1);
    return (int)hipGetLastError();
}

extern "C" int scal_copy(void *dst, const void *src, uint64_t bytes)
{
    /* Default: the runtime works out which device owns each side (UVA). */
    return (int)hipMemcpyAsync(dst, src, (size_t)bytes, hipMemcpyDefault, 0);
}

struct scal_timer {
    hipEvent_t start, stop;
};

extern "C" int scal_timer_create(scal_timer_t **timer)
{
    scal_timer_t *t = (scal_timer_t *)calloc(1, sizeof *t);
    hipError_t err;

    if (t == NULL)
        return (int)hipErrorOutOfMemory;
    if ((err = hipEventCreate(&t->start)) != hipSuccess) {
        free(t);
        return (int)err;
    }
    if ((err = hipEventCreate(&t->stop)) != hipSuccess) {
        (void)hipEventDestroy(t->start);
        free(t);
        return (int)err;
    }
    *timer = t;
    return 0;
}

extern "C" int scal_timer_start(scal_timer_t *timer)
{
    return (int)hipEventRecord(timer->start, 0);
}

extern "C" int scal_timer_stop(scal_timer_t *timer, double *ms)
{
    float elapsed = 0.0f;
    hipError_t err = hipEventRecord(timer->stop, 0);

    if (err == hipSuccess)
        err = hipEventSynchronize(timer->stop);
    if (err == hipSuccess)
        err = hipEventElapsedTime(&elapsed, timer->start, timer->stop);
    *ms = elapsed;
    return (int)err;
}

extern "C" void scal_timer_destroy(scal_timer_t *timer)
{
    if (timer == NULL)
        return;
    (void)hipEventDestroy(timer->start);
    (void)hipEventDestroy(timer->stop);
    free(timer);
}
