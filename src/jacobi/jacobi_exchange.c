/* jacobi_exchange.c - the host's part of a host-driven step: the ghost rows
 * that go by MPI (shardtab_faces_exchange: from device memory when MPI is
 * GPU-aware, else staged through the host), every rank's norm by an
 * allgather summed in rank order, and host-sync's allreduce, each carrying
 * who failed so that no rank waits alone. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_exchange.h"

#include <math.h>
#include <string.h>

#include "bounded.h"
#include "jacobi_op.h"

void jacobi_host_loop_init(jacobi_host_loop_t *loop, uint64_t base)
{
    memset(loop, 0, sizeof *loop);
    loop->base = base;
}

shardtab_status_t jacobi_host_step(jacobi_job_t *j, jacobi_host_loop_t *loop, uint64_t k,
                                   jacobi_outcome_t *out, shardtab_status_t local)
{
    jacobi_solver_t *s = &j->run;
    const int nx = s->nx, next = (int)((k + 1) & 1);
    const uint64_t base = loop->base;
    /* step k's edge rows, toward the top and the bottom neighbour */
    const void *edges[2] = {s->a[next], s->a[next] + (size_t)(s->rows - 1) * nx};
    const int norm_iter = jacobi_norm_iteration(base, j->opts.nccheck, k);
    const int decision = jacobi_decision_iteration(base, j->opts.nccheck, k);
    double local2 = 0.0;
    jacobi_ctl_t ctl = {0};

    loop->failed = 0;
    if (j->host_norm && norm_iter && local == SHARDTAB_SUCCESS)
        local = shardtab_memcpy_async(&local2, &s->ctl->local_norm2, sizeof local2, j->stream);
    /* the device decides the stop (host-sync on one node): has it? */
    if (!j->host_norm && local == SHARDTAB_SUCCESS)
        local = shardtab_memcpy_async(&ctl, s->ctl, sizeof ctl, j->stream);
    if (local == SHARDTAB_SUCCESS)
        local = shardtab_stream_synchronize(j->stream);

    if (j->host_top || j->host_bottom) { /* the ghost rows of k + 1, through the library */
        shardtab_status_t moved =
            shardtab_faces_exchange(j->faces[JACOBI_FACES_ROWS], next, edges, j->stream);
        /* every failure but the stream's (after which the exchange still moved every
         * face, and the norms' step agrees on it) leaves a neighbour waiting, or was
         * one that waited in vain: the ranks are out of step, no later step can meet */
        if (moved != SHARDTAB_SUCCESS && moved != SHARDTAB_ERR_DEVICE)
            app_end_job(shardtab_last_error());
        if (local == SHARDTAB_SUCCESS)
            local = moved;
    }

    if (j->host_norm && decision) {
        uint64_t done = k - 1 - base;
        int slot = jacobi_history_slot(done, j->opts.nccheck, out->history_len);
        out->norm_decided = 1;
        out->norm = loop->pending;
        out->norm_iter = done;
        if (slot >= 0)
            out->history[slot] = out->norm;
        loop->stop = jacobi_stops_after(base, j->opts.nccheck, k, loop->pending, JACOBI_TOL);
    }
    if (j->host_norm && norm_iter) {
        /* every rank's (norm, failed), added in rank order: the same bits everywhere */
        double mine[2] = {local2, local != SHARDTAB_SUCCESS}, global2 = 0.0;
        shardtab_status_t gathered =
            shardtab_mpi_check(app_allgather(mine, 2, MPI_DOUBLE, j->norms, 2, MPI_DOUBLE,
                                             MPI_COMM_WORLD, "the allgather of the norms"),
                               "MPI_Allgather of the norms");
        for (int r = 0; r < j->size && gathered == SHARDTAB_SUCCESS; r++) {
            global2 += j->norms[2 * r];
            loop->failed |= j->norms[2 * r + 1] != 0.0;
        }
        if (local == SHARDTAB_SUCCESS)
            local = gathered;
        loop->failed |= gathered != SHARDTAB_SUCCESS;
        loop->pending = sqrt(global2);
    } else if (j->host_sync) {
        /* the barrier of host-sync, carrying who failed and whether the device
         * stopped the solve (the same step on every rank: one norm decides) */
        int stopped = !j->host_norm && ctl.iteration >= ctl.stop_at;
        int flags = (local != SHARDTAB_SUCCESS) | stopped << 1, any = 1;
        shardtab_status_t reduced =
            shardtab_mpi_check(app_allreduce(&flags, &any, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD,
                                             "the host-sync barrier"),
                               "MPI_Allreduce (the host-sync barrier)");
        if (local == SHARDTAB_SUCCESS)
            local = reduced;
        loop->failed = (any & 1) || reduced != SHARDTAB_SUCCESS;
        loop->stop = (any & 2) != 0;
    }
    return local;
}
