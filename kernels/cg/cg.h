/* cg.h - the launchers the cg program calls: a conjugate-gradient solve of
 * this rank's rows on the device, the matrix-vector product reading the
 * direction vector through the node's table (kernels/sparse/spmv.h), the dot
 * products summed in a fixed order (or exactly, --repro) and combined over
 * the node by the library's device all-reduce, the stop decided on the
 * device. One launcher file a backend (cg.hip for HIP and CUDA, cg_host.c for
 * CPUs); the algorithm is written once (cg_body.h). Host code never sees a
 * <<< >>> launch.
 *
 * The two variants, iteration k of each (x_0 = 0, r_0 = b):
 *   standard   (Hestenes-Stiefel, as the CPU's reference, src/sparse/sparse_cg.h)
 *              rr = (r, r) reduced; stop if ||r|| <= tol ||b|| or k = niter;
 *              beta = rr / rr_old; p = r + beta p; a node barrier (p complete
 *              everywhere); q = A p and (p, q) reduced; alpha = rr / (p, q);
 *              x += alpha p; r -= alpha q.  Two reductions and a barrier;
 *              a rank alone in a persistent solve makes p inside the product
 *              (cg_args_t.fused): two reductions and no barrier.
 *   pipelined  (Ghysels and Vanroose, 2014) with w = A r kept by recurrence:
 *              gamma = (r, r) and delta = (w, r) reduced in one call whose
 *              start goes out before the product q = A w and whose finish is
 *              awaited after it; stop as above; beta = gamma / gamma_old,
 *              alpha = gamma / (delta - beta gamma / alpha_old);
 *              z = q + beta z, s = w + beta s, p = r + beta p, x += alpha p,
 *              r -= alpha s, w -= alpha z.  One reduction, overlapped, and a
 *              barrier (w complete everywhere); w alternates between two
 *              shards, so that a peer still reading w_k never sees w_k+1.
 * Every update is an explicit fma, so that every backend rounds alike.
 *
 * Launches (cg_launch_t; the modes' table, cg_launch.h): stream, a kernel a
 * phase, the barrier a library launch between them, the last block of a phase
 * doing its reduction; or persistent, one cooperative launch for the whole
 * solve (every block co-resident), the blocks meeting between the phases
 * (cg_meet.h). A rank alone on its node meets as a grid barrier after which
 * every block sums the reduction's parts itself; with peers, block 0 does the
 * node's collective and barrier while the others wait for it. Across nodes
 * (split) stream launches only: a phase's last block leaves this rank's
 * values of its dot products for the host's all-reduce over every node, and a
 * one-block cg_decide launch after it takes the decision the last block takes
 * on one node. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_H
#define CG_H

#include <stddef.h>
#include <stdint.h>

#include "shardtab_comm.h"
#include "spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cg_variant { CG_STANDARD = 0, CG_PIPELINED = 1 } cg_variant_t;
/* The launch modes: their table, names and choice are cg_launch.h's. */
typedef enum cg_launch {
    CG_LAUNCH_AUTO = 0,
    CG_LAUNCH_PERSISTENT,
    CG_LAUNCH_STREAM,
    CG_LAUNCH_COUNT
} cg_launch_t;

/* Why a solve stopped early (cg_state_t.failed); 0 none. */
enum {
    CG_FAIL_NONE = 0,
    CG_FAIL_WAIT = 1,       /* a device wait (a meeting of the grid, the all-reduce, the
                              barrier) gave up: the library's signal check names the
                              node's, cg_ctl_t.wait_failed the grid's */
    CG_FAIL_INDEFINITE = 2, /* a denominator (p, A p), or the pipelined one, <= 0 or not a
                               number while the residual is large: the matrix is not
                               positive definite */
    CG_FAIL_ROUNDING = 3,   /* not a failure: such a denominator once the residual is at
                               CG_ROUNDING_RESIDUAL or below, where rounding, not the
                               matrix, has made it so (pipelined CG past convergence):
                               the solve stops there */
    CG_FAIL_NONFINITE = 4   /* a residual or a denominator that is infinite or not a
                               number: the recurrence left double's range (an entry not
                               finite, or so small or large that alpha overflows) */
};
#define CG_ROUNDING_RESIDUAL 1e-6         /* far below where an indefinite matrix breaks down */
#define CG_DBL_MAX 1.7976931348623157e308 /* DBL_MAX, for device code: !(x <= it) is inf or NaN */

