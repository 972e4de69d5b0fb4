/* jacobi_sweep.hip - the jacobi program's device kernels, written once in HIP
 * (built by clang as HIP for AMD GPUs, by nvcc as CUDA through gpu_runtime.h
 * for NVIDIA): the tile walk, the step kernel (one launch per iteration) and
 * the persistent kernel (one launch per solve), every instantiation of both,
 * and the accessors that give jacobi_plan.hip, which launches them, the
 * kernel to run for a step.
 *
 * The rows are cut into tiles (jacobi_sweep.h): blocks_x tiles of 256 threads
 * along x times `strips` strips of rows. A tile walks its strip row by row,
 * keeping the rows above, at and below in registers, so each value is read
 * from memory about once. The strip holding the first row is numbered last and
 * walks upward, the one holding the last row walks downward: each reaches its
 * ghost row, and with it the wait for its neighbour's signal, at the end of its
 * work, by which time the signal has usually arrived.
 *
 * One walk, two ways to hold the columns (a template over the column body):
 * one column a thread (any nx), or four with 16-byte loads and stores (nx % 4
 * == 0). Two kernels run the walk: one launch per iteration, whose last block
 * (a ticket) closes the iteration; or one persistent cooperative launch whose
 * blocks loop over the iterations, closing each with a grid-wide barrier.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>

#include "gpu_runtime.h"
#include "jacobi_hooks.h"
#include "jacobi_op.h"
#include "jacobi_protocol.h"
#include "shardtab_device.h"

namespace cg = cooperative_groups;

/* JACOBI_BLOCK, the threads per block, is jacobi_hooks.h's: the plans launch
 * with it. One column a thread: 64 registers (4 resident blocks), 8 rows in
 * flight. Four columns a thread: 72 registers (3 resident blocks), 4 rows in
 * flight: 48 KB of loads in flight per multiprocessor. */
#define JACOBI_MIN_BLOCKS_PER_SM 4
#define JACOBI_VEC4_MIN_BLOCKS_PER_SM 3
#define JACOBI_ROWS_IN_FLIGHT 8
#define JACOBI_VEC4_ROWS_IN_FLIGHT 4
/* The persistent kernel carries its loop's state beside the walk: at the step
 * kernel's register budget it spills inside the walk (ptxas, sm_90: 48 bytes
 * at 80 registers). One block fewer per multiprocessor gives it room, and the
 * rows in flight per thread make up for the blocks (docs/performance.md). */
#define JACOBI_PERSISTENT_MIN_BLOCKS_PER_SM 3
#define JACOBI_PERSISTENT_VEC4_MIN_BLOCKS_PER_SM 2
#define JACOBI_PERSISTENT_ROWS_IN_FLIGHT 4 /* the one-column walk spills at 8 (80 registers) */
#define JACOBI_PERSISTENT_VEC4_ROWS_IN_FLIGHT 8

/* ---- the columns a thread holds ------------------------------------------------- */

/* Row r of this rank: its own rows, or a ghost row (-1 above, rows below).
 * The halo is written by peers while kernels run: no __restrict__ on it, so
 * that its loads never take the non-coherent read-only path. */
__device__ static inline const jacobi_real_t *row_at(const jacobi_real_t *__restrict__ a,
                                                     const jacobi_real_t *halo, int rows, int nx,
                                                     int r)
{
    return r < 0 ? halo : r >= rows ? halo + nx : a + (size_t)r * nx;
}

/* One interior column a thread: x = 1 + (tile column) * 256 + thread. */
struct ScalarColumns {
    typedef jacobi_real_t value_t;
    static const int min_blocks = JACOBI_MIN_BLOCKS_PER_SM;
    static const int persistent_min_blocks = JACOBI_PERSISTENT_MIN_BLOCKS_PER_SM;
    int x;
    bool active;
    __device__ ScalarColumns(int bx, int nx)
        : x(1 + bx * JACOBI_BLOCK + (int)threadIdx.x), active(x < nx - 1)
    {}
    __device__ value_t load(const jacobi_real_t *row) const { return row[x]; }
    __device__ value_t zero() const { return 0; }
    __device__ void sides(const jacobi_real_t *row, jacobi_real_t &left, jacobi_real_t &right) const
    {
        left = row[x - 1];
        right = row[x + 1];
    }
    __device__ value_t update(jacobi_real_t left, jacobi_real_t right, value_t, value_t up,
                              value_t down) const
    {
        return jacobi_value(left, right, up, down);
    }
    __device__ void store(jacobi_real_t *row, value_t v) const { row[x] = v; }
    __device__ double residue2(value_t v, value_t old) const { return jacobi_residue2(v, old); }
    /* the planted bugs of the tests: is column col this thread's? */
    __device__ bool holds(int col) const { return col == x; }
    __device__ void keep_old(value_t &v, value_t old, int) const { v = old; }
    __device__ double residue2_of(value_t v, value_t old, int) const
    {
        return jacobi_residue2(v, old);
    }
};

