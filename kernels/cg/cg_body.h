/* cg_body.h - the conjugate-gradient solve of cg.h written once for every
 * backend: the HIP and CUDA kernels (cg.hip) and the host backend's calls
 * (cg_host.c, a grid of one block of one thread) run these functions, so CI
 * runs the code the GPUs run. Per target only the block's width (CG_BLOCK)
 * and the fences of a block's part in a meeting of the grid differ.
 *
 * Block b of a grid of G takes the rows b T + t + j G T (T threads, thread t)
 * in every phase, so a block's updates read only what its own product wrote:
 * the phases of one rank meet only at the reductions and at the barrier. A
 * reduction sums each thread's rows in that order (fma, or exactly), the
 * threads of a block by a fixed tree, the blocks by a fixed strided sum and
 * tree, the ranks in node-rank order (the library's all-reduce): the same
 * bits on every rank and every run. With repro every part is an exact sum
 * (cg_exact.h), so the result is the exact dot rounded once, whatever the
 * grid, the ranks or the backend. */
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

#if defined(SHARDTAB_DEVICE_HOST)
#  define CG_BLOCK 1
#else
#  define CG_BLOCK 256
#endif

/* The blocks of one rank meet through words of its ctl, at device scope: a
 * block's stores are released to the others and acquired from them. Every
 * thread's own part where the target needs one (gfx90a: each wave waits for
 * its own stores, and drops its own stale lines of the CU's first-level
 * cache: LLVM's workgroup-scope barrier does neither for other waves), the
 * block's barrier, then the leader's fence beside the counting word. */
SHARDTAB_DEVFN void cg_fence_before_grid_release(void)
{
#if defined(SHARDTAB_DEVICE_HIP)
    shardtab_fence_release_device();
#endif
}
SHARDTAB_DEVFN void cg_fence_after_grid_acquire(void)
{
#if defined(SHARDTAB_DEVICE_HIP)
    shardtab_fence_acquire_device();
#endif
}

/* ---- the reductions -------------------------------------------------------------- */

/* One thread's part of up to two dot products: a running fma sum, or an exact
 * expansion whose overflow goes to the block's accumulators. */
typedef struct cg_dots {
    double sum[2];
    cg_expansion_t exact[2];
} cg_dots_t;

SHARDTAB_DEVFN void cg_dots_init(cg_dots_t *d, int repro)
{
    for (int j = 0; j < 2; j++) {
        d->sum[j] = 0.0;
        if (repro)
            cg_expansion_init(&d->exact[j]);
    }
}

SHARDTAB_DEVFN void cg_dots_add(cg_dots_t *d, int j, double u, double v, int repro,
                                int64_t *block_limbs)
{
    if (repro)
        cg_expansion_add_product(&d->exact[j], block_limbs + j * CG_EXACT_WORDS, u, v);
    else
        d->sum[j] = fma(u, v, d->sum[j]);
}

/* The block's values of sum[0..count) by a fixed tree, into every thread's
 * sum (T a power of two). */
SHARDTAB_DEVFN void cg_block_tree(double *sum, int count)
{
    SHARDTAB_BLOCK_SHARED double scratch[2][CG_BLOCK];
    const int t = shardtab_block_thread(), n = shardtab_block_threads();

    for (int j = 0; j < count; j++)
        scratch[j][t] = sum[j];
    shardtab_block_sync();
    for (int half = n / 2; half > 0; half /= 2) {
        if (t < half)
            for (int j = 0; j < count; j++)
                scratch[j][t] += scratch[j][t + half];
        shardtab_block_sync();
    }
    for (int j = 0; j < count; j++)
        sum[j] = scratch[j][0];
    shardtab_block_sync(); /* every thread has read scratch before its next use */
}

/* Zeroes the block's exact accumulators (repro), before its threads add. */
SHARDTAB_DEVFN void cg_block_limbs_zero(int64_t *block_limbs, int count)
{
    for (int i = shardtab_block_thread(); i < count * CG_EXACT_WORDS; i += shardtab_block_threads())
        block_limbs[i] = 0;
    shardtab_block_sync();
}

/* Ends a block's part of a phase's reductions: its value of each dot product
 * goes into partials[j][b] (plain), or its exact sums into the rank's (repro:
 * limb by limb, each add of a normalized block sum small enough to keep the
 * rank's limbs from overflowing, cg_exact.h). */
