/* check_program.h - the start and the end that the library's check programs
 * under mpiexec share (comm/comm_check.c, comm/stream_check.c,
 * signals/signal_example.c): a bad command line (exit 2), no device (exit 77,
 * skipped), and the verdict after the release, every rank agreeing. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_CHECK_PROGRAM_H
#define ST_CHECK_PROGRAM_H

#include <mpi.h>
#include <stdio.h>

#include "shardtab.h"

/* After MPI_Init and the parse of the command line. err, non-empty, is why the
 * command line is refused: rank 0 says so and the exit status is 2. Else
 * shardtab_init (a shared device allowed when allow_shared_device), its status
 * in *status; with no device rank 0 says the run is skipped and the exit status
 * is 77. Either way MPI is finalized. -1 (and MPI up): the program goes on. */
static inline int check_program_start(const char *program, int rank, const char *err,
                                      int allow_shared_device, shardtab_status_t *status)
{
    shardtab_init_params_t init = {0};

    if (err[0] != '\0') {
        if (rank == 0)
            fprintf(stderr, "%s: error: %s\n", program, err);
        MPI_Finalize();
        return 2;
    }
    init.allow_shared_device = allow_shared_device;
    *status = shardtab_init(MPI_COMM_WORLD, &init);
    if (*status == SHARDTAB_ERR_NO_DEVICE) {
        if (rank == 0)
            printf("# %s: skipped (%s)\n", program, shardtab_last_error());
        MPI_Finalize();
        return 77;
    }
    return -1;
}

/* The run's own verdict, before the release: a fault it planted (fault: its
 * name; NULL: none) that nothing caught is a failure, agreed on every rank;
 * with no failure rank 0 says "# PROGRAM: OK (N ranks)". */
static inline shardtab_status_t check_program_verdict(const char *program, int rank, int size,
                                                      shardtab_status_t status, const char *fault)
{
    if (status == SHARDTAB_SUCCESS && fault != NULL)
        status = shardtab_agree(MPI_COMM_WORLD,
                                shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                                   "the planted fault '%s' was not caught", fault));
    if (status == SHARDTAB_SUCCESS && rank == 0)
        printf("# %s: OK (%d ranks)\n", program, size);
    return status;
}

/* The program's verdict: status, else the release's (agreed on every rank).
 * On a failure rank 0 says why; exit status 2 for a refused argument, 1 for
 * any other failure, 0 for none. shardtab and MPI are finalized. */
static inline int check_program_end(const char *program, int rank, shardtab_status_t status,
                                    shardtab_status_t released)
{
    int code = 0;

    released = shardtab_agree(MPI_COMM_WORLD, released);
    if (status == SHARDTAB_SUCCESS)
        status = released;
    if (status != SHARDTAB_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "%s: error: %s\n", program, shardtab_last_error());
        code = status == SHARDTAB_ERR_INVALID_ARG ? 2 : 1;
    }
    shardtab_finalize();
    MPI_Finalize();
    return code;
}

#endif /* ST_CHECK_PROGRAM_H */
