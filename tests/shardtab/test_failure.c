/* test_failure.c - pins src/shardtab/failure.c: shardtab_signal_check reads a
 * table's pad header back through the backend and names what went wrong, each
 * record the device code leaves (a wait that gave up, where; a barrier or a
 * collective entered twice; another rank's call, epoch, deposit or stream call;
 * every misuse) as its own status and message. On a table laid out by hand over
 * a pad in host memory, a stand-in backend copying it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "call_word.h"
#include "collective_body.h"
#include "shardtab_comm.h"
#include "table.h"

static const char *said(void)
{
    return st_thread_last_error() + st_error_prefix_bytes();
}

/* Node rank 1 of 3 (comm ranks 2, 5, 6), 8 user slots: the barrier's arrivals
 * at pad words 16-18, the user's slots at 19-26, the library's from 27. */
enum {
    NODE = 3,
    SLOTS = 8,
    FIRST_USER = SHARDTAB_PAD_HEADER + NODE,
    FIRST_LIB = FIRST_USER + SLOTS
};
static int members[NODE] = {2, 5, 6};
static uint64_t pad[FIRST_LIB + 64];
static shardtab_t table;
static int order_stand_in, waits, copy_fails;

static shardtab_status_t stand_in_wait(void *order)
{
    assert_ptr_equal(order, &order_stand_in);
    waits++;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t stand_in_copy(void *dst, const void *src, size_t bytes,
                                       shardtab_stream_t s)
{
    (void)s;
    if (copy_fails)
        return SHARDTAB_ERR_DEVICE;
    memcpy(dst, src, bytes);
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t stand_in_sync(shardtab_stream_t stream)
{
    (void)stream;
    return SHARDTAB_SUCCESS;
}

static st_backend_ops_t stand_in = {.barrier_wait = stand_in_wait,
                                    .copy_async = stand_in_copy,
                                    .stream_synchronize = stand_in_sync};

static int lay_out_table(void **state)
{
    (void)state;
    table.node_rank = 1;
    table.node_size = NODE;
    table.members = members;
    table.pad.local = pad;
    table.signal_slots = SLOTS;
    table.wait_timeout_s = 7.5;
    table.clock_hz = 2e9;
    table.barrier_order = &order_stand_in;
    table.live.table = &table;
    st_live_add(&table.live);
    st_backend_use(&stand_in);
    return 0;
}

static int forget_table(void **state)
{
    (void)state;
    st_backend_use(NULL);
    return st_live_remove(&table.live) ? 0 : -1;
}

/* The table as it was made: not stopped, no cause kept (signal_check keeps the
 * first one it reads). */
static void running_again(void)
{
    free(table.stop_cause);
    table.stop_cause = NULL;
    table.stop_status = SHARDTAB_SUCCESS;
}

/* The pad's record: status, where, how compared, wanted, seen, ticks (or the
 * peer), read as a fresh table's. */
static void record(uint64_t status, uint64_t slot, uint64_t cmp, uint64_t want, uint64_t seen,
                   uint64_t ticks)
{
    running_again();
    memset(pad, 0, sizeof pad);
    pad[SHARDTAB_PAD_STATUS] = status;
    pad[SHARDTAB_PAD_ERR_SLOT] = slot;
    pad[SHARDTAB_PAD_ERR_CMP] = cmp;
    pad[SHARDTAB_PAD_ERR_WANT] = want;
    pad[SHARDTAB_PAD_ERR_SEEN] = seen;
    pad[SHARDTAB_PAD_ERR_TICKS] = ticks;
}

static void check_says(shardtab_status_t status, const char *message)
{
    running_again();
    assert_int_equal(shardtab_signal_check(&table), status);
    assert_string_equal(said(), message);
}

static void test_clean_pad_is_success_after_the_barriers(void **state)
{
    (void)state;
    memset(pad, 0, sizeof pad);
    pad[SHARDTAB_PAD_EPOCH] = 12; /* barriers run: no failure */
    waits = 0;
    assert_int_equal(shardtab_signal_check(&table), SHARDTAB_SUCCESS);
    assert_int_equal(waits, 1); /* the barriers of other streams first */
}

static void test_timed_out_wait_names_the_word_the_limit_and_the_values(void **state)
{
    (void)state;
    record(SHARDTAB_WAIT_TIMED_OUT, FIRST_USER + 3, SHARDTAB_CMP_GE, 15, 11, 3000000000ull);
    check_says(SHARDTAB_ERR_TIMEOUT,
               "a device-side wait gave up after 1.50 s (limit 7.5 s, SHARDTAB_WAIT_TIMEOUT): node "
               "rank 1 waited for signal slot 3 to be >= 15, and it held 11; the rank that should "
               "have signalled it is late, stuck or gone");
    record(SHARDTAB_WAIT_TIMED_OUT, SHARDTAB_PAD_HEADER + 2, SHARDTAB_CMP_EQ, 4, 3, 500000000ull);
    check_says(SHARDTAB_ERR_TIMEOUT,
               "a device-side wait gave up after 0.25 s (limit 7.5 s, SHARDTAB_WAIT_TIMEOUT): node "
               "rank 1 waited for the barrier arrival of node rank 2 (rank 6) to be == 4, and it "
               "held 3; the rank that should have signalled it is late, stuck or gone");
    record(SHARDTAB_WAIT_TIMED_OUT, FIRST_LIB + 5, SHARDTAB_CMP_GE, 2, 1, 0);
    check_says(
        SHARDTAB_ERR_TIMEOUT,
        "a device-side wait gave up after 0.00 s (limit 7.5 s, SHARDTAB_WAIT_TIMEOUT): node "
        "rank 1 waited for pad word 5 of the stream-ordered collectives (shardtab_all_reduce, "
        "_broadcast, _all_gather) to be >= 2, and it held 1; the rank that should have "
        "signalled it is late, stuck or gone");
    record(SHARDTAB_WAIT_TIMED_OUT, SHARDTAB_PAD_BUSY, SHARDTAB_CMP_EQ, 0, 1, 0);
    check_says(SHARDTAB_ERR_TIMEOUT,
               "a device-side wait gave up after 0.00 s (limit 7.5 s, SHARDTAB_WAIT_TIMEOUT): node "
               "rank 1 waited for reserved pad slot 8 to be == 0, and it held 1; the rank that "
               "should have signalled it is late, stuck or gone");
}

static void test_timed_out_ll_wait_names_the_word_and_both_flags(void **state)
{
    (void)state;
    /* word 7 of the buffer, waited for flag 12; it held flag 10 (payload 0xdeadbeef) */
    record(SHARDTAB_WAIT_TIMED_OUT, 7, SHARDTAB_DETAIL_CMP_LL, 12, 10ull << 32 | 0xdeadbeefu,
           2000000000ull);
    check_says(SHARDTAB_ERR_TIMEOUT,
               "a device-side wait gave up after 1.00 s (limit 7.5 s, SHARDTAB_WAIT_TIMEOUT): node "
               "rank 1 waited for word 7 of an LL buffer (shardtab_wait_ll_block) to carry flag "
               "12, and it held flag 10; the rank that should have put it is late, stuck or gone, "
               "or wrote that buffer again before this rank had read it");
}

static void test_abort_word_names_the_rank_that_gave_up_first(void **state)
{
    (void)state;
    memset(pad, 0, sizeof pad);
    pad[SHARDTAB_PAD_ABORT] = 1 + 2;
    check_says(SHARDTAB_ERR_ABORTED,
               "stopped: node rank 2 (rank 6) gave up a device-side wait first");
    pad[SHARDTAB_PAD_ABORT] = 1 + 9; /* a node rank this table has not: no comm rank */
    check_says(SHARDTAB_ERR_ABORTED,
               "stopped: node rank 9 (rank -1) gave up a device-side wait first");
}

static void test_entered_twice_tells_a_barrier_from_a_collective(void **state)
{
    (void)state;
    record(SHARDTAB_WAIT_CONCURRENT, SHARDTAB_PAD_BUSY, SHARDTAB_CMP_EQ, 0, 1, 0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "node rank 1 entered a barrier of this table while another of its barriers still "
               "ran (two streams or two blocks at once); they would share one arrival number, so "
               "the second was refused and the node stopped: run one barrier at a time per rank "
               "(shardtab_barrier_on_stream orders its own calls; call shardtab_barrier_block from "
               "one block)");
    record(SHARDTAB_WAIT_CONCURRENT, FIRST_USER + 4, SHARDTAB_CMP_EQ, 0, 1, 0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "node rank 1 entered a collective (its claim at signal slot 4) while another call "
               "of the same collective still ran on this rank (two blocks or two streams at "
               "once, or a block that held it and never called shardtab_coll_release_block): the "
               "second was refused and the node stopped; give concurrent collectives distinct "
               "slots");
}

static void test_device_collective_records_name_the_peer_and_both_calls(void **state)
{
    (void)state;
    record(SHARDTAB_WAIT_CORRUPT, FIRST_USER + 1, SHARDTAB_CMP_EQ, 0xabcd, 0x1234, 0);
    check_says(SHARDTAB_ERR_DESCRIPTOR,
               "node rank 1 read a collective deposit of node rank 0 (rank 2) at signal slot 1 "
               "whose values fail their checksum (0x0000abcd read, 0x00001234 deposited): "
               "something wrote into those pad slots between the deposit and the read (slots "
               "shared with signals or another collective?)");
    record(SHARDTAB_WAIT_MISMATCH, FIRST_USER + 2, SHARDTAB_CMP_GE, 5, 4, 2);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "the ranks disagree on a collective's calls at signal slot 2: node rank 1 is at its "
               "call 5, and node rank 2 (rank 6) deposited its call 4 there; every rank of the "
               "node must make the same calls, in the same order");
    /* the call words as shardtab_comm.h packs them */
    record(SHARDTAB_WAIT_MISMATCH, FIRST_USER + 3, SHARDTAB_CMP_EQ,
           shardtab_detail_coll_call(SHARDTAB_COLL_REDUCE, SHARDTAB_MAX, SHARDTAB_DOUBLE, 0, 5),
           shardtab_detail_coll_call(SHARDTAB_COLL_BROADCAST, SHARDTAB_SUM, SHARDTAB_INT64, 3, 7),
           2);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "the ranks disagree on a collective call at signal slot 3: node rank 1 called "
               "all-reduce (op max, type double, root 0, count 5), node rank 2 (rank 6) broadcast "
               "(op sum, type int64, root 3, count 7); every rank of the node must make the same "
               "calls, in the same order");
    record(SHARDTAB_WAIT_MISMATCH, FIRST_USER + 3, SHARDTAB_CMP_EQ,
           shardtab_detail_coll_call(SHARDTAB_COLL_GATHER, SHARDTAB_MIN, SHARDTAB_FLOAT, 9, 1),
           shardtab_detail_coll_call(6, 3, 3, 1023, 0x7fff), 7); /* no kind, op or type of these */
    check_says(
        SHARDTAB_ERR_INVALID_ARG,
        "the ranks disagree on a collective call at signal slot 3: node rank 1 called "
        "all-gather (op min, type float, root 9, count 1), node rank 7 (rank -1) kind 6 (op "
        "sum_exact, type type 3, root 1023, count 32767); every rank of the node must make the "
        "same calls, in the same order");
    /* the library's syncs: one with its values (the 8-byte one-block), one without */
    record(SHARDTAB_WAIT_MISMATCH, FIRST_LIB + 9, SHARDTAB_CMP_EQ,
           shardtab_detail_coll_call(SHARDTAB_DETAIL_COLL_STREAM, SHARDTAB_SUM, SHARDTAB_INT64, 0,
                                     SHARDTAB_DETAIL_LIB_COLL_VALUES),
           shardtab_detail_coll_call(SHARDTAB_DETAIL_COLL_STREAM, SHARDTAB_SUM, SHARDTAB_INT64, 0,
                                     ST_SYNC_ARGS),
           2);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "the ranks disagree on a stream-ordered collective: node rank 1 made an all-reduce "
               "of at most 8 bytes (one-block, its values in its sync's words), node rank 2 (rank "
               "6) a call whose sync carries no values (an all-reduce of more than 8 bytes or "
               "another algorithm, a broadcast, an all-gather); every rank must make the same "
               "calls, in the same order, with the same arguments (SHARDTAB_ALL_REDUCE_ALGO and "
               "_CUTOVER too)");
}

