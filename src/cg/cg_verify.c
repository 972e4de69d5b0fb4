/* cg_verify.c - the cg program's checks (cg_verify.h): x gathered to rank 0,
 * its true residual against the solve's own, and the CPU's plain CG, whose
 * iteration count and x the device's must match. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cg_verify.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bounded.h"
#include "sparse_cg.h"

uint64_t cg_fnv1a(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

shardtab_status_t cg_verify_gather_x(const cg_solver_t *s, int64_t nrows, double **whole)
{
    double *mine = malloc((size_t)(s->rows ? s->rows : 1) * sizeof(double));
    int *counts = malloc((size_t)s->size * sizeof(int)),
        *displs = malloc((size_t)s->size * sizeof(int));
    shardtab_status_t status = SHARDTAB_SUCCESS;

    *whole = s->rank == 0 ? malloc((size_t)(nrows ? nrows : 1) * sizeof(double)) : NULL;
    if (!mine || !counts || !displs || (s->rank == 0 && !*whole))
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank %d: no memory for x", s->rank);
    if (status == SHARDTAB_SUCCESS)
        status = cg_solver_solution(s, mine);
    status = app_agree(MPI_COMM_WORLD, status, "the agreement before the gather of x", 0);
    if (status == SHARDTAB_SUCCESS) {
        for (int r = 0; r < s->size; r++) {
            int64_t first, rows;
            cg_solver_rows_of(s, r, &first, &rows);
            counts[r] = (int)rows;
            displs[r] = (int)first;
        }
        MPI_Gatherv(mine, (int)s->rows, MPI_DOUBLE, *whole, counts, displs, MPI_DOUBLE, 0,
                    MPI_COMM_WORLD);
    }
    free(mine);
    free(counts);
    free(displs);
    return status;
}

shardtab_status_t cg_verify_check(const cg_options_t *opts, const sparse_csr_t *a, const double *x,
                                  const cg_outcome_t *run, cg_verdict_t *v)
{
    const int64_t n = a->nrows;
    double *b = malloc((size_t)(n ? n : 1) * sizeof(double));
    double *ax = malloc((size_t)(n ? n : 1) * sizeof(double));
    double *x_cpu = NULL, *history = NULL;
    char err[512] = "";

    if (!b || !ax) {
        free(b);
        free(ax);
        return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank 0: no memory for the check");
    }
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0;
    sparse_csr_spmv(a, x, ax);
    double rnorm = 0, bnorm = sqrt((double)n);
    for (int64_t i = 0; i < n; i++)
        rnorm += (b[i] - ax[i]) * (b[i] - ax[i]);
    v->true_relative = n ? sqrt(rnorm) / bnorm : 0.0;
    v->x_print = cg_fnv1a(CG_FNV_BASIS, x, (size_t)n * sizeof *x);
    v->history_print =
        cg_fnv1a(CG_FNV_BASIS, run->history, (size_t)run->history_len * sizeof(double));
    v->cpu_checked = cg_cpu_check_wanted(opts, a->nnz);
    v->verified = 1;
    /* a solve that ran its -niter iterations without converging (no stop of its own) */
    const int ran_out = !run->converged && !run->failed && run->iterations >= opts->niter;
    if (v->cpu_checked) {
        sparse_cg_result_t res;
        x_cpu = malloc((size_t)(n ? n : 1) * sizeof(double));
        history = malloc((size_t)(opts->niter + 1) * sizeof(double));
        if (!x_cpu || !history) {
            free(b);
            free(ax);
            free(x_cpu);
            free(history);
            return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "rank 0: no memory for the CPU's CG");
        }
        if (sparse_cg_solve(a, b, opts->tol, opts->niter, x_cpu, history, &res, err, sizeof err) !=
            0) {
            v->verified = 0;
            snprintf(v->why, sizeof v->why, "the CPU's CG failed where the device's did not: %s",
                     err);
        } else {
            double big = 0, diff = 0;
            for (int64_t i = 0; i < n; i++) {
                big = fmax(big, fabs(x_cpu[i]));
                diff = fmax(diff, fabs(x[i] - x_cpu[i]));
            }
            v->cpu_iterations = res.iterations;
            v->cpu_relative = res.relative_residual;
            v->max_diff = big > 0 ? diff / big : diff;
            sparse_csr_spmv(a, x_cpu, ax);
            double cpu_rnorm = 0;
            for (int64_t i = 0; i < n; i++)
                cpu_rnorm += (b[i] - ax[i]) * (b[i] - ax[i]);
            v->cpu_true = n ? sqrt(cpu_rnorm) / bnorm : 0.0;
            /* N6: neither converged in -niter iterations (an ill-conditioned matrix): after
             * that many, the two x have parted by rounding alone (NumPy's CG parts from
             * both), so x is judged by its true residual, within 10x of the CPU's after the
             * same iterations or of its own recursive one */
            v->unconverged =
                ran_out && res.iterations == run->iterations && res.relative_residual > opts->tol;
            /* a stop at rounding (a breakdown, or a residual so small that
             * the last bits of the two sums decide where it falls) need not
             * come at the CPU's iteration: x alone is compared then */
            const int at_rounding = run->failed == CG_FAIL_ROUNDING ||
                                    run->relative <= CG_STOP_ROUNDING ||
                                    res.relative_residual <= CG_STOP_ROUNDING;
            if (res.iterations != run->iterations && !at_rounding) {
                v->verified = 0;
                snprintf(v->why, sizeof v->why, "%" PRId64 " iterations, the CPU's CG %" PRId64,
                         run->iterations, res.iterations);
            } else if (!(v->max_diff <= CG_VERIFY_TOL) && v->unconverged &&
                       v->true_relative <= 10 * fmax(v->cpu_true, run->relative)) {
                v->parted = 1;
            } else if (!(v->max_diff <= CG_VERIFY_TOL) && v->unconverged) {
                v->verified = 0;
                snprintf(v->why, sizeof v->why,
                         "not converged in %" PRId64 " iterations, nor the CPU's CG; x differs "
                         "from its by %.3g > %g, and its true residual, %.3g, is above 10x the "
                         "CPU's after as many iterations, %.3g, and 10x the solve's own, %.3g",
                         run->iterations, v->max_diff, CG_VERIFY_TOL, v->true_relative, v->cpu_true,
                         run->relative);
            } else if (!(v->max_diff <= CG_VERIFY_TOL)) {
                v->verified = 0;
                snprintf(v->why, sizeof v->why,
                         "x differs from the CPU's CG by %.3g (max norm, relative) > %g",
                         v->max_diff, CG_VERIFY_TOL);
            }
        }
    }
    /* always: the device's x must solve the system about as well as its own
     * residual says. The recursive residual of CG, and more of pipelined CG,
     * drifts below the true one once it nears rounding (the residual gap),
     * so the bound is 10x the solve's, or CG_TRUE_RESIDUAL_FLOOR; a wrong
     * row, a stale value or a lost update leaves it far above either */
    if (v->verified && !(v->true_relative <= fmax(10 * run->relative, CG_TRUE_RESIDUAL_FLOOR))) {
        v->verified = 0;
        snprintf(v->why, sizeof v->why,
                 "the true residual of x, %.3g, is neither within 10x of the solve's own, %.3g, "
                 "nor below %g",
                 v->true_relative, run->relative, CG_TRUE_RESIDUAL_FLOOR);
    }
    free(b);
    free(ax);
    free(x_cpu);
    free(history);
    return SHARDTAB_SUCCESS;
}

shardtab_status_t cg_verify_outcome(const cg_outcome_t *run)
{
    if (run->failed == CG_FAIL_INDEFINITE)
        return shardtab_error_set(
            SHARDTAB_ERR_INVALID_ARG,
            "the matrix is not positive definite: a CG denominator "
            "((p, A p) or the pipelined one) is %g at iteration %" PRId64 "%s",
            run->denominator, run->iterations + 1,
            run->denominator == 0 ? " (the matrix is singular, or indefinite)" : "");
    if (run->failed == CG_FAIL_NONFINITE)
        return shardtab_error_set(
            SHARDTAB_ERR_INVALID_ARG,
            "the solve left double's range at iteration %" PRId64 ": the residual is %g and the "
            "last denominator %g (an entry that is not finite, or entries so small or large that "
            "CG's step overflows: scale the matrix)",
            run->iterations, run->history_len > 0 ? run->history[run->history_len - 1] : 0.0,
            run->denominator);
    if (run->failed && run->failed != CG_FAIL_ROUNDING)
        return shardtab_error_set(SHARDTAB_ERR_DEVICE,
                                  "a device wait of the solve gave up (iteration %" PRId64 ")",
                                  run->iterations);
    return SHARDTAB_SUCCESS;
}
