/* failure.c - what a table's signal pad says went wrong, in words: a device-side
 * wait that gave up, a barrier or collective entered twice at once, a rank
 * whose collective call differs from the others', a deposit that fails its
 * checksum, a collective or an LL wait misused; read back by
 * shardtab_signal_check. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "call_word.h"
#include "collective_body.h"
#include "internal.h"
#include "shardtab_comm.h"
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names pad index `index` for a message: a barrier arrival, a user slot, or
 * the library's collective. */
static void describe_index(const shardtab_t *t, uint64_t index, char *out, size_t bytes)
{
    uint64_t first_user = (uint64_t)SHARDTAB_PAD_HEADER + (uint64_t)t->node_size;
    uint64_t first_lib = first_user + (uint64_t)t->signal_slots;

    if (index >= SHARDTAB_PAD_HEADER && index < first_user)
        snprintf(out, bytes, "the barrier arrival of node rank %d (rank %d)",
                 (int)(index - SHARDTAB_PAD_HEADER), t->members[index - SHARDTAB_PAD_HEADER]);
    else if (index >= first_lib)
        snprintf(out, bytes,
                 "pad word %llu of the stream-ordered collectives (shardtab_all_reduce, "
                 "_broadcast, _all_gather)",
                 (unsigned long long)(index - first_lib));
    else if (index >= first_user)
        snprintf(out, bytes, "signal slot %llu", (unsigned long long)(index - first_user));
    else
        snprintf(out, bytes, "reserved pad slot %llu", (unsigned long long)index);
}

/* A collective call as its descriptor says it (shardtab_detail_coll_call). */
static void describe_call(uint64_t call, char *out, size_t bytes)
{
    static const char *const kinds[] = {
        "all-gather", "all-reduce", "broadcast", "stream collective",
        "kind 4",     "kind 5",     "kind 6",    "kind 7"};
    static const char *const ops[] = {"sum", "min", "max", "sum_exact"};
    static const char *const types[] = {"float", "double", "int64", "type 3"};
    shardtab_coll_call_fields_t f = shardtab_detail_coll_call_unpack(call);
    snprintf(out, bytes, "%s (op %s, type %s, root %d, count %d)", kinds[f.kind], ops[f.op],
             types[f.type], f.root, f.count);
}

/* A stream-ordered collective's call word (call_word.h), in words. */
static void describe_stream_call(uint64_t word, char *out, size_t bytes)
{
    static const char *const ops[] = {"sum", "min", "max", "sum_exact"};
    static const char *const types[] = {"float", "double", "int64"};
    const st_call_word_t w = st_call_word_unpack(word);

    snprintf(out, bytes, "%s (op %s, type %s, root %u, %s, count %llu)", st_call_kind_name(w.kind),
             w.op < 4 ? ops[w.op] : "?", w.type < 3 ? types[w.type] : "?", w.root,
             st_call_algo_name(w.algo), (unsigned long long)w.count);
}

/* What a library sync's descriptor says its call was: the 8-byte one-block
 * deposits the call's values beside its arguments, every other sync its
 * arguments alone (collective_body.h). */
static const char *sync_kind(uint64_t call)
{
    return shardtab_detail_coll_call_unpack(call).count == SHARDTAB_DETAIL_LIB_COLL_VALUES
               ? "an all-reduce of at most 8 bytes (one-block, its values in its sync's words)"
               : "a call whose sync carries no values (an all-reduce of more than 8 bytes or "
                 "another algorithm, a broadcast, an all-gather)";
}

