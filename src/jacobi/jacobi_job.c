/* jacobi_job.c - the jacobi program's small helpers: errors (each turns a failure of
 * malloc, a launcher or MPI into the library's status with one clear message)
 * and a barrier that sleeps. */
#include "jacobi_job.h"

#include <time.h>

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

void jacobi_quiet_barrier(MPI_Comm comm)
{
    MPI_Request request;
    int done = 0;
    const struct timespec nap = {0, 200000}; /* 0.2 ms: far below any solve worth timing */

    MPI_Ibarrier(comm, &request);
    for (MPI_Test(&request, &done, MPI_STATUS_IGNORE); !done;
         MPI_Test(&request, &done, MPI_STATUS_IGNORE))
        nanosleep(&nap, NULL);
}
