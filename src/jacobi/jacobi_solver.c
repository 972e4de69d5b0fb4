/* jacobi_solver.c - one solve's device buffers (rows, ghost rows, the kernel's
 * bookkeeping), their starting state, and the wiring of the ring: which edges
 * go through the table, which through MPI. */
#include "jacobi_solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jacobi_job.h"

static const float jacobi_pi = 3.14159265358979323846f; /* as the anchors: a float pi */

/* Computed on the host once, so that every backend starts from the same bits. */
void jacobi_fill_initial(jacobi_real_t *rows_out, int nx, int ny, int start, int rows)
{
    memset(rows_out, 0, (size_t)rows * (size_t)nx * sizeof *rows_out);
    for (int r = 0; r < rows; r++) {
        double y = 2.0 * (double)jacobi_pi * (double)(start + r) / (double)(ny - 1);
        jacobi_real_t v = (jacobi_real_t)sin(y);
        rows_out[(size_t)r * nx] = v;
        rows_out[(size_t)r * nx + nx - 1] = v;
    }
}

shardtab_status_t jacobi_solver_alloc(jacobi_solver_t *s, int nx, int ny, int start, int rows,
                                      int niter, int coherent_halo)
{
    size_t grid = (size_t)rows * (size_t)nx * sizeof(jacobi_real_t);
    uint64_t partials = 0;
    shardtab_status_t status;

    memset(s, 0, sizeof *s);
    s->nx = nx;
    s->rows = rows;
    s->history_len = niter / 100 + 1;
    s->init = malloc(grid);
    if (s->init == NULL)
        return jacobi_no_memory("the starting rows", grid);
    jacobi_fill_initial(s->init, nx, ny, start, rows);
    status = shardtab_mem_alloc(grid, (void **)&s->a[0]);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(grid, (void **)&s->a[1]);
    if (status == SHARDTAB_SUCCESS)
        status = coherent_halo
                     ? shardtab_mem_alloc_coherent(4 * (size_t)nx * sizeof(jacobi_real_t),
                                                   (void **)&s->halo)
                     : shardtab_mem_alloc(4 * (size_t)nx * sizeof(jacobi_real_t), (void **)&s->halo);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(sizeof(jacobi_ctl_t), (void **)&s->ctl);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)s->history_len * sizeof(double), (void **)&s->history);
    if (status != SHARDTAB_SUCCESS)
        return status;

    jacobi_step_t *st = &s->step;
    memset(st, 0, sizeof *st); /* padding too: the kernels cache graphs by its bytes */
    for (int p = 0; p < 2; p++) {
        st->a[p] = s->a[p];
        st->halo[p] = s->halo + (size_t)p * 2 * nx;
    }
    st->nx = nx;
    st->rows = rows;
    st->top_peer = st->bottom_peer = -1;
    st->tol = JACOBI_TOL;
    st->ctl = s->ctl;
    st->history = s->history;
    st->history_len = s->history_len;
    status = jacobi_kernel_check(jacobi_step_shape(st, &partials), "sizing the Jacobi kernel");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)partials * sizeof(double), (void **)&s->partials);
    st->partials = s->partials;
    return status;
}

shardtab_status_t jacobi_solver_free(jacobi_solver_t *s)
{
    void *device[] = {s->a[0], s->a[1], s->halo, s->ctl, s->history, s->partials};
    shardtab_status_t first = SHARDTAB_SUCCESS;

    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++) {
        shardtab_status_t st = shardtab_mem_free(device[i]);
        if (first == SHARDTAB_SUCCESS)
            first = st;
    }
    free(s->init);
    memset(s, 0, sizeof *s);
    return first;
}

shardtab_status_t jacobi_solver_read_ctl(const jacobi_solver_t *s, void *stream, jacobi_ctl_t *ctl)
{
    shardtab_status_t status = shardtab_memcpy_async(ctl, s->ctl, sizeof *ctl, stream);
    return status == SHARDTAB_SUCCESS ? shardtab_stream_synchronize(stream) : status;
}

/* Rows, ghost rows (zero, as the neighbours' starting interiors), a clean
 * history, and the bookkeeping with the iteration count kept (signals only
 * ever grow). */
