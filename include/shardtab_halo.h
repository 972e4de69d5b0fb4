/** @file
 * shardtab_halo.h - halo exchange over a table: every rank's block of a 1-D,
 * 2-D or 3-D grid, its ghost cells filled from its neighbours' blocks.
 *
 * The ranks of the table's communicator form a process grid of grid[0] x
 * grid[1] x grid[2] ranks, comm rank r at coordinates (r % grid[0],
 * r / grid[0] % grid[1], r / (grid[0] * grid[1])): axis 0 varies fastest, as
 * MPI_Cart_create's last dimension does with the axes reversed. Each rank
 * owns a block of block[a] cells along axis a, stored with ghost[a] ghost
 * cells on each side in its shard: cell (i0, i1, i2), each i_a in [0,
 * block[a] + 2 ghost[a]), at byte offset + (i0 stride[0] + i1 stride[1] +
 * i2 stride[2]) elem_bytes; interior cells have i_a in [ghost[a], ghost[a] +
 * block[a]). A C array double u[nz + 2g][ny + 2g][nx + 2g] is packed with
 * axis 0 = x; a Fortran array u(1-g:nx+g, 1-g:ny+g, 1-g:nz+g) likewise.
 *
 * An exchange fills every ghost cell that has a neighbour (across a
 * periodic axis's ends too; at a non-periodic end the ghost cells stay as
 * they are) with the neighbour's interior cell at that place: the faces,
 * and with `corners` the edges and corners too (the 9- and 27-point
 * stencils' ghosts). Inside a node each rank reads its neighbours' blocks
 * through the table and writes only its own ghost cells; to a neighbour on
 * another node the cells go through MPI, staged through the host.
 *
 *     shardtab_halo_params_t hp = {0};
 *     hp.dims = 2;  hp.grid[0] = 2;  hp.grid[1] = size / 2;
 *     hp.block[0] = nx;  hp.block[1] = ny;  hp.ghost[0] = hp.ghost[1] = 1;
 *     hp.elem_bytes = sizeof(double);                  // strides 0: packed
 *     shardtab_halo_create(table, &hp, &halo);
 *     for (it = 0; it < n; it++) {
 *         shardtab_halo_exchange(halo, stream);         // ghosts from the neighbours
 *         sweep<<<..., stream>>>(u, unew);              // reads them, writes the interior
 *         ...
 *     }
 *     shardtab_halo_destroy(&halo);
 *
 * A halo exchange is a collective over the table's communicator: every rank
 * calls it, in the same order as the table's other collectives. The ranks'
 * blocks may differ in size (a grid of uneven cuts) as long as two ranks that
 * share a face agree on its extent; everything else (dims, grid, periodic,
 * ghost, elem_bytes, corners) is the same on every rank. A kernel that owns
 * its iterations exchanges without leaving the device: shardtab_halo_device.h,
 * shardtab_halo_exchange_block.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_HALO_H
#define SHARDTAB_HALO_H

#include <stddef.h>

#include "shardtab.h"
#include "shardtab/halo_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A halo exchange over a table (opaque). */
typedef struct shardtab_halo shardtab_halo_t;

/** shardtab_halo_create's decomposition; axes past dims are ignored. */
typedef struct shardtab_halo_params {
    int dims;                             /**< 1, 2 or 3 */
    int grid[SHARDTAB_HALO_MAX_DIMS];     /**< ranks along each axis; their product is the
                                             communicator's size */
    int periodic[SHARDTAB_HALO_MAX_DIMS]; /**< nonzero: the axis wraps around */
    size_t block[SHARDTAB_HALO_MAX_DIMS]; /**< this rank's interior cells along each axis
                                               (at least 1) */
    size_t ghost[SHARDTAB_HALO_MAX_DIMS]; /**< ghost cells on each side (0: the axis is
                                               not exchanged); at most every neighbour's
                                               block along that axis */
    size_t elem_bytes;                    /**< bytes of one cell (at least 1) */
    size_t offset; /**< byte offset of cell (0, 0, 0), a ghost cell, in this rank's shard */
    size_t stride[SHARDTAB_HALO_MAX_DIMS]; /**< cells between neighbours along each axis;
                                                all 0: packed (1, then each axis's
                                                extent times the last) */
    int corners; /**< nonzero: edges and corners too, not only the faces */
} shardtab_halo_params_t;

