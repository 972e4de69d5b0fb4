/* cg_halo.c - the columns of other nodes by MPI (cg_halo.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cg_halo.h"

#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "spmv.h"

#define CG_HALO_TAG 0x4347 /* the exchange's messages; its communicator is its own */

static shardtab_status_t no_memory(int rank)
{
    return shardtab_error_set(SHARDTAB_ERR_NO_MEMORY,
                              "rank %d: no memory for the exchange with other nodes", rank);
}

shardtab_status_t cg_halo_create(cg_halo_t *h, const sparse_halo_t *plan, const int *rank_at,
                                 const int64_t *first_row, int me, MPI_Comm comm)
{
    int rank, size;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    memset(h, 0, sizeof *h);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_dup(comm, &h->comm);
    /* how many of each rank's values this rank reads, by comm rank; then how
     * many of this rank's each rank reads */
    int *want = calloc((size_t)size, sizeof *want), *give = calloc((size_t)size, sizeof *give);
    int64_t *cols = NULL;
    if (want == NULL || give == NULL)
        status = no_memory(rank);
    for (int p = 0; p < size && status == SHARDTAB_SUCCESS; p++)
        want[rank_at[p]] = (int)(plan->from_first[p + 1] - plan->from_first[p]);
    status = app_agree(comm, status, "the agreement before the exchange's lists", 0);
    if (status == SHARDTAB_SUCCESS &&
        MPI_Alltoall(want, 1, MPI_INT, give, 1, MPI_INT, h->comm) != MPI_SUCCESS)
        status = shardtab_error_set(SHARDTAB_ERR_MPI,
                                    "rank %d: MPI_Alltoall of the exchange's "
                                    "counts failed",
                                    rank);
    for (int r = 0; r < size && status == SHARDTAB_SUCCESS; r++) {
        h->nrecv += want[r] > 0;
        h->nsend += give[r] > 0;
    }
    if (status == SHARDTAB_SUCCESS) {
        h->recv_rank = malloc((size_t)(h->nrecv + 1) * sizeof *h->recv_rank);
        h->send_rank = malloc((size_t)(h->nsend + 1) * sizeof *h->send_rank);
        h->recv_first = calloc((size_t)(h->nrecv + 1), sizeof *h->recv_first);
        h->send_first = calloc((size_t)(h->nsend + 1), sizeof *h->send_first);
        h->reqs = malloc((size_t)(h->nrecv + h->nsend + 1) * sizeof *h->reqs);
        if (!h->recv_rank || !h->send_rank || !h->recv_first || !h->send_first || !h->reqs)
            status = no_memory(rank);
    }
    /* the peers in part order, the runs of the ghost buffer as the plan has them */
    for (int p = 0, i = 0, j = 0; p < size && status == SHARDTAB_SUCCESS; p++) {
        const int r = rank_at[p];
        if (want[r] > 0) {
            h->recv_rank[i] = r;
            h->recv_first[i + 1] = h->recv_first[i] + want[r];
            i++;
        }
        if (give[r] > 0) {
            h->send_rank[j] = r;
            h->send_first[j + 1] = h->send_first[j] + give[r];
            j++;
        }
    }
    const int64_t nghost = h->nrecv ? h->recv_first[h->nrecv] : 0;
    const int64_t nsend = h->nsend ? h->send_first[h->nsend] : 0;
    if (status == SHARDTAB_SUCCESS) {
        h->ghost_host = malloc((size_t)(nghost ? nghost : 1) * sizeof(double));
        h->send_host = malloc((size_t)(nsend ? nsend : 1) * sizeof(double));
        cols = malloc((size_t)(nsend ? nsend : 1) * sizeof *cols);
        if (!h->ghost_host || !h->send_host || !cols)
            status = no_memory(rank);
    }
    status = app_agree(comm, status, "the agreement on the exchange's buffers", 0);
    /* the global columns each reader wants, to their owner */
    if (status == SHARDTAB_SUCCESS) {
        int nreq = 0;
        for (int j = 0; j < h->nsend; j++)
            MPI_Irecv(cols + h->send_first[j], (int)(h->send_first[j + 1] - h->send_first[j]),
                      MPI_INT64_T, h->send_rank[j], CG_HALO_TAG, h->comm, &h->reqs[nreq++]);
        for (int i = 0; i < h->nrecv; i++)
            MPI_Isend(plan->ghost_col + h->recv_first[i],
                      (int)(h->recv_first[i + 1] - h->recv_first[i]), MPI_INT64_T, h->recv_rank[i],
                      CG_HALO_TAG, h->comm, &h->reqs[nreq++]);
        if (app_waitall(nreq, h->reqs, "the exchange of the columns other nodes read", 0) !=
            MPI_SUCCESS)
            status = shardtab_error_set(SHARDTAB_ERR_MPI,
                                        "rank %d: the exchange of the columns other nodes "
                                        "read failed",
                                        rank);
    }
    /* this rank's rows they are: each must be this rank's */
    int32_t *index = NULL;
    if (status == SHARDTAB_SUCCESS && (index = malloc((size_t)(nsend ? nsend : 1) * 4)) == NULL)
        status = no_memory(rank);
    for (int64_t k = 0; k < nsend && status == SHARDTAB_SUCCESS; k++) {
        if (cols[k] < first_row[me] || cols[k] >= first_row[me + 1])
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                        "rank %d: asked for column %lld, which is not its own",
                                        rank, (long long)cols[k]);
        else
            index[k] = (int32_t)(cols[k] - first_row[me]);
    }
    void *ptr = NULL;
    if (status == SHARDTAB_SUCCESS && nghost &&
        (status = shardtab_mem_alloc((size_t)nghost * sizeof(double), &ptr)) == SHARDTAB_SUCCESS)
        h->ghost = ptr;
    if (status == SHARDTAB_SUCCESS && nsend &&
        (status = shardtab_mem_alloc((size_t)nsend * sizeof(double), &ptr)) == SHARDTAB_SUCCESS)
        h->send = ptr;
    if (status == SHARDTAB_SUCCESS && nsend &&
        (status = shardtab_mem_alloc((size_t)nsend * 4, &ptr)) == SHARDTAB_SUCCESS) {
        h->send_index = ptr;
        status = shardtab_memcpy_to_device(h->send_index, index, (size_t)nsend * 4);
    }
    free(index);
    free(cols);
    free(want);
    free(give);
    return app_agree(comm, status, "the agreement on the exchange with other nodes", 0);
}

