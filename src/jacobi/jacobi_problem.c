/* jacobi_problem.c - the starting state of the jacobi problem, computed on the
 * host from the global coordinates alone (no sequence to replay), so that any
 * rank fills its own rows and ghost rows and gets what a 1-rank run has. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_problem.h"

#include <math.h>

static const float jacobi_pi = 3.14159265358979323846f; /* as the anchors: a float pi */

/* splitmix64's finaliser: every input bit moves every output bit */
static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

jacobi_real_t jacobi_initial_value(const jacobi_init_t *init, int nx, int ny, int row, int col)
{
    if (col == 0 || col == nx - 1) {
        double y = 2.0 * (double)jacobi_pi * (double)row / (double)(ny - 1);
        return (jacobi_real_t)sin(y);
    }
    if (init->kind != JACOBI_INIT_RANDOM)
        return 0;
    /* 24 random bits: a float in [-1, 1) with every mantissa bit in play, exact */
    uint64_t bits = mix(init->seed ^ mix(((uint64_t)(uint32_t)row << 32) | (uint32_t)col)) >> 40;
    return (jacobi_real_t)((double)bits / 8388608.0 - 1.0);
}

void jacobi_initial_rows(const jacobi_init_t *init, int nx, int ny, int start, int rows,
                         jacobi_real_t *out)
{
    for (int r = 0; r < rows; r++)
        for (int x = 0; x < nx; x++)
            out[(size_t)r * nx + x] = jacobi_initial_value(init, nx, ny, start + r, x);
}

int jacobi_periodic_row(int ny, int r)
{
    const int m = (r - 1) % (ny - 2);
    return 1 + (m < 0 ? m + ny - 2 : m);
}