/* Four columns a thread, 16-byte loads and stores: x0 = 4 * (tile column * 256
 * + thread). A quarter of the instructions per point: the one-column walk
 * issues ~100 per point and is issue-bound (ncu on an H200: 0.66 warps issued
 * per scheduler and cycle, 2.1 TB/s). Boundary columns are computed and then
 * given back their fixed value. */
struct Vec4Columns {
    typedef float4 value_t;
    static const int min_blocks = JACOBI_VEC4_MIN_BLOCKS_PER_SM;
    static const int persistent_min_blocks = JACOBI_PERSISTENT_VEC4_MIN_BLOCKS_PER_SM;
    int x0;
    bool active, left_edge, right_edge;
    __device__ Vec4Columns(int bx, int nx)
        : x0(4 * (bx * JACOBI_BLOCK + (int)threadIdx.x)), active(x0 < nx), left_edge(x0 == 0),
          right_edge(x0 + 4 == nx)
    {}
    __device__ value_t load(const jacobi_real_t *row) const
    {
        return *reinterpret_cast<const float4 *>(row + x0);
    }
    __device__ value_t zero() const { return make_float4(0.f, 0.f, 0.f, 0.f); }
    __device__ void sides(const jacobi_real_t *row, jacobi_real_t &left, jacobi_real_t &right) const
    {
        left = left_edge ? 0.f : row[x0 - 1];
        right = right_edge ? 0.f : row[x0 + 4];
    }
    __device__ value_t update(jacobi_real_t left, jacobi_real_t right, value_t c, value_t up,
                              value_t down) const
    {
        value_t v;
        v.x = left_edge ? c.x : jacobi_value(left, c.y, up.x, down.x);
        v.y = jacobi_value(c.x, c.z, up.y, down.y);
        v.z = jacobi_value(c.y, c.w, up.z, down.z);
        v.w = right_edge ? c.w : jacobi_value(c.z, right, up.w, down.w);
        return v;
    }
    __device__ void store(jacobi_real_t *row, value_t v) const
    {
        *reinterpret_cast<float4 *>(row + x0) = v;
    }
    __device__ double residue2(value_t v, value_t old) const
    {
        return jacobi_residue2(v.x, old.x) + jacobi_residue2(v.y, old.y) +
               jacobi_residue2(v.z, old.z) + jacobi_residue2(v.w, old.w);
    }
    __device__ bool holds(int col) const { return col >= x0 && col < x0 + 4; }
    __device__ static float &part(value_t &v, int i)
    {
        return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
    }
    __device__ void keep_old(value_t &v, value_t old, int col) const
    {
        part(v, col - x0) = part(old, col - x0);
    }
    __device__ double residue2_of(value_t v, value_t old, int col) const
    {
        return jacobi_residue2(part(v, col - x0), part(old, col - x0));
    }
};

/* ---- sums ------------------------------------------------------------------------ *
 * The waits, signals, norm, stop rule and trace are jacobi_protocol.h's, the
 * same code the host backend runs. */

/* A warp's (AMD: a wavefront's) values summed down a fixed tree of shuffles:
 * the same order every time. Lane 0 holds the sum. */
__device__ static inline double warp_sum(double v)
{
#if defined(__CUDACC__)
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
#else
    for (int offset = warpSize / 2; offset > 0; offset >>= 1)
        v += __shfl_down(v, offset);
#endif
    return v;
}

/* Deterministic block sum: each warp down its shuffle tree, then the warps'
 * sums by warp 0 in warp order. Thread 0 gets the sum. Two barriers, not the
 * eight of a tree over shared memory: the sum ends every tile's sweep. */
__device__ static double block_sum(double v, double *scratch)
{
    const int lane = (int)threadIdx.x % warpSize, warp = (int)threadIdx.x / warpSize;
    const int warps = JACOBI_BLOCK / warpSize;

    __syncthreads(); /* scratch free: an earlier sum has been read */
    v = warp_sum(v);
    if (lane == 0)
        scratch[warp] = v;
    __syncthreads();
    if (warp == 0)
        v = warp_sum(lane < warps ? scratch[lane] : 0.0);
    return v;
}

