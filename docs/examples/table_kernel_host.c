/* table_kernel_host.c - table_kernel's device code on the host backend: the
 * element (table_kernel.h) in a loop; the table's entries are CPU pointers. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "table_kernel.h"

const char *table_kernel_run(void *const *table, int me, int next, size_t n)
{
    for (size_t i = 0; i < n; i++)
        table_kernel_element((double *const *)table, me, next, n, i);
    return NULL;
}
