/* collective_body.h - the element loops of the stream-ordered collectives
 * (collectives.c), one body for every backend: the GPU kernels of
 * collective_gpu.hip run them with a grid of threads, the host backend with
 * its one thread (backend_host.c). Below collectives.c; it needs only the
 * device layer (shardtab_comm.h), no MPI and no GPU runtime header.
 *
 * A collective is a sequence of phases; every rank runs the same sequence:
 *   ST_PHASE_SYNC    one block: the library's collective (shardtab_lib_coll)
 *                    carries this call's arguments from every rank to every
 *                    rank and compares them; it is also a node barrier
 *                    (every rank's earlier work visible to every rank after it);
 *   ST_PHASE_REDUCE  elements [begin, end) of the region: dst[i] = the value
 *                    of node rank 0 op ... op node rank n - 1, read through
 *                    the table, in node-rank order (the same bits whichever
 *                    rank computes them, one-shot or two-shot); SUM_EXACT
 *                    the exact sum of them, rounded once (no order);
 *   ST_PHASE_COPY    elements [begin, end) from node rank src_rank's region
 *                    (or the scratch buffer, src_rank -1) into this rank's;
 *   ST_PHASE_CHUNKS  for every node rank q but this one, its chunk [q * chunk,
 *                    min((q + 1) * chunk, count)) from q's region into this
 *                    rank's (the all-gather half of two-shot, and all-gather);
 *   ST_PHASE_ONE_BLOCK  a small all-reduce whole, in one block: a sync, the
 *                    region reduced into the scratch buffer, a second sync
 *                    (its words alone: every rank has read every region),
 *                    the scratch copied back. One kernel, two syncs.
 *   ST_PHASE_LL      an all-reduce of at most ST_LL_BYTES, in one block: one
 *                    sync whose words carry the region's bytes too; each rank
 *                    combines them into its own region. One kernel, one sync,
 *                    no fence, no rank reading another's region.
 * 16-byte loads and stores where every rank's region starts 16-byte aligned. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_COLLECTIVE_BODY_H
#define ST_COLLECTIVE_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "shardtab_comm.h"
#include "shardtab/halo_types.h"

/* The library's own collective, after the user slots of every pad
 * (shardtab_signals_t.lib_first, SHARDTAB_DETAIL_LIB_COLL_VALUES: comm_detail.h): each
 * ST_PHASE_SYNC is one call of it, of kind SHARDTAB_DETAIL_COLL_STREAM, carrying the
 * call's arguments (ST_SYNC_ARGS words, which every rank must match);
 * ST_PHASE_LL's carries one word of data after them, SHARDTAB_DETAIL_LIB_COLL_VALUES
 * in all. A sync deposits its
 * arguments alone: each value more is two LL words more to every rank, and
 * on one H200 a sync of three values cost 0.5 us more than one of two
 * (docs/performance.md). Two ranks whose calls differ in that their syncs
 * carry values or not are told apart by the descriptor's count, and the
 * refusal says so (failure.c). */
#define ST_SYNC_ARGS 2
/* the most bytes of a region ST_PHASE_LL carries: its one word of data */
#define ST_LL_BYTES 8
SHARDTAB_DEVFN shardtab_coll_t shardtab_lib_coll(const shardtab_signals_t *s)
{
    shardtab_coll_t c;
    c.first = s->lib_first;
    c.values = SHARDTAB_DETAIL_LIB_COLL_VALUES;
    c.held = 0;
    c.state = 0;
    return c;
}

enum {
    ST_PHASE_SYNC = 0,
    ST_PHASE_REDUCE,
    ST_PHASE_COPY,
    ST_PHASE_CHUNKS,
    ST_PHASE_ONE_BLOCK,
    ST_PHASE_LL,
    ST_PHASE_HALO,     /* a halo's pieces (halo_body.h), a grid */
    ST_PHASE_HALO_PUSH /* a pushed exchange whole: one block, by put a block a slice */
};
/* the threads of ST_PHASE_ONE_BLOCK's one block on a GPU */
#define ST_ONE_BLOCK_THREADS 512
/* the threads of a sync's block, and ST_PHASE_LL's, on a GPU */
#define ST_SYNC_THREADS 64
/* a refused ST_PHASE_SYNC's record: SHARDTAB_WAIT_MISMATCH with this "cmp" */
#define ST_CMP_STREAM_ARGS 2
/* args[1] of a rank whose call failed its own checks: no rank's can match it */
#define ST_ARGS_INVALID UINT64_MAX
enum {
    ST_STREAM_ALL_REDUCE = 1,
    ST_STREAM_BROADCAST = 2,
    ST_STREAM_ALL_GATHER = 3,
    ST_STREAM_HALO = 4 /* shardtab_halo_exchange (halo_exchange.c) */
};

