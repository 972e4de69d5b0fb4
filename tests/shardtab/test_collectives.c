/* test_collectives.c - pins src/shardtab/collectives.c and its call word
 * (call_word.h): the word's layout and round trip; each check of a call with
 * its message; and, on a node of two ranks laid out by hand (table.h) over a
 * stand-in backend that records what it is handed, the phases each call runs,
 * in order, with the words every rank must match: one-shot and two-shot
 * all-reduce (the cutover, the algorithm variable), broadcast from a peer and
 * from the root, all-gather, and the stopped sync of a call that fails its own
 * checks; the user slots a device-side collective may take (shardtab_coll). The
 * path across nodes (MPI) is tests/shardtab/comm's. */
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
#include "table.h"

static const char *said(void)
{
    return st_thread_last_error() + st_error_prefix_bytes();
}

/* ---- the call word ----------------------------------------------------------- */

static void test_call_word_layout(void **state)
{
    (void)state;
    /* each field at its place, alone and at its largest */
    assert_int_equal(st_call_word_pack(15, 0, 0, 0, 0, 0), 0xfull);
    assert_int_equal(st_call_word_pack(0, 15, 0, 0, 0, 0), 0xf0ull);
    assert_int_equal(st_call_word_pack(0, 0, 15, 0, 0, 0), 0xf00ull);
    assert_int_equal(st_call_word_pack(0, 0, 0, ST_CALL_ROOT_MAX, 0, 0), 0xfff000ull);
    assert_int_equal(st_call_word_pack(0, 0, 0, 0, 3, 0), 0x3000000ull);
    assert_int_equal(st_call_word_pack(0, 0, 0, 0, 0, ST_COUNT_MAX - 1), 0xfffffffffc000000ull);
    /* all together */
    assert_int_equal(st_call_word_pack(ST_STREAM_BROADCAST, SHARDTAB_MIN, SHARDTAB_INT64, 0xabc,
                                       ST_ALGO_ONE_SHOT, 0x2a5a5a5a5ull),
                     0x0a96969695abc212ull);
    /* a field keeps its low bits only */
    assert_int_equal(st_call_word_pack(0, 16 + 2, 0, 4096 + 5, 4 + 1, 0), 0x1005020ull);
}

static void test_call_word_round_trip(void **state)
{
    static const struct {
        int kind, op, type, root, algo;
        uint64_t count;
    } calls[] = {
        {ST_STREAM_ALL_REDUCE, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, ST_ALGO_ONE_SHOT, 1000},
        {ST_STREAM_ALL_REDUCE, SHARDTAB_MAX, SHARDTAB_DOUBLE, 0, ST_ALGO_TWO_SHOT, 33554432},
        {ST_STREAM_BROADCAST, SHARDTAB_SUM, SHARDTAB_INT64, 4095, 0, 7},
        {ST_STREAM_ALL_GATHER, SHARDTAB_SUM, SHARDTAB_DOUBLE, 0, 0, ST_COUNT_MAX - 1},
        {ST_STREAM_ALL_GATHER, SHARDTAB_MIN, SHARDTAB_FLOAT, 1234, 3, 0},
    };
    st_call_word_t w;
    (void)state;
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
        w = st_call_word_unpack(st_call_word_pack(calls[i].kind, calls[i].op, calls[i].type,
                                                  calls[i].root, calls[i].algo, calls[i].count));
        assert_int_equal(w.kind, calls[i].kind);
        assert_int_equal(w.op, calls[i].op);
        assert_int_equal(w.type, calls[i].type);
        assert_int_equal(w.root, calls[i].root);
        assert_int_equal(w.algo, calls[i].algo);
        assert_int_equal(w.count, calls[i].count);
    }
    w = st_call_word_unpack(UINT64_MAX);
    assert_int_equal(w.kind, 15);
    assert_int_equal(w.op, 15);
    assert_int_equal(w.type, 15);
    assert_int_equal(w.root, 4095);
    assert_int_equal(w.algo, 3);
    assert_int_equal(w.count, ST_COUNT_MAX - 1);
    assert_string_equal(st_call_kind_name(0), "?");
    assert_string_equal(st_call_kind_name(ST_STREAM_ALL_REDUCE), "shardtab_all_reduce");
    assert_string_equal(st_call_kind_name(ST_STREAM_BROADCAST), "shardtab_broadcast");
    assert_string_equal(st_call_kind_name(ST_STREAM_ALL_GATHER), "shardtab_all_gather");
    assert_string_equal(st_call_kind_name(ST_STREAM_HALO), "shardtab_halo_exchange");
    assert_string_equal(st_call_kind_name(5), "?");
    assert_string_equal(st_call_algo_name(0), "no algorithm");
    assert_string_equal(st_call_algo_name(ST_ALGO_ONE_SHOT), "one-shot");
    assert_string_equal(st_call_algo_name(ST_ALGO_TWO_SHOT), "two-shot");
    assert_string_equal(st_call_algo_name(ST_ALGO_ONE_BLOCK), "one-block");
    assert_string_equal(st_call_algo_name(4), "no algorithm");
}

