/* halo_kernels_host.c - halo_check's device-side exchanges on the host
 * backend (halo_kernels.h): the same device code, run now by this thread. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "halo_kernels.h"

int halo_device_launch(const shardtab_signals_t *sig, const shardtab_halo_device_t *halo, int iters,
                       void *stream)
{
    (void)stream;
    for (int i = 0; i < iters; i++)
        if (shardtab_halo_exchange_block(sig, halo) != SHARDTAB_WAIT_OK)
            break; /* recorded in the pad */
    return 0;
}
