/* shardtab.c - the collective protocol that builds and tears down a node's
 * table of shard pointers: create and destroy, step by step.
 *
 * Two regions travel the same way: the caller's shard, and the signal pad the
 * table allocates for each rank (shardtab_device.h); their steps are
 * regions.c's. What a create is asked for is resolved first (params.c).
 *
 * create, step by step (each step ends where all ranks agree on its outcome, so
 * a failure on one rank is everybody's failure and nobody waits alone):
 *   1. dup the communicator and split it into nodes (real, or simulated with
 *      SHARDTAB_RANKS_PER_NODE);
 *   2. allocate and zero this rank's signal pad (a range of a coherent chunk
 *      that all this process's tables share, pads.c);
 *   3. export the shard and the pad: IPC handle of each allocation base, plus
 *      offset (any number of live tables may lie in one allocation);
 *   4. allgather fixed-size descriptors inside the node and validate each;
 *   5. check that this device can reach every peer's device;
 *   6. open every peer's handles but our own (our entries are the local
 *      pointers); a peer allocation that this process has open already, for
 *      another table, is not opened again (imports.c counts its users);
 *   7. upload this rank's replica of the table (shards, then pads) to its device.
 * destroy: wait for the table's stream, agree, every importer lets go of its
 * mappings (the last table to use one closes it), agree again; only then may
 * the owners free their shards and pads.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "descriptor.h"
#include "internal.h"
#include "pads.h"
#include "registry.h"
#include "table.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the host side of a table -------------------------------------------- */

static void table_release_host(shardtab_t *t)
{
    if (t->leaders != MPI_COMM_NULL)
        MPI_Comm_free(&t->leaders);
    if (t->node != MPI_COMM_NULL)
        MPI_Comm_free(&t->node);
    if (t->comm != MPI_COMM_NULL)
        MPI_Comm_free(&t->comm);
    free(t->members);
    free(t->node_rank_of);
    free(t->stop_cause);
    st_region_release_host(&t->shard);
    st_region_release_host(&t->pad);
    free(t->peer_access);
    if (t->barrier_order != NULL && st_backend() != NULL)
        st_backend()->barrier_order_free(t->barrier_order);
    free(t);
}

/* ---- step 1: nodes ------------------------------------------------------- */

/* Splits comm into this table's nodes and learns who is where. Collective. */
static shardtab_status_t split_nodes(shardtab_t *t, int ranks_per_node)
{
    MPI_Comm real = MPI_COMM_NULL;
    shardtab_status_t status;
    int real_rank, *leaders = NULL;

    /* Each MPI step is agreed before the next, so that no rank returns early
     * while the others go on into a collective. */
    status = st_mpi_check(
        MPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL, &real),
        "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    status = shardtab_agree(t->comm, status);
    if (status != SHARDTAB_SUCCESS)
        return status;
    if (ranks_per_node > 0) {
        /* Simulated nodes never cross a real node: shared memory must be real. */
        MPI_Comm_rank(real, &real_rank);
        status = st_mpi_check(MPI_Comm_split(real, real_rank / ranks_per_node, real_rank, &t->node),
                              "MPI_Comm_split for SHARDTAB_RANKS_PER_NODE");
        MPI_Comm_free(&real);
        status = shardtab_agree(t->comm, status);
        if (status != SHARDTAB_SUCCESS)
            return status;
    } else {
        t->node = real;
    }
    MPI_Comm_rank(t->node, &t->node_rank);
    MPI_Comm_size(t->node, &t->node_size);

    t->members =
        st_calloc_or_fail((size_t)t->node_size, sizeof *t->members, "node members", &status);
    t->node_rank_of = st_calloc_or_fail((size_t)t->size, sizeof *t->node_rank_of, "ranks", &status);
    leaders = st_calloc_or_fail((size_t)t->size * 2, sizeof *leaders, "node leaders", &status);
    st_region_alloc_host(&t->shard, t->node_size, &status);
    st_region_alloc_host(&t->pad, t->node_size, &status);
    status = shardtab_agree(t->comm, status);
    if (status != SHARDTAB_SUCCESS) {
        free(leaders);
        return status;
    }

    status = st_mpi_check(MPI_Allgather(&t->rank, 1, MPI_INT, t->members, 1, MPI_INT, t->node),
                          "MPI_Allgather of node members");
    status = shardtab_agree(t->comm, status);
    if (status == SHARDTAB_SUCCESS) {
        /* Each rank: (comm rank of its node's leader, its node rank). */
        int mine[2] = {t->members[0], t->node_rank};
        status = st_mpi_check(MPI_Allgather(mine, 2, MPI_INT, leaders, 2, MPI_INT, t->comm),
                              "MPI_Allgather of node leaders");
    }
    if (status == SHARDTAB_SUCCESS) {
        t->node_count = 0;
        t->node_id = 0;
        for (int r = 0; r < t->size; r++) {
            int leader = leaders[2 * r], node_rank = leaders[2 * r + 1];
            t->node_rank_of[r] = leader == t->members[0] ? node_rank : -1;
            if (leader == r) {
                t->node_count++;
                if (r < t->members[0])
                    t->node_id++;
            }
        }
    }
    free(leaders);
    /* across nodes, the nodes' leaders: made here, not in the first collective that
     * needs them, where a rank stopped at this unbounded step would hold the others */
    status = shardtab_agree(t->comm, status);
    if (status == SHARDTAB_SUCCESS && t->node_count > 1)
        status = st_mpi_check(
            MPI_Comm_split(t->comm, t->node_rank == 0 ? 0 : MPI_UNDEFINED, t->node_id, &t->leaders),
            "MPI_Comm_split of the node leaders");
    return status;
}