SHARDTAB_DEVFN void cg_block_deliver(const cg_args_t *g, cg_dots_t *d, int count, int b,
                                     int64_t *block_limbs)
{
    if (g->repro) {
        /* the threads' expansions merged by a fixed tree (each merge exact:
         * what a level cannot keep goes to the block's limbs, rarely), so
         * that the limbs, shared by every thread, take a few adds instead of
         * every thread's colliding ones */
        SHARDTAB_BLOCK_SHARED cg_expansion_t tree[CG_BLOCK];
        const int t = shardtab_block_thread(), n = shardtab_block_threads();
        for (int j = 0; j < count; j++) {
            int64_t *limbs = block_limbs + j * CG_EXACT_WORDS;
            tree[t] = d->exact[j];
            shardtab_block_sync();
            for (int half = n / 2; half > 0; half /= 2) {
                if (t < half)
                    for (int i = 0; i < CG_EXPANSION; i++)
                        cg_expansion_add(&tree[t], limbs, tree[t + half].a[i]);
                shardtab_block_sync();
            }
            if (shardtab_block_leader()) {
                cg_expansion_flush(&tree[0], limbs);
                cg_exact_normalize(limbs);
            }
            shardtab_block_sync();
        }
        for (int i = shardtab_block_thread(); i < count * CG_EXACT_WORDS;
             i += shardtab_block_threads())
            if (block_limbs[i] != 0)
                CG_EXACT_LIMB_ADD(&g->limbs[i], block_limbs[i]);
    } else {
        cg_block_tree(d->sum, count);
        if (shardtab_block_leader())
            for (int j = 0; j < count; j++)
                g->partials[j * g->blocks + b] = d->sum[j];
    }
}

/* This rank's values of `count` dot products, from every block's part (one
 * block calls it, after every block delivered): into `in`, the all-reduce's
 * input (doubles, or repro normalized limbs). The rank's exact sums are
 * zeroed for their next use. */
SHARDTAB_DEVFN void cg_rank_values(const cg_args_t *g, int count, uint64_t *in)
{
    const int t = shardtab_block_thread(), n = shardtab_block_threads();

    if (g->repro) {
        /* every thread loads and clears limbs; one normalizes, in shared memory */
        shardtab_block_sync();
        for (int i = t; i < count * CG_EXACT_WORDS; i += n) {
            in[i] = (uint64_t)g->limbs[i];
            g->limbs[i] = 0;
        }
        shardtab_block_sync();
        if (shardtab_block_leader())
            for (int j = 0; j < count; j++)
                cg_exact_normalize((int64_t *)(in + j * CG_EXACT_WORDS));
        shardtab_block_sync();
        return;
    }
    double sum[2] = {0.0, 0.0};
    for (int j = 0; j < count; j++)
        for (int i = t; i < g->blocks; i += n)
            sum[j] += g->partials[j * g->blocks + i];
    cg_block_tree(sum, count);
    if (shardtab_block_leader())
        for (int j = 0; j < count; j++) {
            double v = sum[j];
            uint64_t w;
            memcpy(&w, &v, sizeof w);
            in[j] = w;
        }
    shardtab_block_sync();
}

/* The all-reduce's words back into `count` doubles (repro: each exact sum
 * rounded once). Every thread gets them. */
SHARDTAB_DEVFN void cg_node_values(const cg_args_t *g, int count, const uint64_t *out, double *v)
{
    SHARDTAB_BLOCK_SHARED double rounded[2];

    if (g->repro) {
        if (shardtab_block_leader())
            for (int j = 0; j < count; j++)
                rounded[j] = cg_exact_round((const int64_t *)(out + j * CG_EXACT_WORDS));
        shardtab_block_sync();
    }
    for (int j = 0; j < count; j++) {
        if (g->repro) {
            v[j] = rounded[j];
        } else {
            uint64_t w = out[j];
            memcpy(&v[j], &w, sizeof v[j]);
        }
    }
    shardtab_block_sync(); /* rounded is free again */
}

SHARDTAB_DEVFN int cg_words(const cg_args_t *g, int count)
{
    return g->repro ? count * CG_EXACT_WORDS : count;
}

/* The whole reduction of `count` dot products over the node, or its start or
 * finish alone (how: 0 whole, 1 start, 2 finish; a finish's values into v).
 * One block calls it. Returns SHARDTAB_WAIT_OK or why not. */
enum { CG_REDUCE_WHOLE = 0, CG_REDUCE_START = 1, CG_REDUCE_FINISH = 2 };