static void test_stream_collective_records_spell_both_call_words(void **state)
{
    const uint64_t mine = st_call_word_pack(ST_STREAM_ALL_REDUCE, SHARDTAB_MIN, SHARDTAB_INT64, 0,
                                            ST_ALGO_TWO_SHOT, 77);
    const uint64_t theirs =
        st_call_word_pack(ST_STREAM_BROADCAST, SHARDTAB_SUM, SHARDTAB_FLOAT, 9, 0, 3);
    (void)state;
    record(SHARDTAB_WAIT_MISMATCH, FIRST_LIB + 1, ST_CMP_STREAM_ARGS, mine, theirs, 2);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "the ranks disagree on a stream-ordered collective: node rank 1 called "
               "shardtab_all_reduce (op min, type int64, root 0, two-shot, count 77), node rank 2 "
               "(rank 6) shardtab_broadcast (op sum, type float, root 9, no algorithm, count 3); "
               "every rank must make the same calls, in the same order, with the same arguments "
               "(SHARDTAB_ALL_REDUCE_ALGO and _CUTOVER too)");
    /* fields no call has */
    record(SHARDTAB_WAIT_MISMATCH, FIRST_LIB + 1, ST_CMP_STREAM_ARGS,
           st_call_word_pack(ST_STREAM_ALL_GATHER, 0, SHARDTAB_DOUBLE, 0, ST_ALGO_ONE_SHOT, 5),
           st_call_word_pack(9, 7, 5, 1, 3, 1), 0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "the ranks disagree on a stream-ordered collective: node rank 1 called "
               "shardtab_all_gather (op sum, type double, root 0, one-shot, count 5), node rank 0 "
               "(rank 2) ? (op ?, type ?, root 1, one-block, count 1); every rank must make the "
               "same calls, in the same order, with the same arguments (SHARDTAB_ALL_REDUCE_ALGO "
               "and _CUTOVER too)");
    /* the first word is the byte offset */
    record(SHARDTAB_WAIT_MISMATCH, FIRST_LIB, ST_CMP_STREAM_ARGS, 64, 128, 2);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "the ranks disagree on a stream-ordered collective: node rank 1 called it at byte "
               "offset 64, node rank 2 (rank 6) at 128; every rank must pass the same arguments");
    /* a rank whose own checks failed: its message is the cause, the others' a consequence */
    record(SHARDTAB_WAIT_MISMATCH, FIRST_LIB, ST_CMP_STREAM_ARGS, 64, ST_ARGS_INVALID, 0);
    check_says(SHARDTAB_ERR_ABORTED,
               "a stream-ordered collective stopped: node rank 0 (rank 2) made a call that failed "
               "its own checks (its message says which)");
    record(SHARDTAB_WAIT_MISMATCH, FIRST_LIB + 1, ST_CMP_STREAM_ARGS, ST_ARGS_INVALID, mine, 0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "a stream-ordered collective stopped: node rank 1 made a call that failed its own "
               "checks");
}

