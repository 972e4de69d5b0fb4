/* collective_gpu.hip - the stream-ordered collectives' kernels: each phase of
 * collective_body.h run by a grid of threads (the sync by one block). HIP for
 * AMD, compiled as CUDA for NVIDIA, like the library's barrier kernel. A phase
 * after a refused or timed-out sync returns at once: the node has stopped, and
 * its arguments may not hold on another rank. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "collective_body.h"
#include "halo_body.h"

__global__ void st_collective_sync_kernel(st_coll_phase_t p)
{
    (void)st_body_sync_block(&p); /* a refusal records itself in the pad */
}

/* The kernels that combine values come twice: EXACT 1 for SHARDTAB_SUM_EXACT
 * alone, EXACT 0 for every other op, whose code then holds no exact sum (its
 * spill limbs would give every plain call a stack frame: scratch on AMD). The
 * launcher picks, and the bodies' _as forms take EXACT as a constant; an
 * instantiation given the other's op returns at once. */
#define ST_OTHER_OP(p) ((EXACT != 0) != ((p).op == SHARDTAB_SUM_EXACT))

template <int EXACT> __global__ void st_collective_move_kernel(st_coll_phase_t p)
{
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * blockDim.x;

    if (ST_OTHER_OP(p) || shardtab_aborted(&p.sig))
        return;
    if (p.phase == ST_PHASE_REDUCE)
        st_body_reduce_as(&p, EXACT, thread, threads);
    else if (p.phase == ST_PHASE_HALO)
        st_body_halo(&p, thread, threads);
    else
        st_body_copy(&p, thread, threads);
}

/* one block: an all-reduce of at most ST_LL_BYTES, in the sync's words */
template <int EXACT> __global__ void st_collective_ll_kernel(st_coll_phase_t p)
{
    if (ST_OTHER_OP(p))
        return;
    (void)st_body_ll_as(&p, EXACT); /* a refusal records itself */
}

/* one block: a small all-reduce whole */
template <int EXACT> __global__ void st_collective_one_block_kernel(st_coll_phase_t p)
{
    if (ST_OTHER_OP(p))
        return;
    (void)st_body_one_block_as(&p, EXACT, threadIdx.x, blockDim.x); /* a refusal records itself */
}

/* a pushed halo exchange whole: one block, or by put p.blocks */
__global__ void st_collective_halo_push_kernel(st_coll_phase_t p)
{
    (void)st_body_halo_push(&p, blockIdx.x); /* a wait that gives up records itself */
}

extern "C" int st_gpu_collective_launch(const st_coll_phase_t *phase, int blocks, void *stream)
{
    const hipStream_t s = (hipStream_t)stream;
    const int exact = phase->op == SHARDTAB_SUM_EXACT;

    if (phase->phase == ST_PHASE_SYNC)
        st_collective_sync_kernel<<<1, ST_SYNC_THREADS, 0, s>>>(*phase);
    else if (phase->phase == ST_PHASE_LL && exact)
        st_collective_ll_kernel<1><<<1, ST_SYNC_THREADS, 0, s>>>(*phase);
    else if (phase->phase == ST_PHASE_LL)
        st_collective_ll_kernel<0><<<1, ST_SYNC_THREADS, 0, s>>>(*phase);
    else if (phase->phase == ST_PHASE_ONE_BLOCK && exact)
        st_collective_one_block_kernel<1><<<1, ST_ONE_BLOCK_THREADS, 0, s>>>(*phase);
    else if (phase->phase == ST_PHASE_ONE_BLOCK)
        st_collective_one_block_kernel<0><<<1, ST_ONE_BLOCK_THREADS, 0, s>>>(*phase);
    else if (phase->phase == ST_PHASE_HALO_PUSH)
        st_collective_halo_push_kernel<<<(unsigned)phase->blocks, ST_ONE_BLOCK_THREADS, 0, s>>>(
            *phase);
    else if (exact)
        st_collective_move_kernel<1><<<blocks, 256, 0, s>>>(*phase);
    else
        st_collective_move_kernel<0><<<blocks, 256, 0, s>>>(*phase);
    return (int)hipGetLastError();
}
