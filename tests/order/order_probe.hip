/* order_probe.hip - probe kernels for scripts/check-gfx90a-order.sh: one kernel
 * per operation of include/shardtab_device.h (and of include/shardtab_comm.h,
 * where it is there, of the stream-ordered collectives' one-block bodies,
 * kernels/shardtab/collective_body.h, of the temporal passes' order between
 * ranks, kernels/jacobi/jacobi_temporal.h, and of the on-chip tiles' waits,
 * kernels/jacobi/jacobi_onchip.h), each calling that operation once, compiled for gfx90a so
 * that the check can find, in each kernel's machine code, the instruction
 * sequence LLVM's AMDGPUUsage ("Memory Model GFX90A") prescribes at every
 * release and acquire the operation makes.
 *
 * The signal kernels store a payload before the operation and load one after
 * it, as a user's kernel would (the stores a release must publish, the loads
 * an acquire must order). ORDER_PROBE(name, "kinds") declares a kernel and the
 * kinds of ordering points the check must find in it at least once
 * (tests/order/order_scan.py reads them from the preprocessed source):
 * release-store, release-rmw, acquire-load, acquire-fence, seq-cst-fence,
 * release-fence, flag (a relaxed store published by the release fence before
 * it), poll (a relaxed system-scope load), block-release, block-acquire, and
 * at device (agent) scope release-store-device, acquire-rmw-device,
 * acquire-fence-device, release-fence-device, flag-device, poll-device. Every
 * point found is checked, expected or not. Adding a probe is adding one such
 * kernel.
 *
 * -DSHARDTAB_ORDER_PLANT=<name> plants a missing fence, for the check's
 * self-test: the header is compiled as it is, but one builtin it calls is
 * weakened here by a macro of the same name, so that the weakened operation
 * keeps its place (and its debug location) in the code and the check must
 * report its sequence as missing. The header itself is not touched. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <hip/hip_runtime.h> /* first: the plants below must not reach HIP's own headers */

#if defined(SHARDTAB_ORDER_PLANT)
/* Each name stands for a number, so that #if can tell which one was given. */
#  define ORDER_PLANT_store_relaxed 1  /* release stores become relaxed */
#  define ORDER_PLANT_add_relaxed 2    /* the release fetch_add becomes relaxed */
#  define ORDER_PLANT_load_relaxed 3   /* the acquire load becomes relaxed */
#  define ORDER_PLANT_poll_workgroup 4 /* relaxed system loads become workgroup scope */
#  define ORDER_PLANT_acquire_fence_agent                                                          \
    5                                         /* acquire fences become agent scope (the
                                               collective's one acquire after its polls too) */
#  define ORDER_PLANT_acquire_fence_none 6    /* acquire fences are left out */
#  define ORDER_PLANT_block_fence_workgroup 7 /* the seq_cst fence becomes workgroup scope */
#  define ORDER_PLANT_block_fence_none 8      /* the seq_cst fence is left out */
#  define ORDER_PLANT_release_fence_agent                                                          \
    9                                       /* release fences become agent scope (the
                                               collective's one release before its flags) */
#  define ORDER_PLANT_release_fence_none 10 /* release fences are left out */
#  define ORDER_PLANT_ll_store_split 11     /* relaxed 8-byte stores become two 4-byte ones */
#  define ORDER_PLANT_ID2(name) ORDER_PLANT_##name
#  define ORDER_PLANT_ID(name) ORDER_PLANT_ID2(name)
#  define ORDER_PLANT ORDER_PLANT_ID(SHARDTAB_ORDER_PLANT)

#  if ORDER_PLANT == ORDER_PLANT_store_relaxed
#    define __hip_atomic_store(p, v, order, scope) __hip_atomic_store(p, v, __ATOMIC_RELAXED, scope)
#  elif ORDER_PLANT == ORDER_PLANT_add_relaxed
#    define __hip_atomic_fetch_add(p, v, order, scope)                                             \
      __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, scope)
#  elif ORDER_PLANT == ORDER_PLANT_load_relaxed
#    define __hip_atomic_load(p, order, scope) __hip_atomic_load(p, __ATOMIC_RELAXED, scope)
#  elif ORDER_PLANT == ORDER_PLANT_poll_workgroup
/* by the order's name (## keeps it unexpanded): only the relaxed loads change */
#    define __hip_atomic_load(p, order, scope) __hip_atomic_load(p, order, ORDER_LOAD_SCOPE_##order)
#    define ORDER_LOAD_SCOPE___ATOMIC_RELAXED __HIP_MEMORY_SCOPE_WORKGROUP
#    define ORDER_LOAD_SCOPE___ATOMIC_ACQUIRE __HIP_MEMORY_SCOPE_SYSTEM
#  elif ORDER_PLANT >= ORDER_PLANT_acquire_fence_agent &&                                          \
      ORDER_PLANT <= ORDER_PLANT_release_fence_none
