/* jacobi_plan_host.c - the host backend's hooks of the jacobi program's plans
 * (jacobi_hooks.h), beside jacobi_plan.hip's: one tile covers a rank's rows
 * (one "block"), a "launch" is a call of the loops of jacobi_sweep_host.c,
 * and a chunk of steps ends when its last call returns, so the pacing waits
 * for nothing; the stop it reads from the flag the loops set, as the GPUs'. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "jacobi_hooks.h"

/* One tile covers the rows: the tuning variables change nothing here. */
int jacobi_step_shape(jacobi_step_t *s, const jacobi_tuning_t *tuning, uint64_t *partials)
{
    (void)tuning;
    s->blocks_x = 1;
    s->strips = 1;
    s->rows_per_strip = s->rows;
    s->columns_per_thread = 1;
    *partials = 2;
    return 0;
}

/* ---- what every plan holds: nothing but its state ----------------------------------- */

/* a loop has no stream and no events; it tells the stop by the flag, as a GPU
 * tells it by mapped host memory */
int jacobi_backend_open(jacobi_plan_t *plan)
{
    plan->done_host = calloc(1, sizeof *plan->done_host);
    if (plan->done_host == NULL)
        return jacobi_backend_no_memory();
    plan->step.done = (volatile uint64_t *)plan->done_host;
    return 0;
}

void jacobi_backend_close(jacobi_plan_t *plan)
{
    free(plan->done_host);
}

int jacobi_backend_wait(jacobi_plan_t *plan, int slot, int *stop)
{
    /* the chunk before is done, its calls returned (and the next chunk's
     * too: a loop's run ends before its call returns) */
    (void)slot;
    *stop = *(volatile uint64_t *)plan->done_host != 0;
    return 0;
}

int jacobi_backend_mark(jacobi_plan_t *plan, int slot)
{
    (void)plan, (void)slot;
    return 0;
}

int jacobi_backend_no_memory(void)
{
    return 1;
}

const char *jacobi_backend_error_string(int code)
{
    return code == 0 ? "no error" : "host kernel error";
}

int jacobi_host_alloc_check(int allocated, const char *what, char *why, size_t why_bytes)
{
    if (allocated)
        return 0;
    snprintf(why, why_bytes, "no memory for %s", what);
    return JACOBI_PLAN_NOT_RESIDENT;
}

/* ---- persistent, graph and stream launches ----------------------------------------- */

int jacobi_persistent_size(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    (void)plan, (void)why, (void)why_bytes; /* one loop, always resident */
    return 0;
}

int jacobi_persistent_run(jacobi_plan_t *plan, int count)
{
    jacobi_sweep_persistent_host(&plan->step, (uint64_t)count);
    return 0;
}

int jacobi_graph_size(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    (void)plan, (void)why, (void)why_bytes; /* nothing to capture: graph runs as stream */
    return 0;
}

void jacobi_graph_release(jacobi_plan_t *plan)
{
    (void)plan;
}

/* nothing more is run once the solve has stopped, as on a GPU */
static int stopped(const jacobi_step_t *s)
{
    return s->ctl->iteration >= s->ctl->stop_at || s->ctl->failed;
}

int jacobi_steps_enqueue(jacobi_plan_t *plan, int steps)
{
    for (int i = 0; i < steps && !stopped(&plan->step); i++)
        jacobi_sweep_step_host(&plan->step);
    return 0;
}

/* ---- the program's stream and clock helpers ----------------------------------------- */

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
    return 1e9; /* shardtab_detail_clock: CLOCK_MONOTONIC nanoseconds */
}
