/* test_jacobi_temporal.c - the temporal passes of kernels/jacobi/jacobi_temporal.h, run by the host backend's plan, against a plain loop written here: every point bit for bit, the iteration count and every decided norm, for runs no depth divides, a stop at every place inside a pass (the pass run again up to the stop), the norm every few iterations, a second solve on the same state, a run in several calls, a grid narrower than a tile; the planted fault that skips the rerun caught; and the GPU plan's cut of the tiles, their height and the exchange buffer a block shares. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jacobi_cut.h"   /* the temporal cut */
#include "jacobi_hooks.h" /* JACOBI_CHUNK_STEPS */
#include "jacobi_op.h"
#include "jacobi_plan.h" /* jacobi_plan_create */
#include "jacobi_sweep.h"
#include "jacobi_temporal.h"

#define NX_MAX 23
#define ROWS 17   /* a rank alone: its rows periodic */
#define NITER 200 /* past the second chunk of passes of 3 (jacobi_hooks.h's JACOBI_CHUNK_STEPS) */

typedef struct grid {
    jacobi_real_t a[2][ROWS * NX_MAX];
    jacobi_real_t halo[2][2 * NX_MAX];
    jacobi_ctl_t ctl;
    double history[NITER + 1];
} grid_t;

/* What a solve is asked: the grid's width, the rule's tolerance and norm
 * interval, the most iterations, the passes' depth, a planted fault; and in
 * how many calls of the plan the iterations are asked for. */
typedef struct run {
    int nx;
    double tol;
    int nccheck, niter, depth, fault, calls;
} run_t;

/* A start no symmetry hides a wrong point in: the interior drawn, the fixed
 * columns 1 and 0.5. */
static void start(jacobi_real_t *a, int nx)
{
    uint32_t x = 12345u;
    for (int y = 0; y < ROWS; y++)
        for (int c = 0; c < nx; c++) {
            x = x * 1664525u + 1013904223u;
            a[y * nx + c] = c == 0 ? 1.0f : c == nx - 1 ? 0.5f : (float)(x >> 8) / 16777216.0f;
        }
}

/* The plain loop: iteration after iteration over the periodic rows; after k,
 * the norm of the last norm iteration decides (jacobi_op.h's rule). Returns
 * the iterations run; out gets the state, norms[k] the norm of k (norm
 * iterations only). */
static int plain(const run_t *w, jacobi_real_t *out, double *norms)
{
    static jacobi_real_t a[2][ROWS * NX_MAX];
    const int nx = w->nx;
    double pending = 0.0;
    int k;

    start(a[0], nx);
    memcpy(a[1], a[0], sizeof a[0]);
    for (k = 0; k < w->niter; k++) {
        const jacobi_real_t *in = a[k & 1];
        jacobi_real_t *to = a[(k & 1) ^ 1];
        double norm2 = 0.0;
        for (int y = 0; y < ROWS; y++)
            for (int c = 1; c < nx - 1; c++) {
                jacobi_real_t v = jacobi_value(in[y * nx + c - 1], in[y * nx + c + 1],
                                               in[((y + ROWS - 1) % ROWS) * nx + c],
                                               in[((y + 1) % ROWS) * nx + c]);
                to[y * nx + c] = v;
                norm2 += jacobi_residue2(v, in[y * nx + c]);
            }
        int stop = jacobi_stops_after(0, w->nccheck, (uint64_t)k, pending, w->tol);
        if (jacobi_norm_iteration(0, w->nccheck, (uint64_t)k)) {
            pending = sqrt(norm2);
            if (norms)
                norms[k] = pending;
        }
        if (stop) {
            k++;
            break;
        }
    }
    memcpy(out, a[k & 1], (size_t)ROWS * (size_t)nx * sizeof(jacobi_real_t));
    return k;
}

/* One solve from the start, on g (whose ctl carries the iteration count of
 * earlier solves, as the solver's does), through the host backend's temporal
 * plan. Returns the iterations it ran; out gets the state in a[iteration & 1]. */
