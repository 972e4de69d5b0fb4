/* halo_device.h - halo_bench's and halo_check's device side: a kernel of one block that makes
 * `iters` device-side halo exchanges back to back (shardtab_halo_exchange_block),
 * as a persistent solver's exchanging block does; or a cooperative grid of
 * `blocks` sharing each (shardtab_halo_exchange_blocks, the grid's sync after
 * each). halo_device.hip for HIP and CUDA, halo_device_host.c for CPUs. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef COLL_BENCH_HALO_DEVICE_H
#define COLL_BENCH_HALO_DEVICE_H

#include "shardtab_halo_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the block's threads on a GPU; a cooperative grid's blocks take fewer: its
 * kernel (every form's paths and the grid's sync) takes 164 registers a
 * thread for sm_90, and 512 threads of it do not fit a multiprocessor's 64 Ki */
#define HALO_DEVICE_THREADS 512
#define HALO_DEVICE_GRID_THREADS 256

/* 0 or the runtime's code of the launch; a wait that gave up is recorded in
 * the pad (shardtab_signal_check). */
int halo_device_exchanges(const shardtab_signals_t *sig, const shardtab_halo_device_t *halo,
                          int iters, int blocks, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* COLL_BENCH_HALO_DEVICE_H */
