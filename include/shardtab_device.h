/** @file
 * shardtab_device.h - signals and a barrier between the ranks of a node, for
 * the code that runs on the device: HIP kernels (AMD), the same source compiled
 * as CUDA (NVIDIA), and the host backend's C loops (POSIX shared memory).
 *
 * Every table has a signal pad per rank: 64-bit slots in that rank's own
 * memory, exported through the same IPC exchange as the shards. A kernel may
 *   - set or add to a slot of any node peer's pad (release, system scope);
 *   - wait until a slot of its own pad is == or >= a value (acquire, system scope);
 *   - fence at system scope;
 *   - join a node-wide barrier (one thread, or a whole block, of each rank).
 *
 * Below them lie the primitives (one header per target, shardtab/arch_*.h,
 * named shardtab_detail_*: not API, they may change): atomics and fences at
 * system and device scope, one-way fences, the block's thread numbers and
 * barrier, each naming its order and scope. Kernels use the calls here and in
 * shardtab_comm.h, whose ordering the library proves on each target.
 * The pad lives in memory that stays coherent while kernels run: uncached or
 * fine-grained on AMD (hipExtMallocWithFlags), ordinary device memory on NVIDIA,
 * the shared-memory segment on the host backend. docs/design.md gives the
 * memory-model reasoning per GPU.
 *
 * Every wait has a time limit (shardtab_create_params_t.wait_timeout_s, or
 * SHARDTAB_WAIT_TIMEOUT seconds; 10 s by default). A wait that runs out records
 * what it waited for in its own pad, tells every peer to stop (their waits
 * return SHARDTAB_WAIT_ABORTED), and returns SHARDTAB_WAIT_TIMED_OUT: the kernel
 * then returns, and the host learns which rank, slot and value from
 * shardtab_signal_check(). Nothing traps, so the context survives to report.
 * The stop is for good: every later wait on that table returns ABORTED, so
 * destroy it (and make a new one) to go on. A barrier waits for each peer in
 * turn, each wait with the whole limit.
 *
 * Usage in a kernel (the handle is passed by value): every thread of the block
 * stores its part into the next rank's shard, the block signals "round done"
 * once all of its stores are visible there, then waits for its predecessor's
 * signal before any thread reads what the predecessor wrote into its own shard:
 *
 *     __global__ void round(shardtab_signals_t sig, double *const *table, int next,
 *                           uint64_t round, size_t n) {
 *         for (size_t i = threadIdx.x; i < n; i += blockDim.x)
 *             table[next][i] = value(round, i);
 *         shardtab_signal_set_block(&sig, next, 0, round + 1);   // every thread calls it
 *         if (shardtab_signal_wait_block(&sig, 0, SHARDTAB_CMP_GE, round + 1))
 *             return;                  // timed out or aborted: stop, the host reports
 *         ... every thread may now read table[sig.node_rank] ...
 *     }
 *
 * The block helpers do what a thread-0-only signal gets wrong: no thread
 * signals before every thread's stores are visible to the peer, and no thread
 * reads before the wait has ended (tests/shardtab/signals/ runs this example on every
 * backend). Signals from one thread (shardtab_signal_set) are for code whose
 * stores that thread made alone.
 *
 * A slot should have one writer (one peer, one block) unless it is only ever
 * added to; values should grow (an iteration count), so that no reset races a
 * late reader (the NVSHMEM neighbour-sync idiom). One barrier at a time per
 * rank and table: a second one entered while the first waits is refused (its
 * wait returns SHARDTAB_WAIT_CONCURRENT and the node stops, reported by
 * shardtab_signal_check); shardtab_barrier_on_stream orders its calls itself,
 * whatever streams they are on.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_DEVICE_H
#define SHARDTAB_DEVICE_H

#include <stdint.h>

/* ---- the primitives (detail): one header per target, picked by the compiler --- *
 * Each defines SHARDTAB_DEVICE_CUDA, _HIP or _HOST, SHARDTAB_DEVFN (how a device
 * function is declared), and the same functions, each naming its order and
 * scope: atomics (load, store, add, CAS, min, max), fences (seq_cst, acquire,
 * and one-way release and acquire at system and device scope), flags (a
 * relaxed store that a release fence before it publishes), the block (thread
 * numbers, barrier, leader, the fences around a leader's release and acquire
 * for the block), a 16-byte copy, the clock and a pause. */
