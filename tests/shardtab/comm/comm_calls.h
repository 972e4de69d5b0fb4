/* comm_calls.h - comm_check's device code, one body for every backend: a
 * block's call of the device-side collectives, put-with-signal and LL puts
 * of shardtab_comm.h, exactly as a user's kernel makes it, and the faults the
 * tests plant into a deposit (in this instantiation only: the library's own
 * builds store what they are given). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef COMM_CALLS_H
#define COMM_CALLS_H

#include <stdint.h>

#include "shardtab_device.h"

#define SHARDTAB_TRACE_POINTS_MAX 8 /* at least comm_detail.h's SHARDTAB_DETAIL_TRACE_POINTS */

/* A planted fault: on node rank `rank`, at epoch `epoch` of the collective. */
enum { COMM_PLANT_NONE = 0, COMM_PLANT_CORRUPT, COMM_PLANT_STALE };
typedef struct comm_plant {
    int kind, rank;
    uint64_t epoch;
    int trace; /* the bench's traced pass: the leader marks each step's clock */
} comm_plant_t;

#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
__device__ comm_plant_t comm_plant;
__device__ uint64_t comm_trace_at[SHARDTAB_TRACE_POINTS_MAX];
#  define COMM_GLOBAL __device__
#else
static comm_plant_t comm_plant;
static uint64_t comm_trace_at[SHARDTAB_TRACE_POINTS_MAX];
#  define COMM_GLOBAL
#endif

/* a traced step: the leader's clock as it passes the point (shardtab/comm_detail.h) */
#define SHARDTAB_DETAIL_COMM_TRACE(s, point)                                                       \
  (comm_plant.trace && shardtab_detail_block_leader()                                              \
       ? (void)(comm_trace_at[point] = shardtab_detail_clock())                                    \
       : (void)0)

/* a corrupted value: one bit of value 0 flipped after its checksum was taken */
#define SHARDTAB_DETAIL_COMM_PLANT_VALUE(s, e, i, w)                                               \
  (comm_plant.kind == COMM_PLANT_CORRUPT && (s)->node_rank == comm_plant.rank &&                   \
           (e) == comm_plant.epoch && (i) == 0                                                     \
       ? (w) ^ 1u                                                                                  \
       : (w))
/* a stale epoch: the deposit carries the epoch of four calls ago */
#define SHARDTAB_DETAIL_COMM_PLANT_EPOCH(s, e)                                                     \
  (comm_plant.kind == COMM_PLANT_STALE && (s)->node_rank == comm_plant.rank &&                     \
           (e) == comm_plant.epoch                                                                 \
       ? (e)-SHARDTAB_COLL_DEPTH                                                                   \
       : (e))
#include "shardtab_comm.h"

#define B_CONCURRENT_VALUES 2 /* collective B's values (comm_check's B_VALUES) */

/* What one launch does. */
enum { COMM_START = 1, COMM_FINISH = 2, COMM_BOTH = 3 };
typedef struct comm_call {
    int slot, values;         /* the collective: its first user slot, its values */
    int kind, op, type, root; /* SHARDTAB_COLL_*, SHARDTAB_*, root node rank */
    int count, phases;        /* COMM_START, COMM_FINISH or both */
    int held;                 /* the block holds the collective for the launch */
    comm_plant_t plant;
} comm_call_t;

/* One block's call; returns its SHARDTAB_WAIT_* status. */
SHARDTAB_DEVFN int comm_call_block(const shardtab_signals_t *s, const comm_call_t *call,
                                   const void *in, void *out)
{
    shardtab_coll_t c = shardtab_coll(s, call->slot, call->values);
    int status = SHARDTAB_WAIT_OK;

    if (shardtab_detail_block_leader())
        comm_plant = call->plant;
    shardtab_detail_block_sync();
    if (call->held)
        status = shardtab_coll_hold_block(s, &c);
    if (status == SHARDTAB_WAIT_OK && (call->phases & COMM_START))
        status = shardtab_coll_start_block(s, &c, call->kind, call->op, call->type, call->root, in,
                                           call->count);
    if (status == SHARDTAB_WAIT_OK && (call->phases & COMM_FINISH))
        status = shardtab_coll_finish_block(s, &c, call->kind, call->op, call->type, call->root,
                                            out, call->count);
    shardtab_coll_release_block(s, &c);
    return status;
}

/* The exact dot product recipe of shardtab_comm.h: this rank's share x . y
 * of n elements into the block's accumulator, normalized, its words summed
 * over the node as int64 on the collective at slot (SHARDTAB_EXACT_WORDS
 * values), rounded once into *out (the leader's). */