/* ---- a node laid out by hand, a backend that records ----------------------- */

enum { SHARD = 8192, MAX_PHASES = 16 };
static _Alignas(16) char shard0[SHARD], shard1[SHARD];
static void *entries[2] = {shard0, shard1};
static void *device_table[4] = {shard0, shard1, NULL, NULL};
static int members[2] = {0, 1}, node_rank_of[2] = {0, 1};
static uint64_t pad[256];
static shardtab_t table;

static st_coll_phase_t phases[MAX_PHASES];
static int nphases, begins, ends, allocs, frees;
static size_t alloc_bytes;
static int order_token;

static shardtab_status_t record_begin(shardtab_stream_t stream, void **order)
{
    (void)stream;
    if (*order == NULL)
        *order = &order_token;
    begins++;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t record_phase(const st_coll_phase_t *p, shardtab_stream_t stream)
{
    (void)stream;
    assert_true(nphases < MAX_PHASES);
    phases[nphases++] = *p;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t record_end(shardtab_stream_t stream, void *order)
{
    (void)stream;
    assert_ptr_equal(order, &order_token);
    ends++;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t record_alloc(size_t bytes, void **ptr)
{
    *ptr = malloc(bytes);
    alloc_bytes = bytes;
    allocs++;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t record_free(void *ptr)
{
    free(ptr);
    frees++;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t nothing_to_wait(shardtab_stream_t stream)
{
    (void)stream;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t no_order_to_wait(void *order)
{
    (void)order;
    return SHARDTAB_SUCCESS;
}

static st_backend_ops_t recorder = {.order_begin = record_begin,
                                    .collective_phase = record_phase,
                                    .order_end = record_end,
                                    .mem_alloc = record_alloc,
                                    .mem_free = record_free,
                                    .stream_synchronize = nothing_to_wait,
                                    .barrier_wait = no_order_to_wait};

/* node rank me of a two-rank node; or, with solo, a table of one rank alone */
static void lay_out(int me, int solo)
{
    memset(&table, 0, sizeof table);
    table.rank = table.node_rank = me;
    table.size = table.node_size = solo ? 1 : 2;
    table.node_count = 1;
    table.members = members;
    table.node_rank_of = node_rank_of;
    table.shard.local = entries[me];
    table.shard.bytes = SHARD - 4096; /* a shard of 4096 bytes */
    table.shard.entries = entries;
    table.pad.local = pad;
    table.device_table = device_table;
    table.signal_slots = 8;
    table.clock_hz = 1e9;
    table.wait_timeout_s = 1;
    table.live.table = &table;
    st_live_add(&table.live);
    nphases = begins = ends = allocs = frees = 0;
}

static int set_up(void **state)
{
    (void)state;
    unsetenv("SHARDTAB_ALL_REDUCE_ALGO");
    unsetenv("SHARDTAB_ALL_REDUCE_CUTOVER");
    st_backend_use(&recorder);
    return 0;
}

static int tear_down(void **state)
{
    (void)state;
    st_live_remove(&table.live);
    if (table.coll_scratch != NULL)
        free(table.coll_scratch);
    table.coll_scratch = NULL;
    st_backend_use(NULL);
    return 0;
}

/* ---- the checks of a call ------------------------------------------------------ */

static void refused(shardtab_status_t status, const char *message)
{
    assert_int_equal(status, SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), message);
}

static void test_checks_refuse_each_bad_argument_with_its_message(void **state)
{
    (void)state;
    lay_out(0, 1);
    refused(shardtab_all_reduce(&table, SHARDTAB_SUM, (shardtab_type_t)7, 0, 1, NULL),
            "shardtab_all_reduce: unknown type 7 (expected SHARDTAB_FLOAT, SHARDTAB_DOUBLE or "
            "SHARDTAB_INT64)");
    refused(
        shardtab_all_reduce(&table, (shardtab_op_t)5, SHARDTAB_FLOAT, 0, 1, NULL),
        "shardtab_all_reduce: unknown op 5 (expected SHARDTAB_SUM, SHARDTAB_MIN or SHARDTAB_MAX)");
    refused(shardtab_broadcast(&table, 1, SHARDTAB_FLOAT, 0, 1, NULL),
            "shardtab_broadcast: root 1 is outside the table's 1 ranks");
    refused(shardtab_broadcast(&table, -1, SHARDTAB_FLOAT, 0, 1, NULL),
            "shardtab_broadcast: root -1 is outside the table's 1 ranks");
    refused(shardtab_all_gather(&table, SHARDTAB_DOUBLE, 6, 1, NULL),
            "shardtab_all_gather: byte offset 6 is not a multiple of the 8-byte double");
    refused(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, ST_COUNT_MAX + 1, NULL),
            "shardtab_all_reduce: count 274877906945 is above 274877906944 elements");
    refused(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 4100, 0, NULL),
            "shardtab_all_reduce: byte offset 4100 is past this rank's shard of 4096 bytes");
    refused(shardtab_all_reduce(&table, SHARDTAB_MIN, SHARDTAB_FLOAT, 4, 1024, NULL),
            "shardtab_all_reduce: 1024 float values from byte 4 need 4100 bytes, past this rank's "
            "shard of 4096 bytes");
    refused(shardtab_all_gather(&table, SHARDTAB_INT64, 0, 600, NULL),
            "shardtab_all_gather: 600 int64 values from byte 0 need 4800 bytes, past this rank's "
            "shard of 4096 bytes");
    /* the call word holds roots up to 4095 */
    table.size = 5000;
    refused(shardtab_broadcast(&table, 4096, SHARDTAB_FLOAT, 0, 1, NULL),
            "shardtab_broadcast: root 4096 is outside the table's 5000 ranks (a root above 4095 "
            "is not supported)");
    assert_int_equal(shardtab_broadcast(&table, 4095, SHARDTAB_FLOAT, 0, 1, NULL),
                     SHARDTAB_SUCCESS);
    table.size = 1;
    /* alone, a call that passes its checks moves nothing */
    assert_int_equal(shardtab_all_reduce(&table, SHARDTAB_MAX, SHARDTAB_DOUBLE, 8, 511, NULL),
                     SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_all_gather(&table, SHARDTAB_FLOAT, 0, 1024, NULL), SHARDTAB_SUCCESS);
    assert_int_equal(nphases + begins + ends + allocs, 0);
    refused(shardtab_all_reduce(NULL, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, 1, NULL),
            "shardtab_all_reduce: no table (NULL)");
}

static void test_checks_read_the_algorithm_variables(void **state)
{
    (void)state;
    lay_out(0, 1);
    setenv("SHARDTAB_ALL_REDUCE_ALGO", "fast", 1);
    refused(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, 1, NULL),
            "SHARDTAB_ALL_REDUCE_ALGO='fast': expected one-block, one-shot, two-shot or auto");
    /* only all-reduce has an algorithm */
    assert_int_equal(shardtab_broadcast(&table, 0, SHARDTAB_FLOAT, 0, 1, NULL), SHARDTAB_SUCCESS);
    setenv("SHARDTAB_ALL_REDUCE_ALGO", "auto", 1);
    setenv("SHARDTAB_ALL_REDUCE_CUTOVER", "12k", 1);
    refused(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, 1, NULL),
            "SHARDTAB_ALL_REDUCE_CUTOVER='12k' is not a number of bytes");
    setenv("SHARDTAB_ALL_REDUCE_CUTOVER", "-1", 1);
    refused(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, 1, NULL),
            "SHARDTAB_ALL_REDUCE_CUTOVER='-1' is not a number of bytes");
    /* past what a size holds: refused, not taken as the largest */
    setenv("SHARDTAB_ALL_REDUCE_CUTOVER", "99999999999999999999999999", 1);
    refused(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, 1, NULL),
            "SHARDTAB_ALL_REDUCE_CUTOVER='99999999999999999999999999' is not a number of bytes");
    setenv("SHARDTAB_ALL_REDUCE_CUTOVER", "18446744073709551616", 1); /* 2^64 */
    refused(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, 1, NULL),
            "SHARDTAB_ALL_REDUCE_CUTOVER='18446744073709551616' is not a number of bytes");
    setenv("SHARDTAB_ALL_REDUCE_CUTOVER", "", 1);
    assert_int_equal(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, 1, NULL),
                     SHARDTAB_SUCCESS);
}