/* The collective's user slots: one call carries at most CG_COLL_VALUES
 * 64-bit values (two dot products, each exact: two accumulators of limbs). */
#define CG_EXACT_WORDS                                                                             \
  68 /* words of one exact accumulator: SHARDTAB_DETAIL_EXACT_LIMBS (shardtab/exact.h) */
#define CG_COLL_VALUES (2 * CG_EXACT_WORDS)
#define CG_SIGNAL_SLOTS(node_size) SHARDTAB_COLL_SLOTS(node_size, CG_COLL_VALUES)

/* --repro: a dot product is the exact sum of its chunks' sums, a chunk being
 * CG_CHUNK consecutive global rows summed by a fixed tree (cg_body.h); the
 * rows' split over the ranks then falls on chunk boundaries, so that no
 * chunk is split and every chunk's sum is the same bits at any rank count. */
#define CG_CHUNK 32

/* Phases of one traced iteration (cg_ctl_t.trace): clock readings of block 0
 * (stream launches: of the block that passes each point) at each boundary,
 * in this order. */
enum {
    CG_TRACE_BEGIN = 0, /* the iteration starts */
    CG_TRACE_REDUCED,   /* its first reduction is decided (standard: rr; pipelined: started) */
    CG_TRACE_BARRIER,   /* the node barrier has passed: the product may read the shards */
    CG_TRACE_PRODUCT,   /* this rank's rows of the product are done */
    CG_TRACE_DECIDED,   /* the last reduction is decided (standard: (p, q); pipelined:
                           gamma and delta) */
    CG_TRACE_END,       /* the updates are done */
    CG_TRACE_POINTS
};

/* The solve's scalars. Every block that needs them decides them itself from
 * the same reduced values, so they are the same bits in every block and on
 * every rank (each reduction combines in a fixed order). */
typedef struct cg_state {
    double rr;           /* (r, r), pipelined gamma, of iteration `iteration` */
    double rr_old;       /* the one before */
    double alpha, beta;  /* this iteration's */
    double alpha_old;    /* pipelined: the iteration before's alpha */
    double delta;        /* pipelined: (w, r) */
    double bnorm;        /* ||b|| */
    double denominator;  /* the last (p, q) or pipelined denominator: the failure's value */
    uint64_t iteration;  /* updates of x done */
    uint64_t stop;       /* 1: decided to stop (converged, niter reached, or failed) */
    uint64_t failed;     /* CG_FAIL_* */
    uint64_t reductions; /* reductions decided: the next one's buffers (cg_body.h) */
} cg_state_t;

/* Device-resident state of one rank's solve: the kernels alone write it while
 * the solve runs, the host reads it after. */
typedef struct cg_ctl {
    cg_state_t st;             /* stream launches: every decision's; persistent: block 0's at
                               the end */
    uint64_t arrived;          /* stream launches: blocks done, all phases: the last-block ticket */
    uint64_t grid_arrived;     /* persistent: arrivals of every block at the grid's meetings */
    uint64_t published;        /* persistent, ranks on the node: the last meeting block 0 ended */
    uint64_t published_failed; /* ... and whether its node work failed (CG_FAIL_WAIT) */
    double published_value[2]; /* ... and the node's values of its dot products */
    uint64_t wait_failed;      /* a block whose wait at a meeting of the grid ran out */
    uint64_t trace_iter;       /* the iteration traced (UINT64_MAX: none) */
    uint64_t trace[CG_TRACE_POINTS]; /* the clock at the traced iteration's phases */
} cg_ctl_t;

/* Everything a solve's kernels take, by value; pointers are the calling
 * rank's device memory. */
