/* jacobi_protocol.h - what the jacobi program does between its sweeps, written
 * once for every backend (HIP and CUDA kernels, the host backend's loops) over
 * the library's device layer (shardtab_comm.h): the wait for a neighbour's
 * "finished k - 1", the strip's "finished k" once every tile of it has stored
 * its edge row into the neighbour's ghost row, the norm's all-reduce in
 * node-rank order, the stop rule (one iteration late, as the anchors), the
 * failure path and the trace. Every function is called by every thread of a
 * block (the host backend's block is its one thread). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_PROTOCOL_H
#define JACOBI_PROTOCOL_H

#if defined(SHARDTAB_DEVICE_HOST) ||                                                               \
    !(defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__))
#  include <math.h>
#endif

#include "jacobi_op.h"
#include "jacobi_sweep.h"
#include "shardtab_comm.h"

/* ---- the trace --------------------------------------------------------------------- */

/* Iteration k's trace record, or NULL. */
SHARDTAB_DEVFN uint64_t *jacobi_trace_of(const jacobi_step_t *s, uint64_t k, uint64_t base)
{
    return s->trace && k - base < (uint64_t)s->trace_len
               ? s->trace + (k - base) * JACOBI_TRACE_EVENTS
               : (uint64_t *)0;
}
SHARDTAB_DEVFN void jacobi_trace_min(uint64_t *rec, int event, uint64_t v)
{
    if (rec)
        shardtab_detail_min_relaxed_system(&rec[event], v);
}
SHARDTAB_DEVFN void jacobi_trace_max(uint64_t *rec, int event, uint64_t v)
{
    if (rec)
        shardtab_detail_max_relaxed_system(&rec[event], v);
}

/* ---- the stop rule and the failure path ----------------------------------------------- */

/* One thread: the solve ends after iteration k, for every block. stop_at only
 * ever falls, so every block that reads it after k's join decides alike; the
 * plan's pacing learns it from done. */
SHARDTAB_DEVFN void jacobi_stop_after(const jacobi_step_t *s, uint64_t k)
{
    shardtab_detail_min_relaxed_system(&s->ctl->stop_at, k + 1);
    if (s->done)
        *s->done = 1;
}

/* One thread: a wait gave up (or another rank did): this rank's solve ends after k. */
SHARDTAB_DEVFN void jacobi_fail_at(const jacobi_step_t *s, uint64_t k)
{
    shardtab_detail_max_relaxed_system(&s->ctl->failed, 1); /* read by other blocks meanwhile; a 2
                                                          (jacobi_onchip_give_up) stays */
    jacobi_stop_after(s, k);
}

/* Has a rank of the node given up a wait? (The 1-GPU reference has no pads.) */
SHARDTAB_DEVFN int jacobi_peers_aborted(const jacobi_step_t *s)
{
    return s->sig.mine && shardtab_aborted(&s->sig);
}

/* ---- the neighbours ------------------------------------------------------------------- */

/* Before the tile touches a ghost row: the neighbour's "finished k - 1" in
 * `slot`. Returns 1 to go on, 0 when the tile must stop (the solve then ends
 * after k), in every thread. */
SHARDTAB_DEVFN int jacobi_wait_neighbour(const jacobi_step_t *s, int slot, uint64_t k,
                                         uint64_t *rec)
{
    uint64_t t0 = rec ? shardtab_detail_clock() : 0;
    int status = shardtab_signal_wait_block(&s->sig, slot, SHARDTAB_CMP_GE, k);

    if (shardtab_detail_block_leader()) {
        jacobi_trace_max(rec, JACOBI_TRACE_WAIT, shardtab_detail_clock() - t0);
        if (status != SHARDTAB_WAIT_OK)
            jacobi_fail_at(s, k);
    }
    return status == SHARDTAB_WAIT_OK;
}

/* The tile is done, its stores into the neighbour's ghost row included: it
 * counts itself into the strip's *arrived, and the strip's last tile tells
 * `peer` "finished k" in `slot` (shardtab_signal_after_blocks). */
SHARDTAB_DEVFN void jacobi_strip_done(const jacobi_step_t *s, uint64_t *arrived, int peer, int slot,
                                      uint64_t k, uint64_t *rec)
{
    uint64_t t0 = rec ? shardtab_detail_clock() : 0;

    if (!s->skip_signal) /* the test hook: a neighbour that never signals */
        (void)shardtab_signal_after_blocks(&s->sig, arrived, (uint64_t)s->blocks_x, peer, slot,
                                           k + 1);
    if (shardtab_detail_block_leader())
        jacobi_trace_max(rec, JACOBI_TRACE_SIGNAL, shardtab_detail_clock() - t0);
}

/* ---- the norm ------------------------------------------------------------------------- */

/* The node's all-reduce of the squared norm: one double, summed in node-rank
 * order, on a node of two ranks or more. A rank alone on its node (and the
 * 1-GPU reference, which has no pads) decides on its own norm: the pads'
 * round trip costs about 6 us an iteration on an H200 (system-scope fences,
 * docs/performance.md), more than a whole 1024^2 iteration. */
