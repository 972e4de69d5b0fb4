/* collectives.c - the stream-ordered collectives over a table's shards
 * (shardtab_all_reduce, _broadcast, _all_gather): the checks of a call, the
 * choice of algorithm, its scratch buffer; the phases every rank of the node
 * runs are collective_phases.c's, and a call that spans nodes goes on to
 * collectives_nodes.c (MPI between the nodes). Above the backend and the
 * device layer, beside shardtab.c (table.h: the table's layout). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "call_word.h" /* the algorithms, the limits of a call's words */
#include "collective_body.h"
#include "collective_call.h"
#include "internal.h"
#include "table.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where one-shot hands over to two-shot, by default: one H200 under MPS
 * (docs/performance.md), one-shot was faster up to 8 MiB a rank at 2 ranks
 * and up to 4 MiB at 4, two-shot from 16 and 8 MiB */
#define ST_CUTOVER_DEFAULT ((size_t)4 << 20)
/* Up to this many bytes a rank, auto takes one block in one kernel
 * (ST_PHASE_ONE_BLOCK; up to ST_LL_BYTES, ST_PHASE_LL): its cost is its
 * syncs, not its bandwidth */
#define ST_ONE_BLOCK_MAX ((size_t)64 << 10)
/* ... but SHARDTAB_SUM_EXACT only up to this many: its one block adds value
 * by value (two TwoSums each). On one H100 under MPS, 2 / 4 ranks, with two
 * elements a thread in flight: one block took 18 / 30 us at 16 KiB a rank and
 * 24 / 41 at 32 KiB, one-shot 22 / 38 and 22.5 / 38.5 (docs/performance.md) */
#define ST_ONE_BLOCK_EXACT_MAX ((size_t)16 << 10)

/* SHARDTAB_ALL_REDUCE_ALGO and SHARDTAB_ALL_REDUCE_CUTOVER, checked. */
static shardtab_status_t choose_algorithm(st_call_t *c)
{
    const char *algo = getenv("SHARDTAB_ALL_REDUCE_ALGO");
    const char *cut = getenv("SHARDTAB_ALL_REDUCE_CUTOVER");
    size_t cutover = ST_CUTOVER_DEFAULT;

    if (cut != NULL && *cut != '\0') {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(cut, &end, 10);
        if (*cut < '0' || *cut > '9' || *end != '\0' || errno == ERANGE || v > SIZE_MAX)
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "SHARDTAB_ALL_REDUCE_CUTOVER='%s' is not a number of bytes", cut);
        cutover = (size_t)v;
    }
    const size_t one_block_max =
        c->op == SHARDTAB_SUM_EXACT ? ST_ONE_BLOCK_EXACT_MAX : ST_ONE_BLOCK_MAX;
    if (algo == NULL || *algo == '\0' || strcmp(algo, "auto") == 0)
        c->algo = c->bytes <= one_block_max && c->bytes <= cutover ? ST_ALGO_ONE_BLOCK
                  : c->bytes <= cutover                            ? ST_ALGO_ONE_SHOT
                                                                   : ST_ALGO_TWO_SHOT;
    else if (strcmp(algo, "one-block") == 0)
        c->algo = ST_ALGO_ONE_BLOCK;
    else if (strcmp(algo, "one-shot") == 0)
        c->algo = ST_ALGO_ONE_SHOT;
    else if (strcmp(algo, "two-shot") == 0)
        c->algo = ST_ALGO_TWO_SHOT;
    else
        return st_fail(
            SHARDTAB_ERR_INVALID_ARG,
            "SHARDTAB_ALL_REDUCE_ALGO='%s': expected one-block, one-shot, two-shot or auto", algo);
    return SHARDTAB_SUCCESS;
}

