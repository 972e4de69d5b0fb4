/* shardtab_comm.h - communication between the ranks of a node, for the code that
 * runs on the device: put and get through the table, put with signal, and
 * all-reduce, broadcast and all-gather of a few values through the signal pads.
 * One body for HIP (AMD), the same source as CUDA (NVIDIA) and the host
 * backend's C, written over the primitives of shardtab_device.h, so that the
 * host backend's tests run the code the GPUs run.
 *
 * Every function here is called by every thread of a block (on the host
 * backend: by the calling thread, the block of one) and names, at each atomic,
 * its order and scope: stores into a peer are released at system scope after
 * every thread's stores (shardtab_fence_before_block_release, then the block's
 * barrier, then one release), and reads of what a peer deposited follow a
 * system-scope acquire.
 *
 * ---- Put and get ------------------------------------------------------------
 * shardtab_put_block copies bytes into node rank `peer`'s shard through the
 * table (16-byte accesses when both sides and the size allow);
 * shardtab_put_signal_block then sets or adds a signal slot of that peer,
 * released only once every thread's stores are visible there (NVSHMEM's
 * putmem_signal_block). shardtab_signal_after_blocks is the same release for
 * stores made by several blocks (the last block to arrive signals).
 *
 * ---- A few values: all-reduce, broadcast, all-gather --------------------------
 * A collective is a range of user slots (shardtab_coll): SHARDTAB_COLL_SLOTS
 * (node_size, values) of them, the same on every rank. Each call deposits this
 * rank's values, with an epoch and a descriptor of the call, into every node
 * peer's pad (the rank's own included), waits for every rank's deposit of the
 * same epoch, checks it, and combines in node-rank order:
 *
 *     result = v[0] op v[1] op ... op v[node_size - 1]
 *
 * so every rank gets the same bits, every time, for every type (sums of floats
 * included). NCCL promises neither: its all-reduce may sum in another order on
 * each rank and each run, by algorithm and size.
 *
 * The epoch is the collective's own count of calls, kept in this rank's pad: the
 * calls must come in the same order on every rank, as MPI's collectives. A call
 * may be split in two (shardtab_coll_start_block deposits, ..._finish_block
 * waits and combines: work can go on in between, as jacobi's sweep does while
 * the norm travels), and two may be in flight at once; a third start before the
 * oldest finish is refused. Deposits live in a ring of SHARDTAB_COLL_DEPTH
 * buffers per rank: a rank starts epoch e only once it has finished e - 2,
 * which needed every peer to start e - 2, which each did only once it had
 * finished e - 4, the last reader of the buffer e reuses.
 *
 * ---- The ordering of a call, and what it costs -----------------------------------
 * A start: every thread stores its values (relaxed atomics, system scope) into
 * its deposit in every node peer's pad; the block's barrier (after every
 * wave's own release where the target needs it:
 * shardtab_fence_before_block_release); the leader stores the descriptors
 * (relaxed) and this rank's count STARTED, then ONE release fence at system
 * scope, then, each a relaxed store, the epoch word into every peer's deposit
 * and BUSY = 0. A finish: the leader polls every rank's epoch word with
 * relaxed loads (shardtab_poll_index), then ONE acquire fence at system
 * scope, then checks every deposit; the block's barrier (every wave's own
 * acquire after it where the target needs it:
 * shardtab_fence_after_block_acquire); every thread reads and combines; the
 * block's barrier; the leader's FINISHED and BUSY = 0 (release).
 *
 * Why one release fence covers every peer's epoch word: a release fence F,
 * then relaxed atomic stores X_1 .. X_n to different words; a peer's relaxed
 * load that reads X_q, then that peer's acquire fence G, makes F synchronize
 * with G (C11 7.17.4, C++ [atomics.fences]: the fence-fence rule asks for
 * one atomic object per pair, any number of pairs may share F). So whatever
 * happens before F - this thread's stores, and through the barrier every
 * other thread's - happens before whatever follows G, on every peer. And
 * why one acquire fence after polls of several words is enough: each poll
 * that saw its rank's epoch read a store that follows that rank's release
 * fence F_r, and the loads all precede the one acquire fence G: by the same
 * rule G synchronizes with every F_r at once.
 *   NVIDIA (PTX ISA, memory consistency model): "fence; st.relaxed [M]" is
 * a release pattern on M for every M stored after the fence, "ld.relaxed
 * [M]; fence" an acquire pattern for every M loaded before it (fence.release
 * / fence.acquire on sm_90 with PTX 8.6, fence.acq_rel before); a release
 * pattern synchronizes with an acquire pattern that observes its write when
 * the fences are morally strong (.sys: every thread of the system in scope).
 * The fence is cumulative: base causality order is transitive through
 * program order, bar.sync (which synchronizes the block's threads) and the
 * patterns, so the stores every thread made before the barrier are ordered
 * before every peer's reads after its acquire, and the peers' stores before
 * every thread's reads after the finish's barrier.
 *   AMD (gfx90a, LLVM's AMDGPUUsage, "Memory Model GFX90A"): the system
 * release fence is buffer_wbl2 (the L2's dirty lines written back) then
 * s_waitcnt vmcnt(0) lgkmcnt(0) (every earlier access of the wave done, the
 * writeback included), all before the stores after it, so every flag after
 * it is visible only after everything before it; the system acquire fence
 * is s_waitcnt vmcnt(0) lgkmcnt(0) (every earlier load done) then
 * buffer_invl2 and buffer_wbinvl1_vol (no stale line left in the L2 or the
 * CU's L1 for a later load; clang 15 writes the L2 back first too,
 * buffer_wbl2), all after the loads before it, so one covers every poll. Its workgroup-scope release does not wait for other waves'
 * stores, so each wave releases its own before the barrier, and acquires for
 * itself after the finish's (shardtab_device.h).
 *   The STARTED, FINISHED and BUSY words are touched by this rank's own
 * device alone: device scope (the claim a CAS that acquires, the end a store
 * that releases: PTX .gpu; on gfx90a no L2 writeback or invalidate). A rank
 * alone on its node writes and reads only its own pad, from its own device:
 * on NVIDIA its one release and one acquire are at device scope too
 * (shardtab_fence_release_node, _acquire_node); on AMD they stay at system
 * scope, one fence the same on every path (shardtab_device.h says why).
 *   The cost, per all-reduce (a start and a finish) on a node of n ranks, in
 * the leader: before, 2n + 5 system-scope fences on NVIDIA (a release store
 * per peer's epoch word, an acquire fence per rank waited for, the claim's
 * acquire and the end's release in each half, every thread's acquire after
 * the finish's barrier) and 2n + 6 system-scope sequences on gfx90a (the
 * same, and each wave's release before the start's barrier); now 2 on
 * NVIDIA (n = 1: none, two device-scope fences instead) and 4 on gfx90a (the
 * two, and each wave's release and acquire around the barriers), whatever
 * n, beside a device-scope claim per half (a CAS that acquires: no fence)
 * and a device-scope release store at the finish's end. Barriers: 4 (7
 * before), each needed for what its comment says; a refused call passes one
 * more on its way out.
 *
 * Every wait is bounded (shardtab_device.h: the table's time limit, then every
 * rank of the node stops). A peer whose call differs (kind, op, type, root,
 * count), whose deposit fails its checksum, or whose epoch is not this one, and
 * a call of this rank that cannot be right (count above the collective's
 * values, a range past the pad, an unknown op or type, a third start, a finish
 * with nothing started) all stop the node the same way, each with its own
 * SHARDTAB_WAIT_* status: the host reads which from shardtab_signal_check, and
 * shardtab_agree makes it every rank's message. Two blocks using the same
 * collective at once are refused (SHARDTAB_WAIT_CONCURRENT); collectives on
 * distinct slots may run at once, beside barriers and signals.
 *
 *     __global__ void norm(shardtab_signals_t sig, const double *local, double *global) {
 *         shardtab_coll_t c = shardtab_coll(&sig, 0, 1);    // slots 0 .. COLL_SLOTS(n, 1) - 1
 *         if (shardtab_all_reduce_block(&sig, &c, SHARDTAB_SUM, SHARDTAB_DOUBLE, local,
 *                                       global, 1) != SHARDTAB_WAIT_OK)
 *             return;                                    // the host reports why
 *         ... *global is the same double on every rank of the node ...
 *     }
 *
 * `in` and `out` are arrays of `count` values of the type (all-gather: out
 * holds node_size * count, rank r's at r * count), in memory every thread of
 * the block reads (global or shared); they may be the same array.
 */
