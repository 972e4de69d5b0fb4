/* shardtab/comm_detail.h - the steps below shardtab_comm.h's calls: where a
 * deposit lies in the pad, its words (32 bits of a value and the epoch in one
 * 8-byte word), a call's descriptor and checksum, the collective's state word
 * and claim, and one thread's wait for a rank's deposit with its checks.
 *
 * Detail, not API, and not included directly: users include shardtab_comm.h,
 * which includes this header; its names (shardtab_detail_*, SHARDTAB_DETAIL_*)
 * may change in any release. The library's host
 * code turns the records these steps leave into messages
 * (shardtab_signal_check), and the library's own collective
 * (kernels/shardtab/collective_body.h) calls them with a kind of its own. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
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
#ifndef SHARDTAB_DETAIL_COMM_PLANT_VALUE
#  define SHARDTAB_DETAIL_COMM_PLANT_VALUE(s, e, i, w) (w)
#endif
#ifndef SHARDTAB_DETAIL_COMM_PLANT_EPOCH
#  define SHARDTAB_DETAIL_COMM_PLANT_EPOCH(s, e) (e)
#endif
/* A test's trace of a call's steps (comm_check --bench): the points below,
 * marked as every thread passes them; a real build marks nothing. */
#ifndef SHARDTAB_DETAIL_COMM_TRACE
#  define SHARDTAB_DETAIL_COMM_TRACE(s, point) ((void)0)
#endif
enum {
    SHARDTAB_DETAIL_TRACE_START_CLAIMED =
        0,                                  /* a start's claim (and the barrier after it), unheld */
    SHARDTAB_DETAIL_TRACE_START_STORED = 1, /* its LL stores issued */
    SHARDTAB_DETAIL_TRACE_FINISH_ENTERED = 2, /* a finish's claim (held: its checks), barrier 1 */
    SHARDTAB_DETAIL_TRACE_FINISH_LOADED = 3,  /* this thread's ranks' words seen whole */
    SHARDTAB_DETAIL_TRACE_FINISH_AGREED = 4,  /* barrier 2: every rank's outcome */
    SHARDTAB_DETAIL_TRACE_FINISH_DONE = 5,    /* combined, out written, barrier 4 */
    SHARDTAB_DETAIL_TRACE_POINTS = 6
};

/* The fourth kind: the library's stream-ordered collectives (shardtab.h),
 * through its own collective after the user slots (kernels/shardtab), of
 * SHARDTAB_DETAIL_LIB_COLL_VALUES values: the pad ends there. */
enum { SHARDTAB_DETAIL_COLL_STREAM = 3 };
#define SHARDTAB_DETAIL_LIB_COLL_VALUES 3

enum { /* SHARDTAB_WAIT_MISUSE: what was wrong, in the record's "want" */
       SHARDTAB_DETAIL_MISUSE_COUNT = 1, /* count above the collective's values ("seen": count) */
       SHARDTAB_DETAIL_MISUSE_RANGE =
           2, /* the collective runs past the pad ("seen": its first slot) */
       SHARDTAB_DETAIL_MISUSE_OP = 3,    /* an unknown op, type or kind ("seen": the descriptor) */
       SHARDTAB_DETAIL_MISUSE_THIRD = 4, /* a third start before the oldest finish */
       SHARDTAB_DETAIL_MISUSE_NOTHING = 5, /* a finish with nothing started */
       SHARDTAB_DETAIL_MISUSE_ROOT = 6, /* a broadcast root outside the node ("seen": the root) */
       SHARDTAB_DETAIL_MISUSE_SLOT = 7, /* a first slot outside [0, slots) ("seen": the slot) */
       SHARDTAB_DETAIL_MISUSE_EXACT_INT64 = 8 /* SUM_EXACT of int64 ("seen": the descriptor) */
};
/* The collective's state: one word of this rank's own pad, touched by this
 * device alone. Bits 0-30: the calls started, 31-61: the calls finished (each
 * counted modulo 2^31: a call's epoch), bit 62: a block holds the claim. */