/* ---- step 7: upload ------------------------------------------------------ */

static shardtab_status_t upload(shardtab_t *t)
{
    size_t n = (size_t)t->node_size, bytes = 2 * n * sizeof(void *);
    shardtab_status_t status = st_fault_check(ST_FAULT_UPLOAD);
    void *device_table = NULL, **host_table;

    if (status != SHARDTAB_SUCCESS)
        return status;
    host_table = malloc(bytes);
    if (host_table == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "malloc of a %zu-byte table failed", bytes);
    memcpy(host_table, t->shard.entries, n * sizeof(void *));
    memcpy(host_table + n, t->pad.entries, n * sizeof(void *));
    /* Built on the host, then copied: never store into device memory from the
     * host. On the table's stream, and waiting for that stream alone. */
    status = st_backend()->mem_alloc(bytes, &device_table);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->copy_async(device_table, host_table, bytes, t->stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(t->stream);
    free(host_table);
    if (status != SHARDTAB_SUCCESS) {
        if (device_table)
            st_backend()->mem_free(device_table);
        return status;
    }
    t->device_table = device_table;
    return SHARDTAB_SUCCESS;
}

/* ---- destroy's bounded agreement, create's order ------------------------- */

/* shardtab_agree, but bounded: a peer that skipped a collective destroy (or
 * destroys another table, or this one twice) leaves the others here, and that
 * must never be a silent hang, nor an endless one. Past 6 x the table's wait
 * limit (60 s by default), and never less than 1 s (ranks that arrive a few
 * milliseconds apart are in step), a rank gives up with SHARDTAB_ERR_TIMEOUT and a
 * message naming the table and the rule. The request is left pending: the
 * communicator cannot be used again, and the job should end. */
#define ST_PATIENCE_WAITS 6
#define ST_PATIENCE_FLOOR_S 1.0

static shardtab_status_t agree_patiently(const shardtab_t *t, shardtab_status_t local,
                                         const char *where, int *pending)
{
    /* [0] this rank's flag, [1] any rank's: on the heap, and never freed while
     * the request is pending, since a late rank may still complete it */
    int *flags = calloc(2, sizeof *flags), done = 0;
    const double limit = st_patience_s(t), start = MPI_Wtime();
    MPI_Request req;

    *pending = 0;
    if (flags == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "calloc of %s's 8 bytes failed", where);
    flags[0] = local == SHARDTAB_SUCCESS ? 0 : 1;
    if (MPI_Iallreduce(&flags[0], &flags[1], 1, MPI_INT, MPI_MAX, t->comm, &req) != MPI_SUCCESS) {
        free(flags);
        return st_fail(SHARDTAB_ERR_MPI, "MPI_Iallreduce in %s failed", where);
    }
    while (!done) {
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return st_fail(SHARDTAB_ERR_MPI, "MPI_Test in %s failed", where);
        if (!done && MPI_Wtime() - start > limit) {
            *pending = 1;
            return st_fail(SHARDTAB_ERR_TIMEOUT,
                           "%s of table '%s' waited %.0f s (6 x its wait limit, at least 1 s) for "
                           "the other %d "
                           "rank(s): every rank must destroy the same live table, once, its "
                           "tables in the same order as it created them (a rank that passed "
                           "NULL, destroyed it twice, or destroys another table now waits "
                           "elsewhere); end the job",
                           where, t->label, limit, t->size - 1);
        }
        if (!done)
            st_wait_pace(MPI_Wtime() - start);
    }
    free(flags);
    /* everybody is here: the usual agreement carries the first failure's message,
     * bounded too (a rank that gave up its own wait before ours came never comes) */
    return st_agree_bounded(t->comm, local, limit, pending);
}

/* A bounded agreement of t gave up waiting (a destroy's, or a collective's
 * across nodes): every live table over the same ranks may pair its next
 * collective with t's pending one (tables pair by order, and the orders may
 * have crossed). Each is marked out of step, so that its calls fail at once
 * rather than wait for a rank that never comes. */
static void mark_one_out_of_step(const void *table, void *arg)
{
    shardtab_t *other = (shardtab_t *)table; /* live: the registry holds it */
    const shardtab_t *t = arg;
    int same = MPI_UNEQUAL;

    if (MPI_Comm_compare(other->comm, t->comm, &same) == MPI_SUCCESS &&
        (same == MPI_IDENT || same == MPI_CONGRUENT) && !other->out_of_step) {
        other->out_of_step = 1;
        memcpy(other->out_of_step_from, t->label, sizeof other->out_of_step_from);
    }
}

void st_tables_out_of_step(const shardtab_t *t)
{
    st_live_each(mark_one_out_of_step, (void *)t);
}

double st_patience_s(const shardtab_t *t)
{
    const double waits = ST_PATIENCE_WAITS * t->wait_timeout_s;
    return waits > ST_PATIENCE_FLOOR_S ? waits : ST_PATIENCE_FLOOR_S;
}

shardtab_status_t st_gather_agreed(shardtab_t *t, const char *call, const char *what,
                                   shardtab_status_t local, void *all, size_t bytes, int *gave_up,
                                   int *pending)
{
    shardtab_status_t status = st_agree_bounded(t->comm, local, st_patience_s(t), gave_up);
    MPI_Request request;
    char step[96];
    int rc;

    if (status != SHARDTAB_SUCCESS)
        return status;
    snprintf(step, sizeof step, "MPI_Iallgather of the ranks' %s", what);
    rc = MPI_Iallgather((char *)all + (size_t)t->size * bytes, (int)bytes, MPI_BYTE, all,
                        (int)bytes, MPI_BYTE, t->comm, &request);
    if (rc != MPI_SUCCESS)
        return st_mpi_check(rc, step);
    if (st_wait_bounded(&request, st_patience_s(t)) == 0)
        return SHARDTAB_SUCCESS;
    *gave_up = *pending = 1;
    return st_fail(SHARDTAB_ERR_TIMEOUT,
                   "%s: %s waited %.3g s (the table's patience); some rank never came: end the job",
                   call, step, st_patience_s(t));
}

shardtab_status_t st_table_in_step(const shardtab_t *t, const char *call)
{
    if (!t->out_of_step)
        return SHARDTAB_SUCCESS;
    return st_fail(SHARDTAB_ERR_TIMEOUT,
                   "%s of table '%s' refused at once: a shardtab_destroy of table '%s' over the "
                   "same ranks gave up waiting on this rank, and its agreement may still be "
                   "pending: the ranks are out of step on these tables (a collective call now "
                   "could pair with the wrong one and wait for ever); end the job (MPI_Abort)",
                   call, t->label, t->out_of_step_from);
}

/* The label every rank gave its create, against rank 0's: a rank that creates
 * another table here (out of order) would be paired with rank 0's. Collective
 * on t->comm; an error on the ranks whose label differs, the agreement
 * after it spreading the first one's message. */
static shardtab_status_t check_label(const shardtab_t *t)
{
    char root[SHARDTAB_LABEL_MAX];

    memcpy(root, t->label, sizeof root);
    if (MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, t->comm) != MPI_SUCCESS)
        return st_fail(SHARDTAB_ERR_MPI, "MPI_Bcast of the table's label failed");
    root[sizeof root - 1] = '\0';
    if (strcmp(root, t->label) != 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "rank %d creates table '%s' where rank 0 creates '%s': creates are "
                       "collective and pair by order, so every rank must create its tables in "
                       "the same order (shardtab_create_params_t.label)",
                       t->rank, t->label, root);
    return SHARDTAB_SUCCESS;
}

