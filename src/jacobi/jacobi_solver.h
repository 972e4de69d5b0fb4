/* jacobi_solver.h - one solve's device state (this rank's rows, or the whole
 * grid for the 1-GPU reference, their ghost rows and the kernel's bookkeeping),
 * its starting state, how its steps are launched (a plan), and the
 * reference's wiring onto itself (the job's ring: jacobi_job.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_SOLVER_H
#define JACOBI_SOLVER_H

#include "jacobi_options.h"
#include "jacobi_plan.h"
#include "jacobi_sweep.h"
#include "shardtab.h"
#include "shardtab_faces.h"

#define JACOBI_TOL 1.0e-8 /* the anchors' tolerance: a solve stops once its norm is at most this */

typedef struct jacobi_solver {
    int nx, ny, start, rows;  /* the grid, and this solver's rows [start, start + rows) */
    jacobi_real_t *buffer[2]; /* device allocations: rows x nx, or (rows + 2) x nx padded */
    jacobi_real_t *a[2];      /* device: the rows, inside buffer[p] */
    jacobi_real_t *halo;      /* device: the ghost rows, in the parts of jacobi_faces_params */
    size_t halo_bytes;        /* halo's size: the table's shard, the same on every rank */
    jacobi_ctl_t *ctl;        /* device */
    double *partials;         /* device */
    double *history;          /* device */
    int history_len;
    jacobi_real_t *init;      /* host: the starting rows */
    jacobi_real_t *init_halo; /* host [above, below][nx]: the starting ghost rows */
    jacobi_real_t
        *init_deep; /* host, where temporal passes may run: the starting deep ghost rows, or NULL */
    jacobi_step_t step;
    jacobi_tuning_t tuning; /* the tuning variables its step was shaped with, its plans take */
    jacobi_plan_t *plan;    /* how its solves launch their steps */
} jacobi_solver_t;

/* Device buffers of one solver, its starting state (opts->init) and its tiles
 * (opts->tuning). Its halo (with deep ghost rows where --launch temporal asks)
 * is in coherent memory when peers write it; padded leaves a spare row above
 * and below the rows of each buffer (the plain reference runs in the 1-GPU
 * reference's buffers afterwards, with its ghost rows there). */
shardtab_status_t jacobi_solver_alloc(jacobi_solver_t *s, const jacobi_options_t *opts, int start,
                                      int rows, int coherent_halo, int padded);
shardtab_status_t jacobi_solver_free(jacobi_solver_t *s);
/* The parts of a rank's ghost rows (its halo, the table's shard), one after
 * another, each laid out as the library's direct faces (shardtab_faces.h:
 * one axis, the rows; [parity][above, below]): the ghost rows; with
 * --launch temporal (deep_rows) JACOBI_TEMPORAL_MAX_DEPTH rows above and
 * below, written once a pass (above, row i is rank row i - MAX_DEPTH, the
 * nearest last; below, rank row rows + i); the on-chip launch's rows as LL
 * words, 8 bytes a point. */
enum jacobi_faces_part {
    JACOBI_FACES_ROWS,
    JACOBI_FACES_DEEP,
    JACOBI_FACES_LL,
    JACOBI_FACES_PARTS
};
/* That part's layout for rows nx wide, over `ranks` ranks in a periodic
 * ring; face_bytes 0 for the deep rows where deep_rows is 0. */
shardtab_faces_params_t jacobi_faces_params(int nx, int deep_rows, int ranks,
                                            enum jacobi_faces_part part);
/* Where that part's ghost rows (side 0 above, 1 below) of parity p lie in halo. */
void *jacobi_faces_at(jacobi_real_t *halo, int nx, int deep_rows, enum jacobi_faces_part part,
                      int side, int p);
/* Bytes of a solver's halo: the three parts. */
size_t jacobi_halo_bytes(const jacobi_options_t *opts);
/* Back to the starting state for a new solve, the iteration count kept. Synchronous. */
shardtab_status_t jacobi_solver_reset(jacobi_solver_t *s, void *stream);
/* The first solve of a fresh solver starts at iteration 0 with nothing
 * decided, its LL ghost rows at time 0. Before its peers' first solve. */
shardtab_status_t jacobi_solver_start(jacobi_solver_t *s, void *stream);
/* The device's bookkeeping, read back. Synchronous. */
shardtab_status_t jacobi_solver_read_ctl(const jacobi_solver_t *s, void *stream, jacobi_ctl_t *ctl);
/* The rows as the last solve left them, to host memory (rows x nx). Synchronous. */
shardtab_status_t jacobi_solver_read_rows(const jacobi_solver_t *s, void *stream,
                                          jacobi_real_t *rows_out);
/* Prepares the solver's plan in that launch mode (jacobi_plan_create, with
 * the solver's tuning): 0,
 * JACOBI_PLAN_NOT_RESIDENT with the reason in why, or a runtime code. */
int jacobi_solver_plan(jacobi_solver_t *s, jacobi_launch_t launch, void *stream, char *why,
                       size_t why_bytes);
/* Plants a test's bug into this solver's kernels when it names `solve` and
 * falls in its rows. */
void jacobi_solver_plant(jacobi_solver_t *s, const jacobi_test_fault_t *fault, int solve);
/* The deep ghost rows a solver keeps above and below (JACOBI_FACES_DEEP). */
int jacobi_solver_deep_rows(const jacobi_options_t *opts);

/* The reference: the whole grid on this rank's device, its own rows wrapping
 * around to its own ghost rows, as the anchors' single-GPU code does. */
void jacobi_wire_reference(jacobi_solver_t *s, int nccheck);

#endif /* JACOBI_SOLVER_H */
