/* jacobi_onchip.hip - the kernel of --launch onchip, written once in HIP (built
 * by clang as HIP for AMD GPUs, by nvcc as CUDA through gpu_runtime.h): each
 * block but the first keeps a tile of whole rows in its threads' registers for
 * the whole solve, four columns a thread, and meets its neighbours through the
 * protocol of jacobi_onchip.h; block 0 is the norm block. Per iteration a
 * tile reads two rows from memory (its neighbours' edges, LL words) and
 * writes two, and its block meets one barrier: where the stencil crosses from
 * one warp to the next, the warps' outer columns go through shared memory;
 * inside a warp, through shuffles.
 *
 * Every instantiation (rows a tile R, threads a block at most TMAX, with or
 * without the test hooks) is listed in jacobi_onchip_kernel_for, which the
 * mode's hooks at the end (jacobi_hooks.h) size and launch cooperatively:
 * every block resident at once, as tiles that wait for each other must be.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_runtime.h"
#include "jacobi_cut.h"
#include "jacobi_hooks.h"
#include "jacobi_onchip.h"
#include "jacobi_op.h"
#include "jacobi_protocol.h"
#include "shardtab_device.h"

__device__ static inline float shfl_from_left(float v)
{
#if defined(__CUDACC__)
    return __shfl_up_sync(0xffffffffu, v, 1);
#else
    return __shfl_up(v, 1);
#endif
}

__device__ static inline float shfl_from_right(float v)
{
#if defined(__CUDACC__)
    return __shfl_down_sync(0xffffffffu, v, 1);
#else
    return __shfl_down(v, 1);
#endif
}

__device__ static inline float &part(float4 &v, int i)
{
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

__device__ static inline double residue2(float4 n, float4 c)
{
    return jacobi_residue2(n.x, c.x) + jacobi_residue2(n.y, c.y) + jacobi_residue2(n.z, c.z) +
           jacobi_residue2(n.w, c.w);
}

/* Four columns of an edge row of time `time` as LL words (to a tile of this
 * rank or into a neighbouring rank's shard alike), and back. */
__device__ static inline void send_edge(uint64_t *w, float4 v, uint64_t time)
{
    shardtab_detail_ll_store(&w[0], shardtab_detail_float_bits(v.x), time);
    shardtab_detail_ll_store(&w[1], shardtab_detail_float_bits(v.y), time);
    shardtab_detail_ll_store(&w[2], shardtab_detail_float_bits(v.z), time);
    shardtab_detail_ll_store(&w[3], shardtab_detail_float_bits(v.w), time);
}

/* A lane's four columns of a neighbour's edge. With PREPOLL the warp's lanes
 * wait together: lane 0 polls one word of the warp's (one load a spin, not the
 * warp's 128), then every active lane takes its own with the full check (a
 * lane past the row's end, none). Every lane of the warp calls it; lane 0 is
 * always active (a row's threads fill warps from lane 0). */
/* Measured on one H200 (docs/performance.md, "On chip"): lane 0's poll first
 * is worth its extra round trip on 1024-column rows (256 threads: 4.73 against
 * 5.58 ms for 1000 iterations of 1024^2) and costs it on 2048 (512 threads:
 * 8.42 against 7.57 ms at 2048^2). The thread that waits for the decision
 * made no difference (lane 1, not the polling lane 0, kept). */
#define JACOBI_ONCHIP_GATE_THREAD 1

template <bool PREPOLL>
__device__ static inline int take_edge(const jacobi_step_t &s, const uint64_t *w, uint64_t time,
                                       uint64_t k, bool active, float4 *v, int kind)
{
    uint32_t b[4] = {0, 0, 0, 0}; /* a wait that ended takes zeros, never stack garbage */
    int ok = 1;

    if (PREPOLL) {
        if ((int)threadIdx.x % warpSize == 0)
            ok = jacobi_ll_wait(&s, w, 1, time, b, k, kind);
#if defined(__CUDACC__)
        ok = __shfl_sync(0xffffffffu, ok, 0);
#else
        ok = __shfl(ok, 0);
#endif
    }
    if (!active)
        return ok; /* past the row's end: nothing of its own to take */
    if (ok)
        ok = jacobi_ll_wait(&s, w, 4, time, b, k, kind);
    *v = make_float4(shardtab_detail_bits_float(b[0]), shardtab_detail_bits_float(b[1]),
                     shardtab_detail_bits_float(b[2]), shardtab_detail_bits_float(b[3]));
    return ok;
}

