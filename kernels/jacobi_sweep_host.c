/* jacobi_sweep_host.c - the host backend's jacobi "kernels": the same per-point
 * work (jacobi_op.h), the same signals (shardtab_device.h, C11 atomics on the
 * shared-memory pads) and the same norm and stop rules as jacobi_sweep.hip, run
 * by loops on the CPU. One tile covers the rows (one "block"), so a grid-wide
 * barrier is nothing here; what the host backend does test is the protocol
 * between the ranks, in both of its forms: a step per call (stream and graph
 * launches: the norm of k deposited and the norm of k - 1 decided as k closes)
 * and one call for the whole solve (persistent: the norm of k - 1 deposited as
 * k starts and decided as it closes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jacobi_op.h"
#include "jacobi_sweep.h"

int jacobi_step_shape(jacobi_step_t *s, uint64_t *partials)
{
    s->blocks_x = 1;
    s->strips = 1;
    s->rows_per_strip = s->rows;
    s->columns_per_thread = 1;
    *partials = 2;
    return 0;
}

static uint64_t *trace_of(const jacobi_step_t *s, uint64_t k, uint64_t base)
{
    return s->trace && k - base < (uint64_t)s->trace_len ? s->trace + (k - base) * JACOBI_TRACE_EVENTS
                                                           : NULL;
}

static void stop_after(const jacobi_step_t *s, uint64_t k)
{
    if (k + 1 < s->ctl->stop_at)
        s->ctl->stop_at = k + 1;
}

static void fail_at(const jacobi_step_t *s, uint64_t k)
{
    s->ctl->failed = 1;
    stop_after(s, k);
}

static int peers_aborted(const jacobi_step_t *s)
{
    return s->sig.mine && shardtab_aborted(&s->sig);
}

static int wait_for(const jacobi_step_t *s, int slot, uint64_t k, uint64_t *rec)
{
    uint64_t t0 = shardtab_clock();
    int status = shardtab_signal_wait_until(&s->sig, slot, SHARDTAB_CMP_GE, k);

    if (rec && shardtab_clock() - t0 > rec[JACOBI_TRACE_WAIT])
        rec[JACOBI_TRACE_WAIT] = shardtab_clock() - t0;
    if (status == SHARDTAB_WAIT_OK)
        return 1;
    fail_at(s, k);
    return 0;
}

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
    const int fault_now = s->fault.kind != JACOBI_FAULT_NONE &&
                          k - base == (uint64_t)s->fault.iteration;
    double sum = 0.0;

    if ((sync_top && !wait_for(s, JACOBI_SLOT_FROM_TOP, k, rec)) ||
        (sync_bottom && !wait_for(s, JACOBI_SLOT_FROM_BOTTOM, k, rec)))
        return 0;
    for (int r = 0; r < rows; r++) {
        const jacobi_real_t *up = r == 0 ? halo : a + (size_t)(r - 1) * nx;
        const jacobi_real_t *down = r == rows - 1 ? halo + nx : a + (size_t)(r + 1) * nx;
        const jacobi_real_t *row = a + (size_t)r * nx;
        jacobi_real_t *out = next_a + (size_t)r * nx;
        for (int x = 1; x < nx - 1; x++) {
            jacobi_real_t v = jacobi_value(row[x - 1], row[x + 1], up[x], down[x]);
            if (fault_now && r == s->fault.row && x == s->fault.col) {
                if (s->fault.kind == JACOBI_FAULT_STALE)
                    v = row[x];
                else if (s->fault.kind == JACOBI_FAULT_NORM && norm_iter)
                    sum += jacobi_residue2(v, row[x]);
            }
            out[x] = v;
            if (norm_iter)
                sum += jacobi_residue2(v, row[x]);
        }
        if (r == 0 && top_dest)
            memcpy(top_dest + 1, out + 1, (size_t)(nx - 2) * sizeof *out);
        if (r == rows - 1 && bottom_dest)
            memcpy(bottom_dest + 1, out + 1, (size_t)(nx - 2) * sizeof *out);
    }
    if (rec)
        rec[JACOBI_TRACE_SWEPT] = shardtab_clock();
    /* release: the ghost rows written above before "finished k" */
    uint64_t t0 = shardtab_clock();
    if (sync_top && !s->skip_signal)
        shardtab_signal_set(&s->sig, s->top_peer, JACOBI_SLOT_FROM_BOTTOM, k + 1);
    if (sync_bottom && !s->skip_signal)
        shardtab_signal_set(&s->sig, s->bottom_peer, JACOBI_SLOT_FROM_TOP, k + 1);
    if (rec)
        rec[JACOBI_TRACE_SIGNAL] = shardtab_clock() - t0;
    *local2 = sum;
    return 1;
}

