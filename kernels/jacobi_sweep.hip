/* jacobi_sweep.hip - the jacobi program's kernel, written once in HIP: built by clang
 * as HIP for AMD GPUs, and by nvcc as CUDA (through gpu_runtime.h) for NVIDIA.
 *
 * One launch is one sweep of this rank's rows (jacobi_sweep.h). Blocks of 256
 * threads along x each own a strip of rows and walk it row by row, keeping the
 * rows above, at and below in registers, so each value is read from memory
 * about once. The strip holding the first row is numbered last and walks
 * upward, the one holding the last row walks downward: each reaches its ghost
 * row, and with it the wait for its neighbour's signal, at the end of its work,
 * by which time the signal has usually arrived.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_runtime.h"
#include "jacobi_sweep.h"
#include "jacobi_op.h"
#include "shardtab_device.h"

#define JACOBI_BLOCK 256        /* threads per block, all along x */
/* One column a thread: 64 registers (4 resident blocks), 8 rows in flight.
 * Four columns a thread: 72 registers (3 resident blocks), 4 rows in flight:
 * 48 KB of loads in flight per multiprocessor. */
#define JACOBI_MIN_BLOCKS_PER_SM 4
#define JACOBI_VEC4_MIN_BLOCKS_PER_SM 3
#define JACOBI_ROWS_IN_FLIGHT 8
#define JACOBI_VEC4_ROWS_IN_FLIGHT 4
#define JACOBI_MIN_STRIP_ROWS 8 /* shorter strips cost more in partial sums than they gain */
#define JACOBI_GRAPH_STEPS 32   /* steps captured in one graph */

/* Tuning knobs for the runs of docs/performance.md: JACOBI_BLOCKS_PER_SM (1 to
 * 16) and JACOBI_ROWS_IN_FLIGHT (1, 4 or 8); the defaults won there. */
static int knob(const char *name, int fallback, int lo, int hi)
{
    const char *text = getenv(name);
    char *end;
    long v;

    if (text == NULL || *text == '\0')
        return fallback;
    v = strtol(text, &end, 10);
    return *end == '\0' && v >= lo && v <= hi ? (int)v : fallback;
}

static hipError_t multiprocessors(int *count)
{
    static thread_local int cached_device = -1, cached = 0;
    int device;
    hipError_t err = hipGetDevice(&device);

    if (err == hipSuccess && device != cached_device) {
        err = hipDeviceGetAttribute(&cached, hipDeviceAttributeMultiprocessorCount, device);
        if (err == hipSuccess)
            cached_device = device;
    }
    *count = cached;
    return err;
}

