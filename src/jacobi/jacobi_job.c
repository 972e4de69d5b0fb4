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

/* The node rank to signal on that side once my edge rows are in its ghost
 * rows: -1 where they go by MPI, or to myself. */
static int signal_peer(const jacobi_job_t *j, int side)
{
    const int peer = shardtab_faces_node_peer(j->faces[JACOBI_FACES_ROWS], 0, side);
    return peer != shardtab_node_rank(j->table) ? peer : -1;
}

/* Where my edge rows of parity p go in that side's deep ghost rows, or NULL
 * where no temporal pass may run. */
static jacobi_real_t *deep_dest(const jacobi_job_t *j, int side, int p)
{
    const shardtab_faces_t *deep = j->faces[JACOBI_FACES_DEEP];
    return deep ? shardtab_faces_dest(deep, 0, side, p) : NULL;
}

shardtab_status_t jacobi_wire_edges(jacobi_job_t *j)
{
    jacobi_step_t *st = &j->run.step;
    const int deep_rows = jacobi_solver_deep_rows(&j->opts); /* the halo's layout, every rank's */
    shardtab_status_t status = SHARDTAB_SUCCESS;

    /* the three parts of the ghost rows as the library's direct faces: where
     * each neighbour is and how it is reached (the MPI variant: every edge by
     * MPI), where this rank's edge rows go in its neighbours' shards */
    for (int part = 0; part < JACOBI_FACES_PARTS && status == SHARDTAB_SUCCESS; part++) {
        shardtab_faces_params_t fp =
            jacobi_faces_params(j->opts.nx, deep_rows, j->size, (enum jacobi_faces_part)part);
        fp.through_mpi = j->opts.variant == JACOBI_MPI;
        fp.mpi_device = j->mpi_direct;
        if (fp.face_bytes[0] > 0) /* the deep rows where temporal passes may run */
            status = shardtab_faces_create(j->table, &fp, &j->faces[part]);
    }
    if (status != SHARDTAB_SUCCESS)
        return status;
    const shardtab_faces_t *rows = j->faces[JACOBI_FACES_ROWS];
    j->host_top = shardtab_faces_route(rows, 0, 0) == SHARDTAB_FACES_MPI;
    j->host_bottom = shardtab_faces_route(rows, 0, 1) == SHARDTAB_FACES_MPI;
    /* every rank's norm, and the stop, on the device only where the node is the job */
    j->host_norm = j->opts.variant == JACOBI_MPI || shardtab_node_count(j->table) > 1;
    j->host_sync = j->opts.variant == JACOBI_HOST_SYNC;
    j->host_loop = j->host_top || j->host_bottom || j->host_norm || j->host_sync;
    st->device_norm = !j->host_norm;
    st->device_sync = j->opts.variant == JACOBI_TABLE;
    st->nccheck = j->opts.nccheck;
    st->skip_signal = j->skip_signal;
    st->slow_passes = j->slow_passes;
    /* side 0 is the top neighbour, whose ghost rows below my first rows
     * become; side 1 the bottom one, whose ghost rows above my last become. A
     * rank alone stores into its own rows and signals nobody; the deep and LL
     * rows go only to another rank */
    st->top_peer = signal_peer(j, 0);
    st->bottom_peer = signal_peer(j, 1);
    for (int p = 0; p < 2; p++) {
        st->top_dest[p] = shardtab_faces_dest(rows, 0, 0, p);
        st->bottom_dest[p] = shardtab_faces_dest(rows, 0, 1, p);
        st->deep_top_dest[p] = st->top_peer >= 0 ? deep_dest(j, 0, p) : NULL;
        st->deep_bottom_dest[p] = st->bottom_peer >= 0 ? deep_dest(j, 1, p) : NULL;
    }
    st->ll_top_dest =
        st->top_peer >= 0 ? shardtab_faces_dest(j->faces[JACOBI_FACES_LL], 0, 0, 0) : NULL;
    st->ll_bottom_dest =
        st->bottom_peer >= 0 ? shardtab_faces_dest(j->faces[JACOBI_FACES_LL], 0, 1, 0) : NULL;
    return shardtab_signals(j->table, &st->sig);
}
