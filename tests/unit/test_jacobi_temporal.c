/* test_jacobi_temporal.c - the temporal passes of kernels/jacobi_temporal.h, run by the host backend's plan, against a plain loop written here: every point bit for bit and the iteration count, for runs whose length no depth divides and for a stop at every place inside a pass (the pass run again up to the stop), and the planted fault that skips that rerun caught. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jacobi_op.h"
#include "jacobi_sweep.h"

#define NX 23
#define ROWS 17 /* a rank alone: its rows periodic */
#define NITER 60

typedef struct grid {
    jacobi_real_t a[2][ROWS * NX];
    jacobi_real_t halo[2][2 * NX];
    jacobi_ctl_t ctl;
    double history[NITER + 1];
} grid_t;

/* A start no symmetry hides a wrong point in: the interior drawn, the fixed
 * columns 1 and 0.5. */
static void start(jacobi_real_t *a)
{
    uint32_t x = 12345u;
    for (int y = 0; y < ROWS; y++)
        for (int c = 0; c < NX; c++) {
            x = x * 1664525u + 1013904223u;
            a[y * NX + c] = c == 0 ? 1.0f : c == NX - 1 ? 0.5f : (float)(x >> 8) / 16777216.0f;
        }
}

/* The plain loop: iteration after iteration over the periodic rows; the norm
 * of k - 1 decides after k (jacobi_op.h's rule, nccheck 1). Returns the
 * iterations run; out gets the state; norms[k] the norm of k. */
static int plain(double tol, int niter, jacobi_real_t *out, double *norms)
{
    static jacobi_real_t a[2][ROWS * NX];
    double pending = 0.0;
    int k;

    start(a[0]);
    memcpy(a[1], a[0], sizeof a[0]);
    for (k = 0; k < niter; k++) {
        const jacobi_real_t *in = a[k & 1];
        jacobi_real_t *nx_ = a[(k & 1) ^ 1];
        double norm2 = 0.0;
        for (int y = 0; y < ROWS; y++)
            for (int c = 1; c < NX - 1; c++) {
                jacobi_real_t v = jacobi_value(in[y * NX + c - 1], in[y * NX + c + 1],
                                               in[((y + ROWS - 1) % ROWS) * NX + c],
                                               in[((y + 1) % ROWS) * NX + c]);
                nx_[y * NX + c] = v;
                norm2 += jacobi_residue2(v, in[y * NX + c]);
            }
        int stop = jacobi_stops_after(0, 1, (uint64_t)k, pending, tol);
        pending = sqrt(norm2);
        if (norms)
            norms[k] = pending;
        if (stop) {
            k++;
            break;
        }
    }
    memcpy(out, a[k & 1], sizeof a[0]);
    return k;
}

/* The same through the host backend's temporal plan; returns the iterations
 * it ran, out the state in a[iteration & 1]. */
static int temporal(double tol, int niter, int depth, int fault, jacobi_real_t *out)
{
    static grid_t g;
    jacobi_step_t s;
    jacobi_tuning_t tuning = JACOBI_TUNING_DEFAULTS;
    jacobi_plan_t *plan = NULL;
    char why[200];

    memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s);
    start(g.a[0]);
    memcpy(g.a[1], g.a[0], sizeof g.a[0]);
    g.ctl.stop_at = JACOBI_NO_STOP;
    g.ctl.norm_iter = JACOBI_NO_NORM;
    for (int p = 0; p < 2; p++) {
        s.a[p] = g.a[p];
        s.halo[p] = g.halo[p];
        s.top_dest[p] = g.halo[p] + NX; /* a rank alone: its first row is its own ghost row below */
        s.bottom_dest[p] = g.halo[p];
    }
    s.nx = NX;
    s.rows = ROWS;
    s.top_peer = s.bottom_peer = -1;
    s.device_sync = 1;
    s.device_norm = 1;
    s.nccheck = 1;
    s.tol = tol;
    s.history = g.history;
    s.history_len = NITER + 1;
    s.ctl = &g.ctl;
    s.fault.kind = fault;
    tuning.temporal_depth = depth;
    assert_int_equal(jacobi_plan_create(&s, &tuning, JACOBI_LAUNCH_TEMPORAL, NULL, &plan, why, sizeof why), 0);
    assert_int_equal(jacobi_plan_run(plan, niter), 0);
    jacobi_plan_destroy(plan);
    assert_int_equal(g.ctl.failed, 0);
    assert_int_equal(g.ctl.redo, 0);
    memcpy(out, g.a[g.ctl.iteration & 1], sizeof g.a[0]);
    return (int)g.ctl.iteration;
}

/* Points compared as bits: the same float, not a close one. */
static int same_bits(const jacobi_real_t *x, const jacobi_real_t *y)
{
    return memcmp(x, y, sizeof(jacobi_real_t) * ROWS * NX) == 0;
}

/* Every depth, runs of every length up to 3 passes: a last pass shorter, and
 * an even remainder run as a pass one shorter and a pass of one. */
static void test_runs_of_every_length_equal_the_plain_loop(void **state)
{
    static jacobi_real_t want[ROWS * NX], got[ROWS * NX];
    (void)state;
    for (int depth = 1; depth <= 7; depth += 2)
        for (int niter = 1; niter <= 3 * depth + 1; niter++) {
            assert_int_equal(plain(0.0, niter, want, NULL), niter);
            assert_int_equal(temporal(0.0, niter, depth, JACOBI_FAULT_NONE, got), niter);
            assert_true(same_bits(want, got));
        }
}

/* A stop at every place inside a pass: tol between two of the plain loop's
 * norms (so that the order of a sum's additions cannot move it), the stop
 * one iteration after the norm falls below it. */
static void test_a_stop_inside_a_pass_returns_the_state_at_the_stop(void **state)
{
    static jacobi_real_t want[ROWS * NX], got[ROWS * NX];
    double norms[NITER];
    (void)state;
    plain(0.0, NITER, want, norms);
    for (int j = 0; j + 1 < NITER; j++)
        assert_true(norms[j + 1] < norms[j]); /* falling: each tol below stops once */
    for (int depth = 3; depth <= 7; depth += 2)
        for (int j = 10; j < 10 + 2 * depth; j++) {
            double tol = 0.5 * (norms[j] + norms[j + 1]);
            int n = plain(tol, NITER, want, NULL);
            assert_int_equal(n, j + 3); /* norm j + 1 falls below; the stop after j + 2 */
            assert_int_equal(temporal(tol, NITER, depth, JACOBI_FAULT_NONE, got), n);
            assert_true(same_bits(want, got));
        }
}

/* The planted fault skips the rerun: the iteration count is right, the state
 * is the pass's end, and the comparison sees it. */
static void test_a_skipped_rerun_is_caught(void **state)
{
    static jacobi_real_t want[ROWS * NX], got[ROWS * NX];
    double norms[NITER];
    int caught = 0;
    (void)state;
    plain(0.0, NITER, want, norms);
    for (int j = 10; j < 15; j++) {
        double tol = 0.5 * (norms[j] + norms[j + 1]);
        int n = plain(tol, NITER, want, NULL);
        assert_int_equal(temporal(tol, NITER, 5, JACOBI_FAULT_LAG, got), n);
        caught += !same_bits(want, got);
    }
    assert_int_equal(caught, 4); /* a stop at each place but a pass's last */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_of_every_length_equal_the_plain_loop),
        cmocka_unit_test(test_a_stop_inside_a_pass_returns_the_state_at_the_stop),
        cmocka_unit_test(test_a_skipped_rerun_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
