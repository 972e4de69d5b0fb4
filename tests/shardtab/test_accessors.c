/* test_accessors.c - pins src/shardtab/accessors.c on a table laid out by hand
 * (table.h) and registered as live: every query's answer, the answers for
 * arguments outside the node and for a handle that is not a live table (with
 * the reason), a peer's shard, the signals handle (pads, slots, the wait limit
 * in ticks) and the barrier handed to the backend with it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "shardtab_comm.h"
#include "table.h"

static const char *said(void)
{
    return st_thread_last_error() + st_error_prefix_bytes();
}

/* Node rank 1 of 3 on node 2 of 4; the table's 7 ranks: node ranks 0, 1, 2 are
 * comm ranks 2, 5, 6. */
enum { NODE = 3, SIZE = 7 };
static int members[NODE] = {2, 5, 6};
static int node_rank_of[SIZE] = {-1, -1, 0, -1, -1, 1, 2};
static int access_matrix[NODE * NODE] = {1, 0, 1, 1, 1, -1, 0, 1, 1};
static char shards[NODE][64], pads[NODE][64];
static void *entries[NODE] = {shards[0], NULL, shards[2]};
static size_t entry_bytes[NODE] = {64, 0, 40};
static void *device_table[2 * NODE] = {shards[0], NULL, shards[2], pads[0], pads[1], pads[2]};
static shardtab_t table;

static int lay_out_table(void **state)
{
    (void)state;
    memset(&table, 0, sizeof table);
    table.rank = 5;
    table.size = SIZE;
    table.node_rank = 1;
    table.node_size = NODE;
    table.node_id = 2;
    table.node_count = 4;
    table.members = members;
    table.node_rank_of = node_rank_of;
    table.shard.entries = entries;
    table.shard.entry_bytes = entry_bytes;
    table.shard.opened = 1;
    table.shard.reused = 1;
    table.pad.local = pads[1];
    table.pad.opened = 2;
    table.pad.reused = 3;
    table.device_table = device_table;
    table.peer_access = access_matrix;
    table.signal_slots = 40;
    table.wait_timeout_s = 7.5;
    table.clock_hz = 2e9;
    table.create_ms = 12.5;
    table.open_ms = 3.25;
    table.live.table = &table;
    st_live_add(&table.live);
    return 0;
}

static int forget_table(void **state)
{
    (void)state;
    return st_live_remove(&table.live) ? 0 : -1;
}

static void test_queries_answer_from_the_table(void **state)
{
    (void)state;
    assert_int_equal(shardtab_node_size(&table), 3);
    assert_int_equal(shardtab_node_rank(&table), 1);
    assert_int_equal(shardtab_node_id(&table), 2);
    assert_int_equal(shardtab_node_count(&table), 4);
    assert_ptr_equal(shardtab_device_table(&table), device_table);
    assert_true(shardtab_create_ms(&table) == 12.5);
    assert_true(shardtab_open_ms(&table) == 3.25);
    assert_true(shardtab_wait_timeout(&table) == 7.5);
    assert_int_equal(shardtab_peers_opened(&table), 3); /* shard's and pad's */
    assert_int_equal(shardtab_peers_reused(&table), 4);
    assert_int_equal(shardtab_peer_mappings(), 0); /* imports.c's count: nothing opened here */
    for (int q = 0; q < NODE; q++)
        assert_int_equal(shardtab_member(&table, q), members[q]);
    for (int r = 0; r < SIZE; r++)
        assert_int_equal(shardtab_node_rank_of(&table, r), node_rank_of[r]);
    for (int a = 0; a < NODE; a++)
        for (int b = 0; b < NODE; b++)
            assert_int_equal(shardtab_peer_access(&table, a, b), access_matrix[a * NODE + b]);
    table.peer_access = NULL; /* a backend that reaches every pair */
    assert_int_equal(shardtab_peer_access(&table, 2, 0), 1);
    table.peer_access = access_matrix;
}

