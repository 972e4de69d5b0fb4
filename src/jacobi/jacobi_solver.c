/* jacobi_solver.c - one solve's device buffers (rows, ghost rows, the kernel's
 * bookkeeping), their starting state, its plan, and the reference's wiring
 * onto itself. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_solver.h"

#include <stdlib.h>
#include <string.h>

#include "jacobi_op.h"
#include "jacobi_problem.h"
#include "jacobi_status.h"

_Static_assert((int)JACOBI_TEST_FAULT_STALE == JACOBI_FAULT_STALE &&
                   (int)JACOBI_TEST_FAULT_NORM == JACOBI_FAULT_NORM &&
                   (int)JACOBI_TEST_FAULT_STOP == JACOBI_FAULT_STOP,
               "the program's fault kinds are the kernels' (jacobi_options.h, jacobi_sweep.h)");

/* The deepest pass's, where the choice of a mode may end at temporal passes
 * (--launch temporal, or auto on a GPU, which picks them for large ranks:
 * 4 x 7 rows of the rank's width); else none. */
int jacobi_solver_deep_rows(const jacobi_options_t *opts)
{
    return jacobi_launch_may_run(opts->launch, shardtab_backend() != SHARDTAB_BACKEND_HOST,
                                 JACOBI_LAUNCH_TEMPORAL)
               ? JACOBI_TEMPORAL_MAX_DEPTH
               : 0;
}

/* The kernels step from one part's pointer to its others themselves: a
 * ghost row below at halo[p] + nx (row_at), the deep rows below at deep[p] +
 * MAX_DEPTH rows, an LL row's parity 1 at 2 nx words from parity 0
 * (jacobi_ll_ghost). Does the faces' layout put them there? */
static int kernels_agree(const jacobi_solver_t *s, int deep_rows)
{
    const jacobi_step_t *st = &s->step;
    const size_t nx = (size_t)s->nx;
    int agree = (uint64_t *)jacobi_faces_at(s->halo, s->nx, deep_rows, JACOBI_FACES_LL, 0, 1) ==
                    st->ll_above + 2 * nx &&
                st->ll_below == st->ll_above + nx;

    for (int p = 0; p < 2; p++) {
        agree &= jacobi_faces_at(s->halo, s->nx, deep_rows, JACOBI_FACES_ROWS, 1, p) ==
                 (void *)(st->halo[p] + nx);
        if (deep_rows)
            agree &= jacobi_faces_at(s->halo, s->nx, deep_rows, JACOBI_FACES_DEEP, 1, p) ==
                     (void *)(st->deep[p] + JACOBI_TEMPORAL_MAX_DEPTH * nx);
    }
    return agree;
}

shardtab_status_t jacobi_solver_alloc(jacobi_solver_t *s, const jacobi_options_t *opts, int start,
                                      int rows, int coherent_halo, int padded)
{
    const int nx = opts->nx, ny = opts->ny;
    const size_t row_bytes = (size_t)nx * sizeof(jacobi_real_t);
    const size_t grid = (size_t)rows * row_bytes, buffer = grid + (padded ? 2 * row_bytes : 0);
    uint64_t partials = 0;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    const int deep_rows = jacobi_solver_deep_rows(opts);

    memset(s, 0, sizeof *s);
    s->halo_bytes = jacobi_halo_bytes(opts);
    s->nx = nx;
    s->ny = ny;
    s->start = start;
    s->rows = rows;
    s->history_len = jacobi_history_len(opts->niter, opts->nccheck);
    s->init = malloc(grid);
    s->init_halo = malloc(2 * row_bytes);
    if (s->init == NULL || s->init_halo == NULL)
        return jacobi_no_memory("the starting rows", grid + 2 * row_bytes);
    jacobi_initial_rows(&opts->init, nx, ny, start, rows, s->init);
    /* the ghost rows start as the rows they stand for: the neighbours' edges */
    jacobi_initial_rows(&opts->init, nx, ny, jacobi_periodic_row(ny, start - 1), 1, s->init_halo);
    jacobi_initial_rows(&opts->init, nx, ny, jacobi_periodic_row(ny, start + rows), 1,
                        s->init_halo + nx);
    if (deep_rows) {
        s->init_deep = malloc(2 * (size_t)deep_rows * row_bytes);
        if (s->init_deep == NULL)
            return jacobi_no_memory("the starting deep ghost rows",
                                    2 * (size_t)deep_rows * row_bytes);
        for (int r = 0; r < deep_rows; r++) {
            jacobi_initial_rows(&opts->init, nx, ny, jacobi_periodic_row(ny, start - deep_rows + r),
                                1, s->init_deep + (size_t)r * nx);
            jacobi_initial_rows(&opts->init, nx, ny, jacobi_periodic_row(ny, start + rows + r), 1,
                                s->init_deep + (size_t)(deep_rows + r) * nx);
        }
    }
    for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++) {
        status = shardtab_mem_alloc(buffer, (void **)&s->buffer[p]);
        s->a[p] = s->buffer[p] ? s->buffer[p] + (padded ? nx : 0) : NULL;
    }
    if (status == SHARDTAB_SUCCESS)
        status = coherent_halo ? shardtab_mem_alloc_coherent(s->halo_bytes, (void **)&s->halo)
                               : shardtab_mem_alloc(s->halo_bytes, (void **)&s->halo);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(sizeof(jacobi_ctl_t), (void **)&s->ctl);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)s->history_len * sizeof(double), (void **)&s->history);
    if (status != SHARDTAB_SUCCESS)
        return status;

    jacobi_step_t *st = &s->step;
    memset(st, 0, sizeof *st);
    for (int p = 0; p < 2; p++) {
        st->a[p] = s->a[p];
        st->halo[p] = jacobi_faces_at(s->halo, nx, deep_rows, JACOBI_FACES_ROWS, 0, p);
        st->deep[p] =
            deep_rows ? jacobi_faces_at(s->halo, nx, deep_rows, JACOBI_FACES_DEEP, 0, p) : NULL;
    }
    st->ll_above = jacobi_faces_at(s->halo, nx, deep_rows, JACOBI_FACES_LL, 0, 0);
    st->ll_below = jacobi_faces_at(s->halo, nx, deep_rows, JACOBI_FACES_LL, 1, 0);
    if (!kernels_agree(s, deep_rows))
        return shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                  "the ghost rows' layout (jacobi_faces_params) is not the one "
                                  "the kernels step through: a build of mismatched sources");
    st->nx = nx;
    st->rows = rows;
    st->top_peer = st->bottom_peer = -1;
    st->tol = JACOBI_TOL;
    st->ctl = s->ctl;
    st->history = s->history;
    st->history_len = s->history_len;
    s->tuning = opts->tuning;
    status = jacobi_kernel_check(jacobi_step_shape(st, &s->tuning, &partials),
                                 "sizing the Jacobi kernel");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)partials * sizeof(double), (void **)&s->partials);
    st->partials = s->partials;
    return status;
}