#define SHARDTAB_DETAIL_COLL_EPOCHS 0x7fffffffull
#define SHARDTAB_DETAIL_COLL_BUSY (1ull << 62)
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_started(uint64_t state)
{
    return state & SHARDTAB_DETAIL_COLL_EPOCHS;
}
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_finished(uint64_t state)
{
    return (state >> 31) & SHARDTAB_DETAIL_COLL_EPOCHS;
}
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_state(uint64_t started, uint64_t finished)
{
    return (started & SHARDTAB_DETAIL_COLL_EPOCHS) | (finished & SHARDTAB_DETAIL_COLL_EPOCHS) << 31;
}
/* calls started and not yet finished: 0, 1 or 2 */
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_in_flight(uint64_t state)
{
    return (shardtab_detail_coll_started(state) - shardtab_detail_coll_finished(state)) &
           SHARDTAB_DETAIL_COLL_EPOCHS;
}

/* Pad index of rank's deposit of epoch e: [0] the call, [1] the checksum,
 * [2 + 2i] and [3 + 2i] the low and high halves of value i. */
SHARDTAB_DEVFN int shardtab_detail_coll_deposit(const shardtab_signals_t *s,
                                                const shardtab_coll_t *c, uint64_t e, int rank)
{
    return c->first + SHARDTAB_COLL_STATE +
           ((int)(e % SHARDTAB_COLL_DEPTH) * s->node_size + rank) *
               SHARDTAB_COLL_DEPOSIT_WORDS(c->values);
}

/* ---- a deposit's words --------------------------------------------------------- *
 * Each 8-byte word carries 32 bits of payload (low half) and the epoch of its
 * call (high half), written by one relaxed 8-byte store and read by one
 * relaxed 8-byte load: single-copy atomic on every target (PTX: an aligned
 * .b64 access; gfx90a: one global_store_dwordx2 / load, which the order check
 * finds; C11: a lock-free atomic). A reader that sees its epoch in the word
 * has the payload stored with it: no flag, no fence and no second load
 * (NCCL's LL protocol; docs/design.md, "Communication"). */
SHARDTAB_DEVFN void shardtab_detail_ll_store(uint64_t *word, uint32_t payload, uint64_t epoch)
{
    shardtab_detail_store_relaxed_system(word, (uint64_t)(uint32_t)epoch << 32 | payload);
}
SHARDTAB_DEVFN uint64_t shardtab_detail_ll_load(uint64_t *word)
{
    return shardtab_detail_load_relaxed_system(word);
}
/* Is a word's epoch `got` ahead of the awaited `e` (modulo 2^31)? */
SHARDTAB_DEVFN int shardtab_detail_ll_ahead(uint32_t got, uint64_t e)
{
    uint64_t d = ((uint64_t)got - e) & SHARDTAB_DETAIL_COLL_EPOCHS;
    return d != 0 && d < (SHARDTAB_DETAIL_COLL_EPOCHS >> 1);
}

/* ---- LL puts: a buffer of LL words (shardtab_put_ll_block) -------------------- *
 * A message of `bytes` bytes is bytes / 4 LL words, word i carrying bytes
 * [4i, 4i + 4) in its low half and the caller's flag in its high half
 * (shardtab_detail_ll_store), so the buffer takes 2 * bytes. The wait's steps. */

/* The record's cmp when an LL wait gives up (SHARDTAB_CMP_EQ and _GE are the
 * signals', 2 the stream collectives' arguments, kernels/shardtab/
 * collective_body.h): "index" is the word in the buffer, "want" the flag,
 * "seen" the whole word as last read. */
#define SHARDTAB_DETAIL_CMP_LL 3
/* ... and when a halo exchange pushed as LL words gives up (shardtab_halo_device.h):
 * "index" the word of this rank's inbox, "want" the exchange's flag */
#define SHARDTAB_DETAIL_CMP_HALO 4
/* ... and when a halo exchange pushed by put waits for a flag: "index" the
 * piece whose flag it is, "want" the exchange */
#define SHARDTAB_DETAIL_CMP_HALO_FLAG 5
/* ... whose slot is the piece and the slice of the flag (a piece's index is
 * below SHARDTAB_HALO_MAX_PIECES < 32) */