#define JACOBI_ONCHIP_MAX_WARPS 32 /* 1024 threads of 32; AMD's 64 need half */

template <int R, int TMAX, bool HOOKS>
__global__ void __launch_bounds__(TMAX, 1) jacobi_onchip_kernel(jacobi_step_t s, uint64_t count)
{
    /* each warp's outer columns of its rows, by parity (one barrier an iteration
     * parts a write from the reads of two iterations before): lane 0's first
     * column, the last lane's last */
    __shared__ float outer_first[2][JACOBI_ONCHIP_MAX_WARPS][R];
    __shared__ float outer_last[2][JACOBI_ONCHIP_MAX_WARPS][R];
    __shared__ uint64_t shared_k0, shared_base;
    __shared__ int shared_go[2]; /* by parity: no barrier between its read and the next write */
    /* a tile's ghost rows and edge rows, [side: above, below][time parity]
     * (jacobi_onchip_from, jacobi_onchip_to), the iteration that takes a row
     * in memory instead and that row, [side], and the waits' kinds */
    __shared__ const uint64_t *from_words[2][2];
    __shared__ uint64_t *to_words[2][2];
    __shared__ uint64_t plain_at[2];
    __shared__ const float *plain_row[2];
    __shared__ int from_kind[2];
    jacobi_ctl_t *ctl = s.ctl;

    if (threadIdx.x == 0) {
        const int t = (int)blockIdx.x - 1;
        shared_k0 = ctl->iteration;
        shared_base = ctl->base;
        for (int side = 0; side < 2 && t >= 0; side++) {
            for (int q = 0; q < 2; q++) {
                from_words[side][q] = jacobi_onchip_from(&s, t, side, (uint64_t)q);
                to_words[side][q] =
                    jacobi_onchip_to(&s, t, side, (uint64_t)q, HOOKS && s.skip_signal);
            }
            plain_at[side] = jacobi_onchip_plain_at(&s, t, side, shared_k0, shared_base);
            plain_row[side] = jacobi_onchip_plain_row(&s, t, side, shared_k0, shared_base);
            from_kind[side] = jacobi_onchip_from_kind(&s, t, side);
        }
    }
    __syncthreads();
    const uint64_t k0 = shared_k0, base = shared_base, end = k0 + count;
    uint64_t k = k0;

    if (blockIdx.x == 0) {
        jacobi_onchip_norm(&s, base, k0, end);
    } else {
        const int t = (int)blockIdx.x - 1, nx = s.nx;
        const int r0 = jacobi_tile_first_row(&s, t), nr = jacobi_tile_first_row(&s, t + 1) - r0;
        const int x0 = 4 * (int)threadIdx.x;
        const bool active = x0 < nx, left_edge = x0 == 0, right_edge = x0 + 4 == nx;
        const int lane = (int)threadIdx.x % warpSize, warp = (int)threadIdx.x / warpSize;
        const int warps = ((int)blockDim.x + warpSize - 1) / warpSize;
        const bool fault_tile = HOOKS && s.fault.kind != JACOBI_FAULT_NONE && s.fault.row >= r0 &&
                                s.fault.row < r0 + nr;
        const float *start = s.a[k0 & 1];
        bool lagged = false;
        float4 v[R];

#pragma unroll
        for (int i = 0; i < R; i++)
            v[i] = i < nr && active ? *(const float4 *)(start + (size_t)(r0 + i) * nx + x0)
                                    : make_float4(0.f, 0.f, 0.f, 0.f);
        for (;; k++) {
            const int p = (int)(k & 1);
            uint64_t *rec = HOOKS ? jacobi_trace_of(&s, k, base) : NULL;
            const uint64_t t_begin = rec ? shardtab_detail_clock() : 0;
            float4 up = make_float4(0.f, 0.f, 0.f, 0.f), down = up;
            int ok = 1;

            if (rec && threadIdx.x == 0)
                jacobi_trace_min(rec, JACOBI_TRACE_BEGIN, t_begin);
            if (lane == 0) {
#pragma unroll
                for (int i = 0; i < R; i++)
                    outer_first[p][warp][i] = v[i].x;
            }
            if (lane == warpSize - 1) {
#pragma unroll
                for (int i = 0; i < R; i++)
                    outer_last[p][warp][i] = v[i].w;
            }
            /* 1: run k; 0: the solve stopped before k; 2: the planted lag, decided
             * here once for the whole block */
            if (threadIdx.x == JACOBI_ONCHIP_GATE_THREAD) {
                int go = k < end && jacobi_onchip_may_run(&s, base, k0, k);
                if (!go && HOOKS && fault_tile && s.fault.kind == JACOBI_FAULT_LAG && !lagged &&
                    !jacobi_onchip_failed(&s))
                    go = 2;
                shared_go[p] = go;
            }
            /* the ghost rows of time k: a neighbour tile's edge or the neighbouring
             * rank's, the same LL words; or where there are none yet, a row in memory */
            if (k != plain_at[0])
                ok &= take_edge<(TMAX <= 256)>(s, from_words[0][p] + x0, k, k, active, &up,
                                               from_kind[0]);
            else if (active)
                up = *(const float4 *)(plain_row[0] + x0);
            if (HOOKS && active && fault_tile && s.fault.kind == JACOBI_FAULT_EDGE &&
                k - base == (uint64_t)s.fault.iteration && k != plain_at[0]) {
                /* the planted bug: the other time's words, their time unchecked */
                const uint64_t *w = from_words[0][p ^ 1] + x0;
                up = make_float4(shardtab_detail_bits_float((uint32_t)w[0]),
                                 shardtab_detail_bits_float((uint32_t)w[1]),
                                 shardtab_detail_bits_float((uint32_t)w[2]),
                                 shardtab_detail_bits_float((uint32_t)w[3]));
            }
            if (k != plain_at[1])
                ok &= take_edge<(TMAX <= 256)>(s, from_words[1][p] + x0, k, k, active, &down,
                                               from_kind[1]);
            else if (active)
                down = *(const float4 *)(plain_row[1] + x0);
            const int ended = __syncthreads_or(!ok);
            const int go = shared_go[p];
            /* the planted bug: one tile runs on past the stop. HOOKS in the test:
             * without the hooks lag is false at compile time, and the sweep below
             * (R rows unrolled) carries no lag path nor its exit */
            const bool lag = HOOKS && go == 2;
            if (go == 0 || (!lag && ended))
                break;
            lagged |= lag;
            if (rec && threadIdx.x == 0)
                jacobi_trace_max(rec, JACOBI_TRACE_WAIT, shardtab_detail_clock() - t_begin);

            /* the sweep, in registers */
            const bool norm_iter = jacobi_norm_iteration(base, s.nccheck, k);
            const bool fault_now = HOOKS && fault_tile && k - base == (uint64_t)s.fault.iteration &&
                                   s.fault.col >= x0 && s.fault.col < x0 + 4;
            double norm2 = 0.0;
            float4 prev = up;
            /* where they go (NULL: the test's silent rank sends none between ranks) */
            uint64_t *const first_to = to_words[0][p ^ 1], *const last_to = to_words[1][p ^ 1];
            const uint64_t t_send = rec ? shardtab_detail_clock() : 0;
#pragma unroll
            for (int i = 0; i < R; i++) {
                if (i < nr) {
                    const float4 c = v[i];
                    const float4 dn = i + 1 < nr ? v[i + 1 < R ? i + 1 : i] : down;
                    float left = shfl_from_left(c.w), right = shfl_from_right(c.x);
                    if (lane == 0)
                        left = warp > 0 ? outer_last[p][warp - 1][i] : 0.f;
                    if (lane == warpSize - 1)
                        right = warp + 1 < warps ? outer_first[p][warp + 1][i] : 0.f;
                    float4 n;
                    n.x = left_edge ? c.x : jacobi_value(left, c.y, prev.x, dn.x);
                    n.y = jacobi_value(c.x, c.z, prev.y, dn.y);
                    n.z = jacobi_value(c.y, c.w, prev.z, dn.z);
                    n.w = right_edge ? c.w : jacobi_value(c.z, right, prev.w, dn.w);
                    if (!active)
                        n = c;
                    if (fault_now && r0 + i == s.fault.row) {
                        float4 old = c;
                        const int col = s.fault.col - x0;
                        if (s.fault.kind == JACOBI_FAULT_STALE)
                            part(n, col) = part(old, col);
                        else if (s.fault.kind == JACOBI_FAULT_NORM && norm_iter)
                            norm2 += jacobi_residue2(part(n, col), part(old, col));
                    }
                    if (norm_iter && active)
                        norm2 += residue2(n, c);
                    prev = c;
                    v[i] = n;
                    /* the edge rows of time k + 1 leave as soon as they are made */
                    if (i == 0 && active && !lag && first_to)
                        send_edge(first_to + x0, n, k + 1);
                    if (i == nr - 1 && active && !lag && last_to)
                        send_edge(last_to + x0, n, k + 1);
                }
            }
            if (rec && threadIdx.x == 0)
                jacobi_trace_max(rec, JACOBI_TRACE_SWEPT, shardtab_detail_clock());
            if (lag)
                break; /* the lagging tile's rows are one iteration on: the check sees it */

            /* the rest of time k + 1: the warps' partials */
            if (norm_iter) {
                const double w = jacobi_warp_sum(norm2);
                if (lane == 0)
                    jacobi_ll_send_double(jacobi_tile_partial(&s, k + 1, t, warp), w, k + 1);
            }
            if (rec && threadIdx.x == 0) {
                const uint64_t now = shardtab_detail_clock();
                jacobi_trace_max(rec, JACOBI_TRACE_SIGNAL, now - t_send);
                jacobi_trace_max(rec, JACOBI_TRACE_ARRIVED, now);
            }
        }
        /* the rows as the solve's last iteration left them (a lagging tile's: one on) */
        float *out = s.a[k & 1];
#pragma unroll
        for (int i = 0; i < R; i++)
            if (i < nr && active)
                *(float4 *)(out + (size_t)(r0 + i) * nx + x0) = v[i];
    }
    /* the last block to end sets the iteration: every block has read it by then.
     * Every thread's stores (a give-up's stop_at included) released for the
     * ticket (per wave on AMD), and the last block acquires them all. */
    shardtab_detail_fence_before_block_release();
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        const uint64_t blocks = gridDim.x;
        const uint64_t ticket = atomicAdd((unsigned long long *)&ctl->exits, 1ull) + 1;
        if (ticket % blocks == 0) {
            __threadfence();
            const uint64_t stop = *(volatile uint64_t *)&ctl->stop_at;
            ctl->iteration = stop < end ? stop : end;
            if (s.done)
                *s.done = 1;
        }
    }
}