#ifndef SHARDTAB_COMM_H
#define SHARDTAB_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "shardtab_device.h"
#include "shardtab_types.h"

#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#define SHARDTAB_BLOCK_SHARED __shared__
#else
#define SHARDTAB_BLOCK_SHARED
#endif

/* ---- put and get through the table --------------------------------------------- */

/* Copies bytes from src to dst with every thread of the block: 16-byte accesses
 * when dst, src and bytes allow, else 8-byte, else bytes. No ordering. */
SHARDTAB_DEVFN void shardtab_copy_block(void *dst, const void *src, size_t bytes)
{
    const size_t t = (size_t)shardtab_block_thread(), threads = (size_t)shardtab_block_threads();
    const uintptr_t both = (uintptr_t)dst | (uintptr_t)src | (uintptr_t)bytes;
    char *d = (char *)dst;
    const char *s = (const char *)src;

    if (both % 16 == 0) {
        for (size_t i = t * 16; i < bytes; i += threads * 16)
            shardtab_copy16(d + i, s + i);
    } else if (both % 8 == 0) {
        for (size_t i = t; i < bytes / 8; i += threads)
            ((uint64_t *)dst)[i] = ((const uint64_t *)src)[i];
    } else {
        for (size_t i = t; i < bytes; i += threads)
            d[i] = s[i];
    }
}

