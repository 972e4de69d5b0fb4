/* bounded.h - the programs' collective MPI steps with a time limit: a rank
 * that never comes (stopped, stuck, gone) ends the job, with a message naming
 * the step, instead of leaving its peers waiting forever. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef APP_BOUNDED_H
#define APP_BOUNDED_H

#include <mpi.h>

#include "shardtab.h"

/* Every step below is the MPI call of the same name made non-blocking
 * (MPI_I...) and waited for with a limit: app_bound_limit(work_s), where
 * work_s is how long this rank may have to wait for the others' own work
 * before they come (0 for most steps; the time of the work rank 0 does alone
 * while the others wait, on those ranks). Past the limit the rank prints
 *   <program>: error: <host> rank <r>: <step>: waited <s> s for the other
 *   ranks; some rank never came: it is stopped, stuck or gone ...
 * tells every rank of MPI_COMM_WORLD the same (each prints it as it next
 * waits in a step here) and ends the job with MPI_Abort (exit 1). So a step
 * returns only when it completed: its MPI return code (MPI_SUCCESS, or the
 * call's error where the communicator returns errors). `step` names the step
 * in words ("the agreement after the 1-GPU reference"). */

/* Reads SHARDTAB_WAIT_TIMEOUT (malformed: the default; the library refuses it
 * later, through a bounded step) and the program's name for the messages.
 * Call once, after MPI_Init, before the first step. */
void app_bound_init(const char *program);

/* The limit of a step, in seconds: 3 x the wait limit (SHARDTAB_WAIT_TIMEOUT,
 * 10 s by default; a peer held in a device wait comes when that runs out), at
 * least 1 s, plus work_s. */
double app_bound_limit(double work_s);

/* A library call gave up on other ranks (SHARDTAB_ERR_TIMEOUT: the ranks are
 * out of step) with `why` (its message, which names this rank): every other
 * rank is told, this one prints it, and the job ends (MPI_Abort), as a step
 * that runs out of time ends it. */
void app_end_job(const char *why);

/* shardtab_agree with a limit: a first non-blocking step finds whether any
 * rank failed; only then does the library's agreement carry the first
 * failure's message (every rank is known to be there by then). */
shardtab_status_t app_agree(MPI_Comm comm, shardtab_status_t local, const char *step,
                            double work_s);

/* Waits for requests already started (the point-to-point exchanges). */
int app_waitall(int count, MPI_Request *requests, const char *step, double work_s);

/* A barrier that sleeps while it waits, so that ranks waiting for one rank's
 * work alone (rank 0's references) take no core from it. */
int app_barrier(MPI_Comm comm, const char *step, double work_s);
int app_allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm, const char *step);
int app_reduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm, const char *step);
int app_bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
              const char *step);
int app_gather(const void *send, int send_count, MPI_Datatype send_type, void *recv, int recv_count,
               MPI_Datatype recv_type, int root, MPI_Comm comm, const char *step);
int app_allgather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                  int recv_count, MPI_Datatype recv_type, MPI_Comm comm, const char *step);
int app_scatterv(const void *send, const int *counts, const int *displs, MPI_Datatype send_type,
                 void *recv, int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm,
                 const char *step);
int app_sendrecv(const void *send, int send_count, MPI_Datatype send_type, int dest, int send_tag,
                 void *recv, int recv_count, MPI_Datatype recv_type, int source, int recv_tag,
                 MPI_Comm comm, const char *step);

#endif /* APP_BOUNDED_H */