/* ---- the phases on a node of two ----------------------------------------------- */

static void expect_phase(int i, int kind, size_t begin, size_t end)
{
    assert_true(i < nphases);
    assert_int_equal(phases[i].phase, kind);
    assert_int_equal(phases[i].begin, begin);
    assert_int_equal(phases[i].end, end);
}

/* every phase of the call carries its words, its region and its grid's facts */
static void expect_every_phase(uint64_t word, size_t offset, size_t count, int op, int type,
                               int vec16)
{
    for (int i = 0; i < nphases; i++) {
        assert_int_equal(phases[i].args[0], offset);
        assert_int_equal(phases[i].args[1], word);
        assert_int_equal(phases[i].offset, offset);
        assert_int_equal(phases[i].count, count);
        assert_int_equal(phases[i].op, op);
        assert_int_equal(phases[i].type, type);
        assert_int_equal(phases[i].vec16, vec16);
        assert_ptr_equal(phases[i].table, device_table);
        assert_int_equal(phases[i].sig.node_size, 2);
        assert_ptr_equal(phases[i].sig.mine, pad);
    }
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 1);
}

/* Node rank 0 of the laid-out table calls an all-reduce by the algorithm `algo`,
 * which succeeds (a macro: a failure names its line). */
#define ALL_REDUCE_BY(algo, op, type, offset, count)                                               \
  do {                                                                                             \
    lay_out(0, 0);                                                                                 \
    setenv("SHARDTAB_ALL_REDUCE_ALGO", algo, 1);                                                   \
    assert_int_equal(shardtab_all_reduce(&table, op, type, offset, count, NULL),                   \
                     SHARDTAB_SUCCESS);                                                            \
  } while (0)

