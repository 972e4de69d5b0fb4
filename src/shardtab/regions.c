/* regions.c - how a table's two regions (the caller's shard, and the signal
 * pad the table allocates) travel between the ranks of a node: create's steps
 * 2 to 6 (shardtab.c drives them) and, at destroy, the peers let go. Below
 * shardtab.c: it asks the backend, pads.c, imports.c and descriptor.c. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "descriptor.h"
#include "imports.h"
#include "internal.h"
#include "pads.h"
#include "shardtab_comm.h"
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the host side of a region ------------------------------------------- */

void st_region_release_host(st_region_t *r)
{
    free(r->mapped);
    free(r->entries);
    free(r->entry_bytes);
}

void st_region_alloc_host(st_region_t *r, int n, shardtab_status_t *status)
{
    r->mapped = st_calloc_or_fail((size_t)n, sizeof *r->mapped, "mappings", status);
    r->entries = st_calloc_or_fail((size_t)n, sizeof *r->entries, "entries", status);
    r->entry_bytes = st_calloc_or_fail((size_t)n, sizeof *r->entry_bytes, "entry sizes", status);
}

/* Lets go of every peer allocation this region uses (the last user closes a
 * mapping); keeps going past failures, reports the first. */
static shardtab_status_t close_region(const shardtab_t *t, st_region_t *r)
{
    shardtab_status_t first = SHARDTAB_SUCCESS;

    for (int q = 0; q < t->node_size; q++) {
        if (r->mapped == NULL || r->mapped[q] == NULL)
            continue;
        shardtab_status_t s = st_import_close(r->mapped[q]);
        if (s != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
            first = s;
        r->mapped[q] = NULL;
    }
    return first;
}

shardtab_status_t st_table_peers_close(shardtab_t *t)
{
    shardtab_status_t first = st_fault_check(ST_FAULT_CLOSE);
    shardtab_status_t s = close_region(t, &t->shard);

    if (first == SHARDTAB_SUCCESS)
        first = s;
    s = close_region(t, &t->pad);
    return first != SHARDTAB_SUCCESS ? first : s;
}

/* ---- step 2: the signal pad ---------------------------------------------- */

/* the header, the barrier's arrivals, the user's slots, then the library's
 * collective (collective_body.h: the stream-ordered collectives' deposits) */
static size_t pad_bytes(int node_size, int slots)
{
    return ((size_t)SHARDTAB_PAD_HEADER + (size_t)node_size + (size_t)slots +
            (size_t)SHARDTAB_COLL_SLOTS(node_size, SHARDTAB_DETAIL_LIB_COLL_VALUES)) *
           sizeof(uint64_t);
}

shardtab_status_t st_device_zero(void *ptr, size_t bytes, shardtab_stream_t stream,
                                 const char *what)
{
    void *zeros = calloc(1, bytes);
    shardtab_status_t status;

    if (zeros == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "calloc of a %zu-byte %s failed", bytes, what);
    status = st_backend()->copy_async(ptr, zeros, bytes, stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(stream);
    free(zeros);
    return status;
}

/* Coherent memory, zeroed by a copy. */
shardtab_status_t st_table_pad_alloc(shardtab_t *t)
{
    size_t bytes = pad_bytes(t->node_size, t->signal_slots);
    shardtab_status_t status = st_pad_alloc(bytes, &t->pad.local);

    if (status == SHARDTAB_SUCCESS) {
        t->pad.bytes = bytes;
        status = st_device_zero(t->pad.local, bytes, t->stream, "signal pad");
    }
    return status;
}

/* Every pad of the node must have this rank's layout: the same slot count. */
shardtab_status_t st_table_pads_check(const shardtab_t *t, const st_descriptor_t *pads)
{
    for (int q = 0; q < t->node_size; q++) {
        if ((pads[q].flags & ST_DESCRIPTOR_EMPTY) || pads[q].bytes != t->pad.bytes)
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "rank %d has a signal pad of %llu bytes, this rank %zu: pass the "
                           "same signal_slots to shardtab_create_with on every rank",
                           pads[q].comm_rank, (unsigned long long)pads[q].bytes, t->pad.bytes);
    }
    return SHARDTAB_SUCCESS;
}

/* ---- steps 3 and 4: export, exchange ------------------------------------- */

/* Fills this rank's descriptor of one region and, unless it is empty, exports it. */
shardtab_status_t st_region_export(shardtab_t *t, st_region_t *r, st_descriptor_t *desc)
{
    st_export_t exp;
    shardtab_status_t status;

    memset(desc, 0, sizeof *desc);
    desc->comm_rank = t->rank;
    desc->node_rank = t->node_rank;
    desc->backend = (int32_t)st_rt.device.backend;
    desc->device = st_rt.device.device;
    desc->bytes = r->bytes;
    memcpy(desc->host, st_rt.host, sizeof desc->host);
    memcpy(desc->boot_id, st_rt.boot_id, sizeof desc->boot_id);
    desc->ipc_ns = st_rt.ipc_ns;
    memcpy(desc->pci_bus_id, st_rt.device.pci_bus_id, sizeof desc->pci_bus_id);

    if (r->local == NULL) {
        desc->flags = ST_DESCRIPTOR_EMPTY;
        return SHARDTAB_SUCCESS;
    }
    status = st_backend()->ipc_export(r->local, r->bytes, &exp);
    if (status != SHARDTAB_SUCCESS)
        return status;
    if (r == &t->shard) {
        /* so that the allocation is not freed while this table lives */
        t->live.base = (const char *)r->local - exp.offset;
        t->live.bytes = exp.alloc_bytes;
    }
    desc->offset = exp.offset;
    desc->alloc_bytes = exp.alloc_bytes;
    desc->handle = exp.handle;
    desc->pid = (int32_t)getpid();
    desc->alloc_base = (uint64_t)(uintptr_t)((const char *)r->local - exp.offset);
    return SHARDTAB_SUCCESS;
}

/* Allgathers packed descriptors in the node; fills descs[node_size] on success.
 * Every rank enters the allgather, even one that already failed. */
shardtab_status_t st_table_exchange(shardtab_t *t, const st_descriptor_t *mine,
                                    st_descriptor_t *descs)
{
    unsigned char packed[ST_DESCRIPTOR_PACKED_BYTES];
    unsigned char *all;
    shardtab_status_t status = st_fault_check(ST_FAULT_EXCHANGE);

    all = st_calloc_or_fail((size_t)t->node_size, sizeof packed, "packed descriptors", &status);
    st_descriptor_pack(mine, packed);
    /* an allocation failure on any rank must keep every rank out of the allgather */
    if (shardtab_agree(t->comm, all == NULL ? SHARDTAB_ERR_NO_MEMORY : SHARDTAB_SUCCESS) ==
        SHARDTAB_SUCCESS) {
        shardtab_status_t s = st_mpi_check(MPI_Allgather(packed, (int)sizeof packed, MPI_BYTE, all,
                                                         (int)sizeof packed, MPI_BYTE, t->node),
                                           "MPI_Allgather of shard descriptors");
        if (status == SHARDTAB_SUCCESS)
            status = s;
    } else if (status == SHARDTAB_SUCCESS) {
        status = SHARDTAB_ERR_NO_MEMORY; /* the message came with the agreement */
    }
    for (int q = 0; q < t->node_size && status == SHARDTAB_SUCCESS; q++) {
        st_descriptor_expect_t expect = {
            .comm_rank = t->members[q],
            .node_rank = q,
            .backend = (int32_t)st_rt.device.backend,
            .host = st_rt.host,
            .boot_id = st_rt.boot_id,
            .ipc_ns = st_rt.ipc_ns,
        };
        status = st_descriptor_unpack(all + (size_t)q * sizeof packed, &descs[q]);
        if (status == SHARDTAB_SUCCESS)
            status = st_descriptor_validate(&descs[q], &expect);
    }
    free(all);
    return status;
}

/* ---- step 5: peer access, the whole matrix at once ----------------------- */

shardtab_status_t st_table_peer_access_check(shardtab_t *t, const st_descriptor_t *descs)
{
    const st_backend_ops_t *ops = st_backend();
    shardtab_status_t status = SHARDTAB_SUCCESS;
    int n = t->node_size, *row, *matrix, missing = 0;
    char *msg;
    size_t used;

    if (ops->can_access_peer == NULL)
        return SHARDTAB_SUCCESS;
    row = st_calloc_or_fail((size_t)n, sizeof *row, "peer row", &status);
    matrix = st_calloc_or_fail((size_t)n * (size_t)n, sizeof *matrix, "peer matrix", &status);
    for (int q = 0; q < n && status == SHARDTAB_SUCCESS; q++)
        status = q == t->node_rank ? (row[q] = 1, SHARDTAB_SUCCESS)
                                   : ops->can_access_peer(descs[q].pci_bus_id, &row[q]);
    /* Everyone enters the allgather, so that every rank can name every gap;
     * unless a rank could not allocate, which all learn first. */
    if (shardtab_agree(t->comm,
                       row == NULL || matrix == NULL ? SHARDTAB_ERR_NO_MEMORY : SHARDTAB_SUCCESS) ==
        SHARDTAB_SUCCESS) {
        shardtab_status_t s =
            st_mpi_check(MPI_Allgather(row, n, MPI_INT, matrix, n, MPI_INT, t->node),
                         "MPI_Allgather of peer access");
        if (status == SHARDTAB_SUCCESS)
            status = s;
    } else if (status == SHARDTAB_SUCCESS) {
        status = SHARDTAB_ERR_NO_MEMORY; /* the message came with the agreement */
    }
    if (status == SHARDTAB_SUCCESS) {
        for (int i = 0; i < n * n; i++)
            missing += matrix[i] == 0;
    }
    if (status == SHARDTAB_SUCCESS && missing > 0) {
        size_t cap = 256 + (size_t)missing * 160;
        msg = malloc(cap);
        if (msg == NULL) {
            status = st_fail(SHARDTAB_ERR_PEER_ACCESS, "%d device pairs lack peer access", missing);
        } else {
            used = (size_t)snprintf(msg, cap,
                                    "%d of %d device pairs of this node lack peer access:", missing,
                                    n * (n - 1));
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++)
                    if (!matrix[a * n + b] && used < cap)
                        used += (size_t)snprintf(
                            msg + used, cap - used, " rank %d device %d [%s] -> rank %d [%s];",
                            descs[a].comm_rank, descs[a].device, descs[a].pci_bus_id,
                            descs[b].comm_rank, descs[b].pci_bus_id);
            status = st_fail(SHARDTAB_ERR_PEER_ACCESS,
                             "%s check the GPU topology (rocm-smi --showtopo, nvidia-smi topo -m) "
                             "and Slurm's GPU binding",
                             msg);
            free(msg);
        }
    }
    free(row);
    t->peer_access = matrix; /* kept for shardtab_peer_access */
    return status;
}