static void test_queries_outside_the_node_answer_none(void **state)
{
    (void)state;
    assert_int_equal(shardtab_member(&table, -1), -1);
    assert_int_equal(shardtab_member(&table, NODE), -1);
    assert_int_equal(shardtab_node_rank_of(&table, -1), -1);
    assert_int_equal(shardtab_node_rank_of(&table, SIZE), -1);
    assert_int_equal(shardtab_peer_access(&table, -1, 0), 0);
    assert_int_equal(shardtab_peer_access(&table, 0, NODE), 0);
    assert_int_equal(shardtab_peer_access(&table, NODE, 1), 0);
}

static void test_queries_refuse_a_handle_that_is_no_live_table(void **state)
{
    shardtab_t copy = table; /* never registered */
    char want[200];
    (void)state;
    assert_int_equal(shardtab_node_size(NULL), -1);
    assert_string_equal(said(), "shardtab_node_size: no table (NULL)");
    assert_int_equal(shardtab_node_rank(&copy), -1);
    snprintf(want, sizeof want,
             "shardtab_node_rank(%p): not a live table of this process "
             "(destroyed already, or never created by shardtab_create)",
             (void *)&copy);
    assert_string_equal(said(), want);
    assert_int_equal(shardtab_node_id(&copy), -1);
    assert_int_equal(shardtab_node_count(&copy), -1);
    assert_null(shardtab_device_table(&copy));
    assert_true(shardtab_create_ms(&copy) == -1.0);
    assert_true(shardtab_open_ms(&copy) == -1.0);
    assert_true(shardtab_wait_timeout(&copy) == -1.0);
    assert_int_equal(shardtab_peers_opened(&copy), -1);
    assert_int_equal(shardtab_peers_reused(&copy), -1);
    assert_int_equal(shardtab_member(&copy, 0), -1);
    assert_int_equal(shardtab_node_rank_of(&copy, 2), -1);
    assert_int_equal(shardtab_peer_access(&copy, 0, 0), 0);
    snprintf(want, sizeof want,
             "shardtab_peer_access(%p): not a live table of this process "
             "(destroyed already, or never created by shardtab_create)",
             (void *)&copy);
    assert_string_equal(said(), want);
}

