/* cg_reduce.h - the reductions of cg's solve (cg_body.h): a thread's part
 * of up to two dot products (fma sums, or with repro the exact sums of its
 * chunks' fixed trees, shardtab/exact.h), a block's by a fixed tree, a rank's from
 * every block's part, the node's by the library's all-reduce; the buffer
 * sets a reduction leaves its parts in. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_REDUCE_H
#define CG_REDUCE_H

#include "cg_device.h"
#include "shardtab/exact.h"

/* cg.h's stride of an accumulator, for code that cannot include shardtab/exact.h */
typedef char cg_exact_words_check[CG_EXACT_WORDS == SHARDTAB_DETAIL_EXACT_LIMBS ? 1 : -1];

/* A chunk's sum (repro): its CG_CHUNK terms, term t of global row
 * chunk * CG_CHUNK + t, by one fixed tree: for d = 16, 8, 4, 2, 1, term t
 * (t < d) becomes term t + term t + d. On GPUs the chunk is 32 lanes of a
 * warp (a half of AMD's 64) and the tree a butterfly, lane t adding lane
 * t ^ d: IEEE addition commutes, so every lane ends with the bits of lane 0,
 * which are the tree's. The host's thread keeps the terms and runs the tree
 * over them. */
#if defined(SHARDTAB_DEVICE_HOST)
CG_DEVFN double cg_chunk_tree(double *term)
{
    for (int d = CG_CHUNK / 2; d > 0; d /= 2)
        for (int t = 0; t < d; t++)
            term[t] = shardtab_detail_exact_dadd(term[t], term[t + d]);
    return term[0];
}
#else
CG_DEVFN double cg_chunk_tree_lanes(double term)
{
    for (int d = CG_CHUNK / 2; d > 0; d /= 2) {
#  if defined(SHARDTAB_DEVICE_CUDA)
        const double other = __shfl_xor_sync(0xffffffffu, term, d, CG_CHUNK);
#  else
        const double other = __shfl_xor(term, d, CG_CHUNK);
#  endif
        term = shardtab_detail_exact_dadd(term, other);
    }
    return term;
}
#endif

/* ---- the reductions: a thread's part, a block's, a rank's ------------------------------- */

/* One thread's part of up to two dot products: a running fma sum, or (repro)
 * the exact sum of its chunks' sums, which every lane of a chunk keeps alike
 * and its first lane alone lets overflow into the block's accumulators. */
typedef struct cg_dots {
    double sum[2];
    shardtab_detail_exact_expansion_t exact[2];
#if defined(SHARDTAB_DEVICE_HOST)
    double term[2][CG_CHUNK]; /* repro: the open chunk's terms */
#endif
} cg_dots_t;

CG_DEVFN void cg_dots_init(cg_dots_t *d, int repro)
{
    for (int j = 0; j < 2; j++) {
        d->sum[j] = 0.0;
        if (repro) {
            shardtab_detail_exact_expansion_init(&d->exact[j]);
#if defined(SHARDTAB_DEVICE_HOST)
            for (int t = 0; t < CG_CHUNK; t++)
                d->term[j][t] = 0.0;
#endif
        }
    }
}

/* Adds u v, the term of local row i (every thread of the block calls it in
 * every pass of the rows' loop, a row past the rank's end with u = v = 0).
 * Repro: the product rounded alone, then its chunk's tree. */
CG_DEVFN void cg_dots_add(cg_dots_t *d, int j, double u, double v, int64_t i, int repro,
                          int64_t *block_limbs)
{
    if (!repro) {
        d->sum[j] = fma(u, v, d->sum[j]);
        return;
    }
    const double term = shardtab_detail_exact_dmul(u, v);
#if defined(SHARDTAB_DEVICE_HOST)
    d->term[j][i % CG_CHUNK] = term;
    if (i % CG_CHUNK == CG_CHUNK - 1) {
        shardtab_detail_exact_expansion_add(&d->exact[j], block_limbs + j * CG_EXACT_WORDS,
                                            cg_chunk_tree(d->term[j]));
        for (int t = 0; t < CG_CHUNK; t++)
            d->term[j][t] = 0.0;
    }
#else
    (void)i;
    const double chunk = cg_chunk_tree_lanes(term);
    const int first_lane = shardtab_detail_block_thread() % CG_CHUNK == 0;
    shardtab_detail_exact_expansion_add(
        &d->exact[j], first_lane ? block_limbs + j * CG_EXACT_WORDS : (int64_t *)0, chunk);
#endif
}