/* bytes from src into node rank peer's shard at byte offset, through the table */
SHARDTAB_DEVFN void shardtab_put_block(void *const *table, int peer, size_t offset,
                                       const void *src, size_t bytes)
{
    shardtab_copy_block((char *)table[peer] + offset, src, bytes);
}

/* bytes from node rank peer's shard at byte offset into dst; every thread may
 * read dst afterwards (the block's barrier) */
SHARDTAB_DEVFN void shardtab_get_block(void *dst, void *const *table, int peer, size_t offset,
                                       size_t bytes)
{
    shardtab_copy_block(dst, (const char *)table[peer] + offset, bytes);
    shardtab_block_sync();
}

enum { SHARDTAB_SIGNAL_SET = 0, SHARDTAB_SIGNAL_ADD = 1 };

/* Put, then pad[slot] of peer = value (SHARDTAB_SIGNAL_SET) or += value
 * (SHARDTAB_SIGNAL_ADD), released once every thread's stores are visible to
 * the peer: a wait on that slot then sees the bytes. */
SHARDTAB_DEVFN void shardtab_put_signal_block(const shardtab_signals_t *s, void *const *table,
                                              int peer, size_t offset, const void *src,
                                              size_t bytes, int slot, uint64_t value,
                                              int signal_op)
{
    shardtab_put_block(table, peer, offset, src, bytes);
    shardtab_fence_before_block_release();
    shardtab_block_sync();
    if (shardtab_block_leader()) {
        if (signal_op == SHARDTAB_SIGNAL_ADD)
            shardtab_signal_add(s, peer, slot, value);
        else
            shardtab_signal_set(s, peer, slot, value);
    }
}

/* For stores into a peer made by `blocks` blocks (of this rank's grid, or one
 * block over several calls): each block counts itself into *arrived (a counter
 * in this device's memory, zero at first, never reset: it grows by `blocks`
 * per round), and the block that completes a round sets pad[slot] of peer =
 * value, after every counted block's stores (release, system scope, through
 * the count). Every thread of each block calls it. Returns 1 in the block
 * that signalled. */
SHARDTAB_DEVFN int shardtab_signal_after_blocks(const shardtab_signals_t *s, uint64_t *arrived,
                                                uint64_t blocks, int peer, int slot,
                                                uint64_t value)
{
    SHARDTAB_BLOCK_SHARED int last;

    shardtab_fence_before_block_release();
    shardtab_block_sync();
    if (shardtab_block_leader()) {
        /* the block's stores before its count; the count's reader acquires them
         * all (a relaxed add between two fences: every earlier count is in the
         * ticket it returns) */
        shardtab_fence();
        uint64_t ticket = shardtab_fetch_add_relaxed_system(arrived, 1) + 1;
        last = ticket % blocks == 0;
        if (last) {
            shardtab_fence(); /* the other blocks' stores, seen through the count */
            shardtab_signal_set(s, peer, slot, value);
        }
    }
    shardtab_block_sync();
    return last;
}

/* ---- a few values through the pads ------------------------------------------------ */

/* Test hooks: a test's own instantiation defines these to plant a bad deposit
 * (a corrupted value, a stale epoch) and shows it caught; a real build stores
 * what it was given. */
#ifndef SHARDTAB_COMM_PLANT_VALUE
#define SHARDTAB_COMM_PLANT_VALUE(s, e, i, w) (w)
#endif
#ifndef SHARDTAB_COMM_PLANT_EPOCH
#define SHARDTAB_COMM_PLANT_EPOCH(s, e) (e)
#endif

#define SHARDTAB_COLL_DEPTH 4       /* deposits kept per rank: two in flight, two being read */
#define SHARDTAB_COLL_STATE 3       /* words of this rank's own state */
#define SHARDTAB_COLL_MAX_VALUES 32767
/* User slots a collective of `values` values a call takes, on a node of node_size ranks. */
#define SHARDTAB_COLL_SLOTS(node_size, values) \
    (SHARDTAB_COLL_STATE + SHARDTAB_COLL_DEPTH * (node_size) * (2 + (values)))

