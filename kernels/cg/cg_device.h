/* cg_device.h - what differs per target in cg's solve (cg_body.h): the
 * functions' qualifiers, the block's width, the fences of a block's part in
 * a meeting of the grid, and the loop over a block's rows (unrolled, its
 * pointers restrict-qualified, where the target gains by it). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_DEVICE_H
#define CG_DEVICE_H

#if defined(SHARDTAB_DEVICE_HOST) ||                                                               \
    !(defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__))
#  include <math.h>
#  include <string.h>
#endif

#include "cg.h"
#include "shardtab_comm.h"

/* ---- per target ----------------------------------------------------------------------- */

/* Every function of the solve (cg_body.h and its phases' headers) is inlined
 * into each kernel: a kernel instantiated for plain sums (cg.hip's REPRO 0)
 * then folds the exact path away, and keeps neither its registers nor its
 * stack. */
#if defined(SHARDTAB_DEVICE_HOST)
#  define CG_DEVFN SHARDTAB_DEVFN
#else
#  define CG_DEVFN __device__ static __forceinline__
#endif

#if defined(SHARDTAB_DEVICE_HOST)
#  define CG_BLOCK 1
#else
#  define CG_BLOCK 256
#endif
typedef char cg_block_of_chunks_check[CG_BLOCK % CG_CHUNK == 0 || CG_BLOCK == 1 ? 1 : -1];

/* The blocks of one rank meet through words of its ctl, at device scope: a
 * block's stores are released to the others and acquired from them. Every
 * thread's own part where the target needs one (gfx90a: each wave waits for
 * its own stores, and drops its own stale lines of the CU's first-level
 * cache: LLVM's workgroup-scope barrier does neither for other waves), the
 * block's barrier, then the leader's fence beside the counting word. */
CG_DEVFN void cg_fence_before_grid_release(void)
{
#if defined(SHARDTAB_DEVICE_HIP)
    shardtab_detail_fence_release_device();
#endif
}
CG_DEVFN void cg_fence_after_grid_acquire(void)
{
#if defined(SHARDTAB_DEVICE_HIP)
    shardtab_detail_fence_acquire_device();
#endif
}

/* ---- a block's rows ---------------------------------------------------------------- */

/* Block b's rows, a block's width at a time, every thread in every pass (a
 * warp's lanes stay together for a chunk's tree): row i, live while inside
 * the rank's rows. CG_ROWS_STREAMED for the vector updates: unrolled on
 * GPUs, their pointers restrict-qualified, so that a thread's loads of
 * several rows are in flight at once. */
#define CG_ROWS(g, b, i, live) CG_ROWS_LOOP(g, b, i, live)
#define CG_ROWS_LOOP(g, b, i, live)                                                                \
  for (int64_t i##_base = (int64_t)(b)*CG_BLOCK; i##_base < (g)->a.rows;                           \
       i##_base += (int64_t)(g)->blocks * CG_BLOCK)                                                \
    for (int64_t i = i##_base + shardtab_detail_block_thread(), live = i < (g)->a.rows,            \
                 i##_pass = 1;                                                                     \
         i##_pass; i##_pass = 0)
#if defined(SHARDTAB_DEVICE_HOST)
#  define CG_RESTRICT restrict
#  define CG_ROWS_STREAMED(g, b, i, live) CG_ROWS_LOOP(g, b, i, live)
#elif defined(SHARDTAB_DEVICE_HIP)
/* clang does not unroll these loops of unknown trip count (it warns); the
 * restrict-qualified pointers stay */
#  define CG_RESTRICT __restrict__
#  define CG_ROWS_STREAMED(g, b, i, live) CG_ROWS_LOOP(g, b, i, live)
#else
#  define CG_RESTRICT __restrict__
#  ifndef CG_UNROLL
#    define CG_UNROLL 2
#  endif
#  define CG_PRAGMA(text) _Pragma(#  text)
#  define CG_UNROLL_PRAGMA(n) CG_PRAGMA(unroll n)
#  define CG_ROWS_STREAMED(g, b, i, live) CG_UNROLL_PRAGMA(CG_UNROLL) CG_ROWS_LOOP(g, b, i, live)
#endif

#endif /* CG_DEVICE_H */