/* ---- step 6: open -------------------------------------------------------- */

static shardtab_status_t open_region(shardtab_t *t, st_region_t *r, const st_descriptor_t *descs)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int q = 0; q < t->node_size && status == SHARDTAB_SUCCESS; q++) {
        const st_descriptor_t *d = &descs[q];
        r->entry_bytes[q] = (size_t)d->bytes;
        if (d->flags & ST_DESCRIPTOR_EMPTY) {
            r->entries[q] = NULL;
        } else if (q == t->node_rank) {
            r->entries[q] = r->local; /* opening our own handle would fail */
        } else {
            void *base = NULL;
            int opened = 0;
            st_import_key_t key;
            memset(&key, 0, sizeof key);
            snprintf(key.device, sizeof key.device, "%s", d->pci_bus_id);
            key.pid = d->pid;
            key.base = d->alloc_base;
            key.bytes = (size_t)d->alloc_bytes;
            status = st_import_open(&key, &d->handle, &base, &opened);
            if (status == SHARDTAB_SUCCESS) {
                r->mapped[q] = base;
                r->entries[q] = (char *)base + d->offset;
                r->opened += opened;
                r->reused += !opened;
            } else {
                /* the backend's words, without the prefix st_fail adds again */
                char detail[ST_ERROR_BYTES];
                snprintf(detail, sizeof detail, "%s",
                         st_thread_last_error() + st_error_prefix_bytes());
                status = st_fail(status,
                                 "opening the %s of rank %d (node rank %d, device "
                                 "%d [%s]) failed: %s",
                                 r->what, d->comm_rank, q, d->device, d->pci_bus_id, detail);
            }
        }
    }
    return status;
}

shardtab_status_t st_table_peers_open(shardtab_t *t, const st_descriptor_t *shard_descs,
                                      const st_descriptor_t *pad_descs)
{
    shardtab_status_t status = st_fault_check(ST_FAULT_OPEN);
    double start = MPI_Wtime();

    if (status == SHARDTAB_SUCCESS)
        status = open_region(t, &t->shard, shard_descs);
    if (status == SHARDTAB_SUCCESS)
        status = open_region(t, &t->pad, pad_descs);
    t->open_ms = (MPI_Wtime() - start) * 1e3;
    return status;
}
