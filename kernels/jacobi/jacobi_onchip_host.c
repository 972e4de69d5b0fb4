/* jacobi_onchip_host.c - the host backend's --launch onchip: the protocol of
 * jacobi_onchip.h (the LL edges, the gate on the decision, the norm block's
 * gather, all-reduce and decision, the bounded waits) run by one thread a tile
 * and one for the norm block, as the GPU's blocks, so that CI runs it with
 * tiles really waiting for each other. Only the loops are this file's: a tile
 * keeps its rows in its thread's own memory (its "chip") and sweeps them with
 * the per-point work of jacobi_op.h. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jacobi_cut.h"
#include "jacobi_hooks.h"
#include "jacobi_onchip.h"
#include "jacobi_op.h"
#include "jacobi_protocol.h"
#include "jacobi_row_host.h"

/* Tiles a rank, at most: several, so that tiles meet tiles as well as ranks,
 * and rows that do not split evenly. */
#define JACOBI_HOST_ONCHIP_TILES 3

/* The mode's hooks (jacobi_hooks.h): the tiles cut and their edges allocated
 * (0, or JACOBI_PLAN_NOT_RESIDENT with the reason), freed (also after a size
 * that failed); the run below. */
int jacobi_onchip_size(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    jacobi_step_t *s = &plan->step;
    const int tiles = s->rows < JACOBI_HOST_ONCHIP_TILES ? s->rows : JACOBI_HOST_ONCHIP_TILES;

    jacobi_onchip_cut(s, tiles, (s->rows + tiles - 1) / tiles, 1);
    s->edges = calloc((size_t)4 * (size_t)s->tiles * (size_t)s->nx, sizeof *s->edges);
    s->tile_partials = calloc((size_t)4 * (size_t)s->tiles, sizeof *s->tile_partials);
    return jacobi_host_alloc_check(s->edges && s->tile_partials, "the tiles' edges", why,
                                   why_bytes);
}

void jacobi_onchip_release(jacobi_plan_t *plan)
{
    free(plan->step.edges);
    free(plan->step.tile_partials);
}

typedef struct onchip_job {
    const jacobi_step_t *s;
    int tile; /* -1: the norm block */
    uint64_t k0, base, end;
} onchip_job_t;

/* A neighbour's edge row of `time`, nx LL words, into row (kind: a tile's
 * or a rank's, JACOBI_WAIT_*); 0 when the solve ended. */
/* The words alone order nothing in C11 (relaxed): an acquire fence after
 * them, and a release fence before a send, order the tiles' plain accesses
 * of the rows (a tile's last write of its rows after its neighbours' first
 * read of theirs). Free on x86; the GPU's are the LL words' own. */
static int take_edge(const jacobi_step_t *s, const uint64_t *w, uint64_t time, uint64_t k,
                     uint32_t *bits, jacobi_real_t *row, int kind)
{
    int ok = jacobi_ll_wait(s, w, s->nx, time, bits, k, kind);
    if (ok)
        atomic_thread_fence(memory_order_acquire);
    for (int x = 0; x < s->nx; x++)
        row[x] = shardtab_detail_bits_float(bits[x]);
    return ok;
}

/* ... tile t's ghost row on `side` of time k, from its words or, where
 * there are none yet, from memory (jacobi_onchip_from). */
static int take_ghost(const onchip_job_t *job, int side, uint64_t k, uint32_t *bits,
                      jacobi_real_t *row)
{
    const jacobi_step_t *s = job->s;
    const int t = job->tile;

    if (k != jacobi_onchip_plain_at(s, t, side, job->k0, job->base))
        return take_edge(s, jacobi_onchip_from(s, t, side, k), k, k, bits, row,
                         jacobi_onchip_from_kind(s, t, side));
    memcpy(row, jacobi_onchip_plain_row(s, t, side, job->k0, job->base),
           (size_t)s->nx * sizeof *row);
    return 1;
}

/* ... and a tile's edge row to its neighbour, a tile or a rank (w NULL: nowhere). */
static void send_edge(const jacobi_step_t *s, uint64_t *w, const jacobi_real_t *row, uint64_t time)
{
    if (w == NULL)
        return;
    atomic_thread_fence(memory_order_release);
    for (int x = 0; x < s->nx; x++)
        shardtab_detail_ll_store(&w[x], shardtab_detail_float_bits(row[x]), time);
}