static int temporal_solve(grid_t *g, const run_t *w, jacobi_real_t *out)
{
    jacobi_step_t s;
    jacobi_tuning_t tuning = JACOBI_TUNING_DEFAULTS;
    jacobi_plan_t *plan = NULL;
    char why[200];
    const int nx = w->nx;

    memset(&s, 0, sizeof s);
    memset(g->a, 0, sizeof g->a);
    memset(g->halo, 0, sizeof g->halo);
    memset(g->history, 0, sizeof g->history);
    start(g->a[0], nx);
    memcpy(g->a[1], g->a[0], sizeof g->a[0]);
    /* the solver's reset: the count kept, the rest as new */
    g->ctl.base = g->ctl.iteration;
    g->ctl.stop_at = JACOBI_NO_STOP;
    g->ctl.failed = 0;
    g->ctl.norm_iter = JACOBI_NO_NORM;
    g->ctl.norm = 0.0;
    g->ctl.redo = 0;
    for (int p = 0; p < 2; p++) {
        s.a[p] = g->a[p];
        s.halo[p] = g->halo[p];
        s.top_dest[p] =
            g->halo[p] + nx; /* a rank alone: its first row is its own ghost row below */
        s.bottom_dest[p] = g->halo[p];
    }
    s.nx = nx;
    s.rows = ROWS;
    s.top_peer = s.bottom_peer = -1;
    s.device_sync = 1;
    s.device_norm = 1;
    s.nccheck = w->nccheck;
    s.tol = w->tol;
    s.history = g->history;
    s.history_len = jacobi_history_len(w->niter, w->nccheck);
    s.ctl = &g->ctl;
    s.fault.kind = w->fault;
    tuning.temporal_depth = w->depth;
    assert_int_equal(
        jacobi_plan_create(&s, &tuning, JACOBI_LAUNCH_TEMPORAL, NULL, &plan, why, sizeof why), 0);
    for (int c = 0, left = w->niter; c < w->calls; c++) {
        int n = c + 1 == w->calls ? left : w->niter / w->calls;
        assert_int_equal(jacobi_plan_run(plan, n), 0);
        left -= n;
    }
    jacobi_plan_destroy(plan);
    assert_int_equal(g->ctl.failed, 0);
    assert_int_equal(g->ctl.redo, 0);
    memcpy(out, g->a[g->ctl.iteration & 1], (size_t)ROWS * (size_t)nx * sizeof(jacobi_real_t));
    return (int)(g->ctl.iteration - g->ctl.base);
}

/* Points compared as bits: the same float, not a close one. */
static int same_bits(const jacobi_real_t *x, const jacobi_real_t *y, int nx)
{
    return memcmp(x, y, sizeof(jacobi_real_t) * ROWS * (size_t)nx) == 0;
}

/* One solve both ways: the same iterations, points, and decided norms (every
 * one the history holds, and the last, within a sum's reordering). */
static void check(const run_t *w)
{
    static grid_t g;
    static jacobi_real_t want[ROWS * NX_MAX], got[ROWS * NX_MAX];
    double norms[NITER];
    int n = plain(w, want, norms);

    memset(&g, 0, sizeof g);
    for (int solve = 0; solve < 2; solve++) { /* the second on the first's count (base != 0) */
        assert_int_equal(temporal_solve(&g, w, got), n);
        assert_true(same_bits(want, got, w->nx));
        for (int j = 0; j + 1 < n; j++) {
            int slot = jacobi_history_slot((uint64_t)j, w->nccheck,
                                           jacobi_history_len(w->niter, w->nccheck));
            if (slot >= 0 && jacobi_decision_iteration(0, w->nccheck, (uint64_t)j + 1))
                assert_true(fabs(g.history[slot] - norms[j]) <= 1e-12 * norms[j]);
        }
        if (n > 1) {
            const uint64_t last = g.ctl.norm_iter - g.ctl.base;
            assert_true(g.ctl.norm_iter != JACOBI_NO_NORM && last + 1 < (uint64_t)n + 1);
            assert_true(fabs(g.ctl.norm - norms[last]) <= 1e-12 * norms[last]);
        }
    }
}

/* Every depth, runs of every length up to 3 passes: a last pass shorter, and
 * an even remainder run as a pass one shorter and a pass of one. */