#define SHARDTAB_DETAIL_HALO_FLAG_AT(piece, slice) ((uint64_t)(piece) + 32 * (uint64_t)(slice))
#define SHARDTAB_DETAIL_HALO_FLAG_PIECE(at) ((at) % 32)
#define SHARDTAB_DETAIL_HALO_FLAG_SLICE(at) ((at) / 32)
/* SHARDTAB_WAIT_MISUSE reasons of the LL calls, in the record's "want",
 * numbered apart from the collectives' */
enum {
    SHARDTAB_DETAIL_MISUSE_LL_BYTES = 32, /* bytes not a multiple of 4 ("seen": bytes) */
    SHARDTAB_DETAIL_MISUSE_LL_ALIGN = 33, /* the buffer not 8-byte aligned ("seen": its address) */
    SHARDTAB_DETAIL_MISUSE_LL_DST = 34    /* dst not 4-byte aligned ("seen": its address) */
};
/* The words one thread of an LL wait has in flight at once. */
#define SHARDTAB_DETAIL_LL_IN_FLIGHT 8

/* May a message of `bytes` go through an LL buffer at `buffer`? */
SHARDTAB_DEVFN int shardtab_detail_ll_fits(const void *buffer, size_t bytes)
{
    return bytes % 4 == 0 && (uintptr_t)buffer % 8 == 0;
}

/* One thread waits for words first, first + stride, .. (below `words`) of
 * an LL buffer to carry `flag`, and stores their payloads into out[i]. The
 * words go SHARDTAB_DETAIL_LL_IN_FLIGHT at a time, all issued before any is tested;
 * a word not yet there is loaded again, with the abort word, until the
 * table's limit, the ones already seen kept. Returns SHARDTAB_WAIT_OK,
 * _ABORTED (another wait gave up first), or _TIMED_OUT (recorded: the first
 * word still missing, the flag and what it held; peers told). Every loaded
 * word is tested (a branch) before the call returns, so no load is in flight
 * at the block's next barrier (the order check verifies it). */
SHARDTAB_DEVFN int shardtab_detail_ll_take(const shardtab_signals_t *s, uint64_t *words, size_t n,
                                           size_t first, size_t stride, uint32_t flag,
                                           uint32_t *out)
{
    const uint64_t start = shardtab_detail_clock();

    for (size_t i0 = first; i0 < n; i0 += SHARDTAB_DETAIL_LL_IN_FLIGHT * stride) {
        uint64_t w[SHARDTAB_DETAIL_LL_IN_FLIGHT];
        unsigned pending = 0;
        for (int k = 0; k < SHARDTAB_DETAIL_LL_IN_FLIGHT; k++) {
            w[k] = 0;
            if (i0 + (size_t)k * stride < n)
                pending |= 1u << k;
        }
        for (;;) {
            for (int k = 0; k < SHARDTAB_DETAIL_LL_IN_FLIGHT; k++)
                if (pending & 1u << k)
                    w[k] = shardtab_detail_ll_load(words + i0 + (size_t)k * stride);
            const int aborted = shardtab_aborted(s);
            int missing = -1;
            uint64_t seen = 0;
            for (int k = SHARDTAB_DETAIL_LL_IN_FLIGHT - 1; k >= 0; k--)
                if (pending & 1u << k) {
                    if ((uint32_t)(w[k] >> 32) == flag)
                        pending &= ~(1u << k);
                    else
                        missing = k, seen = w[k];
                }
            if (missing < 0)
                break;
            if (aborted)
                return SHARDTAB_WAIT_ABORTED;
            const uint64_t waited = shardtab_detail_clock() - start;
            if (waited > s->timeout_ticks) {
                shardtab_detail_give_up(s, (int)(i0 + (size_t)missing * stride),
                                        SHARDTAB_DETAIL_CMP_LL, flag, seen, waited);
                return SHARDTAB_WAIT_TIMED_OUT;
            }
            shardtab_detail_pause();
        }
        for (int k = 0; k < SHARDTAB_DETAIL_LL_IN_FLIGHT; k++)
            if (i0 + (size_t)k * stride < n)
                out[i0 + (size_t)k * stride] = (uint32_t)w[k];
    }
    return SHARDTAB_WAIT_OK;
}