SHARDTAB_DEVFN int comm_dot_exact_block(const shardtab_signals_t *s, int slot, const double *x,
                                        const double *y, size_t n, double *out)
{
    SHARDTAB_BLOCK_SHARED int64_t acc[SHARDTAB_EXACT_WORDS];
    shardtab_coll_t c = shardtab_coll(s, slot, SHARDTAB_EXACT_WORDS);
    const int t = shardtab_detail_block_thread(), threads = shardtab_detail_block_threads();

    for (int k = t; k < SHARDTAB_EXACT_WORDS; k += threads)
        acc[k] = 0;
    shardtab_detail_block_sync();
    shardtab_dot_exact_block(x, y, n, acc);
    if (shardtab_detail_block_leader())
        shardtab_exact_normalize(acc);
    shardtab_detail_block_sync();
    const int status = shardtab_all_reduce_block(s, &c, SHARDTAB_SUM, SHARDTAB_INT64, acc, acc,
                                                 SHARDTAB_EXACT_WORDS);
    if (status == SHARDTAB_WAIT_OK && shardtab_detail_block_leader())
        *out = shardtab_exact_round(acc);
    return status;
}

/* Put `bytes` of src into node rank `peer`'s shard at `offset` and signal
 * slot `slot` = round there; then wait for this rank's own slot to reach round
 * (its predecessor's put). */
SHARDTAB_DEVFN int comm_put_block(const shardtab_signals_t *s, void *const *table, int peer,
                                  size_t offset, const void *src, size_t bytes, int slot,
                                  uint64_t round)
{
    shardtab_put_signal_block(s, table, peer, offset, src, bytes, slot, round, SHARDTAB_SIGNAL_SET);
    return shardtab_signal_wait_block(s, slot, SHARDTAB_CMP_GE, round);
}

/* The LL ping-pong around the ring of node ranks: this rank's four LL
 * buffers (two for pings, two for pongs, alternating by round) lie at the
 * same byte offsets of every shard. */
typedef struct comm_ll {
    size_t ping[2], pong[2]; /* byte offsets of the buffers */
    size_t bytes;            /* each message's */
    size_t clear;            /* 0, or zero the four buffers for messages of this many
                                bytes first, then a barrier of the table */
    int rounds;
    uint32_t flag; /* round r's flag: flag + r */
    int skip;      /* the round in which this rank puts no ping (-1: none) */
    int dst_shift; /* a planted misaligned dst: this rank's waits get dst + this many bytes */
} comm_ll_t;

/* Round r: put src[r][0] (a ping) into the next rank's ping buffer, wait for
 * the previous rank's into dst[r][0]; put src[r][1] (its pong) into the
 * previous rank's pong buffer, wait for the next rank's into dst[r][1]
 * (rows of `bytes`). The pong is the ack: a rank writes a buffer again only
 * after its reader's reply to what it held. Returns the first failure. */
SHARDTAB_DEVFN int comm_ll_block(const shardtab_signals_t *s, void *const *table,
                                 const comm_ll_t *ll, const unsigned char *src, unsigned char *dst)
{
    const int me = s->node_rank, n = s->node_size;
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    char *mine = (char *)table[me];
    int status = SHARDTAB_WAIT_OK;

    if (ll->clear) {
        for (int b = 0; b < 2; b++) {
            shardtab_ll_clear_block(mine + ll->ping[b], ll->clear);
            shardtab_ll_clear_block(mine + ll->pong[b], ll->clear);
        }
        status = shardtab_barrier_block(s); /* cleared before any peer's put */
    }
    for (int r = 0; r < ll->rounds && status == SHARDTAB_WAIT_OK; r++) {
        const uint32_t flag = ll->flag + (uint32_t)r;
        const int b = r & 1;
        const unsigned char *out = src + (size_t)r * 2 * ll->bytes;
        unsigned char *in = dst + (size_t)r * 2 * ll->bytes;
        if (r != ll->skip)
            shardtab_put_ll_block(table, next, ll->ping[b], out, ll->bytes, flag);
        status = shardtab_wait_ll_block(s, mine + ll->ping[b], in + ll->dst_shift, ll->bytes, flag);
        if (status != SHARDTAB_WAIT_OK)
            break;
        shardtab_put_ll_block(table, prev, ll->pong[b], out + ll->bytes, ll->bytes, flag);
        status = shardtab_wait_ll_block(s, mine + ll->pong[b], in + ll->bytes, ll->bytes, flag);
    }
    return status;
}

/* The latency benchmark: `iters` all-reduces of one double back to back in
 * one block, each timed by the leader (shardtab_detail_clock()): ticks[i] the whole
 * call, ticks[iters + i] its start (the deposit) alone; value[0] is this
 * rank's input (read into shared memory first), value[1 + i] gets call i's
 * sum. `trace`: ticks[(2 + p) * iters + i] the time from call i's start to
 * its step p (SHARDTAB_TRACE_*; 0 where the call had none). `held`: the block holds the
 * collective for the loop (one claim). Returns the first failure's status. */
