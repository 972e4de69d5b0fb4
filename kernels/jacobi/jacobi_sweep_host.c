/* jacobi_sweep_host.c - the host backend's jacobi "kernels" of the step and
 * persistent launches, beside jacobi_sweep.hip's (on chip:
 * jacobi_onchip_host.c; temporal: jacobi_temporal_host.c; the plan's hooks
 * that call them: jacobi_plan_host.c): the same per-point work (jacobi_op.h)
 * and the same protocol (jacobi_protocol.h: the waits, the signals, the
 * norm's all-reduce, the stop rule, the trace; C11 atomics on the
 * shared-memory pads) as the GPU's; only the loops are this file's. One tile
 * covers the rows (one "block"), so a grid-wide barrier is nothing here; what
 * the host backend does test is the protocol between the ranks, in both of
 * its forms: a step per call (stream and graph launches: the norm of k
 * deposited and the norm of k - 1 decided as k closes) and one call for the
 * whole solve (persistent: the norm of k - 1 deposited as k starts and
 * decided as it closes). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jacobi_hooks.h"
#include "jacobi_op.h"
#include "jacobi_protocol.h"
#include "jacobi_row_host.h"

/* Iteration k over every row: wait for both neighbours, sweep, store the edge
 * rows into theirs, signal both. *local2 gets this rank's squared residues.
 * Returns 0 when a wait gave up. */
static int sweep(const jacobi_step_t *s, uint64_t k, uint64_t base, double *local2, uint64_t *rec)
{
    const int p = (int)(k & 1), nx = s->nx, rows = s->rows;
    const jacobi_real_t *a = s->a[p], *halo = s->halo[p];
    jacobi_real_t *next_a = s->a[p ^ 1];
    jacobi_real_t *top_dest = s->top_dest[p ^ 1], *bottom_dest = s->bottom_dest[p ^ 1];
    const int sync_top = s->device_sync && s->top_peer >= 0;
    const int sync_bottom = s->device_sync && s->bottom_peer >= 0;
    const int norm_iter = jacobi_norm_iteration(base, s->nccheck, k);
    const int fault_now =
        s->fault.kind != JACOBI_FAULT_NONE && k - base == (uint64_t)s->fault.iteration;
    double sum = 0.0;

    if ((sync_top && !jacobi_wait_neighbour(s, JACOBI_SLOT_FROM_TOP, k, rec)) ||
        (sync_bottom && !jacobi_wait_neighbour(s, JACOBI_SLOT_FROM_BOTTOM, k, rec)))
        return 0;
    for (int r = 0; r < rows; r++) {
        const jacobi_real_t *up = r == 0 ? halo : a + (size_t)(r - 1) * nx;
        const jacobi_real_t *down = r == rows - 1 ? halo + nx : a + (size_t)(r + 1) * nx;
        const jacobi_real_t *row = a + (size_t)r * nx;
        jacobi_real_t *out = next_a + (size_t)r * nx;
        sum = jacobi_row_host(s, up, row, down, out, fault_now ? r : -1, norm_iter, sum);
        if (r == 0 && top_dest)
            memcpy(top_dest + 1, out + 1, (size_t)(nx - 2) * sizeof *out);
        if (r == rows - 1 && bottom_dest)
            memcpy(bottom_dest + 1, out + 1, (size_t)(nx - 2) * sizeof *out);
    }
    if (rec)
        rec[JACOBI_TRACE_SWEPT] = shardtab_detail_clock();
    /* "finished k", once the ghost rows written above are visible (one tile a strip) */
    if (sync_top)
        jacobi_strip_done(s, &s->ctl->top_arrived, s->top_peer, JACOBI_SLOT_FROM_BOTTOM, k, rec);
    if (sync_bottom)
        jacobi_strip_done(s, &s->ctl->bottom_arrived, s->bottom_peer, JACOBI_SLOT_FROM_TOP, k, rec);
    *local2 = sum;
    return 1;
}

/* One step, as one launch of the GPU's step kernel. */
void jacobi_sweep_step_host(const jacobi_step_t *s)
{
    jacobi_ctl_t *ctl = s->ctl;
    const uint64_t k = ctl->iteration, base = ctl->base;
    const int norm_iter = jacobi_norm_iteration(base, s->nccheck, k);
    uint64_t *rec = jacobi_trace_of(s, k, base);
    double local2 = 0.0;

    if (k >= ctl->stop_at || ctl->failed || jacobi_peers_aborted(s))
        return;
    if (rec)
        rec[JACOBI_TRACE_BEGIN] = shardtab_detail_clock();
    if (!sweep(s, k, base, &local2, rec))
        return;
    if (rec)
        rec[JACOBI_TRACE_ARRIVED] = shardtab_detail_clock();
    if (norm_iter)
        s->partials[k & 1] = local2;
    jacobi_close_step(s, k, base, &local2, rec);
}

/* The whole solve in one call, as the GPU's persistent kernel: the norm of
 * k - 1 deposited as k starts and decided as k closes. */
void jacobi_sweep_persistent_host(const jacobi_step_t *s, uint64_t count)
{
    jacobi_ctl_t *ctl = s->ctl;
    const uint64_t k0 = ctl->iteration, base = ctl->base;
    shardtab_coll_t norm = jacobi_norm_coll(s); /* held for the solve, as block 0 holds it */
    uint64_t k = k0;

    for (; k < k0 + count && k < ctl->stop_at; k++) {
        const int norm_iter = jacobi_norm_iteration(base, s->nccheck, k);
        uint64_t *rec = jacobi_trace_of(s, k, base), norm_ticks = 0, t0 = shardtab_detail_clock();
        double local2 = 0.0, previous = k > base ? s->partials[(k - 1) & 1] : 0.0;

        if (rec)
            rec[JACOBI_TRACE_BEGIN] = t0;
        if (!jacobi_persistent_norm(s, &norm, k, base, &previous)) {
            k++; /* as the GPU's: a failed iteration still counts */
            break;
        }
        norm_ticks = shardtab_detail_clock() - t0;
        if (!sweep(s, k, base, &local2, rec)) {
            k++;
            break;
        }
        if (norm_iter)
            s->partials[k & 1] = local2;
        t0 = shardtab_detail_clock();
        if (jacobi_decide(s, &norm, k, base, rec) && jacobi_peers_aborted(s))
            jacobi_fail_at(s, k);
        if (rec) {
            uint64_t now = shardtab_detail_clock();
            rec[JACOBI_TRACE_NORM] = norm_ticks + (now - t0);
            rec[JACOBI_TRACE_ARRIVED] = now;
            rec[JACOBI_TRACE_END] = now;
        }
    }
    shardtab_coll_release_block(&s->sig, &norm);
    ctl->iteration = k;
}