enum { /* what a call is: the descriptor's kind */
    SHARDTAB_COLL_GATHER = 0,
    SHARDTAB_COLL_REDUCE = 1,
    SHARDTAB_COLL_BROADCAST = 2,
    SHARDTAB_COLL_STREAM = 3 /* the library's stream-ordered collectives (shardtab.h) */
};
enum { /* SHARDTAB_WAIT_MISUSE: what was wrong, in the record's "want" */
    SHARDTAB_MISUSE_COUNT = 1,       /* count above the collective's values ("seen": count) */
    SHARDTAB_MISUSE_RANGE = 2,       /* the collective runs past the pad ("seen": its first slot) */
    SHARDTAB_MISUSE_OP = 3,          /* an unknown op, type or kind ("seen": the descriptor) */
    SHARDTAB_MISUSE_THIRD = 4,       /* a third start before the oldest finish */
    SHARDTAB_MISUSE_NOTHING = 5,     /* a finish with nothing started */
    SHARDTAB_MISUSE_ROOT = 6         /* a broadcast root outside the node ("seen": the root) */
};
/* the state words, at first: */
enum { SHARDTAB_COLL_STARTED = 0, SHARDTAB_COLL_FINISHED = 1, SHARDTAB_COLL_BUSY = 2 };

typedef struct shardtab_coll {
    int first;  /* pad index of its state words */
    int values; /* values a call may carry (all-gather: per rank) */
} shardtab_coll_t;

/* The collective over user slots [slot, slot + SHARDTAB_COLL_SLOTS(node_size,
 * values)). Checked when called. */
SHARDTAB_DEVFN shardtab_coll_t shardtab_coll(const shardtab_signals_t *s, int slot, int values)
{
    shardtab_coll_t c;
    c.first = slot >= 0 && slot <= s->slots ? shardtab_slot_index(s, slot) : -1;
    c.values = values;
    return c;
}

/* The library's own, after the user slots (the stream-ordered collectives). */
#define SHARDTAB_LIB_COLL_VALUES 2
SHARDTAB_DEVFN shardtab_coll_t shardtab_lib_coll(const shardtab_signals_t *s)
{
    shardtab_coll_t c;
    c.first = s->lib_first;
    c.values = SHARDTAB_LIB_COLL_VALUES;
    return c;
}

/* Pad index of rank's deposit of epoch e: [0] the epoch (released last), [1] the
 * descriptor, [2 ..] the values. */
SHARDTAB_DEVFN int shardtab_coll_deposit(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                         uint64_t e, int rank)
{
    return c->first + SHARDTAB_COLL_STATE +
           ((int)(e % SHARDTAB_COLL_DEPTH) * s->node_size + rank) * (2 + c->values);
}

/* A value as a pad word (a float in the low half), and back. */
SHARDTAB_DEVFN uint64_t shardtab_value_word(int type, const void *array, size_t i)
{
    uint64_t w = 0;
    if (type == SHARDTAB_FLOAT)
        memcpy(&w, (const float *)array + i, sizeof(float));
    else
        memcpy(&w, (const uint64_t *)array + i, sizeof w);
    return w;
}

SHARDTAB_DEVFN void shardtab_value_store(int type, void *array, size_t i, uint64_t w)
{
    if (type == SHARDTAB_FLOAT)
        memcpy((float *)array + i, &w, sizeof(float));
    else
        memcpy((uint64_t *)array + i, &w, sizeof w);
}

/* a op b, on words holding values of the type */
SHARDTAB_DEVFN uint64_t shardtab_value_combine(int op, int type, uint64_t a, uint64_t b)
{
    if (type == SHARDTAB_FLOAT) {
        float x, y;
        uint32_t xa = (uint32_t)a, yb = (uint32_t)b;
        memcpy(&x, &xa, sizeof x);
        memcpy(&y, &yb, sizeof y);
        float r = op == SHARDTAB_SUM ? x + y : op == SHARDTAB_MIN ? (y < x ? y : x) : (y > x ? y : x);
        uint32_t bits;
        memcpy(&bits, &r, sizeof bits);
        return bits;
    }
    if (type == SHARDTAB_DOUBLE) {
        double x, y;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        double r = op == SHARDTAB_SUM ? x + y : op == SHARDTAB_MIN ? (y < x ? y : x) : (y > x ? y : x);
        uint64_t bits;
        memcpy(&bits, &r, sizeof bits);
        return bits;
    }
    int64_t x = (int64_t)a, y = (int64_t)b;
    return op == SHARDTAB_SUM ? a + b : op == SHARDTAB_MIN ? (uint64_t)(y < x ? y : x)
                                                           : (uint64_t)(y > x ? y : x);
}