static void test_each_misuse_has_its_message(void **state)
{
    (void)state;
    record(SHARDTAB_WAIT_MISUSE, FIRST_USER, SHARDTAB_CMP_EQ, SHARDTAB_DETAIL_MISUSE_COUNT, 40, 0);
    check_says(SHARDTAB_ERR_INVALID_ARG, "node rank 1 called a collective with count 40, above the "
                                         "values it was made for (shardtab_coll)");
    record(SHARDTAB_WAIT_MISUSE, FIRST_USER + 6, SHARDTAB_CMP_EQ, SHARDTAB_DETAIL_MISUSE_RANGE, 6,
           0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "node rank 1 called a collective whose slots run past the 8 user slots of the pad "
               "(it needs SHARDTAB_COLL_SLOTS(node_size, values) from its first slot): raise "
               "signal_slots in shardtab_create_with");
    record(SHARDTAB_WAIT_MISUSE, FIRST_USER, SHARDTAB_CMP_EQ, SHARDTAB_DETAIL_MISUSE_OP,
           shardtab_detail_coll_call(5, 3, 3, 2, 1), 0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "node rank 1 called a collective with an unknown op, type "
               "or kind: kind 5 (op sum_exact, type type 3, root 2, count 1)");
    record(
        SHARDTAB_WAIT_MISUSE, FIRST_USER, SHARDTAB_CMP_EQ, SHARDTAB_DETAIL_MISUSE_EXACT_INT64,
        shardtab_detail_coll_call(SHARDTAB_COLL_REDUCE, SHARDTAB_SUM_EXACT, SHARDTAB_INT64, 0, 1),
        0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "node rank 1 called an all-reduce of SHARDTAB_INT64 with SHARDTAB_SUM_EXACT: an "
               "int64 sum is exact already (use SHARDTAB_SUM); SHARDTAB_SUM_EXACT is for "
               "SHARDTAB_FLOAT and SHARDTAB_DOUBLE");
    record(SHARDTAB_WAIT_MISUSE, FIRST_USER, SHARDTAB_CMP_EQ, SHARDTAB_DETAIL_MISUSE_THIRD, 2, 0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "node rank 1 started a third call of one collective before finishing the first (at "
               "most two in flight: shardtab_coll_finish_block first)");
    record(SHARDTAB_WAIT_MISUSE, FIRST_USER, SHARDTAB_CMP_EQ, SHARDTAB_DETAIL_MISUSE_NOTHING, 0, 0);
    check_says(SHARDTAB_ERR_INVALID_ARG, "node rank 1 finished a collective call it never started");
    record(SHARDTAB_WAIT_MISUSE, FIRST_USER, SHARDTAB_CMP_EQ, SHARDTAB_DETAIL_MISUSE_ROOT, 5, 0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "node rank 1 called a broadcast from root 5, outside the node's 3 ranks");
    record(SHARDTAB_WAIT_MISUSE, 0, SHARDTAB_DETAIL_CMP_LL, SHARDTAB_DETAIL_MISUSE_LL_BYTES, 6, 0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "node rank 1 called shardtab_wait_ll_block for 6 bytes: an LL message is a "
               "multiple of 4 bytes (each 8-byte word carries 4)");
    record(SHARDTAB_WAIT_MISUSE, 0, SHARDTAB_DETAIL_CMP_LL, SHARDTAB_DETAIL_MISUSE_LL_ALIGN, 0x1004,
           0);
    check_says(SHARDTAB_ERR_INVALID_ARG, "node rank 1 called shardtab_wait_ll_block on a buffer at "
                                         "0x1004: an LL buffer is 8-byte aligned");
    record(SHARDTAB_WAIT_MISUSE, 0, SHARDTAB_DETAIL_CMP_LL, SHARDTAB_DETAIL_MISUSE_LL_DST, 0x2002,
           0);
    check_says(SHARDTAB_ERR_INVALID_ARG,
               "node rank 1 called shardtab_wait_ll_block into dst at 0x2002: an LL message "
               "lands 4 bytes at a time, dst 4-byte aligned");
    record(SHARDTAB_WAIT_MISUSE, FIRST_USER, SHARDTAB_CMP_EQ, 99, 0, 0);
    check_says(SHARDTAB_ERR_INVALID_ARG, "node rank 1 misused a collective (reason 99)");
}