/* This rank's sum of squared residues of iteration k: the tiles' partials in
 * tile order, summed by the whole block. */
__device__ static double rank_norm2(const jacobi_step_t &s, uint64_t k, double *scratch)
{
    const int tiles = s.blocks_x * s.strips;
    /* written by other blocks of this launch: read past the L1 */
    const volatile double *partials = s.partials + (size_t)(k & 1) * tiles;
    double sum = 0.0;

    for (int t = (int)threadIdx.x; t < tiles; t += JACOBI_BLOCK)
        sum += partials[t];
    return block_sum(sum, scratch); /* thread 0's */
}

/* ---- one tile of one iteration --------------------------------------------------- */

/* Sweeps tile `tile` of iteration k: waits for the neighbours where it reads or
 * writes a ghost row, stores its edge rows into theirs, signals when its strip
 * is done, and adds its squared residues to *norm2 (each thread its own).
 * Returns false when a wait gave up. Every thread of the block calls it. */
template <class Cols, int G, bool HOOKS>
__device__ static bool sweep_tile(const jacobi_step_t &s, uint64_t k, uint64_t base, int tile,
                                  uint64_t *rec, double *norm2)
{
    jacobi_ctl_t *ctl = s.ctl;
    const int p = (int)(k & 1);
    const jacobi_real_t *__restrict__ a = s.a[p];
    jacobi_real_t *__restrict__ next_a = s.a[p ^ 1];
    const jacobi_real_t *halo = s.halo[p];
    jacobi_real_t *top_dest = s.top_dest[p ^ 1], *bottom_dest = s.bottom_dest[p ^ 1];
    const int nx = s.nx, rows = s.rows;
    const int strip_order = tile / s.blocks_x;
    const int bx = tile - strip_order * s.blocks_x;
    const int strip = (strip_order + 1) % s.strips; /* the first-row strip last */
    const int r0 = strip * s.rows_per_strip;
    const int r1 = min(rows, r0 + s.rows_per_strip);
    const Cols cols(bx, nx);
    const bool has_first = r0 == 0, has_last = r1 == rows;
    const bool sync_top = s.device_sync && has_first && s.top_peer >= 0;
    const bool sync_bottom = s.device_sync && has_last && s.bottom_peer >= 0;
    const bool norm_iter = jacobi_norm_iteration(base, s.nccheck, k);
    const int dir = has_first && !has_last ? -1 : 1;
    const int first = dir > 0 ? r0 : r1 - 1, last = dir > 0 ? r1 - 1 : r0;
    /* the planted bug of a test: this thread's point at this iteration */
    const bool fault_here = HOOKS && s.fault.kind != JACOBI_FAULT_NONE &&
                            k - base == (uint64_t)s.fault.iteration && cols.holds(s.fault.col);
    bool top_ready = !sync_top, bottom_ready = !sync_bottom;
    typedef typename Cols::value_t value_t;

    if (first - dir == -1 && !top_ready) {
        if (!jacobi_wait_neighbour(&s, JACOBI_SLOT_FROM_TOP, k, rec))
            return false;
        top_ready = true;
    }
    value_t prev = cols.active ? cols.load(row_at(a, halo, rows, nx, first - dir)) : cols.zero();
    value_t center = cols.active ? cols.load(row_at(a, halo, rows, nx, first)) : cols.zero();
    for (int r = first;;) {
        const int left_in_walk = (last - r) * dir + 1;
        const int g = left_in_walk < G ? left_in_walk : G;
        const int far = r + g * dir; /* the row after the last this step computes */
        const int lo = dir > 0 ? r : far + 1, hi = dir > 0 ? far - 1 : r;
        const bool edge_rows = (lo == 0 && top_dest) || (hi == rows - 1 && bottom_dest);
        if (far == -1 && !top_ready) {
            if (!jacobi_wait_neighbour(&s, JACOBI_SLOT_FROM_TOP, k, rec))
                return false;
            top_ready = true;
        }
        if (far == rows && !bottom_ready) {
            if (!jacobi_wait_neighbour(&s, JACOBI_SLOT_FROM_BOTTOM, k, rec))
                return false;
            bottom_ready = true;
        }
        value_t ahead[G];
        jacobi_real_t left[G], right[G];
#pragma unroll
        for (int i = 0; i < G; i++) {
            if (i < g && cols.active) {
                ahead[i] = cols.load(row_at(a, halo, rows, nx, r + (i + 1) * dir));
                cols.sides(a + (size_t)(r + i * dir) * nx, left[i], right[i]);
            }
        }
#pragma unroll
        for (int i = 0; i < G; i++) {
            if (i < g && cols.active) {
                const int row = r + i * dir;
                const value_t up = dir > 0 ? prev : ahead[i], down = dir > 0 ? ahead[i] : prev;
                value_t v = cols.update(left[i], right[i], center, up, down);
                if (fault_here && row == s.fault.row) {
                    if (s.fault.kind == JACOBI_FAULT_STALE)
                        cols.keep_old(v, center, s.fault.col);
                    else if (s.fault.kind == JACOBI_FAULT_NORM && norm_iter)
                        *norm2 += cols.residue2_of(v, center, s.fault.col);
                }
                cols.store(next_a + (size_t)row * nx, v);
                if (edge_rows) {
                    if (row == 0 && top_dest)
                        cols.store(top_dest, v);
                    if (row == rows - 1 && bottom_dest)
                        cols.store(bottom_dest, v);
                }
                if (norm_iter)
                    *norm2 += cols.residue2(v, center);
                prev = center;
                center = ahead[i];
            }
        }
        if (g < G || far - dir == last)
            break;
        r = far;
    }

    /* the strip's "finished k" once every tile's stores into the neighbour are
     * visible there (shardtab_signal_after_blocks releases them, per wave on AMD) */
    if (sync_top)
        jacobi_strip_done(&s, &ctl->top_arrived, s.top_peer, JACOBI_SLOT_FROM_BOTTOM, k, rec);
    if (sync_bottom)
        jacobi_strip_done(&s, &ctl->bottom_arrived, s.bottom_peer, JACOBI_SLOT_FROM_TOP, k, rec);
    return true;
}

