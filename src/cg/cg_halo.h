/* cg_halo.h - the cg program's columns of ranks on other nodes, by MPI:
 * which values of the product's operand each rank sends whom (agreed once,
 * at create), and before each product the exchange itself, staged through
 * the host, into this rank's ghost buffer (kernels/sparse/spmv.h reads it). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_HALO_H
#define CG_HALO_H

#include <mpi.h>
#include <stdint.h>

#include "shardtab.h"
#include "sparse_halo.h"

typedef struct cg_halo {
    MPI_Comm comm;                    /* a duplicate of the solve's, for the exchange alone */
    int nrecv, nsend;                 /* peers this rank receives from, sends to */
    int *recv_rank, *send_rank;       /* their ranks in comm */
    int64_t *recv_first, *send_first; /* [n + 1]: their runs of the ghost and send buffers */
    double *ghost_host, *send_host;   /* staging */
    double *ghost;                    /* device: the ghost buffer (NULL: no ghosts) */
    double *send;                     /* device: the packed values this rank sends */
    int32_t *send_index;              /* device: the rows of this rank's shard they are */
    MPI_Request *reqs;                /* [nrecv + nsend]: one exchange's requests */
} cg_halo_t;

/* The lists: rank_at[p] is the comm rank of part p of the split first_row
 * (nparts = comm's size), me this rank's part, plan its ghosts. Each rank
 * tells each owner which of its values it reads. Collective over comm; a
 * failure is recorded for the agreement (shardtab_error_set). */
shardtab_status_t cg_halo_create(cg_halo_t *h, const sparse_halo_t *plan, const int *rank_at,
                                 const int64_t *first_row, int me, MPI_Comm comm);
/* Before a product whose operand is x (this rank's shard, device memory,
 * complete in stream order): every value another node reads packed, sent by
 * MPI and received into every reader's ghost buffer. Collective over the
 * ranks that share ghosts; returns once the ghosts are in place. */
shardtab_status_t cg_halo_exchange(cg_halo_t *h, const double *x, void *stream);
void cg_halo_destroy(cg_halo_t *h);

#endif /* CG_HALO_H */
