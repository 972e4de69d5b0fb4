/* collectives_nodes.c - the stream-ordered collectives across nodes: the
 * table inside each node, MPI between the nodes' leaders, each MPI step
 * bounded by the table's patience; the ranks' calls compared first.
 * collectives.c sends a call here when it spans nodes. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "call_word.h"
#include "collective_body.h"
#include "collective_call.h"
#include "internal.h"
#include "mpi_steps.h"
#include "table.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- across nodes: the table inside each node, MPI between them ------------------- */

/* Every rank's call, compared by MPI (the path across nodes is host-synchronous
 * anyway), field by field: the first rank whose call differs from rank 0's is
 * named, with both calls spelled out. */
enum { ST_CALL_FIELDS = 7 };
static void call_fields(const st_call_t *c, uint64_t f[ST_CALL_FIELDS])
{
    f[0] = (uint64_t)c->kind;
    f[1] = (uint64_t)c->op;
    f[2] = (uint64_t)c->type;
    f[3] = (uint64_t)c->root;
    f[4] = (uint64_t)c->algo;
    f[5] = (uint64_t)c->offset;
    f[6] = (uint64_t)c->count;
}

static void describe_fields(const uint64_t *f, char *out, size_t bytes)
{
    snprintf(out, bytes, "%s (op %llu, type %s, root %llu, %s, byte offset %llu, count %llu)",
             st_call_kind_name(f[0]), (unsigned long long)f[1], st_coll_type_name((int)f[2]),
             (unsigned long long)f[3], st_call_algo_name(f[4]), (unsigned long long)f[5],
             (unsigned long long)f[6]);
}

/* The lowest rank whose call differs from rank 0's, and both calls, named on
 * every rank alike: rank 0's call broadcast, each rank's verdict on its own
 * reduced, that rank's call broadcast. Only once the first agreement found
 * the calls differ. */
static shardtab_status_t name_difference(st_steps_t *s, const st_call_t *c)
{
    shardtab_t *t = s->t;
    /* [0] rank 0's call, [1] the differing rank's, [2][0] this rank's key,
     * [2][1] the least; on the heap, never freed while a step is pending */
    uint64_t(*calls)[ST_CALL_FIELDS] = malloc(3 * sizeof *calls), mine[ST_CALL_FIELDS];
    shardtab_status_t status =
        calls ? SHARDTAB_SUCCESS
              : st_fail(SHARDTAB_ERR_NO_MEMORY, "%s: malloc of 3 calls failed", c->name);
    char first[200], other[200];
    MPI_Request request;

    call_fields(c, mine);
    status = st_steps_agree(s, status, "the agreement before the calls' difference is named");
    if (status == SHARDTAB_SUCCESS) {
        memcpy(calls[0], mine, sizeof mine);
        status = st_steps_wait(
            s, MPI_Ibcast(calls[0], ST_CALL_FIELDS, MPI_UINT64_T, 0, t->comm, &request), &request,
            "MPI_Ibcast of rank 0's call", "the broadcast of rank 0's call");
    }
    if (status == SHARDTAB_SUCCESS) {
        calls[2][0] = memcmp(calls[0], mine, sizeof mine) != 0 ? (uint64_t)t->rank : UINT64_MAX;
        status = st_steps_wait(
            s,
            MPI_Iallreduce(&calls[2][0], &calls[2][1], 1, MPI_UINT64_T, MPI_MIN, t->comm, &request),
            &request, "MPI_Iallreduce of the ranks whose call differs",
            "the search for the rank whose call differs");
    }
    if (status == SHARDTAB_SUCCESS) {
        memcpy(calls[1], mine, sizeof mine);
        status = st_steps_wait(
            s,
            MPI_Ibcast(calls[1], ST_CALL_FIELDS, MPI_UINT64_T, (int)calls[2][1], t->comm, &request),
            &request, "MPI_Ibcast of the differing rank's call",
            "the broadcast of the differing rank's call");
    }
    if (status == SHARDTAB_SUCCESS) {
        describe_fields(calls[0], first, sizeof first);
        describe_fields(calls[1], other, sizeof other);
        status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                         "%s: the ranks disagree on the call: rank 0 called %s, rank %d %s; "
                         "every rank must make the same calls, in the same order, with the same "
                         "arguments",
                         c->name, first, (int)calls[2][1], other);
    }
    if (!s->gave_up) /* pending: a late rank may still write into it */
        free(calls);
    return status; /* every rank computed the same */
}

