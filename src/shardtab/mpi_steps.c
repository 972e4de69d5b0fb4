/* mpi_steps.c - the bounded MPI steps of a call across nodes (mpi_steps.h):
 * an agreement, a wait, and the one way a step gives up; the host copies
 * between them. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "mpi_steps.h"

#include <stdio.h>

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
