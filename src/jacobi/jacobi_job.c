/* jacobi_job.c - the jacobi program's small helpers: errors (each turns a failure of
 * malloc, a launcher or MPI into the library's status with one clear message)
 * and the bound on rank 0's work alone. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_job.h"

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

/* points a second a solve of the host backend's makes at the least (a loaded
 * machine, a sanitizer build, the plain kernel, temporal passes): some 30
 * times below what its temporal passes make on a loaded core, 800 times
 * below its persistent launches */
#define JACOBI_ALONE_POINTS_PER_S 5e5

double jacobi_alone_work_s(const jacobi_options_t *opts, double solves)
{
    return (double)opts->nx * (double)opts->ny * (double)opts->niter * solves /
           JACOBI_ALONE_POINTS_PER_S;
}
