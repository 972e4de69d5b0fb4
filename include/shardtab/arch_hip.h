/* shardtab/arch_hip.h - the device primitives for HIP (AMD, clang): the
 * __hip_atomic_* builtins at system and agent (device) scope, amdgcn fences,
 * the real-time counter; the block's own primitives, which CUDA writes alike,
 * from arch_gpu.h. Each names its order and scope;
 * docs/design.md gives the memory-model reasoning, and
 * scripts/check-gfx90a-order.sh checks the gfx90a code they become.
 *
 * Not included directly: shardtab_device.h picks this header by the
 * compiler's macros, and writes its protocol (signals, waits, the barrier)
 * once over these functions, which arch_cuda.h, arch_hip.h and arch_host.h
 * each give under the same names. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_ARCH_HIP_H
#define SHARDTAB_ARCH_HIP_H

#include <stdint.h>
#include <hip/hip_runtime.h>

#define SHARDTAB_DEVICE_HIP 1
#define SHARDTAB_DEVFN __device__ static inline
#include "shardtab/bits.h"
#include "shardtab/arch_gpu.h"
/* shardtab_fence_release_node and _acquire_node: system scope, also where
 * the node is this rank alone. A scope chosen at run time is a branch around
 * two fences, and LLVM's structurizer may join the two paths again before
 * either fence (flow blocks): one fence, the same on every path, is what
 * scripts/check-gfx90a-order.sh can verify on every path, and what AMD gets. */
#define SHARDTAB_ARCH_NODE_SCOPE_BY_SIZE 0

SHARDTAB_DEVFN void shardtab_detail_store_release_system(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_load_acquire_system(uint64_t *p)
{
    return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_load_relaxed_system(uint64_t *p)
{
    return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_detail_add_release_system(uint64_t *p, uint64_t v)
{
    (void)__hip_atomic_fetch_add(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN int shardtab_detail_cas_relaxed_system(uint64_t *p, uint64_t expected,
                                                      uint64_t desired)
{
    return __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_detail_store_relaxed_system(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_fetch_add_relaxed_system(uint64_t *p, uint64_t v)
{
    return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_detail_min_relaxed_system(uint64_t *p, uint64_t v)
{
    (void)__hip_atomic_fetch_min(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_detail_max_relaxed_system(uint64_t *p, uint64_t v)
{
    (void)__hip_atomic_fetch_max(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
/* clang also parses device functions in its host pass, where the GPU's own
 * builtins may not exist (ROCm 5.2 declares wall_clock64 for the device pass
 * only): those bodies are never run on the host. */
SHARDTAB_DEVFN void shardtab_detail_fence(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); /* "": the system scope */
#endif
}
SHARDTAB_DEVFN void shardtab_detail_fence_acquire(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "");
#endif
}
/* Before one thread releases for its block: every wave releases its own
 * stores. On gfx90a without tgsplit, LLVM's workgroup-scope release (inside
 * __syncthreads) emits no wait for other waves' global stores, so the leader's
 * system-scope release would cover its own wave's stores only (the gap LLVM
 * closed for GFX10+ in PRs 160501 and 161638). */
SHARDTAB_DEVFN void shardtab_detail_fence_before_block_release(void)
{
    shardtab_detail_fence();
}
/* After the block's barrier, before any thread reads what the leader
 * acquired for the block: every wave acquires for itself (system scope), so
 * that no wave reads through a line of the CU's L1 that one of its own loads
 * from before the barrier brought in (the leader's buffer_wbinvl1_vol is the
 * leader's wave's, ordered with the leader's loads only). */
SHARDTAB_DEVFN void shardtab_detail_fence_after_block_acquire(void)
{
    shardtab_detail_fence_acquire();
}
/* Device scope (__HIP_MEMORY_SCOPE_AGENT: every thread of this GPU): for
 * words that only this rank's own device touches (a collective's state
 * word, shardtab/comm_detail.h). On gfx90a agent scope
 * needs no L2 writeback or invalidate (AMDGPUUsage, GFX90A: buffer_wbl2 and
 * buffer_invl2 are for system scope only). */
SHARDTAB_DEVFN uint64_t shardtab_detail_load_relaxed_device(uint64_t *p)
{
    return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
SHARDTAB_DEVFN void shardtab_detail_store_relaxed_device(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
SHARDTAB_DEVFN void shardtab_detail_store_release_device(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}
/* acquire when it swaps, relaxed when it does not */
SHARDTAB_DEVFN int shardtab_detail_cas_acquire_device(uint64_t *p, uint64_t expected,
                                                      uint64_t desired)
{
    return __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_ACQUIRE,
                                                __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
/* a collective's claim: one relaxed read-modify-write of its state word,
 * which returns the word as it was */
SHARDTAB_DEVFN uint64_t shardtab_detail_fetch_or_relaxed_device(uint64_t *p, uint64_t v)
{
    return __hip_atomic_fetch_or(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
/* *p = min(*p, v) for a word of the block's shared memory (no order) */
SHARDTAB_DEVFN void shardtab_detail_block_min_int(int *p, int v)
{
    (void)__hip_atomic_fetch_min(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
}
/* A flag: a relaxed store that a release fence before it (in this thread's
 * order) makes a release: the fence-then-flag idiom. Its own name, so that
 * scripts/check-gfx90a-order.sh can check the fence before it. */
SHARDTAB_DEVFN void shardtab_detail_flag_relaxed_system(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_detail_flag_relaxed_device(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
/* One-way fences. gfx90a, as LLVM 15 emits them (AMDGPUUsage, "Memory Model
 * GFX90A"): release, system: buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0);
 * acquire, system: s_waitcnt vmcnt(0) lgkmcnt(0); buffer_invl2;
 * buffer_wbinvl1_vol (clang 15 also writes back first, buffer_wbl2);
 * release, agent: s_waitcnt vmcnt(0) lgkmcnt(0); acquire, agent: the same,
 * then buffer_wbinvl1_vol. */
SHARDTAB_DEVFN void shardtab_detail_fence_release_system(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "");
#endif
}
SHARDTAB_DEVFN void shardtab_detail_fence_acquire_system(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "");
#endif
}
SHARDTAB_DEVFN void shardtab_detail_fence_release_device(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
#endif
}
SHARDTAB_DEVFN void shardtab_detail_fence_acquire_device(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
#endif
}
/* ticks of the constant-rate real-time counter (s_memrealtime) */
SHARDTAB_DEVFN uint64_t shardtab_detail_clock(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    return (uint64_t)wall_clock64();
#else
    return 0;
#endif
}
SHARDTAB_DEVFN void shardtab_detail_pause(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_s_sleep(1);
#endif
}

#endif /* SHARDTAB_ARCH_HIP_H */