/* ---- create / destroy ---------------------------------------------------- */

shardtab_status_t shardtab_create(MPI_Comm comm, void *shard, size_t bytes, shardtab_t **table)
{
    return shardtab_create_with(comm, shard, bytes, NULL, table);
}

shardtab_status_t shardtab_create_with(MPI_Comm comm, void *shard, size_t bytes,
                                       const shardtab_create_params_t *params, shardtab_t **table)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    st_descriptor_t mine, mine_pad, *descs = NULL, *pad_descs = NULL;
    shardtab_create_params_t p;
    double start = MPI_Wtime();
    int ranks_per_node = 0;
    shardtab_t *t;

    /* An empty shard is NULL to every rank, whatever pointer comes with it
     * (shardtab.h): nothing of it is checked, exported or held. */
    if (bytes == 0)
        shard = NULL;
    if (!st_rt.initialized)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_create before shardtab_init");
    else if (table == NULL)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_create: table is NULL");
    else if (shard == NULL && bytes != 0)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                         "shardtab_create: shard is NULL but bytes is %zu", bytes);
    if (status == SHARDTAB_SUCCESS)
        status = st_create_params_resolve(params, &p);
    if (status == SHARDTAB_SUCCESS && shard != NULL && (uintptr_t)shard % p.alignment != 0)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                         "shard %p is not aligned to %zu bytes, as shardtab_create_params_t."
                         "alignment asks (the kernels' vector accesses need it)",
                         shard, p.alignment);
    if (status == SHARDTAB_SUCCESS)
        status = st_ranks_per_node_from_env(&ranks_per_node);
    else
        ranks_per_node = -1;
    /* Every rank reads the variable on its own: a wrapper that sets it for some
     * ranks only would send them into different collectives. Agree on it. A
     * rank that failed already takes no part (INT_MIN leaves the maxima as
     * they are): its own cause is what the agreement below reports. */
    {
        int rpn[2] = {ranks_per_node, -ranks_per_node}, all[2] = {0, 0};
        if (status != SHARDTAB_SUCCESS)
            rpn[0] = rpn[1] = INT_MIN;
        if (MPI_Allreduce(rpn, all, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS &&
            status == SHARDTAB_SUCCESS)
            status = st_fail(SHARDTAB_ERR_MPI, "MPI_Allreduce of SHARDTAB_RANKS_PER_NODE failed");
        else if (status == SHARDTAB_SUCCESS && all[0] != -all[1])
            status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                             "SHARDTAB_RANKS_PER_NODE differs between the ranks (from %d to %d; "
                             "0 means unset): give every rank the same value (mpirun -x, or the "
                             "job's environment)",
                             -all[1], all[0]);
    }
    t = st_calloc_or_fail(1, sizeof *t, "table", &status);
    status = shardtab_agree(comm, status);
    if (status != SHARDTAB_SUCCESS) {
        free(t);
        return status;
    }
    t->comm = t->node = t->leaders = MPI_COMM_NULL;
    t->shard.what = "shard";
    t->shard.local = shard;
    t->shard.bytes = bytes;
    t->pad.what = "signal pad";
    t->stream = p.stream;
    t->signal_slots = p.signal_slots;
    if (p.label)
        snprintf(t->label, sizeof t->label, "%s", p.label);
    t->wait_timeout_s = p.wait_timeout_s;
    t->clock_hz = st_backend()->clock_hz();

    /* 1. nodes. The dup under MPI_ERRORS_RETURN, the caller's handler put
     * back after: its failure (Open MPI runs out of communicators past about
     * 32,000 live tables, two each) must be an error returned, not an abort. */
    {
        MPI_Errhandler theirs;
        int got = MPI_Comm_get_errhandler(comm, &theirs), rc;
        if (got == MPI_SUCCESS)
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        rc = MPI_Comm_dup(comm, &t->comm);
        if (got == MPI_SUCCESS) {
            MPI_Comm_set_errhandler(comm, theirs);
            MPI_Errhandler_free(&theirs);
        }
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, text, &len);
            status = st_fail(SHARDTAB_ERR_MPI,
                             "MPI_Comm_dup failed: %s; this process holds %d live table(s), and "
                             "each holds two communicators (three across nodes): destroy tables "
                             "you no longer use (MPI has a limit on communicators, about 32,000 "
                             "tables with Open MPI)",
                             text, st_live_count());
            free(t);
            return status;
        }
    }
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(t->comm, &t->rank);
    MPI_Comm_size(t->comm, &t->size);
    status = shardtab_agree(t->comm, check_label(t));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(t->comm, split_nodes(t, ranks_per_node));
    if (status != SHARDTAB_SUCCESS)
        goto err_release;

    /* 2. the signal pad */
    status = shardtab_agree(t->comm, st_table_pad_alloc(t));
    if (status != SHARDTAB_SUCCESS)
        goto err_release;

    /* 3. export */
    descs = st_calloc_or_fail((size_t)t->node_size, sizeof *descs, "descriptors", &status);
    pad_descs = st_calloc_or_fail((size_t)t->node_size, sizeof *pad_descs, "descriptors", &status);
    if (status == SHARDTAB_SUCCESS)
        status = st_fault_check(ST_FAULT_EXPORT);
    if (status == SHARDTAB_SUCCESS)
        status = st_region_export(t, &t->shard, &mine);
    if (status == SHARDTAB_SUCCESS)
        status = st_region_export(t, &t->pad, &mine_pad);
    status = shardtab_agree(t->comm, status);
    if (status != SHARDTAB_SUCCESS)
        goto err_release;

    /* 4. exchange, 5. peer access */
    status = shardtab_agree(t->comm, st_table_exchange(t, &mine, descs));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(t->comm, st_table_exchange(t, &mine_pad, pad_descs));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(t->comm, st_table_pads_check(t, pad_descs));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(t->comm, st_table_peer_access_check(t, descs));
    if (status != SHARDTAB_SUCCESS)
        goto err_release;

    /* 6. open */
    status = shardtab_agree(t->comm, st_table_peers_open(t, descs, pad_descs));
    if (status != SHARDTAB_SUCCESS)
        goto err_close;

    /* 7. upload */
    status = shardtab_agree(t->comm, upload(t));
    if (status != SHARDTAB_SUCCESS)
        goto err_close;

    free(descs);
    free(pad_descs);
    t->create_ms = (MPI_Wtime() - start) * 1e3;
    t->live.table = t;
    t->live.shard = t->shard.local;
    t->live.shard_bytes = t->shard.bytes;
    t->live.rank = t->rank;
    t->live.size = t->size;
    t->live.node_rank = t->node_rank;
    st_live_add(&t->live);
    *table = t;
    return SHARDTAB_SUCCESS;