/* A value as a pad word (a float in the low half), and back. */
SHARDTAB_DEVFN uint64_t shardtab_detail_value_word(int type, const void *array, size_t i)
{
    uint64_t w = 0;
    if (type == SHARDTAB_FLOAT)
        memcpy(&w, (const float *)array + i, sizeof(float));
    else
        memcpy(&w, (const uint64_t *)array + i, sizeof w);
    return w;
}

SHARDTAB_DEVFN void shardtab_detail_value_store(int type, void *array, size_t i, uint64_t w)
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
SHARDTAB_DEVFN uint64_t shardtab_detail_value_combine(int op, int type, uint64_t a, uint64_t b)
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
        return shardtab_detail_float_bits(shardtab_detail_bits_float((uint32_t)a) +
                                          shardtab_detail_bits_float((uint32_t)b));
    }
    if (type == SHARDTAB_DOUBLE) {
        return shardtab_detail_double_bits(shardtab_detail_bits_double(a) +
                                           shardtab_detail_bits_double(b));
    }
    int64_t x = (int64_t)a, y = (int64_t)b;
    return op == SHARDTAB_SUM   ? a + b
           : op == SHARDTAB_MIN ? (uint64_t)(y < x ? y : x)
                                : (uint64_t)(y > x ? y : x);
}

/* What a call is, as every rank must make it: the descriptor's low half. */
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_call(int kind, int op, int type, int root, int count)
{
    return (uint64_t)(kind & 7) | (uint64_t)(op & 3) << 3 | (uint64_t)(type & 3) << 5 |
           (uint64_t)(root & 1023) << 7 | (uint64_t)(count & 0x7fff) << 17;
}

/* The fields of a call's word, as shardtab_detail_coll_call packed them (the library
 * reads them back to name a call in a message). */
typedef struct shardtab_coll_call_fields {
    int kind, op, type, root, count;
} shardtab_coll_call_fields_t;
SHARDTAB_DEVFN shardtab_coll_call_fields_t shardtab_detail_coll_call_unpack(uint64_t call)
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
SHARDTAB_DEVFN uint32_t shardtab_detail_coll_hash(uint32_t h, uint64_t w)
{
    h = (h ^ (uint32_t)w) * 0x01000193u;
    return (h ^ (uint32_t)(w >> 32)) * 0x01000193u;
}

/* Does rank `rank` deposit values for this call? */
SHARDTAB_DEVFN int shardtab_detail_coll_deposits(int kind, int root, int rank)
{
    return kind != SHARDTAB_COLL_BROADCAST || rank == root;
}

/* Does collective c fit its slots? A user's runs from its first slot to at
 * most the last user slot (shardtab_coll gave first -1 for a first slot
 * outside them: refused before this); the library's own, after the user
 * slots, carries at most the values its slots were laid out for. The count
 * is looked at for both: a user's slot never names the library's. */
SHARDTAB_DEVFN int shardtab_detail_coll_fits(const shardtab_signals_t *s, const shardtab_coll_t *c)
{
    if (c->first < 0 || c->values < 0 || c->values > SHARDTAB_COLL_MAX_VALUES)
        return 0;
    if (c->first == s->lib_first)
        return c->values <= SHARDTAB_DETAIL_LIB_COLL_VALUES;
    return c->first + SHARDTAB_COLL_SLOTS(s->node_size, c->values) <=
           shardtab_slot_index(s, s->slots);
}

