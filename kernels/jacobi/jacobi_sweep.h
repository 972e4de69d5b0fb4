/* jacobi_sweep.h - what the jacobi program and its kernels share of a step:
 * Jacobi sweeps of this rank's rows, with their ghost rows, neighbour signals
 * and norm, on the device (the step's state, its tiles, the tuning, the
 * stream and clock helpers). A plan per launch mode (jacobi_launch.h) runs
 * them: its neutral code in jacobi_plan.c (jacobi_plan.h, the program's
 * calls), each backend's hooks beside their kernels
 * (jacobi_plan.hip, jacobi_sweep.hip, ... for HIP and CUDA; the _host.c twins
 * for CPUs; jacobi_hooks.h says which). Host code never sees a <<< >>> launch.
 *
 * The step, iteration k (parity p = k & 1):
 *   reads  a[p] (this rank's rows) and halo[p] (its ghost rows: [0, nx) the row
 *          above its first row, [nx, 2 nx) the row below its last);
 *   writes a[1-p], and its first and last rows also into the neighbours' ghost
 *          rows for k + 1: top_dest[1-p] and bottom_dest[1-p], through the table
 *          (NULL: the host moves that row, as for a neighbour on another node).
 * With device_sync the boundary tiles wait, before they read a ghost row or
 * write a neighbour's, for that neighbour's signal "finished k - 1", and send
 * "finished k" once every tile of their strip is done: one signal per
 * neighbour and iteration, a growing count, the NVSHMEM neighbour-sync idiom.
 * The L2 norm of iteration k (every nccheck-th) is summed per tile, then over
 * the tiles in a fixed order; with device_norm it goes into every node peer's
 * pad, and the norm of k - 1, summed over every rank in rank order (the same
 * bits on every rank), decides after iteration k whether to stop, one
 * iteration late as the anchors do. The host only enqueues.
 *
 * The ways to run the steps (the modes of jacobi_launch.h):
 *   stream      one launch per step; each launch reads its iteration from the
 *               device, and the last block to finish closes the iteration;
 *   graph       the same launches, captured once in a graph and replayed;
 *   persistent  one cooperative launch runs every step: a grid-wide barrier
 *               closes each iteration, the stop is decided inside it;
 *   onchip      one cooperative launch in which each block keeps a tile of
 *               whole rows in registers for the whole solve and meets only
 *               its neighbour tiles and the decision (jacobi_onchip.h);
 *   temporal    a launch per pass of up to 7 iterations (temporal blocking):
 *               each block loads a tile with a halo as deep as the pass into
 *               shared memory and runs every iteration of the pass there, so
 *               the grid is read and written once a pass (jacobi_temporal.h).
 * Graph and stream launches are paced: at most two chunks of steps are queued,
 * and none once the device has decided to stop.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_SWEEP_H
#define JACOBI_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "shardtab_comm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef float jacobi_real_t; /* as the anchors: single precision */

/* The deepest temporal pass (jacobi_temporal.h), and so the rows of a rank's
 * deep ghost rows above and below (jacobi_step_t.deep). */
#define JACOBI_TEMPORAL_MAX_DEPTH 7

/* Slots of each rank's signal pad the step uses (shardtab_create_with). */
#define JACOBI_SLOT_FROM_TOP 0    /* iterations the top neighbour has finished */
#define JACOBI_SLOT_FROM_BOTTOM 1 /* iterations the bottom neighbour has finished */
#define JACOBI_SLOT_NORM 2        /* the norm's all-reduce (shardtab_comm.h): one double */
#define JACOBI_SIGNAL_SLOTS(node_size) (JACOBI_SLOT_NORM + SHARDTAB_COLL_SLOTS(node_size, 1))
#define JACOBI_NO_STOP UINT64_MAX
#define JACOBI_NO_NORM UINT64_MAX /* jacobi_ctl_t.norm_iter before any norm is decided */
#define JACOBI_HISTORY_MAX 65536  /* norms the history keeps: every one decided, up to this */

/* What an on-chip wait (jacobi_onchip.h) waits for: how it waits, and, past
 * a give-up, which wait it was (jacobi_ctl_t.failed, which the host names;
 * 1 is a signal wait's, jacobi_fail_at). */
