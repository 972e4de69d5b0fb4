/* jacobi_verify.c - the checks of a jacobi run, each against the plain
 * reference (kernels/jacobi/jacobi_plain.h), which shares nothing with the optimised
 * kernels but the update expression: the 1-GPU reference and the distributed
 * run, every point to the bit, the iterations and the norms (history and last,
 * within JACOBI_NORM_REL_TOL: they are summed in other orders); and the plain
 * reference itself against a plain CPU loop on rank 0's cores. The verdict is
 * agreed by every rank before anything is printed. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE /* sched_getaffinity */
#include "jacobi_verify.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "jacobi_op.h"
#include "jacobi_plain.h"
#include "jacobi_problem.h"

#define JACOBI_CPU_WORK_PER_THREAD 1.0e9 /* point updates for --cpu-check auto: ~1-2 s a core */
#define JACOBI_CPU_MAX_THREADS 64

void jacobi_verdict_init(jacobi_verdict_t *v)
{
    memset(v, 0, sizeof *v);
    v->cpu.first_bad = v->reference.first_bad = v->run.first_bad = UINT64_MAX;
}

/* ---- comparing ----------------------------------------------------------------------- */

static double relative_difference(double got, double want)
{
    if (isnan(got) || isnan(want))
        return INFINITY; /* a NaN never passes */
    return fabs(got - want) / (want != 0.0 ? fabs(want) : 1.0);
}

/* rows x nx points of got against want, to the bit (memcmp: a NaN never
 * passes); the first bad one by its global index (first_row is got's row). */
static void compare_points(jacobi_check_t *c, const jacobi_real_t *got, const jacobi_real_t *want,
                           int first_row, int rows, int nx)
{
    const size_t n = (size_t)rows * (size_t)nx;

    c->points += n;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof got[i]) != 0 && c->mismatches++ == 0) {
            c->first_bad =
                (uint64_t)(first_row + (int)(i / (size_t)nx)) * (uint64_t)nx + i % (size_t)nx;
            c->got = got[i];
            c->want = want[i];
        }
}

/* Iterations and norms of got against want: the last decided norm, and every
 * one the history keeps (the last among them, counted once). */
static void compare_outcome(jacobi_check_t *c, const jacobi_outcome_t *got,
                            const jacobi_outcome_t *want, int nccheck)
{
    c->iterations_min = c->iterations_max = got->iterations;
    c->iterations_want = want->iterations;
    c->norm_missing = got->norm_decided != want->norm_decided ||
                      (got->norm_decided && got->norm_iter != want->norm_iter);
    if (got->norm_decided && want->norm_decided) {
        double d = relative_difference(got->norm, want->norm);
        if (jacobi_history_slot(want->norm_iter, nccheck, want->history_len) < 0)
            c->norms++; /* beyond the history: counted here alone */
        c->norm_diff = d > c->norm_diff ? d : c->norm_diff;
    }
    for (int i = 0; i < want->history_len && i < got->history_len; i++)
        if (got->history[i] != 0.0 || want->history[i] != 0.0) {
            double d = relative_difference(got->history[i], want->history[i]);
            c->norms++;
            c->norm_diff = d > c->norm_diff ? d : c->norm_diff;
        }
}

static void settle(jacobi_check_t *c)
{
    c->ok = c->mismatches == 0 && c->iterations_min == c->iterations_want &&
            c->iterations_max == c->iterations_want && !c->norm_missing &&
            c->norm_diff <= JACOBI_NORM_REL_TOL;
}