static void test_one_shot_reduces_into_scratch_then_copies_back(void **state)
{
    (void)state;
    ALL_REDUCE_BY("one-shot", SHARDTAB_SUM, SHARDTAB_FLOAT, 64, 1000);
    assert_int_equal(nphases, 4);
    expect_phase(0, ST_PHASE_SYNC, 0, 0);
    expect_phase(1, ST_PHASE_REDUCE, 0, 1000);
    expect_phase(2, ST_PHASE_SYNC, 0, 0); /* every rank has read every region */
    expect_phase(3, ST_PHASE_COPY, 0, 1000);
    assert_int_equal(phases[3].src_rank, -1); /* from the scratch buffer */
    assert_ptr_equal(phases[1].dst, table.coll_scratch);
    assert_ptr_equal(phases[3].scratch, table.coll_scratch);
    assert_int_equal(allocs, 1);
    assert_int_equal(alloc_bytes, 4000);
    expect_every_phase(st_call_word_pack(ST_STREAM_ALL_REDUCE, SHARDTAB_SUM, SHARDTAB_FLOAT, 0,
                                         ST_ALGO_ONE_SHOT, 1000),
                       64, 1000, SHARDTAB_SUM, SHARDTAB_FLOAT, 1);
    /* the scratch buffer grows only: a smaller call keeps it, a larger one replaces it */
    nphases = begins = ends = 0;
    assert_int_equal(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 4, 10, NULL),
                     SHARDTAB_SUCCESS);
    assert_int_equal(allocs, 1);
    expect_every_phase(st_call_word_pack(ST_STREAM_ALL_REDUCE, SHARDTAB_SUM, SHARDTAB_FLOAT, 0,
                                         ST_ALGO_ONE_SHOT, 10),
                       4, 10, SHARDTAB_SUM, SHARDTAB_FLOAT, 0); /* 4 bytes in: no 16-byte vectors */
    assert_int_equal(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_DOUBLE, 0, 511, NULL),
                     SHARDTAB_SUCCESS);
    assert_int_equal(allocs, 2);
    assert_int_equal(frees, 1);
    assert_int_equal(alloc_bytes, 4088);
}

