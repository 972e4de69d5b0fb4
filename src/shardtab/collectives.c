/* collectives.c - the stream-ordered collectives over a table's shards
 * (shardtab_all_reduce, _broadcast, _all_gather): the checks of a call, the
 * choice of algorithm, the sequence of phases every rank runs (the element
 * loops are collective_body.h's, run by the backend); a call that spans nodes
 * goes on to collectives_nodes.c (MPI between the nodes). Above the backend
 * and the device layer, beside shardtab.c (table.h: the table's layout;
 * call_word.h: what the ranks match). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "call_word.h"
#include "collective_body.h"
#include "collectives.h"
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

const char *st_coll_type_name(int type)
{
    return type == SHARDTAB_FLOAT    ? "float"
           : type == SHARDTAB_DOUBLE ? "double"
           : type == SHARDTAB_INT64  ? "int64"
                                     : "unknown";
}

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
    if (algo == NULL || *algo == '\0' || strcmp(algo, "auto") == 0)
        c->algo = c->bytes <= ST_ONE_BLOCK_MAX && c->bytes <= cutover ? ST_ALGO_ONE_BLOCK
                  : c->bytes <= cutover                               ? ST_ALGO_ONE_SHOT
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

/* An all-reduce whose values travel in its one sync's words (ST_PHASE_LL):
 * one-block, at most ST_LL_BYTES; no scratch buffer. */
static int in_sync_words(const st_call_t *c)
{
    return c->kind == ST_STREAM_ALL_REDUCE && c->algo == ST_ALGO_ONE_BLOCK &&
           c->bytes <= ST_LL_BYTES;
}

/* The words every rank's call must match (the sync phase carries them). */
static void call_words(const st_call_t *c, uint64_t args[ST_SYNC_ARGS])
{
    args[0] = (uint64_t)c->offset;
    args[1] = st_call_word_pack(c->kind, c->op, c->type, c->root, c->algo, (uint64_t)c->count);
}

/* The phase every step of this call starts from. */
static st_coll_phase_t base_phase(const shardtab_t *t, const st_call_t *c)
{
    st_coll_phase_t p;
    uintptr_t aligned = (uintptr_t)c->offset;

    memset(&p, 0, sizeof p);
    (void)shardtab_signals(t, &p.sig);
    p.op = c->op;
    p.type = c->type;
    p.table = (void *const *)t->device_table;
    p.offset = c->offset;
    p.count = c->kind == ST_STREAM_ALL_GATHER ? c->count * (size_t)t->node_size : c->count;
    /* every rank's region 16-byte aligned: the host table's entries keep each
     * peer's alignment (a mapping starts a page, at the owner's offset in it) */
    for (int q = 0; q < t->node_size; q++)
        aligned |= (uintptr_t)t->shard.entries[q];
    p.vec16 = aligned % 16 == 0;
    call_words(c, p.args);
    return p;
}

static shardtab_status_t run_phase(st_coll_phase_t *p, int phase, size_t begin, size_t end,
                                   shardtab_stream_t stream)
{
    p->phase = phase;
    p->begin = begin;
    p->end = end;
    return st_backend()->collective_phase(p, stream);
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

/* The phases inside one node (node_size > 1), enqueued on stream. */
shardtab_status_t st_coll_node_phases(shardtab_t *t, const st_call_t *c, shardtab_stream_t stream)
{
    st_coll_phase_t p = base_phase(t, c);
    const int n = t->node_size, me = t->node_rank;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    if (in_sync_words(c)) {
        p.dst = (char *)t->shard.entries[me] + c->offset;
        return run_phase(&p, ST_PHASE_LL, 0, p.count, stream);
    }
    if (c->kind == ST_STREAM_ALL_REDUCE && c->algo == ST_ALGO_ONE_BLOCK) {
        p.dst = p.scratch = t->coll_scratch;
        return run_phase(&p, ST_PHASE_ONE_BLOCK, 0, p.count, stream);
    }
    if (c->kind == ST_STREAM_ALL_REDUCE && c->algo == ST_ALGO_ONE_SHOT) {
        p.dst = p.scratch = t->coll_scratch;
        status = run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
        st_fault_stall(ST_FAULT_COLL_PHASE);
        if (status == SHARDTAB_SUCCESS)
            status = run_phase(&p, ST_PHASE_REDUCE, 0, p.count, stream);
        if (status == SHARDTAB_SUCCESS) /* every rank has read every region */
            status = run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
        p.src_rank = -1; /* the results, from the scratch buffer */
        if (status == SHARDTAB_SUCCESS)
            status = run_phase(&p, ST_PHASE_COPY, 0, p.count, stream);
        return status;
    }
    if (c->kind == ST_STREAM_ALL_REDUCE) { /* two-shot */
        size_t chunk = (p.count + (size_t)n - 1) / (size_t)n;
        chunk = (chunk + 3) / 4 * 4; /* whole 16-byte vectors */
        size_t begin = (size_t)me * chunk, end = begin + chunk;
        if (begin > p.count)
            begin = p.count;
        if (end > p.count)
            end = p.count;
        p.chunk = chunk;
        p.dst = (char *)t->shard.entries[me] + c->offset; /* this rank's region */
        status = run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
        st_fault_stall(ST_FAULT_COLL_PHASE);
        if (status == SHARDTAB_SUCCESS) /* reduce-scatter: this rank's chunk, in place */
            status = run_phase(&p, ST_PHASE_REDUCE, begin, end, stream);
        if (status == SHARDTAB_SUCCESS) /* every chunk reduced */
            status = run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
        if (status == SHARDTAB_SUCCESS) /* all-gather: every other chunk from its owner */
            status = run_phase(&p, ST_PHASE_CHUNKS, 0, 0, stream);
        if (status == SHARDTAB_SUCCESS) /* nobody still reads a chunk its owner may change */
            status = run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
        return status;
    }
    if (c->kind == ST_STREAM_BROADCAST) {
        int root = t->node_rank_of[c->root];
        status = run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
        p.src_rank = root;
        if (status == SHARDTAB_SUCCESS && me != root)
            status = run_phase(&p, ST_PHASE_COPY, 0, p.count, stream);
        if (status == SHARDTAB_SUCCESS) /* the root keeps its region until everyone has it */
            status = run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
        return status;
    }
    p.chunk = c->count; /* all-gather: node rank q's elements at q * count */
    status = run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
    if (status == SHARDTAB_SUCCESS)
        status = run_phase(&p, ST_PHASE_CHUNKS, 0, 0, stream);
    if (status == SHARDTAB_SUCCESS)
        status = run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
    return status;
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
        (c->algo == ST_ALGO_ONE_BLOCK || c->algo == ST_ALGO_ONE_SHOT) && !in_sync_words(c)) {
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
        st_coll_phase_t p;
        memset(&p, 0, sizeof p);
        (void)shardtab_signals(t, &p.sig);
        p.args[0] = ST_ARGS_INVALID;
        p.args[1] = ST_ARGS_INVALID;
        (void)run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
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