/* One tile's solve, as a block of the GPU's kernel. */
static void run_tile(const onchip_job_t *job, jacobi_real_t *cur, jacobi_real_t *next,
                     jacobi_real_t *up, jacobi_real_t *down, uint32_t *bits)
{
    const jacobi_step_t *s = job->s;
    const int t = job->tile, nx = s->nx;
    const int r0 = jacobi_tile_first_row(s, t), nr = jacobi_tile_first_row(s, t + 1) - r0;
    const uint64_t k0 = job->k0, base = job->base, end = job->end;
    const jacobi_real_t *start = s->a[k0 & 1];
    const int fault_tile =
        s->fault.kind != JACOBI_FAULT_NONE && s->fault.row >= r0 && s->fault.row < r0 + nr;
    const size_t row_bytes = (size_t)nx * sizeof *cur;
    int lagged = 0;
    uint64_t k = k0;

    memcpy(cur, start + (size_t)r0 * nx, (size_t)nr * row_bytes);
    for (;; k++) {
        uint64_t *rec = jacobi_trace_of(s, k, base);
        const uint64_t t_begin = shardtab_detail_clock();
        const int go = k < end && jacobi_onchip_may_run(s, base, k0, k);
        int ok = 1;

        jacobi_trace_min(rec, JACOBI_TRACE_BEGIN, t_begin);
        ok &= take_ghost(job, 0, k, bits, up);
        ok &= take_ghost(job, 1, k, bits, down);
        if (fault_tile && s->fault.kind == JACOBI_FAULT_EDGE &&
            k - base == (uint64_t)s->fault.iteration &&
            k != jacobi_onchip_plain_at(s, t, 0, k0, base)) {
            /* the planted bug: the other time's words, unchecked */
            const uint64_t *w = jacobi_onchip_from(s, t, 0, k + 1);
            for (int x = 0; x < nx; x++)
                up[x] = shardtab_detail_bits_float(
                    (uint32_t)shardtab_detail_ll_load((uint64_t *)&w[x]));
        }
        const int lag = !go;
        if (lag) {
            /* the planted bug: one tile runs on past the stop, on the edges it has */
            if (!(fault_tile && s->fault.kind == JACOBI_FAULT_LAG && !lagged &&
                  !jacobi_onchip_failed(s)))
                break;
            lagged = 1;
        } else if (!ok) {
            break;
        }
        jacobi_trace_max(rec, JACOBI_TRACE_WAIT, shardtab_detail_clock() - t_begin);

        const int norm_iter = jacobi_norm_iteration(base, s->nccheck, k);
        const int fault_now = fault_tile && k - base == (uint64_t)s->fault.iteration;
        double norm2 = 0.0;
        for (int r = 0; r < nr; r++) {
            const jacobi_real_t *u = r == 0 ? up : cur + (size_t)(r - 1) * nx;
            const jacobi_real_t *d = r == nr - 1 ? down : cur + (size_t)(r + 1) * nx;
            const jacobi_real_t *row = cur + (size_t)r * nx;
            jacobi_real_t *out = next + (size_t)r * nx;
            out[0] = row[0];
            out[nx - 1] = row[nx - 1];
            norm2 = jacobi_row_host(s, u, row, d, out, fault_now ? r0 + r : -1, norm_iter, norm2);
        }
        jacobi_real_t *swap = cur;
        cur = next;
        next = swap;
        jacobi_trace_max(rec, JACOBI_TRACE_SWEPT, shardtab_detail_clock());
        if (lag)
            break; /* the lagging tile's rows are one iteration on: the check sees it */

        const uint64_t t_send = shardtab_detail_clock();
        /* (the test's silent rank sends none between ranks) */
        send_edge(s, jacobi_onchip_to(s, t, 0, k + 1, s->skip_signal), cur, k + 1);
        send_edge(s, jacobi_onchip_to(s, t, 1, k + 1, s->skip_signal), cur + (size_t)(nr - 1) * nx,
                  k + 1);
        if (norm_iter)
            jacobi_ll_send_double(jacobi_tile_partial(s, k + 1, t, 0), norm2, k + 1);
        const uint64_t now = shardtab_detail_clock();
        jacobi_trace_max(rec, JACOBI_TRACE_SIGNAL, now - t_send);
        jacobi_trace_max(rec, JACOBI_TRACE_ARRIVED, now);
    }
    /* the rows as the solve's last iteration left them (a lagging tile's: one on) */
    memcpy(s->a[k & 1] + (size_t)r0 * nx, cur, (size_t)nr * row_bytes);
}

static void *onchip_thread(void *arg)
{
    const onchip_job_t *job = arg;
    const jacobi_step_t *s = job->s;

    if (job->tile < 0) {
        jacobi_onchip_norm(s, job->base, job->k0, job->end);
        return NULL;
    }
    const size_t row = (size_t)s->nx;
    jacobi_real_t *mem = malloc((2 * (size_t)s->tile_rows + 2) * row * sizeof *mem);
    uint32_t *bits = malloc(row * sizeof *bits);
    if (mem == NULL || bits == NULL) /* the others end too, at once */
        jacobi_onchip_give_up(s, job->k0, JACOBI_ONCHIP_NO_START);
    else
        run_tile(job, mem, mem + (size_t)s->tile_rows * row, mem + 2 * (size_t)s->tile_rows * row,
                 mem + (2 * (size_t)s->tile_rows + 1) * row, bits);
    free(mem);
    free(bits);
    return NULL;
}

int jacobi_onchip_run(jacobi_plan_t *plan, int count)
{
    const jacobi_step_t *s = &plan->step;
    jacobi_ctl_t *ctl = s->ctl;
    const int blocks = s->tiles + 1;
    onchip_job_t *jobs = calloc((size_t)blocks, sizeof *jobs);
    pthread_t *threads = calloc((size_t)blocks, sizeof *threads);
    int *started = calloc((size_t)blocks, sizeof *started);
    const uint64_t k0 = ctl->iteration, end = k0 + (uint64_t)count;

    if (jobs == NULL || threads == NULL || started == NULL) {
        jacobi_onchip_give_up(s, k0, JACOBI_ONCHIP_NO_START);
    } else {
        for (int b = 0; b < blocks; b++) {
            jobs[b] = (onchip_job_t){s, b - 1, k0, ctl->base, end};
            started[b] = pthread_create(&threads[b], NULL, onchip_thread, &jobs[b]) == 0;
            if (!started[b]) /* the started ones end at once */
                jacobi_onchip_give_up(s, k0, JACOBI_ONCHIP_NO_START);
        }
        for (int b = 0; b < blocks; b++)
            if (started[b])
                pthread_join(threads[b], NULL);
    }
    /* every thread has ended: as the GPU's last block */
    uint64_t stop = shardtab_detail_load_relaxed_device(&ctl->stop_at);
    ctl->iteration = stop < end ? stop : end;
    if (s->done)
        *s->done = 1;
    free(jobs);
    free(threads);
    free(started);
    return 0;
}