extern "C" int jacobi_step_shape(jacobi_step_t *s, uint64_t *partials)
{
    int sms = 0, strips, per_strip;
    hipError_t err = multiprocessors(&sms);

    if (err != hipSuccess)
        return (int)err;
    /* four columns a thread, boundaries included, when every row starts 16-byte aligned */
    s->columns_per_thread = s->nx % 4 == 0 && knob("JACOBI_VEC4", 1, 0, 1) ? 4 : 1;
    if (s->columns_per_thread == 4)
        s->blocks_x = (s->nx / 4 + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    else
        s->blocks_x = (s->nx - 2 + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    /* enough blocks to fill the GPU once, each strip at least a few rows */
    /* resident blocks per multiprocessor the grid aims at: one wave */
    strips = (int)((int64_t)sms *
                   knob("JACOBI_BLOCKS_PER_SM",
                        s->columns_per_thread == 4 ? JACOBI_VEC4_MIN_BLOCKS_PER_SM
                                                   : JACOBI_MIN_BLOCKS_PER_SM,
                        1, 16) /
                   s->blocks_x);
    if (strips > (s->rows + JACOBI_MIN_STRIP_ROWS - 1) / JACOBI_MIN_STRIP_ROWS)
        strips = (s->rows + JACOBI_MIN_STRIP_ROWS - 1) / JACOBI_MIN_STRIP_ROWS;
    if (strips < 1)
        strips = 1;
    per_strip = (s->rows + strips - 1) / strips;
    s->rows_per_strip = per_strip;
    s->strips = (s->rows + per_strip - 1) / per_strip;
    *partials = (uint64_t)s->blocks_x * (uint64_t)s->strips;
    return 0;
}

/* Row r of this rank: its own rows, or a ghost row (-1 above, rows below). */
/* The halo is written by peers while kernels run: no __restrict__ on it, so
 * that its loads never take the non-coherent read-only path. */
__device__ static inline jacobi_real_t row_value(const jacobi_real_t *__restrict__ a,
                                                 const jacobi_real_t *halo, int rows, int nx,
                                                 int r, int x)
{
    if (r < 0)
        return halo[x];
    if (r >= rows)
        return halo[nx + x];
    return a[(size_t)r * nx + x];
}

/* Thread 0 waits for a neighbour's "finished k - 1" before the block touches a
 * ghost row; every thread learns the outcome. Returns 0 when the block must stop. */
__device__ static bool block_wait(const jacobi_step_t &s, int slot, uint64_t k, int *flag)
{
    __syncthreads();
    if (threadIdx.x == 0)
        *flag = shardtab_signal_wait_until(&s.sig, slot, SHARDTAB_CMP_GE, k);
    __syncthreads();
    if (*flag != SHARDTAB_WAIT_OK) {
        if (threadIdx.x == 0)
            s.ctl->failed = 1;
        return false;
    }
    return true;
}

/* The block's strip is done, its stores into a neighbour's ghost row included:
 * the last block of the strip tells that neighbour "finished k". */
__device__ static void strip_done(const jacobi_step_t &s, uint64_t *arrived, int peer, int slot,
                                  uint64_t k)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        shardtab_fence(); /* the block's stores (each writer fenced too) before the count */
        uint64_t ticket = atomicAdd((unsigned long long *)arrived, 1ull) + 1;
        if (ticket % (uint64_t)s.blocks_x == 0 && !s.skip_signal) {
            shardtab_fence(); /* every block's stores, seen through the count, before the signal */
            shardtab_signal_set(&s.sig, peer, slot, k + 1);
        }
    }
}

/* Deterministic block sum: a fixed tree over shared memory. */
__device__ static double block_sum(double v, double *scratch)
{
    scratch[threadIdx.x] = v;
    for (int half = JACOBI_BLOCK / 2; half > 0; half >>= 1) {
        __syncthreads();
        if ((int)threadIdx.x < half)
            scratch[threadIdx.x] += scratch[threadIdx.x + half];
    }
    __syncthreads();
    return scratch[0];
}

/* The last block of iteration k: this rank's norm, the deposits into the node
 * peers' pads, and (one iteration late, as the anchors) the stop decision on
 * the norm of k - 1. Thread 0 alone, but for the sum. */