err_close:
    st_table_peers_close(t);
    /* nobody may free a shard or pad a peer still maps */
    MPI_Barrier(t->comm);
err_release:
    free(descs);
    free(pad_descs);
    if (t->device_table)
        st_backend()->mem_free(t->device_table);
    if (t->pad.local)
        st_pad_free(t->pad.local);
    table_release_host(t);
    return status;
}

shardtab_status_t shardtab_destroy(shardtab_t **table)
{
    shardtab_status_t status, closed, freed, pad_freed;
    shardtab_t *t;

    /* Not live (NULL, destroyed already, a stale copy): a local error and no
     * collective, so this rank never waits alone. Its peers, if they destroy
     * the table, wait for it in the first agreement below, which says so. */
    if (table == NULL || *table == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shardtab_destroy: no table (NULL, or destroyed already); destroying is "
                       "collective: every rank of the table passes the same live table, once");
    if (!st_live_remove(&(*table)->live))
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shardtab_destroy(%p): not a live table of this process (destroyed "
                       "already, or never created); destroying is collective: every rank of "
                       "the table passes the same live table, once",
                       (void *)*table);
    t = *table;
    status = st_table_in_step(t, "shardtab_destroy");
    if (status != SHARDTAB_SUCCESS) {
        /* no collective: the table is gone on this rank, its resources held */
        *table = NULL;
        return status;
    }

    /* Kernels still running may read peers, barriers may run on other streams:
     * finish them everywhere first. */
    status = st_backend()->stream_synchronize(t->stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->barrier_wait(t->barrier_order);
    {
        int pending = 0;
        status = agree_patiently(t, status, "shardtab_destroy", &pending);
        if (pending) {
            /* the peers never came: nothing here may wait for them again, nor
             * free what they may still map; the table is gone on this rank,
             * and every table over the same ranks is out of step */
            st_tables_out_of_step(t);
            *table = NULL;
            return status;
        }
    }
    closed = shardtab_agree(t->comm, st_table_peers_close(t));
    freed = st_backend()->mem_free(t->device_table);
    if (t->coll_scratch != NULL) {
        shardtab_status_t scratch_freed = st_backend()->mem_free(t->coll_scratch);
        if (freed == SHARDTAB_SUCCESS)
            freed = scratch_freed;
    }
    pad_freed = st_pad_free(t->pad.local); /* no importer uses it any more */
    /* one answer on every rank, so that no caller goes on alone */
    freed = shardtab_agree(t->comm, freed != SHARDTAB_SUCCESS ? freed : pad_freed);
    table_release_host(t);
    *table = NULL;
    if (status == SHARDTAB_SUCCESS)
        status = closed;
    if (status == SHARDTAB_SUCCESS)
        status = freed;
    return status;
}
