/* table_kernel.h - the device code of table_kernel.c: one element's work,
 * written once for the GPU kernel (table_kernel.hip, HIP or CUDA) and the host
 * backend's loop (table_kernel_host.c), and the launcher both provide. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef TABLE_KERNEL_H
#define TABLE_KERNEL_H

#include <shardtab_device.h> /* SHARDTAB_DEVFN: a device function on GPUs, static inline in C */
#include <stddef.h>

/* Each shard holds 2n doubles: its input at [0, n), its output at [n, 2n).
 * Element i of this rank's output, from element i of node rank next's input,
 * both reached through the table (next may be this rank itself). */
SHARDTAB_DEVFN void table_kernel_element(double *const *table, int me, int next, size_t n, size_t i)
{
    table[me][n + i] = 2.0 * table[next][i] - (double)i;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Runs table_kernel_element for every i < n with the table the kernels use
 * (shardtab_device_table), on the default stream. Returns NULL, or the
 * runtime's words for a launch that failed. */
const char *table_kernel_run(void *const *table, int me, int next, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* TABLE_KERNEL_H */
