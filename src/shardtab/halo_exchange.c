/* halo_exchange.c - shardtab_halo_exchange: inside a node, a pushed halo in
 * one kernel (LL words or put, shardtab_halo_device.h), or the pieces pulled
 * through the table by a grid between two syncs of the library's collective
 * (which carry the call, so that a rank whose call differs stops the node);
 * across nodes, host-synchronous: the
 * boxes for other nodes packed, sent and received through MPI, each step
 * bounded, then unpacked beside the node's own pieces. The plan is halo.c's;
 * the element loops halo_body.h's. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "call_word.h"
#include "collective_body.h"
#include "halo_internal.h"
#include "internal.h"
#include "mpi_steps.h"
#include "registry.h"
#include "table.h"

#include <stdio.h>
#include <string.h>

static const char *const call = "shardtab_halo_exchange";

static shardtab_status_t run_phase(st_coll_phase_t *p, int phase, shardtab_stream_t stream)
{
    p->phase = phase;
    p->begin = 0;
    p->end = (size_t)p->halo.units;
    return st_backend()->collective_phase(p, stream);
}

/* The pieces `what` (this node's, or the staging's), enqueued on stream: the
 * node's pushed (one block, or by put a block a slice), or with node
 * peers pulled by a grid between the node's syncs (sync_node), else alone. */
static shardtab_status_t node_phases(shardtab_halo_t *h, const shardtab_halo_device_t *what,
                                     int sync_node, shardtab_stream_t stream)
{
    shardtab_t *t = h->table;
    st_coll_phase_t p;
    shardtab_status_t status;

    memset(&p, 0, sizeof p);
    (void)shardtab_signals(t, &p.sig);
    p.table = (void *const *)t->device_table;
    p.type = SHARDTAB_INT64; /* a thread a copy unit: st_gpu_phase_blocks */
    p.count = (size_t)what->units;
    p.args[0] = h->id;
    p.args[1] = st_call_word_pack(ST_STREAM_HALO, 0, 0, 0, 0, h->exchanges);
    p.halo = *what;
    p.blocks = (size_t)what->slices;
    if (sync_node &&
        h->form != SHARDTAB_HALO_PULLED) /* every exchange, pieces or none: the epochs stay alike */
        return run_phase(&p, ST_PHASE_HALO_PUSH, stream);
    if (!sync_node || t->node_size == 1)
        return what->units > 0 ? run_phase(&p, ST_PHASE_HALO, stream) : SHARDTAB_SUCCESS;
    status = run_phase(&p, ST_PHASE_SYNC, stream);
    st_fault_stall(ST_FAULT_COLL_PHASE);
    if (status == SHARDTAB_SUCCESS)
        status = run_phase(&p, ST_PHASE_HALO, stream);
    if (status == SHARDTAB_SUCCESS) /* no rank changes its cells while a neighbour reads them */
        status = run_phase(&p, ST_PHASE_SYNC, stream);
    return status;
}

