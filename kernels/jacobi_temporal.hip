/* jacobi_temporal.hip - --launch temporal's kernels and launches (HIP, and
 * CUDA through gpu_runtime.h): a launch a pass, a block a tile running
 * jacobi_temporal.h's whole tile (wait, load, sweep, store) and, in the
 * pass's last block (a ticket), its finish (signals, close); or a resident
 * grid loading its next tile into registers (a rank alone); the plan's sizing
 * of the tiles. */
#include <stdint.h>
#include <stdio.h>

#include "gpu_runtime.h"
#include "jacobi_temporal.h"

/* A thread a column of the tile's buffer: 256 columns, of which 2 D are the
 * halo's (242 own columns at the default depth, 7); 32 own rows. Two such
 * blocks fit a multiprocessor of an H200 (2 x 94 KB at depth 7, of 227 KB),
 * so that one block's loads and stores run while the other computes. On an
 * MI250X GCD (64 KB of LDS a workgroup) the rows shrink to fit
 * (jacobi_temporal_cut). */
#define JACOBI_TEMPORAL_THREADS 256
#ifndef JACOBI_TEMPORAL_ROWS /* -D for a measurement (scripts/gpu-temporal.sh) */
#define JACOBI_TEMPORAL_ROWS 32
#endif
#ifndef JACOBI_TEMPORAL_MIN_BLOCKS
#define JACOBI_TEMPORAL_MIN_BLOCKS 2
#endif

/* The run's end, and a fresh ticket: passes count their tiles from here. */
__global__ void jacobi_temporal_begin(jacobi_step_t s, uint64_t count)
{
    jacobi_temporal_begin_run(&s, count);
}

/* The most rows a tile loads: its own and a halo of the deepest pass on each side. */
#define JACOBI_TEMPORAL_MAX_HEIGHT (JACOBI_TEMPORAL_ROWS + 2 * JACOBI_TEMPORAL_MAX_DEPTH)

/* This thread's column of tile g's loaded rows, from global memory into
 * registers: every row's load issued before any is used, so that they are in
 * flight together, and while the block sweeps the tile before. */
__device__ static inline void prefetch(const jacobi_step_t &s, jacobi_pass_t pass, const jacobi_tile_t &g,
                                       jacobi_real_t (&regs)[JACOBI_TEMPORAL_MAX_HEIGHT])
{
    const int x = g.x0 - s.temporal_depth + (int)threadIdx.x;

    if (x < g.g_lo || x >= g.g_hi)
        return;
#pragma unroll
    for (int j = 0; j < JACOBI_TEMPORAL_MAX_HEIGHT; j++)
        if (g.r_lo + j < g.r_hi)
            regs[j] = jacobi_temporal_source(&s, pass, &g, g.r_lo + j)[x];
}

/* The registers into the tile's buffer (the fixed columns into both). */
__device__ static inline void fill(const jacobi_step_t &s, const jacobi_tile_t &g,
                                   const jacobi_real_t (&regs)[JACOBI_TEMPORAL_MAX_HEIGHT], jacobi_real_t *cur,
                                   jacobi_real_t *next)
{
    const int c = (int)threadIdx.x, x = g.x0 - s.temporal_depth + c, pitch = jacobi_temporal_pitch(&s);
    const bool fixed = x == 0 || x == s.nx - 1;

    if (x < g.g_lo || x >= g.g_hi)
        return;
#pragma unroll
    for (int j = 0; j < JACOBI_TEMPORAL_MAX_HEIGHT; j++)
        if (g.r_lo + j < g.r_hi) {
            cur[(g.r_lo + j) * pitch + c] = regs[j];
            if (fixed)
                next[(g.r_lo + j) * pitch + c] = regs[j];
        }
}

/* One pass, a block a tile (the hardware starts each tile's block as one
 * ends, so one block's loads run while another sweeps): the tile's wait for
 * the neighbour ranks it meets, load, sweep and store of jacobi_temporal.h;
 * the last block to finish (a ticket) tells the neighbours and closes the
 * pass. The first row of tiles runs last (block b takes tile b + tiles_x),
 * and the last row just before it: where a tile row is as tall as the
 * deepest pass (on GPUs), those are the tiles that may wait for a neighbour,
 * and they start once the others have. */
