/* mpi_steps.h - a call across nodes (or the direct faces through MPI) as a
 * sequence of host-synchronous MPI steps, each bounded by the table's patience
 * (6 x its wait limit, as the first agreement and a destroy are): a rank that
 * never comes (stopped, stuck, gone) makes the others give up at the step it
 * holds up, the request left pending (its buffers never freed: a late rank may
 * still complete it), every table over these ranks out of step, the call
 * failed with SHARDTAB_ERR_TIMEOUT naming the step; the caller ends the job.
 * After a give-up no step follows. Between them, the copies to and from the
 * host. The collectives across nodes (collectives_nodes.c), the halo exchange
 * across nodes (halo_exchange.c) and the direct faces' exchange (faces.c) are
 * made of these. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_MPI_STEPS_H
#define ST_MPI_STEPS_H

#include <mpi.h>
#include <stdint.h>

#include "table.h"

typedef struct st_steps {
    shardtab_t *t;
    const char *call;  /* the API call, for the messages */
    int gave_up;       /* a step gave up: its buffers stay, no later step runs */
    const char *route; /* how the data goes, for the messages: "across nodes" where NULL */
} st_steps_t;

/* shardtab_agree over the table's ranks, bounded */
shardtab_status_t st_steps_agree(st_steps_t *s, shardtab_status_t local, const char *step);

/* st_steps_agree carrying n words more in the same reduction (MPI_MIN):
 * words[i] becomes the minimum of every rank's words[i], for a caller that
 * compares the ranks by them (a word and its complement: the minimum and the
 * maximum): the agreement and the comparison in one MPI step. */
shardtab_status_t st_steps_agree_min(st_steps_t *s, shardtab_status_t local, uint64_t *words, int n,
                                     const char *step);

/* A non-blocking MPI operation started (rc: its MPI_I... call's, `what` its
 * name), waited for, bounded. */
shardtab_status_t st_steps_wait(st_steps_t *s, int rc, MPI_Request *request, const char *what,
                                const char *step);

/* bytes between device memory and the host on stream, waited for: what a call
 * across nodes stages through the host before and after its MPI steps */
shardtab_status_t st_steps_copy(void *device, void *host, size_t bytes, int to_host,
                                shardtab_stream_t stream);

#endif /* ST_MPI_STEPS_H */
