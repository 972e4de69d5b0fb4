/* jacobi_status.c - the jacobi program's statuses: each failure of malloc or
 * of a launcher as the library's status, with one clear message. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_status.h"

#include "jacobi_plan.h"

shardtab_status_t jacobi_no_memory(const char *what, size_t bytes)
{
    return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of %zu bytes for %s failed", bytes,
                              what);
}

shardtab_status_t jacobi_kernel_check(int code, const char *what)
{
    if (code == 0)
        return SHARDTAB_SUCCESS;
    return shardtab_error_set(SHARDTAB_ERR_DEVICE, "%s failed: %s", what,
                              jacobi_error_string(code));
}
