/* error.c - how failures are named and agreed on: the thread's last-error
 * message (with host, rank and device), status strings, and the collective
 * shardtab_agree that turns one rank's failure into every rank's. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE /* program_invocation_short_name */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Each thread records into its own buffer; the process keeps the latest
 * failure of any thread too, so a failure met on one thread (a table made from
 * an OpenMP region, say) is what shardtab_last_error() reports on every thread.
 * The mutex guards the process-wide copy; readers get a copy of their own. */
static _Thread_local char last_error[ST_ERROR_BYTES];
static _Thread_local size_t last_prefix; /* bytes of "<host> rank <r> ...: " */
static _Thread_local char reported[ST_ERROR_BYTES];
static char process_error[ST_ERROR_BYTES];
static pthread_mutex_t process_error_lock = PTHREAD_MUTEX_INITIALIZER;

static void publish(void)
{
    pthread_mutex_lock(&process_error_lock);
    memcpy(process_error, last_error, sizeof process_error);
    pthread_mutex_unlock(&process_error_lock);
}

size_t st_error_prefix_bytes(void)
{
    return last_prefix;
}

static const char *const status_strings[SHARDTAB_STATUS_COUNT] = {
    [SHARDTAB_SUCCESS] = "success",
    [SHARDTAB_ERR_INVALID_ARG] = "invalid argument",
    [SHARDTAB_ERR_NO_MEMORY] = "out of memory",
    [SHARDTAB_ERR_NO_DEVICE] = "no usable device",
    [SHARDTAB_ERR_DEVICE] = "device runtime error",
    [SHARDTAB_ERR_IPC] = "IPC error",
    [SHARDTAB_ERR_PEER_ACCESS] = "peer access missing",
    [SHARDTAB_ERR_DESCRIPTOR] = "invalid peer descriptor",
    [SHARDTAB_ERR_MPI] = "MPI error",
    [SHARDTAB_ERR_UNSUPPORTED] = "not supported",
    [SHARDTAB_ERR_VERIFY] = "verification failed",
    [SHARDTAB_ERR_TIMEOUT] = "device wait timed out",
    [SHARDTAB_ERR_ABORTED] = "stopped after another rank failed",
};

const char *shardtab_version(void)
{
    return SHARDTAB_VERSION_STRING;
}

const char *shardtab_status_string(shardtab_status_t status)
{
    if ((int)status < 0 || status >= SHARDTAB_STATUS_COUNT)
        return "unknown status";
    return status_strings[status];
}

const char *shardtab_last_error(void)
{
    pthread_mutex_lock(&process_error_lock);
    memcpy(reported, process_error, sizeof reported);
    pthread_mutex_unlock(&process_error_lock);
    return reported;
}

const char *st_thread_last_error(void)
{
    return last_error;
}

/* Who speaks: set by runtime.c once the rank is bound ("<host> rank <r>
 * device <d> [<bus id>]: "), before that the host and the MPI rank alone. Kept
 * here, so that this file, the library's lowest layer, asks nobody. */
static char identity[ST_HOST_NAME_BYTES + 96];
static pthread_mutex_t identity_lock = PTHREAD_MUTEX_INITIALIZER;

void st_error_identity(const char *prefix)
{
    pthread_mutex_lock(&identity_lock);
    snprintf(identity, sizeof identity, "%s", prefix ? prefix : "");
    pthread_mutex_unlock(&identity_lock);
}

static void vrecord(const char *fmt, va_list ap)
{
    int used;

    pthread_mutex_lock(&identity_lock);
    used = snprintf(last_error, sizeof last_error, "%s", identity);
    pthread_mutex_unlock(&identity_lock);
    if (used == 0) {
        char host[ST_HOST_NAME_BYTES];
        int rank = -1;
        if (gethostname(host, sizeof host) != 0)
            snprintf(host, sizeof host, "unknown-host");
        host[sizeof host - 1] = '\0';
        if (st_mpi_usable())
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        used = snprintf(last_error, sizeof last_error, "%s rank %d: ", host, rank);
    }
    if (used < 0 || (size_t)used >= sizeof last_error)
        used = 0;
    last_prefix = (size_t)used;
    vsnprintf(last_error + used, sizeof last_error - (size_t)used, fmt, ap);
    publish();
}

int st_mpi_usable(void)
{
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down); /* both may be called at any time, even after MPI_Finalize */
    return up && !down;
}

shardtab_status_t shardtab_error_set(shardtab_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrecord(fmt, ap);
    va_end(ap);
    return status;
}

shardtab_status_t shardtab_error_set_message(shardtab_status_t status, const char *message)
{
    return shardtab_error_set(status, "%s", message ? message : "");
}

/* The program's name, for the one line a rank prints before it ends the job
 * (the programs print "<name>: error: ..." too). */
static const char *program_name(void)
{
#if defined(__GLIBC__)
    return program_invocation_short_name;
#else
    return "shardtab";
#endif
}

void st_wait_pace(double waited)
{
    static const struct timespec short_nap = {0, 50000}, nap = {0, 1000000}; /* 50 us, 1 ms */

    if (waited > ST_WAIT_SPIN_S)
        nanosleep(waited > ST_WAIT_SHORT_S ? &nap : &short_nap, NULL);
}

/* Waits for request until the deadline (seconds; <= 0: none), paced by
 * st_wait_pace. Returns 0 when it completed, -1 when the deadline passed. */