enum {
    JACOBI_WAIT_NORM = 0,       /* the norm block's for the partials: unbounded */
    JACOBI_WAIT_TILE = 2,       /* a tile's for a tile of this rank, or the decision */
    JACOBI_WAIT_RANK_ABOVE = 3, /* a tile's for the rank above's edge row: LL loads */
    JACOBI_WAIT_RANK_BELOW = 4, /* ... the rank below's */
    JACOBI_ONCHIP_NO_START = 5  /* not a wait: the host backend could not start its tiles */
};

/* Device-resident state of one rank's solve; the kernels alone write it while
 * a solve runs, the host reads it after. */
typedef struct jacobi_ctl {
    uint64_t iteration;      /* iterations done since the grid was created */
    uint64_t base;           /* iteration at which this solve started */
    uint64_t stop_at;        /* no iteration >= this runs; JACOBI_NO_STOP. Only ever lowered */
    uint64_t failed;         /* a wait gave up: every later step returns at once (1, or on
                                chip which wait: JACOBI_WAIT_*) */
    uint64_t arrived;        /* tiles finished, all iterations: the last-tile ticket */
    uint64_t top_arrived;    /* tiles of the first-row strip finished */
    uint64_t bottom_arrived; /* tiles of the last-row strip finished */
    uint64_t local_iter;     /* iteration of local_norm2 */
    double local_norm2;      /* this rank's sum of squared residues, last norm iteration */
    uint64_t norm_iter;      /* iteration of norm, the last global norm decided; JACOBI_NO_NORM */
    double norm;             /* sqrt of every rank's sum, device_norm only */
    uint64_t decided;        /* on chip: 2 j + stop, j the last iteration whose close was
                                decided (jacobi_onchip.h); only ever grows */
    uint64_t exits;          /* on chip: blocks that have ended, all launches; the last
                                block of a launch sets iteration */
    uint64_t run_end;        /* temporal: no pass of this run goes past this iteration */
    uint64_t redo;           /* temporal: 1 + the time a pass must be run again from, up to
                                iteration, after a stop inside it; 0 none */
    uint64_t passes;         /* temporal: passes run, all solves (reruns included): what the
                                neighbours are told and waited for; only ever grows */
} jacobi_ctl_t;

/* A planted bug, for the tests that prove a check can fail (the program's
 * JACOBI_TEST_FAULT); kind JACOBI_FAULT_NONE in every real run. */
enum {
    JACOBI_FAULT_NONE = 0,
    JACOBI_FAULT_STALE,
    JACOBI_FAULT_NORM,
    JACOBI_FAULT_STOP,
    JACOBI_FAULT_EDGE, /* on chip and temporal only */
    JACOBI_FAULT_LAG   /* on chip and temporal only */
};
typedef struct jacobi_fault {
    int kind;      /* STALE: the point keeps its old value; NORM: its residue counts twice;
                      STOP: the solve stops after that iteration; EDGE: the tile holding
                      the row takes its upper neighbour's edge row from the other time's
                      words, unchecked (a stale edge);
                      LAG: the tile holding the row runs one iteration past the stop.
                      Temporal passes: EDGE, the tile holding the row loads, as
                      its deepest halo row above, the row below that one (a
                      ghost row of the wrong place); LAG, a pass stopped inside
                      is not run again (the state is the pass's end, not the
                      stop's) */
    int row, col;  /* this solver's row (0 = its first), column */
    int iteration; /* counted from the solve's start */
} jacobi_fault_t;

/* A trace of every iteration (jacobi_step_t.trace), for where the time goes.
 * Timestamps and durations in ticks of shardtab_detail_clock() (jacobi_clock_hz). */
enum {
    JACOBI_TRACE_BEGIN = 0, /* the first tile starts the iteration */
    JACOBI_TRACE_SWEPT,     /* the last tile is swept (its waits included) */
    JACOBI_TRACE_WAIT,      /* longest time a boundary tile waited for a neighbour */
    JACOBI_TRACE_SIGNAL,    /* longest time a strip took to signal its neighbour */
    JACOBI_TRACE_NORM,      /* time spent on the norm: sums, deposits, waits, decision */
    JACOBI_TRACE_NORM_WAIT, /* ... of which waiting for the node peers' norms */
    JACOBI_TRACE_ARRIVED,   /* the last tile arrives at the end of the iteration */
    JACOBI_TRACE_END,       /* the iteration is closed: barrier passed, or last block done */
    JACOBI_TRACE_EVENTS
};