#if defined(__CUDACC__)
#  include "shardtab/arch_cuda.h"
#elif defined(__HIP__) || defined(__HIPCC__)
#  include "shardtab/arch_hip.h"
#else
#  include "shardtab/arch_host.h"
#endif

/** @name The pad
 * A rank's pad, by index:
 *
 *     [0, SHARDTAB_PAD_HEADER)                  this rank's status and error record
 *     [HEADER, HEADER + node_size)              barrier arrivals, one slot per node rank
 *     [HEADER + node_size, ... + slots)         the user's slots 0 .. slots-1
 *     [lib_first, ...)                          the library's own collective, for the
 *                                               stream-ordered collectives (shardtab.h)
 * @{ */
/** The header's words, [0, SHARDTAB_PAD_HEADER) of every pad. */
enum {
    SHARDTAB_PAD_STATUS = 0,    /**< 0, or the SHARDTAB_WAIT_* this rank gave up with */
    SHARDTAB_PAD_ERR_SLOT = 1,  /**< pad index it waited on */
    SHARDTAB_PAD_ERR_CMP = 2,   /**< SHARDTAB_CMP_*, or an LL wait's own kind */
    SHARDTAB_PAD_ERR_WANT = 3,  /**< the value it waited for */
    SHARDTAB_PAD_ERR_SEEN = 4,  /**< the value the slot held when it gave up */
    SHARDTAB_PAD_ERR_TICKS = 5, /**< clock ticks it waited */
    SHARDTAB_PAD_ABORT = 6,     /**< 0, or 1 + node rank of a rank that gave up (written by it) */
    SHARDTAB_PAD_EPOCH = 7,     /**< barriers this rank has entered; only it writes */
    SHARDTAB_PAD_BUSY = 8,      /**< 1 while a barrier of this rank runs */
    SHARDTAB_PAD_HEADER = 16    /**< words of the header: the barrier's arrivals follow */
};
/** @} */

/** How a wait compares its slot with the value (`cmp`). */
enum {
    SHARDTAB_CMP_EQ = 0, /**< until the slot == value */
    SHARDTAB_CMP_GE = 1  /**< until the slot >= value */
};
/** What a wait returns, a barrier's and a collective's too: OK, or why not. */
enum {
    SHARDTAB_WAIT_OK = 0,         /**< done as asked */
    SHARDTAB_WAIT_TIMED_OUT = 1,  /**< this rank's wait ran out of time: recorded in its pad,
                                       every peer told to stop */
    SHARDTAB_WAIT_ABORTED = 2,    /**< a rank gave up first: the table has stopped */
    SHARDTAB_WAIT_CONCURRENT = 3, /**< a barrier, or one collective, entered twice at once */
    SHARDTAB_WAIT_MISMATCH = 4,   /**< a peer's collective call differs from this rank's */
    SHARDTAB_WAIT_CORRUPT = 5,    /**< a peer's deposit fails its checksum */
    SHARDTAB_WAIT_MISUSE = 6      /**< this rank called a collective wrongly (shardtab_comm.h) */
};

/** The handle a kernel needs, by value (shardtab_signals() fills it). */
typedef struct shardtab_signals {
    uint64_t *const *pads;  /**< device-resident [node_size]: every pad as this rank maps it */
    uint64_t *mine;         /**< this rank's own pad */
    int node_rank,          /**< this rank's index in the node */
        node_size;          /**< ranks in the node */
    int slots;              /**< user slots per pad */
    int lib_first;          /**< pad index of the library's own collective */
    uint64_t timeout_ticks; /**< a wait's time limit, in ticks of shardtab_detail_clock() */
} shardtab_signals_t;