/* a fence goes through ORDER_FENCE_<its order's name>(order, scope) */
#    define __builtin_amdgcn_fence(order, scope) ORDER_FENCE_##order(order, scope)
#    if ORDER_PLANT == ORDER_PLANT_acquire_fence_agent
#      define ORDER_FENCE___ATOMIC_ACQUIRE(order, scope) __builtin_amdgcn_fence(order, "agent")
#    else
#      define ORDER_FENCE___ATOMIC_ACQUIRE(order, scope) __builtin_amdgcn_fence(order, scope)
#    endif
#    if ORDER_PLANT == ORDER_PLANT_acquire_fence_none
#      undef ORDER_FENCE___ATOMIC_ACQUIRE
#      define ORDER_FENCE___ATOMIC_ACQUIRE(order, scope) ((void)0)
#    endif
#    if ORDER_PLANT == ORDER_PLANT_block_fence_workgroup
#      define ORDER_FENCE___ATOMIC_SEQ_CST(order, scope) __builtin_amdgcn_fence(order, "workgroup")
#    elif ORDER_PLANT == ORDER_PLANT_block_fence_none
#      define ORDER_FENCE___ATOMIC_SEQ_CST(order, scope) ((void)0)
#    else
#      define ORDER_FENCE___ATOMIC_SEQ_CST(order, scope) __builtin_amdgcn_fence(order, scope)
#    endif
#    if ORDER_PLANT == ORDER_PLANT_release_fence_agent
#      define ORDER_FENCE___ATOMIC_RELEASE(order, scope) __builtin_amdgcn_fence(order, "agent")
#    elif ORDER_PLANT == ORDER_PLANT_release_fence_none
#      define ORDER_FENCE___ATOMIC_RELEASE(order, scope) ((void)0)
#    else
#      define ORDER_FENCE___ATOMIC_RELEASE(order, scope) __builtin_amdgcn_fence(order, scope)
#    endif
#  elif ORDER_PLANT == ORDER_PLANT_ll_store_split
/* by the order's name, as above: an LL word's payload and epoch then land
 * apart, and a reader may see the epoch with a stale payload */
#    define __hip_atomic_store(p, v, order, scope) ORDER_STORE_##order(p, v, order, scope)
#    define ORDER_STORE___ATOMIC_RELEASE(p, v, order, scope) __hip_atomic_store(p, v, order, scope)
#    define ORDER_STORE___ATOMIC_RELAXED(p, v, order, scope)                                       \
      (sizeof(*(p)) == 8                                                                           \
           ? (__hip_atomic_store((uint32_t *)(p), (uint32_t)(uint64_t)(v), order, scope),          \
              __hip_atomic_store((uint32_t *)(p) + 1, (uint32_t)((uint64_t)(v) >> 32), order,      \
                                 scope))                                                           \
           : __hip_atomic_store(p, v, order, scope))
#  else
#    error "SHARDTAB_ORDER_PLANT: unknown plant (see the list in tests/order/order_probe.hip)"
#  endif
#endif /* SHARDTAB_ORDER_PLANT */

#include "shardtab_device.h"
#if __has_include("shardtab_comm.h")
#  include "shardtab_comm.h"
#  define ORDER_PROBE_COMM 1
#endif

/* The kinds also go into the preprocessed source, which is what the check
 * reads (so a probe left out by #if is not expected). */
