/* accessors.c - what a caller asks of a live table: its node and members, a
 * peer's shard, the create's timings and counts, the signals handle its
 * kernels use (with the barrier enqueued through it), and an agreement over
 * its ranks bounded by its patience. Each looks the table up first
 * (registry.c). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "imports.h"
#include "internal.h"
#include "shardtab_comm.h"
#include "table.h"

#include <string.h>

/* ---- signals ------------------------------------------------------------- */

shardtab_status_t shardtab_signals(const shardtab_t *t, shardtab_signals_t *out)
{
    double ticks;
    shardtab_status_t status = st_check_table(t, "shardtab_signals");

    if (status != SHARDTAB_SUCCESS)
        return status;
    if (out == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_signals: NULL argument");
    memset(out, 0, sizeof *out);
    out->pads = (uint64_t *const *)(t->device_table + t->node_size);
    out->mine = t->pad.local;
    out->node_rank = t->node_rank;
    out->node_size = t->node_size;
    out->slots = t->signal_slots;
    out->lib_first = SHARDTAB_PAD_HEADER + t->node_size + t->signal_slots;
    ticks = t->wait_timeout_s * t->clock_hz;
    out->timeout_ticks = ticks >= 1.8e19 ? UINT64_MAX : (uint64_t)ticks;
    return SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_barrier_on_stream(shardtab_t *t, shardtab_stream_t stream)
{
    shardtab_signals_t sig;
    shardtab_status_t status = st_check_table(t, "shardtab_barrier_on_stream");

    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signals(t, &sig);
    /* after this table's previous barrier, whatever stream it ran on */
    return status == SHARDTAB_SUCCESS
               ? st_backend()->barrier_on_stream(&sig, stream, &t->barrier_order)
               : status;
}

/* ---- queries ------------------------------------------------------------- */

/* Each query looks its table up before it reads it: NULL, a destroyed table
 * and a pointer that never was one get the answer shardtab.h gives, and the
 * reason in shardtab_last_error(). */
static int live(const shardtab_t *t, const char *call)
{
    return st_check_table(t, call) == SHARDTAB_SUCCESS;
}

/* One query a line: the type it answers, its name, what it reads of a live
 * table, and its answer when there is none. */
#define ST_QUERY(type, name, answer, otherwise)                                                    \
  type name(const shardtab_t *t)                                                                   \
  {                                                                                                \
    return live(t, #name) ? (answer) : (otherwise);                                                \
  }
ST_QUERY(int, shardtab_node_size, t->node_size, -1)
ST_QUERY(int, shardtab_node_rank, t->node_rank, -1)
ST_QUERY(int, shardtab_node_id, t->node_id, -1)
ST_QUERY(int, shardtab_node_count, t->node_count, -1)
ST_QUERY(void *const *, shardtab_device_table, t->device_table, NULL)
ST_QUERY(double, shardtab_create_ms, t->create_ms, -1.0)
ST_QUERY(double, shardtab_wait_timeout, t->wait_timeout_s, -1.0)
ST_QUERY(double, shardtab_open_ms, t->open_ms, -1.0)
ST_QUERY(int, shardtab_peers_opened, t->shard.opened + t->pad.opened, -1)
ST_QUERY(int, shardtab_peers_reused, t->shard.reused + t->pad.reused, -1)
#undef ST_QUERY

int shardtab_peer_mappings(void)
{
    return st_import_count();
}

int shardtab_peer_access(const shardtab_t *t, int from, int to)
{
    if (!live(t, "shardtab_peer_access"))
        return 0;
    if (from < 0 || to < 0 || from >= t->node_size || to >= t->node_size)
        return 0;
    return t->peer_access ? t->peer_access[from * t->node_size + to] : 1;
}

int shardtab_member(const shardtab_t *t, int node_rank)
{
    if (!live(t, "shardtab_member"))
        return -1;
    return node_rank >= 0 && node_rank < t->node_size ? t->members[node_rank] : -1;
}

int shardtab_node_rank_of(const shardtab_t *t, int comm_rank)
{
    if (!live(t, "shardtab_node_rank_of"))
        return -1;
    return comm_rank >= 0 && comm_rank < t->size ? t->node_rank_of[comm_rank] : -1;
}

shardtab_status_t shardtab_peer(const shardtab_t *t, int comm_rank, void **base, size_t *bytes)
{
    shardtab_status_t status = st_check_table(t, "shardtab_peer");
    int q;

    if (status != SHARDTAB_SUCCESS)
        return status;
    if (base == NULL || bytes == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_peer: NULL argument");
    if (comm_rank < 0 || comm_rank >= t->size)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_peer: rank %d outside [0, %d)",
                       comm_rank, t->size);
    q = t->node_rank_of[comm_rank];
    *base = q < 0 ? NULL : t->shard.entries[q];
    *bytes = q < 0 ? 0 : t->shard.entry_bytes[q];
    return SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_table_agree(const shardtab_t *t, shardtab_status_t local)
{
    shardtab_status_t status = st_check_table(t, "shardtab_table_agree");

    /* a table out of step (a bounded step gave up, its request pending on the
     * table's communicator) is refused too: a new agreement could pair with
     * the pending one. A rank that answers at once leaves the others' wait
     * bounded, and the job ends with their message */
    if (status == SHARDTAB_SUCCESS)
        status = st_table_in_step(t, "shardtab_table_agree");
    return status != SHARDTAB_SUCCESS ? status
                                      : shardtab_agree_within(t->comm, local, st_patience_s(t));
}
