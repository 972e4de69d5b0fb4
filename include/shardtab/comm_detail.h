/* shardtab/comm_detail.h - the steps below shardtab_comm.h's calls: where a
 * deposit lies in the pad, a value as a pad word, a call's descriptor and
 * checksum, and the leader's claim of a collective, its waits for the
 * deposits and its checks of them.
 *
 * Detail, not API, and not included directly: users include shardtab_comm.h,
 * which includes this header, and these names may change. The library's host
 * code turns the records these steps leave into messages
 * (shardtab_signal_check), and the library's own collective
 * (kernels/shardtab/collective_body.h) calls them with a kind of its own. */
#ifndef SHARDTAB_COMM_DETAIL_H
#define SHARDTAB_COMM_DETAIL_H

#include <stddef.h>
#include <stdint.h>

#include "shardtab_device.h"
#include "shardtab_types.h"
#include "shardtab/comm_types.h"

/* Test hooks: a test's own instantiation defines these to plant a bad deposit
 * (a corrupted value, a stale epoch) and shows it caught; a real build stores
 * what it was given. */
#ifndef SHARDTAB_COMM_PLANT_VALUE
#  define SHARDTAB_COMM_PLANT_VALUE(s, e, i, w) (w)
#endif
#ifndef SHARDTAB_COMM_PLANT_EPOCH
#  define SHARDTAB_COMM_PLANT_EPOCH(s, e) (e)
#endif

/* The fourth kind: the library's stream-ordered collectives (shardtab.h),
 * through its own collective after the user slots (kernels/shardtab). */
enum { SHARDTAB_COLL_STREAM = 3 };

enum {                            /* SHARDTAB_WAIT_MISUSE: what was wrong, in the record's "want" */
       SHARDTAB_MISUSE_COUNT = 1, /* count above the collective's values ("seen": count) */
       SHARDTAB_MISUSE_RANGE = 2, /* the collective runs past the pad ("seen": its first slot) */
       SHARDTAB_MISUSE_OP = 3,    /* an unknown op, type or kind ("seen": the descriptor) */
       SHARDTAB_MISUSE_THIRD = 4, /* a third start before the oldest finish */
       SHARDTAB_MISUSE_NOTHING = 5, /* a finish with nothing started */
       SHARDTAB_MISUSE_ROOT = 6     /* a broadcast root outside the node ("seen": the root) */
};
/* the state words, at first: */
enum { SHARDTAB_COLL_STARTED = 0, SHARDTAB_COLL_FINISHED = 1, SHARDTAB_COLL_BUSY = 2 };

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

/* a op b, on words holding values of the type. Min and max of floats and
 * doubles (the rule of shardtab_types.h) compare bit patterns, not values, so
 * that no order or grouping of the ranks changes the result and no hardware
 * mode (denormals flushed, NaNs made canonical) touches it: a NaN wins over a
 * number, of two NaNs the greater unsigned pattern wins, and numbers compare
 * by a key that orders them as the reals with -0.0 below +0.0 (a negative's
 * bits inverted, a positive's sign bit set). */
SHARDTAB_DEVFN uint64_t shardtab_value_combine(int op, int type, uint64_t a, uint64_t b)
{
    if (type != SHARDTAB_INT64 && op != SHARDTAB_SUM) {
        const int wide = type == SHARDTAB_DOUBLE;
        const uint64_t all = wide ? ~(uint64_t)0 : 0xffffffffu;
        const uint64_t sign = wide ? (uint64_t)1 << 63 : (uint64_t)1 << 31;
        const uint64_t inf = wide ? 0x7ff0000000000000u : 0x7f800000u;
        a &= all;
        b &= all;
        const int a_nan = (a & ~sign) > inf, b_nan = (b & ~sign) > inf;
        if (a_nan || b_nan)
            return !b_nan ? a : !a_nan ? b : b > a ? b : a;
        const uint64_t ka = a & sign ? ~a & all : a | sign, kb = b & sign ? ~b & all : b | sign;
        return op == SHARDTAB_MIN ? (kb < ka ? b : a) : (kb > ka ? b : a);
    }
    if (type == SHARDTAB_FLOAT) {
        float x, y;
        uint32_t xa = (uint32_t)a, yb = (uint32_t)b;
        memcpy(&x, &xa, sizeof x);
        memcpy(&y, &yb, sizeof y);
        float r = x + y;
        uint32_t bits;
        memcpy(&bits, &r, sizeof bits);
        return bits;
    }
    if (type == SHARDTAB_DOUBLE) {
        double x, y;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        double r = x + y;
        uint64_t bits;
        memcpy(&bits, &r, sizeof bits);
        return bits;
    }
    int64_t x = (int64_t)a, y = (int64_t)b;
    return op == SHARDTAB_SUM   ? a + b
           : op == SHARDTAB_MIN ? (uint64_t)(y < x ? y : x)
                                : (uint64_t)(y > x ? y : x);
}

/* What a call is, as every rank must make it: the descriptor's low half. */
SHARDTAB_DEVFN uint64_t shardtab_coll_call(int kind, int op, int type, int root, int count)
{
    return (uint64_t)(kind & 7) | (uint64_t)(op & 3) << 3 | (uint64_t)(type & 3) << 5 |
           (uint64_t)(root & 1023) << 7 | (uint64_t)(count & 0x7fff) << 17;
}

/* The fields of a call's word, as shardtab_coll_call packed them (the library
 * reads them back to name a call in a message). */
typedef struct shardtab_coll_call_fields {
    int kind, op, type, root, count;
} shardtab_coll_call_fields_t;
SHARDTAB_DEVFN shardtab_coll_call_fields_t shardtab_coll_call_unpack(uint64_t call)
{
    shardtab_coll_call_fields_t f;
    f.kind = (int)(call & 7);
    f.op = (int)((call >> 3) & 3);
    f.type = (int)((call >> 5) & 3);
    f.root = (int)((call >> 7) & 1023);
    f.count = (int)((call >> 17) & 0x7fff);
    return f;
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
                                       int kind, int op, int type, int root, int count, int finish,
                                       uint64_t *epoch)
{
    uint64_t *state = s->mine + c->first;
    const int index = c->first + SHARDTAB_COLL_BUSY;

    if (shardtab_aborted(s))
        return SHARDTAB_WAIT_ABORTED;
    if (c->first < 0 || c->values < 0 || c->values > SHARDTAB_COLL_MAX_VALUES ||
        (c->first != s->lib_first && c->first + SHARDTAB_COLL_SLOTS(s->node_size, c->values) >
                                         shardtab_slot_index(s, s->slots))) {
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

#endif /* SHARDTAB_COMM_DETAIL_H */