shardtab_status_t jacobi_solver_free(jacobi_solver_t *s)
{
    void *device[] = {s->buffer[0], s->buffer[1], s->halo, s->ctl, s->history, s->partials};
    shardtab_status_t first = SHARDTAB_SUCCESS;

    jacobi_plan_destroy(s->plan);
    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++) {
        shardtab_status_t st = shardtab_mem_free(device[i]);
        if (first == SHARDTAB_SUCCESS)
            first = st;
    }
    free(s->init);
    free(s->init_halo);
    free(s->init_deep);
    memset(s, 0, sizeof *s);
    return first;
}

shardtab_status_t jacobi_solver_read_ctl(const jacobi_solver_t *s, void *stream, jacobi_ctl_t *ctl)
{
    shardtab_status_t status = shardtab_memcpy_async(ctl, s->ctl, sizeof *ctl, stream);
    return status == SHARDTAB_SUCCESS ? shardtab_stream_synchronize(stream) : status;
}

shardtab_status_t jacobi_solver_read_rows(const jacobi_solver_t *s, void *stream,
                                          jacobi_real_t *rows_out)
{
    jacobi_ctl_t ctl;
    shardtab_status_t status = jacobi_solver_read_ctl(s, stream, &ctl);

    /* the latest rows are in a[iteration & 1] */
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(rows_out, s->a[ctl.iteration & 1],
                                       (size_t)s->rows * (size_t)s->nx * sizeof *rows_out, stream);
    return status == SHARDTAB_SUCCESS ? shardtab_stream_synchronize(stream) : status;
}

/* Rows and ghost rows to their starting state, a clean history, and the
 * bookkeeping with the iteration count kept (signals only ever grow). */