/* What is wrong with a start or a finish made on the counts in `state`:
 * 0, or a SHARDTAB_MISUSE_* with *seen (what the record shows). Arithmetic
 * alone, no memory: every thread of a block holding the collective reaches
 * the same answer. */
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_misuse(const shardtab_signals_t *s,
                                                    const shardtab_coll_t *c, int kind, int op,
                                                    int type, int root, int count, int finish,
                                                    uint64_t state, uint64_t *seen)
{
    if (count < 0 || count > c->values)
        return *seen = (uint64_t)(int64_t)count, SHARDTAB_DETAIL_MISUSE_COUNT;
    if (kind < 0 || kind > SHARDTAB_DETAIL_COLL_STREAM || op < 0 || op >= SHARDTAB_OP_COUNT ||
        type < 0 || type >= SHARDTAB_TYPE_COUNT)
        return *seen = shardtab_detail_coll_call(kind, op, type, root, count),
               SHARDTAB_DETAIL_MISUSE_OP;
    if (kind == SHARDTAB_COLL_REDUCE && op == SHARDTAB_SUM_EXACT && type == SHARDTAB_INT64)
        return *seen = shardtab_detail_coll_call(kind, op, type, root, count),
               SHARDTAB_DETAIL_MISUSE_EXACT_INT64;
    if (kind == SHARDTAB_COLL_BROADCAST && (root < 0 || root >= s->node_size))
        return *seen = (uint64_t)(int64_t)root, SHARDTAB_DETAIL_MISUSE_ROOT;
    if (finish ? shardtab_detail_coll_in_flight(state) == 0
               : shardtab_detail_coll_in_flight(state) >= 2)
        return *seen = shardtab_detail_coll_started(state),
               finish ? SHARDTAB_DETAIL_MISUSE_NOTHING : SHARDTAB_DETAIL_MISUSE_THIRD;
    return 0;
}

/* The epoch of the next start or finish on the counts in `state`. */
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_next(uint64_t state, int finish)
{
    return ((finish ? shardtab_detail_coll_finished(state) : shardtab_detail_coll_started(state)) +
            1) &
           SHARDTAB_DETAIL_COLL_EPOCHS;
}

/* The leader's claim of collective c: one relaxed read-modify-write of the
 * state word, read in the same round trip as the abort word; the counts are
 * in the word it returns (*state_out), and the next holder's claim reads what
 * this one's end stored (one location: coherence, no fence). Returns
 * SHARDTAB_WAIT_OK (the claim is held: a store of the state word ends it), or
 * a refusal (recorded where it is this rank's fault; the claim not held). */
SHARDTAB_DEVFN int shardtab_detail_coll_claim(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                              uint64_t *state_out)
{
    if (c->first < 0) { /* a first slot outside the user slots: c->state holds it */
        shardtab_detail_give_up_as(s, SHARDTAB_WAIT_MISUSE, c->first, SHARDTAB_CMP_EQ,
                                   SHARDTAB_DETAIL_MISUSE_SLOT, c->state, 0);
        return SHARDTAB_WAIT_MISUSE;
    }
    if (!shardtab_detail_coll_fits(s, c)) {
        shardtab_detail_give_up_as(s, SHARDTAB_WAIT_MISUSE, c->first, SHARDTAB_CMP_EQ,
                                   SHARDTAB_DETAIL_MISUSE_RANGE, (uint64_t)(int64_t)c->first, 0);
        return SHARDTAB_WAIT_MISUSE;
    }
    uint64_t *state = s->mine + c->first;
    const uint64_t was = shardtab_detail_fetch_or_relaxed_device(state, SHARDTAB_DETAIL_COLL_BUSY);
    const int aborted = shardtab_aborted(s);
    if (was & SHARDTAB_DETAIL_COLL_BUSY) { /* another block holds it: leave it to that one */
        if (aborted)
            return SHARDTAB_WAIT_ABORTED;
        shardtab_detail_give_up_as(s, SHARDTAB_WAIT_CONCURRENT, c->first, SHARDTAB_CMP_EQ, 0, 1, 0);
        return SHARDTAB_WAIT_CONCURRENT;
    }
    if (aborted) {
        shardtab_detail_store_relaxed_device(state, was); /* the claim ends, nothing counted */
        return SHARDTAB_WAIT_ABORTED;
    }
    *state_out = was;
    return SHARDTAB_WAIT_OK;
}

/* The leader's claim and checks for one start or finish; *epoch is the
 * call's, *state_out the state word as claimed. Returns SHARDTAB_WAIT_OK
 * (the claim held: shardtab_detail_coll_leave ends it), or a refusal (recorded,
 * node stopped, claim not held). */