void jacobi_check_describe(const jacobi_check_t *c, int nx, char *text, size_t bytes)
{
    size_t used = 0;
    const char *sep = "";

#define SAY(...)                                                                                   \
  do {                                                                                             \
    if (used < bytes)                                                                              \
      used += (size_t)snprintf(text + used, bytes - used, __VA_ARGS__);                            \
  } while (0)
    text[0] = '\0';
    if (c->mismatches > 0) {
        SAY("%" PRIu64 " of %" PRIu64 " points differ, the first at row %" PRIu64 " column %" PRIu64
            ": %.9g, expected %.9g",
            c->mismatches, c->points, c->first_bad / (uint64_t)nx, c->first_bad % (uint64_t)nx,
            (double)c->got, (double)c->want);
        sep = "; ";
    }
    if (c->iterations_min != c->iterations_want || c->iterations_max != c->iterations_want) {
        if (c->iterations_min == c->iterations_max)
            SAY("%s%" PRIu64 " iterations, expected %" PRIu64, sep, c->iterations_min,
                c->iterations_want);
        else
            SAY("%s%" PRIu64 " to %" PRIu64 " iterations over the ranks, expected %" PRIu64, sep,
                c->iterations_min, c->iterations_max, c->iterations_want);
        sep = "; ";
    }
    if (c->norm_missing) {
        SAY("%sthe last norm decided at another iteration, or on one side only", sep);
        sep = "; ";
    }
    if (c->norm_diff > JACOBI_NORM_REL_TOL) {
        SAY("%snorms differ by %.1e relative (tolerance %.0e)", sep, c->norm_diff,
            JACOBI_NORM_REL_TOL);
        sep = "; ";
    }
    if (*sep == '\0')
        SAY("%" PRIu64 " points bit for bit, %" PRIu64 " iterations, %d norms within %.1e",
            c->points, c->iterations_want, c->norms, c->norm_diff);
#undef SAY
}

/* ---- the plain reference (rank 0, in the 1-GPU reference's buffers) --------------------- */

/* The loop of a plain solve on the host's side: after iteration it, the norm
 * of it - 1 decides (jacobi_op.h's rule, as everywhere), then the norm of it,
 * when it is a norm iteration (norm2 >= 0), becomes the pending one. Returns
 * 1 when the solve stops after it. */
static int plain_rule(const jacobi_options_t *o, uint64_t it, double norm2, double *pending,
                      jacobi_outcome_t *out)
{
    int stop = jacobi_stops_after(0, o->nccheck, it, *pending, JACOBI_TOL);

    if (jacobi_decision_iteration(0, o->nccheck, it)) {
        int slot = jacobi_history_slot(it - 1, o->nccheck, out->history_len);
        out->norm_decided = 1;
        out->norm = *pending;
        out->norm_iter = it - 1;
        if (slot >= 0)
            out->history[slot] = *pending;
    }
    if (norm2 >= 0.0)
        *pending = sqrt(norm2);
    return stop;
}

/* A grid with its periodic ghost rows: rows 1 .. ny-2 the starting interior,
 * row 0 a copy of row ny-2, row ny-1 a copy of row 1. */
static void fill_with_ghosts(jacobi_real_t *grid, const jacobi_real_t *interior, int nx, int ny)
{
    const size_t row = (size_t)nx * sizeof *grid;
    memcpy(grid + nx, interior, (size_t)(ny - 2) * row);
    memcpy(grid, interior + (size_t)(ny - 3) * nx, row);
    memcpy(grid + (size_t)(ny - 1) * nx, interior, row);
}