#define ORDER_PROBE(name, kinds)                                                                   \
  static_assert(1, "ORDER_PROBE " #name ": " kinds);                                               \
  extern "C" __global__ void name

/* A peer's slot = value, after this thread's stores (release, system scope). */
ORDER_PROBE(probe_signal_set, "release-store")
(shardtab_signals_t sig, double *data, int peer, uint64_t value)
{
    data[threadIdx.x] = (double)value;
    shardtab_signal_set(&sig, peer, 0, value);
}

/* A peer's slot += value (atomicrmw release, system scope). */
ORDER_PROBE(probe_signal_add, "release-rmw")
(shardtab_signals_t sig, double *data, int peer, uint64_t value)
{
    data[threadIdx.x] = (double)value;
    shardtab_signal_add(&sig, peer, 0, value);
}

/* This rank's slot, read with an acquire load (system scope). */
ORDER_PROBE(probe_signal_read, "acquire-load")
(shardtab_signals_t sig, const double *data, double *out)
{
    uint64_t seen = shardtab_signal_read(&sig, 0);
    out[threadIdx.x] = data[threadIdx.x] + (double)seen;
}

/* Relaxed polling alone: bounded, no acquire, no give-up (its callers'). */
ORDER_PROBE(probe_poll, "poll")
(shardtab_signals_t sig, uint64_t value, uint64_t *out)
{
    uint64_t seen = 0, waited = 0;
    int status = shardtab_detail_poll_index(&sig, shardtab_slot_index(&sig, 0), SHARDTAB_CMP_GE,
                                            value, &seen, &waited);
    out[threadIdx.x] = (uint64_t)status + seen + waited;
}

/* Relaxed polling, then one acquire fence; a give-up releases the abort to
 * every peer. */
ORDER_PROBE(probe_wait, "poll, acquire-fence, release-store")
(shardtab_signals_t sig, const double *data, uint64_t value, double *out)
{
    int status = shardtab_signal_wait_until(&sig, 0, SHARDTAB_CMP_GE, value);
    out[threadIdx.x] = status == SHARDTAB_WAIT_OK ? data[threadIdx.x] : -1.0;
}

/* Every wave releases its stores (seq_cst fence, system scope) before the
 * block's barrier; then the leader's release store. */
ORDER_PROBE(probe_signal_set_block, "seq-cst-fence, block-release, release-store")
(shardtab_signals_t sig, double *data, int peer, uint64_t value)
{
    data[threadIdx.x] = (double)value;
    shardtab_signal_set_block(&sig, peer, 0, value);
}

/* One thread's barrier: releases its arrival to every peer, acquires theirs. */
ORDER_PROBE(probe_barrier, "release-store, poll, acquire-fence")
(shardtab_signals_t sig, double *data, double *out)
{
    data[threadIdx.x] = 1.0;
    int status = shardtab_barrier(&sig);
    out[threadIdx.x] = status == SHARDTAB_WAIT_OK ? data[threadIdx.x + blockDim.x] : -1.0;
}

/* The block's barrier: the seq_cst fence and the block's barrier before the
 * leader's, an acquire fence for every thread after it. */
ORDER_PROBE(probe_barrier_block,
            "seq-cst-fence, block-release, release-store, poll, acquire-fence, block-acquire")
(shardtab_signals_t sig, double *data, double *out)
{
    data[threadIdx.x] = 1.0;
    int status = shardtab_barrier_block(&sig);
    out[threadIdx.x] = status == SHARDTAB_WAIT_OK ? data[threadIdx.x + blockDim.x] : -1.0;
}

/* One thread waits for the block, then every thread acquires. */
ORDER_PROBE(probe_signal_wait_block, "poll, acquire-fence, block-acquire")
(shardtab_signals_t sig, const double *data, uint64_t value, double *out)
{
    int status = shardtab_signal_wait_block(&sig, 0, SHARDTAB_CMP_GE, value);
    out[threadIdx.x] = status == SHARDTAB_WAIT_OK ? data[threadIdx.x] : -1.0;
}

/* Device scope (a rank's own words): a release fence, then flags; a relaxed
 * load, then an acquire fence; a claim (a CAS that acquires) and its end (a
 * release store). */
ORDER_PROBE(probe_device_release, "release-fence-device, flag-device")
(double *data, uint64_t *flag, uint64_t value)
{
    data[threadIdx.x] = (double)value;
    shardtab_detail_fence_release_device();
    shardtab_detail_flag_relaxed_device(flag, value);
    shardtab_detail_flag_relaxed_device(flag + 1, value);
}

ORDER_PROBE(probe_device_acquire, "poll-device, acquire-fence-device")
(const double *data, uint64_t *flag, double *out)
{
    uint64_t seen = shardtab_detail_load_relaxed_device(flag);
    shardtab_detail_fence_acquire_device();
    out[threadIdx.x] = data[threadIdx.x] + (double)seen;
}

ORDER_PROBE(probe_device_claim, "acquire-rmw-device, poll-device, release-store-device")
(uint64_t *word, double *data, double *out)
{
    if (shardtab_detail_cas_acquire_device(word, 0, 1)) {
        out[threadIdx.x] =
            data[threadIdx.x] + (double)shardtab_detail_load_relaxed_device(word + 1);
        data[threadIdx.x] = 1.0;
        shardtab_detail_store_relaxed_device(word + 1, 2);
        shardtab_detail_store_release_device(word, 0);
    }
}

#if defined(ORDER_PROBE_COMM)
/* ---- include/shardtab_comm.h and the steps below its calls
 * (include/shardtab/comm_detail.h): one kernel per function that moves or
 * orders memory. (The pure helpers - shardtab_coll, shardtab_detail_coll_deposit,
 * shardtab_detail_value_word/_store/_combine, shardtab_detail_coll_call, shardtab_detail_coll_hash,
 * shardtab_detail_coll_deposits - neither access the pads nor order anything, and are
 * checked inside the probes below; the library's shardtab_lib_coll,
 * kernels/shardtab/collective_body.h, is one more such helper.)
 * Every argument that picks a path is a kernel argument, so that every path is
 * in the code. */

/* Copies, no ordering (none expected). */
ORDER_PROBE(probe_copy_block, "")
(void *dst, const void *src, size_t bytes)
{
    shardtab_copy_block(dst, src, bytes);
}

ORDER_PROBE(probe_put_block, "")
(void *const *table, int peer, size_t offset, const void *src, size_t bytes)
{
    shardtab_put_block(table, peer, offset, src, bytes);
}

/* A copy from a peer, then the block's barrier (workgroup scope only). */
ORDER_PROBE(probe_get_block, "")
(void *dst, void *const *table, int peer, size_t offset, size_t bytes)
{
    shardtab_get_block(dst, table, peer, offset, bytes);
}

/* Put, every wave's stores released (seq_cst fence, barrier), then the
 * leader's signal: a release store or a release fetch_add. */
ORDER_PROBE(probe_put_signal_block, "seq-cst-fence, block-release, release-store, release-rmw")
(shardtab_signals_t sig, void *const *table, int peer, size_t offset, const void *src, size_t bytes,
 int slot, uint64_t value, int signal_op)
{
    shardtab_put_signal_block(&sig, table, peer, offset, src, bytes, slot, value, signal_op);
}

/* The block counts itself between seq_cst fences; the last one signals. */
ORDER_PROBE(probe_signal_after_blocks, "seq-cst-fence, block-release, release-store")
(shardtab_signals_t sig, double *data, uint64_t *arrived, uint64_t blocks, int peer, uint64_t value,
 int *last)
{
    data[threadIdx.x] = (double)value;
    last[threadIdx.x] = shardtab_signal_after_blocks(&sig, arrived, blocks, peer, 0, value);
}

/* The leader's claim of a collective: one relaxed fetch_or of its state word
 * at device scope (the counts come back in it) with the abort word read in
 * the same round trip; a refusal ends the claim with a relaxed store and
 * releases the abort to every peer at system scope. Its end: one relaxed
 * store. The drain's read of the calls in flight: one relaxed load. */
ORDER_PROBE(probe_coll_enter, "poll, claim-device, release-store")
(shardtab_signals_t sig, int values, int kind, int op, int type, int root, int count, int finish,
 uint64_t *epoch, uint64_t *state)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    (void)shardtab_detail_coll_enter(&sig, &c, kind, op, type, root, count, finish, epoch, state);
}