/* The same deposit as jacobi_sweep.hip: the bits of the double, then a release count. */
static void deposit_norm(const jacobi_step_t *s, uint64_t k, uint64_t base, double local2)
{
    if (!s->device_norm || s->sig.node_size <= 1)
        return;
    uint64_t bits, deposit = jacobi_deposit(base, s->nccheck, k);
    memcpy(&bits, &local2, sizeof bits);
    for (int q = 0; q < s->sig.node_size; q++)
        shardtab_store_release_system(
            s->sig.pads[q] +
                shardtab_slot_index(&s->sig,
                                    JACOBI_SLOT_NORM(s->sig.node_size, deposit, s->sig.node_rank)),
            bits);
    for (int q = 0; q < s->sig.node_size; q++)
        shardtab_signal_set(&s->sig, q, JACOBI_SLOT_NORM_SEQ(s->sig.node_rank), k + 1);
}

/* Closing iteration k: the decision on the norm of k - 1, as jacobi_sweep.hip. */
static int decide(const jacobi_step_t *s, uint64_t k, uint64_t base, uint64_t *rec)
{
    jacobi_ctl_t *ctl = s->ctl;
    double global2 = 0.0;

    if (s->fault.kind == JACOBI_FAULT_STOP && k - base == (uint64_t)s->fault.iteration)
        stop_after(s, k);
    if (!s->device_norm || !jacobi_decision_iteration(base, s->nccheck, k))
        return 1;
    if (s->sig.node_size > 1) {
        uint64_t deposit = jacobi_deposit(base, s->nccheck, k - 1), t0 = shardtab_clock();
        for (int r = 0; r < s->sig.node_size; r++) { /* rank order: the same bits everywhere */
            if (shardtab_signal_wait_until(&s->sig, JACOBI_SLOT_NORM_SEQ(r), SHARDTAB_CMP_GE, k) !=
                SHARDTAB_WAIT_OK) {
                fail_at(s, k);
                return 0;
            }
            uint64_t bits = shardtab_load_relaxed_system(
                s->sig.mine +
                shardtab_slot_index(&s->sig, JACOBI_SLOT_NORM(s->sig.node_size, deposit, r)));
            double part;
            memcpy(&part, &bits, sizeof part);
            global2 += part;
        }
        if (rec)
            rec[JACOBI_TRACE_NORM_WAIT] = shardtab_clock() - t0;
    } else {
        global2 = ctl->local_norm2;
    }
    double norm = sqrt(global2);
    int slot = jacobi_history_slot(k - 1 - base, s->nccheck, s->history_len);
    ctl->norm = norm;
    ctl->norm_iter = k - 1;
    if (slot >= 0)
        s->history[slot] = norm;
    if (norm <= s->tol)
        stop_after(s, k);
    return 1;
}

/* One step, as one launch of the GPU's step kernel. */
static void step(const jacobi_step_t *s)
{
    jacobi_ctl_t *ctl = s->ctl;
    const uint64_t k = ctl->iteration, base = ctl->base;
    const int norm_iter = jacobi_norm_iteration(base, s->nccheck, k);
    uint64_t *rec = trace_of(s, k, base);
    double local2 = 0.0;

    if (k >= ctl->stop_at || ctl->failed || peers_aborted(s))
        return;
    if (rec)
        rec[JACOBI_TRACE_BEGIN] = shardtab_clock();
    if (!sweep(s, k, base, &local2, rec))
        return;
    if (rec)
        rec[JACOBI_TRACE_ARRIVED] = shardtab_clock();
    uint64_t t0 = shardtab_clock();
    if (norm_iter) {
        s->partials[k & 1] = local2;
        deposit_norm(s, k, base, local2);
    }
    if (!decide(s, k, base, rec))
        return;
    if (norm_iter) {
        ctl->local_norm2 = local2;
        ctl->local_iter = k;
    }
    if (peers_aborted(s))
        fail_at(s, k);
    ctl->iteration = k + 1;
    if (rec) {
        rec[JACOBI_TRACE_NORM] = shardtab_clock() - t0;
        rec[JACOBI_TRACE_END] = shardtab_clock();
    }
}