__global__ void __launch_bounds__(JACOBI_TEMPORAL_THREADS, JACOBI_TEMPORAL_MIN_BLOCKS) jacobi_temporal_pass_tiles(jacobi_step_t s)
{
    extern __shared__ jacobi_real_t jacobi_temporal_buffers[];
    __shared__ jacobi_pass_t pass;
    __shared__ double slots[JACOBI_TEMPORAL_MAX_DEPTH * JACOBI_BLOCK_SLOTS], sums[JACOBI_TEMPORAL_MAX_DEPTH];
    __shared__ int last;
    const int tiles = s.temporal_tiles_x * s.temporal_tiles_y;
    const int t = ((int)blockIdx.x + s.temporal_tiles_x) % tiles;

    if (threadIdx.x == 0)
        pass = jacobi_temporal_next(&s);
    __syncthreads();
    if (pass.depth == 0)
        return;
    jacobi_temporal_tile(&s, pass, t, jacobi_temporal_buffers,
                         jacobi_temporal_buffers + jacobi_temporal_buffer_values(&s), slots, sums);
    if (threadIdx.x == 0) {
        const jacobi_tile_t g = jacobi_temporal_place(&s, pass, t);
        jacobi_temporal_publish(&s, pass, t, sums);
        last = jacobi_temporal_ticket(&s, (uint64_t)tiles,
                                      jacobi_temporal_meets_top(&s, &g) || jacobi_temporal_meets_bottom(&s, &g));
    }
    __syncthreads();
    if (!last)
        return;
    shardtab_fence_acquire_device(); /* every tile's sums, seen through the ticket, before they are read */
    jacobi_temporal_finish(&s, pass);
}

/* One pass, JACOBI_TEMPORAL_PREFETCH=1: a resident grid, each block taking every gridDim.x-th tile, its
 * next tile's rows loaded into registers while it sweeps this one; the last
 * block to finish (a ticket) closes the pass. A thread a column of the tile's
 * buffer (jacobi_temporal_size makes the pitch the block). */
__global__ void __launch_bounds__(JACOBI_TEMPORAL_THREADS, JACOBI_TEMPORAL_MIN_BLOCKS) jacobi_temporal_pass_resident(jacobi_step_t s)
{
    extern __shared__ jacobi_real_t jacobi_temporal_buffers[];
    __shared__ jacobi_pass_t pass;
    __shared__ double slots[JACOBI_TEMPORAL_MAX_DEPTH * JACOBI_BLOCK_SLOTS], sums[JACOBI_TEMPORAL_MAX_DEPTH];
    __shared__ int last;
    jacobi_real_t *cur = jacobi_temporal_buffers, *next = cur + jacobi_temporal_buffer_values(&s);
    jacobi_real_t regs[JACOBI_TEMPORAL_MAX_HEIGHT];
    const int tiles = s.temporal_tiles_x * s.temporal_tiles_y;

    if (threadIdx.x == 0)
        pass = jacobi_temporal_next(&s);
    __syncthreads();
    if (pass.depth == 0)
        return;
    int t = (int)blockIdx.x;
    if (jacobi_temporal_lags(&s, pass)) /* the planted LAG fault: the rerun computes nothing */
        t = tiles;
    if (t < tiles)
        prefetch(s, pass, jacobi_temporal_place(&s, pass, t), regs);
    for (; t < tiles; t += (int)gridDim.x) {
        const jacobi_tile_t g = jacobi_temporal_place(&s, pass, t);
        fill(s, g, regs, cur, next);
        __syncthreads();
        if (t + (int)gridDim.x < tiles)
            prefetch(s, pass, jacobi_temporal_place(&s, pass, t + (int)gridDim.x), regs);
        jacobi_temporal_store(&s, pass, &g, jacobi_temporal_sweep(&s, pass, &g, cur, next, slots, sums));
        if (threadIdx.x == 0)
            jacobi_temporal_publish(&s, pass, t, sums);
        __syncthreads(); /* the buffers read before the next tile fills them */
    }
    if (threadIdx.x == 0)
        last = jacobi_temporal_ticket(&s, (uint64_t)gridDim.x, 0); /* a rank alone (jacobi_temporal_size) */
    __syncthreads();
    if (!last)
        return;
    shardtab_fence_acquire_device(); /* every tile's sums, seen through the ticket, before they are read */
    jacobi_temporal_close(&s, pass);
}

static size_t temporal_smem(const jacobi_step_t *s)
{
    return 2 * jacobi_temporal_buffer_values(s) * sizeof(jacobi_real_t);
}

/* Sizes the tiles for depth (odd, 1 to 7) and allocates the partial sums.
 * Returns 0, JACOBI_PLAN_NOT_RESIDENT with why (jacobi_temporal_unfit's
 * reasons, the resident grid with neighbours, or a device whose blocks cannot
 * hold a tile), or a runtime code. */