static void test_peer_gives_each_rank_s_shard_or_none(void **state)
{
    void *base = &table;
    size_t bytes = 99;
    (void)state;
    assert_int_equal(shardtab_peer(&table, 6, &base, &bytes), SHARDTAB_SUCCESS);
    assert_ptr_equal(base, shards[2]);
    assert_int_equal(bytes, 40);
    assert_int_equal(shardtab_peer(&table, 5, &base, &bytes), SHARDTAB_SUCCESS);
    assert_null(base); /* an empty shard */
    assert_int_equal(bytes, 0);
    base = &table;
    assert_int_equal(shardtab_peer(&table, 3, &base, &bytes), SHARDTAB_SUCCESS);
    assert_null(base); /* off this node */
    assert_int_equal(bytes, 0);
    assert_int_equal(shardtab_peer(&table, 7, &base, &bytes), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_peer: rank 7 outside [0, 7)");
    assert_int_equal(shardtab_peer(&table, -1, &base, &bytes), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_peer: rank -1 outside [0, 7)");
    assert_int_equal(shardtab_peer(&table, 2, NULL, &bytes), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_peer: NULL argument");
    assert_int_equal(shardtab_peer(&table, 2, &base, NULL), SHARDTAB_ERR_INVALID_ARG);
    assert_int_equal(shardtab_peer(NULL, 2, &base, &bytes), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_peer: no table (NULL)");
}

static void test_signals_handle_holds_the_pads_slots_and_wait_limit(void **state)
{
    shardtab_signals_t sig;
    (void)state;
    memset(&sig, 0x5a, sizeof sig);
    assert_int_equal(shardtab_signals(&table, &sig), SHARDTAB_SUCCESS);
    assert_ptr_equal(sig.pads, (uint64_t *const *)(device_table + NODE)); /* after the shards */
    assert_ptr_equal(sig.mine, pads[1]);
    assert_int_equal(sig.node_rank, 1);
    assert_int_equal(sig.node_size, 3);
    assert_int_equal(sig.slots, 40);
    assert_int_equal(sig.lib_first, SHARDTAB_PAD_HEADER + 3 + 40);
    assert_int_equal(sig.timeout_ticks, 15000000000ull); /* 7.5 s at 2 GHz */
    /* a limit past what 64 bits of ticks hold waits for ever */
    table.wait_timeout_s = 1e6;
    table.clock_hz = 1e14;
    assert_int_equal(shardtab_signals(&table, &sig), SHARDTAB_SUCCESS);
    assert_int_equal(sig.timeout_ticks, UINT64_MAX);
    table.wait_timeout_s = 7.5;
    table.clock_hz = 2e9;
    assert_int_equal(shardtab_signals(&table, NULL), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_signals: NULL argument");
    assert_int_equal(shardtab_signals(NULL, &sig), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_signals: no table (NULL)");
}

/* the stand-in backend's barrier: what it was handed */
static shardtab_signals_t barrier_signals;
static shardtab_stream_t barrier_stream;
static void **barrier_order;
static int barriers;

static shardtab_status_t record_barrier(const shardtab_signals_t *signals, shardtab_stream_t stream,
                                        void **order)
{
    barrier_signals = *signals;
    barrier_stream = stream;
    barrier_order = order;
    barriers++;
    return barriers == 2 ? SHARDTAB_ERR_DEVICE : SHARDTAB_SUCCESS;
}

static void test_barrier_goes_to_the_backend_with_the_table_s_order(void **state)
{
    st_backend_ops_t stand_in = {.barrier_on_stream = record_barrier};
    shardtab_signals_t sig;
    shardtab_t copy = table;
    int stream;
    (void)state;
    st_backend_use(&stand_in);
    assert_int_equal(shardtab_barrier_on_stream(&table, &stream), SHARDTAB_SUCCESS);
    assert_int_equal(barriers, 1);
    assert_ptr_equal(barrier_stream, &stream);
    assert_ptr_equal(barrier_order, &table.barrier_order);
    assert_int_equal(shardtab_signals(&table, &sig), SHARDTAB_SUCCESS);
    assert_ptr_equal(barrier_signals.pads, sig.pads);
    assert_ptr_equal(barrier_signals.mine, sig.mine);
    assert_int_equal(barrier_signals.node_rank, sig.node_rank);
    assert_int_equal(barrier_signals.node_size, sig.node_size);
    assert_int_equal(barrier_signals.lib_first, sig.lib_first);
    assert_int_equal(barrier_signals.timeout_ticks, sig.timeout_ticks);
    /* the backend's failure is the call's */
    assert_int_equal(shardtab_barrier_on_stream(&table, NULL), SHARDTAB_ERR_DEVICE);
    assert_int_equal(barriers, 2);
    /* no live table: refused before the backend */
    assert_int_equal(shardtab_barrier_on_stream(&copy, NULL), SHARDTAB_ERR_INVALID_ARG);
    assert_int_equal(barriers, 2);
    st_backend_use(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queries_answer_from_the_table),
        cmocka_unit_test(test_queries_outside_the_node_answer_none),
        cmocka_unit_test(test_queries_refuse_a_handle_that_is_no_live_table),
        cmocka_unit_test(test_peer_gives_each_rank_s_shard_or_none),
        cmocka_unit_test(test_signals_handle_holds_the_pads_slots_and_wait_limit),
        cmocka_unit_test(test_barrier_goes_to_the_backend_with_the_table_s_order),
    };
    return cmocka_run_group_tests(tests, lay_out_table, forget_table);
}