/* The tile's partial of iteration k (block-wide), then its trace. */
__device__ static void tile_partial(const jacobi_step_t &s, uint64_t k, int tile, bool norm_iter,
                                    double norm2, double *scratch, uint64_t *rec)
{
    if (norm_iter) {
        double sum = block_sum(norm2, scratch);
        if (threadIdx.x == 0)
            s.partials[(size_t)(k & 1) * (s.blocks_x * s.strips) + tile] = sum;
    }
    if (rec && threadIdx.x == 0)
        jacobi_trace_max(rec, JACOBI_TRACE_SWEPT, shardtab_detail_clock());
}

/* ---- one launch per iteration ----------------------------------------------------- */

/* The last block of iteration k: this rank's norm, then the protocol's close
 * (the decision on k - 1, k's deposit, the next iteration). */
__device__ static void close_iteration(const jacobi_step_t &s, uint64_t k, uint64_t base,
                                       bool norm_iter, double *scratch, uint64_t *rec)
{
    __shared__ double local2;
    double sum = norm_iter ? rank_norm2(s, k, scratch) : 0.0;

    if (threadIdx.x == 0)
        local2 = sum;
    __syncthreads();
    jacobi_close_step(&s, k, base, &local2, rec);
}

template <class Cols, int G, bool HOOKS>
__global__ void __launch_bounds__(JACOBI_BLOCK, Cols::min_blocks)
    jacobi_step_kernel(jacobi_step_t s)
{
    __shared__ uint64_t shared_k, shared_base;
    __shared__ int shared_run, shared_last;
    __shared__ double scratch[JACOBI_BLOCK];
    jacobi_ctl_t *ctl = s.ctl;

    /* thread 0 reads the iteration and whether to run, and shares them, so that
     * every thread of the block takes the same branch. */
    if (threadIdx.x == 0) {
        uint64_t it = ctl->iteration;
        shared_k = it;
        shared_base = ctl->base;
        shared_run = it < ctl->stop_at && !ctl->failed && !jacobi_peers_aborted(&s);
    }
    __syncthreads();
    if (!shared_run)
        return;
    const uint64_t k = shared_k, base = shared_base;
    const bool norm_iter = jacobi_norm_iteration(base, s.nccheck, k);
    uint64_t *rec = HOOKS ? jacobi_trace_of(&s, k, base) : NULL;
    double norm2 = 0.0;

    if (rec && threadIdx.x == 0)
        jacobi_trace_min(rec, JACOBI_TRACE_BEGIN, shardtab_detail_clock());
    if (!sweep_tile<Cols, G, HOOKS>(s, k, base, (int)blockIdx.x, rec, &norm2))
        return;
    tile_partial(s, k, (int)blockIdx.x, norm_iter, norm2, scratch, rec);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence(); /* the partial before the ticket */
        uint64_t ticket = atomicAdd((unsigned long long *)&ctl->arrived, 1ull) + 1;
        shared_last = ticket % (uint64_t)(s.blocks_x * s.strips) == 0;
        if (shared_last && rec)
            rec[JACOBI_TRACE_ARRIVED] = shardtab_detail_clock();
    }
    __syncthreads();
    if (!shared_last)
        return;
    __threadfence(); /* every partial, seen through the ticket, before they are read */
    close_iteration(s, k, base, norm_iter, scratch, rec);
}

