/* scal.hip - multi_scal's GPU kernels, written once in HIP: built by clang as
 * HIP for AMD GPUs, and by nvcc as CUDA (through gpu_runtime.h) for NVIDIA.
 * Every kernel reaches memory through the table that lives in this GPU's own
 * memory; an entry may point to a peer GPU's shard, opened by IPC. */
#include <stdint.h>
#include <stdlib.h>

#include "gpu_runtime.h"
#include "scal.h"
#include "scal_op.h"

#define SCAL_BLOCK 256
#define SCAL_DEFAULT_BLOCKS_PER_SM 32

/* Resident blocks per multiprocessor the grid aims at; SCAL_BLOCKS_PER_SM
 * overrides it for tuning runs (docs/performance.md), 1 to 64. */
static uint64_t blocks_per_sm(void)
{
    static thread_local uint64_t value = 0; /* per thread: launchers may run on any thread */
    if (value == 0) {
        const char *text = getenv("SCAL_BLOCKS_PER_SM");
        long v = text ? strtol(text, NULL, 10) : 0;
        value = v >= 1 && v <= 64 ? (uint64_t)v : SCAL_DEFAULT_BLOCKS_PER_SM;
    }
    return value;
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

static const char *const variant_names[SCAL_VARIANT_COUNT] = {"naive", "vec2", "vec2x4",
                                                               "vec2x8", "vec2x4s"};

extern "C" const char *scal_variant_name(int variant)
{
    return variant >= 0 && variant < SCAL_VARIANT_COUNT ? variant_names[variant] : NULL;
}

extern "C" const char *scal_set_variant(int variant)
{
    if (variant < 0 || variant >= SCAL_VARIANT_COUNT)
        return NULL;
    current_variant = (scal_variant_t)variant;
    return variant_names[variant];
}

extern "C" int scal_shard(double *const *table, int shard, uint64_t n, double alpha)
{
    unsigned blocks;
    hipError_t err;

    if (n == 0)
        return 0;
    /* the vector variants move two doubles per step: size the grid for pairs */
    if ((err = grid_for(current_variant == SCAL_VARIANT_NAIVE ? n : (n + 1) / 2, &blocks)) != hipSuccess)
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