static void test_two_shot_reduces_this_rank_s_chunk_then_gathers_the_others(void **state)
{
    (void)state;
    setenv("SHARDTAB_ALL_REDUCE_ALGO", "two-shot", 1);
    for (int me = 0; me < 2; me++) {
        lay_out(me, 0);
        assert_int_equal(shardtab_all_reduce(&table, SHARDTAB_MAX, SHARDTAB_INT64, 16, 501, NULL),
                         SHARDTAB_SUCCESS);
        assert_int_equal(nphases, 5);
        expect_phase(0, ST_PHASE_SYNC, 0, 0);
        /* 501 values in two chunks of whole 16-byte vectors: 252, then the 249 left */
        expect_phase(1, ST_PHASE_REDUCE, me ? 252 : 0, me ? 501 : 252);
        expect_phase(2, ST_PHASE_SYNC, 0, 0);
        expect_phase(3, ST_PHASE_CHUNKS, 0, 0);
        expect_phase(4, ST_PHASE_SYNC, 0, 0);
        for (int i = 0; i < 5; i++)
            assert_int_equal(phases[i].chunk, 252);
        assert_ptr_equal(phases[1].dst, (char *)entries[me] + 16); /* in place */
        assert_int_equal(allocs, 0);
        expect_every_phase(st_call_word_pack(ST_STREAM_ALL_REDUCE, SHARDTAB_MAX, SHARDTAB_INT64, 0,
                                             ST_ALGO_TWO_SHOT, 501),
                           16, 501, SHARDTAB_MAX, SHARDTAB_INT64, 1);
        tear_down(NULL);
        st_backend_use(&recorder);
    }
}

static int algorithm_of(size_t count)
{
    lay_out(0, 0);
    assert_int_equal(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, count, NULL),
                     SHARDTAB_SUCCESS);
    return (int)st_call_word_unpack(phases[0].args[1]).algo;
}

static void test_auto_is_one_block_then_one_shot_up_to_the_cutover(void **state)
{
    (void)state;
    /* 4000 bytes: below one-block's 64 KiB (the shard here is too small to
     * cross it: stream_check's 64 KiB calls run on either side) */
    assert_int_equal(algorithm_of(1000), ST_ALGO_ONE_BLOCK);
    tear_down(NULL);
    set_up(NULL);
    setenv("SHARDTAB_ALL_REDUCE_CUTOVER", "4000", 1);
    assert_int_equal(algorithm_of(1000), ST_ALGO_ONE_BLOCK); /* at the cutover */
    tear_down(NULL);
    set_up(NULL);
    setenv("SHARDTAB_ALL_REDUCE_CUTOVER", "3999", 1);
    assert_int_equal(algorithm_of(1000), ST_ALGO_TWO_SHOT);
    tear_down(NULL);
    set_up(NULL);
}

/* one-block: one phase, one kernel (two syncs inside it), into scratch and back */
static void test_one_block_is_one_phase(void **state)
{
    (void)state;
    ALL_REDUCE_BY("one-block", SHARDTAB_MIN, SHARDTAB_DOUBLE, 8, 77);
    assert_int_equal(nphases, 1);
    expect_phase(0, ST_PHASE_ONE_BLOCK, 0, 77);
    assert_ptr_equal(phases[0].scratch, table.coll_scratch);
    assert_int_equal(allocs, 1);
    assert_int_equal(alloc_bytes, 77 * 8);
    expect_every_phase(st_call_word_pack(ST_STREAM_ALL_REDUCE, SHARDTAB_MIN, SHARDTAB_DOUBLE, 0,
                                         ST_ALGO_ONE_BLOCK, 77),
                       8, 77, SHARDTAB_MIN, SHARDTAB_DOUBLE,
                       0); /* 8 bytes in: no 16-byte vectors */
}