/* ---- one persistent launch for the whole solve ------------------------------------ */

/* Every block loops over the iterations and, within one, over its tiles; a
 * grid-wide barrier closes each iteration. Block 0 carries the norm, one step
 * behind the sweep: at the start of iteration k it sums the tiles' partials of
 * k - 1 and deposits them into the peers' pads, then (unless it sweeps tiles
 * too: s.norm_block == 0) waits for every rank's norm of k - 1 and decides,
 * while the other blocks sweep; the peers' deposits arrive meanwhile. Giving
 * block 0 no tile keeps the norm off the sweep's critical path. The decision
 * to stop (or a failure) lowers stop_at, which every block reads after the
 * barrier: the same answer in every block, so no block is left at a barrier
 * alone. Blocks launched in one cooperative launch are co-resident
 * (jacobi_plan_create checks it), so the barrier cannot wait for a block that
 * never runs. */
template <class Cols, int G, bool HOOKS>
__global__ void __launch_bounds__(JACOBI_BLOCK, Cols::persistent_min_blocks)
    jacobi_persistent_kernel(jacobi_step_t s, uint64_t count)
{
    /* the loop's state lives in shared memory, read where it is used: held in
     * registers across the walk it would push the walk's own out (spills) */
    __shared__ volatile uint64_t shared_k, shared_stop;
    __shared__ uint64_t shared_base, shared_end;
    __shared__ double scratch[JACOBI_BLOCK];
    jacobi_ctl_t *ctl = s.ctl;
    shardtab_coll_t norm = jacobi_norm_coll(&s); /* block 0 holds it for the launch */

    if (threadIdx.x == 0) {
        shared_k = ctl->iteration;
        shared_base = ctl->base;
        shared_end = shared_k + count;
        shared_stop = ctl->stop_at;
    }
    __syncthreads();
    for (;;) {
        const uint64_t k = shared_k;
        if (k >= shared_end || k >= shared_stop)
            break;
        const uint64_t base = shared_base;
        uint64_t *rec = HOOKS ? jacobi_trace_of(&s, k, base) : NULL;
        uint64_t norm_ticks = 0;
        bool ok = true;

        if (rec && threadIdx.x == 0)
            jacobi_trace_min(rec, JACOBI_TRACE_BEGIN, shardtab_detail_clock());
        if (blockIdx.x == 0) {
            __shared__ double local2;
            uint64_t t0 = rec ? shardtab_detail_clock() : 0;
            const bool deposit = k > base && jacobi_norm_iteration(base, s.nccheck, k - 1);
            double sum = deposit ? rank_norm2(s, k - 1, scratch) : 0.0;
            if (threadIdx.x == 0)
                local2 = sum;
            __syncthreads();
            ok = jacobi_persistent_norm(&s, &norm, k, base, &local2);
            if (rec && threadIdx.x == 0 && deposit)
                norm_ticks = shardtab_detail_clock() - t0;
        }
        const int first_sweeper = s.norm_block; /* block 0 sweeps too, or not */
        if ((int)blockIdx.x >= first_sweeper)
            for (int tile = (int)blockIdx.x - first_sweeper; tile < s.blocks_x * s.strips && ok;
                 tile += (int)gridDim.x - first_sweeper) {
                double norm2 = 0.0;
                ok = sweep_tile<Cols, G, HOOKS>(s, shared_k, shared_base, tile, rec, &norm2);
                if (ok)
                    tile_partial(s, shared_k, tile,
                                 jacobi_norm_iteration(shared_base, s.nccheck, shared_k), norm2,
                                 scratch, rec);
            }
        if (blockIdx.x == 0) {
            uint64_t t0 = rec ? shardtab_detail_clock() : 0;
            if (ok && jacobi_decide(&s, &norm, k, base, rec) && threadIdx.x == 0 &&
                jacobi_peers_aborted(&s))
                jacobi_fail_at(&s, k);
            if (rec && threadIdx.x == 0)
                rec[JACOBI_TRACE_NORM] = norm_ticks + (shardtab_detail_clock() - t0);
        }
        if (rec && threadIdx.x == 0 && (int)blockIdx.x >= first_sweeper)
            jacobi_trace_max(rec, JACOBI_TRACE_ARRIVED, shardtab_detail_clock());
        cg::this_grid().sync();
        if (threadIdx.x == 0) {
            shared_stop = *(volatile uint64_t *)&ctl->stop_at;
            shared_k = k + 1;
            if (rec && blockIdx.x == 0)
                rec[JACOBI_TRACE_END] = shardtab_detail_clock();
        }
        __syncthreads();
    }
    shardtab_coll_release_block(&s.sig, &norm);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        ctl->iteration = shared_k;
        if (s.done)
            *s.done = 1;
    }
}