typedef struct jacobi_step {
    jacobi_real_t *a[2];           /* [parity] rows x nx, row-major */
    jacobi_real_t *halo[2];        /* [parity] 2 x nx: the ghost row above, below */
    jacobi_real_t *top_dest[2];    /* [parity] the top neighbour's ghost row below, or NULL */
    jacobi_real_t *bottom_dest[2]; /* [parity] the bottom neighbour's ghost row above, or NULL */
    int nx, rows;
    int top_peer, bottom_peer; /* node ranks to wait for and signal; -1: none */
    int device_sync;           /* wait for / signal the neighbours in the kernel */
    int device_norm;           /* exchange norms through the pads, decide on device */
    int nccheck;               /* the norm every nccheck-th iteration */
    int skip_signal;           /* test hook: never signal the neighbours */
    int slow_passes;           /* test hook: the host backend's temporal passes start
                                       2 ms late (JACOBI_TEST_SLOW_RANK) */
    double tol;                /* stop once the norm <= tol */
    double *history; /* device [history_len]: every decided norm, by iteration / nccheck */
    int history_len;
    int blocks_x, strips, rows_per_strip; /* the tiles (jacobi_step_shape) */
    int columns_per_thread;               /* 4 (16-byte accesses) when nx % 4 == 0, else 1 */
    jacobi_ctl_t *ctl;                    /* device */
    double *partials;        /* device [2][blocks_x * strips]: each tile's sum, by parity */
    uint64_t *trace;         /* device [trace_len][JACOBI_TRACE_EVENTS], or NULL */
    int trace_len;           /* iterations traced, from the solve's start */
    volatile uint64_t *done; /* set by the plan: the device stopped the solve */
    int norm_block;          /* set by the plan: persistent block 0 sweeps no tile */
    jacobi_fault_t fault;
    shardtab_signals_t sig;
    /* --launch onchip (jacobi_onchip.h), set by its plan: each tile a block
     * holding its rows for the whole solve, edges and partial sums in LL words */
    int tiles;               /* tiles of whole rows: tile t holds rows [t rows / tiles, ...) */
    int tile_rows;           /* the most rows a tile holds */
    int tile_warps;          /* partial sums a tile sends per norm iteration */
    uint64_t *edges;         /* device [2][tiles][2][nx]: first and last rows, by time parity */
    uint64_t *tile_partials; /* device [2][tiles][tile_warps][2]: halves of each partial */
    uint64_t wait_ticks;     /* a tile's wait for a rank's edge gives up past this; for a
                                tile of its own rank or the decision, past twice this */
    /* --launch onchip between ranks (set by the solver): the ghost rows as
     * LL words, by time parity (the solver's JACOBI_FACES_LL: parity 1's row
     * 2 nx words after parity 0's, jacobi_ll_ghost). ll_above and ll_below are
     * this rank's (the neighbours write them); ll_top_dest is the top
     * neighbour's row below, ll_bottom_dest the bottom neighbour's row above
     * (NULL: no neighbour rank) */
    uint64_t *ll_above, *ll_below;
    uint64_t *ll_top_dest, *ll_bottom_dest;
    /* --launch temporal (jacobi_temporal.h), set by its plan: tiles of
     * temporal_cols x temporal_rows points, passes up to temporal_depth deep */
    int temporal_depth;               /* the deepest pass: 1, 3, 5 or 7 (odd: jacobi_temporal.h) */
    int temporal_cols, temporal_rows; /* a tile's own points: columns, rows */
    int temporal_tiles_x, temporal_tiles_y;
    int temporal_blocks;             /* GPUs: the pass's grid, a block a tile */
    jacobi_real_t *temporal_scratch; /* host backend: a tile's exchange buffer */
    /* --launch temporal (set by the solver): each parity's deep ghost rows
     * (the solver's JACOBI_FACES_DEEP: JACOBI_TEMPORAL_MAX_DEPTH rows above,
     * row i rank row i - MAX_DEPTH, then as many below, row i rank row rows
     * + i), written by the neighbours once a pass; and where
     * this rank's first and last rows go in theirs. deep is allocated for
     * every temporal solver; the dests are NULL where there is no neighbour
     * (a rank alone reads its own rows, periodic, in place). */
    jacobi_real_t *deep[2];
    jacobi_real_t *deep_top_dest[2];    /* the top neighbour's deep rows below */
    jacobi_real_t *deep_bottom_dest[2]; /* the bottom neighbour's deep rows above */
    double *temporal_partials;          /* device [temporal_depth][tiles]: each tile's sum, by
                                      iteration of the pass */
} jacobi_step_t;