/* The call's first agreement, which compares the ranks' calls in the same
 * reduction: the minimum of each field and of its complement (the maximum)
 * over the ranks; a field whose two differ was called differently. */
static shardtab_status_t first_agreement(st_steps_t *s, const st_call_t *c, shardtab_status_t local)
{
    uint64_t words[2 * ST_CALL_FIELDS];
    shardtab_status_t status;

    call_fields(c, words);
    for (int i = 0; i < ST_CALL_FIELDS; i++)
        words[ST_CALL_FIELDS + i] = ~words[i];
    st_fault_stall(ST_FAULT_COLL_ARGS);
    status = st_steps_agree_min(s, local, words, 2 * ST_CALL_FIELDS, "the call's first agreement");
    for (int i = 0; i < ST_CALL_FIELDS && status == SHARDTAB_SUCCESS; i++)
        if (words[i] != ~words[ST_CALL_FIELDS + i])
            return name_difference(s, c);
    return status;
}

/* The region of this rank's shard to or from the host, on stream, waited for. */
static shardtab_status_t region_copy(shardtab_t *t, void *host, size_t offset, size_t bytes,
                                     int to_host, shardtab_stream_t stream)
{
    return st_steps_copy((char *)t->shard.local + offset, host, bytes, to_host, stream);
}

/* The call's staging through the host. */
typedef struct {
    char *host; /* the region's bytes */
    char *all;  /* every rank's values (an exact sum's), or every node's result (a leader's) */
} stage_t;

/* What this rank does on its own before the call's first agreement, so that
 * its failure goes into it: the table not stopped (the ranks of other nodes
 * may not know it stopped), the work it enqueued before the call done, and
 * the host stage allocated (zeroed: a rank whose copy fails later still sends
 * it). Nothing of the table is read yet: another rank's writes into this
 * shard are done only once every rank has passed the agreement. */
static shardtab_status_t prepare(shardtab_t *t, const st_call_t *c, stage_t *g,
                                 shardtab_stream_t stream)
{
    const int ranks = c->op == SHARDTAB_SUM_EXACT              ? t->size
                      : t->node_rank == 0 && t->node_count > 1 ? t->node_count
                                                               : 0;
    shardtab_status_t status = st_table_stopped(t, c->name);

    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(stream);
    if (status != SHARDTAB_SUCCESS || c->bytes == 0)
        return status;
    g->host = calloc(1, c->bytes);
    if (g->host == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY,
                       "%s: malloc of %zu bytes to stage through the host failed", c->name,
                       c->bytes);
    if (c->kind != ST_STREAM_ALL_REDUCE || ranks == 0)
        return SHARDTAB_SUCCESS;
    g->all = malloc(c->bytes * (size_t)ranks);
    if (g->all == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "%s: malloc of %d %s' %zu bytes failed", c->name,
                       ranks, c->op == SHARDTAB_SUM_EXACT ? "ranks" : "nodes", c->bytes);
    return SHARDTAB_SUCCESS;
}

/* A step that moves data, entered by every rank whatever its own copy before
 * it gave (status): a failed copy is carried to the next agreement rather
 * than skipping the step, so that the ranks stay in step. */