/* one-block of at most 8 bytes: one phase, its values in the sync's words,
 * combined into this rank's own region; no scratch buffer */
static void test_one_block_of_eight_bytes_is_one_ll_phase(void **state)
{
    static const struct {
        int type;
        size_t offset, count;
    } calls[] = {{SHARDTAB_DOUBLE, 8, 1},
                 {SHARDTAB_INT64, 0, 1},
                 {SHARDTAB_FLOAT, 4, 2},
                 {SHARDTAB_FLOAT, 12, 1},
                 {SHARDTAB_FLOAT, 0, 0}};
    (void)state;
    for (int me = 0; me < 2; me++)
        for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
            lay_out(me, 0);
            assert_int_equal(shardtab_all_reduce(&table, SHARDTAB_MAX, calls[i].type,
                                                 calls[i].offset, calls[i].count, NULL),
                             SHARDTAB_SUCCESS);
            assert_int_equal(nphases, 1);
            expect_phase(0, ST_PHASE_LL, 0, calls[i].count);
            assert_ptr_equal(phases[0].dst, (char *)entries[me] + calls[i].offset);
            assert_int_equal(allocs, 0);
            expect_every_phase(st_call_word_pack(ST_STREAM_ALL_REDUCE, SHARDTAB_MAX, calls[i].type,
                                                 0, ST_ALGO_ONE_BLOCK, calls[i].count),
                               calls[i].offset, calls[i].count, SHARDTAB_MAX, calls[i].type,
                               calls[i].offset % 16 == 0);
            tear_down(NULL);
            set_up(NULL);
        }
    /* 12 bytes: the two syncs of one-block */
    lay_out(0, 0);
    assert_int_equal(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, 3, NULL),
                     SHARDTAB_SUCCESS);
    assert_int_equal(nphases, 1);
    expect_phase(0, ST_PHASE_ONE_BLOCK, 0, 3);
}

static void test_broadcast_copies_from_the_root_s_node_rank(void **state)
{
    (void)state;
    lay_out(0, 0);
    assert_int_equal(shardtab_broadcast(&table, 1, SHARDTAB_DOUBLE, 32, 100, NULL),
                     SHARDTAB_SUCCESS);
    assert_int_equal(nphases, 3);
    expect_phase(0, ST_PHASE_SYNC, 0, 0);
    expect_phase(1, ST_PHASE_COPY, 0, 100);
    assert_int_equal(phases[1].src_rank, 1);
    expect_phase(2, ST_PHASE_SYNC, 0, 0); /* the root keeps its region until everyone has it */
    expect_every_phase(
        st_call_word_pack(ST_STREAM_BROADCAST, SHARDTAB_SUM, SHARDTAB_DOUBLE, 1, 0, 100), 32, 100,
        SHARDTAB_SUM, SHARDTAB_DOUBLE, 1);
    tear_down(NULL);
    set_up(NULL);
    lay_out(1, 0); /* the root itself copies nothing */
    assert_int_equal(shardtab_broadcast(&table, 1, SHARDTAB_DOUBLE, 32, 100, NULL),
                     SHARDTAB_SUCCESS);
    assert_int_equal(nphases, 2);
    expect_phase(0, ST_PHASE_SYNC, 0, 0);
    expect_phase(1, ST_PHASE_SYNC, 0, 0);
}

static void test_all_gather_moves_every_other_rank_s_piece(void **state)
{
    (void)state;
    lay_out(1, 0);
    assert_int_equal(shardtab_all_gather(&table, SHARDTAB_FLOAT, 48, 10, NULL), SHARDTAB_SUCCESS);
    assert_int_equal(nphases, 3);
    expect_phase(0, ST_PHASE_SYNC, 0, 0);
    expect_phase(1, ST_PHASE_CHUNKS, 0, 0);
    expect_phase(2, ST_PHASE_SYNC, 0, 0);
    assert_int_equal(phases[1].chunk, 10); /* node rank q's values at q * 10 */
    expect_every_phase(
        st_call_word_pack(ST_STREAM_ALL_GATHER, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, 0, 10), 48, 20,
        SHARDTAB_SUM, SHARDTAB_FLOAT, 1);
}