__device__ static void finish_iteration(const jacobi_step_t &s, uint64_t k, uint64_t base,
                                        bool norm_iter, double *scratch)
{
    jacobi_ctl_t *ctl = s.ctl;
    const int nblocks = s.blocks_x * s.strips;
    double local2 = 0.0;

    if (norm_iter) {
        /* written by other blocks of this launch: read past the L1 */
        const volatile double *partials = s.partials;
        for (int b = (int)threadIdx.x; b < nblocks; b += JACOBI_BLOCK)
            local2 += partials[b];
        local2 = block_sum(local2, scratch);
    }
    if (threadIdx.x != 0)
        return;
    const bool exchange = s.device_norm && s.sig.node_size > 1;
    if (norm_iter && exchange) {
        uint64_t bits, deposit = jacobi_deposit(base, s.nccheck, k);
        memcpy(&bits, &local2, sizeof bits);
        for (int q = 0; q < s.sig.node_size; q++)
            s.sig.pads[q][shardtab_slot_index(
                &s.sig, JACOBI_SLOT_NORM(s.sig.node_size, deposit, s.sig.node_rank))] = bits;
        for (int q = 0; q < s.sig.node_size; q++) /* release: the deposit before its count */
            shardtab_signal_set(&s.sig, q, JACOBI_SLOT_NORM_SEQ(s.sig.node_rank), k + 1);
    }
    if (s.device_norm && jacobi_decision_iteration(base, s.nccheck, k)) {
        double global2 = 0.0;
        if (exchange) {
            uint64_t deposit = jacobi_deposit(base, s.nccheck, k - 1);
            for (int r = 0; r < s.sig.node_size; r++) { /* rank order: the same bits everywhere */
                if (shardtab_signal_wait_until(&s.sig, JACOBI_SLOT_NORM_SEQ(r), SHARDTAB_CMP_GE,
                                               k) != SHARDTAB_WAIT_OK) {
                    ctl->failed = 1;
                    return;
                }
                uint64_t bits = shardtab_load_relaxed_system(
                    s.sig.mine +
                    shardtab_slot_index(&s.sig, JACOBI_SLOT_NORM(s.sig.node_size, deposit, r)));
                double part;
                memcpy(&part, &bits, sizeof part);
                global2 += part;
            }
        } else {
            global2 = ctl->local_norm2; /* one rank: its own norm of k - 1 */
        }
        double norm = sqrt(global2);
        uint64_t done = k - 1 - base;
        ctl->norm = norm;
        ctl->norm_iter = k - 1;
        if (done % 100 == 0 && done / 100 < (uint64_t)s.history_len)
            s.history[done / 100] = norm;
        if (norm <= s.tol)
            ctl->stop_at = k + 1;
    }
    if (norm_iter) {
        ctl->local_norm2 = local2;
        ctl->local_iter = k;
    }
    ctl->iteration = k + 1; /* the next launch reads it: a kernel boundary lies between */
}

/* One sweep. G rows are loaded before any of them is computed, so that each
 * thread keeps G loads in flight: one at a time leaves a GPU waiting on memory
 * latency, not bandwidth (1.5 TB/s on an H200, measured). */