SHARDTAB_DEVFN int cg_reduce(const cg_args_t *g, shardtab_coll_t *c, int count, int how, double *v)
{
    SHARDTAB_BLOCK_SHARED uint64_t words[CG_COLL_VALUES];
    const int n = cg_words(g, count);
    int status = SHARDTAB_WAIT_OK;

    if (how != CG_REDUCE_FINISH) {
        cg_rank_values(g, count, words);
        status =
            shardtab_coll_start_block(&g->sig, c, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM,
                                      g->repro ? SHARDTAB_INT64 : SHARDTAB_DOUBLE, 0, words, n);
    }
    if (status == SHARDTAB_WAIT_OK && how != CG_REDUCE_START) {
        status =
            shardtab_coll_finish_block(&g->sig, c, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM,
                                       g->repro ? SHARDTAB_INT64 : SHARDTAB_DOUBLE, 0, words, n);
        if (status == SHARDTAB_WAIT_OK)
            cg_node_values(g, count, words, v);
    }
    shardtab_block_sync(); /* every thread has read words before its next use */
    return status;
}

/* ---- the decisions: one block, after a reduction; its leader writes ctl ----------- */

SHARDTAB_DEVFN void cg_trace(const cg_args_t *g, int point)
{
    cg_ctl_t *ctl = g->ctl;
    if (shardtab_block_leader() && ctl->iteration == ctl->trace_iter)
        ctl->trace[point] = shardtab_clock();
}

SHARDTAB_DEVFN void cg_fail(const cg_args_t *g, uint64_t why)
{
    if (shardtab_block_leader()) {
        g->ctl->failed = why;
        g->ctl->stop = 1;
    }
}

/* The residual of iteration k = ctl->iteration is known (rr): its history,
 * and whether to stop before the iteration, as the reference does: at
 * niter, or once ||r|| <= tol ||b|| (also for a residual that is not a
 * number: the comparison fails). Returns 1 to go on. */
SHARDTAB_DEVFN int cg_decide_residual(const cg_args_t *g, double rr)
{
    cg_ctl_t *ctl = g->ctl;
    const uint64_t k = ctl->iteration;

    if (k == 0)
        ctl->bnorm = sqrt(rr);
    const double relative = ctl->bnorm > 0 ? sqrt(rr) / ctl->bnorm : 0.0;
    if ((int64_t)k < g->history_len)
        g->history[k] = relative;
    ctl->rr_old = k == 0 ? 0.0 : ctl->rr;
    ctl->rr = rr;
    if ((int64_t)k >= g->niter || !(relative > g->tol)) {
        ctl->stop = 1;
        return 0;
    }
    return 1;
}

/* A denominator that is not positive: the matrix is not positive definite,
 * unless the residual has already reached rounding (leader only). */
SHARDTAB_DEVFN uint64_t cg_breakdown(const cg_args_t *g, double denominator, double scale)
{
    const cg_ctl_t *ctl = g->ctl;
    const double relative = ctl->bnorm > 0 ? sqrt(ctl->rr) / ctl->bnorm : 0.0;
    /* scale: the size of the terms whose difference the denominator is (0 for
     * a sum): a result within their rounding is noise, not a sign */
    const int noise = fabs(denominator) <= 64 * 2.220446049250313e-16 * scale;
    return relative <= CG_ROUNDING_RESIDUAL || noise ? CG_FAIL_ROUNDING : CG_FAIL_INDEFINITE;
}

/* Standard: rr of iteration k is reduced (k counted here: one more update of
 * x, unless this is the start's). */
SHARDTAB_DEVFN void cg_standard_rr(const cg_args_t *g, shardtab_coll_t *c, int from_start)
{
    double rr[2];

    if (shardtab_block_leader() && !from_start)
        g->ctl->iteration++;
    shardtab_block_sync();
    cg_trace(g, CG_TRACE_BEGIN);
    const int status = cg_reduce(g, c, 1, CG_REDUCE_WHOLE, rr);

    if (status != SHARDTAB_WAIT_OK) {
        cg_fail(g, CG_FAIL_WAIT);
        return;
    }
    if (shardtab_block_leader()) {
        cg_ctl_t *ctl = g->ctl;
        if (cg_decide_residual(g, rr[0]))
            ctl->beta = ctl->iteration == 0 ? 0.0 : ctl->rr / ctl->rr_old;
    }
    cg_trace(g, CG_TRACE_REDUCED);
    shardtab_block_sync();
}