typedef struct cg_args {
    spmv_rows_t a;             /* this rank's rows; a.x: the table of the product's operand */
    double *const *p_table;    /* standard: the product's operand; pipelined: r_0 for w_0 */
    double *const *w_table[2]; /* pipelined: w_k in w_table[k & 1] */
    double *p, *w[2];          /* this rank's shards of those tables */
    double *x, *r, *q, *z, *s; /* this rank's rows of the other vectors */
    double *partials;          /* [2 sets][2 dots][blocks]: each block's part of a reduction */
    int64_t *limbs;            /* repro: [3 sets][2 dots][CG_EXACT_WORDS], this rank's sums */
    double *history;           /* [history_len]: ||r_k|| / ||b|| for k < history_len */
    int64_t history_len;
    cg_ctl_t *ctl;
    shardtab_signals_t sig; /* the p table's: the all-reduce (slot 0) and the barrier */
    int64_t niter;
    double tol;
    int variant; /* cg_variant_t */
    int repro;   /* dot products exact sums of fixed chunks' (shardtab/exact.h, CG_CHUNK) */
    int blocks;  /* the grid: blocks of CG_BLOCK threads (host: 1 of 1) */
    /* Across nodes (split): a reduction ends at this rank's values, in dots
     * (its shard of a table of CG_COLL_VALUES words), which the host sums over
     * every rank (shardtab_all_reduce) before cg_decide reads them back. */
    int split;
    uint64_t *dots;
    /* Standard, persistent, a rank alone on its node (fused): p = r + beta p
     * made inside the product from r and the last p, p_k in p_pair[k & 1]
     * (p_pair[0] = p): no pass and no meeting for the direction. */
    int fused;
    double *p_pair[2];
} cg_args_t;

/* The grid for a launch mode on this device (resident: the mode's
 * cg_launch_mode_t.resident): stream launches cover the rows (a few blocks a
 * multiprocessor at most); a persistent (resident) one is what is
 * co-resident of this rank's share of the device (`share` ranks on it), at
 * most what the rows need, and two blocks a multiprocessor while the rows
 * are few (cg.hip). *most: the largest grid the launch mode can run
 * (persistent: every block resident at once). 0, or a runtime code;
 * CG_NOT_RESIDENT with a reason in why (persistent launches only: no
 * cooperative launch, or no block fits). */
#define CG_NOT_RESIDENT (-2)
int cg_grid(const cg_args_t *args, int resident, int share, int *blocks, int *most, char *why,
            size_t why_bytes);

/* Enqueues the solve's start on stream: pipelined, w_0 = A r_0 (r_0 in the p
 * table's shards, complete on every rank: the caller's barrier); both, the
 * first reduction's parts. The host has set x = 0, r = b (pipelined: p = b
 * too), z = s = 0, the ctl zeroed but trace_iter. 0 or a runtime code. */
int cg_start(const cg_args_t *args, void *stream);
/* Stream launches: one iteration's kernels (the barriers the caller's,
 * before each product: cg_barrier_before below says where). Every kernel
 * returns at once once the device has decided to stop. */
int cg_stream_phase(const cg_args_t *args, int phase, void *stream);
/* The phases of one stream iteration, in order, and whether the node barrier
 * goes before each (shardtab_barrier_on_stream): standard 0 p update, 1 the
 * product (barrier before), 2 x and r; pipelined 0 the product (barrier
 * before), 1 the updates. */
int cg_stream_phases(int variant);
int cg_barrier_before(int variant, int phase);
/* Split (across nodes), after the start (phase -1) or a stream phase: how
 * many dot products of this rank's the host then sums over every rank, in
 * place in dots (shardtab_all_reduce of cg_split_words of them: doubles, or
 * with repro int64 limbs); and which decision a one-block cg_decide launch
 * then takes from the sums, the one the last block takes on one node (the
 * pipelined variant's after the product that follows its reduction). 0:
 * none. Every kernel returns at once once the device has decided to stop.
 * cg_split_words: the words of `dots` dot products and their *type. */
enum { CG_DECIDE_NONE = 0, CG_DECIDE_RR, CG_DECIDE_PQ, CG_DECIDE_GAMMA_DELTA };
int cg_reduce_after(int variant, int phase);
int cg_decide_after(int variant, int phase);
int cg_split_words(int repro, int dots, shardtab_type_t *type);
int cg_decide(const cg_args_t *args, int decision, void *stream);
/* Persistent: the whole solve, up to niter iterations, in one cooperative
 * launch of args->blocks blocks. */
int cg_persistent(const cg_args_t *args, void *stream);
/* Ticks of shardtab_detail_clock a second on this device. */
double cg_clock_hz(void);
/* The runtime's text for a code returned above. */
const char *cg_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif /* CG_H */
