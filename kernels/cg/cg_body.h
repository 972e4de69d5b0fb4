/* cg_body.h - the conjugate-gradient solve of cg.h written once for every
 * backend: the HIP and CUDA kernels (cg.hip) and the host backend's calls
 * (cg_host.c, a grid of one block of one thread) run these functions, so CI
 * runs the code the GPUs run. Per target only the block's width (CG_BLOCK),
 * the fences of a block's part in a meeting of the grid and a chunk's tree
 * (the lanes of a warp, or a loop over them) differ.
 *
 * Block b of a grid of G takes the rows b T + t + j G T (T threads, thread t)
 * in every phase, so a block's updates read only what its own product wrote:
 * the phases of one rank meet only at the reductions and at the barrier.
 *
 * A reduction: each thread sums its rows in that order (fma), the threads of
 * a block by a fixed tree, the blocks by a fixed strided sum and tree, the
 * ranks in node-rank order (the library's all-reduce): the same bits in every
 * block, on every rank and every run. With repro a dot product is the exact
 * sum (cg_exact.h) of its chunks' sums, a chunk being CG_CHUNK consecutive
 * global rows summed by a fixed tree, every chunk whole on one rank (the
 * split falls on chunk boundaries): the same bits whatever the grid, the
 * ranks or the backend.
 *
 * The scalars (cg_state_t) live in each block (shared memory): every block
 * decides them itself from the same reduced values. Reduction r (the r-th of
 * the solve) leaves its parts in buffer set r % 2 (partials) or r % 3
 * (limbs): a set is written again only once every block has read it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_BODY_H
#define CG_BODY_H

#if defined(SHARDTAB_DEVICE_HOST) ||                                                               \
    !(defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__))
#  include <math.h>
#  include <string.h>
#endif

#include "cg.h"
#include "cg_exact.h"
#include "shardtab_comm.h"
#include "spmv_body.h"

/* cg.h's stride of an accumulator, for code that cannot include cg_exact.h */
typedef char cg_exact_words_check[CG_EXACT_WORDS == CG_EXACT_LIMBS ? 1 : -1];

/* ---- per target ----------------------------------------------------------------------- */

/* Every function below is inlined into each kernel: a kernel instantiated
 * for plain sums (cg.hip's REPRO 0) then folds the exact path away, and
 * keeps neither its registers nor its stack. */
#if defined(SHARDTAB_DEVICE_HOST)
#  define CG_DEVFN SHARDTAB_DEVFN
#else
#  define CG_DEVFN __device__ static __forceinline__
#endif

#if defined(SHARDTAB_DEVICE_HOST)
#  define CG_BLOCK 1
#else
#  define CG_BLOCK 256
#endif
typedef char cg_block_of_chunks_check[CG_BLOCK % CG_CHUNK == 0 || CG_BLOCK == 1 ? 1 : -1];

/* The blocks of one rank meet through words of its ctl, at device scope: a
 * block's stores are released to the others and acquired from them. Every
 * thread's own part where the target needs one (gfx90a: each wave waits for
 * its own stores, and drops its own stale lines of the CU's first-level
 * cache: LLVM's workgroup-scope barrier does neither for other waves), the
 * block's barrier, then the leader's fence beside the counting word. */
CG_DEVFN void cg_fence_before_grid_release(void)
{
#if defined(SHARDTAB_DEVICE_HIP)
    shardtab_detail_fence_release_device();
#endif
}
CG_DEVFN void cg_fence_after_grid_acquire(void)
{
#if defined(SHARDTAB_DEVICE_HIP)
    shardtab_detail_fence_acquire_device();
#endif
}

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
            term[t] = cg_exact_dadd(term[t], term[t + d]);
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
        term = cg_exact_dadd(term, other);
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
    cg_expansion_t exact[2];
#if defined(SHARDTAB_DEVICE_HOST)
    double term[2][CG_CHUNK]; /* repro: the open chunk's terms */
#endif
} cg_dots_t;