static int wait_until(MPI_Request *request, double seconds)
{
    double start = MPI_Wtime(), waited = 0;
    int done = 0;

    if (seconds <= 0)
        return MPI_Wait(request, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -1;
    while (MPI_Test(request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
        waited = MPI_Wtime() - start;
        if (waited > seconds)
            return -1;
        st_wait_pace(waited);
    }
    return 0;
}

int st_agree_key(shardtab_status_t local, int rank, int size)
{
    /* causes first (rank), consequences after them (size + rank) */
    return local == SHARDTAB_SUCCESS                                ? INT_MAX
           : local == SHARDTAB_ERR_ABORTED && rank < INT_MAX - size ? size + rank
                                                                    : rank;
}

shardtab_status_t st_agree_verdict(MPI_Comm comm, shardtab_status_t local, int min_key, int rank,
                                   int size)
{
    int failed_rank = min_key;
    struct {
        int status;
        char message[ST_ERROR_BYTES];
    } verdict;

    if (min_key == INT_MAX)
        return SHARDTAB_SUCCESS;
    if (failed_rank >= size)
        failed_rank -= size;
    if (rank == failed_rank) {
        verdict.status = (int)local;
        memcpy(verdict.message, process_error[0] ? process_error : last_error,
               sizeof verdict.message);
    }
    if (MPI_Bcast(&verdict, (int)sizeof verdict, MPI_BYTE, failed_rank, comm) != MPI_SUCCESS)
        return st_fail(SHARDTAB_ERR_MPI, "MPI_Bcast of rank %d's error failed", failed_rank);
    memcpy(last_error, verdict.message, sizeof last_error);
    last_error[sizeof last_error - 1] = '\0';
    last_prefix = 0; /* another rank's words: keep them whole */
    publish();
    return (shardtab_status_t)verdict.status;
}

/* The lowest failing rank broadcasts its status and message; everyone returns
 * them. Two collectives, entered by every rank whatever happened locally: the
 * minimum of the ranks' keys (st_agree_key), and the verdict's broadcast
 * (st_agree_verdict). With a deadline the first is non-blocking, and a rank
 * still waiting for the others past it says so and ends the job, or, given
 * gave_up, sets it and returns SHARDTAB_ERR_TIMEOUT, the request left pending
 * (its buffers are never freed: a late rank may still complete it). Once the
 * first has completed every rank enters the second. */
static shardtab_status_t agree(MPI_Comm comm, shardtab_status_t local, double seconds, int *gave_up)
{
    int rank, size, first, min_key;
    MPI_Request request;

    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return st_fail(SHARDTAB_ERR_MPI, "MPI_Comm_rank/size failed on the communicator "
                                         "passed to shardtab");
    first = st_agree_key(local, rank, size);
    if (seconds > 0) {
        int *keys = malloc(2 * sizeof *keys); /* [0] this rank's, [1] the minimum */
        if (keys == NULL)
            return st_fail(SHARDTAB_ERR_NO_MEMORY, "malloc of the agreement's 8 bytes failed");
        keys[0] = first;
        if (MPI_Iallreduce(&keys[0], &keys[1], 1, MPI_INT, MPI_MIN, comm, &request) !=
            MPI_SUCCESS) {
            free(keys);
            return st_fail(SHARDTAB_ERR_MPI, "MPI_Iallreduce of the error status failed");
        }
        if (wait_until(&request, seconds) != 0) {
            /* a rank is stopped, stuck or gone: nobody else can end the wait */
            char what[ST_ERROR_BYTES];
            snprintf(what, sizeof what, "%s",
                     local == SHARDTAB_SUCCESS ? "" : last_error + last_prefix);
            if (gave_up != NULL) {
                *gave_up = 1;
                return st_fail(SHARDTAB_ERR_TIMEOUT,
                               "waited %.3g s for every rank to agree%s%s%s; some rank never "
                               "came: it gave up waiting first, or is stuck or gone. The "
                               "agreement is left pending: the ranks are out of step on this "
                               "communicator; end the job",
                               seconds, what[0] ? " (this rank: " : "", what, what[0] ? ")" : "");
            }
            st_fail(SHARDTAB_ERR_TIMEOUT,
                    "waited %.3g s for every rank to agree%s%s%s; some rank never came: it is "
                    "stopped, stuck or gone. Ending the job (MPI_Abort)",
                    seconds, what[0] ? " (this rank: " : "", what, what[0] ? ")" : "");
            fprintf(stderr, "%s: error: %s\n", program_name(), last_error);
            fflush(stderr);
            MPI_Abort(comm, 1);
            return SHARDTAB_ERR_TIMEOUT; /* not reached */
        }
        min_key = keys[1];
        free(keys);
    } else if (MPI_Allreduce(&first, &min_key, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
        return st_fail(SHARDTAB_ERR_MPI, "MPI_Allreduce of the error status failed");
    }
    return st_agree_verdict(comm, local, min_key, rank, size);
}

shardtab_status_t shardtab_agree(MPI_Comm comm, shardtab_status_t local)
{
    return agree(comm, local, 0.0, NULL);
}

shardtab_status_t shardtab_agree_within(MPI_Comm comm, shardtab_status_t local, double seconds)
{
    return agree(comm, local, seconds > 0 ? seconds : 1e-3, NULL);
}

shardtab_status_t st_agree_bounded(MPI_Comm comm, shardtab_status_t local, double seconds,
                                   int *gave_up)
{
    *gave_up = 0;
    return agree(comm, local, seconds > 0 ? seconds : 1e-3, gave_up);
}

int st_wait_bounded(MPI_Request *request, double seconds)
{
    return wait_until(request, seconds > 0 ? seconds : 1e-3);
}

shardtab_status_t shardtab_mpi_check(int rc, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (rc == MPI_SUCCESS)
        return SHARDTAB_SUCCESS;
    MPI_Error_string(rc, text, &len);
    return st_fail(SHARDTAB_ERR_MPI, "%s failed: %s", call, text);
}