/** @name The node's fences
 * The release and acquire of what the node's ranks exchange through their
 * pads: system scope, or device scope where the node is this rank alone
 * (node_size 1: every pad access stays on this device) and the target says
 * so (SHARDTAB_ARCH_NODE_SCOPE_BY_SIZE: its header gives the reason).
 * @{ */

/** The node's release fence: before a store that publishes to the node's ranks. */
SHARDTAB_DEVFN void shardtab_fence_release_node(const shardtab_signals_t *s)
{
    if (SHARDTAB_ARCH_NODE_SCOPE_BY_SIZE && s->node_size == 1)
        shardtab_detail_fence_release_device();
    else
        shardtab_detail_fence_release_system();
}
/** The node's acquire fence: after a load that reads what a rank of the node published. */
SHARDTAB_DEVFN void shardtab_fence_acquire_node(const shardtab_signals_t *s)
{
    if (SHARDTAB_ARCH_NODE_SCOPE_BY_SIZE && s->node_size == 1)
        shardtab_detail_fence_acquire_device();
    else
        shardtab_detail_fence_acquire_system();
}
/** @} */

/** @name Signals
 * @{ */

/** Pad index of user slot `slot`. */
SHARDTAB_DEVFN int shardtab_slot_index(const shardtab_signals_t *s, int slot)
{
    return SHARDTAB_PAD_HEADER + s->node_size + slot;
}

/** pad[slot] of node rank `peer` = value, after every earlier store of this thread
 * (and those it has observed) is visible to the peer: release, system scope. */
SHARDTAB_DEVFN void shardtab_signal_set(const shardtab_signals_t *s, int peer, int slot,
                                        uint64_t value)
{
    shardtab_detail_store_release_system(s->pads[peer] + shardtab_slot_index(s, slot), value);
}

/** pad[slot] of node rank `peer` += value, atomically; release, system scope. */
SHARDTAB_DEVFN void shardtab_signal_add(const shardtab_signals_t *s, int peer, int slot,
                                        uint64_t value)
{
    shardtab_detail_add_release_system(s->pads[peer] + shardtab_slot_index(s, slot), value);
}

/** This rank's own slot, acquire: later loads see what its writer released. */
SHARDTAB_DEVFN uint64_t shardtab_signal_read(const shardtab_signals_t *s, int slot)
{
    return shardtab_detail_load_acquire_system(s->mine + shardtab_slot_index(s, slot));
}

/** Has any rank of the node given up a wait? */
SHARDTAB_DEVFN int shardtab_aborted(const shardtab_signals_t *s)
{
    return shardtab_detail_load_relaxed_system(s->mine + SHARDTAB_PAD_ABORT) != 0;
}

/** @cond detail */
/* ---- a wait's steps (detail, not API): give up, poll, wait ------------------- */

/** Give up with `why` (a SHARDTAB_WAIT_* status): record the wait in this
 * rank's pad (the first one to give up wins), then tell every peer, and this
 * rank's own other waiters, to stop. */
SHARDTAB_DEVFN void shardtab_detail_give_up_as(const shardtab_signals_t *s, int why, int index,
                                               int cmp, uint64_t want, uint64_t seen,
                                               uint64_t ticks)
{
    if (shardtab_detail_cas_relaxed_system(s->mine + SHARDTAB_PAD_STATUS, 0, (uint64_t)why)) {
        s->mine[SHARDTAB_PAD_ERR_SLOT] = (uint64_t)index;
        s->mine[SHARDTAB_PAD_ERR_CMP] = (uint64_t)cmp;
        s->mine[SHARDTAB_PAD_ERR_WANT] = want;
        s->mine[SHARDTAB_PAD_ERR_SEEN] = seen;
        s->mine[SHARDTAB_PAD_ERR_TICKS] = ticks;
    }
    for (int q = 0; q < s->node_size; q++)
        shardtab_detail_store_release_system(s->pads[q] + SHARDTAB_PAD_ABORT,
                                             1 + (uint64_t)s->node_rank);
}