/* A stream-ordered collective whose ranks' calls differ (ST_PHASE_SYNC). */
static shardtab_status_t stream_call_failure(const shardtab_t *t, const uint64_t *header,
                                             uint64_t peer, int peer_rank)
{
    const uint64_t which = header[SHARDTAB_PAD_ERR_SLOT] -
                           (uint64_t)(SHARDTAB_PAD_HEADER + t->node_size + t->signal_slots);
    const uint64_t want = header[SHARDTAB_PAD_ERR_WANT], seen = header[SHARDTAB_PAD_ERR_SEEN];
    char mine[160], theirs[160];

    if (seen == ST_ARGS_INVALID) /* a consequence: that rank's own message is the cause */
        return st_fail(SHARDTAB_ERR_ABORTED,
                       "a stream-ordered collective stopped: node rank %llu (rank %d) made a call "
                       "that failed its own checks (its message says which)",
                       (unsigned long long)peer, peer_rank);
    if (want == ST_ARGS_INVALID)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "a stream-ordered collective stopped: node rank %d made a call that failed "
                       "its own checks",
                       t->node_rank);
    if (which == 0)
        return st_fail(
            SHARDTAB_ERR_INVALID_ARG,
            "the ranks disagree on a stream-ordered collective: node rank %d called it "
            "at byte offset %llu, node rank %llu (rank %d) at %llu; every rank must pass "
            "the same arguments",
            t->node_rank, (unsigned long long)want, (unsigned long long)peer, peer_rank,
            (unsigned long long)seen);
    describe_stream_call(want, mine, sizeof mine);
    describe_stream_call(seen, theirs, sizeof theirs);
    return st_fail(
        SHARDTAB_ERR_INVALID_ARG,
        "the ranks disagree on a stream-ordered collective: node rank %d called %s, node "
        "rank %llu (rank %d) %s; every rank must make the same calls, in the same order, "
        "with the same arguments (SHARDTAB_ALL_REDUCE_ALGO and _CUTOVER too)",
        t->node_rank, mine, (unsigned long long)peer, peer_rank, theirs);
}

