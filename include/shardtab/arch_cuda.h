/* shardtab/arch_cuda.h - the device primitives for CUDA (NVIDIA, nvcc): libcu++'s
 * cuda::atomic_ref at system and device scope, PTX fences (one-way from PTX
 * 8.6 on sm_90), the global timer; the block's own primitives, which HIP
 * writes alike, from arch_gpu.h. Each names its order and scope;
 * docs/design.md gives the memory-model reasoning.
 *
 * Not included directly: shardtab_device.h picks this header by the
 * compiler's macros, and writes its protocol (signals, waits, the barrier)
 * once over these functions, which arch_cuda.h, arch_hip.h and arch_host.h
 * each give under the same names. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_ARCH_CUDA_H
#define SHARDTAB_ARCH_CUDA_H

#include <stdint.h>
#include <cuda/atomic>

#define SHARDTAB_DEVICE_CUDA 1
#define SHARDTAB_DEVFN __device__ static inline
#include "shardtab/bits.h"
#include "shardtab/arch_gpu.h"
/* A rank alone on its node (node_size 1) touches only its own pad, from its
 * own device: shardtab_fence_release_node and _acquire_node fence at device
 * scope then, at system scope otherwise. */
#define SHARDTAB_ARCH_NODE_SCOPE_BY_SIZE 1

SHARDTAB_DEVFN void shardtab_detail_store_release_system(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_release);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_load_acquire_system(uint64_t *p)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).load(
        cuda::memory_order_acquire);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_load_relaxed_system(uint64_t *p)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).load(
        cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_add_release_system(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).fetch_add(v,
                                                                        cuda::memory_order_release);
}
SHARDTAB_DEVFN int shardtab_detail_cas_relaxed_system(uint64_t *p, uint64_t expected,
                                                      uint64_t desired)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).compare_exchange_strong(
        expected, desired, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_store_relaxed_system(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_fetch_add_relaxed_system(uint64_t *p, uint64_t v)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).fetch_add(
        v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_min_relaxed_system(uint64_t *p, uint64_t v)
{
    (void)cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).fetch_min(
        v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_max_relaxed_system(uint64_t *p, uint64_t v)
{
    (void)cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).fetch_max(
        v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_fence(void)
{
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
}
SHARDTAB_DEVFN void shardtab_detail_fence_acquire(void)
{
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
}
/* Before one thread releases for its block: nothing per thread. bar.sync then
 * orders every thread's stores before the leader's system-scope release, and
 * that release is cumulative (PTX ISA, memory consistency model). */
SHARDTAB_DEVFN void shardtab_detail_fence_before_block_release(void) {}
/* After the block's barrier, before any thread reads what the leader
 * acquired for the block: nothing per thread. The leader's system-scope
 * acquire pattern, then bar.sync, orders the peers' writes before every
 * thread's later reads (PTX ISA, memory consistency model: bar.sync
 * synchronizes, and base causality order is transitive). */
SHARDTAB_DEVFN void shardtab_detail_fence_after_block_acquire(void) {}
/* Device scope (thread_scope_device, PTX .gpu: every thread of this GPU):
 * for words that only this rank's own device touches (a collective's
 * state word, shardtab/comm_detail.h). */
SHARDTAB_DEVFN uint64_t shardtab_detail_load_relaxed_device(uint64_t *p)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).load(
        cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_store_relaxed_device(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_store_release_device(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_release);
}
/* acquire when it swaps, relaxed when it does not (atom.cas.acquire.gpu) */
SHARDTAB_DEVFN int shardtab_detail_cas_acquire_device(uint64_t *p, uint64_t expected,
                                                      uint64_t desired)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).compare_exchange_strong(
        expected, desired, cuda::memory_order_acquire, cuda::memory_order_relaxed);
}
/* a collective's claim: one relaxed read-modify-write of its state word
 * (atom.or.relaxed.gpu), which returns the word as it was */
SHARDTAB_DEVFN uint64_t shardtab_detail_fetch_or_relaxed_device(uint64_t *p, uint64_t v)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).fetch_or(
        v, cuda::memory_order_relaxed);
}
/* *p = min(*p, v) for a word of the block's shared memory (no order) */
SHARDTAB_DEVFN void shardtab_detail_block_min_int(int *p, int v)
{
    (void)atomicMin_block(p, v);
}
/* A flag: a relaxed store that a release fence before it (in this thread's
 * order) makes a release: the fence-then-flag idiom (PTX release pattern
 * "fence.release; st.relaxed [M]"). Its own name, so that
 * scripts/check-gfx90a-order.sh can check the fence before it. */
SHARDTAB_DEVFN void shardtab_detail_flag_relaxed_system(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_flag_relaxed_device(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_relaxed);
}
/* One-way fences. From PTX ISA 8.6 on sm_90 (CUDA 12.8 and later) PTX has
 * fence.release and fence.acquire, each the fence of its pattern (a release
 * fence then a strong write; a strong read then an acquire fence); before
 * that, libcu++'s mapping, fence.acq_rel, which is both. One macro writes
 * either form: the order, PTX's name for the scope, libcu++'s. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 &&                                              \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#  define SHARDTAB_PTX_ONE_WAY_FENCES 1
#  define SHARDTAB_DETAIL_CUDA_FENCE(order, ptx_scope, scope)                                      \
    asm volatile("fence." #order "." #ptx_scope ";" ::: "memory")
#else
#  define SHARDTAB_DETAIL_CUDA_FENCE(order, ptx_scope, scope)                                      \
    cuda::atomic_thread_fence(cuda::memory_order_##order, cuda::thread_scope_##scope)
#endif
SHARDTAB_DEVFN void shardtab_detail_fence_release_system(void)
{
    SHARDTAB_DETAIL_CUDA_FENCE(release, sys, system);
}
SHARDTAB_DEVFN void shardtab_detail_fence_acquire_system(void)
{
    SHARDTAB_DETAIL_CUDA_FENCE(acquire, sys, system);
}
SHARDTAB_DEVFN void shardtab_detail_fence_release_device(void)
{
    SHARDTAB_DETAIL_CUDA_FENCE(release, gpu, device);
}
SHARDTAB_DEVFN void shardtab_detail_fence_acquire_device(void)
{
    SHARDTAB_DETAIL_CUDA_FENCE(acquire, gpu, device);
}
/* nanoseconds of the GPU's global timer */
SHARDTAB_DEVFN uint64_t shardtab_detail_clock(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
SHARDTAB_DEVFN void shardtab_detail_pause(void)
{
    __nanosleep(32);
}

#endif /* SHARDTAB_ARCH_CUDA_H */