ORDER_PROBE(probe_coll_leave, "")
(shardtab_signals_t sig, double *data, int values, int finish, uint64_t state)
{
    data[threadIdx.x] = 1.0;
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    shardtab_detail_coll_leave(&sig, &c, finish, state);
}

ORDER_PROBE(probe_coll_pending, "poll-device")
(shardtab_signals_t sig, int values, uint64_t *out)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    out[threadIdx.x] = shardtab_detail_coll_pending(&sig, &c);
}

/* One thread's wait for one rank's deposit: its LL words loaded eight at a
 * time (one 8-byte load each), with the abort word; no acquire (the words
 * carry their epoch). */
ORDER_PROBE(probe_coll_take, "ll-load, poll")
(shardtab_signals_t sig, int values, uint64_t epoch, int rank, uint64_t call, int kind, int root,
 int count, uint64_t *stash, int *out)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    shardtab_coll_fault_t f;
    out[threadIdx.x] =
        shardtab_detail_coll_take(&sig, &c, epoch, rank, call, kind, root, count, stash, &f) +
        (int)f.why;
}

/* A deposit: the claim, every thread's LL words into every peer (one 8-byte
 * store each), the leader's call and checksum words, the claim's end. */
ORDER_PROBE(probe_coll_start_block, "poll, claim-device, ll-store, release-store")
(shardtab_signals_t sig, int values, int kind, int op, int type, int root, const void *in,
 int count, int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    status[threadIdx.x] = shardtab_coll_start_block(&sig, &c, kind, op, type, root, in, count);
}

