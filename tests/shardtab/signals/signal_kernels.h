/* signal_kernels.h - the launchers of signal_example's device code: the usage
 * example of shardtab_device.h, a round of shardtab_barrier_block, and two
 * barriers of one rank at once (which must be refused). One implementation per
 * backend: signal_kernels.hip (HIP and CUDA), signal_kernels_host.c. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SIGNAL_KERNELS_H
#define SIGNAL_KERNELS_H

#include <stdint.h>

#include "shardtab_device.h"
#include "test_stream.h" /* the streams the launchers take */

#ifdef __cplusplus
extern "C" {
#endif

/* One block of `threads` runs the round; *mismatches (device memory, zeroed by
 * the caller) gets the mismatches seen, or a huge count when the wait gave up.
 * Enqueued on stream; the host backend runs it now. Return 0 or a runtime code. */
int example_round_launch(const shardtab_signals_t *sig, int *const *table, uint64_t round,
                         int threads, unsigned long long *mismatches, void *stream);
int barrier_round_launch(const shardtab_signals_t *sig, int *const *table, uint64_t round,
                         int threads, unsigned long long *mismatches, void *stream);
/* `blocks` blocks (host: threads) each join the node barrier at once. */
int concurrent_barriers_launch(const shardtab_signals_t *sig, int blocks, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* SIGNAL_KERNELS_H */
