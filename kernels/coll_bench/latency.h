/* latency.h - coll_bench's device-side timings, the launchers: put with signal
 * and LL puts between two ranks' blocks (ping-pongs) and the device-side all-reduce of one
 * double, each timed inside its kernel; and an empty kernel, the launch
 * floor of the stream side. One implementation per backend
 * (latency.hip for HIP and CUDA, latency_host.c for CPUs), one body
 * (latency_body.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef COLL_BENCH_LATENCY_H
#define COLL_BENCH_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "shardtab_device.h"
#include "shardtab/comm_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The user signal slots the timings take: slot 0 the ping-pong's, then the
 * all-reduce's collective of one value on a node of n ranks. */
#define LAT_PINGPONG_SLOT 0
#define LAT_COLL_SLOT 1
#define LAT_SLOTS(n) (LAT_COLL_SLOT + SHARDTAB_COLL_SLOTS(n, 1))
/* the block the timings run in */
#define LAT_THREADS 256

/* Node ranks 0 and 1, `iters` round trips: rank 0 puts `bytes` from src into
 * rank 1's shard at dst_offset with signal value base + i + 1, rank 1 waits
 * for it and puts its own src back the same way. ticks[i] (device memory, on
 * rank 0) is round trip i, in shardtab_detail_clock ticks. *status gets the block's
 * SHARDTAB_WAIT_* status. Returns 0 or a runtime code. */
int lat_pingpong_launch(const shardtab_signals_t *sig, void *const *table, const void *src,
                        size_t dst_offset, size_t bytes, int iters, uint64_t base, uint64_t *ticks,
                        int *status, void *stream);
/* The same with LL puts (shardtab_put_ll_block / _wait_ll_block): each
 * rank's LL buffer of 2 * bytes at ll_offset of its shard, zeroed before;
 * round trip i's flag i + 1; what each rank got last lands in dst (device
 * memory, bytes). */
int lat_ll_pingpong_launch(const shardtab_signals_t *sig, void *const *table, const void *src,
                           void *dst, size_t ll_offset, size_t bytes, int iters, uint64_t *ticks,
                           int *status, void *stream);
/* `iters` device-side all-reduces of in[0] (one double, sum; read into the
 * block's shared memory first, as a solver's block sum lies) back to back,
 * call i's result into out[i], its time into ticks[i]; `held`: the block
 * holds the collective for the loop (one claim a kernel). */
int lat_all_reduce_launch(const shardtab_signals_t *sig, const double *in, double *out, int iters,
                          int held, uint64_t *ticks, int *status, void *stream);
/* The order of lat_load_chain_launch's loads: relaxed at system scope (the
 * signals' polls), relaxed at device scope, an LL word's load (the
 * collectives' and the LL puts' waits). */
enum { LAT_LOAD_SYSTEM = 0, LAT_LOAD_DEVICE = 1, LAT_LOAD_LL = 2 };
/* One thread's `iters` dependent loads through ring (device memory: ring[i]
 * the index of the next, the low 32 bits of an LL word), each waiting for
 * the one before: ticks[0] (device memory) the ticks they took, ticks[1]
 * the index they ended at. */
int lat_load_chain_launch(uint64_t *ring, int how, int iters, uint64_t *ticks, void *stream);
/* One empty kernel of one block on stream (the host backend: nothing): the
 * floor of a stream-ordered call's launch. */
int lat_empty_launch(void *stream);
/* shardtab_detail_clock's ticks a second on this device */
double lat_clock_hz(void);

#ifdef __cplusplus
}
#endif
#endif /* COLL_BENCH_LATENCY_H */
