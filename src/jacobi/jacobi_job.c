/* jacobi_job.c - the job's wiring of the ring (which edges go through the
 * table, which through MPI) and the bound on rank 0's work alone. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_job.h"

/* points a second a solve of the host backend's makes at the least (a loaded
 * machine, a sanitizer build, the plain kernel, temporal passes): some 30
 * times below what its temporal passes make on a loaded core, 800 times
 * below its persistent launches */
#define JACOBI_ALONE_POINTS_PER_S 5e5

double jacobi_alone_work_s(const jacobi_options_t *opts, double solves)
{
    return (double)opts->nx * (double)opts->ny * (double)opts->niter * solves /
           JACOBI_ALONE_POINTS_PER_S;
}

/* A neighbour's ghost rows as this rank maps them; never written past the
 * bytes the table gives for them, whatever the options say. */
static shardtab_status_t peer_halo(const jacobi_job_t *j, int rank, void **base, size_t *bytes)
{
    const size_t need = j->run.halo_bytes;
    shardtab_status_t status = shardtab_peer(j->table, rank, base, bytes);

    if (status == SHARDTAB_SUCCESS && *bytes != need)
        status = shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                    "rank %d's ghost rows hold %zu bytes, and this rank's rows "
                                    "(-nx %d) need %zu: the ranks disagree on the grid",
                                    rank, *bytes, j->opts.nx, need);
    return status;
}

shardtab_status_t jacobi_wire_edges(jacobi_job_t *j)
{
    jacobi_step_t *st = &j->run.step;
    int node_top = shardtab_node_rank_of(j->table, j->top);
    int node_bottom = shardtab_node_rank_of(j->table, j->bottom);
    int me = shardtab_node_rank(j->table);
    int single_node = shardtab_node_count(j->table) == 1;
    int nx = j->opts.nx;
    const int deep_rows = jacobi_solver_deep_rows(&j->opts); /* the halo's layout, every rank's */
    shardtab_status_t status = SHARDTAB_SUCCESS;

    j->host_top = j->opts.variant == JACOBI_MPI || node_top < 0;
    j->host_bottom = j->opts.variant == JACOBI_MPI || node_bottom < 0;
    /* every rank's norm, and the stop, on the device only where the node is the job */
    j->host_norm = j->opts.variant == JACOBI_MPI || !single_node;
    j->host_sync = j->opts.variant == JACOBI_HOST_SYNC;
    j->host_loop = j->host_top || j->host_bottom || j->host_norm || j->host_sync;
    st->device_norm = !j->host_norm;
    st->device_sync = j->opts.variant == JACOBI_TABLE;
    st->nccheck = j->opts.nccheck;
    st->skip_signal = j->skip_signal;
    st->slow_passes = j->slow_passes;
    if (!j->host_top) {
        void *base;
        size_t bytes;
        status = peer_halo(j, j->top, &base, &bytes);
        /* my first row becomes the top neighbour's ghost row below */
        for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
            st->top_dest[p] = (jacobi_real_t *)base + (size_t)p * 2 * nx + nx;
        st->top_peer = node_top != me ? node_top : -1; /* one rank: no signal to itself */
        /* my first rows become the top neighbour's deep ghost rows below */
        for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS && st->deep[0] && st->top_peer >= 0;
             p++)
            st->deep_top_dest[p] = jacobi_deep_rows((jacobi_real_t *)base, nx, p, 1);
        /* ... and, on chip, its LL ghost row below */
        if (status == SHARDTAB_SUCCESS && st->top_peer >= 0)
            st->ll_top_dest = jacobi_ll_ghosts((jacobi_real_t *)base, nx, deep_rows) + nx;
    }
    if (!j->host_bottom && status == SHARDTAB_SUCCESS) {
        void *base;
        size_t bytes;
        status = peer_halo(j, j->bottom, &base, &bytes);
        /* my last row becomes the bottom neighbour's ghost row above */
        for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
            st->bottom_dest[p] = (jacobi_real_t *)base + (size_t)p * 2 * nx;
        st->bottom_peer = node_bottom != me ? node_bottom : -1;
        /* my last rows become the bottom neighbour's deep ghost rows above */
        for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS && st->deep[0] && st->bottom_peer >= 0;
             p++)
            st->deep_bottom_dest[p] = jacobi_deep_rows((jacobi_real_t *)base, nx, p, 0);
        if (status == SHARDTAB_SUCCESS && st->bottom_peer >= 0)
            st->ll_bottom_dest = jacobi_ll_ghosts((jacobi_real_t *)base, nx, deep_rows);
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signals(j->table, &st->sig);
    return status;
}