static void test_runs_of_every_length_equal_the_plain_loop(void **state)
{
    (void)state;
    for (int depth = 1; depth <= 7; depth += 2)
        for (int niter = 1; niter <= 3 * depth + 1; niter++)
            check(&(run_t){NX_MAX, 0.0, 1, niter, depth, JACOBI_FAULT_NONE, 1});
}

/* tol between two of the plain loop's norms (so that the order of a sum's
 * additions cannot move the stop): the norm at iteration j + 1 falls below it. */
static double tol_below(int j, int nccheck)
{
    static double norms[NITER];
    static jacobi_real_t scratch[ROWS * NX_MAX];
    (void)plain(&(run_t){NX_MAX, 0.0, nccheck, NITER, 1, JACOBI_FAULT_NONE, 1}, scratch, norms);
    return 0.5 * (norms[j] + norms[j + nccheck]);
}

/* A stop at every place inside a pass, the norm every iteration and every 3rd. */
static void test_a_stop_inside_a_pass_returns_the_state_at_the_stop(void **state)
{
    static jacobi_real_t want[ROWS * NX_MAX];
    double norms[NITER];
    (void)state;
    plain(&(run_t){NX_MAX, 0.0, 1, NITER, 1, JACOBI_FAULT_NONE, 1}, want, norms);
    for (int j = 0; j + 1 < NITER; j++)
        assert_true(norms[j + 1] < norms[j]); /* falling: each tol below stops once */
    for (int depth = 3; depth <= 7; depth += 2)
        for (int j = 10; j < 10 + 2 * depth; j++) {
            const run_t w = {NX_MAX, tol_below(j, 1), 1, NITER, depth, JACOBI_FAULT_NONE, 1};
            assert_int_equal(plain(&w, want, NULL),
                             j + 3); /* norm j + 1 below; the stop after j + 2 */
            check(&w);
        }
    for (int depth = 3; depth <= 7; depth += 2)
        for (int j = 9; j < 9 + 3 * depth; j += 3)
            check(&(run_t){NX_MAX, tol_below(j, 3), 3, NITER, depth, JACOBI_FAULT_NONE, 1});
}

/* A stop inside the last pass of a paced chunk: the pass must be run again
 * in the next chunk, which the plan enqueues after it has seen the stop.
 * Passes of 3, chunks of JACOBI_CHUNK_STEPS passes: the second chunk's last
 * pass runs iterations 189 to 191; the stop after 189 or 190 falls inside it. */
static void test_a_stop_in_a_chunks_last_pass_is_run_again(void **state)
{
    (void)state;
    const int last = (2 * JACOBI_CHUNK_STEPS - 1) * 3;
    for (int stop = last; stop < last + 2; stop++) {
        const run_t w = {NX_MAX, tol_below(stop - 2, 1), 1, NITER, 3, JACOBI_FAULT_NONE, 1};
        static jacobi_real_t want[ROWS * NX_MAX];
        assert_int_equal(plain(&w, want, NULL), stop + 1);
        check(&w);
    }
}

/* The iterations asked in several calls of the plan (a pass cut at each
 * call's end), and a grid narrower than one tile (the halo clipped at both
 * fixed columns). */
static void test_runs_in_several_calls_and_narrow_grids(void **state)
{
    (void)state;
    for (int calls = 2; calls <= 4; calls++)
        check(&(run_t){NX_MAX, tol_below(30, 1), 1, NITER, 7, JACOBI_FAULT_NONE, calls});
    for (int nx = 3; nx <= 9; nx++)
        for (int depth = 1; depth <= 7; depth += 2)
            check(&(run_t){nx, 0.0, 1, 25, depth, JACOBI_FAULT_NONE, 1});
}

/* The planted fault skips the rerun: the iteration count is right, the state
 * is the pass's end, and the comparison sees it. */
static void test_a_skipped_rerun_is_caught(void **state)
{
    static grid_t g;
    static jacobi_real_t want[ROWS * NX_MAX], got[ROWS * NX_MAX];
    int caught = 0;
    (void)state;
    for (int j = 10; j < 15; j++) {
        const run_t w = {NX_MAX, tol_below(j, 1), 1, NITER, 5, JACOBI_FAULT_LAG, 1};
        int n = plain(&w, want, NULL);
        memset(&g, 0, sizeof g);
        assert_int_equal(temporal_solve(&g, &w, got), n);
        caught += !same_bits(want, got, NX_MAX);
    }
    assert_int_equal(caught, 4); /* a stop at each place but a pass's last */
}

