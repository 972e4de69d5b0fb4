/* comm_kernels.h - the launchers of comm_check's device code (comm_calls.h): one
 * block of `threads` runs a call. One implementation per backend:
 * comm_kernels.hip (HIP and CUDA), comm_kernels_host.c (the calling thread,
 * or for the concurrency test two threads at once). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef COMM_KERNELS_H
#define COMM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "shardtab_device.h"
#include "test_stream.h" /* the streams the launchers take */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct comm_call comm_call_t;

/* *status (device memory) gets the block's SHARDTAB_WAIT_* status. `blocks`
 * blocks run the same call at once (2: the refused misuse). Return 0 or a
 * runtime code. */
int comm_call_launch(const shardtab_signals_t *sig, const comm_call_t *call, const void *in,
                     void *out, int *status, int threads, int blocks, void *stream);
int comm_put_launch(const shardtab_signals_t *sig, void *const *table, int peer, size_t offset,
                    const void *src, size_t bytes, int slot, uint64_t round, int *status,
                    int threads, void *stream);
typedef struct comm_ll comm_ll_t;
/* comm_ll_block in one block of `threads` */
int comm_ll_launch(const shardtab_signals_t *sig, void *const *table, const comm_ll_t *ll,
                   const unsigned char *src, unsigned char *dst, int *status, int threads,
                   void *stream);
/* comm_bench_block in one block of `threads`: value[0] this rank's input,
 * value[1 + i] call i's result; ticks[iters] each call's time; `held`: one
 * claim for the loop; `trace`: each step's time too (ticks: iters * (2 +
 * SHARDTAB_DETAIL_TRACE_POINTS)). */
int comm_bench_launch(const shardtab_signals_t *sig, int slot, int iters, int held, int trace,
                      double *value, uint64_t *ticks, int *status, int threads, void *stream);
/* comm_concurrent_block in three blocks (host: three threads) at once;
 * *status gets the worst block's status. */
/* comm_held_stop_block in one block of `threads`; *status its status. */
int comm_held_stop_launch(const shardtab_signals_t *sig, int slot, int values, int calls,
                          int stop_rank, int stop_after, double *out, int *status, int threads,
                          void *stream);
int comm_concurrent_launch(const shardtab_signals_t *sig, int slot_a, int values_a, int slot_b,
                           int rounds, int held, const double *in, double *out, int *status,
                           void *stream);
/* comm_dot_exact_block in one block of `threads`: *out the node's exact dot */
int comm_dot_exact_launch(const shardtab_signals_t *sig, int slot, const double *x, const double *y,
                          size_t n, double *out, int *status, int threads, void *stream);
/* Ticks per second of shardtab_detail_clock(). */
double comm_clock_hz(void);

#ifdef __cplusplus
}
#endif

#endif /* COMM_KERNELS_H */
