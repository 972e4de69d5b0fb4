/* jacobi_sweep_host.c - the host backend's jacobi "kernel": the same per-point work
 * (jacobi_op.h), the same signals (shardtab_device.h, C11 atomics on the
 * shared-memory pads) and the same norm and stop rules as jacobi_sweep.hip, run by
 * one loop on the CPU: wait for both neighbours, sweep, signal both. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jacobi_sweep.h"
#include "jacobi_op.h"

int jacobi_step_shape(jacobi_step_t *s, uint64_t *partials)
{
    s->blocks_x = 1;
    s->strips = 1;
    s->rows_per_strip = s->rows;
    *partials = 1;
    return 0;
}

static int wait_for(const jacobi_step_t *s, int slot, uint64_t k)
{
    if (shardtab_signal_wait_until(&s->sig, slot, SHARDTAB_CMP_GE, k) == SHARDTAB_WAIT_OK)
        return 1;
    s->ctl->failed = 1;
    return 0;
}

/* The same deposits, waits and decision as finish_iteration in jacobi_sweep.hip. */
static void finish_iteration(const jacobi_step_t *s, uint64_t k, uint64_t base, int norm_iter,
                             double local2)
{
    jacobi_ctl_t *ctl = s->ctl;
    const int exchange = s->device_norm && s->sig.node_size > 1;

    if (norm_iter && exchange) {
        uint64_t bits, deposit = jacobi_deposit(base, s->nccheck, k);
        memcpy(&bits, &local2, sizeof bits);
        for (int q = 0; q < s->sig.node_size; q++)
            shardtab_store_release_system(
                s->sig.pads[q] + shardtab_slot_index(&s->sig, JACOBI_SLOT_NORM(s->sig.node_size,
                                                                               deposit,
                                                                               s->sig.node_rank)),
                bits);
        for (int q = 0; q < s->sig.node_size; q++)
            shardtab_signal_set(&s->sig, q, JACOBI_SLOT_NORM_SEQ(s->sig.node_rank), k + 1);
    }
    if (s->device_norm && jacobi_decision_iteration(base, s->nccheck, k)) {
        double global2 = 0.0;
        if (exchange) {
            uint64_t deposit = jacobi_deposit(base, s->nccheck, k - 1);
            for (int r = 0; r < s->sig.node_size; r++) {
                if (!wait_for(s, JACOBI_SLOT_NORM_SEQ(r), k))
                    return;
                uint64_t bits = shardtab_load_relaxed_system(
                    s->sig.mine +
                    shardtab_slot_index(&s->sig, JACOBI_SLOT_NORM(s->sig.node_size, deposit, r)));
                double part;
                memcpy(&part, &bits, sizeof part);
                global2 += part;
            }
        } else {
            global2 = ctl->local_norm2;
        }
        double norm = sqrt(global2);
        uint64_t done = k - 1 - base;
        ctl->norm = norm;
        ctl->norm_iter = k - 1;
        if (done % 100 == 0 && done / 100 < (uint64_t)s->history_len)
            s->history[done / 100] = norm;
        if (norm <= s->tol)
            ctl->stop_at = k + 1;
    }
    if (norm_iter) {
        ctl->local_norm2 = local2;
        ctl->local_iter = k;
    }
    ctl->iteration = k + 1;
}

static void step(const jacobi_step_t *s)
{
    jacobi_ctl_t *ctl = s->ctl;
    const uint64_t k = ctl->iteration, base = ctl->base;
    const int p = (int)(k & 1), nx = s->nx, rows = s->rows;
    const jacobi_real_t *a = s->a[p], *halo = s->halo[p];
    jacobi_real_t *next_a = s->a[p ^ 1];
    jacobi_real_t *top_dest = s->top_dest[p ^ 1], *bottom_dest = s->bottom_dest[p ^ 1];
    const int sync_top = s->device_sync && s->top_peer >= 0;
    const int sync_bottom = s->device_sync && s->bottom_peer >= 0;
    const int norm_iter = jacobi_norm_iteration(base, s->nccheck, k);
    double local2 = 0.0;

    if (k >= ctl->stop_at || ctl->failed || (s->sig.mine && shardtab_aborted(&s->sig)))
        return;
    if ((sync_top && !wait_for(s, JACOBI_SLOT_FROM_TOP, k)) ||
        (sync_bottom && !wait_for(s, JACOBI_SLOT_FROM_BOTTOM, k)))
        return;
    for (int r = 0; r < rows; r++) {
        const jacobi_real_t *up = r == 0 ? halo : a + (size_t)(r - 1) * nx;
        const jacobi_real_t *down = r == rows - 1 ? halo + nx : a + (size_t)(r + 1) * nx;
        const jacobi_real_t *row = a + (size_t)r * nx;
        jacobi_real_t *out = next_a + (size_t)r * nx;
        for (int x = 1; x < nx - 1; x++) {
            out[x] = jacobi_value(row[x - 1], row[x + 1], up[x], down[x]);
            if (norm_iter)
                local2 += jacobi_residue2(out[x], row[x]);
        }
        if (r == 0 && top_dest)
            memcpy(top_dest + 1, out + 1, (size_t)(nx - 2) * sizeof *out);
        if (r == rows - 1 && bottom_dest)
            memcpy(bottom_dest + 1, out + 1, (size_t)(nx - 2) * sizeof *out);
    }
    /* release: the ghost rows written above before "finished k" */
    if (sync_top && !s->skip_signal)
        shardtab_signal_set(&s->sig, s->top_peer, JACOBI_SLOT_FROM_BOTTOM, k + 1);
    if (sync_bottom && !s->skip_signal)
        shardtab_signal_set(&s->sig, s->bottom_peer, JACOBI_SLOT_FROM_TOP, k + 1);
    if (norm_iter)
        s->partials[0] = local2;
    finish_iteration(s, k, base, norm_iter, local2);
}

int jacobi_run(const jacobi_step_t *s, int count, void *stream, int graph)
{
    (void)stream, (void)graph; /* a loop has no stream, nothing to capture */
    for (int i = 0; i < count; i++)
        step(s);
    return 0;
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

void jacobi_graph_release(void)
{
}

const char *jacobi_error_string(int code)
{
    return code == 0 ? "no error" : "host kernel error";
}