typedef struct st_coll_phase {
    int phase;                   /* ST_PHASE_* */
    int op, type;                /* SHARDTAB_SUM .., SHARDTAB_FLOAT .. */
    int vec16;                   /* every rank's region is 16-byte aligned */
    int src_rank;                /* ST_PHASE_COPY: node rank, or -1 for scratch */
    shardtab_signals_t sig;      /* the table's pads and its library collective */
    void *const *table;          /* device table of the shards, [node_size] */
    size_t offset;               /* bytes: where the region starts in every shard */
    size_t count;                /* elements of the region */
    size_t begin, end;           /* elements this phase covers */
    size_t chunk;                /* ST_PHASE_CHUNKS: elements per node rank */
    void *dst;                   /* ST_PHASE_REDUCE: where element i goes (dst + i * size) */
    void *scratch;               /* ST_PHASE_COPY from -1: the scratch buffer, element 0 first */
    uint64_t args[ST_SYNC_ARGS]; /* what every rank must agree on: what a sync deposits */
    shardtab_halo_device_t halo; /* ST_PHASE_HALO*: the pieces */
    size_t blocks;               /* ST_PHASE_HALO_PUSH: the grid (by put: the slices) */
} st_coll_phase_t;

SHARDTAB_DEVFN size_t st_type_size(int type)
{
    return type == SHARDTAB_FLOAT ? 4 : 8;
}

/* 8 bytes of values: a op b, lane by lane (two floats, or one 8-byte value) */
SHARDTAB_DEVFN uint64_t st_combine8(int op, int type, uint64_t a, uint64_t b)
{
    if (type != SHARDTAB_FLOAT)
        return shardtab_detail_value_combine(op, type, a, b);
    const uint64_t lo = shardtab_detail_value_combine(op, type, a & 0xffffffffu, b & 0xffffffffu);
    const uint64_t hi = shardtab_detail_value_combine(op, type, a >> 32, b >> 32);
    return (lo & 0xffffffffu) | hi << 32;
}

/* 16 bytes of values: a op b, lane by lane */
SHARDTAB_DEVFN void st_combine16(int op, int type, uint64_t *a, const uint64_t *b)
{
    a[0] = st_combine8(op, type, a[0], b[0]);
    a[1] = st_combine8(op, type, a[1], b[1]);
}

/* SHARDTAB_SUM_EXACT of n words' values, lane by lane (two floats, or one
 * double), word r at words[r * stride]: the exact sum of each lane, rounded
 * once (shardtab/exact.h). No order: the sum is exact. */
SHARDTAB_DEVFN uint64_t st_exact8(int type, const uint64_t *words, size_t stride, size_t n)
{
    const int lanes = type == SHARDTAB_FLOAT ? 2 : 1;
    uint64_t out = 0;

    for (int lane = 0; lane < lanes; lane++) {
        shardtab_detail_exact_few_t sum;
        int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS]; /* its spill */
        shardtab_detail_exact_few_start(&sum, limbs, type, words[0] >> 32 * lane);
        for (size_t r = 1; r < n; r++)
            shardtab_detail_exact_few_add_word(&sum, type, words[r * stride] >> 32 * lane);
        out |= shardtab_detail_exact_few_word(&sum, type) << 32 * lane;
    }
    return out;
}

/* The elements a thread of the exact reduce sums at once, each rank's loads of
 * them issued together. The kernel's registers cap its grid at four blocks of
 * 256 a multiprocessor (sm_90), so what keeps memory busy is the loads each
 * thread has in flight: two elements keep the four blocks (64 registers); more
 * take blocks away and were slower (docs/performance.md, "Two elements in
 * flight"). */
#ifndef ST_EXACT_IN_FLIGHT
#  define ST_EXACT_IN_FLIGHT 2
#endif
#if ST_EXACT_IN_FLIGHT < 1
#  error "ST_EXACT_IN_FLIGHT: at least one element a thread"
#endif

/* ST_PHASE_REDUCE of SHARDTAB_SUM_EXACT: each element the exact sum of the
 * node's values, rounded once; a thread's ST_EXACT_IN_FLIGHT elements (threads
 * apart, so that a warp's loads stay side by side) summed rank by rank. */