/* The message of a refused collective call (SHARDTAB_WAIT_MISMATCH, _CORRUPT, _MISUSE). */
static shardtab_status_t collective_failure(const shardtab_t *t, const uint64_t *header)
{
    char where[160], mine[96], theirs[96];
    const uint64_t peer = header[SHARDTAB_PAD_ERR_TICKS];
    const int peer_rank = peer < (uint64_t)t->node_size ? t->members[peer] : -1;

    describe_index(t, header[SHARDTAB_PAD_ERR_SLOT], where, sizeof where);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_CORRUPT)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "node rank %d read a collective deposit of node rank %llu (rank %d) at %s "
                       "whose values fail their checksum (0x%08llx read, 0x%08llx deposited): "
                       "something wrote into those pad slots between the deposit and the read "
                       "(slots shared with signals or another collective?)",
                       t->node_rank, (unsigned long long)peer, peer_rank, where,
                       (unsigned long long)header[SHARDTAB_PAD_ERR_WANT],
                       (unsigned long long)header[SHARDTAB_PAD_ERR_SEEN]);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_MISMATCH &&
        header[SHARDTAB_PAD_ERR_CMP] == ST_CMP_STREAM_ARGS)
        return stream_call_failure(t, header, peer, peer_rank);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_MISMATCH) {
        uint64_t want = header[SHARDTAB_PAD_ERR_WANT], seen = header[SHARDTAB_PAD_ERR_SEEN];
        if (header[SHARDTAB_PAD_ERR_CMP] == SHARDTAB_CMP_GE) /* the epoch word */
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "the ranks disagree on a collective's calls at %s: node rank %d is at "
                           "its call %llu, and node rank %llu (rank %d) deposited its call %llu "
                           "there; every rank of the node must make the same calls, in the same "
                           "order",
                           where, t->node_rank, (unsigned long long)want, (unsigned long long)peer,
                           peer_rank, (unsigned long long)seen);
        if (header[SHARDTAB_PAD_ERR_SLOT] >=
                (uint64_t)(SHARDTAB_PAD_HEADER + t->node_size + t->signal_slots) &&
            shardtab_detail_coll_call_unpack(want).kind == SHARDTAB_DETAIL_COLL_STREAM &&
            shardtab_detail_coll_call_unpack(seen).kind == SHARDTAB_DETAIL_COLL_STREAM)
            /* the library's syncs: one carrying its values, one not */
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "the ranks disagree on a stream-ordered collective: node rank %d made "
                           "%s, node rank %llu (rank %d) %s; every rank must make the same calls, "
                           "in the same order, with the same arguments (SHARDTAB_ALL_REDUCE_ALGO "
                           "and _CUTOVER too)",
                           t->node_rank, sync_kind(want), (unsigned long long)peer, peer_rank,
                           sync_kind(seen));
        describe_call(want, mine, sizeof mine);
        describe_call(seen, theirs, sizeof theirs);
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "the ranks disagree on a collective call at %s: node rank %d called %s, "
                       "node rank %llu (rank %d) %s; every rank of the node must make the same "
                       "calls, in the same order",
                       where, t->node_rank, mine, (unsigned long long)peer, peer_rank, theirs);
    }
    switch (header[SHARDTAB_PAD_ERR_WANT]) {
    case SHARDTAB_DETAIL_MISUSE_COUNT:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called a collective with count %lld, above the values it "
                       "was made for (shardtab_coll)",
                       t->node_rank, (long long)header[SHARDTAB_PAD_ERR_SEEN]);
    case SHARDTAB_DETAIL_MISUSE_SLOT:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called a collective at user slot %lld, outside the pad's "
                       "%d user slots [0, %d) (shardtab_coll): a collective's slots are the "
                       "user's; raise signal_slots in shardtab_create_with for more",
                       t->node_rank, (long long)header[SHARDTAB_PAD_ERR_SEEN], t->signal_slots,
                       t->signal_slots);
    case SHARDTAB_DETAIL_MISUSE_RANGE:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called a collective whose slots run past the %d user "
                       "slots of the pad (it needs SHARDTAB_COLL_SLOTS(node_size, values) from "
                       "its first slot): raise signal_slots in shardtab_create_with",
                       t->node_rank, t->signal_slots);
    case SHARDTAB_DETAIL_MISUSE_OP:
        describe_call(header[SHARDTAB_PAD_ERR_SEEN], mine, sizeof mine);
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called a collective with an unknown op, type or kind: %s",
                       t->node_rank, mine);
    case SHARDTAB_DETAIL_MISUSE_EXACT_INT64:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called an all-reduce of SHARDTAB_INT64 with "
                       "SHARDTAB_SUM_EXACT: an int64 sum is exact already (use SHARDTAB_SUM); "
                       "SHARDTAB_SUM_EXACT is for SHARDTAB_FLOAT and SHARDTAB_DOUBLE",
                       t->node_rank);
    case SHARDTAB_DETAIL_MISUSE_THIRD:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d started a third call of one collective before finishing "
                       "the first (at most two in flight: shardtab_coll_finish_block first)",
                       t->node_rank);
    case SHARDTAB_DETAIL_MISUSE_NOTHING:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d finished a collective call it never started", t->node_rank);
    case SHARDTAB_DETAIL_MISUSE_LL_BYTES:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called shardtab_wait_ll_block for %lld bytes: an LL "
                       "message is a multiple of 4 bytes (each 8-byte word carries 4)",
                       t->node_rank, (long long)header[SHARDTAB_PAD_ERR_SEEN]);
    case SHARDTAB_DETAIL_MISUSE_LL_ALIGN:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called shardtab_wait_ll_block on a buffer at 0x%llx: an "
                       "LL buffer is 8-byte aligned",
                       t->node_rank, (unsigned long long)header[SHARDTAB_PAD_ERR_SEEN]);
    case SHARDTAB_DETAIL_MISUSE_LL_DST:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called shardtab_wait_ll_block into dst at 0x%llx: an LL "
                       "message lands 4 bytes at a time, dst 4-byte aligned",
                       t->node_rank, (unsigned long long)header[SHARDTAB_PAD_ERR_SEEN]);
    case SHARDTAB_DETAIL_MISUSE_ROOT:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called a broadcast from root %lld, outside the node's %d "
                       "ranks",
                       t->node_rank, (long long)header[SHARDTAB_PAD_ERR_SEEN], t->node_size);
    default:
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "node rank %d misused a collective (reason %llu)",
                       t->node_rank, (unsigned long long)header[SHARDTAB_PAD_ERR_WANT]);
    }
}

