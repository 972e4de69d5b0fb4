/* consumer_body.h - the consumer's device code, one body for its CUDA kernel
 * and its host-backend C: what every thread of the block does. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CONSUMER_BODY_H
#define CONSUMER_BODY_H

#include <shardtab_comm.h>

#include "consumer_kernel.h"

SHARDTAB_DEVFN int consumer_body(const shardtab_signals_t *sig, void *const *table, int next,
                                 const uint64_t *words, double *value)
{
    shardtab_coll_t coll = shardtab_coll(sig, CONSUMER_COLL_SLOT, 1);
    int status;

    shardtab_put_signal_block(sig, table, next, 0, words, CONSUMER_PUT_WORDS * sizeof(uint64_t),
                              CONSUMER_PUT_SLOT, 1, SHARDTAB_SIGNAL_SET);
    status = shardtab_signal_wait_block(sig, CONSUMER_PUT_SLOT, SHARDTAB_CMP_GE, 1);
    if (status == SHARDTAB_WAIT_OK)
        status =
            shardtab_all_reduce_block(sig, &coll, SHARDTAB_SUM, SHARDTAB_DOUBLE, value, value, 1);
    return status;
}

#endif /* CONSUMER_BODY_H */
