/** @file
 * shardtab_faces.h - direct faces: ghost faces kept in every rank's shard,
 * double-buffered, which each neighbour stores into itself as its kernel
 * computes them, and which go through MPI where the neighbour is on another
 * node.
 *
 * shardtab_halo.h copies a block's faces after the kernel that made them.
 * A stencil that owns its iterations can do better: the thread that
 * computes an edge cell stores it, the same instruction, into the
 * neighbour's ghost face, then tells the neighbour (shardtab_device.h's
 * signals); no copy, no launch. This header gives such a solver the places:
 * for every face of a 1-D, 2-D or 3-D process grid, where this rank's
 * ghost face is, where its own face goes in the neighbour's shard (through
 * the table), which neighbour that is and whether it is reached through
 * the table or through MPI; and the exchange of the faces that cross nodes.
 *
 * The process grid is shardtab_halo.h's: grid[0] x grid[1] x grid[2] ranks,
 * comm rank r at (r % grid[0], r / grid[0] % grid[1], r / (grid[0] grid[1])).
 * Each axis a with face_bytes[a] > 0 has two ghost faces on every rank:
 * side 0, the low one, filled by the neighbour at coordinate - 1 with its
 * high face; side 1, the high one, filled by the neighbour at + 1 with its
 * low face. A face is face_bytes[a] contiguous bytes; the solver decides
 * what they hold (a row of doubles, a plane packed, LL words). Every face
 * is held in `parities` buffers (1 or 2), so that a neighbour can write
 * iteration k + 1's face while this rank still reads k's. In the shard, the
 * faces of parity p, axis a, side s lie at byte
 *
 *     offset + p F + 2 (face_bytes[0] + ... + face_bytes[a - 1]) + s face_bytes[a],
 *     F = 2 (face_bytes[0] + ... + face_bytes[dims - 1]),
 *
 * (shardtab_faces_offset), the same layout on every rank.
 *
 *     shardtab_faces_params_t fp = {0};
 *     fp.dims = 1;  fp.grid[0] = size;  fp.periodic[0] = 1;
 *     fp.face_bytes[0] = nx * sizeof(float);  fp.parities = 2;
 *     shardtab_faces_create(table, &fp, &faces);
 *     up = shardtab_faces_dest(faces, 0, 0, p);     // my first row, as my upper
 *                                                   // neighbour's ghost row below
 *     ghost_above = shardtab_faces_ghost(faces, 0, 0, p);
 *     ... in the kernel: store the first row into up[], then
 *         shardtab_signal_*(..., shardtab_faces_node_peer(faces, 0, 0), ...)
 *     ... across nodes, after the kernel:
 *     shardtab_faces_exchange(faces, p, (const void *[]){first, last}, stream);
 *
 * The neighbour must not store parity p's face while this rank still reads
 * it: the solver's own signals say when (jacobi waits for its neighbour's
 * "finished k - 1" before it writes k's). The library checks the layout,
 * not that protocol.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_FACES_H
#define SHARDTAB_FACES_H

#include <stddef.h>

#include "shardtab.h"
#include "shardtab/halo_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Direct faces over a table (opaque). */
typedef struct shardtab_faces shardtab_faces_t;

/** shardtab_faces_create's decomposition; axes past dims are ignored. */
typedef struct shardtab_faces_params {
    int dims;                                  /**< 1, 2 or 3 */
    int grid[SHARDTAB_HALO_MAX_DIMS];          /**< ranks along each axis; their product is the
                                             communicator's size */
    int periodic[SHARDTAB_HALO_MAX_DIMS];      /**< nonzero: the axis wraps around */
    size_t face_bytes[SHARDTAB_HALO_MAX_DIMS]; /**< bytes of one ghost face across each
                                                    axis (0: the axis has none); the two
                                                    neighbours along an axis give the same */
    int parities;                              /**< buffers of every face: 1 or 2 */
    size_t offset;   /**< byte offset of the first face in this rank's shard */
    int through_mpi; /**< nonzero: every face goes through MPI (shardtab_faces_exchange), as
                          across nodes, none through the table: a baseline to measure
                          against */
    int mpi_device;  /**< nonzero: the MPI reads and writes device memory (GPU-aware, or the
                          host backend): the faces move straight from and to it; 0: staged
                          through host buffers. This rank's own choice. */
} shardtab_faces_params_t;

/** How a face reaches its neighbour (shardtab_faces_route). */
enum shardtab_faces_route {
    SHARDTAB_FACES_NONE = 0,  /**< no neighbour there (a non-periodic end), or no faces */
    SHARDTAB_FACES_TABLE = 1, /**< the neighbour is on this node: stored through the table */
    SHARDTAB_FACES_MPI = 2    /**< on another node (or through_mpi): shardtab_faces_exchange */
};

