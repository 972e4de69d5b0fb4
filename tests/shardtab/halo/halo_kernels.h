/* halo_kernels.h - halo_check's device code: a kernel that makes `iters`
 * device-side exchanges, as a persistent solver would: with one block
 * (shardtab_halo_exchange_block), or with a grid of `blocks`, every block
 * calling shardtab_halo_exchange_blocks and the grid's sync after each.
 * halo_kernels.hip on GPUs (a cooperative launch), halo_kernels_host.c on the
 * host backend (the calling thread, each block in turn). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef HALO_KERNELS_H
#define HALO_KERNELS_H

#include "shardtab_halo_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0 or the runtime's code of the launch; a wait that gave up is reported by
 * shardtab_signal_check. */
int halo_device_launch(const shardtab_signals_t *sig, const shardtab_halo_device_t *halo, int iters,
                       int blocks, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* HALO_KERNELS_H */