/* Standard: (p, q) is reduced: alpha, or a failure where it is not positive. */
SHARDTAB_DEVFN void cg_standard_pq(const cg_args_t *g, shardtab_coll_t *c)
{
    double pq[2];
    const int status = cg_reduce(g, c, 1, CG_REDUCE_WHOLE, pq);

    if (status != SHARDTAB_WAIT_OK) {
        cg_fail(g, CG_FAIL_WAIT);
        return;
    }
    if (shardtab_block_leader()) {
        cg_ctl_t *ctl = g->ctl;
        ctl->denominator = pq[0];
        if (pq[0] > 0)
            ctl->alpha = ctl->rr / pq[0];
        else
            cg_fail(g, cg_breakdown(g, pq[0], 0.0));
    }
    cg_trace(g, CG_TRACE_DECIDED);
    shardtab_block_sync();
}

/* Pipelined: this rank's gamma and delta go out (the iteration counted,
 * unless this is the start's). */
SHARDTAB_DEVFN void cg_pipelined_start(const cg_args_t *g, shardtab_coll_t *c, int from_start)
{
    if (shardtab_block_leader() && !from_start)
        g->ctl->iteration++;
    shardtab_block_sync();
    cg_trace(g, CG_TRACE_BEGIN);
    if (cg_reduce(g, c, 2, CG_REDUCE_START, (double *)0) != SHARDTAB_WAIT_OK)
        cg_fail(g, CG_FAIL_WAIT);
    cg_trace(g, CG_TRACE_REDUCED);
    shardtab_block_sync();
}

/* Pipelined: gamma = (r, r) and delta = (w, r) are in; the residual decides,
 * then alpha and beta (Ghysels and Vanroose's recurrences). */
SHARDTAB_DEVFN void cg_pipelined_finish(const cg_args_t *g, shardtab_coll_t *c)
{
    double v[2];
    const int status = cg_reduce(g, c, 2, CG_REDUCE_FINISH, v);

    if (status != SHARDTAB_WAIT_OK) {
        cg_fail(g, CG_FAIL_WAIT);
        return;
    }
    if (shardtab_block_leader()) {
        cg_ctl_t *ctl = g->ctl;
        const double gamma = v[0], delta = v[1];
        ctl->delta = delta;
        if (cg_decide_residual(g, gamma)) {
            double denominator = delta, scale = 0.0;
            ctl->beta = 0.0;
            if (ctl->iteration > 0) {
                ctl->beta = gamma / ctl->rr_old;
                const double t = ctl->beta * gamma / ctl->alpha_old;
                denominator = delta - t;
                scale = fabs(delta) + fabs(t);
            }
            ctl->denominator = denominator;
            if (denominator > 0) {
                ctl->alpha = gamma / denominator;
                ctl->alpha_old = ctl->alpha;
            } else {
                cg_fail(g, cg_breakdown(g, denominator, scale));
            }
        }
    }
    cg_trace(g, CG_TRACE_DECIDED);
    shardtab_block_sync();
}

/* ---- the phases: every block, its rows ----------------------------------------------- */

/* A scalar block 0 (or a stream phase's last block) decided, read after the
 * grid barrier or launch boundary that ordered it: past the first level of
 * cache, which a multiprocessor does not keep coherent with the others. */
SHARDTAB_DEVFN double cg_scalar(const double *p)
{
    return *(const volatile double *)p;
}

SHARDTAB_DEVFN uint64_t cg_count(const uint64_t *p)
{
    return *(const volatile uint64_t *)p;
}

#define CG_ROWS(g, b, i)                                                                           \
  for (int64_t i = (int64_t)(b)*shardtab_block_threads() + shardtab_block_thread();                \
       i < (g)->a.rows; i += (int64_t)(g)->blocks * shardtab_block_threads())

/* The product of this block's rows with the vector of table x: y = A x, and
 * with dot: the block's part of (v, y) as dot product 0. */
SHARDTAB_DEVFN void cg_product(const cg_args_t *g, int b, double *const *x, double *y,
                               const double *v, int64_t *block_limbs)
{
    spmv_rows_t m = g->a;
    cg_dots_t d;

    m.x = x;
    cg_dots_init(&d, g->repro);
    if (v && g->repro)
        cg_block_limbs_zero(block_limbs, 1);
    CG_ROWS(g, b, i)
    {
        const double yi = spmv_row(&m, i);
        y[i] = yi;
        if (v)
            cg_dots_add(&d, 0, v[i], yi, g->repro, block_limbs);
    }
    if (v)
        cg_block_deliver(g, &d, 1, b, block_limbs);
}