/* The block's values of sum[0..count) into every thread's sum, by a fixed
 * order: on GPUs each chunk of 32 lanes by its butterfly (as a chunk's tree,
 * cg_chunk_tree_lanes, in plain adds), then the chunks' sums in order; the
 * host's block is its one thread. */
CG_DEVFN void cg_block_tree(double *sum, int count)
{
#if !defined(SHARDTAB_DEVICE_HOST)
    SHARDTAB_BLOCK_SHARED double lanes_sum[2][CG_BLOCK / CG_CHUNK];
    const int t = shardtab_detail_block_thread();

    for (int j = 0; j < count; j++) {
        double v = sum[j];
        for (int d = CG_CHUNK / 2; d > 0; d /= 2) {
#  if defined(SHARDTAB_DEVICE_CUDA)
            v += __shfl_xor_sync(0xffffffffu, v, d, CG_CHUNK);
#  else
            v += __shfl_xor(v, d, CG_CHUNK);
#  endif
        }
        if (t % CG_CHUNK == 0)
            lanes_sum[j][t / CG_CHUNK] = v;
    }
    shardtab_detail_block_sync();
    for (int j = 0; j < count; j++) {
        double v = 0.0;
        for (int w = 0; w < CG_BLOCK / CG_CHUNK; w++)
            v += lanes_sum[j][w];
        sum[j] = v;
    }
    shardtab_detail_block_sync(); /* every thread has read lanes_sum before its next use */
#else
    (void)sum;
    (void)count;
#endif
}

CG_DEVFN int64_t *cg_limbs_set(const cg_args_t *g, uint64_t r)
{
    return g->limbs + (size_t)(r % 3) * 2 * CG_EXACT_WORDS;
}

CG_DEVFN double *cg_partials_set(const cg_args_t *g, uint64_t r)
{
    return g->partials + (size_t)(r % 2) * 2 * (size_t)g->blocks;
}

/* A phase that makes reduction r begins: the thread's part d zeroed, the
 * block's accumulators zeroed (repro), and block 0 zeroes the rank's set
 * that reduction r + 1 takes, whose last readers read it before they came to
 * the meeting that began this phase. */
CG_DEVFN void cg_reduction_begin(const cg_args_t *g, cg_dots_t *d, int b, uint64_t r,
                                 int64_t *block_limbs)
{
    cg_dots_init(d, g->repro);
    if (!g->repro)
        return;
    const int t = shardtab_detail_block_thread(), n = shardtab_detail_block_threads();
    int64_t *next = cg_limbs_set(g, r + 1);
    for (int i = t; i < 2 * CG_EXACT_WORDS; i += n) {
        block_limbs[i] = 0;
        if (b == 0)
            next[i] = 0;
    }
    shardtab_detail_block_sync();
}

/* Ends a block's part of reduction r: its value of each dot product goes into
 * partials (plain), or its exact sums into the rank's (repro: each chunk
 * run's first lane flushes its expansion into the block's accumulators,
 * which, normalized, go limb by limb into the rank's: each add small enough
 * to keep them from overflowing, shardtab/exact.h). */
CG_DEVFN void cg_block_deliver(const cg_args_t *g, cg_dots_t *d, int count, int b, uint64_t r,
                               int64_t *block_limbs)
{
    const int t = shardtab_detail_block_thread(), n = shardtab_detail_block_threads();

    if (g->repro) {
#if defined(SHARDTAB_DEVICE_HOST)
        /* the rank's last chunk, where its rows end inside one: the terms
         * past them are zero, as the GPUs' lanes past the rows */
        for (int j = 0; j < count; j++)
            shardtab_detail_exact_expansion_add(&d->exact[j], block_limbs + j * CG_EXACT_WORDS,
                                                cg_chunk_tree(d->term[j]));
#endif
        if (t % CG_CHUNK == 0)
            for (int j = 0; j < count; j++)
                shardtab_detail_exact_expansion_flush(&d->exact[j],
                                                      block_limbs + j * CG_EXACT_WORDS);
        shardtab_detail_block_sync();
        for (int j = t; j < count; j += n) /* each dot's own thread: the carries are serial */
            shardtab_detail_exact_normalize(block_limbs + j * CG_EXACT_WORDS);
        shardtab_detail_block_sync();
        int64_t *rank = cg_limbs_set(g, r);
        for (int i = t; i < count * CG_EXACT_WORDS; i += n)
            if (block_limbs[i] != 0)
                SHARDTAB_DETAIL_EXACT_LIMB_ADD(&rank[i], block_limbs[i]);
    } else {
        double *set = cg_partials_set(g, r);
        cg_block_tree(d->sum, count);
        if (shardtab_detail_block_leader())
            for (int j = 0; j < count; j++)
                set[j * g->blocks + b] = d->sum[j];
    }
}