/* What a call is, as every rank must make it: the descriptor's low half. */
SHARDTAB_DEVFN uint64_t shardtab_coll_call(int kind, int op, int type, int root, int count)
{
    return (uint64_t)(kind & 7) | (uint64_t)(op & 3) << 3 | (uint64_t)(type & 3) << 5 |
           (uint64_t)(root & 1023) << 7 | (uint64_t)(count & 0x7fff) << 17;
}

/* The descriptor's high half: a checksum of the epoch and the values deposited. */
SHARDTAB_DEVFN uint32_t shardtab_coll_hash(uint32_t h, uint64_t w)
{
    h = (h ^ (uint32_t)w) * 0x01000193u;
    return (h ^ (uint32_t)(w >> 32)) * 0x01000193u;
}

/* Does rank `rank` deposit values for this call? */
SHARDTAB_DEVFN int shardtab_coll_deposits(int kind, int root, int rank)
{
    return kind != SHARDTAB_COLL_BROADCAST || rank == root;
}

/* The leader's checks and claim for a start or a finish; *epoch is the call's.
 * Returns SHARDTAB_WAIT_OK, or a refusal (recorded, node stopped). The state
 * words are this rank's own device's alone: the claim is a device-scope CAS
 * that acquires what the last holder released with BUSY = 0 (its count). */
SHARDTAB_DEVFN int shardtab_coll_enter(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                       int kind, int op, int type, int root, int count,
                                       int finish, uint64_t *epoch)
{
    uint64_t *state = s->mine + c->first;
    const int index = c->first + SHARDTAB_COLL_BUSY;

    if (shardtab_aborted(s))
        return SHARDTAB_WAIT_ABORTED;
    if (c->first < 0 || c->values < 0 || c->values > SHARDTAB_COLL_MAX_VALUES ||
        (c->first != s->lib_first &&
         c->first + SHARDTAB_COLL_SLOTS(s->node_size, c->values) > shardtab_slot_index(s, s->slots))) {
        shardtab_give_up_as(s, SHARDTAB_WAIT_MISUSE, index, SHARDTAB_CMP_EQ, SHARDTAB_MISUSE_RANGE,
                            (uint64_t)(int64_t)c->first, 0);
        return SHARDTAB_WAIT_MISUSE;
    }
    if (count < 0 || count > c->values) {
        shardtab_give_up_as(s, SHARDTAB_WAIT_MISUSE, index, SHARDTAB_CMP_EQ, SHARDTAB_MISUSE_COUNT,
                            (uint64_t)(int64_t)count, 0);
        return SHARDTAB_WAIT_MISUSE;
    }
    if (kind < 0 || kind > SHARDTAB_COLL_STREAM || op < 0 || op >= SHARDTAB_OP_COUNT || type < 0 ||
        type >= SHARDTAB_TYPE_COUNT) {
        shardtab_give_up_as(s, SHARDTAB_WAIT_MISUSE, index, SHARDTAB_CMP_EQ, SHARDTAB_MISUSE_OP,
                            shardtab_coll_call(kind, op, type, root, count), 0);
        return SHARDTAB_WAIT_MISUSE;
    }
    if (kind == SHARDTAB_COLL_BROADCAST && (root < 0 || root >= s->node_size)) {
        shardtab_give_up_as(s, SHARDTAB_WAIT_MISUSE, index, SHARDTAB_CMP_EQ, SHARDTAB_MISUSE_ROOT,
                            (uint64_t)(int64_t)root, 0);
        return SHARDTAB_WAIT_MISUSE;
    }
    /* one block at a time in a collective of this rank; acquire (device
     * scope): the last call's counts, released with its BUSY = 0 */
    if (!shardtab_cas_acquire_device(state + SHARDTAB_COLL_BUSY, 0, 1)) {
        shardtab_give_up_as(s, SHARDTAB_WAIT_CONCURRENT, index, SHARDTAB_CMP_EQ, 0, 1, 0);
        return SHARDTAB_WAIT_CONCURRENT;
    }
    uint64_t started = shardtab_load_relaxed_device(state + SHARDTAB_COLL_STARTED);
    uint64_t finished = shardtab_load_relaxed_device(state + SHARDTAB_COLL_FINISHED);
    if (finish ? finished >= started : started - finished >= 2) {
        shardtab_store_release_device(state + SHARDTAB_COLL_BUSY, 0);
        shardtab_give_up_as(s, SHARDTAB_WAIT_MISUSE, index, SHARDTAB_CMP_EQ,
                            finish ? SHARDTAB_MISUSE_NOTHING : SHARDTAB_MISUSE_THIRD, started, 0);
        return SHARDTAB_WAIT_MISUSE;
    }
    *epoch = (finish ? finished : started) + 1;
    return SHARDTAB_WAIT_OK;
}