/* The ordered deposit (the library's stream-ordered calls): each storing
 * thread's release fence at system scope, then its LL words after it, with
 * no other store between. */
ORDER_PROBE(probe_coll_deposit_ordered,
            "poll, claim-device, release-fence, ll-store, release-store")
(shardtab_signals_t sig, int values, int kind, int op, int type, int root, const void *in,
 int count, int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    status[threadIdx.x] =
        shardtab_detail_coll_deposit_block(&sig, &c, kind, op, type, root, in, count, 1);
}

/* Wait for every deposit (a thread per rank, each rank's words at once),
 * the first failing rank's record, the combine; every LL load done before
 * the block's barriers. */
ORDER_PROBE(probe_coll_finish_block, "poll, claim-device, ll-load, release-store")
(shardtab_signals_t sig, int values, int kind, int op, int type, int root, void *out, int count,
 int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    status[threadIdx.x] = shardtab_coll_finish_block(&sig, &c, kind, op, type, root, out, count);
}

/* The ordered finish: each waiting thread's acquire fence after its ranks'
 * words, every thread's after the barrier. */
ORDER_PROBE(probe_coll_gather_ordered, "poll, claim-device, ll-load, acquire-fence, release-store")
(shardtab_signals_t sig, int values, int kind, int op, int type, int root, void *out, int count,
 int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    status[threadIdx.x] =
        shardtab_detail_coll_gather_block(&sig, &c, kind, op, type, root, out, count, 1);
}

ORDER_PROBE(probe_all_reduce_block, "poll, claim-device, ll-store, ll-load, release-store")
(shardtab_signals_t sig, int values, int op, int type, const void *in, void *out, int count,
 int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    status[threadIdx.x] = shardtab_all_reduce_block(&sig, &c, op, type, in, out, count);
}

/* Calls back to back, as a solver makes them: a call's LL loads are done
 * before the next call's LL stores (the loop's back edge), on which the
 * peers' reuse of their buffers rests. */
ORDER_PROBE(probe_all_reduce_loop, "poll, claim-device, ll-store, ll-load, release-store")
(shardtab_signals_t sig, int values, int op, int type, const void *in, void *out, int count,
 int calls, int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    int st = SHARDTAB_WAIT_OK;
    for (int k = 0; k < calls && st == SHARDTAB_WAIT_OK; k++)
        st = shardtab_all_reduce_block(&sig, &c, op, type, in, out, count);
    status[threadIdx.x] = st;
}

/* A block's hold of a collective: the claim alone (one relaxed fetch_or at
 * device scope, the abort word read in the same round trip; a refusal
 * releases the abort to every peer); its release, one relaxed store. */
ORDER_PROBE(probe_coll_hold_block, "poll, claim-device, release-store")
(shardtab_signals_t sig, int values, int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    status[threadIdx.x] = shardtab_coll_hold_block(&sig, &c);
    shardtab_coll_release_block(&sig, &c);
}

/* Held calls back to back: the hold's claim before the loop and none in it;
 * each call's LL loads done before the next call's LL stores, as unheld. */
ORDER_PROBE(probe_all_reduce_held_loop, "poll, claim-device, ll-store, ll-load, release-store")
(shardtab_signals_t sig, int values, int op, int type, const void *in, void *out, int count,
 int calls, int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    int st = shardtab_coll_hold_block(&sig, &c);
    for (int k = 0; k < calls && st == SHARDTAB_WAIT_OK; k++)
        st = shardtab_all_reduce_block(&sig, &c, op, type, in, out, count);
    shardtab_coll_release_block(&sig, &c);
    status[threadIdx.x] = st;
}

ORDER_PROBE(probe_broadcast_block, "poll, claim-device, ll-store, ll-load, release-store")
(shardtab_signals_t sig, int values, int root, int type, const void *in, void *out, int count,
 int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    status[threadIdx.x] = shardtab_broadcast_block(&sig, &c, root, type, in, out, count);
}

ORDER_PROBE(probe_all_gather_block, "poll, claim-device, ll-store, ll-load, release-store")
(shardtab_signals_t sig, int values, int type, const void *in, void *out, int count, int *status)
{
    shardtab_coll_t c = shardtab_coll(&sig, 0, values);
    status[threadIdx.x] = shardtab_all_gather_block(&sig, &c, type, in, out, count);
}
/* LL puts: every thread's words, one 8-byte store each, no fence; the
 * buffer zeroed the same way. */