static void test_a_stopped_table_keeps_its_first_cause(void **state)
{
    (void)state;
    record(SHARDTAB_WAIT_MISUSE, FIRST_USER, SHARDTAB_CMP_EQ, 99, 0, 0);
    assert_int_equal(shardtab_signal_check(&table), SHARDTAB_ERR_INVALID_ARG);
    memset(pad, 0, sizeof pad); /* whatever the pad says now */
    pad[SHARDTAB_PAD_ABORT] = 3;
    assert_int_equal(shardtab_signal_check(&table), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "node rank 1 misused a collective (reason 99)");
    /* a cause recorded before (this rank's own refusal) wins over the pad's */
    running_again();
    st_table_stop(&table, SHARDTAB_ERR_INVALID_ARG, "shardtab_all_reduce: its own words");
    assert_int_equal(shardtab_signal_check(&table), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_all_reduce: its own words");
    running_again();
}

static void test_a_stopped_table_s_calls_are_refused_with_its_cause(void **state)
{
    (void)state;
    running_again();
    assert_int_equal(st_table_stopped(&table, "shardtab_broadcast"), SHARDTAB_SUCCESS);
    st_table_stop(&table, SHARDTAB_ERR_INVALID_ARG, "the ranks disagree");
    assert_int_equal(st_table_stopped(&table, "shardtab_broadcast"), SHARDTAB_ERR_ABORTED);
    assert_string_equal(said(), "shardtab_broadcast: refused: this table stopped at an earlier "
                                "call; destroy it. It stopped because: the ranks disagree");
    running_again();
}

static void test_check_refuses_a_dead_table_and_passes_the_backend_s_failure_on(void **state)
{
    shardtab_t copy = table;
    char want[200];
    (void)state;
    record(SHARDTAB_WAIT_TIMED_OUT, FIRST_USER, SHARDTAB_CMP_GE, 1, 0, 0);
    copy_fails = 1;
    assert_int_equal(shardtab_signal_check(&table), SHARDTAB_ERR_DEVICE); /* not the pad's */
    copy_fails = 0;
    waits = 0;
    assert_int_equal(shardtab_signal_check(&copy), SHARDTAB_ERR_INVALID_ARG);
    snprintf(want, sizeof want,
             "shardtab_signal_check(%p): not a live table of this process "
             "(destroyed already, or never created by shardtab_create)",
             (void *)&copy);
    assert_string_equal(said(), want);
    assert_int_equal(shardtab_signal_check(NULL), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_signal_check: no table (NULL)");
    assert_int_equal(waits, 0); /* nothing read */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_pad_is_success_after_the_barriers),
        cmocka_unit_test(test_timed_out_wait_names_the_word_the_limit_and_the_values),
        cmocka_unit_test(test_timed_out_ll_wait_names_the_word_and_both_flags),
        cmocka_unit_test(test_abort_word_names_the_rank_that_gave_up_first),
        cmocka_unit_test(test_entered_twice_tells_a_barrier_from_a_collective),
        cmocka_unit_test(test_device_collective_records_name_the_peer_and_both_calls),
        cmocka_unit_test(test_stream_collective_records_spell_both_call_words),
        cmocka_unit_test(test_each_misuse_has_its_message),
        cmocka_unit_test(test_a_stopped_table_keeps_its_first_cause),
        cmocka_unit_test(test_a_stopped_table_s_calls_are_refused_with_its_cause),
        cmocka_unit_test(test_check_refuses_a_dead_table_and_passes_the_backend_s_failure_on),
    };
    return cmocka_run_group_tests(tests, lay_out_table, forget_table);
}