extern "C" int jacobi_temporal_size(jacobi_step_t *s, int depth, int prefetch, char *why, size_t why_bytes)
{
    int device = 0, optin = 0;
    hipError_t err = hipGetDevice(&device);

    if (jacobi_temporal_unfit(s, depth, why, why_bytes))
        return JACOBI_PLAN_NOT_RESIDENT;
    if (prefetch && (s->deep_top_dest[0] || s->deep_bottom_dest[0])) {
        snprintf(why, why_bytes, "JACOBI_TEMPORAL_PREFETCH=1 runs a rank alone: its resident grid loads "
                 "tiles ahead, before a neighbour's rows are in");
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    if (prefetch && s->trace) {
        snprintf(why, why_bytes, "JACOBI_TEMPORAL_PREFETCH=1 records no trace (its resident grid's "
                 "tiles have no pass-wide start and end of their own): drop one of them");
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&optin, hipDeviceAttributeSharedMemPerBlockOptin, device);
    /* ROCm before 6.1 answers 0 here (ROCm/hip#3516): then the plain per-block limit */
    if (err == hipSuccess && optin <= 0)
        err = hipDeviceGetAttribute(&optin, hipDeviceAttributeMaxSharedMemoryPerBlock, device);
    /* the kernels' static shared memory (the pass, its sums, the ticket) beside the buffers */
    size_t static_smem = 0;
    for (int k = 0; k < 2 && err == hipSuccess; k++) {
        hipFuncAttributes attr;
        err = hipFuncGetAttributes(&attr, k ? (const void *)jacobi_temporal_pass_resident
                                            : (const void *)jacobi_temporal_pass_tiles);
        if (err == hipSuccess && attr.sharedSizeBytes > static_smem)
            static_smem = attr.sharedSizeBytes;
    }
    if (err != hipSuccess)
        return (int)err;
    const size_t room = (size_t)optin > static_smem ? (size_t)optin - static_smem : 0;
    if (jacobi_temporal_cut(s, depth, JACOBI_TEMPORAL_THREADS - 2 * depth, JACOBI_TEMPORAL_ROWS, room) != 0) {
        snprintf(why, why_bytes, "a temporal tile of %d x %d points needs %zu bytes of shared memory, "
                 "device %d gives a block %d", s->temporal_cols, s->temporal_rows, temporal_smem(s),
                 device, optin);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    for (int k = 0; k < 2 && err == hipSuccess; k++)
        err = hipFuncSetAttribute(k ? (const void *)jacobi_temporal_pass_resident : (const void *)jacobi_temporal_pass_tiles,
                                  hipFuncAttributeMaxDynamicSharedMemorySize, (int)temporal_smem(s));
    /* the resident grid: as many blocks as fit at once, no more than the tiles */
    int per_sm = 0, sms = 0;
    if (err == hipSuccess)
        err = hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, jacobi_temporal_pass_resident, JACOBI_TEMPORAL_THREADS,
                                                           temporal_smem(s));
    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device);
    if (err != hipSuccess)
        return (int)err;
    if (per_sm < 1) {
        snprintf(why, why_bytes, "no block of the temporal pass fits a multiprocessor of device %d", device);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    const int tiles = s->temporal_tiles_x * s->temporal_tiles_y;
    s->temporal_prefetch = prefetch;
    s->temporal_blocks = !prefetch ? tiles : per_sm * sms < tiles ? per_sm * sms : tiles;
    if (err == hipSuccess)
        err = hipMalloc((void **)&s->temporal_partials, (size_t)depth * (size_t)s->temporal_tiles_x *
                                                            (size_t)s->temporal_tiles_y * sizeof(double));
    return (int)err;
}

/* The passes a run of count iterations needs at most: as many as the deepest
 * odd depth takes, two more for a run of an even count, two for a pass run
 * again after a stop (a pass with nothing left returns at once). */
extern "C" int jacobi_temporal_passes(const jacobi_step_t *s, int count)
{
    return (count + s->temporal_depth - 1) / s->temporal_depth + 4;
}

/* Enqueues a run's start (start != 0) and then `passes` passes. */
extern "C" int jacobi_temporal_enqueue(const jacobi_step_t *s, int start, int count, int passes, void *stream)
{
    hipStream_t st = (hipStream_t)stream;
    hipError_t err = hipSuccess;

    if (start) {
        jacobi_temporal_begin<<<1, 1, 0, st>>>(*s, (uint64_t)count);
        err = hipGetLastError();
    }
    for (int i = 0; i < passes && err == hipSuccess; i++) {
        if (s->temporal_prefetch)
            jacobi_temporal_pass_resident<<<s->temporal_blocks, JACOBI_TEMPORAL_THREADS, temporal_smem(s), st>>>(*s);
        else
            jacobi_temporal_pass_tiles<<<s->temporal_blocks, JACOBI_TEMPORAL_THREADS, temporal_smem(s), st>>>(*s);
        err = hipGetLastError();
    }
    return (int)err;
}

extern "C" void jacobi_temporal_release(jacobi_step_t *s)
{
    if (s->temporal_partials)
        (void)hipFree(s->temporal_partials);
    s->temporal_partials = NULL;
}
