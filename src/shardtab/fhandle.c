/* fhandle.c - the collective calls for callers that hold a communicator as a
 * Fortran handle (MPI_Fint): the Fortran module, and Python through mpi4py's
 * Comm.py2f(). MPI_Comm is a pointer in Open MPI and an int in MPICH; the
 * Fortran handle is an integer in both, and MPI_Comm_f2c turns it back, as
 * PETSc and ADIOS2 do for their Fortran bindings. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "internal.h"

#include <string.h>

/* Is c a communicator MPI_Comm_f2c can have made of a handle it did not know?
 * Open MPI (4.1 here) returns NULL for such a handle (12345, -1, 3, a freed
 * dup's), not MPI_COMM_NULL, and any call given NULL aborts the job with
 * MPI_ERR_COMM. MPICH's handles are checked by MPICH itself. */
static int unknown_handle(MPI_Comm c)
{
#if defined(OPEN_MPI)
    return (void *)c == NULL;
#else
    (void)c;
    return 0;
#endif
}

/* The C communicator of a Fortran handle, or a local error naming it when it
 * is MPI_COMM_NULL or one the MPI library does not know. */
static shardtab_status_t comm_of(MPI_Fint handle, const char *call, MPI_Comm *comm)
{
    *comm = MPI_Comm_f2c(handle);
    if (*comm == MPI_COMM_NULL || unknown_handle(*comm))
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: communicator handle %d is MPI_COMM_NULL, or not a communicator: "
                       "pass MPI_COMM_WORLD (use mpi), comm%%MPI_VAL (use mpi_f08) or "
                       "comm.py2f() (mpi4py)",
                       call, (int)handle);
    return SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_init_f(MPI_Fint comm, int allow_shared_device)
{
    shardtab_init_params_t params;
    MPI_Comm c;
    shardtab_status_t status = comm_of(comm, "shardtab_init", &c);

    if (status != SHARDTAB_SUCCESS)
        return status;
    memset(&params, 0, sizeof params);
    params.allow_shared_device = allow_shared_device != 0;
    return shardtab_init(c, &params);
}

shardtab_status_t shardtab_create_f(MPI_Fint comm, void *shard, size_t bytes,
                                    const shardtab_create_params_t *params, shardtab_t **table)
{
    MPI_Comm c;
    shardtab_status_t status = comm_of(comm, "shardtab_create", &c);

    return status != SHARDTAB_SUCCESS ? status
                                      : shardtab_create_with(c, shard, bytes, params, table);
}

shardtab_status_t shardtab_agree_f(MPI_Fint comm, shardtab_status_t local)
{
    MPI_Comm c;
    shardtab_status_t status = comm_of(comm, "shardtab_agree", &c);

    return status != SHARDTAB_SUCCESS ? status : shardtab_agree(c, local);
}