SHARDTAB_DEVFN int jacobi_norm_through_pads(const jacobi_step_t *s)
{
    return s->device_norm && s->sig.mine && s->sig.node_size > 1;
}

SHARDTAB_DEVFN shardtab_coll_t jacobi_norm_coll(const jacobi_step_t *s)
{
    return shardtab_coll(&s->sig, JACOBI_SLOT_NORM, 1);
}

/* The norm's collective held by a block that makes every norm call of its
 * launch (one claim for all of them; shardtab_coll_hold_block), taken at
 * its first (jacobi_persistent_norm); the block that made c releases it
 * (shardtab_coll_release_block) when it is done: the persistent kernel's
 * block 0, the on-chip norm block. A step's closing block does not hold it:
 * its two calls claim for themselves, and the temporal pass kernel, which
 * closes its steps, keeps the registers a hold's paths would take (on an
 * H200 its spills grew by 64 bytes a thread and a pass took 14-18% longer). */
SHARDTAB_DEVFN int jacobi_norm_hold(const jacobi_step_t *s, shardtab_coll_t *c)
{
    return c->held ? SHARDTAB_WAIT_OK : shardtab_coll_hold_block(&s->sig, c);
}

/* At a solve's first iteration: an earlier solve may have left its last
 * norm's deposit unfinished (a step launch deposits the norm of k before it
 * decides on k - 1, and the solve may end there); every rank left the same,
 * so every rank finishes it here, and the epochs stay paired. */
SHARDTAB_DEVFN int jacobi_norm_drain(const jacobi_step_t *s, shardtab_coll_t *c)
{
    SHARDTAB_BLOCK_SHARED uint64_t pending;
    double discard[1];
    int status = SHARDTAB_WAIT_OK;

    if (!jacobi_norm_through_pads(s))
        return SHARDTAB_WAIT_OK;
    shardtab_detail_block_sync();
    if (shardtab_detail_block_leader())
        pending = shardtab_detail_coll_pending(&s->sig, c);
    shardtab_detail_block_sync();
    for (uint64_t i = 0; i < pending && status == SHARDTAB_WAIT_OK; i++)
        status = shardtab_coll_finish_block(&s->sig, c, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM,
                                            SHARDTAB_DOUBLE, 0, discard, 1);
    return status;
}

/* This rank's squared norm of iteration k (*local2, readable by every thread
 * after the block's barrier) into every node peer's pad. */
SHARDTAB_DEVFN int jacobi_norm_deposit(const jacobi_step_t *s, shardtab_coll_t *c,
                                       const double *local2)
{
    if (!jacobi_norm_through_pads(s))
        return SHARDTAB_WAIT_OK;
    return shardtab_coll_start_block(&s->sig, c, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM,
                                     SHARDTAB_DOUBLE, 0, local2, 1);
}

/* Closing iteration k, its first half: the node's squared norm of k - 1 into
 * *global2 (the leader's), every rank's summed in node-rank order (the same
 * bits on every rank); a rank alone on its node (or the 1-GPU reference)
 * takes its own, ctl->local_norm2. Nothing where k decides nothing. Returns 0
 * when a wait gave up, in every thread. */
SHARDTAB_DEVFN int jacobi_decision_norm(const jacobi_step_t *s, shardtab_coll_t *c, uint64_t k,
                                        uint64_t base, uint64_t *rec, double *global2)
{
    if (!s->device_norm || !jacobi_decision_iteration(base, s->nccheck, k))
        return 1;
    if (jacobi_norm_through_pads(s)) {
        uint64_t t0 = rec ? shardtab_detail_clock() : 0;
        int status = shardtab_coll_finish_block(&s->sig, c, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM,
                                                SHARDTAB_DOUBLE, 0, global2, 1);
        if (status != SHARDTAB_WAIT_OK) {
            if (shardtab_detail_block_leader())
                jacobi_fail_at(s, k);
            return 0;
        }
        if (rec && shardtab_detail_block_leader())
            rec[JACOBI_TRACE_NORM_WAIT] = shardtab_detail_clock() - t0;
    } else if (shardtab_detail_block_leader()) {
        global2[0] = s->ctl->local_norm2; /* a rank alone: its own norm of k - 1 */
    }
    return 1;
}

/* Does the solve stop after k, on that norm (the leader's)? The rule, one
 * iteration late as the anchors; or the test's planted early stop. */
SHARDTAB_DEVFN int jacobi_decision_stops(const jacobi_step_t *s, uint64_t k, uint64_t base,
                                         double global2)
{
    if (s->fault.kind == JACOBI_FAULT_STOP && k - base == (uint64_t)s->fault.iteration)
        return 1;
    return s->device_norm && jacobi_decision_iteration(base, s->nccheck, k) &&
           sqrt(global2) <= s->tol;
}

/* One thread, its second half: the norm of k - 1 recorded (ctl and the
 * history), and the stop. */