/* The leader ends a finish: the count, then the claim released (device scope:
 * the next holder's claim acquires both; every thread's reads of the
 * deposits are before it, through the block's barrier). A start ends its own
 * way, its BUSY = 0 a flag of its one system-scope release fence. */
SHARDTAB_DEVFN void shardtab_coll_leave(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                        int which, uint64_t epoch)
{
    uint64_t *state = s->mine + c->first;
    shardtab_store_relaxed_device(state + which, epoch);
    shardtab_store_release_device(state + SHARDTAB_COLL_BUSY, 0);
}

/* Deposits this rank's part of a call into every node peer's pad. kind is
 * SHARDTAB_COLL_GATHER, _REDUCE, _BROADCAST (root: a node rank; only it
 * deposits values) or _STREAM; op matters for _REDUCE only (pass SHARDTAB_SUM
 * otherwise). Returns SHARDTAB_WAIT_OK or why not, in every thread. */
SHARDTAB_DEVFN int shardtab_coll_start_block(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                             int kind, int op, int type, int root,
                                             const void *in, int count)
{
    SHARDTAB_BLOCK_SHARED int status;
    SHARDTAB_BLOCK_SHARED uint64_t epoch_shared;
    const int me = s->node_rank, t = shardtab_block_thread(), threads = shardtab_block_threads();
    const int n = s->node_size;

    /* No barrier first: every path out of this function (and of the finish)
     * passes a barrier after its threads' last read of the shared words, so
     * they are free here. */
    if (shardtab_block_leader())
        status = shardtab_coll_enter(s, c, kind, op, type, root, count, 0, &epoch_shared);
    shardtab_block_sync(); /* barrier 1: the leader's claim, to every thread */
    const int claimed = status;
    const uint64_t e = epoch_shared;
    if (claimed != SHARDTAB_WAIT_OK) {
        shardtab_block_sync(); /* every thread has read the shared words */
        return claimed;
    }
    const int at = shardtab_coll_deposit(s, c, e, me);
    const int mine = shardtab_coll_deposits(kind, root, me) ? count : 0;

    for (int i = t; i < mine; i += threads) {
        uint64_t w = SHARDTAB_COMM_PLANT_VALUE(s, e, i, shardtab_value_word(type, in, (size_t)i));
        for (int q = 0; q < n; q++)
            shardtab_store_relaxed_system(s->pads[q] + at + 2 + i, w);
    }
    shardtab_fence_before_block_release();
    /* barrier 2: every thread's values (and every earlier store of the
     * block) before the leader's one release; also the shared words read */
    shardtab_block_sync();
    if (shardtab_block_leader()) {
        uint64_t *state = s->mine + c->first;
        uint32_t hash = shardtab_coll_hash(0x811c9dc5u, e);
        for (int i = 0; i < mine; i++)
            hash = shardtab_coll_hash(hash, shardtab_value_word(type, in, (size_t)i));
        uint64_t desc = shardtab_coll_call(kind, op, type, root, count) | (uint64_t)hash << 32;
        for (int q = 0; q < n; q++)
            shardtab_store_relaxed_system(s->pads[q] + at + 1, desc);
        /* the count; read only by the next holder of the claim, after BUSY = 0 */
        shardtab_store_relaxed_device(state + SHARDTAB_COLL_STARTED, e);
        /* ONE release for all of it: the values, every thread's (barrier 2),
         * the descriptors and the count (system scope; device scope on NVIDIA
         * where the node is this rank alone, shardtab_fence_release_node);
         * then the epoch into every pad and BUSY = 0, each a relaxed store
         * after that fence (the fence-then-flag idiom). */
        shardtab_fence_release_node(s);
        for (int q = 0; q < n; q++)
            shardtab_flag_relaxed_system(s->pads[q] + at, SHARDTAB_COMM_PLANT_EPOCH(s, e));
        shardtab_flag_relaxed_device(state + SHARDTAB_COLL_BUSY, 0);
    }
    return SHARDTAB_WAIT_OK;
}

/* The checks of rank r's deposit of epoch e, after the acquire that covers
 * it: its epoch word is e (not ahead: that rank counts its calls otherwise),
 * its descriptor is this call's, its values pass their checksum. Returns
 * SHARDTAB_WAIT_OK or a refusal (recorded, node stopped); a refusal's record
 * carries r where a timeout's carries its ticks. */