/* ---- a collective's slots (shardtab_coll, shardtab_detail_coll_fits) ----------------------- */

/* N1: a user's collective lies in the user slots, [0, slots) from its first slot to
 * the last; the slot after them is the library's own collective, which no user call
 * may name (a call there with 2000 values was taken, its deposits past the pad). */
static void test_a_collective_stays_in_the_user_slots(void **state)
{
    (void)state;
    shardtab_signals_t s;
    memset(&s, 0, sizeof s); /* no pads: the arithmetic alone must decide */
    s.node_size = 2;
    s.slots = 100;
    s.lib_first = SHARDTAB_PAD_HEADER + s.node_size + s.slots;

    shardtab_coll_t c = shardtab_coll(&s, 0, 1);
    assert_int_equal(c.first, shardtab_slot_index(&s, 0));
    assert_true(shardtab_detail_coll_fits(&s, &c));
    c = shardtab_coll(&s, 100 - SHARDTAB_COLL_SLOTS(2, 1), 1); /* ends at the last user slot */
    assert_true(shardtab_detail_coll_fits(&s, &c));
    c = shardtab_coll(&s, 100 - SHARDTAB_COLL_SLOTS(2, 1) + 1, 1); /* one past */
    assert_false(shardtab_detail_coll_fits(&s, &c));
    c = shardtab_coll(&s, 0, 2000); /* runs past the user slots */
    assert_false(shardtab_detail_coll_fits(&s, &c));
    /* outside the user slots: refused by its first slot, which the handle keeps to name */
    const int outside[] = {100, 101, -1, 1 << 30};
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        c = shardtab_coll(&s, outside[i], 2000);
        assert_int_equal(c.first, -1);
        assert_int_equal((int64_t)c.state, outside[i]);
        assert_false(shardtab_detail_coll_fits(&s, &c));
        assert_int_equal(shardtab_detail_coll_pending(&s, &c), 0); /* reads no pad */
    }
    /* the library's own: at most the values its slots were laid out for */
    c = shardtab_lib_coll(&s);
    assert_true(shardtab_detail_coll_fits(&s, &c));
    c.values = SHARDTAB_DETAIL_LIB_COLL_VALUES + 1;
    assert_false(shardtab_detail_coll_fits(&s, &c));
    c.values = 2000;
    assert_false(shardtab_detail_coll_fits(&s, &c));
}

static void test_a_call_that_fails_its_checks_stops_the_node(void **state)
{
    (void)state;
    lay_out(1, 0);
    refused(shardtab_all_reduce(&table, SHARDTAB_SUM, SHARDTAB_FLOAT, 6, 10, NULL),
            "shardtab_all_reduce: byte offset 6 is not a multiple of the 4-byte float");
    /* one sync whose words no rank's can match: the peers learn it from their pads */
    assert_int_equal(nphases, 1);
    expect_phase(0, ST_PHASE_SYNC, 0, 0);
    assert_int_equal(phases[0].args[0], ST_ARGS_INVALID);
    assert_int_equal(phases[0].args[1], ST_ARGS_INVALID);
    assert_int_equal(phases[0].sig.node_rank, 1);
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_call_word_layout),
        cmocka_unit_test(test_call_word_round_trip),
        cmocka_unit_test_setup_teardown(test_checks_refuse_each_bad_argument_with_its_message,
                                        set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_checks_read_the_algorithm_variables, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(test_one_shot_reduces_into_scratch_then_copies_back, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(
            test_two_shot_reduces_this_rank_s_chunk_then_gathers_the_others, set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_auto_is_one_block_then_one_shot_up_to_the_cutover,
                                        set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_one_block_is_one_phase, set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_one_block_of_eight_bytes_is_one_ll_phase, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(test_broadcast_copies_from_the_root_s_node_rank, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(test_all_gather_moves_every_other_rank_s_piece, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(test_a_call_that_fails_its_checks_stops_the_node, set_up,
                                        tear_down),
        cmocka_unit_test(test_a_collective_stays_in_the_user_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