/** A wait that ran out of time. */
SHARDTAB_DEVFN void shardtab_detail_give_up(const shardtab_signals_t *s, int index, int cmp,
                                            uint64_t want, uint64_t seen, uint64_t ticks)
{
    shardtab_detail_give_up_as(s, SHARDTAB_WAIT_TIMED_OUT, index, cmp, want, seen, ticks);
}

/** Poll this rank's pad[index] until it compares to value, with relaxed loads
 * and pauses, bounded by the table's time limit; no acquire and no give-up of
 * its own, so that a caller may poll several slots, then acquire them all
 * with one fence (a relaxed load that reads a release pattern's flag, then an
 * acquire fence, synchronizes with it: the fence covers every load before it,
 * PTX "strong read then acquire fence", C11 7.17.4), and decide when to give
 * up (shardtab_detail_give_up with *seen and *waited). Returns SHARDTAB_WAIT_OK
 * (*seen: the value read), _ABORTED (another rank gave up first) or
 * _TIMED_OUT (*seen: the last value read, *waited: the ticks waited). */
SHARDTAB_DEVFN int shardtab_detail_poll_index(const shardtab_signals_t *s, int index, int cmp,
                                              uint64_t value, uint64_t *seen, uint64_t *waited)
{
    uint64_t *slot = s->mine + index, start = shardtab_detail_clock();

    for (;;) {
        *seen = shardtab_detail_load_relaxed_system(slot);
        if (cmp == SHARDTAB_CMP_GE ? *seen >= value : *seen == value)
            return SHARDTAB_WAIT_OK;
        if (shardtab_aborted(s))
            return SHARDTAB_WAIT_ABORTED;
        *waited = shardtab_detail_clock() - start;
        if (*waited > s->timeout_ticks)
            return SHARDTAB_WAIT_TIMED_OUT;
        shardtab_detail_pause();
    }
}

/** Wait until this rank's pad[index] compares to value (acquire, system scope).
 * Returns SHARDTAB_WAIT_OK, _TIMED_OUT (recorded, peers told) or _ABORTED
 * (another rank gave up first). It polls with relaxed loads and pauses, and
 * acquires once, by a fence, when the value is there: an acquire load per
 * poll would invalidate this CU's L1 on every spin on AMD (gfx90a: buffer_invl2,
 * buffer_wbinvl1_vol), under whatever else runs there. A relaxed load that
 * reads a release, then an acquire fence, synchronizes with that release.
 * (shardtab_detail_poll_index's loop, written out, and acquiring on success only:
 * as a call of it, or with one fence after the loop for every way out, the
 * jacobi kernels' hooked instantiations spill on sm_90.) */
SHARDTAB_DEVFN int shardtab_detail_wait_index(const shardtab_signals_t *s, int index, int cmp,
                                              uint64_t value)
{
    uint64_t *slot = s->mine + index, start = shardtab_detail_clock(), seen;

    for (;;) {
        seen = shardtab_detail_load_relaxed_system(slot);
        if (cmp == SHARDTAB_CMP_GE ? seen >= value : seen == value) {
            shardtab_detail_fence_acquire();
            return SHARDTAB_WAIT_OK;
        }
        if (shardtab_aborted(s))
            return SHARDTAB_WAIT_ABORTED;
        uint64_t waited = shardtab_detail_clock() - start;
        if (waited > s->timeout_ticks) {
            shardtab_detail_give_up(s, index, cmp, value, seen, waited);
            return SHARDTAB_WAIT_TIMED_OUT;
        }
        shardtab_detail_pause();
    }
}

/** @endcond */

/** Wait on a user slot of this rank's own pad. */
SHARDTAB_DEVFN int shardtab_signal_wait_until(const shardtab_signals_t *s, int slot, int cmp,
                                              uint64_t value)
{
    return shardtab_detail_wait_index(s, shardtab_slot_index(s, slot), cmp, value);
}
/** @} */

