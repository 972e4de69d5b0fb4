/* collective_phases.c - a collective call's phases inside one node: the phase
 * every step starts from (the call's words every rank must match, the table,
 * the alignment), the sequence of phases of each call and algorithm, run by the
 * backend (the element loops are collective_body.h's), and the sync that stops
 * the node. Below collectives.c (the calls, their checks, the algorithm) and
 * collectives_nodes.c (the calls across nodes), which both run these. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "call_word.h"
#include "collective_body.h"
#include "collective_call.h"
#include "internal.h"
#include "table.h"

#include <stdint.h>
#include <string.h>

const char *st_coll_type_name(int type)
{
    return type == SHARDTAB_FLOAT    ? "float"
           : type == SHARDTAB_DOUBLE ? "double"
           : type == SHARDTAB_INT64  ? "int64"
                                     : "unknown";
}

/* An all-reduce whose values travel in its one sync's words (ST_PHASE_LL):
 * one-block, at most ST_LL_BYTES; no scratch buffer. */
int st_coll_in_sync_words(const st_call_t *c)
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

/* The phases inside one node (node_size > 1), enqueued on stream. */
shardtab_status_t st_coll_node_phases(shardtab_t *t, const st_call_t *c, shardtab_stream_t stream)
{
    st_coll_phase_t p = base_phase(t, c);
    const int n = t->node_size, me = t->node_rank;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    if (st_coll_in_sync_words(c)) {
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

/* A sync whose words no rank's call can match: the node's other ranks stop at
 * it and learn this rank's failure from its pad. */
void st_coll_stop_sync(shardtab_t *t, shardtab_stream_t stream)
{
    st_coll_phase_t p;

    memset(&p, 0, sizeof p);
    (void)shardtab_signals(t, &p.sig);
    p.args[0] = ST_ARGS_INVALID;
    p.args[1] = ST_ARGS_INVALID;
    (void)run_phase(&p, ST_PHASE_SYNC, 0, 0, stream);
}
