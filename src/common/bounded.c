/* bounded.c - the programs' collective MPI steps with a time limit: each a
 * non-blocking call and a test loop; past the limit the rank tells every
 * other rank why (one point-to-point message each), prints it and ends the
 * job with MPI_Abort. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE /* program_invocation_short_name */
#include "bounded.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STOP_TAG 32000     /* the why of a job being ended; no program uses it */
#define STOP_BYTES 1024    /* room for one such message */
#define SPIN_S 1e-3        /* a step's first millisecond: tested back to back */
#define TELL_S 1.0         /* how long the messages get to leave before MPI_Abort */
#define WAITS_PER_STEP 3.0 /* a step's limit, in wait limits */
#define STEP_FLOOR_S 1.0   /* and at least this */

static double wait_limit_s = SHARDTAB_WAIT_TIMEOUT_DEFAULT_S;
static char program[64] = "";

void app_bound_init(const char *name)
{
    const char *text = getenv("SHARDTAB_WAIT_TIMEOUT");
    char *end;
    double v;

    snprintf(program, sizeof program, "%s", name ? name : "");
    if (text == NULL || *text == '\0')
        return;
    errno = 0;
    v = strtod(text, &end);
    if (errno == 0 && *end == '\0' && v >= 0.001 && v <= 1e6)
        wait_limit_s = v;
}

double app_bound_limit(double work_s)
{
    double base = WAITS_PER_STEP * wait_limit_s;

    return (base > STEP_FLOOR_S ? base : STEP_FLOOR_S) + (work_s > 0 ? work_s : 0);
}

static const char *program_name(void)
{
#if defined(__GLIBC__)
    return program[0] ? program : program_invocation_short_name;
#else
    return program[0] ? program : "app";
#endif
}

/* Another rank gave up on a step: say its words and end the job too. */
static void heed_stop(void)
{
    char message[STOP_BYTES];
    MPI_Status status;
    int flag = 0;

    if (MPI_Iprobe(MPI_ANY_SOURCE, STOP_TAG, MPI_COMM_WORLD, &flag, &status) != MPI_SUCCESS ||
        !flag)
        return;
    MPI_Recv(message, STOP_BYTES, MPI_CHAR, status.MPI_SOURCE, STOP_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    message[STOP_BYTES - 1] = '\0';
    fprintf(stderr, "%s: error: %s\n", program_name(), message);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Every other rank of the job is told `message` (those waiting in a step
 * print it), then this one prints it and ends the job. */
static void end_job(const char *message)
{
    int rank = -1, size = 0, sent = 0;
    MPI_Request *requests;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    requests = calloc((size_t)(size > 0 ? size : 1), sizeof *requests);
    for (int r = 0; requests != NULL && r < size; r++)
        if (r != rank)
            MPI_Isend(message, (int)strlen(message) + 1, MPI_CHAR, r, STOP_TAG, MPI_COMM_WORLD,
                      &requests[sent++]);
    fprintf(stderr, "%s: error: %s\n", program_name(), message);
    fflush(stderr);
    if (requests != NULL) {
        /* a stopped rank never takes its copy: give the others a moment, no more */
        const struct timespec nap = {0, 1000000};
        double start = MPI_Wtime();
        int done = 0;
        while (!done && MPI_Wtime() - start < TELL_S) {
            MPI_Testall(sent, requests, &done, MPI_STATUSES_IGNORE);
            nanosleep(&nap, NULL);
        }
        /* and the time to print it */
        while (MPI_Wtime() - start < 0.2)
            nanosleep(&nap, NULL);
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
    free(requests); /* not reached */
}

/* This rank gave up on a step: the job ends, every rank told why. */
static void give_up(const char *step, double limit)
{
    char host[256], message[STOP_BYTES];
    int rank = -1;

    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown-host");
    host[sizeof host - 1] = '\0';
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(message, sizeof message,
             "%s rank %d: %s: waited %.3g s for the other ranks (3 x SHARDTAB_WAIT_TIMEOUT, plus "
             "the step's own work); some rank never came: it is stopped, stuck or gone. Ending "
             "the job (MPI_Abort)",
             host, rank, step, limit);
    end_job(message);
}

void app_end_job(const char *why)
{
    char message[STOP_BYTES];

    snprintf(message, sizeof message, "%s. Ending the job (MPI_Abort)", why);
    end_job(message);
}

/* Waits for count requests: their return code, or, past the limit, the end
 * of the job. quiet: nap from the start (a long wait for another rank's
 * work), else test back to back for the first millisecond (a step of a
 * timed loop). */
static int wait_bounded(int count, MPI_Request *requests, const char *step, double work_s,
                        int quiet)
{
    const struct timespec nap = {0, 200000}; /* 0.2 ms */
    const double limit = app_bound_limit(work_s), start = MPI_Wtime();
    int done = 0, rc;

    for (;;) {
        rc = MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        double waited = MPI_Wtime() - start;
        if (quiet || waited > SPIN_S) {
            heed_stop();
            if (waited > limit)
                give_up(step, limit);
            nanosleep(&nap, NULL);
        }
    }
}

int app_waitall(int count, MPI_Request *requests, const char *step, double work_s)
{
    return wait_bounded(count, requests, step, work_s, 0);
}

int app_barrier(MPI_Comm comm, const char *step, double work_s)
{
    MPI_Request request;
    int rc = MPI_Ibarrier(comm, &request);

    return rc != MPI_SUCCESS ? rc : wait_bounded(1, &request, step, work_s, 1);
}

shardtab_status_t app_agree(MPI_Comm comm, shardtab_status_t local, const char *step, double work_s)
{
    int failed = local != SHARDTAB_SUCCESS, any = 0;
    MPI_Request request;
    int rc = MPI_Iallreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm, &request);

    if (rc == MPI_SUCCESS)
        rc = wait_bounded(1, &request, step, work_s, work_s > 0);
    if (rc != MPI_SUCCESS)
        return shardtab_mpi_check(rc, step);
    /* every rank is here: the library's agreement names the first cause */
    return any ? shardtab_agree(comm, local) : SHARDTAB_SUCCESS;
}

int app_allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm, const char *step)
{
    MPI_Request request;
    int rc = MPI_Iallreduce(send, recv, count, type, op, comm, &request);

    return rc != MPI_SUCCESS ? rc : wait_bounded(1, &request, step, 0, 0);
}

int app_reduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm, const char *step)
{
    MPI_Request request;
    int rc = MPI_Ireduce(send, recv, count, type, op, root, comm, &request);

    return rc != MPI_SUCCESS ? rc : wait_bounded(1, &request, step, 0, 0);
}

