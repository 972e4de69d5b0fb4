/* jacobi_solve.c - one solve, timed: reset, a barrier, the loop (device-driven
 * or host-driven), a barrier, the outcome read back, and every rank told of
 * any rank's failure or of a device-side wait that gave up. */
#include "jacobi_solve.h"

#include <string.h>

#include "jacobi_exchange.h"

static shardtab_status_t read_outcome(jacobi_solver_t *s, void *stream, int host_norm,
                                      jacobi_outcome_t *out)
{
    jacobi_ctl_t ctl;
    shardtab_status_t status = shardtab_memcpy_async(&ctl, s->ctl, sizeof ctl, stream);

    if (status == SHARDTAB_SUCCESS && !host_norm)
        status = shardtab_memcpy_async(out->history, s->history,
                                       (size_t)s->history_len * sizeof(double), stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    if (status != SHARDTAB_SUCCESS)
        return status;
    out->iterations = ctl.iteration - ctl.base;
    if (!host_norm) {
        out->norm = ctl.norm;
        out->norm_iter = ctl.norm_iter - ctl.base;
    }
    return SHARDTAB_SUCCESS;
}

shardtab_status_t jacobi_solve(jacobi_job_t *j, jacobi_solver_t *s, int distributed,
                               int iterations, jacobi_outcome_t *out)
{
    shardtab_status_t status = jacobi_solver_reset(s, j->stream);
    int host_loop = distributed && (j->host_top || j->host_bottom || j->host_norm || j->host_sync);
    uint64_t base = 0;
    double start;

    memset(out->history, 0, (size_t)s->history_len * sizeof(double));
    out->norm = 0.0;
    out->norm_iter = 0;
    if (status == SHARDTAB_SUCCESS) {
        jacobi_ctl_t ctl;
        status = jacobi_solver_read_ctl(s, j->stream, &ctl);
        base = ctl.base;
    }
    if (distributed) {
        /* nobody starts before every rank has reset the ghost rows others write */
        status = shardtab_agree(MPI_COMM_WORLD, status);
        if (status != SHARDTAB_SUCCESS)
            return status;
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (status != SHARDTAB_SUCCESS) {
        return status;
    }

    start = MPI_Wtime();
    if (!host_loop) {
        /* the table's way: enqueue everything, the device decides when to stop */
        /* graphs for the table variant's solve, and for every reference */
        int graph = j->opts.graph && (!distributed || j->opts.variant == JACOBI_TABLE);
        status = jacobi_kernel_check(jacobi_run(&s->step, iterations, j->stream, graph),
                                     "the Jacobi kernel");
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
    } else {
        jacobi_host_loop_t loop;
        jacobi_host_loop_init(&loop, base);
        for (int it = 0; it < iterations && !loop.stop && !loop.failed; it++) {
            if (status == SHARDTAB_SUCCESS)
                status = jacobi_kernel_check(jacobi_run(&s->step, 1, j->stream, 0),
                                             "the Jacobi kernel");
            status = jacobi_host_step(j, &loop, base + (uint64_t)it, out, status);
        }
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
    }
    if (distributed) {
        status = shardtab_agree(MPI_COMM_WORLD, status);
        if (status == SHARDTAB_SUCCESS)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    out->seconds = MPI_Wtime() - start;
    if (status == SHARDTAB_SUCCESS)
        status = read_outcome(s, j->stream, distributed && j->host_norm, out);
    /* a device wait that gave up: every rank reports the rank that waited */
    if (distributed && status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(j->table);
    return distributed ? shardtab_agree(MPI_COMM_WORLD, status) : status;
}

double jacobi_median(double *v, int n)
{
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
            double t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