/* The cut the GPU plan makes (jacobi_temporal_cut): 256 - 2 D columns (a
 * thread a local column of a 256-thread block) and the rows asked, at most
 * the rank's; the tiles cover the rank's interior columns and rows exactly;
 * the exchange buffer a block shares is 2 D lanes of 258 values, whatever
 * the rows (14 KB at D = 7: an MI250X GCD gives a workgroup 64 KB). */
static void test_the_cut_covers_the_rank(void **state)
{
    static const struct {
        int depth, rows, rank_rows, want_rows;
    } cases[] = {{7, 128, 8191, 128},
                 {7, 512, 8191, 512},
                 {1, 64, 8191, 64},
                 {3, 4096, 1000, 1000},
                 {5, 7, 7, 7}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jacobi_step_t s;
        memset(&s, 0, sizeof s);
        s.nx = 16384;
        s.rows = cases[i].rank_rows;
        jacobi_temporal_cut(&s, cases[i].depth, 256 - 2 * cases[i].depth, cases[i].rows);
        assert_int_equal(jacobi_temporal_buffer_values(&s), 2 * (size_t)cases[i].depth * 258);
        assert_true(jacobi_temporal_buffer_values(&s) * sizeof(jacobi_real_t) <= 64 * 1024);
        assert_int_equal(s.temporal_rows, cases[i].want_rows);
        assert_int_equal(jacobi_temporal_pitch(&s), 256);
        assert_true((long)s.temporal_tiles_x * s.temporal_cols >= s.nx - 2);
        assert_true((long)(s.temporal_tiles_x - 1) * s.temporal_cols < s.nx - 2);
        assert_true((long)s.temporal_tiles_y * s.temporal_rows >= s.rows);
        assert_true((long)(s.temporal_tiles_y - 1) * s.temporal_rows < s.rows);
    }
}

/* The tile's height where the tuning leaves it to the GPU plan
 * (jacobi_temporal_auto_rows): on an H200 (132 multiprocessors, 3 blocks
 * each), near the heights measured best (256, 128 and 64 own rows at
 * 16384^2, 8192^2 and 4096^2, docs/performance.md), growing with the grid, never below 64
 * (2048^2 and smaller: the halo's rows cost more than the last wave's idle
 * time) nor above 4096. */
static void test_the_plans_tile_height_follows_the_grid(void **state)
{
    static const struct {
        int n, lo, hi;
    } cases[] = {
        {16384, 200, 320}, {8192, 100, 160}, {4096, 64, 80}, {2048, 64, 64}, {1024, 64, 64}};
    int last = 0;
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jacobi_step_t s;
        memset(&s, 0, sizeof s);
        s.nx = cases[i].n;
        s.rows = cases[i].n - 2;
        const int rows = jacobi_temporal_auto_rows(&s, 7, 242, 3 * 132);
        if (rows < cases[i].lo || rows > cases[i].hi)
            fail_msg("%d^2: %d rows, want %d to %d", cases[i].n, rows, cases[i].lo, cases[i].hi);
        assert_true(last == 0 || rows <= last); /* the larger grid, the taller tile */
        last = rows;
    }
    jacobi_step_t huge;
    memset(&huge, 0, sizeof huge);
    huge.nx = 1 << 20;
    huge.rows = 1 << 20;
    assert_int_equal(jacobi_temporal_auto_rows(&huge, 7, 242, 1), 4096);
    assert_int_equal(jacobi_temporal_auto_rows(&huge, 7, 242, 0),
                     4096); /* no device count: no division by 0 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_of_every_length_equal_the_plain_loop),
        cmocka_unit_test(test_a_stop_inside_a_pass_returns_the_state_at_the_stop),
        cmocka_unit_test(test_a_stop_in_a_chunks_last_pass_is_run_again),
        cmocka_unit_test(test_runs_in_several_calls_and_narrow_grids),
        cmocka_unit_test(test_a_skipped_rerun_is_caught),
        cmocka_unit_test(test_the_cut_covers_the_rank),
        cmocka_unit_test(test_the_plans_tile_height_follows_the_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
