/* consumer_kernel.h - the consumer's own device code, as a user of the
 * installed shardtab_comm.h writes it: a block puts words into the next node
 * rank's shard with a signal, waits for its predecessor's, then all-reduces
 * one double over the node. One launcher per backend: consumer_kernel.cu
 * (CUDA), consumer_kernel_host.c (the host backend's C). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CONSUMER_KERNEL_H
#define CONSUMER_KERNEL_H

#include <shardtab_device.h>
#include <stdint.h>

#define CONSUMER_PUT_WORDS 64
#define CONSUMER_PUT_SLOT 0
#define CONSUMER_COLL_SLOT 1

#ifdef __cplusplus
extern "C" {
#endif

/* words: CONSUMER_PUT_WORDS words (device memory) put into node rank next's
 * shard at byte 0; *value (device) is all-reduced in place; *status (device)
 * gets the SHARDTAB_WAIT_* status. Returns 0, or a runtime error code. */
int consumer_round(const shardtab_signals_t *sig, void *const *table, int next,
                   const uint64_t *words, double *value, int *status);

#ifdef __cplusplus
}
#endif

#endif /* CONSUMER_KERNEL_H */