template <int G>
__global__ void __launch_bounds__(JACOBI_BLOCK, JACOBI_MIN_BLOCKS_PER_SM)
    jacobi_kernel(jacobi_step_t s)
{
    __shared__ uint64_t shared_k, shared_base;
    __shared__ int shared_run, shared_flag, shared_last;
    __shared__ double scratch[JACOBI_BLOCK];
    jacobi_ctl_t *ctl = s.ctl;

    /* One reader, so that every thread of the block takes the same branch. */
    if (threadIdx.x == 0) {
        uint64_t it = ctl->iteration;
        shared_k = it;
        shared_base = ctl->base;
        shared_run = it < ctl->stop_at && !ctl->failed && !(s.sig.mine && shardtab_aborted(&s.sig));
    }
    __syncthreads();
    if (!shared_run)
        return;
    const uint64_t k = shared_k, base = shared_base;
    const int p = (int)(k & 1);
    const jacobi_real_t *__restrict__ a = s.a[p];
    jacobi_real_t *__restrict__ next_a = s.a[p ^ 1];
    const jacobi_real_t *halo = s.halo[p];
    jacobi_real_t *top_dest = s.top_dest[p ^ 1], *bottom_dest = s.bottom_dest[p ^ 1];
    const int nx = s.nx, rows = s.rows;
    const int strip_order = (int)blockIdx.x / s.blocks_x;
    const int bx = (int)blockIdx.x - strip_order * s.blocks_x;
    const int strip = (strip_order + 1) % s.strips; /* the first-row strip last */
    const int r0 = strip * s.rows_per_strip;
    const int r1 = min(rows, r0 + s.rows_per_strip);
    const int x = 1 + bx * JACOBI_BLOCK + (int)threadIdx.x;
    const bool active = x < nx - 1;
    const bool has_first = r0 == 0, has_last = r1 == rows;
    const bool sync_top = s.device_sync && has_first && s.top_peer >= 0;
    const bool sync_bottom = s.device_sync && has_last && s.bottom_peer >= 0;
    const bool norm_iter = jacobi_norm_iteration(base, s.nccheck, k);
    const int dir = has_first && !has_last ? -1 : 1;
    const int first = dir > 0 ? r0 : r1 - 1, last = dir > 0 ? r1 - 1 : r0;
    bool top_ready = !sync_top, bottom_ready = !sync_bottom, wrote_remote = false;
    double norm2 = 0.0;

    /* the walk: prev and center in registers, G new rows per step */
    if (first - dir == -1 && !top_ready) {
        if (!block_wait(s, JACOBI_SLOT_FROM_TOP, k, &shared_flag))
            return;
        top_ready = true;
    }
    jacobi_real_t prev = active ? row_value(a, halo, rows, nx, first - dir, x) : 0;
    jacobi_real_t center = active ? row_value(a, halo, rows, nx, first, x) : 0;
    for (int r = first;;) {
        const int left_in_walk = (last - r) * dir + 1;
        const int g = left_in_walk < G ? left_in_walk : G;
        const int far = r + g * dir; /* the last row this step reads */
        if (far == -1 && !top_ready) {
            if (!block_wait(s, JACOBI_SLOT_FROM_TOP, k, &shared_flag))
                return;
            top_ready = true;
        }
        if (far == rows && !bottom_ready) {
            if (!block_wait(s, JACOBI_SLOT_FROM_BOTTOM, k, &shared_flag))
                return;
            bottom_ready = true;
        }
        jacobi_real_t ahead[G], left[G], right[G];
#pragma unroll
        for (int i = 0; i < G; i++) {
            if (i < g && active) {
                const size_t at = (size_t)(r + i * dir) * nx + x;
                ahead[i] = row_value(a, halo, rows, nx, r + (i + 1) * dir, x);
                left[i] = a[at - 1];
                right[i] = a[at + 1];
            }
        }
#pragma unroll
        for (int i = 0; i < G; i++) {
            if (i < g && active) {
                const int row = r + i * dir;
                const jacobi_real_t v = jacobi_value(left[i], right[i], dir > 0 ? prev : ahead[i],
                                                     dir > 0 ? ahead[i] : prev);
                next_a[(size_t)row * nx + x] = v;
                if (row == 0 && top_dest) {
                    top_dest[x] = v;
                    wrote_remote = true;
                }
                if (row == rows - 1 && bottom_dest) {
                    bottom_dest[x] = v;
                    wrote_remote = true;
                }
                if (norm_iter)
                    norm2 += jacobi_residue2(v, center);
                prev = center;
                center = ahead[i];
            }
        }
        if (g < G || far - dir == last)
            break;
        r = far;
    }

    /* signals: a writer's stores reach the peer before the strip counts it */
    if (wrote_remote)
        shardtab_fence();
    if (sync_top)
        strip_done(s, &ctl->top_arrived, s.top_peer, JACOBI_SLOT_FROM_BOTTOM, k);
    if (sync_bottom)
        strip_done(s, &ctl->bottom_arrived, s.bottom_peer, JACOBI_SLOT_FROM_TOP, k);

    /* the norm: one partial per block, then the last block finishes the iteration */
    if (norm_iter) {
        double sum = block_sum(norm2, scratch);
        if (threadIdx.x == 0)
            s.partials[blockIdx.x] = sum;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence(); /* the partial before the ticket */
        uint64_t ticket = atomicAdd((unsigned long long *)&ctl->arrived, 1ull) + 1;
        shared_last = ticket % (uint64_t)(s.blocks_x * s.strips) == 0;
    }
    __syncthreads();
    if (!shared_last)
        return;
    __threadfence(); /* every partial, seen through the ticket, before they are read */
    finish_iteration(s, k, base, norm_iter, scratch);
}