/* The node's pieces, ordered after the table's last barrier or collective. */
static shardtab_status_t on_node(shardtab_halo_t *h, shardtab_stream_t stream)
{
    shardtab_t *t = h->table;
    shardtab_status_t status = st_backend()->order_begin(stream, &t->barrier_order);

    if (status == SHARDTAB_SUCCESS)
        status = node_phases(h, &h->node, 1, stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->order_end(stream, t->barrier_order);
    return status;
}

/* ---- across nodes ------------------------------------------------------------------ */

/* The staging buffer's bytes [at, at + bytes) to or from the host, waited for. */
static shardtab_status_t staging_copy(shardtab_halo_t *h, size_t at, size_t bytes, int to_host,
                                      shardtab_stream_t stream)
{
    return st_steps_copy((char *)h->staging + at, h->host_staging + at, bytes, to_host, stream);
}

/* Every link's box through MPI: the receives posted, the sends, each waited
 * for at most the table's patience. A request that never completes is left
 * pending, its buffer kept (the halo's staging: not freed while the job
 * runs on, as the ranks are out of step). */
static shardtab_status_t links(shardtab_halo_t *h, st_steps_t *s)
{
    shardtab_t *t = h->table;
    MPI_Request requests[2 * SHARDTAB_HALO_MAX_PIECES];
    int posted = 0, rc = MPI_SUCCESS;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int i = 0; i < h->recv_count && rc == MPI_SUCCESS; i++, posted++)
        rc = MPI_Irecv(h->host_staging + h->recvs[i].at, (int)h->recvs[i].bytes, MPI_BYTE,
                       h->recvs[i].peer, h->recvs[i].tag, t->comm, &requests[posted]);
    if (rc != MPI_SUCCESS)
        status = st_mpi_check(rc, "MPI_Irecv of a halo's ghost cells");
    for (int i = 0; i < h->send_count && rc == MPI_SUCCESS; i++, posted++)
        rc = MPI_Isend(h->host_staging + h->sends[i].at, (int)h->sends[i].bytes, MPI_BYTE,
                       h->sends[i].peer, h->sends[i].tag, t->comm, &requests[posted]);
    if (status == SHARDTAB_SUCCESS && rc != MPI_SUCCESS)
        status = st_mpi_check(rc, "MPI_Isend of a halo's cells");
    if (status != SHARDTAB_SUCCESS) {
        /* the failed one started nothing; the others are taken back, and the
         * closing agreement tells the peers, whose own requests then end with
         * theirs */
        posted--;
        for (int i = 0; i < posted; i++) {
            MPI_Cancel(&requests[i]);
            MPI_Request_free(&requests[i]);
        }
        return status;
    }
    for (int i = 0; i < posted && status == SHARDTAB_SUCCESS; i++) {
        const int receive = i < h->recv_count;
        const int peer = receive ? h->recvs[i].peer : h->sends[i - h->recv_count].peer;
        char what[96], step[96];
        snprintf(what, sizeof what, "%s rank %d of a halo's cells",
                 receive ? "MPI_Irecv from" : "MPI_Isend to", peer);
        snprintf(step, sizeof step, "its %s rank %d", receive ? "receive from" : "send to", peer);
        status = st_steps_wait(s, MPI_SUCCESS, &requests[i], what, step);
    }
    return status;
}

static shardtab_status_t across_nodes(shardtab_halo_t *h, shardtab_stream_t stream)
{
    shardtab_t *t = h->table;
    const size_t received = h->staging_bytes - (h->recv_count > 0 ? h->recvs[0].at : 0);
    const size_t recv_at = h->recv_count > 0 ? h->recvs[0].at : 0;
    shardtab_status_t status;
    st_steps_t steps = {t, call, 0, NULL};

    /* a stopped table refuses before anything moves, its refusal agreed (the
     * ranks of other nodes may not know it stopped); the stream's work first */
    status = st_table_stopped(t, call);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(stream);
    if (status == SHARDTAB_SUCCESS && h->send_count > 0) /* the boxes for other nodes, packed */
        status = node_phases(h, &h->pack, 0, stream);
    if (status == SHARDTAB_SUCCESS)
        status = staging_copy(h, 0, h->send_count > 0 ? recv_at : 0, 1, stream);
    /* every rank's local steps agreed before any message: a rank that failed
     * them sends nothing, and no peer waits for it */
    status = st_steps_agree(&steps, status, "the agreement before the cells move");
    if (status != SHARDTAB_SUCCESS)
        goto out;
    st_fault_stall(ST_FAULT_COLL_NODE);
    status = links(h, &steps); /* a failed post: the closing agreement tells the peers */
    if (steps.gave_up)
        goto out;
    if (status == SHARDTAB_SUCCESS)
        status = staging_copy(h, recv_at, received, 0, stream);
    if (status == SHARDTAB_SUCCESS && h->recv_count > 0)
        status = node_phases(h, &h->unpack, 0, stream);
    if (status == SHARDTAB_SUCCESS) /* the node's own pieces; its ranks all come here */
        status = on_node(h, stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(stream);
    st_fault_stall(ST_FAULT_COLL_END);
    status = st_steps_agree(&steps, status, "the agreement after the cells moved");
out:
    h->gave_up |= steps.gave_up; /* its staging stays: a late receive may land there */
    return status;
}

/* ---- the call ---------------------------------------------------------------------- */

shardtab_status_t shardtab_halo_exchange(shardtab_halo_t *halo, shardtab_stream_t stream)
{
    shardtab_status_t status;

    if (halo == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: no halo (NULL)", call);
    status = st_check_table(halo->table, call); /* its table destroyed */
    if (status == SHARDTAB_SUCCESS)
        status = st_table_in_step(halo->table, call);
    if (status == SHARDTAB_SUCCESS && !st_halo_across_nodes(halo))
        status = st_table_stopped(halo->table, call); /* across nodes: refused, agreed */
    if (status != SHARDTAB_SUCCESS)
        return status;
    st_fault_stall(ST_FAULT_COLL_ENTER);
    halo->exchanges++;
    halo->last_stream = stream;
    return st_halo_across_nodes(halo) ? across_nodes(halo, stream) : on_node(halo, stream);
}