/* Standard, the direction: p = r + beta p. */
SHARDTAB_DEVFN void cg_update_p(const cg_args_t *g, int b)
{
    const double beta = cg_scalar(&g->ctl->beta);
    CG_ROWS(g, b, i)
    g->p[i] = fma(beta, g->p[i], g->r[i]);
}

/* Standard, the iterate and residual: x += alpha p, r -= alpha q, and the
 * block's part of (r, r). */
SHARDTAB_DEVFN void cg_update_xr(const cg_args_t *g, int b, int64_t *block_limbs)
{
    const double alpha = cg_scalar(&g->ctl->alpha);
    cg_dots_t d;

    cg_dots_init(&d, g->repro);
    if (g->repro)
        cg_block_limbs_zero(block_limbs, 1);
    CG_ROWS(g, b, i)
    {
        g->x[i] = fma(alpha, g->p[i], g->x[i]);
        const double ri = fma(-alpha, g->q[i], g->r[i]);
        g->r[i] = ri;
        cg_dots_add(&d, 0, ri, ri, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, 1, b, block_limbs);
}

/* The block's parts of (r, r) and (w, r), w the shard of iteration k. */
SHARDTAB_DEVFN void cg_gamma_delta(const cg_args_t *g, int b, const double *w, int64_t *block_limbs)
{
    cg_dots_t d;

    cg_dots_init(&d, g->repro);
    if (g->repro)
        cg_block_limbs_zero(block_limbs, 2);
    CG_ROWS(g, b, i)
    {
        const double ri = g->r[i];
        cg_dots_add(&d, 0, ri, ri, g->repro, block_limbs);
        cg_dots_add(&d, 1, w[i], ri, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, 2, b, block_limbs);
}

/* Pipelined, every vector of iteration k = ctl->iteration, then the block's
 * parts of gamma and delta of k + 1. */
SHARDTAB_DEVFN void cg_update_pipelined(const cg_args_t *g, int b, int64_t *block_limbs)
{
    const double alpha = cg_scalar(&g->ctl->alpha), beta = cg_scalar(&g->ctl->beta);
    const uint64_t k = cg_count(&g->ctl->iteration);
    const double *w = g->w[k & 1];
    double *w_next = g->w[(k + 1) & 1];
    cg_dots_t d;

    cg_dots_init(&d, g->repro);
    if (g->repro)
        cg_block_limbs_zero(block_limbs, 2);
    CG_ROWS(g, b, i)
    {
        const double wi = w[i];
        const double zi = fma(beta, g->z[i], g->q[i]);
        const double si = fma(beta, g->s[i], wi);
        const double pi = fma(beta, g->p[i], g->r[i]);
        g->z[i] = zi;
        g->s[i] = si;
        g->p[i] = pi;
        g->x[i] = fma(alpha, pi, g->x[i]);
        const double ri = fma(-alpha, si, g->r[i]);
        const double wn = fma(-alpha, zi, wi);
        g->r[i] = ri;
        w_next[i] = wn;
        cg_dots_add(&d, 0, ri, ri, g->repro, block_limbs);
        cg_dots_add(&d, 1, wn, ri, g->repro, block_limbs);
    }
    cg_block_deliver(g, &d, 2, b, block_limbs);
}

/* ---- the persistent solve: every block, one launch --------------------------------- */

/* The device has stopped the solve (read after a meeting: the same answer in
 * every block, so no block is left at a meeting alone). */
SHARDTAB_DEVFN int cg_stopped(const cg_args_t *g)
{
    return cg_count(&g->ctl->stop) != 0;
}

/* Spins until *word >= want (relaxed device-scope loads: the caller's
 * acquire fence follows), at most `limit` ticks: 0 when it ran out. */
SHARDTAB_DEVFN int cg_spin(uint64_t *word, uint64_t want, uint64_t limit)
{
    const uint64_t start = shardtab_clock();

    while (shardtab_load_relaxed_device(word) < want) {
        if (shardtab_clock() - start > limit)
            return 0;
        shardtab_pause();
    }
    return 1;
}

/* A meeting of the grid, the n-th of the launch: every block arrives, block
 * 0 waits for the others, does the meeting's work (a reduction, the node's
 * barrier), and releases them; a block waits for that, not for every other
 * block. One round trip through the ctl words where a grid barrier around
 * block 0's work would take two. Co-residency (a cooperative launch) means
 * every block comes; the waits are bounded all the same (block 0's work may
 * itself wait up to the table's limit, so four times that), and a wait that
 * runs out stops the solve (CG_FAIL_WAIT). Returns 1 in block 0, which then
 * does the work and calls cg_meet_end. */
SHARDTAB_DEVFN int cg_meet_begin(const cg_args_t *g, int b, uint64_t n)
{
    const uint64_t limit = 4 * g->sig.timeout_ticks;

    cg_fence_before_grid_release();
    shardtab_block_sync();
    if (b != 0) {
        if (shardtab_block_leader()) {
            shardtab_fence_release_device();
            (void)shardtab_fetch_add_relaxed_system(&g->ctl->grid_arrived, 1);
        }
        return 0;
    }
    if (shardtab_block_leader()) {
        if (!cg_spin(&g->ctl->grid_arrived, n * (uint64_t)(g->blocks - 1), limit))
            cg_fail(g, CG_FAIL_WAIT);
        shardtab_fence_acquire_device();
    }
    shardtab_block_sync();
    cg_fence_after_grid_acquire();
    return 1;
}

SHARDTAB_DEVFN void cg_meet_end(const cg_args_t *g, int b, uint64_t n)
{
    if (b == 0) {
        cg_fence_before_grid_release();
        shardtab_block_sync();
        if (shardtab_block_leader()) {
            shardtab_fence_release_device();
            shardtab_flag_relaxed_device(&g->ctl->grid_released, n);
        }
        shardtab_block_sync();
        return;
    }
    if (shardtab_block_leader()) {
        if (!cg_spin(&g->ctl->grid_released, n, 4 * g->sig.timeout_ticks))
            cg_fail(g, CG_FAIL_WAIT);
        shardtab_fence_acquire_device();
    }
    shardtab_block_sync();
    cg_fence_after_grid_acquire();
}

/* The node's barrier, by block 0 at a meeting (the stores of every block of
 * this rank reached it through the meeting, and its system-scope release is
 * cumulative). Nothing to meet at one rank. */
SHARDTAB_DEVFN void cg_node_barrier(const cg_args_t *g)
{
    if (g->sig.node_size > 1 && shardtab_barrier_block(&g->sig) != SHARDTAB_WAIT_OK)
        cg_fail(g, CG_FAIL_WAIT);
    cg_trace(g, CG_TRACE_BARRIER);
}

/* The rest of the solve after cg_start's reduction, up to its stop; block 0
 * holds the collective for the launch. Standard: three meetings an
 * iteration (the barrier, (p, q), (r, r)); pipelined: two (gamma and delta's
 * finish; their start with the barrier). */
SHARDTAB_DEVFN void cg_persistent_body(const cg_args_t *g, int b, int64_t *block_limbs)
{
    shardtab_coll_t c = shardtab_coll(&g->sig, 0, CG_COLL_VALUES);
    uint64_t n = 1;

    if (cg_meet_begin(g, b, n)) {
        if (shardtab_coll_hold_block(&g->sig, &c) != SHARDTAB_WAIT_OK)
            cg_fail(g, CG_FAIL_WAIT);
        if (g->variant == CG_PIPELINED)
            cg_node_barrier(g); /* every rank's w_0 is in place */
    }
    cg_meet_end(g, b, n++);
    if (g->variant == CG_STANDARD) {
        while (!cg_stopped(g)) {
            cg_update_p(g, b);
            if (cg_meet_begin(g, b, n))
                cg_node_barrier(g);
            cg_meet_end(g, b, n++);
            if (cg_stopped(g))
                break;
            cg_product(g, b, g->p_table, g->q, g->p, block_limbs);
            if (cg_meet_begin(g, b, n)) {
                cg_trace(g, CG_TRACE_PRODUCT);
                cg_standard_pq(g, &c);
            }
            cg_meet_end(g, b, n++);
            if (cg_stopped(g))
                break;
            cg_update_xr(g, b, block_limbs);
            if (cg_meet_begin(g, b, n)) {
                cg_trace(g, CG_TRACE_END);
                cg_standard_rr(g, &c, 0);
            }
            cg_meet_end(g, b, n++);
        }
    } else {
        while (!cg_stopped(g)) {
            const uint64_t k = cg_count(&g->ctl->iteration);
            cg_product(g, b, g->w_table[k & 1], g->q, (const double *)0, block_limbs);
            if (cg_meet_begin(g, b, n)) {
                cg_trace(g, CG_TRACE_PRODUCT);
                cg_pipelined_finish(g, &c);
            }
            cg_meet_end(g, b, n++);
            if (cg_stopped(g))
                break;
            cg_update_pipelined(g, b, block_limbs);
            if (cg_meet_begin(g, b, n)) {
                cg_trace(g, CG_TRACE_END);
                cg_pipelined_start(g, &c, 0); /* counts the iteration */
                cg_node_barrier(g);           /* every rank's w_k+1 is in place */
            }
            cg_meet_end(g, b, n++);
        }
    }
    if (b == 0)
        shardtab_coll_release_block(&g->sig, &c);
}

/* ---- the stream launches: a phase a launch, its last block reduces ------------------ */

/* Called by every block after its part of a phase: 1 in the block that
 * arrives last (it then sees every other block's part), 0 in the others. */
SHARDTAB_DEVFN int cg_last_block(const cg_args_t *g)
{
    SHARDTAB_BLOCK_SHARED int last;

    cg_fence_before_grid_release();
    shardtab_block_sync();
    if (shardtab_block_leader()) {
        shardtab_fence_release_device();
        const uint64_t ticket = shardtab_fetch_add_relaxed_system(&g->ctl->arrived, 1) + 1;
        last = ticket % (uint64_t)g->blocks == 0;
        if (last)
            shardtab_fence_acquire_device(); /* the other blocks' parts, seen through the count */
    }
    shardtab_block_sync();
    const int mine = last;
    shardtab_block_sync();
    if (mine)
        cg_fence_after_grid_acquire();
    return mine;
}

/* The start (cg_start): every block, then the last one reduces. */
SHARDTAB_DEVFN void cg_start_block(const cg_args_t *g, int b, int64_t *block_limbs)
{
    shardtab_coll_t c = shardtab_coll(&g->sig, 0, CG_COLL_VALUES);

    if (g->variant == CG_STANDARD) {
        cg_dots_t d;
        cg_dots_init(&d, g->repro);
        if (g->repro)
            cg_block_limbs_zero(block_limbs, 1);
        CG_ROWS(g, b, i)
        cg_dots_add(&d, 0, g->r[i], g->r[i], g->repro, block_limbs);
        cg_block_deliver(g, &d, 1, b, block_limbs);
        if (cg_last_block(g))
            cg_standard_rr(g, &c, 1);
    } else {
        cg_product(g, b, g->p_table, g->w[0], (const double *)0, block_limbs);
        cg_gamma_delta(g, b, g->w[0], block_limbs);
        if (cg_last_block(g))
            cg_pipelined_start(g, &c, 1);
    }
}

/* One phase of a stream iteration (cg_stream_phases), every block. */
SHARDTAB_DEVFN void cg_stream_block(const cg_args_t *g, int phase, int b, int64_t *block_limbs)
{
    shardtab_coll_t c = shardtab_coll(&g->sig, 0, CG_COLL_VALUES);

    if (cg_stopped(g))
        return;
    if (g->variant == CG_STANDARD) {
        if (phase == 0) {
            cg_update_p(g, b);
        } else if (phase == 1) {
            if (b == 0)
                cg_trace(g, CG_TRACE_BARRIER);
            cg_product(g, b, g->p_table, g->q, g->p, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, CG_TRACE_PRODUCT);
                cg_standard_pq(g, &c);
            }
        } else {
            cg_update_xr(g, b, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, CG_TRACE_END);
                cg_standard_rr(g, &c, 0);
            }
        }
    } else {
        if (phase == 0) {
            if (b == 0)
                cg_trace(g, CG_TRACE_BARRIER);
            const uint64_t k = cg_count(&g->ctl->iteration);
            cg_product(g, b, g->w_table[k & 1], g->q, (const double *)0, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, CG_TRACE_PRODUCT);
                cg_pipelined_finish(g, &c);
            }
        } else {
            cg_update_pipelined(g, b, block_limbs);
            if (cg_last_block(g)) {
                cg_trace(g, CG_TRACE_END);
                cg_pipelined_start(g, &c, 0);
            }
        }
    }
}

#endif /* CG_BODY_H */
