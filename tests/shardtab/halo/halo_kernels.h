/* halo_kernels.h - halo_check's device code: a kernel that makes `iters`
 * device-side exchanges (shardtab_halo_exchange_block) with one block, as a
 * persistent solver would. halo_kernels.hip on GPUs, halo_kernels_host.c on
 * the host backend (the calling thread, a block of one). */
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
                       void *stream);

#ifdef __cplusplus
}
#endif

#endif /* HALO_KERNELS_H */