/* This rank's values of `count` dot products of reduction r, from every
 * block's part (every block delivered, and the caller acquired what they
 * did): as the words the node's all-reduce sums (doubles' bits; repro the
 * normalized limbs) into `words`. */
CG_DEVFN void cg_rank_words(const cg_args_t *g, int count, uint64_t r, uint64_t *words)
{
    const int t = shardtab_detail_block_thread(), n = shardtab_detail_block_threads();

    if (g->repro) {
        const int64_t *set = cg_limbs_set(g, r);
        for (int i = t; i < count * CG_EXACT_WORDS; i += n)
            words[i] = (uint64_t)set[i];
        shardtab_detail_block_sync();
        for (int j = t; j < count; j += n) /* each dot's own thread: the carries are serial */
            shardtab_detail_exact_normalize((int64_t *)(words + j * CG_EXACT_WORDS));
        shardtab_detail_block_sync();
        return;
    }
    const double *set = cg_partials_set(g, r);
    double sum[2] = {0.0, 0.0};
    for (int j = 0; j < count; j++)
        for (int i = t; i < g->blocks; i += n)
            sum[j] += set[j * g->blocks + i];
    cg_block_tree(sum, count);
    if (shardtab_detail_block_leader())
        for (int j = 0; j < count; j++) {
            words[j] = shardtab_detail_double_bits(sum[j]);
        }
    shardtab_detail_block_sync();
}

/* Summed words back into `count` doubles (repro: each exact sum rounded
 * once). Every thread gets them. */
CG_DEVFN void cg_words_values(const cg_args_t *g, int count, const uint64_t *words, double *v)
{
    SHARDTAB_BLOCK_SHARED double rounded[2];
    const int t = shardtab_detail_block_thread(), n = shardtab_detail_block_threads();

    if (g->repro) {
        for (int j = t; j < 2; j += n) /* each dot's own thread */
            rounded[j] =
                j < count
                    ? shardtab_detail_exact_round((const int64_t *)(words + j * CG_EXACT_WORDS))
                    : 0.0;
        shardtab_detail_block_sync();
    }
    for (int j = 0; j < count; j++) {
        v[j] = g->repro ? rounded[j] : shardtab_detail_bits_double(words[j]);
    }
    shardtab_detail_block_sync(); /* rounded is free again */
}

/* The node's values of reduction r, or its start or finish alone (how: whole,
 * start, finish; a finish's values into v) by the library's all-reduce. One
 * block calls it. Returns SHARDTAB_WAIT_OK or why not. */
enum { CG_REDUCE_WHOLE = 0, CG_REDUCE_START = 1, CG_REDUCE_FINISH = 2 };

CG_DEVFN int cg_node_reduce(const cg_args_t *g, shardtab_coll_t *c, int count, uint64_t r, int how,
                            double *v)
{
    SHARDTAB_BLOCK_SHARED uint64_t words[CG_COLL_VALUES];
    const int n = g->repro ? count * CG_EXACT_WORDS : count;
    const shardtab_type_t type = g->repro ? SHARDTAB_INT64 : SHARDTAB_DOUBLE;
    int status = SHARDTAB_WAIT_OK;

    if (how != CG_REDUCE_FINISH) {
        cg_rank_words(g, count, r, words);
        status = shardtab_coll_start_block(&g->sig, c, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM, type, 0,
                                           words, n);
    }
    if (status == SHARDTAB_WAIT_OK && how != CG_REDUCE_START) {
        status = shardtab_coll_finish_block(&g->sig, c, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM, type, 0,
                                            words, n);
        if (status == SHARDTAB_WAIT_OK)
            cg_words_values(g, count, words, v);
    }
    shardtab_detail_block_sync(); /* every thread has read words before its next use */
    return status;
}

/* This rank's values, alone on its node: the node's. */
CG_DEVFN void cg_rank_values(const cg_args_t *g, int count, uint64_t r, double *v)
{
    SHARDTAB_BLOCK_SHARED uint64_t words[CG_COLL_VALUES];

    cg_rank_words(g, count, r, words);
    cg_words_values(g, count, words, v);
}

#endif /* CG_REDUCE_H */