ORDER_PROBE(probe_put_ll_block, "ll-store")
(void *const *table, int peer, size_t offset, const void *src, size_t bytes, uint32_t flag)
{
    shardtab_put_ll_block(table, peer, offset, src, bytes, flag);
}

ORDER_PROBE(probe_ll_clear_block, "ll-store")
(void *buffer, size_t bytes)
{
    shardtab_ll_clear_block(buffer, bytes);
}

/* One thread's wait for its words of an LL buffer, eight in flight at once
 * (one 8-byte load each), with the abort word; a give-up releases the abort
 * to every peer. No acquire: each word carries its flag. */
ORDER_PROBE(probe_ll_take, "ll-load, poll, release-store")
(shardtab_signals_t sig, uint64_t *words, size_t n, size_t first, size_t stride, uint32_t flag,
 uint32_t *out, int *status)
{
    status[threadIdx.x] = shardtab_detail_ll_take(&sig, words, n, first, stride, flag, out);
}

/* The block's wait: every LL load done before its barriers (the last one
 * lets every thread read dst); a refused call records its misuse. */
ORDER_PROBE(probe_wait_ll_block, "ll-load, poll, release-store")
(shardtab_signals_t sig, const void *buffer, void *dst, size_t bytes, uint32_t flag, int *status)
{
    status[threadIdx.x] = shardtab_wait_ll_block(&sig, buffer, dst, bytes, flag);
}

/* A ping-pong as coll_bench's: put, then wait for the reply, round after
 * round: a round's LL loads are done before the next round's LL stores
 * (the loop's back edge), on which the writer's reuse of the buffer rests. */
ORDER_PROBE(probe_ll_pingpong, "ll-store, ll-load, poll, release-store")
(shardtab_signals_t sig, void *const *table, int peer, size_t offset, const void *src, void *dst,
 size_t bytes, int rounds, int *status)
{
    int st = SHARDTAB_WAIT_OK;
    for (int r = 0; r < rounds && st == SHARDTAB_WAIT_OK; r++) {
        shardtab_put_ll_block(table, peer, offset, src, bytes, (uint32_t)r + 1);
        st = shardtab_wait_ll_block(&sig, (char *)table[sig.node_rank] + offset, dst, bytes,
                                    (uint32_t)r + 1);
    }
    status[threadIdx.x] = st;
}

#  if __has_include("collective_body.h")
#    include "collective_body.h"
/* ---- kernels/shardtab/collective_body.h: the bodies of the stream-ordered
 * collectives' one-block kernels (kernels/shardtab/collective_gpu.hip), each
 * over the library's collective (shardtab_lib_coll), held for the kernel: the
 * phase is a kernel argument, so every path it picks is in the code. */

/* ST_PHASE_SYNC: the hold's claim; the ordered deposit (each storing thread's
 * release fence at system scope, its LL words after it with no other store
 * between); the ordered gather (each waiting thread's acquire fence after its
 * ranks' words, every thread's after the barrier); a refusal's record; the
 * hold's end, one relaxed store. */
ORDER_PROBE(probe_st_body_sync_block,
            "poll, claim-device, release-fence, ll-store, ll-load, acquire-fence, release-store")
(st_coll_phase_t p, int *status)
{
    status[threadIdx.x] = st_body_sync_block(&p);
}

/* ST_PHASE_LL: one held, unordered sync whose LL words carry the region's
 * bytes (no fence either side); the leader's plain stores of the result into
 * its own region after the hold's end. */
ORDER_PROBE(probe_st_body_ll, "poll, claim-device, ll-store, ll-load, release-store")
(st_coll_phase_t p, int *status)
{
    status[threadIdx.x] = st_body_ll(&p);
}

/* ST_PHASE_ONE_BLOCK: the ordered sync as above, the reduce through the
 * table into the scratch buffer, the block's barrier, the unordered sync (no
 * fence: its LL words follow the scratch stores; each LL load done before the
 * next barrier, as in the held loop), the copy back. */
ORDER_PROBE(probe_st_body_one_block,
            "poll, claim-device, release-fence, ll-store, ll-load, acquire-fence, release-store")
(st_coll_phase_t p, int *status)
{
    status[threadIdx.x] = st_body_one_block(&p, threadIdx.x, blockDim.x);
}