/* ---- the kernel to run ------------------------------------------------------------- */

template <int R, int TMAX> static jacobi_persistent_kernel_t pick_hooks(const jacobi_step_t *s)
{
    const bool hooked = s->trace != NULL || s->fault.kind != JACOBI_FAULT_NONE || s->skip_signal;
    return hooked ? jacobi_onchip_kernel<R, TMAX, true> : jacobi_onchip_kernel<R, TMAX, false>;
}

template <int TMAX> static jacobi_persistent_kernel_t pick_rows(const jacobi_step_t *s, int rows)
{
    switch (rows) {
    case 2:
        return pick_hooks<2, TMAX>(s);
    case 4:
        return pick_hooks<4, TMAX>(s);
    case 8:
        return pick_hooks<8, TMAX>(s);
    case 16:
        return TMAX <= 512 ? pick_hooks < 16, TMAX <= 512 ? TMAX : 512 > (s) : NULL;
    default:
        return NULL;
    }
}

extern "C" jacobi_persistent_kernel_t jacobi_onchip_kernel_for(const jacobi_step_t *s, int rows,
                                                               int max_threads)
{
    switch (max_threads) {
    case 256:
        return pick_rows<256>(s, rows);
    case 512:
        return pick_rows<512>(s, rows);
    case 1024:
        return pick_rows<1024>(s, rows);
    default:
        return NULL;
    }
}