static shardtab_status_t move(st_steps_t *s, shardtab_status_t status, int rc, MPI_Request *request,
                              const char *what, const char *step)
{
    shardtab_status_t moved = st_steps_wait(s, rc, request, what, step);
    return status != SHARDTAB_SUCCESS && !s->gave_up ? status : moved;
}

/* SHARDTAB_SUM_EXACT across nodes: rounded node results cannot be combined
 * exactly, so every rank's own values go to every rank (one all-gather over
 * the table's ranks, no node phases) and each rank sums them exactly, element
 * by element, rounding once (shardtab/exact.h): the bits one node's table
 * gives. */
static shardtab_status_t exact_across_nodes(st_steps_t *s, const st_call_t *c, stage_t *g,
                                            shardtab_stream_t stream)
{
    shardtab_t *t = s->t;
    shardtab_status_t status = region_copy(t, g->host, c->offset, c->bytes, 1, stream);
    MPI_Request request;

    if (c->bytes > 0) {
        st_fault_stall(ST_FAULT_COLL_LEADERS);
        status = move(s, status,
                      MPI_Iallgather(g->host, (int)c->bytes, MPI_BYTE, g->all, (int)c->bytes,
                                     MPI_BYTE, t->comm, &request),
                      &request, "MPI_Iallgather of every rank's values (SHARDTAB_SUM_EXACT)",
                      "the values' all-gather");
    }
    for (size_t i = 0; i < c->count && status == SHARDTAB_SUCCESS; i++) {
        shardtab_detail_exact_few_t sum;
        int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS]; /* its spill */
        shardtab_detail_exact_few_start(&sum, limbs, c->type,
                                        shardtab_detail_value_word(c->type, g->all, i));
        for (int rank = 1; rank < t->size; rank++)
            shardtab_detail_exact_few_add_word(
                &sum, c->type,
                shardtab_detail_value_word(c->type, g->all + (size_t)rank * c->bytes, i));
        shardtab_detail_value_store(c->type, g->host, i,
                                    shardtab_detail_exact_few_word(&sum, c->type));
    }
    if (status == SHARDTAB_SUCCESS)
        status = region_copy(t, g->host, c->offset, c->bytes, 0, stream);
    return status;
}