#    include "halo_body.h"
/* ST_PHASE_HALO_PUSH (kernels/shardtab/halo_body.h): a pushed exchange, as
 * LL words the cells out, the inbox's words polled (each load done before
 * the closing barrier): no fence, no acquire; or by put (its own probes,
 * probe_halo_put_block and probe_halo_put_grid). */
ORDER_PROBE(probe_st_body_halo_push, "poll, ll-store, ll-load")
(st_coll_phase_t p, int *status)
{
    status[threadIdx.x] = st_body_halo_push(&p, blockIdx.x);
}
#  endif /* collective_body.h */

#  include "shardtab_halo_device.h"
/* The exchange pushed by put (shardtab_halo_device.h): the cells into the
 * neighbours' inboxes, every wave's release (a seq_cst fence) and the
 * block's barrier, each flag's release store; each of its own flags polled,
 * one acquire fence, the block's barrier, every wave's acquire, then the
 * inbox's cells into the ghost cells. */
ORDER_PROBE(probe_halo_put_block,
            "seq-cst-fence, block-release, release-store, poll, acquire-fence, block-acquire")
(shardtab_signals_t sig, shardtab_halo_device_t halo, int *status)
{
    status[threadIdx.x] = shardtab_detail_halo_put_block(&sig, &halo);
}

/* The same shared by a grid (shardtab_halo_exchange_blocks; the stream's
 * kernel above 64 KiB runs the same send and take, a block a slice): each
 * block's slices of the cells out, every wave's release and the block's
 * barrier, the slices' flags (release stores); then the block's take of its
 * slices, as above; any other form, block 0's shardtab_halo_exchange_block. */
ORDER_PROBE(probe_halo_put_grid,
            "seq-cst-fence, block-release, release-store, poll, acquire-fence, block-acquire")
(shardtab_signals_t sig, shardtab_halo_device_t halo, int *status)
{
    status[threadIdx.x] =
        shardtab_halo_exchange_blocks(&sig, &halo, (int)blockIdx.x, (int)gridDim.x);
}
/* shardtab_halo_exchange_block: pushed, as the probe above; pulled, the
 * block's barrier (this rank's stores released, the neighbours' acquired),
 * the pieces, and the barrier again (its release after every thread's ghost
 * stores and loads). */
ORDER_PROBE(probe_halo_exchange_block,
            "seq-cst-fence, block-release, release-store, poll, acquire-fence, block-acquire")
(shardtab_signals_t sig, shardtab_halo_device_t halo, int *status)
{
    status[threadIdx.x] = shardtab_halo_exchange_block(&sig, &halo);
}

#endif /* ORDER_PROBE_COMM */

#if defined(ORDER_PROBE_COMM) && __has_include("jacobi_temporal.h")
#  include "jacobi_onchip.h" /* the on-chip tiles' LL words and their waits */
#  include "jacobi_temporal.h"
/* ---- kernels/jacobi/jacobi_temporal.h: the temporal passes between ranks, in the
 * order jacobi_temporal_pass_tiles (kernels/jacobi/jacobi_temporal.hip) runs them,
 * with the same functions (the tile's stream left out: its one barrier a step
 * orders its block's shared memory alone). */

/* A pass's start: a tile that meets a neighbour waits for that neighbour's
 * pass before (the leader's relaxed polls, one acquire fence; every thread
 * acquires after the barrier), then loads the neighbour's rows from its deep
 * ghost rows. */
ORDER_PROBE(probe_temporal_wait, "poll, acquire-fence, block-acquire")
(jacobi_step_t s, jacobi_pass_t pass, jacobi_tile_t g, float *out)
{
    if (jacobi_temporal_wait(&s, pass, &g, (uint64_t *)0))
        out[threadIdx.x] = s.deep[pass.k0 & 1][threadIdx.x];
}

/* A pass's end: the tile's rows into a neighbour's deep ghost rows; every
 * wave's release and the block's barrier; the leader's ticket (a seq_cst
 * fence before it, or a device-scope release fence for a tile that met no
 * neighbour); the last block's device-scope acquire; its leader tells the
 * neighbours (a seq_cst fence, then a release store to each). */
ORDER_PROBE(
    probe_temporal_pass_end,
    "seq-cst-fence, block-release, release-fence-device, acquire-fence-device, release-store")
(jacobi_step_t s, jacobi_pass_t pass, float *peer_rows, uint64_t arrivals, int to_peers, int *out)
{
    __shared__ int last;
    peer_rows[threadIdx.x] = (float)threadIdx.x;
    if (to_peers)
        jacobi_temporal_release_block();
    if (threadIdx.x == 0)
        last = jacobi_temporal_ticket(&s, arrivals, to_peers);
    __syncthreads();
    if (!last)
        return;
    shardtab_detail_fence_acquire_device();
    if (threadIdx.x == 0)
        jacobi_temporal_signal(&s, pass);
    out[threadIdx.x] = last;
}

