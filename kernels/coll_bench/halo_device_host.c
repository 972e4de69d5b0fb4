/* halo_device_host.c - halo_bench's and halo_check's device-side exchanges
 * on the host backend (halo_device.h): the same device code, run now by this
 * thread; a grid's blocks one after another, each exchange's every block
 * before the next, the interior changed before it and the ghosts checked
 * after it (halo_check). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "halo_device.h"

int halo_device_exchanges(const shardtab_signals_t *sig, const shardtab_halo_device_t *halo,
                          int iters, int blocks, const halo_device_vary_t *vary, void *stream)
{
    const int grid = blocks > 1 ? blocks : 1; /* one block: shardtab_halo_exchange_block */
    int status = SHARDTAB_WAIT_OK;
    (void)stream;
    for (int i = 0; i < iters && status == SHARDTAB_WAIT_OK; i++) {
        if (i > 0 && vary && vary->origin)
            halo_device_vary_round(vary, i, 0, 1);
        for (int b = 0; b < grid && status == SHARDTAB_WAIT_OK; b++)
            status = shardtab_halo_exchange_blocks(sig, halo, b, grid);
        if (status == SHARDTAB_WAIT_OK && vary && vary->origin)
            halo_device_check_round(vary, i, 0, 1);
    }
    return 0; /* a wait that gave up is recorded in the pad */
}