/* This rank's own checks of a call. */
static shardtab_status_t check_call(const shardtab_t *t, st_call_t *c)
{
    size_t size, elements;

    if (c->type < 0 || c->type >= SHARDTAB_TYPE_COUNT)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: unknown type %d (expected SHARDTAB_FLOAT, "
                       "SHARDTAB_DOUBLE or SHARDTAB_INT64)",
                       c->name, c->type);
    if (c->kind == ST_STREAM_ALL_REDUCE && (c->op < 0 || c->op >= SHARDTAB_OP_COUNT))
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: unknown op %d (expected SHARDTAB_SUM, "
                       "SHARDTAB_MIN or SHARDTAB_MAX)",
                       c->name, c->op);
    if (c->kind == ST_STREAM_ALL_REDUCE && c->op == SHARDTAB_SUM_EXACT && c->type == SHARDTAB_INT64)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: SHARDTAB_SUM_EXACT of SHARDTAB_INT64: an int64 sum is exact already "
                       "(use SHARDTAB_SUM); SHARDTAB_SUM_EXACT is for SHARDTAB_FLOAT and "
                       "SHARDTAB_DOUBLE",
                       c->name);
    if (c->kind == ST_STREAM_BROADCAST &&
        (c->root < 0 || c->root >= t->size || c->root > ST_CALL_ROOT_MAX))
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: root %d is outside the table's %d ranks%s",
                       c->name, c->root, t->size,
                       c->root > ST_CALL_ROOT_MAX && c->root < t->size
                           ? " (a root above 4095 is not supported)"
                           : "");
    size = st_type_size(c->type);
    if (c->offset % size != 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: byte offset %zu is not a multiple of the "
                       "%zu-byte %s",
                       c->name, c->offset, size, st_coll_type_name(c->type));
    if (c->count > ST_COUNT_MAX)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: count %zu is above %zu elements", c->name,
                       c->count, ST_COUNT_MAX);
    elements = c->kind == ST_STREAM_ALL_GATHER ? c->count * (size_t)t->size : c->count;
    c->bytes = elements * size;
    if (c->offset > t->shard.bytes)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: byte offset %zu is past this rank's shard of "
                       "%zu bytes",
                       c->name, c->offset, t->shard.bytes);
    if (c->bytes > t->shard.bytes - c->offset)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: %zu %s values from byte %zu need %zu bytes, past this rank's shard "
                       "of %zu bytes",
                       c->name, elements, st_coll_type_name(c->type), c->offset,
                       c->offset + c->bytes, t->shard.bytes);
    return c->kind == ST_STREAM_ALL_REDUCE ? choose_algorithm(c) : SHARDTAB_SUCCESS;
}

static shardtab_status_t ensure_scratch(shardtab_t *t, size_t bytes)
{
    void *grown = NULL;
    shardtab_status_t status;

    if (bytes <= t->coll_scratch_bytes)
        return SHARDTAB_SUCCESS;
    /* the old one may still be in use by an enqueued collective */
    if (t->coll_scratch != NULL) {
        status = st_backend()->stream_synchronize(NULL);
        if (status == SHARDTAB_SUCCESS)
            status = st_backend()->barrier_wait(t->barrier_order);
        if (status == SHARDTAB_SUCCESS)
            status = st_backend()->mem_free(t->coll_scratch);
        if (status != SHARDTAB_SUCCESS)
            return status;
        t->coll_scratch = NULL;
        t->coll_scratch_bytes = 0;
    }
    status = st_backend()->mem_alloc(bytes, &grown);
    if (status != SHARDTAB_SUCCESS)
        return status;
    t->coll_scratch = grown;
    t->coll_scratch_bytes = bytes;
    return SHARDTAB_SUCCESS;
}

/* ---- the calls --------------------------------------------------------------------- */

/* One node whose node ranks are its comm ranks (the all-gather's layout). */
static int single_node_order(const shardtab_t *t)
{
    for (int q = 0; q < t->node_size; q++)
        if (t->members[q] != q)
            return 0;
    return t->node_count == 1;
}