/* The data's steps, once every rank's preparation and call are agreed. */
static shardtab_status_t across_nodes(st_steps_t *s, const st_call_t *c, stage_t *g,
                                      shardtab_stream_t stream)
{
    shardtab_t *t = s->t;
    char *host = g->host, *all = g->all;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    MPI_Request request;

    if (c->kind == ST_STREAM_BROADCAST) {
        if (t->rank == c->root)
            status = region_copy(t, host, c->offset, c->bytes, 1, stream);
        if (c->bytes > 0) {
            st_fault_stall(ST_FAULT_COLL_RESULT);
            status = move(s, status,
                          MPI_Ibcast(host, (int)c->bytes, MPI_BYTE, c->root, t->comm, &request),
                          &request, "MPI_Ibcast of a broadcast's region", "the broadcast");
        }
        if (status == SHARDTAB_SUCCESS && t->rank != c->root)
            status = region_copy(t, host, c->offset, c->bytes, 0, stream);
        goto agreed;
    }
    if (c->kind == ST_STREAM_ALL_GATHER) {
        const size_t piece = c->count * st_type_size(c->type);
        status = region_copy(t, host + (size_t)t->rank * piece, c->offset + (size_t)t->rank * piece,
                             piece, 1, stream);
        if (piece > 0) {
            st_fault_stall(ST_FAULT_COLL_RESULT);
            status = move(s, status,
                          MPI_Iallgather(MPI_IN_PLACE, 0, MPI_BYTE, host, (int)piece, MPI_BYTE,
                                         t->comm, &request),
                          &request, "MPI_Iallgather of an all-gather's pieces", "the all-gather");
        }
        if (status == SHARDTAB_SUCCESS)
            status = region_copy(t, host, c->offset, c->bytes, 0, stream);
        goto agreed;
    }
    if (c->op == SHARDTAB_SUM_EXACT) {
        status = exact_across_nodes(s, c, g, stream);
        goto agreed;
    }
    /* all-reduce: inside the node first, through the table */
    if (t->node_size > 1) {
        status = st_backend()->order_begin(stream, &t->barrier_order);
        if (status == SHARDTAB_SUCCESS)
            status = st_coll_node_phases(t, c, stream);
        if (status == SHARDTAB_SUCCESS)
            status = st_backend()->order_end(stream, t->barrier_order);
        if (status == SHARDTAB_SUCCESS)
            status = st_backend()->stream_synchronize(stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_signal_check(t);
    }
    st_fault_stall(ST_FAULT_COLL_NODE);
    status = st_steps_agree(s, status, "the agreement after the node's phases");
    if (status != SHARDTAB_SUCCESS)
        return status;
    if (t->node_rank == 0) {
        /* every node's result, reduced in node order: the same bits on every node */
        status = region_copy(t, host, c->offset, c->bytes, 1, stream);
        if (c->bytes > 0 && t->node_count > 1) { /* one node (ranks out of order): host holds it */
            st_fault_stall(ST_FAULT_COLL_LEADERS);
            status =
                move(s, status,
                     MPI_Iallgather(host, (int)c->bytes, MPI_BYTE, all, (int)c->bytes, MPI_BYTE,
                                    t->leaders, &request),
                     &request, "MPI_Iallgather of the nodes' results", "the leaders' all-gather");
            for (size_t i = 0; i < c->count && status == SHARDTAB_SUCCESS; i++) {
                uint64_t acc = shardtab_detail_value_word(c->type, all, i);
                for (int node = 1; node < t->node_count; node++)
                    acc = shardtab_detail_value_combine(
                        c->op, c->type, acc,
                        shardtab_detail_value_word(c->type, all + (size_t)node * c->bytes, i));
                shardtab_detail_value_store(c->type, host, i, acc);
            }
        }
    }
    if (s->gave_up)
        return status;
    /* a leader's failure reaches its node before the node's broadcast */
    status = st_steps_agree(s, status, "the agreement after the leaders' all-gather");
    if (status == SHARDTAB_SUCCESS && c->bytes > 0) {
        st_fault_stall(ST_FAULT_COLL_RESULT);
        status = st_steps_wait(s, MPI_Ibcast(host, (int)c->bytes, MPI_BYTE, 0, t->node, &request),
                               &request, "MPI_Ibcast of the result inside the node",
                               "the node's broadcast of the result");
    }
    if (status == SHARDTAB_SUCCESS)
        status = region_copy(t, host, c->offset, c->bytes, 0, stream);
agreed:
    if (s->gave_up)
        return status;
    st_fault_stall(ST_FAULT_COLL_END);
    return st_steps_agree(s, status, "the call's last agreement");
}

/* The call across nodes, every step bounded (mpi_steps.h): a rank that never
 * comes (stopped, stuck, gone) must not hold the others here. Each rank
 * prepares on its own, then one agreement takes every rank's checks,
 * preparation and call at once, then the data moves, then the last agreement. */
shardtab_status_t st_coll_across_nodes(shardtab_t *t, const st_call_t *c, shardtab_status_t local,
                                       shardtab_stream_t stream)
{
    st_steps_t steps = {t, c->name, 0, NULL};
    stage_t stage = {NULL, NULL};
    shardtab_status_t status;

    if (local == SHARDTAB_SUCCESS)
        local = prepare(t, c, &stage, stream);
    status = first_agreement(&steps, c, local);
    if (status == SHARDTAB_SUCCESS)
        status = across_nodes(&steps, c, &stage, stream);
    if (!steps.gave_up) { /* pending: a late rank may still write into them */
        free(stage.host);
        free(stage.all);
    }
    return status;
}