SHARDTAB_DEVFN void jacobi_decision_record(const jacobi_step_t *s, uint64_t k, uint64_t base,
                                           double global2)
{
    jacobi_ctl_t *ctl = s->ctl;

    if (s->device_norm && jacobi_decision_iteration(base, s->nccheck, k)) {
        double norm = sqrt(global2);
        int slot = jacobi_history_slot(k - 1 - base, s->nccheck, s->history_len);
        ctl->norm = norm;
        ctl->norm_iter = k - 1;
        if (slot >= 0)
            s->history[slot] = norm;
    }
    if (jacobi_decision_stops(s, k, base, global2))
        jacobi_stop_after(s, k);
}

/* Closing iteration k, whole: the decision on the norm of k - 1, recorded.
 * Returns 0 when a wait gave up, in every thread. */
SHARDTAB_DEVFN int jacobi_decide(const jacobi_step_t *s, shardtab_coll_t *c, uint64_t k,
                                 uint64_t base, uint64_t *rec)
{
    SHARDTAB_BLOCK_SHARED double global2[1];

    if (shardtab_detail_block_leader())
        global2[0] = 0.0;
    if (!jacobi_decision_norm(s, c, k, base, rec, global2))
        return 0;
    if (shardtab_detail_block_leader())
        jacobi_decision_record(s, k, base, global2[0]);
    return 1;
}

/* ---- closing an iteration, for a launch per step -------------------------------------- */

/* The last block of iteration k, once local2 (this rank's squared norm of k,
 * when k is a norm iteration) is summed: the decision on k - 1, then k's
 * deposit, then the next iteration. The decision first: a step that stops the
 * solve deposits nothing it would leave unfinished... except the solve's last
 * step, which cannot know it is (jacobi_norm_drain). */
SHARDTAB_DEVFN void jacobi_close_step_with(const jacobi_step_t *s, shardtab_coll_t *c, uint64_t k,
                                           uint64_t base, const double *local2, uint64_t *rec)
{
    jacobi_ctl_t *ctl = s->ctl;
    const int norm_iter = jacobi_norm_iteration(base, s->nccheck, k);
    uint64_t t0 = rec ? shardtab_detail_clock() : 0;

    if (k == base && jacobi_norm_drain(s, c) != SHARDTAB_WAIT_OK) {
        if (shardtab_detail_block_leader())
            jacobi_fail_at(s, k);
        return;
    }
    if (!jacobi_decide(s, c, k, base, rec))
        return;
    if (norm_iter && jacobi_norm_deposit(s, c, local2) != SHARDTAB_WAIT_OK) {
        if (shardtab_detail_block_leader())
            jacobi_fail_at(s, k);
        return;
    }
    if (!shardtab_detail_block_leader())
        return;
    if (norm_iter) {
        ctl->local_norm2 = *local2;
        ctl->local_iter = k;
    }
    if (jacobi_peers_aborted(s))
        jacobi_fail_at(s, k);
    ctl->iteration = k + 1;
    if (rec) {
        uint64_t now = shardtab_detail_clock();
        rec[JACOBI_TRACE_NORM] = now - t0;
        rec[JACOBI_TRACE_END] = now;
    }
}

SHARDTAB_DEVFN void jacobi_close_step(const jacobi_step_t *s, uint64_t k, uint64_t base,
                                      const double *local2, uint64_t *rec)
{
    shardtab_coll_t c = jacobi_norm_coll(s); /* not held: each call claims */

    jacobi_close_step_with(s, &c, k, base, local2, rec);
}

/* ---- the persistent launch's norm ------------------------------------------------------ */

/* At the start of iteration k of one launch for the whole solve: the norm of
 * k - 1 (local2: this rank's, summed by the block) deposited while the sweep of
 * k runs; jacobi_decide takes it when k closes. Returns 0 when the solve must
 * stop. */
SHARDTAB_DEVFN int jacobi_persistent_norm(const jacobi_step_t *s, shardtab_coll_t *c, uint64_t k,
                                          uint64_t base, const double *local2)
{
    if (jacobi_norm_through_pads(s) && jacobi_norm_hold(s, c) != SHARDTAB_WAIT_OK) {
        if (shardtab_detail_block_leader())
            jacobi_fail_at(s, k);
        return 0;
    }
    if (k == base && jacobi_norm_drain(s, c) != SHARDTAB_WAIT_OK) {
        if (shardtab_detail_block_leader())
            jacobi_fail_at(s, k);
        return 0;
    }
    if (!(k > base && jacobi_norm_iteration(base, s->nccheck, k - 1)))
        return 1;
    if (jacobi_norm_deposit(s, c, local2) != SHARDTAB_WAIT_OK) {
        if (shardtab_detail_block_leader())
            jacobi_fail_at(s, k);
        return 0;
    }
    if (shardtab_detail_block_leader()) {
        s->ctl->local_norm2 = *local2;
        s->ctl->local_iter = k - 1;
    }
    return 1;
}

#endif /* JACOBI_PROTOCOL_H */