/* ---- the kernel to run: the accessors of jacobi_plan.hip ---------------------------- */

/* Rows in flight: the tuning's (1, 4 or 8), or the kernel's own (0). */
static int rows_in_flight(const jacobi_step_t *s, bool persistent, int tuned)
{
    if (tuned > 0)
        return tuned;
    return s->columns_per_thread == 4
               ? (persistent ? JACOBI_PERSISTENT_VEC4_ROWS_IN_FLIGHT : JACOBI_VEC4_ROWS_IN_FLIGHT)
           : persistent ? JACOBI_PERSISTENT_ROWS_IN_FLIGHT
                        : JACOBI_ROWS_IN_FLIGHT;
}

/* The test hooks (a trace, a planted bug) live in instantiations of their
 * own: the kernels of a real run carry neither their registers nor their
 * branches (without them the four-column walk fits 3 blocks a multiprocessor
 * with no spill). */
static bool hooked(const jacobi_step_t *s)
{
    return s->trace != NULL || s->fault.kind != JACOBI_FAULT_NONE;
}

template <bool HOOKS> static jacobi_step_kernel_t step_kernel_pick(const jacobi_step_t *s, int g)
{
    if (s->columns_per_thread == 4)
        return g >= 8   ? jacobi_step_kernel<Vec4Columns, 8, HOOKS>
               : g >= 4 ? jacobi_step_kernel<Vec4Columns, 4, HOOKS>
                        : jacobi_step_kernel<Vec4Columns, 1, HOOKS>;
    return g >= 8   ? jacobi_step_kernel<ScalarColumns, 8, HOOKS>
           : g >= 4 ? jacobi_step_kernel<ScalarColumns, 4, HOOKS>
                    : jacobi_step_kernel<ScalarColumns, 1, HOOKS>;
}

template <bool HOOKS>
static jacobi_persistent_kernel_t persistent_kernel_pick(const jacobi_step_t *s, int g)
{
    if (s->columns_per_thread == 4)
        return g >= 8   ? jacobi_persistent_kernel<Vec4Columns, 8, HOOKS>
               : g >= 4 ? jacobi_persistent_kernel<Vec4Columns, 4, HOOKS>
                        : jacobi_persistent_kernel<Vec4Columns, 1, HOOKS>;
    return g >= 8   ? jacobi_persistent_kernel<ScalarColumns, 8, HOOKS>
           : g >= 4 ? jacobi_persistent_kernel<ScalarColumns, 4, HOOKS>
                    : jacobi_persistent_kernel<ScalarColumns, 1, HOOKS>;
}

extern "C" jacobi_step_kernel_t jacobi_step_kernel_for(const jacobi_step_t *s, int tuned_rows)
{
    int g = rows_in_flight(s, false, tuned_rows);
    return hooked(s) ? step_kernel_pick<true>(s, g) : step_kernel_pick<false>(s, g);
}

extern "C" jacobi_persistent_kernel_t jacobi_persistent_kernel_for(const jacobi_step_t *s,
                                                                   int tuned_rows)
{
    int g = rows_in_flight(s, true, tuned_rows);
    return hooked(s) ? persistent_kernel_pick<true>(s, g) : persistent_kernel_pick<false>(s, g);
}

extern "C" int jacobi_step_kernel_blocks_per_sm(int columns_per_thread)
{
    /* the step kernel's __launch_bounds__: Vec4Columns::min_blocks, ScalarColumns::min_blocks */
    return columns_per_thread == 4 ? JACOBI_VEC4_MIN_BLOCKS_PER_SM : JACOBI_MIN_BLOCKS_PER_SM;
}