/** @name The faces (collective over the table's communicator)
 * @{ */

/** Makes the direct faces of the decomposition in params over the table.
 * Refused on every rank, with one message naming the first rank and rule
 * broken (SHARDTAB_ERR_INVALID_ARG), when: dims is not 1 to 3; parities is
 * not 1 or 2; the grid's product is not the communicator's size; no axis
 * has faces; the faces run past the shard; two neighbours along an axis
 * disagree on its face_bytes; or the ranks' dims, grid, periodic, parities
 * or through_mpi differ. The table stays live and usable. */
shardtab_status_t shardtab_faces_create(shardtab_t *table, const shardtab_faces_params_t *params,
                                        shardtab_faces_t **faces);
/** Moves the faces whose route is SHARDTAB_FACES_MPI for parity `parity`:
 * this rank's face toward (axis a, side s) from src[2 a + s] (face_bytes[a]
 * bytes of device memory; entries of other routes are not read and may be
 * NULL) into that neighbour's ghost face (a, 1 - s, parity), and this
 * rank's ghost faces (a, s, parity) from its neighbours. Host-synchronous:
 * the stream's work first, then MPI, each wait bounded by the table's
 * patience; every such ghost face is in place for the work enqueued on
 * stream after the call (staged: copied in on stream; straight: already
 * there). Between the neighbours only: a rank that never calls leaves its
 * neighbours' receives to give up (SHARDTAB_ERR_TIMEOUT, naming the
 * neighbour), the ranks then out of step: end the job. A post of this rank's
 * that fails (SHARDTAB_ERR_MPI: its other posts taken back) leaves them out of
 * step too; either is returned over a failure of the stream. A rank whose
 * stream failed still
 * sends (what its staging held) and receives, so that no neighbour waits
 * for it, and returns its failure; a neighbour's SUCCESS then does not say
 * that the face it received was good: the solver agrees on failures itself,
 * in its next collective. Bad arguments are refused before anything moves
 * (SHARDTAB_ERR_INVALID_ARG; the neighbours' waits then give up), as is a
 * table that is out of step (SHARDTAB_ERR_TIMEOUT). Nothing to move:
 * SHARDTAB_SUCCESS at once. */
shardtab_status_t shardtab_faces_exchange(shardtab_faces_t *faces, int parity,
                                          const void *const *src, shardtab_stream_t stream);
/** Frees the faces (their host buffers, once the last exchange's copies from
 * them are done; the ghost faces are the shard's). Destroy the faces before
 * their table: after the table's destroy, the places they gave point at
 * memory no longer mapped. Local; after an exchange
 * that gave up, its buffers are kept (a late message may still land). NULL
 * or *faces NULL: nothing to do. */
shardtab_status_t shardtab_faces_destroy(shardtab_faces_t **faces);
/** @} */

/** @name Where the faces are (local)
 * @{ */

/** Byte offset in the shard of the ghost face (axis, side, parity) of the
 * decomposition in params, by the layout above, without a table (for a
 * solver that lays out its shard before the table exists); (size_t)-1 for
 * NULL, an axis without faces, or a side or parity out of range. */
size_t shardtab_faces_offset(const shardtab_faces_params_t *params, int axis, int side, int parity);
/** Bytes the faces take from params->offset on: parities F. 0 for NULL. */
size_t shardtab_faces_bytes(const shardtab_faces_params_t *params);
/** This rank's ghost face (axis, side, parity): device memory in its
 * shard, which the neighbour on that side fills; NULL for bad arguments. */
void *shardtab_faces_ghost(const shardtab_faces_t *faces, int axis, int side, int parity);
/** Where this rank's face toward (axis, side) goes for parity `parity`:
 * the neighbour's ghost face (axis, 1 - side, parity), mapped through the
 * table, for a kernel of this rank to store into. NULL where the route is
 * not SHARDTAB_FACES_TABLE, or for bad arguments. */
void *shardtab_faces_dest(const shardtab_faces_t *faces, int axis, int side, int parity);
/** The comm rank of the neighbour on (axis, side), this rank itself on a
 * periodic axis of one rank; -1 where there is none or for bad arguments. */
int shardtab_faces_neighbor(const shardtab_faces_t *faces, int axis, int side);
/** That neighbour's node rank, for the signals (shardtab_signals_t) that
 * tell it a face is in place; -1 where the route is not
 * SHARDTAB_FACES_TABLE. */
int shardtab_faces_node_peer(const shardtab_faces_t *faces, int axis, int side);
/** How the face toward (axis, side) moves (enum shardtab_faces_route);
 * -1 for bad arguments. */
int shardtab_faces_route(const shardtab_faces_t *faces, int axis, int side);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SHARDTAB_FACES_H */