SHARDTAB_DEVFN void st_body_reduce_exact(const st_coll_phase_t *p, size_t thread, size_t threads)
{
    enum { K = ST_EXACT_IN_FLIGHT };
    const size_t size = st_type_size(p->type), n = (size_t)p->sig.node_size;
    const size_t first = p->offset / size;

    for (size_t i = p->begin + thread; i < p->end; i += K * threads) {
        shardtab_detail_exact_few_t sum[K];
        int64_t limbs[K][SHARDTAB_DETAIL_EXACT_LIMBS]; /* their spills */
        uint64_t word[K];
        /* the elements of this round: i, i + threads, ... while below end */
        const size_t left = (p->end - i - 1) / threads + 1;
        const int live = left < (size_t)K ? (int)left : K;

        for (int k = 0; k < K; k++)
            if (k < live)
                word[k] = shardtab_detail_value_word(p->type, p->table[0], first + i + k * threads);
        for (int k = 0; k < K; k++)
            if (k < live)
                shardtab_detail_exact_few_start(&sum[k], limbs[k], p->type, word[k]);
        for (size_t r = 1; r < n; r++) {
            for (int k = 0; k < K; k++)
                if (k < live)
                    word[k] =
                        shardtab_detail_value_word(p->type, p->table[r], first + i + k * threads);
            for (int k = 0; k < K; k++)
                if (k < live)
                    shardtab_detail_exact_few_add_word(&sum[k], p->type, word[k]);
        }
        for (int k = 0; k < K; k++)
            if (k < live)
                shardtab_detail_value_store(p->type, p->dst, i + k * threads,
                                            shardtab_detail_exact_few_word(&sum[k], p->type));
    }
}

/* ST_PHASE_REDUCE, thread `thread` of `threads`. `exact`: p's op is
 * SHARDTAB_SUM_EXACT, said apart so that a GPU kernel built for the other ops
 * (a constant 0: collective_gpu.hip) holds no exact sum (the _as forms take
 * it; the plain forms read it from p) */
SHARDTAB_DEVFN void st_body_reduce_as(const st_coll_phase_t *p, int exact, size_t thread,
                                      size_t threads)
{
    const size_t size = st_type_size(p->type), n = (size_t)p->sig.node_size;
    size_t i = p->begin;

    if (exact) {
        st_body_reduce_exact(p, thread, threads);
        return;
    }
    if (p->vec16) {
        const size_t per = 16 / size, vectors = (p->end - p->begin) / per;
        for (size_t v = thread; v < vectors; v += threads) {
            const size_t at = p->offset + (p->begin + v * per) * size;
            uint64_t acc[2], next[2];
            shardtab_detail_copy16(acc, (const char *)p->table[0] + at);
            for (size_t r = 1; r < n; r++) {
                shardtab_detail_copy16(next, (const char *)p->table[r] + at);
                st_combine16(p->op, p->type, acc, next);
            }
            shardtab_detail_copy16((char *)p->dst + (p->begin + v * per) * size, acc);
        }
        i = p->begin + vectors * per;
    }
    for (i += thread; i < p->end; i += threads) {
        const size_t at = p->offset / size + i;
        uint64_t acc = shardtab_detail_value_word(p->type, p->table[0], at);
        for (size_t r = 1; r < n; r++)
            acc = shardtab_detail_value_combine(
                p->op, p->type, acc, shardtab_detail_value_word(p->type, p->table[r], at));
        shardtab_detail_value_store(p->type, p->dst, i, acc);
    }
}

SHARDTAB_DEVFN void st_body_reduce(const st_coll_phase_t *p, size_t thread, size_t threads)
{
    st_body_reduce_as(p, p->op == SHARDTAB_SUM_EXACT, thread, threads);
}

/* Elements [begin, end) from src (indexed from the region's start) into dst. */
SHARDTAB_DEVFN void st_copy_range(char *dst, const char *src, size_t size, size_t begin, size_t end,
                                  int vec16, size_t thread, size_t threads)
{
    size_t from = begin * size, to = end * size, i = from;

    if (vec16 && from % 16 == 0) {
        const size_t vectors = (to - from) / 16;
        for (size_t v = thread; v < vectors; v += threads)
            shardtab_detail_copy16(dst + from + v * 16, src + from + v * 16);
        i = from + vectors * 16;
    }
    for (i += thread * size; i < to; i += threads * size)
        for (size_t b = 0; b < size; b++)
            dst[i + b] = src[i + b];
}