SHARDTAB_DEVFN int shardtab_coll_verify(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                        uint64_t e, int r, uint64_t call, int kind, int root,
                                        int count)
{
    const int at = shardtab_coll_deposit(s, c, e, r);
    uint64_t seen = shardtab_load_relaxed_system(s->mine + at);

    if (seen != e) {
        shardtab_give_up_as(s, SHARDTAB_WAIT_MISMATCH, at, SHARDTAB_CMP_GE, e, seen, (uint64_t)r);
        return SHARDTAB_WAIT_MISMATCH;
    }
    uint64_t desc = shardtab_load_relaxed_system(s->mine + at + 1);
    if ((uint32_t)desc != (uint32_t)call) {
        shardtab_give_up_as(s, SHARDTAB_WAIT_MISMATCH, at + 1, SHARDTAB_CMP_EQ, call,
                            (uint32_t)desc, (uint64_t)r);
        return SHARDTAB_WAIT_MISMATCH;
    }
    uint32_t hash = shardtab_coll_hash(0x811c9dc5u, e);
    const int values = shardtab_coll_deposits(kind, root, r) ? count : 0;
    for (int i = 0; i < values; i++)
        hash = shardtab_coll_hash(hash, shardtab_load_relaxed_system(s->mine + at + 2 + i));
    if (hash != (uint32_t)(desc >> 32)) {
        shardtab_give_up_as(s, SHARDTAB_WAIT_CORRUPT, at + 1, SHARDTAB_CMP_EQ, hash,
                            (uint32_t)(desc >> 32), (uint64_t)r);
        return SHARDTAB_WAIT_CORRUPT;
    }
    return SHARDTAB_WAIT_OK;
}

/* The leader waits for rank r's deposit of epoch e (its own acquire) and
 * checks it. (The finish waits for every rank with one acquire instead:
 * shardtab_coll_await.) */
SHARDTAB_DEVFN int shardtab_coll_check(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                       uint64_t e, int r, uint64_t call, int kind, int root,
                                       int count)
{
    const int at = shardtab_coll_deposit(s, c, e, r);
    uint64_t seen = 0, waited = 0;
    int status = shardtab_poll_index(s, at, SHARDTAB_CMP_GE, e, &seen, &waited);

    shardtab_fence_acquire_node(s); /* on every path: see shardtab_coll_await */
    if (status == SHARDTAB_WAIT_TIMED_OUT)
        shardtab_give_up(s, at, SHARDTAB_CMP_GE, e, seen, waited);
    return status != SHARDTAB_WAIT_OK ? status
                                      : shardtab_coll_verify(s, c, e, r, call, kind, root, count);
}

/* The leader waits for every rank's deposit of epoch e and checks each, in
 * node-rank order: relaxed polls of the epoch words, rank after rank, each
 * bounded as shardtab_wait_index; then ONE acquire fence for all of them;
 * then the checks. The outcome is the one rank-by-rank waits and checks give:
 * a poll that stops (a timeout, an abort) or sees a rank ahead stops the
 * polls there, the ranks before it are checked first (a refusal of theirs
 * wins), then the timeout is recorded (the rank, value and ticks of its own
 * wait) or the abort returned. */
SHARDTAB_DEVFN int shardtab_coll_await(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                       uint64_t e, uint64_t call, int kind, int root, int count)
{
    const int n = s->node_size;
    int r, stopped = SHARDTAB_WAIT_OK, checked = n;
    uint64_t seen = 0, waited = 0;

    for (r = 0; r < n; r++) {
        stopped = shardtab_poll_index(s, shardtab_coll_deposit(s, c, e, r), SHARDTAB_CMP_GE, e,
                                      &seen, &waited);
        if (stopped != SHARDTAB_WAIT_OK) {
            checked = r;
            break;
        }
        if (seen != e) { /* ahead: its check refuses it */
            checked = r + 1;
            break;
        }
    }
    /* every epoch word read was stored after its rank's one release fence:
     * this one acquire synchronizes with all of them (system scope; device
     * scope on NVIDIA where the node is this rank alone). On every path, a
     * failed wait's too, so that none leads from a poll to a read without it. */
    shardtab_fence_acquire_node(s);
    for (int q = 0; q < checked; q++) {
        int status = shardtab_coll_verify(s, c, e, q, call, kind, root, count);
        if (status != SHARDTAB_WAIT_OK)
            return status;
    }
    if (stopped == SHARDTAB_WAIT_TIMED_OUT)
        shardtab_give_up(s, shardtab_coll_deposit(s, c, e, r), SHARDTAB_CMP_GE, e, seen, waited);
    return stopped;
}

/* Waits for every rank's deposit of this rank's oldest started call, checks
 * each, and combines in node-rank order into out (a REDUCE: count values; a
 * GATHER: node_size * count; a BROADCAST: the root's count; a STREAM: as a
 * GATHER). The arguments must be those of the start. Returns SHARDTAB_WAIT_OK
 * or why not, in every thread; out is written only on SHARDTAB_WAIT_OK. */
