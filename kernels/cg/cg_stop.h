/* cg_stop.h - the decisions of cg's solve (cg_body.h): the scalars a block
 * keeps (loaded from the ctl, stored back by the owner), the trace and the
 * failures, and from each reduction's values the residual's history, the
 * stop, alpha and beta, or a breakdown. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_STOP_H
#define CG_STOP_H

#include "cg_device.h"

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

#endif /* CG_STOP_H */