shardtab_status_t jacobi_solver_reset(jacobi_solver_t *s, void *stream)
{
    size_t grid = (size_t)s->rows * (size_t)s->nx * sizeof(jacobi_real_t);
    size_t halo = 4 * (size_t)s->nx * sizeof(jacobi_real_t);
    size_t history = (size_t)s->history_len * sizeof(double);
    size_t zero_bytes = halo > history ? halo : history;
    jacobi_ctl_t ctl;
    shardtab_status_t status;
    void *zeros = calloc(1, zero_bytes);

    if (zeros == NULL)
        return jacobi_no_memory("zeros", zero_bytes);
    status = jacobi_solver_read_ctl(s, stream, &ctl);
    if (status == SHARDTAB_SUCCESS) {
        ctl.base = ctl.iteration;
        ctl.stop_at = JACOBI_NO_STOP;
        ctl.norm = 0.0;
        ctl.norm_iter = ctl.iteration;
        status = shardtab_memcpy_async(s->ctl, &ctl, sizeof ctl, stream);
    }
    for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
        status = shardtab_memcpy_async(s->a[p], s->init, grid, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(s->halo, zeros, halo, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(s->history, zeros, history, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    free(zeros);
    return status;
}

shardtab_status_t jacobi_solver_start(jacobi_solver_t *s, void *stream)
{
    jacobi_ctl_t ctl;

    memset(&ctl, 0, sizeof ctl);
    ctl.stop_at = JACOBI_NO_STOP;
    shardtab_status_t status = shardtab_memcpy_async(s->ctl, &ctl, sizeof ctl, stream);
    return status == SHARDTAB_SUCCESS ? shardtab_stream_synchronize(stream) : status;
}

shardtab_status_t jacobi_wire_edges(jacobi_job_t *j)
{
    jacobi_step_t *st = &j->run.step;
    int node_top = shardtab_node_rank_of(j->table, j->top);
    int node_bottom = shardtab_node_rank_of(j->table, j->bottom);
    int me = shardtab_node_rank(j->table);
    int single_node = shardtab_node_count(j->table) == 1;
    int nx = j->opts.nx;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    j->host_top = j->opts.variant == JACOBI_MPI || node_top < 0;
    j->host_bottom = j->opts.variant == JACOBI_MPI || node_bottom < 0;
    /* every rank's norm, and the stop, on the device only where the node is the job */
    j->host_norm = j->opts.variant == JACOBI_MPI || !single_node;
    j->host_sync = j->opts.variant == JACOBI_HOST_SYNC;
    st->device_norm = !j->host_norm;
    st->device_sync = j->opts.variant == JACOBI_TABLE;
    st->nccheck = j->opts.nccheck;
    st->skip_signal = j->skip_signal;
    if (!j->host_top) {
        void *base;
        size_t bytes;
        status = shardtab_peer(j->table, j->top, &base, &bytes);
        /* my first row becomes the top neighbour's ghost row below */
        for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
            st->top_dest[p] = (jacobi_real_t *)base + (size_t)p * 2 * nx + nx;
        st->top_peer = node_top != me ? node_top : -1; /* one rank: no signal to itself */
    }
    if (!j->host_bottom && status == SHARDTAB_SUCCESS) {
        void *base;
        size_t bytes;
        status = shardtab_peer(j->table, j->bottom, &base, &bytes);
        /* my last row becomes the bottom neighbour's ghost row above */
        for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
            st->bottom_dest[p] = (jacobi_real_t *)base + (size_t)p * 2 * nx;
        st->bottom_peer = node_bottom != me ? node_bottom : -1;
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signals(j->table, &st->sig);
    return status;
}

void jacobi_wire_reference(jacobi_solver_t *s, int nccheck)
{
    jacobi_step_t *st = &s->step;
    for (int p = 0; p < 2; p++) {
        st->top_dest[p] = s->halo + (size_t)p * 2 * s->nx + s->nx;
        st->bottom_dest[p] = s->halo + (size_t)p * 2 * s->nx;
    }
    st->device_norm = 1; /* one rank: its own norm decides, on the device */
    st->nccheck = nccheck;
}
