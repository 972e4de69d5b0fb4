/* jacobi_cut.h - how the jacobi program's plans cut a rank's rows into tiles
 * (jacobi_cut.c), for the backends' sizing hooks (jacobi_hooks.h), which
 * call them with what they measured of the device. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_CUT_H
#define JACOBI_CUT_H

#include "jacobi_sweep.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cuts the rows into tiles for a grid of about `blocks` blocks: blocks_x
 * along x (set), strips of at least min_rows rows (JACOBI_MIN_STRIP_ROWS:
 * shorter strips cost more in partial sums than they gain). */
void jacobi_step_cut(jacobi_step_t *s, int blocks, int min_rows);
/* The on-chip cut: `tiles` tiles of at most `rows` whole rows, `warps`
 * partial sums a tile, and the time a tile's wait gives up after. */
void jacobi_onchip_cut(jacobi_step_t *s, int tiles, int rows, int warps);
/* The tile a temporal plan cuts for depth (odd, 1 to JACOBI_TEMPORAL_MAX_DEPTH):
 * cols x rows own points (rows: at most the rank's); the tiles that cover the
 * rank. (What a block shares, jacobi_temporal_buffer_values, does not depend
 * on the rows: 14 KB for 256 threads at depth 7, static in the GPU kernel.) */
void jacobi_temporal_cut(jacobi_step_t *s, int depth, int cols, int rows);
/* The own rows a temporal tile streams where the tuning leaves it to the
 * plan, with blocks_at_once blocks resident (jacobi_cut.c says why). */
int jacobi_temporal_auto_rows(const jacobi_step_t *s, int depth, int cols, long blocks_at_once);

#ifdef __cplusplus
}
#endif

#endif /* JACOBI_CUT_H */