shardtab_status_t jacobi_solver_reset(jacobi_solver_t *s, void *stream)
{
    const size_t row_bytes = (size_t)s->nx * sizeof(jacobi_real_t);
    const size_t history = (size_t)s->history_len * sizeof(double);
    jacobi_ctl_t ctl;
    shardtab_status_t status;
    double *zeros = calloc(1, history);

    if (zeros == NULL)
        return jacobi_no_memory("zeros", history);
    status = jacobi_solver_read_ctl(s, stream, &ctl);
    if (status == SHARDTAB_SUCCESS) {
        ctl.base = ctl.iteration;
        ctl.stop_at = JACOBI_NO_STOP;
        ctl.failed = 0;
        ctl.exits = 0; /* the on-chip launch's exit tickets count from each solve's start */
        ctl.redo = 0;  /* a temporal pass to run again belongs to its solve */
        ctl.norm = 0.0;
        ctl.norm_iter = JACOBI_NO_NORM;
        status = shardtab_memcpy_async(s->ctl, &ctl, sizeof ctl, stream);
    }
    for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
        status = shardtab_memcpy_async(s->a[p], s->init, (size_t)s->rows * row_bytes, stream);
    for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS; p++)
        status = shardtab_memcpy_async(s->step.halo[p], s->init_halo, 2 * row_bytes, stream);
    for (int p = 0; p < 2 && status == SHARDTAB_SUCCESS && s->init_deep; p++)
        status = shardtab_memcpy_async(s->step.deep[p], s->init_deep,
                                       2 * JACOBI_TEMPORAL_MAX_DEPTH * row_bytes, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(s->history, zeros, history, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    free(zeros);
    return status;
}

shardtab_status_t jacobi_solver_start(jacobi_solver_t *s, void *stream)
{
    const size_t ll_bytes = 4 * (size_t)s->nx * sizeof(uint64_t);
    jacobi_ctl_t ctl;
    /* the LL ghost rows hold time 0, older than any a solve waits for: the
     * times are iteration counts, which only grow from here */
    void *zeros = calloc(1, ll_bytes);

    if (zeros == NULL)
        return jacobi_no_memory("zeros", ll_bytes);
    memset(&ctl, 0, sizeof ctl);
    ctl.stop_at = JACOBI_NO_STOP;
    ctl.norm_iter = JACOBI_NO_NORM;
    shardtab_status_t status = shardtab_memcpy_async(s->ctl, &ctl, sizeof ctl, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(s->step.ll_above, zeros, ll_bytes, stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    free(zeros);
    return status;
}

int jacobi_solver_plan(jacobi_solver_t *s, jacobi_launch_t launch, void *stream, char *why,
                       size_t why_bytes)
{
    jacobi_plan_t *plan = NULL;
    int rc = jacobi_plan_create(&s->step, &s->tuning, launch, stream, &plan, why, why_bytes);

    if (rc == 0) {
        jacobi_plan_destroy(s->plan);
        s->plan = plan;
    }
    return rc;
}

void jacobi_solver_plant(jacobi_solver_t *s, const jacobi_test_fault_t *fault, int solve)
{
    jacobi_fault_t *f = &s->step.fault;

    memset(f, 0, sizeof *f);
    if (!(fault->solves & solve) || fault->kind == JACOBI_TEST_FAULT_NONE)
        return;
    if (fault->kind != JACOBI_TEST_FAULT_STOP &&
        (fault->row < s->start || fault->row >= s->start + s->rows))
        return;
    f->kind = (int)fault->kind;
    f->row = fault->row - s->start;
    f->col = fault->col;
    f->iteration = fault->iteration;
}

/* Bytes of one face of a part: a row, deep_rows rows, or a row of LL words. */
static size_t part_face_bytes(int nx, int deep_rows, enum jacobi_faces_part part)
{
    return part == JACOBI_FACES_LL ? (size_t)nx * sizeof(uint64_t)
                                   : (size_t)(part == JACOBI_FACES_DEEP ? deep_rows : 1) *
                                         (size_t)nx * sizeof(jacobi_real_t);
}

shardtab_faces_params_t jacobi_faces_params(int nx, int deep_rows, int ranks,
                                            enum jacobi_faces_part part)
{
    shardtab_faces_params_t fp;

    memset(&fp, 0, sizeof fp);
    fp.dims = 1;
    fp.grid[0] = ranks;
    fp.periodic[0] = 1;
    fp.parities = 2;
    for (int before = 0; before < (int)part; before++) { /* the parts before this one */
        fp.face_bytes[0] = part_face_bytes(nx, deep_rows, (enum jacobi_faces_part)before);
        fp.offset += shardtab_faces_bytes(&fp);
    }
    fp.face_bytes[0] = part_face_bytes(nx, deep_rows, part);
    return fp;
}

void *jacobi_faces_at(jacobi_real_t *halo, int nx, int deep_rows, enum jacobi_faces_part part,
                      int side, int p)
{
    shardtab_faces_params_t fp = jacobi_faces_params(nx, deep_rows, 1, part);

    return (char *)halo + shardtab_faces_offset(&fp, 0, side, p);
}

size_t jacobi_halo_bytes(const jacobi_options_t *opts)
{
    shardtab_faces_params_t ll =
        jacobi_faces_params(opts->nx, jacobi_solver_deep_rows(opts), 1, JACOBI_FACES_LL);

    return ll.offset + shardtab_faces_bytes(&ll);
}

void jacobi_wire_reference(jacobi_solver_t *s, int nccheck)
{
    jacobi_step_t *st = &s->step;

    for (int p = 0; p < 2; p++) { /* its first row its own ghost row below, its last above */
        st->top_dest[p] = jacobi_faces_at(s->halo, s->nx, 0, JACOBI_FACES_ROWS, 1, p);
        st->bottom_dest[p] = jacobi_faces_at(s->halo, s->nx, 0, JACOBI_FACES_ROWS, 0, p);
    }
    st->device_norm = 1; /* one rank: its own norm decides, on the device */
    st->nccheck = nccheck;
}