/** @name The halo (collective over the table's communicator)
 * @{ */

/** Makes a halo exchange over the table for the decomposition in params.
 * Refused on every rank, with one message naming the first rank and rule
 * broken (SHARDTAB_ERR_INVALID_ARG), when: dims is not 1 to 3; the grid's
 * product is not the communicator's size; a block is 0; a ghost is wider
 * than a neighbour's block; two neighbours disagree on a shared face; the
 * strides make two cells overlap; the cells run past the shard; or the
 * ranks' dims, grid, periodic, ghost, elem_bytes or corners differ. The
 * table stays live and usable. */
shardtab_status_t shardtab_halo_create(shardtab_t *table, const shardtab_halo_params_t *params,
                                       shardtab_halo_t **halo);
/** Fills every ghost cell that has a neighbour from that neighbour's
 * interior. Enqueued on stream after the table's last barrier or
 * collective; the host backend runs it now. Pushed (shardtab_halo_form):
 * one kernel (one block; by put above 64 KiB a block a slice), each rank storing its cells
 * into its neighbours' inboxes (as LL words, or by put with a flag a slice) and taking
 * its own, one way, with no barrier (a rank that calls something else
 * instead leaves its neighbours' waits to give up at the table's limit).
 * Pulled: a grid between two node
 * barriers of the library's collective (a rank whose call differs stops
 * the node, as shardtab_all_reduce's check). With
 * neighbours on other nodes it is host-synchronous (the stream's work first,
 * then MPI, each step bounded as the collectives' are) and returns once
 * every ghost cell is in place. */
shardtab_status_t shardtab_halo_exchange(shardtab_halo_t *halo, shardtab_stream_t stream);
/** Frees the halo (its descriptors, staging buffers and inboxes) once its
 * last exchange has run (it waits for that exchange's stream); sets *halo to
 * NULL. Collective: a pushed halo's inboxes are a table of their own, which
 * every rank destroys (shardtab_destroy's bounded wait), so every rank
 * destroys its halos in the order it made them. Destroy a halo before its
 * table, and before the stream of its last exchange. NULL or *halo NULL:
 * nothing to do. */
shardtab_status_t shardtab_halo_destroy(shardtab_halo_t **halo);
/** @} */

/** @name What a halo is (local)
 * @{ */

/** The comm rank of the neighbour at offset (d0, d1, d2), each -1, 0 or 1,
 * from this rank (axes past dims: 0); -1 where there is none (a
 * non-periodic end) or the offset is not one. */
int shardtab_halo_neighbor(const shardtab_halo_t *halo, int d0, int d1, int d2);
/** This rank's coordinate along axis (0 to 2), -1 for another axis. */
int shardtab_halo_coord(const shardtab_halo_t *halo, int axis);
/** How the halo's cells move inside the node, the same on every rank (enum
 * shardtab_halo_form, shardtab/halo_types.h): SHARDTAB_HALO_PUSHED_LL (1)
 * where every rank's cells are whole 4-byte words at 4-byte aligned places
 * and its ghost cells at most 8 KiB; SHARDTAB_HALO_PUSHED_PUT (2) where
 * they are otherwise at most 1 MiB a rank; SHARDTAB_HALO_PULLED (0)
 * between two node barriers above; -1 for NULL. */
int shardtab_halo_form(const shardtab_halo_t *halo);
/** 1 where the halo's cells inside the node are pushed into the neighbours'
 * inboxes (either pushed form), 0 where they are pulled, -1 for NULL. */
int shardtab_halo_pushed(const shardtab_halo_t *halo);
/** The halo's descriptor for shardtab_halo_exchange_block in a kernel
 * (shardtab_halo_device.h); valid until the halo is destroyed. Refused
 * (SHARDTAB_ERR_UNSUPPORTED) on every rank when the table spans nodes: a
 * kernel cannot reach another node. */
shardtab_status_t shardtab_halo_device(const shardtab_halo_t *halo, shardtab_halo_device_t *dev);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SHARDTAB_HALO_H */