static shardtab_status_t collective(shardtab_t *t, st_call_t *c, shardtab_stream_t stream)
{
    shardtab_status_t status, local;

    st_fault_stall(ST_FAULT_COLL_ENTER);
    status = st_check_table(t, c->name); /* NULL, destroyed, or never a table */
    if (status == SHARDTAB_SUCCESS)
        status = st_table_in_step(t, c->name); /* no collective after a destroy gave up */
    if (status == SHARDTAB_SUCCESS && t->node_count == 1 && single_node_order(t))
        status = st_table_stopped(t, c->name); /* across nodes: refused in across_nodes */
    if (status != SHARDTAB_SUCCESS)
        return status;
    local = check_call(t, c);
    /* the scratch buffer of a one-block or one-shot all-reduce, grown before
     * any rank moves: a rank that cannot have it stops the node with its own
     * message, as a rank whose call failed its checks does */
    if (local == SHARDTAB_SUCCESS && c->kind == ST_STREAM_ALL_REDUCE && t->node_size > 1 &&
        (c->algo == ST_ALGO_ONE_BLOCK || c->algo == ST_ALGO_ONE_SHOT) &&
        !st_coll_in_sync_words(c)) {
        local = ensure_scratch(t, c->bytes);
        if (local != SHARDTAB_SUCCESS) {
            char why[ST_ERROR_BYTES];
            snprintf(why, sizeof why, "%s", shardtab_last_error() + st_error_prefix_bytes());
            local =
                st_fail(local, "%s: its scratch buffer of %zu bytes: %s", c->name, c->bytes, why);
        }
    }
    if (t->node_count > 1 || !single_node_order(t)) {
        /* host-synchronous, the checks agreed by MPI first */
        if (local == SHARDTAB_SUCCESS && c->bytes > (size_t)INT32_MAX)
            local = st_fail(SHARDTAB_ERR_UNSUPPORTED,
                            "%s: %zu bytes across nodes: the MPI stage "
                            "takes at most 2 GiB a call",
                            c->name, c->bytes);
        return st_coll_across_nodes(t, c, local, stream);
    }
    if (t->node_size == 1)
        return local; /* alone on its node and in the table: nothing moves */
    status = st_backend()->order_begin(stream, &t->barrier_order);
    if (status != SHARDTAB_SUCCESS)
        return status;
    if (local != SHARDTAB_SUCCESS) {
        /* stop the node: a sync whose words no rank's can match; this rank
         * reports its own message, the others learn it from their pads */
        char message[ST_ERROR_BYTES];
        snprintf(message, sizeof message, "%s", shardtab_last_error() + st_error_prefix_bytes());
        st_table_stop(t, local, message); /* what signal_check will say here */
        st_coll_stop_sync(t, stream);
        (void)st_backend()->order_end(stream, t->barrier_order);
        return shardtab_error_set_message(local, message);
    }
    status = st_coll_node_phases(t, c, stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->order_end(stream, t->barrier_order);
    return status;
}

shardtab_status_t shardtab_all_reduce(shardtab_t *table, shardtab_op_t op, shardtab_type_t type,
                                      size_t offset, size_t count, shardtab_stream_t stream)
{
    st_call_t c = {ST_STREAM_ALL_REDUCE, (int)op, (int)type, 0, offset, count, 0, 0,
                   "shardtab_all_reduce"};
    return collective(table, &c, stream);
}

shardtab_status_t shardtab_broadcast(shardtab_t *table, int root, shardtab_type_t type,
                                     size_t offset, size_t count, shardtab_stream_t stream)
{
    st_call_t c = {ST_STREAM_BROADCAST, SHARDTAB_SUM, (int)type, root, offset, count, 0, 0,
                   "shardtab_broadcast"};
    return collective(table, &c, stream);
}

shardtab_status_t shardtab_all_gather(shardtab_t *table, shardtab_type_t type, size_t offset,
                                      size_t count, shardtab_stream_t stream)
{
    st_call_t c = {ST_STREAM_ALL_GATHER, SHARDTAB_SUM, (int)type, 0, offset, count, 0, 0,
                   "shardtab_all_gather"};
    return collective(table, &c, stream);
}
