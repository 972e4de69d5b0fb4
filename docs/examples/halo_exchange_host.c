/* halo_exchange_host.c - halo_exchange's device code on the host backend: the
 * step (halo_exchange.h) run by the calling thread, a block of one. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "halo_exchange.h"

const char *halo_exchange_step(const shardtab_signals_t *sig, void *const *table,
                               halo_layout_t layout, uint64_t s)
{
    /* a wait that failed is reported by shardtab_signal_check */
    (void)halo_step(sig, (double *const *)table, layout, s, 0, 1);
    return NULL;
}