/* ST_PHASE_COPY and ST_PHASE_CHUNKS */
SHARDTAB_DEVFN void st_body_copy(const st_coll_phase_t *p, size_t thread, size_t threads)
{
    const size_t size = st_type_size(p->type);
    char *mine = (char *)p->table[p->sig.node_rank] + p->offset;

    if (p->phase == ST_PHASE_COPY) {
        const char *src = p->src_rank < 0 ? (const char *)p->scratch
                                          : (const char *)p->table[p->src_rank] + p->offset;
        st_copy_range(mine, src, size, p->begin, p->end, p->vec16, thread, threads);
        return;
    }
    for (int q = 0; q < p->sig.node_size; q++) {
        size_t begin = (size_t)q * p->chunk, end = begin + p->chunk;
        if (q == p->sig.node_rank || begin >= p->count)
            continue;
        if (end > p->count)
            end = p->count;
        st_copy_range(mine, (const char *)p->table[q] + p->offset, size, begin, end, p->vec16,
                      thread, threads);
    }
}

/* A sync, every thread of one block: deposit the words `in` (the call's
 * arguments; with `data`, its word of data after them), wait for every
 * rank's, and refuse a rank
 * whose arguments differ (SHARDTAB_WAIT_MISMATCH, the record's slot naming
 * which argument, its "ticks" the rank). `ordered`: released and acquired at
 * system scope, so that every rank's earlier phases (their stores, the
 * kernels before this one) come before every rank's later ones; without, it
 * orders its own words only (enough after reads: see st_body_one_block).
 * With `data`, every thread gets every rank's data word combined in
 * node-rank order (p's op and type, lane by lane). */
SHARDTAB_DEVFN int st_body_sync_words(const st_coll_phase_t *p, shardtab_coll_t *c,
                                      const uint64_t *in, int ordered, uint64_t *data, int exact)
{
    SHARDTAB_BLOCK_SHARED uint64_t all[SHARDTAB_DETAIL_LIB_COLL_VALUES * 1024];
    const int n = p->sig.node_size;
    const int count = data ? SHARDTAB_DETAIL_LIB_COLL_VALUES : ST_SYNC_ARGS;
    int status =
        shardtab_detail_coll_deposit_block(&p->sig, c, SHARDTAB_DETAIL_COLL_STREAM, SHARDTAB_SUM,
                                           SHARDTAB_INT64, 0, in, count, ordered);

    if (status == SHARDTAB_WAIT_OK)
        status =
            shardtab_detail_coll_gather_block(&p->sig, c, SHARDTAB_DETAIL_COLL_STREAM, SHARDTAB_SUM,
                                              SHARDTAB_INT64, 0, all, count, ordered);
    if (status != SHARDTAB_WAIT_OK)
        return status;
    for (int r = 0; r < n; r++)
        for (int a = 0; a < ST_SYNC_ARGS; a++)
            if (all[r * count + a] != in[a]) {
                if (shardtab_detail_block_leader())
                    shardtab_detail_give_up_as(&p->sig, SHARDTAB_WAIT_MISMATCH,
                                               p->sig.lib_first + a, ST_CMP_STREAM_ARGS, in[a],
                                               all[r * count + a], (uint64_t)r);
                return SHARDTAB_WAIT_MISMATCH;
            }
    if (data && exact) {
        *data = st_exact8(p->type, all + ST_SYNC_ARGS, (size_t)count, (size_t)n);
    } else if (data) {
        uint64_t acc = all[ST_SYNC_ARGS];
        for (int r = 1; r < n; r++)
            acc = st_combine8(p->op, p->type, acc, all[r * count + ST_SYNC_ARGS]);
        *data = acc;
    }
    return SHARDTAB_WAIT_OK;
}

/* ST_PHASE_SYNC: a node barrier that carries the call's arguments; the
 * block holds the library's collective for its start and its finish (one
 * claim). */
SHARDTAB_DEVFN int st_body_sync_block(const st_coll_phase_t *p)
{
    shardtab_coll_t c = shardtab_lib_coll(&p->sig);
    int status = shardtab_coll_hold_block(&p->sig, &c);

    if (status == SHARDTAB_WAIT_OK)
        status = st_body_sync_words(p, &c, p->args, 1, (uint64_t *)0, 0);
    shardtab_coll_release_block(&p->sig, &c);
    return status;
}

/* The region's count values of type (at most ST_LL_BYTES) as one word, the
 * first value in the low bytes; the bytes past them 0. */