void st_table_stop(shardtab_t *t, shardtab_status_t status, const char *cause)
{
    if (t->stop_status != SHARDTAB_SUCCESS || status == SHARDTAB_SUCCESS)
        return;
    t->stop_status = status;
    t->stop_cause = malloc(strlen(cause) + 1);
    if (t->stop_cause != NULL)
        memcpy(t->stop_cause, cause, strlen(cause) + 1);
}

shardtab_status_t st_table_stopped(const shardtab_t *t, const char *call)
{
    if (t->stop_status == SHARDTAB_SUCCESS)
        return SHARDTAB_SUCCESS;
    return st_fail(SHARDTAB_ERR_ABORTED,
                   "%s: refused: this table stopped at an earlier call; destroy it. It stopped "
                   "because: %s",
                   call, t->stop_cause ? t->stop_cause : "(its message could not be kept)");
}

/* What the pad's header says went wrong on this rank's node, recorded with a
 * message; SHARDTAB_SUCCESS when nothing did. */
static shardtab_status_t pad_failure(const shardtab_t *t, const uint64_t *header)
{
    char what[160];

    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_MISMATCH ||
        header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_CORRUPT ||
        header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_MISUSE)
        return collective_failure(t, header);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_CONCURRENT &&
        header[SHARDTAB_PAD_ERR_SLOT] != SHARDTAB_PAD_BUSY) {
        describe_index(t, header[SHARDTAB_PAD_ERR_SLOT], what, sizeof what);
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d entered a collective (its claim at %s) while another call "
                       "of the same collective still ran on this rank (two blocks or two "
                       "streams at once, or a block that held it and never called "
                       "shardtab_coll_release_block): the second was refused and the node "
                       "stopped; give concurrent collectives distinct slots",
                       t->node_rank, what);
    }
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_CONCURRENT)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d entered a barrier of this table while another of its "
                       "barriers still ran (two streams or two blocks at once); they would "
                       "share one arrival number, so the second was refused and the node "
                       "stopped: run one barrier at a time per rank (shardtab_barrier_on_stream "
                       "orders its own calls; call shardtab_barrier_block from one block)",
                       t->node_rank);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_TIMED_OUT &&
        (header[SHARDTAB_PAD_ERR_CMP] == SHARDTAB_DETAIL_CMP_LL ||
         header[SHARDTAB_PAD_ERR_CMP] == SHARDTAB_DETAIL_CMP_HALO)) {
        /* an LL word without its flag: a user's LL buffer, or a halo's inbox */
        const int halo = header[SHARDTAB_PAD_ERR_CMP] == SHARDTAB_DETAIL_CMP_HALO;
        return st_fail(SHARDTAB_ERR_TIMEOUT,
                       "a device-side wait gave up after %.2f s (limit %.3g s, "
                       "SHARDTAB_WAIT_TIMEOUT): node rank %d waited for word %llu of %s to "
                       "carry flag %llu%s, and it held flag %llu; %s",
                       (double)header[SHARDTAB_PAD_ERR_TICKS] / t->clock_hz, t->wait_timeout_s,
                       t->node_rank, (unsigned long long)header[SHARDTAB_PAD_ERR_SLOT],
                       halo ? "its halo inbox" : "an LL buffer (shardtab_wait_ll_block)",
                       (unsigned long long)header[SHARDTAB_PAD_ERR_WANT],
                       halo ? " (a halo exchange pushed as LL words)" : "",
                       (unsigned long long)(header[SHARDTAB_PAD_ERR_SEEN] >> 32),
                       halo ? "a neighbour is late, stuck or gone, or called something else, or "
                              "fewer exchanges of this halo"
                            : "the rank that should have put it is late, stuck or gone, or "
                              "wrote that buffer again before this rank had read it");
    }
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_TIMED_OUT &&
        header[SHARDTAB_PAD_ERR_CMP] == SHARDTAB_DETAIL_CMP_HALO_FLAG)
        return st_fail(
            SHARDTAB_ERR_TIMEOUT,
            "a device-side wait gave up after %.2f s (limit %.3g s, "
            "SHARDTAB_WAIT_TIMEOUT): node rank %d waited for the flag of piece %llu, "
            "slice %llu, of its halo inbox to be %llu (a halo exchange pushed by "
            "put), and it "
            "held %llu; a neighbour is late, stuck or gone, or called something "
            "else, or fewer exchanges of this halo",
            (double)header[SHARDTAB_PAD_ERR_TICKS] / t->clock_hz, t->wait_timeout_s, t->node_rank,
            (unsigned long long)SHARDTAB_DETAIL_HALO_FLAG_PIECE(header[SHARDTAB_PAD_ERR_SLOT]),
            (unsigned long long)SHARDTAB_DETAIL_HALO_FLAG_SLICE(header[SHARDTAB_PAD_ERR_SLOT]),
            (unsigned long long)header[SHARDTAB_PAD_ERR_WANT],
            (unsigned long long)header[SHARDTAB_PAD_ERR_SEEN]);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_TIMED_OUT) {
        describe_index(t, header[SHARDTAB_PAD_ERR_SLOT], what, sizeof what);
        return st_fail(SHARDTAB_ERR_TIMEOUT,
                       "a device-side wait gave up after %.2f s (limit %.3g s, "
                       "SHARDTAB_WAIT_TIMEOUT): node rank %d waited for %s to be %s %llu, "
                       "and it held %llu; the rank that should have signalled it is late, "
                       "stuck or gone",
                       (double)header[SHARDTAB_PAD_ERR_TICKS] / t->clock_hz, t->wait_timeout_s,
                       t->node_rank, what,
                       header[SHARDTAB_PAD_ERR_CMP] == SHARDTAB_CMP_EQ ? "==" : ">=",
                       (unsigned long long)header[SHARDTAB_PAD_ERR_WANT],
                       (unsigned long long)header[SHARDTAB_PAD_ERR_SEEN]);
    }
    if (header[SHARDTAB_PAD_ABORT] != 0) {
        uint64_t q = header[SHARDTAB_PAD_ABORT] - 1;
        return st_fail(SHARDTAB_ERR_ABORTED,
                       "stopped: node rank %llu (rank %d) gave up a device-side wait first",
                       (unsigned long long)q, q < (uint64_t)t->node_size ? t->members[q] : -1);
    }
    return SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_signal_check(const shardtab_t *t)
{
    uint64_t header[SHARDTAB_PAD_HEADER];
    shardtab_status_t status;

    status = st_check_table(t, "shardtab_signal_check");
    if (status != SHARDTAB_SUCCESS)
        return status;
    if (t->stop_status != SHARDTAB_SUCCESS) /* stopped: the first cause, as this rank knew it */
        return st_fail(t->stop_status, "%s",
                       t->stop_cause ? t->stop_cause
                                     : "this table stopped at an earlier call (its message "
                                       "could not be kept: out of memory)");
    /* the barriers of shardtab_barrier_on_stream may be on other streams */
    status = st_backend()->barrier_wait(t->barrier_order);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->copy_async(header, t->pad.local, sizeof header, t->stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(t->stream);
    if (status != SHARDTAB_SUCCESS)
        return status;
    status = pad_failure(t, header);
    if (status != SHARDTAB_SUCCESS) /* the table's own record: const to its callers only */
        st_table_stop((shardtab_t *)t, status, st_thread_last_error() + st_error_prefix_bytes());
    return status;
}