/* The same sweep, four columns a thread with 16-byte loads and stores (rows
 * 16-byte aligned: nx % 4 == 0). A quarter of the instructions per point: the
 * one-column kernel issues ~100 per point and is issue-bound (ncu on an H200:
 * 0.66 warps issued per scheduler and cycle, 2.1 TB/s). Boundary columns are
 * computed and then given back their fixed value. */
__device__ static inline float4 row4(const jacobi_real_t *__restrict__ a,
                                     const jacobi_real_t *halo, int rows, int nx, int r, int x0)
{
    const jacobi_real_t *p = r < 0 ? halo + x0 : r >= rows ? halo + nx + x0 : a + (size_t)r * nx + x0;
    return *reinterpret_cast<const float4 *>(p);
}

template <int G>
__global__ void __launch_bounds__(JACOBI_BLOCK, JACOBI_VEC4_MIN_BLOCKS_PER_SM)
    jacobi_kernel_vec4(jacobi_step_t s)
{
    __shared__ uint64_t shared_k, shared_base;
    __shared__ int shared_run, shared_flag, shared_last;
    __shared__ double scratch[JACOBI_BLOCK];
    jacobi_ctl_t *ctl = s.ctl;

    if (threadIdx.x == 0) {
        uint64_t it = ctl->iteration;
        shared_k = it;
        shared_base = ctl->base;
        shared_run = it < ctl->stop_at && !ctl->failed && !(s.sig.mine && shardtab_aborted(&s.sig));
    }
    __syncthreads();
    if (!shared_run)
        return;
    const uint64_t k = shared_k, base = shared_base;
    const int p = (int)(k & 1);
    const jacobi_real_t *__restrict__ a = s.a[p];
    jacobi_real_t *__restrict__ next_a = s.a[p ^ 1];
    const jacobi_real_t *halo = s.halo[p];
    jacobi_real_t *top_dest = s.top_dest[p ^ 1], *bottom_dest = s.bottom_dest[p ^ 1];
    const int nx = s.nx, rows = s.rows;
    const int strip_order = (int)blockIdx.x / s.blocks_x;
    const int bx = (int)blockIdx.x - strip_order * s.blocks_x;
    const int strip = (strip_order + 1) % s.strips; /* the first-row strip last */
    const int r0 = strip * s.rows_per_strip;
    const int r1 = min(rows, r0 + s.rows_per_strip);
    const int x0 = 4 * (bx * JACOBI_BLOCK + (int)threadIdx.x);
    const bool active = x0 < nx;
    const bool left_edge = x0 == 0, right_edge = x0 + 4 == nx;
    const bool has_first = r0 == 0, has_last = r1 == rows;
    const bool sync_top = s.device_sync && has_first && s.top_peer >= 0;
    const bool sync_bottom = s.device_sync && has_last && s.bottom_peer >= 0;
    const bool norm_iter = jacobi_norm_iteration(base, s.nccheck, k);
    const int dir = has_first && !has_last ? -1 : 1;
    const int first = dir > 0 ? r0 : r1 - 1, last = dir > 0 ? r1 - 1 : r0;
    bool top_ready = !sync_top, bottom_ready = !sync_bottom, wrote_remote = false;
    double norm2 = 0.0;

    if (first - dir == -1 && !top_ready) {
        if (!block_wait(s, JACOBI_SLOT_FROM_TOP, k, &shared_flag))
            return;
        top_ready = true;
    }
    float4 zero4 = make_float4(0.f, 0.f, 0.f, 0.f);
    float4 prev = active ? row4(a, halo, rows, nx, first - dir, x0) : zero4;
    float4 center = active ? row4(a, halo, rows, nx, first, x0) : zero4;
    for (int r = first;;) {
        const int left_in_walk = (last - r) * dir + 1;
        const int g = left_in_walk < G ? left_in_walk : G;
        const int far = r + g * dir;
        const int lo = dir > 0 ? r : far + 1, hi = dir > 0 ? far - 1 : r; /* rows of this step */
        const bool edge_rows = (lo == 0 && top_dest) || (hi == rows - 1 && bottom_dest);
        if (far == -1 && !top_ready) {
            if (!block_wait(s, JACOBI_SLOT_FROM_TOP, k, &shared_flag))
                return;
            top_ready = true;
        }
        if (far == rows && !bottom_ready) {
            if (!block_wait(s, JACOBI_SLOT_FROM_BOTTOM, k, &shared_flag))
                return;
            bottom_ready = true;
        }
        float4 ahead[G];
        jacobi_real_t left[G], right[G];
#pragma unroll
        for (int i = 0; i < G; i++) {
            if (i < g && active) {
                const jacobi_real_t *row = a + (size_t)(r + i * dir) * nx + x0;
                ahead[i] = row4(a, halo, rows, nx, r + (i + 1) * dir, x0);
                left[i] = left_edge ? 0.f : row[-1];
                right[i] = right_edge ? 0.f : row[4];
            }
        }
#pragma unroll
        for (int i = 0; i < G; i++) {
            if (i < g && active) {
                const int row = r + i * dir;
                const float4 up = dir > 0 ? prev : ahead[i], down = dir > 0 ? ahead[i] : prev;
                float4 v;
                v.x = left_edge ? center.x : jacobi_value(left[i], center.y, up.x, down.x);
                v.y = jacobi_value(center.x, center.z, up.y, down.y);
                v.z = jacobi_value(center.y, center.w, up.z, down.z);
                v.w = right_edge ? center.w : jacobi_value(center.z, right[i], up.w, down.w);
                *reinterpret_cast<float4 *>(next_a + (size_t)row * nx + x0) = v;
                if (edge_rows) {
                    if (row == 0 && top_dest) {
                        *reinterpret_cast<float4 *>(top_dest + x0) = v;
                        wrote_remote = true;
                    }
                    if (row == rows - 1 && bottom_dest) {
                        *reinterpret_cast<float4 *>(bottom_dest + x0) = v;
                        wrote_remote = true;
                    }
                }
                if (norm_iter)
                    norm2 += jacobi_residue2(v.x, center.x) + jacobi_residue2(v.y, center.y) +
                             jacobi_residue2(v.z, center.z) + jacobi_residue2(v.w, center.w);
                prev = center;
                center = ahead[i];
            }
        }
        if (g < G || far - dir == last)
            break;
        r = far;
    }

    if (wrote_remote)
        shardtab_fence();
    if (sync_top)
        strip_done(s, &ctl->top_arrived, s.top_peer, JACOBI_SLOT_FROM_BOTTOM, k);
    if (sync_bottom)
        strip_done(s, &ctl->bottom_arrived, s.bottom_peer, JACOBI_SLOT_FROM_TOP, k);
    if (norm_iter) {
        double sum = block_sum(norm2, scratch);
        if (threadIdx.x == 0)
            s.partials[blockIdx.x] = sum;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        uint64_t ticket = atomicAdd((unsigned long long *)&ctl->arrived, 1ull) + 1;
        shared_last = ticket % (uint64_t)(s.blocks_x * s.strips) == 0;
    }
    __syncthreads();
    if (!shared_last)
        return;
    __threadfence();
    finish_iteration(s, k, base, norm_iter, scratch);
}

