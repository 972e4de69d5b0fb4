/* consumer_kernel_host.c - the consumer's device code on the host backend: the
 * body (consumer_body.h) run by the calling thread, the block of one. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "consumer_body.h"

int consumer_round(const shardtab_signals_t *sig, void *const *table, int next,
                   const uint64_t *words, double *value, int *status)
{
    *status = consumer_body(sig, table, next, words, value);
    return 0;
}
