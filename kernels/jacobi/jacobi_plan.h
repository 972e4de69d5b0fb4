/* jacobi_plan.h - the jacobi program's plans, written once for every backend
 * (jacobi_plan.c): which launch mode a solver runs (asked for, or chosen by
 * measurement, and where the next is tried when a plan is refused), and a
 * plan of that mode made, run and destroyed through its row of the modes'
 * table (jacobi_launch.h). The program agrees on the choice over its ranks
 * (src/jacobi/jacobi_solve.c); the backends' hooks that the plans call are
 * jacobi_hooks.h. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_PLAN_H
#define JACOBI_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "jacobi_launch.h"
#include "jacobi_sweep.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the choice of a mode --------------------------------------------------------- */

/* What the choice of one solver's mode weighs. */
typedef struct jacobi_launch_ask {
    jacobi_launch_t asked; /* --launch */
    int reference;         /* 1: rank 0's reference, alone on its device; 0: the run */
    int host_loop;         /* the run's host takes part in every step */
    int gpu;               /* a GPU backend (not the host backend's threads) */
    int ranks_on_device;   /* the run's ranks sharing this rank's device */
    int nx, rows;          /* the solver's points: columns, rows */
} jacobi_launch_ask_t;

/* The mode to plan first: stream where the host takes part in every step;
 * auto's by the measurements (jacobi_plan.c); else the one asked for. */
jacobi_launch_t jacobi_launch_choose(const jacobi_launch_ask_t *ask);
/* Where the plan of `refused` was refused: the table's fallback, or AUTO
 * where the refusal stands (no fallback; the run's mode asked for; the
 * reference's persistent asked for: its on-chip tiles and temporal passes
 * fall back all the same, the whole grid alone need not suit them). */
jacobi_launch_t jacobi_launch_instead(const jacobi_launch_ask_t *ask, jacobi_launch_t refused);
/* Can the choice for `asked` end at `mode` (on a GPU backend or not)? */
int jacobi_launch_may_run(jacobi_launch_t asked, int gpu, jacobi_launch_t mode);
/* The launch note: `refused`'s words appended ("<refused> (why): <instead>
 * instead"), and, once the run's plan is made, why the choice ended where
 * it did where nothing was refused (note still ""). */
void jacobi_launch_note_refusal(char *note, size_t note_bytes, jacobi_launch_t refused,
                                const char *why);
void jacobi_launch_note(const jacobi_launch_ask_t *ask, const jacobi_plan_t *plan, char *note,
                        size_t note_bytes);

/* ---- a plan ------------------------------------------------------------------------ */

/* Everything a launch mode needs that can be done before a clock starts: a
 * graph captured and instantiated (its first replay, in the warm-up solve,
 * uploads it); a persistent grid sized and checked to fit co-resident. Returns
 * 0, JACOBI_PLAN_NOT_RESIDENT with the reason in why, or a runtime code. The
 * plan keeps its own copy of step and of tuning (NULL: the defaults), which
 * must be those step was shaped with. */
int jacobi_plan_create(const jacobi_step_t *step, const jacobi_tuning_t *tuning,
                       jacobi_launch_t launch, void *stream, jacobi_plan_t **plan, char *why,
                       size_t why_bytes);
/* Runs up to count steps from the device's current iteration and returns once
 * they are enqueued (the caller synchronizes the stream): persistent, one
 * launch; graph and stream, chunks of launches paced so that none is enqueued
 * after the device has stopped the solve. Returns 0 or a runtime code. */
int jacobi_plan_run(jacobi_plan_t *plan, int count);
void jacobi_plan_destroy(jacobi_plan_t *plan);
/* An on-chip plan's cut: its tiles, and the most rows a tile holds (0 for other modes). */
int jacobi_plan_tiles(const jacobi_plan_t *plan);
int jacobi_plan_tile_rows(const jacobi_plan_t *plan);
/* A temporal plan's cut: its tiles, each of *cols x *rows own points at most (0 for other modes). */
int jacobi_plan_temporal_cut(const jacobi_plan_t *plan, int *cols, int *rows);
/* Any code's text: a plan's (JACOBI_PLAN_NOT_RESIDENT) or the backend's. */
const char *jacobi_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif /* JACOBI_PLAN_H */