static shardtab_status_t plain_solve(jacobi_job_t *j, jacobi_outcome_t *out)
{
    const jacobi_options_t *o = &j->opts;
    const int nx = o->nx, ny = o->ny;
    const size_t plane = (size_t)ny * (size_t)nx;
    jacobi_plain_t p;
    jacobi_real_t *grid = malloc(plane * sizeof *grid);
    double *row_norm2 = malloc((size_t)ny * sizeof *row_norm2), pending = 0.0;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    uint64_t it = 0;

    if (grid == NULL || row_norm2 == NULL) {
        free(grid), free(row_norm2);
        return jacobi_no_memory("the plain reference's start", plane * sizeof *grid);
    }
    memset(&p, 0, sizeof p);
    p.grid[0] = j->ref.buffer[0];
    p.grid[1] = j->ref.buffer[1];
    p.row_norm2 = j->plain_norm2;
    p.nx = nx;
    p.ny = ny;
    if ((j->fault.solves & JACOBI_FAULT_IN_PLAIN) && j->fault.kind == JACOBI_TEST_FAULT_STALE) {
        p.fault.kind = JACOBI_FAULT_STALE;
        p.fault.row = j->fault.row;
        p.fault.col = j->fault.col;
        p.fault.iteration = j->fault.iteration;
    }
    memset(out->history, 0, (size_t)out->history_len * sizeof(double));
    out->norm_decided = 0;
    fill_with_ghosts(grid, j->ref.init, nx, ny);
    for (int b = 0; b < 2 && status == SHARDTAB_SUCCESS; b++)
        status = shardtab_memcpy_async(p.grid[b], grid, plane * sizeof *grid, j->stream);
    for (int stop = 0; it < (uint64_t)o->niter && !stop && status == SHARDTAB_SUCCESS; it++) {
        double norm2 = -1.0;
        status = jacobi_kernel_check(jacobi_plain_sweep(&p, (int)it, j->stream),
                                     "the plain reference's sweep");
        if (status == SHARDTAB_SUCCESS && jacobi_norm_iteration(0, o->nccheck, it)) {
            status = jacobi_kernel_check(jacobi_plain_norm(&p, (int)it, j->stream),
                                         "the plain reference's norm");
            if (status == SHARDTAB_SUCCESS)
                status = shardtab_memcpy_async(row_norm2, p.row_norm2, (size_t)ny * sizeof(double),
                                               j->stream);
            if (status == SHARDTAB_SUCCESS)
                status = shardtab_stream_synchronize(j->stream);
            norm2 = 0.0;
            for (int y = 1; y < ny - 1; y++) /* row order, on the host */
                norm2 += row_norm2[y];
        }
        stop = plain_rule(o, it, norm2, &pending, out);
    }
    out->iterations = it;
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(j->plain_rows, p.grid[it & 1] + nx,
                                       (size_t)(ny - 2) * (size_t)nx * sizeof *grid, j->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(j->stream);
    free(grid);
    free(row_norm2);
    return status;
}

/* ---- the CPU loop (rank 0's cores) -------------------------------------------------------- */

/* Cores this process may run on: the CPU loop's threads. */
static int cpu_threads(void)
{
    cpu_set_t set;
    int n = 1;

    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    return n < 1 ? 1 : n > JACOBI_CPU_MAX_THREADS ? JACOBI_CPU_MAX_THREADS : n;
}

static int cpu_check_runs(const jacobi_options_t *o, int threads)
{
    double work = (double)(o->ny - 2) * (double)o->nx * (double)o->niter;
    return o->cpu_check == JACOBI_CPU_CHECK_YES ||
           (o->cpu_check == JACOBI_CPU_CHECK_AUTO && work <= JACOBI_CPU_WORK_PER_THREAD * threads);
}

typedef struct cpu_loop {
    const jacobi_options_t *opts;
    jacobi_real_t *grid[2]; /* ny x nx, with the periodic ghost rows */
    double *row_norm2;      /* [ny] */
    int threads;
    pthread_barrier_t barrier;
    pthread_mutex_t gate; /* the helpers start once all could be created */
    pthread_cond_t opened;
    int go, abandon;
    int stop; /* written by thread 0 between the barriers */
    uint64_t iterations;
    double pending;
    jacobi_outcome_t *out;
} cpu_loop_t;

typedef struct cpu_worker {
    cpu_loop_t *loop;
    int first, last; /* rows [first, last) */
} cpu_worker_t;

static void cpu_sweep(cpu_worker_t *w)
{
    cpu_loop_t *l = w->loop;
    const int nx = l->opts->nx, ny = l->opts->ny;

    for (uint64_t it = 0; it < (uint64_t)l->opts->niter; it++) {
        const jacobi_real_t *a = l->grid[it & 1];
        jacobi_real_t *b = l->grid[(it & 1) ^ 1];
        const int norm_iter = jacobi_norm_iteration(0, l->opts->nccheck, it);
        for (int r = w->first; r < w->last; r++) {
            const jacobi_real_t *row = a + (size_t)r * nx;
            jacobi_real_t *out = b + (size_t)r * nx;
            double sum = 0.0;
            for (int x = 1; x < nx - 1; x++) {
                out[x] = jacobi_value(row[x - 1], row[x + 1], row[x - nx], row[x + nx]);
                sum += jacobi_residue2(out[x], row[x]);
            }
            l->row_norm2[r] = sum;
        }
        pthread_barrier_wait(&l->barrier);
        if (w->first == 1) { /* thread 0: the ghost rows, the norm, the rule */
            double norm2 = -1.0;
            memcpy(b + 1, b + (size_t)(ny - 2) * nx + 1, (size_t)(nx - 2) * sizeof *b);
            memcpy(b + (size_t)(ny - 1) * nx + 1, b + (size_t)nx + 1, (size_t)(nx - 2) * sizeof *b);
            if (norm_iter) {
                norm2 = 0.0;
                for (int r = 1; r < ny - 1; r++)
                    norm2 += l->row_norm2[r];
            }
            l->stop = plain_rule(l->opts, it, norm2, &l->pending, l->out);
            l->iterations = it + 1;
        }
        pthread_barrier_wait(&l->barrier);
        if (l->stop)
            break;
    }
}

/* A helper thread: waits at the gate, then sweeps its rows (or leaves). */
static void *cpu_helper(void *arg)
{
    cpu_worker_t *w = arg;
    cpu_loop_t *l = w->loop;
    int abandon;

    pthread_mutex_lock(&l->gate);
    while (!l->go)
        pthread_cond_wait(&l->opened, &l->gate);
    abandon = l->abandon;
    pthread_mutex_unlock(&l->gate);
    if (!abandon)
        cpu_sweep(w);
    return NULL;
}

static void split_rows(cpu_loop_t *l, cpu_worker_t *workers)
{
    const int ny = l->opts->ny;
    for (int t = 0; t < l->threads; t++) {
        workers[t].loop = l;
        workers[t].first = 1 + (int)((int64_t)(ny - 2) * t / l->threads);
        workers[t].last = 1 + (int)((int64_t)(ny - 2) * (t + 1) / l->threads);
    }
}

/* The whole solve by plain loops on this rank's cores, then compared with the
 * plain reference's rows and outcome. */
static shardtab_status_t cpu_check(jacobi_job_t *j, const jacobi_outcome_t *plain,
                                   jacobi_check_t *c)
{
    const jacobi_options_t *o = &j->opts;
    const int nx = o->nx, ny = o->ny, threads_max = cpu_threads();
    const size_t plane = (size_t)ny * (size_t)nx;
    cpu_loop_t l;
    cpu_worker_t workers[JACOBI_CPU_MAX_THREADS];
    pthread_t ids[JACOBI_CPU_MAX_THREADS];
    jacobi_outcome_t out;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    int started = 0;

    if (!cpu_check_runs(o, threads_max)) {
        snprintf(c->note, sizeof c->note,
                 o->cpu_check == JACOBI_CPU_CHECK_NO
                     ? "not run (--cpu-check no)"
                     : "not run (too much work for --cpu-check auto)");
        return SHARDTAB_SUCCESS;
    }
    memset(&l, 0, sizeof l);
    memset(&out, 0, sizeof out);
    l.opts = o;
    l.threads = threads_max < ny - 2 ? threads_max : ny - 2;
    l.out = &out;
    out.history_len = plain->history_len;
    out.history = calloc((size_t)out.history_len, sizeof(double));
    l.grid[0] = malloc(plane * sizeof(jacobi_real_t));
    l.grid[1] = malloc(plane * sizeof(jacobi_real_t));
    l.row_norm2 = calloc((size_t)ny, sizeof(double));
    if (out.history == NULL || l.grid[0] == NULL || l.grid[1] == NULL || l.row_norm2 == NULL) {
        status = jacobi_no_memory("the CPU check", 2 * plane * sizeof(jacobi_real_t));
        goto out;
    }
    fill_with_ghosts(l.grid[0], j->ref.init, nx, ny);
    fill_with_ghosts(l.grid[1], j->ref.init, nx, ny);
    pthread_mutex_init(&l.gate, NULL);
    pthread_cond_init(&l.opened, NULL);
    split_rows(&l, workers);
    /* thread 0 is this one; helpers wait at the gate until all exist */
    for (started = 1; started < l.threads; started++)
        if (pthread_create(&ids[started], NULL, cpu_helper, &workers[started]) != 0)
            break;
    l.abandon = started < l.threads;
    if (l.abandon) { /* a thread could not start: do it alone, the helpers leave */
        l.threads = 1;
        split_rows(&l, workers);
    }
    pthread_barrier_init(&l.barrier, NULL, (unsigned)l.threads);
    pthread_mutex_lock(&l.gate);
    l.go = 1;
    pthread_cond_broadcast(&l.opened);
    pthread_mutex_unlock(&l.gate);
    cpu_sweep(&workers[0]);
    for (int t = 1; t < started; t++)
        pthread_join(ids[t], NULL);
    pthread_barrier_destroy(&l.barrier);
    pthread_cond_destroy(&l.opened);
    pthread_mutex_destroy(&l.gate);
    if (status == SHARDTAB_SUCCESS) {
        out.iterations = l.iterations;
        c->ran = 1;
        c->threads = l.threads;
        /* the plain reference is what is checked here, the CPU loop what it must equal */
        compare_points(c, j->plain_rows, l.grid[l.iterations & 1] + nx, 1, ny - 2, nx);
        compare_outcome(c, plain, &out, j->opts.nccheck);
        settle(c);
    }
out:
    free(out.history);
    free(l.grid[0]);
    free(l.grid[1]);
    free(l.row_norm2);
    return status;
}

/* ---- the two phases of verification ---------------------------------------------------- */

static void share_outcome(jacobi_outcome_t *o)
{
    double scalars[4] = {(double)o->iterations, (double)o->norm_decided, o->norm,
                         (double)o->norm_iter};
    app_bcast(scalars, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD, "the broadcast of the plain reference");
    app_bcast(o->history, o->history_len, MPI_DOUBLE, 0, MPI_COMM_WORLD,
              "the broadcast of the plain reference's norms");
    o->iterations = (uint64_t)scalars[0];
    o->norm_decided = (int)scalars[1];
    o->norm = scalars[2];
    o->norm_iter = (uint64_t)scalars[3];
}

shardtab_status_t jacobi_verify_references(jacobi_job_t *j, const jacobi_outcome_t *ref,
                                           jacobi_outcome_t *plain, jacobi_verdict_t *v)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    const int nx = j->opts.nx, ny = j->opts.ny;

    if (j->rank == 0) {
        /* the reference's rows first: the plain reference reuses its buffers */
        status = jacobi_solver_read_rows(&j->ref, j->stream, j->ref_rows);
        if (status == SHARDTAB_SUCCESS)
            status = plain_solve(j, plain);
        if (status == SHARDTAB_SUCCESS) {
            jacobi_check_t *c = &v->reference;
            c->ran = 1;
            compare_points(c, j->ref_rows, j->plain_rows, 1, ny - 2, nx);
            compare_outcome(c, ref, plain, j->opts.nccheck);
            settle(c);
        }
        if (status == SHARDTAB_SUCCESS)
            status = cpu_check(j, plain, &v->cpu);
    }
    /* the others wait for rank 0's plain reference and CPU loop (two solves at most) */
    status = app_agree(MPI_COMM_WORLD, status, "the agreement after the plain reference",
                       j->rank == 0 ? 0.0 : jacobi_alone_work_s(&j->opts, 2));
    if (status != SHARDTAB_SUCCESS)
        return status;
    app_bcast(&v->cpu, (int)sizeof v->cpu, MPI_BYTE, 0, MPI_COMM_WORLD,
              "the broadcast of the checks");
    app_bcast(&v->reference, (int)sizeof v->reference, MPI_BYTE, 0, MPI_COMM_WORLD,
              "the broadcast of the checks");
    share_outcome(plain);
    return SHARDTAB_SUCCESS;
}