SHARDTAB_DEVFN int shardtab_detail_coll_enter(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                              int kind, int op, int type, int root, int count,
                                              int finish, uint64_t *epoch, uint64_t *state_out)
{
    uint64_t was = 0, seen = 0;
    const int claimed = shardtab_detail_coll_claim(s, c, &was);

    if (claimed != SHARDTAB_WAIT_OK)
        return claimed;
    const uint64_t misuse =
        shardtab_detail_coll_misuse(s, c, kind, op, type, root, count, finish, was, &seen);
    if (misuse != 0) {
        shardtab_detail_store_relaxed_device(s->mine + c->first, was); /* the claim ends */
        shardtab_detail_give_up_as(s, SHARDTAB_WAIT_MISUSE, c->first, SHARDTAB_CMP_EQ, misuse, seen,
                                   0);
        return SHARDTAB_WAIT_MISUSE;
    }
    *epoch = shardtab_detail_coll_next(was, finish);
    *state_out = was;
    return SHARDTAB_WAIT_OK;
}

/* The counts after one more start or finish. */
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_counted(uint64_t state, int finish)
{
    uint64_t started = shardtab_detail_coll_started(state),
             finished = shardtab_detail_coll_finished(state);
    if (finish)
        finished++;
    else
        started++;
    return shardtab_detail_coll_state(started, finished);
}

/* The leader ends a start or a finish: the count, and the claim released, in
 * one relaxed store of the state word. The peers' reuse of this rank's
 * deposit buffers needs no order here: see shardtab_detail_coll_take. */
SHARDTAB_DEVFN void shardtab_detail_coll_leave(const shardtab_signals_t *s,
                                               const shardtab_coll_t *c, int finish, uint64_t state)
{
    shardtab_detail_store_relaxed_device(s->mine + c->first,
                                         shardtab_detail_coll_counted(state, finish));
}

/* Calls of collective c started on this rank and not yet finished (the
 * leader's read, after the block's earlier calls of c have left; the counts
 * c keeps while the block holds it). */
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_pending(const shardtab_signals_t *s,
                                                     const shardtab_coll_t *c)
{
    if (c->held)
        return shardtab_detail_coll_in_flight(c->state);
    if (c->first < 0) /* outside the pad: never started (its calls are refused) */
        return 0;
    return shardtab_detail_coll_in_flight(shardtab_detail_load_relaxed_device(s->mine + c->first));
}

/* What stopped one thread's wait for a deposit: the record shardtab_detail_give_up_as
 * would write (why: a SHARDTAB_WAIT_* status). */
typedef struct shardtab_coll_fault {
    int why, index, cmp;
    uint64_t want, seen, ticks;
} shardtab_coll_fault_t;

/* One thread waits for rank r's deposit of epoch e in this rank's pad and
 * checks it: every word carries e (a word ahead of e: that rank counts its
 * calls otherwise), its call is `call`, its values pass their checksum.
 * The words are loaded eight at a time, all eight issued before any is
 * tested; a chunk not yet all there is loaded again (with the abort word)
 * until the limit. Each value (low | high << 32) goes to stash[i] when stash
 * is not NULL. Returns SHARDTAB_WAIT_OK, or why not with *f filled (nothing
 * recorded: the block records the first rank's, shardtab_coll_finish_block).
 *
 * Reuse: rank r overwrites this deposit (epoch e + 4, the same buffer) only
 * after it finished e + 2, which needed this rank's deposit of e + 2, which
 * this rank makes only after this call's finish. Every value that call uses
 * was loaded, and tested, before that deposit's first store is issued (a
 * branch on the loaded words comes between: gfx90a's s_waitcnt vmcnt(0), which
 * the order check finds), so no load here can return the later store. */
