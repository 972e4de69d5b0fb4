/* jacobi_problem.h - the problem's starting state as a pure function of the
 * global point, the same bits on every backend and for any split of the rows:
 * the boundary columns sin(2 pi y / (ny - 1)), the interior zero or drawn from
 * a seeded generator; and the periodic wrap of the rows. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_PROBLEM_H
#define JACOBI_PROBLEM_H

#include "jacobi_options.h"
#include "jacobi_sweep.h"

/* Point (row, col) of the start, row 1 the first interior row, row ny - 2 the last. */
jacobi_real_t jacobi_initial_value(const jacobi_init_t *init, int nx, int ny, int row, int col);
/* Rows [start, start + rows) of the start into out (rows x nx). */
void jacobi_initial_rows(const jacobi_init_t *init, int nx, int ny, int start, int rows,
                         jacobi_real_t *out);
/* The interior row that row r (any integer) stands for: the interior rows are
 * periodic, so the ghost row above row 1 (r = 0) is row ny - 2, the one below
 * row ny - 2 is row 1, and a temporal pass's deeper ghost rows wrap on alike. */
int jacobi_periodic_row(int ny, int r);

#endif /* JACOBI_PROBLEM_H */
