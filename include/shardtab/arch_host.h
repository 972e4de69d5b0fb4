/* shardtab/arch_host.h - the primitives for the host backend (C11, CPUs): C11
 * atomics on the pads in the shared-memory segment, CLOCK_MONOTONIC, and a
 * block of one thread. C11 atomics have no scopes: the *_device and *_system
 * forms name the scope the GPU targets use, with the same orders.
 *
 * Not included directly: shardtab_device.h picks this header by the
 * compiler's macros, and writes its protocol (signals, waits, the barrier)
 * once over these functions, which arch_cuda.h, arch_hip.h and arch_host.h
 * each give under the same names. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_ARCH_HOST_H
#define SHARDTAB_ARCH_HOST_H

#include <stdint.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

_Static_assert(sizeof(_Atomic uint64_t) == sizeof(uint64_t) && ATOMIC_LLONG_LOCK_FREE == 2,
               "the host backend's signals need lock-free 64-bit atomics laid out as uint64_t");

#define SHARDTAB_DEVICE_HOST 1
#define SHARDTAB_DEVFN static inline
#include "shardtab/bits.h"
/* shardtab_fence_release_node and _acquire_node: C11 fences have no scope,
 * so one fence whatever the node's size. */
#define SHARDTAB_ARCH_NODE_SCOPE_BY_SIZE 0

SHARDTAB_DEVFN void shardtab_detail_store_release_system(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_release);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_load_acquire_system(uint64_t *p)
{
    return atomic_load_explicit((_Atomic uint64_t *)p, memory_order_acquire);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_load_relaxed_system(uint64_t *p)
{
    return atomic_load_explicit((_Atomic uint64_t *)p, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_add_release_system(uint64_t *p, uint64_t v)
{
    (void)atomic_fetch_add_explicit((_Atomic uint64_t *)p, v, memory_order_release);
}
SHARDTAB_DEVFN int shardtab_detail_cas_relaxed_system(uint64_t *p, uint64_t expected,
                                                      uint64_t desired)
{
    return atomic_compare_exchange_strong_explicit((_Atomic uint64_t *)p, &expected, desired,
                                                   memory_order_relaxed, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_store_relaxed_system(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_fetch_add_relaxed_system(uint64_t *p, uint64_t v)
{
    return atomic_fetch_add_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_min_relaxed_system(uint64_t *p, uint64_t v)
{
    uint64_t old = atomic_load_explicit((_Atomic uint64_t *)p, memory_order_relaxed);
    while (v < old &&
           !atomic_compare_exchange_weak_explicit((_Atomic uint64_t *)p, &old, v,
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
}
SHARDTAB_DEVFN void shardtab_detail_max_relaxed_system(uint64_t *p, uint64_t v)
{
    uint64_t old = atomic_load_explicit((_Atomic uint64_t *)p, memory_order_relaxed);
    while (v > old &&
           !atomic_compare_exchange_weak_explicit((_Atomic uint64_t *)p, &old, v,
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
}
/* the host backend's block is one thread */
SHARDTAB_DEVFN int shardtab_detail_block_thread(void)
{
    return 0;
}
SHARDTAB_DEVFN int shardtab_detail_block_threads(void)
{
    return 1;
}
SHARDTAB_DEVFN void shardtab_detail_copy16(void *dst, const void *src)
{
    memcpy(dst, src, 16);
}
SHARDTAB_DEVFN void shardtab_detail_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}
SHARDTAB_DEVFN void shardtab_detail_fence_acquire(void)
{
    atomic_thread_fence(memory_order_acquire);
}
/* The host backend's "block" is the calling thread. */
SHARDTAB_DEVFN void shardtab_detail_block_sync(void) {}
SHARDTAB_DEVFN int shardtab_detail_block_leader(void)
{
    return 1;
}
SHARDTAB_DEVFN void shardtab_detail_fence_before_block_release(void) {}
SHARDTAB_DEVFN void shardtab_detail_fence_after_block_acquire(void) {}
/* "Device" scope: the words only this process touches. C11 atomics have no
 * scopes; these name the scope the GPU targets use, with the same orders. */
SHARDTAB_DEVFN uint64_t shardtab_detail_load_relaxed_device(uint64_t *p)
{
    return atomic_load_explicit((_Atomic uint64_t *)p, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_store_relaxed_device(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_store_release_device(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_release);
}
/* acquire when it swaps, relaxed when it does not */
SHARDTAB_DEVFN int shardtab_detail_cas_acquire_device(uint64_t *p, uint64_t expected,
                                                      uint64_t desired)
{
    return atomic_compare_exchange_strong_explicit((_Atomic uint64_t *)p, &expected, desired,
                                                   memory_order_acquire, memory_order_relaxed);
}
/* a collective's claim: one relaxed read-modify-write of its state word,
 * which returns the word as it was */
SHARDTAB_DEVFN uint64_t shardtab_detail_fetch_or_relaxed_device(uint64_t *p, uint64_t v)
{
    return atomic_fetch_or_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
/* *p = min(*p, v) for a word of the block's shared memory: the block is one thread */
SHARDTAB_DEVFN void shardtab_detail_block_min_int(int *p, int v)
{
    if (v < *p)
        *p = v;
}
/* A flag: a relaxed store that a release fence before it makes a release
 * (C11 7.17.4: a release fence synchronizes with an acquire fence after a
 * relaxed load that reads a relaxed store sequenced after the release fence). */
SHARDTAB_DEVFN void shardtab_detail_flag_relaxed_system(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_flag_relaxed_device(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_detail_fence_release_system(void)
{
    atomic_thread_fence(memory_order_release);
}
SHARDTAB_DEVFN void shardtab_detail_fence_acquire_system(void)
{
    atomic_thread_fence(memory_order_acquire);
}
SHARDTAB_DEVFN void shardtab_detail_fence_release_device(void)
{
    atomic_thread_fence(memory_order_release);
}
SHARDTAB_DEVFN void shardtab_detail_fence_acquire_device(void)
{
    atomic_thread_fence(memory_order_acquire);
}
/* nanoseconds of CLOCK_MONOTONIC; in a strict ISO C build, which declares no POSIX
 * names (-std=c11 without _POSIX_C_SOURCE), C11's own clock: not monotonic, but a
 * wait's limit still passes */
SHARDTAB_DEVFN uint64_t shardtab_detail_clock(void)
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* Ranks may outnumber cores (CI runs 4 on 2): a waiter must let the writer run. It
 * yields; once a wait has gone on (64 pauses in a row, each within 100 us of the
 * last), it sleeps 50 us a pause instead, so that the ranks that wait leave the cores
 * to those that work rather than trade them among themselves. */
SHARDTAB_DEVFN void shardtab_detail_pause(void)
{
    static _Thread_local uint64_t last_ns;
    static _Thread_local unsigned streak;
    uint64_t now = shardtab_detail_clock();
    streak = now - last_ns < 100000u ? streak + 1 : 0;
    if (streak < 64) {
        sched_yield();
        last_ns = now;
        return;
    }
#ifdef CLOCK_MONOTONIC /* POSIX's names are declared: nanosleep too */
    struct timespec nap = {0, 50000};
    nanosleep(&nap, NULL);
#else
    sched_yield();
#endif
    last_ns = shardtab_detail_clock();
}

#endif /* SHARDTAB_ARCH_HOST_H */