/* ---- the mode's hooks (jacobi_hooks.h) ------------------------------------------------ */

/* The on-chip grid: a block a tile of whole rows, four columns a thread, and
 * the norm block, every one resident at once (a cooperative launch). Rows a
 * tile: the tuning's, or the fewest of 2, 4, 8 and 16 for which every tile
 * and the norm block have a multiprocessor of their own (of this rank's
 * share of the device): the most parallel cut, each tile's loads and stores
 * its own multiprocessor's. Fails with JACOBI_PLAN_NOT_RESIDENT, and why,
 * where the rows do not fit. */
extern "C" int jacobi_onchip_size(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    static const int choices[] = {2, 4, 8, 16};
    jacobi_step_t *s = &plan->step;
    int device, cooperative = 0, sms = 0, warp = 0;
    hipError_t err = hipGetDevice(&device);

    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, device);
    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device);
    if (err == hipSuccess)
        err = (hipError_t)jacobi_multiprocessors(&sms);
    if (err != hipSuccess)
        return (int)err;
    if (!cooperative) {
        snprintf(why, why_bytes, "device %d has no cooperative launch", device);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    if (s->nx % 4 != 0 || s->nx / 4 > 1024) {
        snprintf(why, why_bytes,
                 "a tile holds whole rows, four columns a thread of one block: -nx must be a "
                 "multiple of 4 and at most 4096 (it is %d)",
                 s->nx);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    const int threads = (s->nx / 4 + warp - 1) / warp * warp;
    const int tmax = threads <= 256 ? 256 : threads <= 512 ? 512 : 1024;
    const int own = jacobi_share_of_device(sms, plan->tuning.device_share);
    int rows = 0, tiles = 0;
    for (size_t c = 0; c < sizeof choices / sizeof choices[0] && rows == 0; c++) {
        const int r = choices[c], n = (s->rows + r - 1) / r;
        jacobi_persistent_kernel_t kernel = jacobi_onchip_kernel_for(s, r, tmax);
        int per_sm = 0;
        if (kernel == NULL || (plan->tuning.onchip_rows && plan->tuning.onchip_rows != r))
            continue;
        err =
            hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)kernel, threads, 0);
        if (err != hipSuccess)
            return (int)err;
        /* asked for: as many tiles as are resident; chosen: one a multiprocessor */
        if (per_sm > 0 && n + 1 <= (plan->tuning.onchip_rows ? per_sm * own : own)) {
            rows = r;
            tiles = n;
        }
    }
    if (rows == 0) {
        snprintf(why, why_bytes,
                 "%d rows of %d columns do not fit on chip: %s tiles of %d rows, a block each, "
                 "and the norm block fit %d multiprocessors%s",
                 s->rows, s->nx, plan->tuning.onchip_rows ? "the" : "up to",
                 plan->tuning.onchip_rows ? plan->tuning.onchip_rows : 16, own,
                 own < sms ? " (this rank's share of the device)" : "");
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    jacobi_onchip_cut(s, tiles, rows, threads / warp);
    const size_t edges = (size_t)4 * (size_t)tiles * (size_t)s->nx * sizeof(uint64_t);
    const size_t partials = (size_t)4 * (size_t)tiles * (size_t)s->tile_warps * sizeof(uint64_t);
    err = hipMalloc((void **)&s->edges, edges);
    if (err == hipSuccess)
        err = hipMalloc((void **)&s->tile_partials, partials);
    if (err == hipSuccess)
        err = hipMemset(s->edges, 0, edges);
    if (err == hipSuccess)
        err = hipMemset(s->tile_partials, 0, partials);
    if (err == hipSuccess)
        err = hipDeviceSynchronize();
    if (err != hipSuccess)
        return (int)err;
    plan->blocks = tiles + 1;
    plan->threads = threads;
    plan->onchip_rows = rows;
    plan->onchip_tmax = tmax;
    return 0;
}

extern "C" int jacobi_onchip_run(jacobi_plan_t *plan, int count)
{
    return jacobi_cooperative_run(
        plan, jacobi_onchip_kernel_for(&plan->step, plan->onchip_rows, plan->onchip_tmax),
        plan->threads, count);
}

extern "C" void jacobi_onchip_release(jacobi_plan_t *plan)
{
    if (plan->step.edges)
        (void)hipFree(plan->step.edges);
    if (plan->step.tile_partials)
        (void)hipFree(plan->step.tile_partials);
    plan->step.edges = NULL;
    plan->step.tile_partials = NULL;
}
