/* jacobi_temporal.hip - --launch temporal's kernels and launches (HIP, and
 * CUDA through gpu_runtime.h): a launch a pass, a block a tile streaming
 * jacobi_temporal.h's whole tile (wait, stream) and, in the pass's last block
 * (a ticket), its finish (signals, close); the mode's hooks (jacobi_hooks.h):
 * the tiles sized for the device, a run's start and its passes enqueued. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>

#include "gpu_runtime.h"
#include "jacobi_cut.h"
#include "jacobi_hooks.h"
#include "jacobi_temporal.h"

/* A thread a local column of the tile: 256 columns, of which 2 D are the
 * halo's (242 own columns at the default depth, 7). The block shares only its
 * exchange buffer (2 x 7 lanes of 258 values, 14 KB), so several blocks fit a
 * multiprocessor, an MI250X GCD's 64 KB of LDS a workgroup included; what
 * bounds them is registers (JACOBI_TEMPORAL_MIN_BLOCKS, -D for a
 * measurement). */
#ifndef JACOBI_TEMPORAL_MIN_BLOCKS /* 3: 80 registers, none spilled (4 spilled: 1.22x the time) */
#  define JACOBI_TEMPORAL_MIN_BLOCKS 3
#endif
#define JACOBI_TEMPORAL_EXCHANGE (2 * JACOBI_TEMPORAL_MAX_DEPTH * (JACOBI_TEMPORAL_THREADS + 2))

/* The run's end, and a fresh ticket: passes count their tiles from here. */
__global__ void jacobi_temporal_begin(jacobi_step_t s, uint64_t count)
{
    jacobi_temporal_begin_run(&s, count);
}

/* One pass, a block a tile (the hardware starts each tile's block as one
 * ends, so one block's loads run while another computes): the tile's wait
 * for the neighbour ranks it meets and its stream (jacobi_temporal.h); the
 * last block to finish (a ticket) tells the neighbours and closes the pass.
 * The first row of tiles runs last (block b takes tile b + tiles_x), and the
 * last row just before it: where a tile has at least D rows (JACOBI_TEMPORAL_ROWS
 * may make them shorter), those are the tiles that may wait for a neighbour,
 * and they start once the others have. PLANTED: the kernel of a
 * run with a STALE or NORM fault planted (jacobi_temporal_planted). */
template <int PLANTED>
__global__ void __launch_bounds__(JACOBI_TEMPORAL_THREADS, JACOBI_TEMPORAL_MIN_BLOCKS)
    jacobi_temporal_pass_tiles(jacobi_step_t s)
{
    __shared__ jacobi_real_t exchange[JACOBI_TEMPORAL_EXCHANGE];
    __shared__ jacobi_pass_t pass;
    __shared__ double slots[JACOBI_TEMPORAL_MAX_DEPTH * JACOBI_BLOCK_SLOTS],
        sums[JACOBI_TEMPORAL_MAX_DEPTH];
    __shared__ int last;
    const int tiles = s.temporal_tiles_x * s.temporal_tiles_y;
    const int t = ((int)blockIdx.x + s.temporal_tiles_x) % tiles;

    if (threadIdx.x == 0)
        pass = jacobi_temporal_next(&s);
    __syncthreads();
    if (pass.depth == 0)
        return;
    jacobi_temporal_tile(&s, pass, t, exchange, slots, sums, PLANTED);
    if (threadIdx.x == 0) {
        const jacobi_tile_t g = jacobi_temporal_place(&s, pass, t);
        jacobi_temporal_publish(&s, pass, t, sums);
        last = jacobi_temporal_ticket(&s, (uint64_t)tiles,
                                      jacobi_temporal_meets_top(&s, &g) ||
                                          jacobi_temporal_meets_bottom(&s, &g));
    }
    __syncthreads();
    if (!last)
        return;
    shardtab_detail_fence_acquire_device(); /* every tile's sums, seen through the ticket, before they are read */
    jacobi_temporal_finish(&s, pass);
}

/* ---- the mode's hooks (jacobi_hooks.h) ------------------------------------------------ */

/* Sizes the tiles for the tuning's depth (odd, 1 to 7) and own rows a tile
 * (0: the plan's, jacobi_temporal_auto_rows) and allocates the partial sums.
 * Returns 0, JACOBI_PLAN_NOT_RESIDENT with why (a device on which no block
 * of the pass fits a multiprocessor), or a runtime code. */
extern "C" int jacobi_temporal_size(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    jacobi_step_t *s = &plan->step;
    const int depth = plan->tuning.temporal_depth, rows = plan->tuning.temporal_rows;
    int device = 0, per_sm = 0, sms = 0;
    hipError_t err = hipGetDevice(&device);

    if (err == hipSuccess)
        err = hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, jacobi_temporal_pass_tiles<0>,
                                                           JACOBI_TEMPORAL_THREADS, 0);
    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device);
    if (err != hipSuccess)
        return (int)err;
    if (per_sm < 1) {
        snprintf(why, why_bytes, "no block of the temporal pass fits a multiprocessor of device %d",
                 device);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    const int cols = JACOBI_TEMPORAL_THREADS - 2 * depth;
    jacobi_temporal_cut(s, depth, cols,
                        rows > 0 ? rows
                                 : jacobi_temporal_auto_rows(s, depth, cols, (long)per_sm * sms));
    s->temporal_blocks = s->temporal_tiles_x * s->temporal_tiles_y;
    return (int)hipMalloc((void **)&s->temporal_partials,
                          (size_t)depth * (size_t)s->temporal_blocks * sizeof(double));
}

/* A run's start: its end, and a fresh ticket. */
extern "C" int jacobi_temporal_start(jacobi_plan_t *plan, int count)
{
    jacobi_temporal_begin<<<1, 1, 0, (hipStream_t)plan->stream>>>(plan->step, (uint64_t)count);
    return (int)hipGetLastError();
}

/* `passes` passes of the run, one chunk of its pacing. */
extern "C" int jacobi_temporal_enqueue(jacobi_plan_t *plan, int passes)
{
    const jacobi_step_t *s = &plan->step;
    hipStream_t st = (hipStream_t)plan->stream;
    hipError_t err = hipSuccess;

    for (int i = 0; i < passes && err == hipSuccess; i++) {
        if (jacobi_temporal_planted(s))
            jacobi_temporal_pass_tiles<1>
                <<<s->temporal_blocks, JACOBI_TEMPORAL_THREADS, 0, st>>>(*s);
        else
            jacobi_temporal_pass_tiles<0>
                <<<s->temporal_blocks, JACOBI_TEMPORAL_THREADS, 0, st>>>(*s);
        err = hipGetLastError();
    }
    return (int)err;
}

extern "C" void jacobi_temporal_release(jacobi_plan_t *plan)
{
    if (plan->step.temporal_partials)
        (void)hipFree(plan->step.temporal_partials);
    plan->step.temporal_partials = NULL;
}
