/* cg_launch.c - the cg program's launch modes (cg_launch.h), written once for
 * every backend (plain C, compiled into each build's kernels): the table,
 * what each mode needs of the job, how each runs the solve after its start,
 * and the choice of the mode that runs, over the table. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cg_launch.h"

#include <stdio.h>

/* ---- what a mode needs of the job ------------------------------------------------- */

/* Persistent: one node (across nodes the host moves the other nodes' columns
 * and sums between launches); and, for auto, the device to itself: without
 * MPS two processes' kernels take turns on a device, and a persistent solve
 * would wait for a peer that cannot run. */
static int persistent_fits(const cg_launch_where_t *w, int by_auto, char *why, size_t why_bytes,
                           char *note, size_t note_bytes)
{
    if (w->nodes > 1) {
        snprintf(why, why_bytes,
                 "the %d ranks span %d nodes: between nodes the host moves the columns and "
                 "sums the dot products between launches (use --launch stream or auto)",
                 w->ranks, w->nodes);
        snprintf(note, note_bytes, "%d nodes", w->nodes);
        return 1;
    }
    if (by_auto && w->ranks_on_device > 1) {
        snprintf(note, note_bytes, "%d ranks share the device", w->ranks_on_device);
        return 1;
    }
    return 0;
}

/* ---- the runs after the start ----------------------------------------------------- */

static int persistent_run(const cg_args_t *g, void *stream, const cg_launch_host_t *h)
{
    return h->check(h->ctx, cg_persistent(g, stream), "launching the persistent solve");
}

/* Chunks of iterations, a look at the stop after each (across nodes the host
 * is in every iteration: after every phase). */
static int stream_run(const cg_args_t *g, void *stream, const cg_launch_host_t *h)
{
    const int phases = cg_stream_phases(g->variant);
    uint64_t k = 0; /* the iteration, as the device counts it while it goes on */
    int status = 0, stop = 0;

    for (int64_t done = 0; status == 0 && !stop && done <= g->niter; done += CG_STREAM_CHUNK) {
        for (int it = 0; it < CG_STREAM_CHUNK && status == 0 && !stop; it++, k++)
            for (int phase = 0; phase < phases && status == 0 && !stop; phase++) {
                if (phase == 0 && h->enqueue)
                    h->enqueue(h->ctx, done + it);
                if (cg_barrier_before(g->variant, phase))
                    status =
                        h->before_product(h->ctx, g->variant == CG_PIPELINED ? g->w[k & 1] : g->p);
                if (status == 0)
                    status = h->check(h->ctx, cg_stream_phase(g, phase, stream),
                                      "launching a phase of the solve");
                if (status == 0 && g->split)
                    status = h->after_phase(h->ctx, phase, &stop);
            }
        int stopped = 0;
        if (status == 0)
            status = h->look(h->ctx, &stopped);
        if (status == 0 && stopped)
            break;
    }
    return status;
}

/* ---- the table ---------------------------------------------------------------------- */

static const cg_launch_mode_t modes[CG_LAUNCH_COUNT] = {
    [CG_LAUNCH_AUTO] = {.name = "auto",
                        .help = "persistent where the grid is resident, else stream",
                        .fallback = CG_LAUNCH_PERSISTENT},
    [CG_LAUNCH_PERSISTENT] = {.name = "persistent",
                              .help = "one cooperative launch",
                              .chosen = "the grid is resident",
                              .fallback = CG_LAUNCH_STREAM,
                              .resident = 1,
                              .fits = persistent_fits,
                              .run = persistent_run},
    [CG_LAUNCH_STREAM] = {.name = "stream",
                          .help = "a launch a phase",
                          .fallback = CG_LAUNCH_AUTO,
                          .run = stream_run},
};

const cg_launch_mode_t *cg_launch_mode(cg_launch_t launch)
{
    return (unsigned)launch < CG_LAUNCH_COUNT ? &modes[launch] : NULL;
}

const char *cg_launch_help(cg_launch_t launch)
{
    const cg_launch_mode_t *mode = cg_launch_mode(launch);
    return mode ? mode->help : "?";
}

/* ---- the choice ------------------------------------------------------------------ */

int cg_launch_choose(const cg_launch_where_t *w, cg_launch_t asked, cg_launch_t *launch,
                     int *blocks, int *most, char *note, size_t note_bytes, char *why,
                     size_t why_bytes)
{
    const int by_auto = asked == CG_LAUNCH_AUTO;
    cg_launch_t mode = asked;
    char reason[256] = "";

    if (note_bytes)
        note[0] = '\0';
    if (cg_launch_mode(asked) == NULL) {
        snprintf(why, why_bytes, "no launch mode %d", (int)asked);
        return CG_LAUNCH_REFUSED;
    }
    for (;;) {
        const cg_launch_mode_t *m = &modes[mode];
        int rc = CG_NOT_RESIDENT;
        if (m->run == NULL) { /* auto: the table's next */
            mode = m->fallback;
            continue;
        }
        if (m->fits && m->fits(w, by_auto, why, why_bytes, reason, sizeof reason)) {
            if (!by_auto) {
                snprintf(reason, sizeof reason, "%s", why);
                snprintf(why, why_bytes, "--launch %s: %s", m->name, reason);
                return CG_LAUNCH_REFUSED;
            }
        } else {
            rc = cg_grid(w->args, m->resident, w->ranks_on_device, blocks, most, reason,
                         sizeof reason);
            if (rc == CG_NOT_RESIDENT && !by_auto) {
                snprintf(why, why_bytes, "rank %d: --launch %s: %s", w->rank, m->name, reason);
                return CG_LAUNCH_REFUSED;
            }
            if (rc != 0 && rc != CG_NOT_RESIDENT) {
                snprintf(why, why_bytes, "sizing the %s grid", m->name);
                return rc;
            }
        }
        if (rc == 0) {
            if (by_auto && note_bytes && note[0] == '\0')
                snprintf(note, note_bytes, "auto: %s", m->chosen ? m->chosen : m->name);
            *launch = mode;
            return 0;
        }
        /* auto, and this mode cannot run here: the next, with the reason */
        if (note_bytes && note[0] == '\0')
            snprintf(note, note_bytes, "auto: %s", reason);
        if (m->fallback == CG_LAUNCH_AUTO) {
            snprintf(why, why_bytes, "--launch auto: %s", reason);
            return CG_LAUNCH_REFUSED;
        }
        mode = m->fallback;
    }
}