/* ---- kernels/jacobi/jacobi_onchip.h: the on-chip tiles' LL words, the
 * library's (shardtab_detail_ll_store, shardtab_detail_ll_load: each 8-byte word carries its
 * value and its time, so that nothing else need be ordered behind it), a
 * tile's and a rank's edge alike: what their correctness needs of the machine
 * code is that every word is one 8-byte access and every poll bypasses the
 * CU's L1 (glc); the give-up's abort is a release store to every node peer. */

/* A tile's wait for its neighbour's edge words of a time, a tile's or a
 * rank's (the slow checks every few polls: stop_at and the failure at device
 * scope, the peers' aborts at system scope). */
ORDER_PROBE(probe_onchip_ll_wait, "ll-load, poll-device, poll, release-store")
(jacobi_step_t s, const uint64_t *w, int n, uint64_t time, uint64_t k, uint32_t *bits, int *out)
{
    out[threadIdx.x] = jacobi_ll_wait(&s, w, n, time, bits, k, JACOBI_WAIT_RANK_ABOVE);
}

/* A tile's wait for the decision of k - 1's close (ctl->decided). */
ORDER_PROBE(probe_onchip_may_run, "poll-device, poll, release-store")
(jacobi_step_t s, uint64_t base, uint64_t k0, uint64_t k, int *out)
{
    out[threadIdx.x] = jacobi_onchip_may_run(&s, base, k0, k);
}
#endif /* jacobi_temporal.h */

#if defined(ORDER_PROBE_COMM)
#  include "cg_body.h"
/* ---- kernels/cg/cg_body.h (cg_meet.h): the cg solve's meetings of the grid and its
 * stream phases' last block, at device scope (the node's system scope is
 * the library's barrier and collective, probed above). */

/* A rank alone on its node meets as a grid barrier: every wave's release,
 * the block's barrier, the leader's release fence and its arrival; its wait
 * for every block's arrival (relaxed device loads, one acquire fence), every
 * wave's acquire. */
ORDER_PROBE(probe_cg_meet_solo, "release-fence-device, poll-device, acquire-fence-device")
(cg_args_t g, double *rows, uint64_t n, double *out)
{
    __shared__ cg_state_t st;
    rows[threadIdx.x] = (double)n;
    cg_arrive(&g);
    cg_await_all(&g, &st, n);
    out[threadIdx.x] = rows[threadIdx.x + 1];
}

/* A block other than 0 at a meeting with peers on the node: its arrival as
 * above; then its wait for block 0's outcome (relaxed device loads, one
 * acquire fence, the outcome's values read after it), every wave's acquire. */
ORDER_PROBE(probe_cg_meet_other, "release-fence-device, poll-device, acquire-fence-device")
(cg_args_t g, double *rows, uint64_t n, double *out)
{
    __shared__ cg_state_t st;
    double v[2];
    rows[threadIdx.x] = (double)n;
    cg_arrive(&g);
    cg_await_published(&g, &st, n, v, 2);
    out[threadIdx.x] = rows[threadIdx.x + 1] + v[1];
}

/* Block 0 at a meeting with peers: its arrival, its wait for every block's,
 * the acquire; its work; then every wave's release and the leader's fence
 * and flag, the outcome's values before them. */
ORDER_PROBE(probe_cg_meet_zero, "release-fence-device, poll-device, acquire-fence-device, "
                                "flag-device")
(cg_args_t g, double *rows, uint64_t n, double *out)
{
    __shared__ cg_state_t st;
    const double v[2] = {1.0, (double)n};
    cg_arrive(&g);
    cg_await_all(&g, &st, n);
    out[threadIdx.x] = rows[threadIdx.x];
    rows[threadIdx.x + 1] = (double)n;
    cg_publish(&g, n, v, 2, 0);
}

/* A stream phase's end: every wave's release, the leader's release fence and
 * ticket; the last block's acquire fence, every wave's acquire. */
ORDER_PROBE(probe_cg_last_block, "release-fence-device, acquire-fence-device")
(cg_args_t g, double *rows, double *out)
{
    rows[threadIdx.x] = 1.0;
    if (cg_last_block(&g))
        out[threadIdx.x] = rows[threadIdx.x + 1];
}
#endif /* cg_body.h */