int app_bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, const char *step)
{
    MPI_Request request;
    int rc = MPI_Ibcast(buffer, count, type, root, comm, &request);

    return rc != MPI_SUCCESS ? rc : wait_bounded(1, &request, step, 0, 0);
}

int app_gather(const void *send, int send_count, MPI_Datatype send_type, void *recv, int recv_count,
               MPI_Datatype recv_type, int root, MPI_Comm comm, const char *step)
{
    MPI_Request request;
    int rc =
        MPI_Igather(send, send_count, send_type, recv, recv_count, recv_type, root, comm, &request);

    return rc != MPI_SUCCESS ? rc : wait_bounded(1, &request, step, 0, 0);
}

int app_allgather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                  int recv_count, MPI_Datatype recv_type, MPI_Comm comm, const char *step)
{
    MPI_Request request;
    int rc =
        MPI_Iallgather(send, send_count, send_type, recv, recv_count, recv_type, comm, &request);

    return rc != MPI_SUCCESS ? rc : wait_bounded(1, &request, step, 0, 0);
}

int app_scatterv(const void *send, const int *counts, const int *displs, MPI_Datatype send_type,
                 void *recv, int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm,
                 const char *step)
{
    MPI_Request request;
    int rc = MPI_Iscatterv(send, counts, displs, send_type, recv, recv_count, recv_type, root, comm,
                           &request);

    return rc != MPI_SUCCESS ? rc : wait_bounded(1, &request, step, 0, 0);
}

int app_sendrecv(const void *send, int send_count, MPI_Datatype send_type, int dest, int send_tag,
                 void *recv, int recv_count, MPI_Datatype recv_type, int source, int recv_tag,
                 MPI_Comm comm, const char *step)
{
    MPI_Request requests[2];
    int rc = MPI_Irecv(recv, recv_count, recv_type, source, recv_tag, comm, &requests[0]);

    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Isend(send, send_count, send_type, dest, send_tag, comm, &requests[1]);
    if (rc != MPI_SUCCESS) {
        MPI_Cancel(&requests[0]);
        MPI_Request_free(&requests[0]);
        return rc;
    }
    return wait_bounded(2, requests, step, 0, 0);
}