shardtab_status_t cg_halo_exchange(cg_halo_t *h, const double *x, void *stream)
{
    MPI_Request *reqs = h->reqs; /* the exchange's own, made at create */
    const int64_t nghost = h->nrecv ? h->recv_first[h->nrecv] : 0;
    const int64_t nsend = h->nsend ? h->send_first[h->nsend] : 0;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    int nreq = 0;

    if (nsend) {
        const int rc = spmv_gather(x, h->send_index, nsend, h->send, stream);
        if (rc != 0)
            status = shardtab_error_set(SHARDTAB_ERR_DEVICE,
                                        "packing the values other nodes "
                                        "read: %s",
                                        spmv_error_string(rc));
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_host(h->send_host, h->send, (size_t)nsend * sizeof(double));
    }
    /* a rank that failed above still takes part, sending what it has: its
     * readers are not left waiting, and the solve's agreement carries the
     * failure */
    for (int i = 0; i < h->nrecv; i++)
        MPI_Irecv(h->ghost_host + h->recv_first[i], (int)(h->recv_first[i + 1] - h->recv_first[i]),
                  MPI_DOUBLE, h->recv_rank[i], CG_HALO_TAG, h->comm, &reqs[nreq++]);
    for (int j = 0; j < h->nsend; j++)
        MPI_Isend(h->send_host + h->send_first[j], (int)(h->send_first[j + 1] - h->send_first[j]),
                  MPI_DOUBLE, h->send_rank[j], CG_HALO_TAG, h->comm, &reqs[nreq++]);
    if (nreq &&
        app_waitall(nreq, reqs, "the exchange of the values other nodes read", 0) != MPI_SUCCESS &&
        status == SHARDTAB_SUCCESS)
        status = shardtab_error_set(SHARDTAB_ERR_MPI,
                                    "the exchange of the values other nodes read failed");
    if (status == SHARDTAB_SUCCESS && nghost)
        status =
            shardtab_memcpy_to_device(h->ghost, h->ghost_host, (size_t)nghost * sizeof(double));
    return status;
}

void cg_halo_destroy(cg_halo_t *h)
{
    if (h->comm != MPI_COMM_NULL && h->comm != 0)
        MPI_Comm_free(&h->comm);
    void *device[] = {h->ghost, h->send, h->send_index};
    void *host[] = {h->recv_rank, h->send_rank,  h->recv_first, h->send_first,
                    h->reqs,      h->ghost_host, h->send_host};
    for (size_t k = 0; k < sizeof device / sizeof device[0]; k++)
        if (device[k])
            (void)shardtab_mem_free(device[k]);
    for (size_t k = 0; k < sizeof host / sizeof host[0]; k++)
        free(host[k]);
    memset(h, 0, sizeof *h);
    h->comm = MPI_COMM_NULL;
}