/* The tuning variables' values (JACOBI_MIN_STRIP_ROWS, JACOBI_VEC4,
 * JACOBI_BLOCKS_PER_SM, JACOBI_ROWS_IN_FLIGHT, JACOBI_NORM_BLOCK,
 * JACOBI_ONCHIP_ROWS, JACOBI_TEMPORAL_DEPTH, JACOBI_TEMPORAL_ROWS): the program
 * reads and checks them on the host (src/jacobi/jacobi_options.c) and passes
 * them in; the launchers take them as given. The host backend uses only
 * JACOBI_TEMPORAL_DEPTH. */
#define JACOBI_MAX_BLOCKS_PER_SM 16
typedef struct jacobi_tuning {
    int min_strip_rows; /* fewest rows a strip of tiles, 1 to 64 */
    int vec4;           /* 1: four columns a thread (16-byte accesses) where nx % 4 == 0; 0: one */
    int blocks_per_sm;  /* stream and graph launches: tiles for this many blocks a
                           multiprocessor, 1 to JACOBI_MAX_BLOCKS_PER_SM; 0: the step kernel's own */
    int rows_in_flight; /* rows a thread loads ahead: 1, 4 or 8; 0: each kernel's own */
    int norm_block;     /* persistent: 1, block 0 carries the norm alone; 0, it sweeps tiles too */
    int onchip_rows;    /* on chip: rows a tile, 2, 4, 8 or 16; 0: chosen by the plan */
    int temporal_depth; /* temporal: iterations a pass at most, 1, 3, 5 or 7 */
    int temporal_rows;  /* temporal, GPUs: own rows a tile streams, 4 to 4096; 0: the plan's */
    int device_share;   /* not a variable: the ranks sharing this device (1: alone); a
                           persistent or on-chip grid takes 1/device_share of it */
} jacobi_tuning_t;
/* The defaults, the values the measurements of docs/performance.md chose. */
#define JACOBI_TUNING_DEFAULTS                                                                     \
  {                                                                                                \
    4, 1, 0, 0, 1, 0, 7, 0, 1                                                                      \
  }

/* The multiprocessors one rank's persistent or on-chip grid may fill where
 * `share` ranks share a device of `sms`: its equal part, so that the grids of
 * every rank are resident at once (a grid that is not can never be waited out:
 * its rank's neighbours wait on it, and it waits for them to leave the
 * device). 0 when there are more ranks than multiprocessors: no such cut
 * exists, and the plan refuses the launch instead of starting a solve that can
 * only time out. One rule for the GPU plans, unit-tested on the host. */
static inline int jacobi_share_of_device(int sms, int share)
{
    return sms / (share > 1 ? share : 1);
}

/* Fills the tiles for this device (blocks_x, strips, rows_per_strip) and
 * returns how many partial sums (doubles) the step needs. tuning: NULL for
 * the defaults. */
int jacobi_step_shape(jacobi_step_t *step, const jacobi_tuning_t *tuning, uint64_t *partials);

/* Stream helpers for the program: a non-blocking stream (graphs cannot be
 * captured on the legacy default stream). */
int jacobi_stream_create(void **stream);
void jacobi_stream_destroy(void *stream);
/* Ticks per second of the trace's clock. */
double jacobi_clock_hz(void);

#ifdef __cplusplus
}
#endif

#endif /* JACOBI_SWEEP_H */