/* ---- launching: plain, or a captured graph replayed ------------------------ */

/* One cached graph per thread (launchers may run on any thread). */
static thread_local struct {
    jacobi_step_t step;
    void *stream;
    int steps;
    hipGraphExec_t exec;
    bool valid;
} graph_cache;

extern "C" void jacobi_graph_release(void)
{
    if (graph_cache.valid)
        (void)hipGraphExecDestroy(graph_cache.exec);
    graph_cache.valid = false;
}

static hipError_t launch(const jacobi_step_t *s, hipStream_t stream)
{
    unsigned blocks = (unsigned)(s->blocks_x * s->strips);
    int rows_in_flight =
        knob("JACOBI_ROWS_IN_FLIGHT",
             s->columns_per_thread == 4 ? JACOBI_VEC4_ROWS_IN_FLIGHT : JACOBI_ROWS_IN_FLIGHT, 1, 8);
    if (s->columns_per_thread == 4) {
        if (rows_in_flight >= 8)
            jacobi_kernel_vec4<8><<<blocks, JACOBI_BLOCK, 0, stream>>>(*s);
        else if (rows_in_flight >= 4)
            jacobi_kernel_vec4<4><<<blocks, JACOBI_BLOCK, 0, stream>>>(*s);
        else
            jacobi_kernel_vec4<1><<<blocks, JACOBI_BLOCK, 0, stream>>>(*s);
    } else if (rows_in_flight >= 8)
        jacobi_kernel<8><<<blocks, JACOBI_BLOCK, 0, stream>>>(*s);
    else if (rows_in_flight >= 4)
        jacobi_kernel<4><<<blocks, JACOBI_BLOCK, 0, stream>>>(*s);
    else
        jacobi_kernel<1><<<blocks, JACOBI_BLOCK, 0, stream>>>(*s);
    return hipGetLastError();
}