SHARDTAB_DEVFN uint64_t st_ll_pack(int type, const void *region, size_t count)
{
    uint64_t w = 0;
    if (type == SHARDTAB_FLOAT) {
        for (size_t i = 0; i < count; i++)
            w |= shardtab_detail_value_word(type, region, i) << 32 * i;
    } else if (count > 0) {
        w = shardtab_detail_value_word(type, region, 0);
    }
    return w;
}

/* st_ll_pack undone: the word's count values into the region. */
SHARDTAB_DEVFN void st_ll_unpack(int type, void *region, size_t count, uint64_t w)
{
    for (size_t i = 0; i < count; i++)
        shardtab_detail_value_store(type, region, i, type == SHARDTAB_FLOAT ? w >> 32 * i : w);
}

/* ST_PHASE_LL, every thread of one block: an all-reduce of at most
 * ST_LL_BYTES in one sync of the library's collective (held for it: one
 * claim), whose words carry this rank's region (p->dst) packed in one word
 * beside the arguments. Every rank combines every rank's word in node-rank
 * order, lane by lane (the bits of st_body_reduce), and its leader stores the
 * result into its own region. Neither side fences: the values travel in the
 * LL words themselves; the region is read and written by this block alone,
 * in stream order with the kernels around it; and a later call that reads it
 * through the table starts with an ordered sync, which publishes these
 * stores (as it does one-block's copy back). */
SHARDTAB_DEVFN int st_body_ll_as(const st_coll_phase_t *p, int exact)
{
    SHARDTAB_BLOCK_SHARED uint64_t in[SHARDTAB_DETAIL_LIB_COLL_VALUES];
    shardtab_coll_t c = shardtab_lib_coll(&p->sig);
    uint64_t result = 0;

    if (shardtab_detail_block_leader()) { /* the words, in shared memory: no thread's stack */
        in[0] = p->args[0];
        in[1] = p->args[1];
        in[2] = st_ll_pack(p->type, p->dst, p->count);
    }
    shardtab_detail_block_sync(); /* in, to every thread */
    int status = shardtab_coll_hold_block(&p->sig, &c);

    if (status == SHARDTAB_WAIT_OK)
        status = st_body_sync_words(p, &c, in, 0, &result, exact);
    shardtab_coll_release_block(&p->sig, &c);
    if (status == SHARDTAB_WAIT_OK && shardtab_detail_block_leader())
        st_ll_unpack(p->type, p->dst, p->count, result);
    return status;
}

SHARDTAB_DEVFN int st_body_ll(const st_coll_phase_t *p)
{
    return st_body_ll_as(p, p->op == SHARDTAB_SUM_EXACT);
}

/* ST_PHASE_ONE_BLOCK, every thread of one block (thread `thread` of
 * `threads`). The second sync needs no fence: every load of a peer's region
 * returned before this rank's words of it are stored (each value was combined
 * and stored into the scratch buffer, then the block's barrier), and a peer
 * overwrites its region only after it has seen those words, so no load can
 * return the overwrite (docs/design.md, "Communication"). The copy back is
 * published to the next call's reads by that call's first sync. */
SHARDTAB_DEVFN int st_body_one_block_as(const st_coll_phase_t *p, int exact, size_t thread,
                                        size_t threads)
{
    st_coll_phase_t q = *p;
    shardtab_coll_t c = shardtab_lib_coll(&p->sig);
    int status = shardtab_coll_hold_block(&p->sig, &c); /* one claim for both syncs */

    if (status == SHARDTAB_WAIT_OK)
        status = st_body_sync_words(p, &c, p->args, 1, (uint64_t *)0, 0);
    if (status != SHARDTAB_WAIT_OK) {
        shardtab_coll_release_block(&p->sig, &c);
        return status;
    }
    q.begin = 0;
    q.end = p->count;
    q.dst = p->scratch;
    st_body_reduce_as(&q, exact, thread, threads);
    shardtab_detail_block_sync(); /* every thread's reads of the regions, and its scratch */
    status = st_body_sync_words(p, &c, p->args, 0, (uint64_t *)0, 0);
    shardtab_coll_release_block(&p->sig, &c);
    if (status != SHARDTAB_WAIT_OK)
        return status;
    q.phase = ST_PHASE_COPY;
    q.src_rank = -1;
    st_body_copy(&q, thread, threads);
    return SHARDTAB_WAIT_OK;
}

SHARDTAB_DEVFN int st_body_one_block(const st_coll_phase_t *p, size_t thread, size_t threads)
{
    return st_body_one_block_as(p, p->op == SHARDTAB_SUM_EXACT, thread, threads);
}

#endif /* ST_COLLECTIVE_BODY_H */