/* Test hook: JACOBI_TEST_CORRUPT=<row>:<column> (global, read at the start)
 * nudges that point of the run's result by one ulp before the comparison, so
 * that the tests can prove a single wrong bit is seen. */
static void corrupt_for_test(jacobi_job_t *j)
{
    const char *text = j->corrupt_for_test;
    long row, col;

    if (text == NULL || sscanf(text, "%ld:%ld", &row, &col) != 2)
        return;
    if (row < j->rows.start || row >= j->rows.start + j->rows.count || col < 0 || col >= j->opts.nx)
        return;
    jacobi_real_t *point = &j->result[(size_t)(row - j->rows.start) * j->opts.nx + (size_t)col];
    *point = nextafterf(*point, INFINITY);
}

/* Rank 0 sends every rank its rows of the plain reference. */
static shardtab_status_t scatter_expected(jacobi_job_t *j)
{
    MPI_Datatype row;
    int *counts = NULL, *displs = NULL, rc;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    if (j->rank == 0) {
        counts = malloc((size_t)j->size * sizeof *counts);
        displs = malloc((size_t)j->size * sizeof *displs);
        if (counts == NULL || displs == NULL)
            status = jacobi_no_memory("the row counts", 2 * (size_t)j->size * sizeof *counts);
        for (int r = 0; r < j->size && status == SHARDTAB_SUCCESS; r++) {
            jacobi_rows_t rows;
            char err[128];
            if (jacobi_split_rows(j->opts.ny, j->size, r, &rows, err, sizeof err) == 0) {
                counts[r] = rows.count;
                displs[r] = rows.start - 1;
            }
        }
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement on the row counts", 0);
    if (status == SHARDTAB_SUCCESS) {
        MPI_Type_contiguous(j->opts.nx, MPI_FLOAT, &row);
        MPI_Type_commit(&row);
        rc = app_scatterv(j->plain_rows, counts, displs, row, j->expected, j->rows.count, row, 0,
                          MPI_COMM_WORLD, "the scatter of the plain reference's rows");
        MPI_Type_free(&row);
        status = app_agree(MPI_COMM_WORLD,
                           shardtab_mpi_check(rc, "MPI_Scatterv of the plain reference's rows"),
                           "the agreement after the scatter", 0);
    }
    free(counts);
    free(displs);
    return status;
}

shardtab_status_t jacobi_verify_run(jacobi_job_t *j, const jacobi_outcome_t *run,
                                    const jacobi_outcome_t *plain, jacobi_verdict_t *v)
{
    jacobi_check_t mine, *c = &v->run;
    float pair[2];
    double worst[2];
    uint64_t sums[2], first, iter_min, iter_max;
    int flags[2];
    shardtab_status_t status =
        app_agree(MPI_COMM_WORLD, jacobi_solver_read_rows(&j->run, j->stream, j->result),
                  "the agreement after reading the run's rows", 0);

    if (status == SHARDTAB_SUCCESS)
        status = scatter_expected(j);
    if (status != SHARDTAB_SUCCESS)
        return status;
    corrupt_for_test(j);
    memset(&mine, 0, sizeof mine);
    mine.first_bad = UINT64_MAX;
    compare_points(&mine, j->result, j->expected, j->rows.start, j->rows.count, j->opts.nx);
    compare_outcome(&mine, run, plain, j->opts.nccheck);

    /* the job's check: every rank's counts, the first bad point and its owner's values */
    uint64_t local_sums[2] = {mine.points, mine.mismatches};
    const char *step = "the run's check";
    app_allreduce(local_sums, sums, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD, step);
    app_allreduce(&mine.first_bad, &first, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD, step);
    app_allreduce(&mine.iterations_min, &iter_min, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD, step);
    app_allreduce(&mine.iterations_max, &iter_max, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD, step);
    double local_worst[2] = {mine.norm_diff, (double)mine.norms};
    app_allreduce(local_worst, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, step);
    int local_flags[2] = {mine.norm_missing, 0};
    app_allreduce(local_flags, flags, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, step);
    pair[0] = mine.got;
    pair[1] = mine.want;
    if (first != UINT64_MAX) {
        int owner = mine.first_bad == first ? j->rank : j->size, root;
        app_allreduce(&owner, &root, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, step);
        app_bcast(pair, 2, MPI_FLOAT, root, MPI_COMM_WORLD, step);
    }
    c->ran = 1;
    c->points = sums[0];
    c->mismatches = sums[1];
    c->first_bad = first;
    c->got = pair[0];
    c->want = pair[1];
    c->iterations_min = iter_min;
    c->iterations_max = iter_max;
    c->iterations_want = plain->iterations;
    c->norm_diff = worst[0];
    c->norms = (int)worst[1];
    c->norm_missing = flags[0];
    settle(c);
    v->verified = c->ok && (!v->reference.ran || v->reference.ok) && (!v->cpu.ran || v->cpu.ok);
    return SHARDTAB_SUCCESS;
}

void jacobi_verify_memory(const jacobi_options_t *opts, int rank, uint64_t *host, uint64_t *device)
{
    const uint64_t plane = (uint64_t)opts->ny * (uint64_t)opts->nx * sizeof(jacobi_real_t);

    *host = 0;
    *device = 0;
    if (rank != 0)
        return;
    /* the reference's start, its final rows, the plain reference's, and a staging grid */
    *host = 4 * plane + (uint64_t)opts->ny * sizeof(double);
    /* the reference's two padded grids (the plain reference runs in them), row norms */
    *device = 2 * plane + (uint64_t)opts->ny * sizeof(double);
    if (cpu_check_runs(opts, cpu_threads()))
        *host += 2 * plane + (uint64_t)opts->ny * sizeof(double);
}