/* The whole solve in one call, as the GPU's persistent kernel: the norm of
 * k - 1 deposited as k starts and decided as k closes. */
static void persistent(const jacobi_step_t *s, uint64_t count)
{
    jacobi_ctl_t *ctl = s->ctl;
    const uint64_t k0 = ctl->iteration, base = ctl->base;
    uint64_t k = k0;

    for (; k < k0 + count && k < ctl->stop_at; k++) {
        const int norm_iter = jacobi_norm_iteration(base, s->nccheck, k);
        uint64_t *rec = trace_of(s, k, base), norm_ticks = 0, t0 = shardtab_clock();
        double local2 = 0.0;

        if (rec)
            rec[JACOBI_TRACE_BEGIN] = t0;
        if (k > base && jacobi_norm_iteration(base, s->nccheck, k - 1)) {
            double previous = s->partials[(k - 1) & 1];
            deposit_norm(s, k - 1, base, previous);
            ctl->local_norm2 = previous;
            ctl->local_iter = k - 1;
            norm_ticks = shardtab_clock() - t0;
        }
        if (!sweep(s, k, base, &local2, rec)) {
            k++; /* as the GPU's: a failed iteration still counts */
            break;
        }
        if (norm_iter)
            s->partials[k & 1] = local2;
        t0 = shardtab_clock();
        if (decide(s, k, base, rec) && peers_aborted(s))
            fail_at(s, k);
        if (rec) {
            uint64_t now = shardtab_clock();
            rec[JACOBI_TRACE_NORM] = norm_ticks + (now - t0);
            rec[JACOBI_TRACE_ARRIVED] = now;
            rec[JACOBI_TRACE_END] = now;
        }
    }
    ctl->iteration = k;
}

struct jacobi_plan {
    jacobi_step_t step;
    jacobi_launch_t launch;
};

int jacobi_plan_create(const jacobi_step_t *step, jacobi_launch_t launch, void *stream,
                       jacobi_plan_t **plan_out, char *why, size_t why_bytes)
{
    jacobi_plan_t *plan = calloc(1, sizeof *plan);

    (void)stream; /* a loop has no stream, and nothing to capture */
    if (why_bytes)
        why[0] = '\0';
    if (plan == NULL)
        return 1;
    plan->step = *step;
    plan->launch = launch;
    *plan_out = plan;
    return 0;
}

int jacobi_plan_run(jacobi_plan_t *plan, int count)
{
    const jacobi_step_t *s = &plan->step;

    if (count <= 0)
        return 0;
    if (plan->launch == JACOBI_LAUNCH_PERSISTENT) {
        persistent(s, (uint64_t)count);
        return 0;
    }
    /* nothing more is run once the solve has stopped, as the GPU's pacing */
    for (int i = 0; i < count && s->ctl->iteration < s->ctl->stop_at && !s->ctl->failed; i++)
        step(s);
    return 0;
}

void jacobi_plan_destroy(jacobi_plan_t *plan)
{
    free(plan);
}

jacobi_launch_t jacobi_plan_launch(const jacobi_plan_t *plan)
{
    return plan->launch;
}

int jacobi_plan_blocks(const jacobi_plan_t *plan)
{
    (void)plan;
    return 1;
}

int jacobi_stream_create(void **stream)
{
    *stream = NULL;
    return 0;
}

void jacobi_stream_destroy(void *stream)
{
    (void)stream;
}

double jacobi_clock_hz(void)
{
    return 1e9; /* shardtab_clock: CLOCK_MONOTONIC nanoseconds */
}

const char *jacobi_error_string(int code)
{
    if (code == JACOBI_PLAN_NOT_RESIDENT)
        return "the persistent grid cannot be co-resident";
    return code == 0 ? "no error" : "host kernel error";
}
