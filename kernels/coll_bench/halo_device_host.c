/* halo_device_host.c - halo_bench's device-side exchanges on the host
 * backend (halo_device.h): the same device code, run now by this thread; a
 * grid's blocks one after another, each exchange's every block before the
 * next. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "halo_device.h"

int halo_device_exchanges(const shardtab_signals_t *sig, const shardtab_halo_device_t *halo,
                          int iters, int blocks, void *stream)
{
    (void)stream;
    for (int i = 0; i < iters; i++) {
        int status = SHARDTAB_WAIT_OK;
        if (blocks <= 1)
            status = shardtab_halo_exchange_block(sig, halo);
        for (int b = 0; b < blocks && blocks > 1 && status == SHARDTAB_WAIT_OK; b++)
            status = shardtab_halo_exchange_blocks(sig, halo, b, blocks);
        if (status != SHARDTAB_WAIT_OK)
            break; /* recorded in the pad */
    }
    return 0;
}
