/* jacobi_sweep.h - the launchers the jacobi program calls: one Jacobi sweep of this
 * rank's rows, with its ghost rows, neighbour signals and norm, in one kernel.
 * One implementation per backend (jacobi_sweep.hip for HIP and CUDA, jacobi_sweep_host.c
 * for CPUs); host code never sees a <<< >>> launch.
 *
 * The step, iteration k (parity p = k & 1):
 *   reads  a[p] (this rank's rows) and halo[p] (its ghost rows: [0, nx) the row
 *          above its first row, [nx, 2 nx) the row below its last);
 *   writes a[1-p], and its first and last rows also into the neighbours' ghost
 *          rows for k + 1: top_dest[1-p] and bottom_dest[1-p], through the table
 *          (NULL: the host moves that row, as for a neighbour on another node).
 * With device_sync the boundary blocks wait, before they read a ghost row or
 * write a neighbour's, for that neighbour's signal "finished k - 1", and send
 * "finished k" once every block of their strip is done: one signal per
 * neighbour and iteration, a growing count, the NVSHMEM neighbour-sync idiom.
 * The L2 norm of iteration k (every nccheck-th) is summed per block, then by
 * the last block in a fixed order; with device_norm it goes into every node
 * peer's pad, and the last block of iteration k + 1 sums every rank's in rank
 * order (the same bits on every rank) and decides whether to stop, as the
 * anchors do one iteration late. The host only enqueues.
 */
#ifndef JACOBI_SWEEP_H
#define JACOBI_SWEEP_H

#include <stdint.h>

#include "shardtab_device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef float jacobi_real_t; /* as the anchors: single precision */

/* Slots of each rank's signal pad the step uses (shardtab_create_with). */
#define JACOBI_SLOT_FROM_TOP 0    /* iterations the top neighbour has finished */
#define JACOBI_SLOT_FROM_BOTTOM 1 /* iterations the bottom neighbour has finished */
#define JACOBI_NORM_RING 8        /* norm deposits kept per rank */
#define JACOBI_SLOT_NORM_SEQ(rank) (2 + (rank))
#define JACOBI_SLOT_NORM(node_size, deposit, rank) \
    (2 + (node_size) + ((deposit) % JACOBI_NORM_RING) * (node_size) + (rank))
#define JACOBI_SIGNAL_SLOTS(node_size) (2 + (node_size) * (1 + JACOBI_NORM_RING))
#define JACOBI_NO_STOP UINT64_MAX

/* Device-resident state of one rank's solve; the kernels alone write it while
 * a solve runs, the host reads it after. */
typedef struct jacobi_ctl {
    uint64_t iteration;      /* iterations done since the grid was created */
    uint64_t base;           /* iteration at which this solve started */
    uint64_t stop_at;        /* no iteration >= this runs; JACOBI_NO_STOP */
    uint64_t failed;         /* a wait gave up: every later step returns at once */
    uint64_t arrived;        /* blocks finished, all iterations: the last-block ticket */
    uint64_t top_arrived;    /* blocks of the first-row strip finished */
    uint64_t bottom_arrived; /* blocks of the last-row strip finished */
    uint64_t local_iter;     /* iteration of local_norm2 */
    double local_norm2;      /* this rank's sum of squared residues, last norm iteration */
    uint64_t norm_iter;      /* iteration of norm, the last global norm decided on */
    double norm;             /* sqrt of every rank's sum, device_norm only */
} jacobi_ctl_t;

typedef struct jacobi_step {
    jacobi_real_t *a[2];            /* [parity] rows x nx, row-major */
    jacobi_real_t *halo[2];         /* [parity] 2 x nx: the ghost row above, below */
    jacobi_real_t *top_dest[2];     /* [parity] the top neighbour's ghost row below, or NULL */
    jacobi_real_t *bottom_dest[2];  /* [parity] the bottom neighbour's ghost row above, or NULL */
    int nx, rows;
    int top_peer, bottom_peer;      /* node ranks to wait for and signal; -1: none */
    int device_sync;                /* wait for / signal the neighbours in the kernel */
    int device_norm;                /* exchange norms through the pads, decide on device */
    int nccheck;                    /* the norm every nccheck-th iteration */
    int skip_signal;                /* test hook: never signal the neighbours */
    double tol;                     /* stop once the norm <= tol */
    double *history;                /* device [history_len]: norm of iterations 0, 100, ... */
    int history_len;
    int blocks_x, strips, rows_per_strip; /* the launch shape (jacobi_step_shape) */
    int columns_per_thread;         /* 4 (16-byte accesses) when nx % 4 == 0, else 1 */
    jacobi_ctl_t *ctl;              /* device */
    double *partials;               /* device [blocks_x * strips] */
    shardtab_signals_t sig;
} jacobi_step_t;

/* Fills the launch shape for this device (blocks_x, strips, rows_per_strip)
 * and returns how many partial sums (doubles) the step needs. */
int jacobi_step_shape(jacobi_step_t *step, uint64_t *partials);
/* Enqueues `count` steps on stream (NULL: default). graph: capture them once
 * and replay (GPU; the host backend ignores it). Returns 0 or a runtime code. */
int jacobi_run(const jacobi_step_t *step, int count, void *stream, int graph);
/* Stream helpers for the program: a non-blocking stream (graphs cannot be
 * captured on the legacy default stream). */
int jacobi_stream_create(void **stream);
void jacobi_stream_destroy(void *stream);
/* Drops the cached graph of this step (before its buffers are freed). */
void jacobi_graph_release(void);
const char *jacobi_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif /* JACOBI_SWEEP_H */