CG_DEVFN void cg_dots_init(cg_dots_t *d, int repro)
{
    for (int j = 0; j < 2; j++) {
        d->sum[j] = 0.0;
        if (repro) {
            cg_expansion_init(&d->exact[j]);
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
    const double term = cg_exact_dmul(u, v);
#if defined(SHARDTAB_DEVICE_HOST)
    d->term[j][i % CG_CHUNK] = term;
    if (i % CG_CHUNK == CG_CHUNK - 1) {
        cg_expansion_add(&d->exact[j], block_limbs + j * CG_EXACT_WORDS, cg_chunk_tree(d->term[j]));
        for (int t = 0; t < CG_CHUNK; t++)
            d->term[j][t] = 0.0;
    }
#else
    (void)i;
    const double chunk = cg_chunk_tree_lanes(term);
    const int first_lane = shardtab_detail_block_thread() % CG_CHUNK == 0;
    cg_expansion_add(&d->exact[j], first_lane ? block_limbs + j * CG_EXACT_WORDS : (int64_t *)0,
                     chunk);
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

/* A phase that makes reduction r begins: the block's accumulators zeroed
 * (repro), and block 0 zeroes the rank's set that reduction r + 1 takes,
 * whose last readers read it before they came to the meeting that began
 * this phase. */
CG_DEVFN void cg_reduction_begin(const cg_args_t *g, int b, uint64_t r, int64_t *block_limbs)
{
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
 * to keep them from overflowing, cg_exact.h). */
CG_DEVFN void cg_block_deliver(const cg_args_t *g, cg_dots_t *d, int count, int b, uint64_t r,
                               int64_t *block_limbs)
{
    const int t = shardtab_detail_block_thread(), n = shardtab_detail_block_threads();

    if (g->repro) {
#if defined(SHARDTAB_DEVICE_HOST)
        /* the rank's last chunk, where its rows end inside one: the terms
         * past them are zero, as the GPUs' lanes past the rows */
        for (int j = 0; j < count; j++)
            cg_expansion_add(&d->exact[j], block_limbs + j * CG_EXACT_WORDS,
                             cg_chunk_tree(d->term[j]));
#endif
        if (t % CG_CHUNK == 0)
            for (int j = 0; j < count; j++)
                cg_expansion_flush(&d->exact[j], block_limbs + j * CG_EXACT_WORDS);
        shardtab_detail_block_sync();
        for (int j = t; j < count; j += n) /* each dot's own thread: the carries are serial */
            cg_exact_normalize(block_limbs + j * CG_EXACT_WORDS);
        shardtab_detail_block_sync();
        int64_t *rank = cg_limbs_set(g, r);
        for (int i = t; i < count * CG_EXACT_WORDS; i += n)
            if (block_limbs[i] != 0)
                CG_EXACT_LIMB_ADD(&rank[i], block_limbs[i]);
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
            cg_exact_normalize((int64_t *)(words + j * CG_EXACT_WORDS));
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
                j < count ? cg_exact_round((const int64_t *)(words + j * CG_EXACT_WORDS)) : 0.0;
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

/* ---- the decisions: every block that needs the scalars, its leader writes ------------- */

/* Called by the block that writes the solve's record (owner): block 0 of a
 * persistent solve, a stream phase's last block, cg_decide. */
CG_DEVFN void cg_trace(const cg_args_t *g, const cg_state_t *st, int point)
{
    cg_ctl_t *ctl = g->ctl;
    if (shardtab_detail_block_leader() && st->iteration == ctl->trace_iter)
        ctl->trace[point] = shardtab_detail_clock();
}

CG_DEVFN void cg_fail(cg_state_t *st, uint64_t why)
{
    if (shardtab_detail_block_leader()) {
        st->failed = why;
        st->stop = 1;
    }
}

/* The block's copy of the scalars from the ctl (a stream launch's start: the
 * last launch's decisions, ordered by the launches' boundary). */
CG_DEVFN void cg_state_load(const cg_args_t *g, cg_state_t *st)
{
    if (shardtab_detail_block_leader()) {
        const volatile cg_state_t *from = &g->ctl->st;
        st->rr = from->rr;
        st->rr_old = from->rr_old;
        st->alpha = from->alpha;
        st->beta = from->beta;
        st->alpha_old = from->alpha_old;
        st->delta = from->delta;
        st->bnorm = from->bnorm;
        st->denominator = from->denominator;
        st->iteration = from->iteration;
        st->stop = from->stop;
        st->failed = from->failed;
        st->reductions = from->reductions;
    }
    shardtab_detail_block_sync();
}

/* The owner's copy into the ctl, for the next launch and the host. */
CG_DEVFN void cg_state_store(const cg_args_t *g, const cg_state_t *st)
{
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader())
        g->ctl->st = *st;
    shardtab_detail_block_sync();
}

/* An iteration begins: one more update of x done. */
CG_DEVFN void cg_begin_iteration(const cg_args_t *g, cg_state_t *st, int owner)
{
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader())
        st->iteration++;
    shardtab_detail_block_sync();
    if (owner)
        cg_trace(g, st, CG_TRACE_BEGIN);
}

/* The residual of iteration k = st->iteration is known (rr): its history,
 * and whether to stop before the iteration, as the reference does: at
 * niter, or once ||r|| <= tol ||b|| (also for a residual that is not a
 * number: the comparison fails). Returns 1 to go on. Leader only. */
CG_DEVFN int cg_decide_residual(const cg_args_t *g, cg_state_t *st, double rr, int owner)
{
    const uint64_t k = st->iteration;

    if (k == 0)
        st->bnorm = sqrt(rr);
    const double relative = st->bnorm > 0 ? sqrt(rr) / st->bnorm : 0.0;
    if (owner && (int64_t)k < g->history_len)
        g->history[k] = relative;
    st->rr_old = k == 0 ? 0.0 : st->rr;
    st->rr = rr;
    /* N5: a residual that is not a number passed "not above the tolerance" as converged */
    if (!(relative <= CG_DBL_MAX) || !(st->bnorm <= CG_DBL_MAX)) {
        cg_fail(st, CG_FAIL_NONFINITE);
        return 0;
    }
    if ((int64_t)k >= g->niter || !(relative > g->tol)) {
        st->stop = 1;
        return 0;
    }
    return 1;
}

/* A denominator that is not positive: the matrix is not positive definite,
 * unless the residual has already reached rounding, or the denominator is a
 * difference within its terms' rounding; one that is not a number is the
 * recurrence out of range (leader only). */
CG_DEVFN uint64_t cg_breakdown(const cg_state_t *st, double denominator, double scale)
{
    if (!(fabs(denominator) <= CG_DBL_MAX)) /* N5: overflow was "not positive definite" */
        return CG_FAIL_NONFINITE;
    const double relative = st->bnorm > 0 ? sqrt(st->rr) / st->bnorm : 0.0;
    /* scale: the size of the terms whose difference the denominator is (0 for
     * a sum, (p, A p), whose exact 0 with a residual far from rounding is a
     * singular matrix: N4, it was called rounding): a result within their
     * rounding is noise, not a sign */
    const int noise = scale > 0 && fabs(denominator) <= 64 * 2.220446049250313e-16 * scale;
    return relative <= CG_ROUNDING_RESIDUAL || noise ? CG_FAIL_ROUNDING : CG_FAIL_INDEFINITE;
}

/* Standard: rr of iteration k is reduced: the history, the stop, beta. */
CG_DEVFN void cg_decide_rr(const cg_args_t *g, cg_state_t *st, double rr, int owner)
{
    if (shardtab_detail_block_leader()) {
        if (cg_decide_residual(g, st, rr, owner))
            st->beta = st->iteration == 0 ? 0.0 : st->rr / st->rr_old;
        st->reductions++;
    }
    shardtab_detail_block_sync();
    if (owner)
        cg_trace(g, st, CG_TRACE_REDUCED);
}

/* Standard: (p, q) is reduced: alpha, or a failure where it is not positive. */
CG_DEVFN void cg_decide_pq(const cg_args_t *g, cg_state_t *st, double pq, int owner)
{
    if (shardtab_detail_block_leader()) {
        st->denominator = pq;
        if (pq > 0)
            st->alpha = st->rr / pq;
        else
            cg_fail(st, cg_breakdown(st, pq, 0.0));
        st->reductions++;
    }
    shardtab_detail_block_sync();
    if (owner)
        cg_trace(g, st, CG_TRACE_DECIDED);
}

/* Pipelined: gamma = (r, r) and delta = (w, r) are in (v); the residual
 * decides, then alpha and beta (Ghysels and Vanroose's recurrences). */
CG_DEVFN void cg_decide_gamma_delta(const cg_args_t *g, cg_state_t *st, const double *v, int owner)
{
    if (shardtab_detail_block_leader()) {
        const double gamma = v[0], delta = v[1];
        st->delta = delta;
        if (cg_decide_residual(g, st, gamma, owner)) {
            double denominator = delta, scale = 0.0;
            st->beta = 0.0;
            if (st->iteration > 0) {
                st->beta = gamma / st->rr_old;
                const double t = st->beta * gamma / st->alpha_old;
                denominator = delta - t;
                scale = fabs(delta) + fabs(t);
            }
            st->denominator = denominator;
            if (denominator > 0) {
                st->alpha = gamma / denominator;
                st->alpha_old = st->alpha;
            } else {
                cg_fail(st, cg_breakdown(st, denominator, scale));
            }
        }
        st->reductions++;
    }
    shardtab_detail_block_sync();
    if (owner)
        cg_trace(g, st, CG_TRACE_DECIDED);
}

/* The decision a reduction of `count` dot products allows: rr or (p, q) for
 * the standard variant (which: the count of reductions decided, odd for
 * (p, q)), gamma and delta for the pipelined. */
CG_DEVFN void cg_decide_values(const cg_args_t *g, cg_state_t *st, const double *v, int owner)
{
    if (g->variant == CG_PIPELINED)
        cg_decide_gamma_delta(g, st, v, owner);
    else if (st->reductions % 2 == 1)
        cg_decide_pq(g, st, v[0], owner);
    else
        cg_decide_rr(g, st, v[0], owner);
}

/* ---- the phases: every block, its rows ----------------------------------------------- */

/* Block b's rows, a block's width at a time, every thread in every pass (a
 * warp's lanes stay together for a chunk's tree): row i, live while inside
 * the rank's rows. CG_ROWS_STREAMED for the vector updates: unrolled on
 * GPUs, their pointers restrict-qualified, so that a thread's loads of
 * several rows are in flight at once. */
#define CG_ROWS(g, b, i, live) CG_ROWS_LOOP(g, b, i, live)
#define CG_ROWS_LOOP(g, b, i, live)                                                                \
  for (int64_t i##_base = (int64_t)(b)*CG_BLOCK; i##_base < (g)->a.rows;                           \
       i##_base += (int64_t)(g)->blocks * CG_BLOCK)                                                \
    for (int64_t i = i##_base + shardtab_detail_block_thread(), live = i < (g)->a.rows,            \
                 i##_pass = 1;                                                                     \
         i##_pass; i##_pass = 0)
#if defined(SHARDTAB_DEVICE_HOST)
#  define CG_RESTRICT restrict
#  define CG_ROWS_STREAMED(g, b, i, live) CG_ROWS_LOOP(g, b, i, live)
#elif defined(SHARDTAB_DEVICE_HIP)
/* clang does not unroll these loops of unknown trip count (it warns); the
 * restrict-qualified pointers stay */
#  define CG_RESTRICT __restrict__
#  define CG_ROWS_STREAMED(g, b, i, live) CG_ROWS_LOOP(g, b, i, live)
#else
#  define CG_RESTRICT __restrict__
#  ifndef CG_UNROLL
#    define CG_UNROLL 2
#  endif
#  define CG_PRAGMA(text) _Pragma(#  text)
#  define CG_UNROLL_PRAGMA(n) CG_PRAGMA(unroll n)
#  define CG_ROWS_STREAMED(g, b, i, live) CG_UNROLL_PRAGMA(CG_UNROLL) CG_ROWS_LOOP(g, b, i, live)
#endif

/* The product of this block's rows with the vector of table x: y = A x, and
 * with v: the block's part of (v, y) as reduction r. */
CG_DEVFN void cg_product(const cg_args_t *g, int b, double *const *x, double *y, const double *v,
                         uint64_t r, int64_t *block_limbs)
{
    spmv_rows_t m = g->a;
    cg_dots_t d;

    m.x = x;
    if (v) {
        cg_dots_init(&d, g->repro);
        cg_reduction_begin(g, b, r, block_limbs);
    }
    CG_ROWS(g, b, i, live)
    {
        double yi = 0.0, vi = 0.0;
        if (live) {
            yi = spmv_row(&m, i);
            y[i] = yi;
            if (v)
                vi = v[i];
        }
        if (v)
            cg_dots_add(&d, 0, vi, yi, i, g->repro, block_limbs);
    }
    if (v)
        cg_block_deliver(g, &d, 1, b, r, block_limbs);
}

/* Standard, fused: the product with p = r + beta p_old made at every column
 * (spmv_row_axpy), row i's p stored in the other buffer of the pair, and the
 * block's part of (p, q) as reduction r. */
CG_DEVFN void cg_product_fused(const cg_args_t *g, const cg_state_t *st, int b,
                               int64_t *block_limbs)
{
    const double beta = st->beta;
    const uint64_t k = st->iteration, red = st->reductions;
    const double *CG_RESTRICT p_old = g->p_pair[k & 1], *CG_RESTRICT r = g->r;
    double *CG_RESTRICT p_new = g->p_pair[(k + 1) & 1], *CG_RESTRICT q = g->q;
    cg_dots_t d;

    cg_dots_init(&d, g->repro);
    cg_reduction_begin(g, b, red, block_limbs);
    CG_ROWS(g, b, i, live)
    {
        double yi = 0.0, pi = 0.0;
        if (live) {
            yi = spmv_row_axpy(&g->a, i, r, p_old, beta);
            pi = fma(beta, p_old[i], r[i]);
            q[i] = yi;
            p_new[i] = pi;
        }
        cg_dots_add(&d, 0, pi, yi, i, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, 1, b, red, block_limbs);
}

/* The direction of iteration st->iteration, after its product: fused, the
 * pair's newer buffer. */
CG_DEVFN const double *cg_direction(const cg_args_t *g, const cg_state_t *st)
{
    return g->fused ? g->p_pair[(st->iteration + 1) & 1] : g->p;
}

/* Standard, the direction: p = r + beta p. */
CG_DEVFN void cg_update_p(const cg_args_t *g, const cg_state_t *st, int b)
{
    const double beta = st->beta;
    double *CG_RESTRICT p = g->p;
    const double *CG_RESTRICT r = g->r;
    CG_ROWS_STREAMED(g, b, i, live)
    if (live)
        p[i] = fma(beta, p[i], r[i]);
}

/* Standard, the iterate and residual: x += alpha p, r -= alpha q, and the
 * block's part of (r, r) as reduction r. */
CG_DEVFN void cg_update_xr(const cg_args_t *g, const cg_state_t *st, int b, int64_t *block_limbs)
{
    const double alpha = st->alpha;
    const uint64_t red = st->reductions;
    double *CG_RESTRICT x = g->x, *CG_RESTRICT r = g->r;
    const double *CG_RESTRICT p = cg_direction(g, st), *CG_RESTRICT q = g->q;
    cg_dots_t d;

    cg_dots_init(&d, g->repro);
    cg_reduction_begin(g, b, red, block_limbs);
    CG_ROWS_STREAMED(g, b, i, live)
    {
        double ri = 0.0;
        if (live) {
            x[i] = fma(alpha, p[i], x[i]);
            ri = fma(-alpha, q[i], r[i]);
            r[i] = ri;
        }
        cg_dots_add(&d, 0, ri, ri, i, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, 1, b, red, block_limbs);
}

/* The start: the block's part of (r, r) (standard), or of (r, r) and (w, r),
 * w the shard of iteration 0 (pipelined), as reduction 0. */
CG_DEVFN void cg_start_dots(const cg_args_t *g, int b, int count, const double *w,
                            int64_t *block_limbs)
{
    cg_dots_t d;

    cg_dots_init(&d, g->repro);
    cg_reduction_begin(g, b, 0, block_limbs);
    CG_ROWS(g, b, i, live)
    {
        const double ri = live ? g->r[i] : 0.0;
        cg_dots_add(&d, 0, ri, ri, i, g->repro, block_limbs);
        if (count == 2)
            cg_dots_add(&d, 1, live ? w[i] : 0.0, ri, i, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, count, b, 0, block_limbs);
}

/* Pipelined, every vector of iteration k = st->iteration, then the block's
 * parts of gamma and delta of k + 1 as the next reduction. */
CG_DEVFN void cg_update_pipelined(const cg_args_t *g, const cg_state_t *st, int b,
                                  int64_t *block_limbs)
{
    const double alpha = st->alpha, beta = st->beta;
    const uint64_t k = st->iteration, red = st->reductions;
    const double *CG_RESTRICT w = g->w[k & 1], *CG_RESTRICT q = g->q;
    double *CG_RESTRICT w_next = g->w[(k + 1) & 1];
    double *CG_RESTRICT z = g->z, *CG_RESTRICT s = g->s, *CG_RESTRICT p = g->p;
    double *CG_RESTRICT x = g->x, *CG_RESTRICT r = g->r;
    cg_dots_t d;

    cg_dots_init(&d, g->repro);
    cg_reduction_begin(g, b, red, block_limbs);
    CG_ROWS_STREAMED(g, b, i, live)
    {
        double ri = 0.0, wn = 0.0;
        if (live) {
            const double wi = w[i];
            const double zi = fma(beta, z[i], q[i]);
            const double si = fma(beta, s[i], wi);
            const double pi = fma(beta, p[i], r[i]);
            z[i] = zi;
            s[i] = si;
            p[i] = pi;
            x[i] = fma(alpha, pi, x[i]);
            ri = fma(-alpha, si, r[i]);
            wn = fma(-alpha, zi, wi);
            r[i] = ri;
            w_next[i] = wn;
        }
        cg_dots_add(&d, 0, ri, ri, i, g->repro, block_limbs);
        cg_dots_add(&d, 1, wn, ri, i, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, 2, b, red, block_limbs);
}

/* ---- the persistent solve: every block, one launch --------------------------------- */

/* Spins until *word >= want (relaxed device-scope loads: the caller's
 * acquire fence follows), at most `limit` ticks: 0 when it ran out. */
CG_DEVFN int cg_spin(uint64_t *word, uint64_t want, uint64_t limit)
{
    const uint64_t start = shardtab_detail_clock();

    while (shardtab_detail_load_relaxed_device(word) < want) {
        if (shardtab_detail_clock() - start > limit)
            return 0;
        shardtab_detail_pause();
    }
    return 1;
}

/* A wait of the grid's meetings that ran out: the block stops, and says so
 * for the host (the others' waits run out in turn). Leader only. */
CG_DEVFN void cg_wait_failed(const cg_args_t *g, cg_state_t *st)
{
    cg_fail(st, CG_FAIL_WAIT);
    shardtab_detail_store_relaxed_device(&g->ctl->wait_failed, 1);
}

/* The meetings of a persistent grid. Co-residency (a cooperative launch)
 * means every block comes; the waits are bounded all the same (block 0's
 * node work may itself wait up to the table's limit, so four times that).
 *
 * Every block arrives at every meeting (its stores released, one count). A
 * rank alone on its node then waits for every arrival: a grid barrier, after
 * which every block sums the reduction's parts itself. With peers block 0
 * alone waits, does the node's work (the all-reduce, the barrier) and
 * publishes its outcome; the others wait for that: one round trip through
 * the ctl words. Block 0 also publishes a finish that needs no arrival (the
 * pipelined reduction's, after the product). */
typedef struct cg_meetings {
    uint64_t arrived;   /* meetings every block has arrived at */
    uint64_t published; /* outcomes block 0 has published */
} cg_meetings_t;

CG_DEVFN void cg_arrive(const cg_args_t *g)
{
    cg_fence_before_grid_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader()) {
        shardtab_detail_fence_release_device();
        (void)shardtab_detail_fetch_add_relaxed_system(&g->ctl->grid_arrived, 1);
    }
}

/* Waits for arrival n of every block. */
CG_DEVFN void cg_await_all(const cg_args_t *g, cg_state_t *st, uint64_t n)
{
    if (shardtab_detail_block_leader()) {
        if (!cg_spin(&g->ctl->grid_arrived, n * (uint64_t)g->blocks, 4 * g->sig.timeout_ticks))
            cg_wait_failed(g, st);
        shardtab_detail_fence_acquire_device();
    }
    shardtab_detail_block_sync();
    cg_fence_after_grid_acquire();
}

/* Block 0: outcome n out, with `count` values and whether its work failed. */
CG_DEVFN void cg_publish(const cg_args_t *g, uint64_t n, const double *v, int count, int failed)
{
    cg_fence_before_grid_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader()) {
        for (int j = 0; j < count; j++)
            g->ctl->published_value[j] = v[j];
        g->ctl->published_failed = (uint64_t)failed;
        shardtab_detail_fence_release_device();
        shardtab_detail_flag_relaxed_device(&g->ctl->published, n);
    }
    shardtab_detail_block_sync();
}

/* The others: outcome n in; a failure of block 0's stops this block too. */
CG_DEVFN void cg_await_published(const cg_args_t *g, cg_state_t *st, uint64_t n, double *v,
                                 int count)
{
    SHARDTAB_BLOCK_SHARED double value[2];

    if (shardtab_detail_block_leader()) {
        if (!cg_spin(&g->ctl->published, n, 4 * g->sig.timeout_ticks))
            cg_wait_failed(g, st);
        shardtab_detail_fence_acquire_device();
        const volatile cg_ctl_t *ctl = g->ctl;
        for (int j = 0; j < count; j++)
            value[j] = ctl->published_value[j];
        if (ctl->published_failed)
            cg_fail(st, CG_FAIL_WAIT);
    }
    shardtab_detail_block_sync();
    cg_fence_after_grid_acquire();
    for (int j = 0; j < count; j++)
        v[j] = value[j];
    shardtab_detail_block_sync(); /* value is free again */
}

/* What a meeting does beyond meeting. */
enum {
    CG_MEET_OPEN = 0, /* the solve's first: block 0 holds the collective (and, pipelined,
                         joins the barrier after the start's w_0) */
    CG_MEET_BARRIER,  /* the node's barrier: every rank's operand is in place */
    CG_MEET_REDUCE,   /* a whole reduction: its values */
    CG_MEET_START,    /* the pipelined reduction's start, and the node's barrier */
    CG_MEET_FINISH    /* the pipelined reduction's finish: its values (no arrival) */
};

/* One meeting; values (REDUCE, FINISH) of `count` dot products of the
 * reduction st->reductions into v, the same bits in every block. */
CG_DEVFN void cg_meet(const cg_args_t *g, cg_state_t *st, int b, cg_meetings_t *m, int what,
                      shardtab_coll_t *c, int count, double *v)
{
    const uint64_t r = st->reductions;
    const int owner = b == 0;

    if (g->sig.node_size <= 1) {
        if (what != CG_MEET_FINISH) {
            cg_arrive(g);
            cg_await_all(g, st, ++m->arrived);
        }
        if (what == CG_MEET_START && owner)
            cg_trace(g, st, CG_TRACE_REDUCED);
        if ((what == CG_MEET_BARRIER || what == CG_MEET_START) && owner)
            cg_trace(g, st, CG_TRACE_BARRIER);
        if (what == CG_MEET_REDUCE || what == CG_MEET_FINISH)
            cg_rank_values(g, count, r, v);
        return;
    }
    if (what != CG_MEET_FINISH)
        cg_arrive(g);
    ++m->published;
    if (b != 0) {
        cg_await_published(g, st, m->published, v, count);
        return;
    }
    int status = SHARDTAB_WAIT_OK;
    double out[2] = {0.0, 0.0};
    if (what != CG_MEET_FINISH)
        cg_await_all(g, st, ++m->arrived);
    if (what == CG_MEET_OPEN)
        status = shardtab_coll_hold_block(&g->sig, c);
    else if (what == CG_MEET_REDUCE)
        status = cg_node_reduce(g, c, count, r, CG_REDUCE_WHOLE, out);
    else if (what == CG_MEET_START)
        status = cg_node_reduce(g, c, count, r, CG_REDUCE_START, out);
    else if (what == CG_MEET_FINISH)
        status = cg_node_reduce(g, c, count, r, CG_REDUCE_FINISH, out);
    if (what == CG_MEET_START)
        cg_trace(g, st, CG_TRACE_REDUCED);
    const int barrier = what == CG_MEET_BARRIER || what == CG_MEET_START ||
                        (what == CG_MEET_OPEN && g->variant == CG_PIPELINED);
    if (status == SHARDTAB_WAIT_OK && barrier) {
        status = shardtab_barrier_block(&g->sig);
        cg_trace(g, st, CG_TRACE_BARRIER);
    }
    cg_publish(g, m->published, out, count, status != SHARDTAB_WAIT_OK);
    if (status != SHARDTAB_WAIT_OK)
        cg_fail(st, CG_FAIL_WAIT);
    shardtab_detail_block_sync();
    for (int j = 0; j < count; j++)
        v[j] = out[j];
}

/* The rest of the solve after cg_start's reduction, up to its stop; block 0
 * holds the collective for the launch, where there are peers. Alone on the
 * node, standard: two grid barriers an iteration ((p, q); (r, r); p made
 * inside the product, fused); pipelined: one (w complete, and gamma and
 * delta's parts, which every block sums after the product). */
CG_DEVFN void cg_persistent_body(const cg_args_t *g, int b, cg_state_t *st, int64_t *block_limbs)
{
    shardtab_coll_t c = shardtab_coll(&g->sig, 0, CG_COLL_VALUES);
    cg_meetings_t m = {0, 0};
    const int owner = b == 0;
    double v[2] = {0.0, 0.0};

    cg_state_load(g, st);
    if (g->sig.node_size > 1)
        cg_meet(g, st, b, &m, CG_MEET_OPEN, &c, 0, v);
    if (g->variant == CG_STANDARD) {
        while (!st->stop) {
            if (g->fused) {
                if (owner) /* no barrier: the product reads only this rank's r and p */
                    cg_trace(g, st, CG_TRACE_BARRIER);
                cg_product_fused(g, st, b, block_limbs);
            } else {
                cg_update_p(g, st, b);
                cg_meet(g, st, b, &m, CG_MEET_BARRIER, &c, 0, v);
                if (st->stop)
                    break;
                cg_product(g, b, g->p_table, g->q, g->p, st->reductions, block_limbs);
            }
            if (owner)
                cg_trace(g, st, CG_TRACE_PRODUCT);
            cg_meet(g, st, b, &m, CG_MEET_REDUCE, &c, 1, v);
            if (st->stop)
                break;
            cg_decide_pq(g, st, v[0], owner);
            if (st->stop)
                break;
            cg_update_xr(g, st, b, block_limbs);
            if (owner)
                cg_trace(g, st, CG_TRACE_END);
            cg_begin_iteration(g, st, owner);
            cg_meet(g, st, b, &m, CG_MEET_REDUCE, &c, 1, v);
            if (st->stop)
                break;
            cg_decide_rr(g, st, v[0], owner);
        }
    } else {
        while (!st->stop) {
            cg_product(g, b, g->w_table[st->iteration & 1], g->q, (const double *)0, 0,
                       block_limbs);
            if (owner)
                cg_trace(g, st, CG_TRACE_PRODUCT);
            cg_meet(g, st, b, &m, CG_MEET_FINISH, &c, 2, v);
            if (st->stop)
                break;
            cg_decide_gamma_delta(g, st, v, owner);
            if (st->stop)
                break;
            cg_update_pipelined(g, st, b, block_limbs);
            if (owner)
                cg_trace(g, st, CG_TRACE_END);
            cg_begin_iteration(g, st, owner);
            cg_meet(g, st, b, &m, CG_MEET_START, &c, 2, v);
        }
    }
    if (g->sig.node_size > 1 && b == 0)
        shardtab_coll_release_block(&g->sig, &c);
    if (owner)
        cg_state_store(g, st);
}

/* ---- the stream launches: a phase a launch, its last block reduces ------------------ */

/* Called by every block after its part of a phase: 1 in the block that
 * arrives last (it then sees every other block's part), 0 in the others. */
CG_DEVFN int cg_last_block(const cg_args_t *g)
{
    SHARDTAB_BLOCK_SHARED int last;

    cg_fence_before_grid_release();
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader()) {
        shardtab_detail_fence_release_device();
        const uint64_t ticket = shardtab_detail_fetch_add_relaxed_system(&g->ctl->arrived, 1) + 1;
        last = ticket % (uint64_t)g->blocks == 0;
        if (last)
            shardtab_detail_fence_acquire_device(); /* the other blocks' parts, seen through the count */
    }
    shardtab_detail_block_sync();
    const int mine = last;
    shardtab_detail_block_sync();
    if (mine)
        cg_fence_after_grid_acquire();
    return mine;
}

/* The last block of a phase that ends reduction st->reductions (how: whole,
 * start, finish): alone on the node its values, with peers the node's
 * all-reduce, across nodes (split) this rank's words left in dots for the
 * host; then, where the values are in, the decision; then the scalars out
 * for the next launch. */
CG_DEVFN void cg_last_reduce(const cg_args_t *g, cg_state_t *st, int count, int how)
{
    const uint64_t r = st->reductions;
    double v[2] = {0.0, 0.0};
    int decided = how != CG_REDUCE_START;

    if (g->split) {
        if (how != CG_REDUCE_FINISH)
            cg_rank_words(g, count, r, g->dots);
        decided = 0; /* cg_decide, after the host's sum */
    } else if (g->sig.node_size <= 1) {
        if (decided)
            cg_rank_values(g, count, r, v);
    } else {
        shardtab_coll_t c = shardtab_coll(&g->sig, 0, CG_COLL_VALUES);
        if (cg_node_reduce(g, &c, count, r, how, v) != SHARDTAB_WAIT_OK) {
            cg_fail(st, CG_FAIL_WAIT);
            decided = 0;
        }
        shardtab_detail_block_sync();
    }
    if (how == CG_REDUCE_START)
        cg_trace(g, st, CG_TRACE_REDUCED);
    if (decided)
        cg_decide_values(g, st, v, 1);
    cg_state_store(g, st);
}

/* The start (cg_start): every block, then the last one reduces. */
CG_DEVFN void cg_start_block(const cg_args_t *g, int b, cg_state_t *st, int64_t *block_limbs)
{
    cg_state_load(g, st);
    if (g->variant == CG_STANDARD) {
        cg_start_dots(g, b, 1, (const double *)0, block_limbs);
        if (cg_last_block(g)) {
            cg_trace(g, st, CG_TRACE_BEGIN);
            cg_last_reduce(g, st, 1, CG_REDUCE_WHOLE);
        }
    } else {
        cg_product(g, b, g->p_table, g->w[0], (const double *)0, 0, block_limbs);
        cg_start_dots(g, b, 2, g->w[0], block_limbs);
        if (cg_last_block(g)) {
            cg_trace(g, st, CG_TRACE_BEGIN);
            cg_last_reduce(g, st, 2, CG_REDUCE_START);
        }
    }
}

/* One phase of a stream iteration (cg_stream_phases), every block. */
CG_DEVFN void cg_stream_block(const cg_args_t *g, int phase, int b, cg_state_t *st,
                              int64_t *block_limbs)
{
    cg_state_load(g, st);
    if (st->stop)
        return;
    if (g->variant == CG_STANDARD) {
        if (phase == 0) {
            cg_update_p(g, st, b);
        } else if (phase == 1) {
            if (b == 0)
                cg_trace(g, st, CG_TRACE_BARRIER);
            cg_product(g, b, g->p_table, g->q, g->p, st->reductions, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, st, CG_TRACE_PRODUCT);
                cg_last_reduce(g, st, 1, CG_REDUCE_WHOLE);
            }
        } else {
            cg_update_xr(g, st, b, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, st, CG_TRACE_END);
                cg_begin_iteration(g, st, 1);
                cg_last_reduce(g, st, 1, CG_REDUCE_WHOLE);
            }
        }
    } else {
        if (phase == 0) {
            if (b == 0)
                cg_trace(g, st, CG_TRACE_BARRIER);
            cg_product(g, b, g->w_table[st->iteration & 1], g->q, (const double *)0, 0,
                       block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, st, CG_TRACE_PRODUCT);
                cg_last_reduce(g, st, 2, CG_REDUCE_FINISH);
            }
        } else {
            cg_update_pipelined(g, st, b, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, st, CG_TRACE_END);
                cg_begin_iteration(g, st, 1);
                cg_last_reduce(g, st, 2, CG_REDUCE_START);
            }
        }
    }
}

/* Across nodes (split), one block: the decision the host's sum of every
 * rank's words in dots allows (cg_decide_after). */
CG_DEVFN void cg_decide_block(const cg_args_t *g, cg_state_t *st, int decision)
{
    double v[2] = {0.0, 0.0};

    cg_state_load(g, st);
    if (st->stop || decision == CG_DECIDE_NONE)
        return;
    cg_words_values(g, decision == CG_DECIDE_GAMMA_DELTA ? 2 : 1, g->dots, v);
    cg_decide_values(g, st, v, 1);
    cg_state_store(g, st);
}

#endif /* CG_BODY_H */
