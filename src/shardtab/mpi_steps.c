/* mpi_steps.c - the bounded MPI steps of a call across nodes (mpi_steps.h):
 * an agreement, a wait, and the one way a step gives up; the host copies
 * between them. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "mpi_steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

/* A step gave up: every table over these ranks out of step, the call failed
 * naming the step, with what the step said */
static shardtab_status_t give_up(st_steps_t *s, const char *step)
{
    char why[ST_ERROR_BYTES];
    snprintf(why, sizeof why, "%s", shardtab_last_error() + st_error_prefix_bytes());
    s->gave_up = 1;
    st_tables_out_of_step(s->t);
    return st_fail(SHARDTAB_ERR_TIMEOUT, "%s of table '%s' %s, at %s: %s", s->call, s->t->label,
                   s->route != NULL ? s->route : "across nodes", step, why);
}

shardtab_status_t st_steps_agree(st_steps_t *s, shardtab_status_t local, const char *step)
{
    int pending = 0;
    shardtab_status_t status = st_agree_bounded(s->t->comm, local, st_patience_s(s->t), &pending);
    return pending ? give_up(s, step) : status;
}

shardtab_status_t st_steps_agree_min(st_steps_t *s, shardtab_status_t local, uint64_t *words, int n,
                                     const char *step)
{
    /* [0]: this rank's key, then its words; [n + 1]: the minimum key, then the
     * words' minima. On the heap: never freed while the reduction is pending.
     * A rank that cannot have its 16 (n + 1) bytes stays out of the reduction,
     * as one that cannot have shardtab_agree's 8 does: the others give up. */
    uint64_t *both = malloc(2 * ((size_t)n + 1) * sizeof *both);
    shardtab_status_t status;
    MPI_Request request;
    int min_key;

    if (both == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "%s: malloc of %s's %zu bytes failed", s->call, step,
                       2 * ((size_t)n + 1) * sizeof *both);
    both[0] = (uint64_t)st_agree_key(local, s->t->rank, s->t->size);
    memcpy(both + 1, words, (size_t)n * sizeof *words);
    status = st_steps_wait(
        s, MPI_Iallreduce(both, both + n + 1, n + 1, MPI_UINT64_T, MPI_MIN, s->t->comm, &request),
        &request, "MPI_Iallreduce of the ranks' statuses and calls", step);
    if (s->gave_up)
        return status; /* pending: a late rank may still write into it */
    min_key = (int)both[n + 1];
    memcpy(words, both + n + 2, (size_t)n * sizeof *words);
    free(both);
    return status == SHARDTAB_SUCCESS
               ? st_agree_verdict(s->t->comm, local, min_key, s->t->rank, s->t->size)
               : status;
}

shardtab_status_t st_steps_wait(st_steps_t *s, int rc, MPI_Request *request, const char *what,
                                const char *step)
{
    if (rc != MPI_SUCCESS)
        return st_mpi_check(rc, what);
    if (st_wait_bounded(request, st_patience_s(s->t)) == 0)
        return SHARDTAB_SUCCESS;
    st_fail(SHARDTAB_ERR_TIMEOUT,
            "%s: waited %.3g s for the other ranks (the table's patience); some rank never "
            "came: it is stopped, stuck or gone. The ranks are out of step: end the job",
            what, st_patience_s(s->t));
    return give_up(s, step);
}

shardtab_status_t st_steps_copy(void *device, void *host, size_t bytes, int to_host,
                                shardtab_stream_t stream)
{
    shardtab_status_t status = bytes == 0 ? SHARDTAB_SUCCESS
                               : to_host  ? st_backend()->copy_async(host, device, bytes, stream)
                                          : st_backend()->copy_async(device, host, bytes, stream);
    return status == SHARDTAB_SUCCESS ? st_backend()->stream_synchronize(stream) : status;
}