/** @name The block: every thread calls these
 * A GPU thread block, or on the host backend the calling thread alone.
 * @{ */

/** After the block's stores for node rank `peer`: pad[slot] of `peer` = value
 * once every thread's stores are visible to that peer (release, system scope,
 * for the whole block). */
SHARDTAB_DEVFN void shardtab_signal_set_block(const shardtab_signals_t *s, int peer, int slot,
                                              uint64_t value)
{
    shardtab_detail_fence_before_block_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader())
        shardtab_signal_set(s, peer, slot, value);
}
/** @} */

/** @name Barrier
 * @{ */

/** The node's barrier. One thread of each rank of the node calls it. Each
 * arrival is a growing count (this rank's barrier number) stored into a slot
 * of every peer that only this rank writes: no reset, no race with a late
 * reader. Everything each rank wrote before it (release) is visible to every
 * rank after it (acquire). One barrier at a time per rank: a second one,
 * entered while the first still runs (two streams, two blocks), would share
 * its number; it is refused instead. Returns SHARDTAB_WAIT_OK, _TIMED_OUT,
 * _ABORTED or _CONCURRENT. */
SHARDTAB_DEVFN int shardtab_barrier(const shardtab_signals_t *s)
{
    int status = SHARDTAB_WAIT_OK;

    if (!shardtab_detail_cas_relaxed_system(s->mine + SHARDTAB_PAD_BUSY, 0, 1)) {
        shardtab_detail_give_up_as(s, SHARDTAB_WAIT_CONCURRENT, SHARDTAB_PAD_BUSY, SHARDTAB_CMP_EQ,
                                   0, 1, 0);
        return SHARDTAB_WAIT_CONCURRENT;
    }
    shardtab_detail_fence_acquire(); /* the last barrier's number, released with its end */
    uint64_t epoch = s->mine[SHARDTAB_PAD_EPOCH] + 1;
    s->mine[SHARDTAB_PAD_EPOCH] = epoch;
    for (int q = 0; q < s->node_size; q++)
        if (q != s->node_rank)
            shardtab_detail_store_release_system(s->pads[q] + SHARDTAB_PAD_HEADER + s->node_rank,
                                                 epoch);
    for (int q = 0; q < s->node_size && status == SHARDTAB_WAIT_OK; q++)
        if (q != s->node_rank)
            status = shardtab_detail_wait_index(s, SHARDTAB_PAD_HEADER + q, SHARDTAB_CMP_GE, epoch);
    shardtab_detail_store_release_system(s->mine + SHARDTAB_PAD_BUSY, 0);
    return status;
}

/** The whole block calls it: every thread's stores are released (as
 * shardtab_signal_set_block), one thread joins the barrier for the block, and
 * every thread gets its status and may then read what the peers released. */
SHARDTAB_DEVFN int shardtab_barrier_block(const shardtab_signals_t *s)
{
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
    __shared__ int status;
#else
    int status = SHARDTAB_WAIT_OK;
#endif

    shardtab_detail_fence_before_block_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader())
        status = shardtab_barrier(s);
    shardtab_detail_block_sync();
    shardtab_detail_fence_acquire();
    return status;
}

/** The whole block calls it: one thread waits on this rank's pad[slot] for the
 * block; every thread gets the status, and once it is SHARDTAB_WAIT_OK may read
 * what the slot's writer released. */
SHARDTAB_DEVFN int shardtab_signal_wait_block(const shardtab_signals_t *s, int slot, int cmp,
                                              uint64_t value)
{
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
    __shared__ int status;
#else
    int status = SHARDTAB_WAIT_OK;
#endif

    shardtab_detail_block_sync(); /* status is free: every thread has read the last one */
    if (shardtab_detail_block_leader())
        status = shardtab_signal_wait_until(s, slot, cmp, value);
    shardtab_detail_block_sync();
    shardtab_detail_fence_acquire();
    return status;
}
/** @} */

#endif /* SHARDTAB_DEVICE_H */