/* One graph of JACOBI_GRAPH_STEPS launches of this step, captured once: every
 * launch reads its iteration from the device, so the same graph serves all. */
static hipError_t graph_for(const jacobi_step_t *s, hipStream_t stream)
{
    hipGraph_t graph;
    hipError_t err, end;

    if (graph_cache.valid && graph_cache.stream == (void *)stream &&
        memcmp(&graph_cache.step, s, sizeof *s) == 0)
        return hipSuccess;
    jacobi_graph_release();
    err = hipStreamBeginCapture(stream, hipStreamCaptureModeThreadLocal);
    if (err != hipSuccess)
        return err;
    for (int i = 0; i < JACOBI_GRAPH_STEPS && err == hipSuccess; i++)
        err = launch(s, stream);
    end = hipStreamEndCapture(stream, &graph);
    if (err == hipSuccess)
        err = end;
    if (err != hipSuccess)
        return err;
    err = hipGraphInstantiateWithFlags(&graph_cache.exec, graph, 0);
    (void)hipGraphDestroy(graph);
    if (err != hipSuccess)
        return err;
    graph_cache.step = *s;
    graph_cache.stream = (void *)stream;
    graph_cache.steps = JACOBI_GRAPH_STEPS;
    graph_cache.valid = true;
    return hipSuccess;
}

extern "C" int jacobi_run(const jacobi_step_t *s, int count, void *stream_handle, int graph)
{
    hipStream_t stream = (hipStream_t)stream_handle;
    hipError_t err = hipSuccess;

    if (graph && count >= JACOBI_GRAPH_STEPS) {
        err = graph_for(s, stream);
        for (; err == hipSuccess && count >= graph_cache.steps; count -= graph_cache.steps)
            err = hipGraphLaunch(graph_cache.exec, stream);
    }
    for (; err == hipSuccess && count > 0; count--)
        err = launch(s, stream);
    return (int)err;
}

extern "C" int jacobi_stream_create(void **stream)
{
    hipStream_t s;
    hipError_t err = hipStreamCreateWithFlags(&s, hipStreamNonBlocking);

    if (err == hipSuccess)
        *stream = (void *)s;
    return (int)err;
}

extern "C" void jacobi_stream_destroy(void *stream)
{
    if (stream)
        (void)hipStreamDestroy((hipStream_t)stream);
}

extern "C" const char *jacobi_error_string(int code)
{
    return hipGetErrorString((hipError_t)code);
}