SHARDTAB_DEVFN int shardtab_detail_coll_take(const shardtab_signals_t *s, const shardtab_coll_t *c,
                                             uint64_t e, int r, uint64_t call, int kind, int root,
                                             int count, uint64_t *stash, shardtab_coll_fault_t *f)
{
    const int at = shardtab_detail_coll_deposit(s, c, e, r);
    const int words = 2 + 2 * (shardtab_detail_coll_deposits(kind, root, r) ? count : 0);
    const uint64_t start = shardtab_detail_clock();
    uint32_t hash = shardtab_detail_coll_hash(0x811c9dc5u, e), deposited = 0;

    for (int k0 = 0; k0 < words; k0 += 8) {
        uint64_t w[8];
        int missing;
        for (;;) {
            for (int k = 0; k < 8; k++)
                w[k] = k0 + k < words ? shardtab_detail_ll_load(s->mine + at + k0 + k) : e << 32;
            const int aborted = shardtab_aborted(s);
            missing = -1;
            for (int k = 7; k >= 0; k--)
                if ((uint32_t)(w[k] >> 32) != (uint32_t)e)
                    missing = k;
            /* A rank alone never waits, so it checks the stop here: a held
             * loop at one rank ends at its first finish after a stop. With
             * peers, a call whose words are all there completes (each rank
             * then judges it alike: a mismatch is refused by every rank, in
             * its own words), and the next one waits for a peer that stopped
             * and sees the stop there. */
            if (missing < 0 && aborted && s->node_size == 1) {
                f->why = SHARDTAB_WAIT_ABORTED;
                return f->why;
            }
            if (missing < 0)
                break;
            const uint32_t got = (uint32_t)(w[missing] >> 32);
            f->index = at + k0 + missing;
            f->cmp = SHARDTAB_CMP_GE;
            f->want = e;
            f->seen = got;
            if (shardtab_detail_ll_ahead(got, e)) {
                f->why = SHARDTAB_WAIT_MISMATCH;
                f->ticks = (uint64_t)r;
                return f->why;
            }
            if (aborted) {
                f->why = SHARDTAB_WAIT_ABORTED;
                return f->why;
            }
            f->ticks = shardtab_detail_clock() - start;
            if (f->ticks > s->timeout_ticks) {
                f->why = SHARDTAB_WAIT_TIMED_OUT;
                return f->why;
            }
            shardtab_detail_pause();
        }
        int k = 0;
        if (k0 == 0) {
            if ((uint32_t)w[0] != (uint32_t)call) {
                f->why = SHARDTAB_WAIT_MISMATCH;
                f->index = at;
                f->cmp = SHARDTAB_CMP_EQ;
                f->want = call;
                f->seen = (uint32_t)w[0];
                f->ticks = (uint64_t)r;
                return f->why;
            }
            deposited = (uint32_t)w[1];
            k = 2;
        }
        for (; k + 1 < 8 && k0 + k < words; k += 2) {
            const uint64_t v = (uint64_t)(uint32_t)w[k] | (uint64_t)(uint32_t)w[k + 1] << 32;
            hash = shardtab_detail_coll_hash(hash, v);
            if (stash)
                stash[(k0 + k - 2) / 2] = v;
        }
    }
    if (hash != deposited) {
        f->why = SHARDTAB_WAIT_CORRUPT;
        f->index = at + 1;
        f->cmp = SHARDTAB_CMP_EQ;
        f->want = hash;
        f->seen = deposited;
        f->ticks = (uint64_t)r;
        return f->why;
    }
    return SHARDTAB_WAIT_OK;
}

/* Value i of rank r's deposit of epoch e, read again after shardtab_detail_coll_take
 * saw it whole (the same words: coherence gives what that load saw; the
 * reuse rule above, nothing later). */
SHARDTAB_DEVFN uint64_t shardtab_detail_coll_value(const shardtab_signals_t *s,
                                                   const shardtab_coll_t *c, uint64_t e, int r,
                                                   int i)
{
    uint64_t *at = s->mine + shardtab_detail_coll_deposit(s, c, e, r) + 2 + 2 * i;
    return (uint64_t)(uint32_t)shardtab_detail_ll_load(at) |
           (uint64_t)(uint32_t)shardtab_detail_ll_load(at + 1) << 32;
}

#endif /* SHARDTAB_COMM_DETAIL_H */