SHARDTAB_DEVFN int shardtab_coll_finish_block(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                              int kind, int op, int type, int root, void *out,
                                              int count)
{
    SHARDTAB_BLOCK_SHARED int status;
    SHARDTAB_BLOCK_SHARED uint64_t epoch_shared;
    const int t = shardtab_block_thread(), threads = shardtab_block_threads();
    const int n = s->node_size;

    /* no barrier first: as in the start, the shared words are free here */
    if (shardtab_block_leader()) {
        status = shardtab_coll_enter(s, c, kind, op, type, root, count, 1, &epoch_shared);
        if (status == SHARDTAB_WAIT_OK) {
            status = shardtab_coll_await(s, c, epoch_shared,
                                         shardtab_coll_call(kind, op, type, root, count), kind,
                                         root, count);
            if (status != SHARDTAB_WAIT_OK) /* the node has stopped; the claim goes */
                shardtab_store_release_device(s->mine + c->first + SHARDTAB_COLL_BUSY, 0);
        }
    }
    /* barrier 1: the leader's status and epoch to every thread, and (with
     * the fence after it) the leader's acquire */
    shardtab_block_sync();
    const int awaited = status;
    const uint64_t e = epoch_shared;
    if (awaited != SHARDTAB_WAIT_OK) {
        shardtab_block_sync(); /* every thread has read the shared words */
        return awaited;
    }
    shardtab_fence_after_block_acquire();
    if (kind == SHARDTAB_COLL_REDUCE) {
        for (int i = t; i < count; i += threads) {
            uint64_t acc = shardtab_load_relaxed_system(s->mine + shardtab_coll_deposit(s, c, e, 0) + 2 + i);
            for (int r = 1; r < n; r++)
                acc = shardtab_value_combine(
                    op, type, acc,
                    shardtab_load_relaxed_system(s->mine + shardtab_coll_deposit(s, c, e, r) + 2 + i));
            shardtab_value_store(type, out, (size_t)i, acc);
        }
    } else if (kind == SHARDTAB_COLL_BROADCAST) {
        const int at = shardtab_coll_deposit(s, c, e, root);
        for (int i = t; i < count; i += threads)
            shardtab_value_store(type, out, (size_t)i, shardtab_load_relaxed_system(s->mine + at + 2 + i));
    } else {
        for (int i = t; i < n * count; i += threads) {
            const int r = i / count, at = shardtab_coll_deposit(s, c, e, r);
            shardtab_value_store(type, out, (size_t)i,
                                 shardtab_load_relaxed_system(s->mine + at + 2 + (i - r * count)));
        }
    }
    /* barrier 2: every thread's reads of the deposits before the leader
     * counts the finish (the peers reuse these buffers two calls on), out
     * written by every thread before any thread returns, and the shared
     * words read */
    shardtab_block_sync();
    if (shardtab_block_leader())
        shardtab_coll_leave(s, c, SHARDTAB_COLL_FINISHED, e);
    return SHARDTAB_WAIT_OK;
}

/* ---- the one-call forms ---------------------------------------------------------- */

/* out[i] = in[i] of rank 0 op ... op in[i] of rank node_size - 1, for i < count */
SHARDTAB_DEVFN int shardtab_all_reduce_block(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                             int op, int type, const void *in, void *out, int count)
{
    int status = shardtab_coll_start_block(s, c, SHARDTAB_COLL_REDUCE, op, type, 0, in, count);
    return status != SHARDTAB_WAIT_OK
               ? status
               : shardtab_coll_finish_block(s, c, SHARDTAB_COLL_REDUCE, op, type, 0, out, count);
}

/* out[i] = in[i] of node rank root, for i < count (in is read on the root only) */
SHARDTAB_DEVFN int shardtab_broadcast_block(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                            int root, int type, const void *in, void *out, int count)
{
    int status = shardtab_coll_start_block(s, c, SHARDTAB_COLL_BROADCAST, SHARDTAB_SUM, type, root,
                                           in, count);
    return status != SHARDTAB_WAIT_OK ? status
                                      : shardtab_coll_finish_block(s, c, SHARDTAB_COLL_BROADCAST,
                                                                   SHARDTAB_SUM, type, root, out,
                                                                   count);
}

/* out[r * count + i] = in[i] of node rank r */
SHARDTAB_DEVFN int shardtab_all_gather_block(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                             int type, const void *in, void *out, int count)
{
    int status = shardtab_coll_start_block(s, c, SHARDTAB_COLL_GATHER, SHARDTAB_SUM, type, 0, in,
                                           count);
    return status != SHARDTAB_WAIT_OK ? status
                                      : shardtab_coll_finish_block(s, c, SHARDTAB_COLL_GATHER,
                                                                   SHARDTAB_SUM, type, 0, out, count);
}

#endif /* SHARDTAB_COMM_H */