SHARDTAB_DEVFN int comm_bench_block(const shardtab_signals_t *s, int slot, int iters, int held,
                                    int trace, double *value, uint64_t *ticks)
{
    /* collective B's layout, as its other users make it (values, not the count, lay it out) */
    shardtab_coll_t c = shardtab_coll(s, slot, B_CONCURRENT_VALUES);
    SHARDTAB_BLOCK_SHARED double in[1]; /* in shared memory, as a solver's block sum */
    int status;

    if (shardtab_detail_block_leader()) {
        in[0] = value[0];
        comm_plant.kind = COMM_PLANT_NONE;
        comm_plant.trace = trace;
    }
    shardtab_detail_block_sync();
    status = held ? shardtab_coll_hold_block(s, &c) : SHARDTAB_WAIT_OK;

    for (int i = 0; i < iters && status == SHARDTAB_WAIT_OK; i++) {
        uint64_t t0 = shardtab_detail_clock(), t1;
        status = shardtab_coll_start_block(s, &c, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM,
                                           SHARDTAB_DOUBLE, 0, in, 1);
        t1 = shardtab_detail_clock();
        if (status == SHARDTAB_WAIT_OK)
            status = shardtab_coll_finish_block(s, &c, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM,
                                                SHARDTAB_DOUBLE, 0, value + 1 + i, 1);
        if (shardtab_detail_block_leader()) {
            ticks[i] = shardtab_detail_clock() - t0;
            ticks[iters + i] = t1 - t0;
            for (int p = 0; trace && p < SHARDTAB_DETAIL_TRACE_POINTS; p++) {
                ticks[(size_t)(2 + p) * iters + i] = comm_trace_at[p] ? comm_trace_at[p] - t0 : 0;
                comm_trace_at[p] = 0;
            }
        }
    }
    shardtab_coll_release_block(s, &c);
    if (shardtab_detail_block_leader())
        comm_plant.trace = 0;
    return status;
}

/* A held loop of `calls` all-reduces of one double (collective `slot` of
 * `values`) on which this rank, if `stop_rank` is its node rank, stops the
 * node after call `stop_after` as a wait that gives up would, and returns
 * (SHARDTAB_WAIT_TIMED_OUT) as such a kernel does; the other ranks' next
 * finish waits for it and must return SHARDTAB_WAIT_ABORTED. A rank alone
 * goes on calling: its words are always there, and its next finish must
 * see the stop all the same. Returns the block's status. */
SHARDTAB_DEVFN int comm_held_stop_block(const shardtab_signals_t *s, int slot, int values,
                                        int calls, int stop_rank, int stop_after, double *out)
{
    shardtab_coll_t c = shardtab_coll(s, slot, values);
    SHARDTAB_BLOCK_SHARED double in[1];
    int status;

    if (shardtab_detail_block_leader())
        in[0] = 0.5 + s->node_rank;
    shardtab_detail_block_sync();
    status = shardtab_coll_hold_block(s, &c);
    for (int i = 0; i < calls && status == SHARDTAB_WAIT_OK; i++) {
        status = shardtab_all_reduce_block(s, &c, SHARDTAB_SUM, SHARDTAB_DOUBLE, in, out + i, 1);
        const int stops =
            status == SHARDTAB_WAIT_OK && i == stop_after && s->node_rank == stop_rank;
        if (stops && shardtab_detail_block_leader())
            shardtab_detail_give_up(s, c.first, SHARDTAB_CMP_GE, (uint64_t)i + 1, (uint64_t)i, 0);
        shardtab_detail_block_sync();
        if (stops && s->node_size > 1)
            status = SHARDTAB_WAIT_TIMED_OUT;
    }
    shardtab_coll_release_block(s, &c);
    return status;
}

/* Collectives on distinct slots at once, beside barriers: block `which` 0
 * runs `rounds` all-reduces of one double on collective A (in[r] into
 * out[r]), block 1 as many on collective B (in[rounds + r] into out[rounds +
 * r]), block 2 as many node barriers; `held`: blocks 0 and 1 hold their
 * collectives for the loop. Returns the block's status. */
SHARDTAB_DEVFN int comm_concurrent_block(const shardtab_signals_t *s, int which, int slot_a,
                                         int values_a, int slot_b, int rounds, int held,
                                         const double *in, double *out)
{
    shardtab_coll_t a = shardtab_coll(s, slot_a, values_a),
                    b = shardtab_coll(s, slot_b, B_CONCURRENT_VALUES);
    int status = SHARDTAB_WAIT_OK;

    if (held && which < 2)
        status = shardtab_coll_hold_block(s, which == 0 ? &a : &b);

    for (int r = 0; r < rounds && status == SHARDTAB_WAIT_OK; r++) {
        if (which == 0)
            status =
                shardtab_all_reduce_block(s, &a, SHARDTAB_SUM, SHARDTAB_DOUBLE, in + r, out + r, 1);
        else if (which == 1)
            status = shardtab_all_reduce_block(s, &b, SHARDTAB_SUM, SHARDTAB_DOUBLE,
                                               in + rounds + r, out + rounds + r, 1);
        else
            status = shardtab_barrier_block(s);
    }
    shardtab_coll_release_block(s, &a);
    shardtab_coll_release_block(s, &b);
    return status;
}

#endif /* COMM_CALLS_H */
