/* test_signals.c - pins shardtab_device.h on the host (C11 atomics) with fake pads in ordinary memory: where signals land, how waits end, what a give-up records and whom it stops, and the node barrier between threads. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "shardtab_device.h"

#define MAX_RANKS 3
#define SLOTS 8
#define GUARD_WORDS 4
#define GUARD 0xdeadbeefcafef00dull
#define PAD_WORDS(size) (SHARDTAB_PAD_HEADER + (size) + SLOTS)
#define MS 1000000ull             /* timeout_ticks are CLOCK_MONOTONIC nanoseconds on the host */
#define SHORT_TIMEOUT (20 * MS)   /* a wait meant to give up */
#define LONG_TIMEOUT (10000 * MS) /* a wait meant to end for another reason first */
/* "at once" and "promptly": far below LONG_TIMEOUT, far above a loaded machine's
 * scheduling delays (2 cores shared by other test runs) */
#define PROMPT (2000 * MS)

/* One node of fake pads: what shardtab_create would map, and each rank's view. */
typedef struct fake_node {
    uint64_t storage[MAX_RANKS][PAD_WORDS(MAX_RANKS) + GUARD_WORDS];
    uint64_t *pads[MAX_RANKS];
    shardtab_signals_t view[MAX_RANKS];
    int size;
} fake_node_t;

static fake_node_t node;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Zeroed pads (as shardtab_create leaves them), guard words past each pad's end,
 * and every rank's view with the same timeout. */
static void node_init(int size, uint64_t timeout_ticks)
{
    memset(&node, 0, sizeof node);
    node.size = size;
    for (int r = 0; r < size; r++) {
        node.pads[r] = node.storage[r];
        for (int g = 0; g < GUARD_WORDS; g++)
            node.storage[r][PAD_WORDS(size) + g] = GUARD;
    }
    for (int r = 0; r < size; r++) {
        node.view[r].pads = node.pads;
        node.view[r].mine = node.pads[r];
        node.view[r].node_rank = r;
        node.view[r].node_size = size;
        node.view[r].slots = SLOTS;
        node.view[r].timeout_ticks = timeout_ticks;
    }
}

static uint64_t user_word(int rank, int slot)
{
    return node.pads[rank][SHARDTAB_PAD_HEADER + node.size + slot];
}

static void expect_guards_intact(void)
{
    for (int r = 0; r < node.size; r++)
        for (int g = 0; g < GUARD_WORDS; g++)
            if (node.storage[r][PAD_WORDS(node.size) + g] != GUARD)
                fail_msg("pad %d was written past its end (guard word %d)", r, g);
}

/* Rank r's wait on its slot `slot` (cmp, value) returns want (a macro: a
 * failure names the line of the wait). */
#define EXPECT_WAIT(r, slot, cmp, value, want)                                                     \
  assert_int_equal(shardtab_signal_wait_until(&node.view[r], slot, cmp, value), want)

/* Rank r's give-up record (status .. ticks) is still zero. */
static void expect_no_record(int r)
{
    for (int i = SHARDTAB_PAD_STATUS; i <= SHARDTAB_PAD_ERR_TICKS; i++)
        if (node.pads[r][i] != 0)
            fail_msg("pad %d header word %d is %llu, expected 0", r, i,
                     (unsigned long long)node.pads[r][i]);
}

static void expect_abort_everywhere(uint64_t value)
{
    for (int r = 0; r < node.size; r++)
        if (node.pads[r][SHARDTAB_PAD_ABORT] != value)
            fail_msg("abort flag of pad %d is %llu, expected %llu", r,
                     (unsigned long long)node.pads[r][SHARDTAB_PAD_ABORT],
                     (unsigned long long)value);
}

/* ---- layout ------------------------------------------------------------------ */

static void test_signals_user_slot_index_is_header_plus_node_size_plus_slot(void **state)
{
    (void)state;
    for (int size = 2; size <= MAX_RANKS; size++) {
        node_init(size, SHORT_TIMEOUT);
        for (int slot = 0; slot < SLOTS; slot++)
            assert_int_equal(shardtab_slot_index(&node.view[0], slot),
                             SHARDTAB_PAD_HEADER + size + slot);
    }
}

/* ---- set, add, read --------------------------------------------------------------- */

static void test_signals_set_writes_the_peers_user_slot_and_nothing_else(void **state)
{
    (void)state;
    for (int size = 2; size <= MAX_RANKS; size++) {
        node_init(size, SHORT_TIMEOUT);
        /* every rank sets every slot of every pad, its own included, to a value
         * naming (writer, target, slot); the last writer of a word is rank size-1 */
        for (int w = 0; w < size; w++)
            for (int p = 0; p < size; p++)
                for (int k = 0; k < SLOTS; k++)
                    shardtab_signal_set(&node.view[w], p, k,
                                        1000000u * (w + 1) + 1000u * (p + 1) + (unsigned)k);
        for (int p = 0; p < size; p++) {
            for (int i = 0; i < PAD_WORDS(size); i++) {
                uint64_t want = 0;
                int k = i - SHARDTAB_PAD_HEADER - size;
                if (k >= 0)
                    want = 1000000u * size + 1000u * (p + 1) + (unsigned)k;
                if (node.pads[p][i] != want)
                    fail_msg("node size %d: pad %d word %d is %llu, expected %llu", size, p, i,
                             (unsigned long long)node.pads[p][i], (unsigned long long)want);
            }
        }
        expect_guards_intact();
    }
}

static void test_signals_add_accumulates_from_every_rank_into_one_slot(void **state)
{
    (void)state;
    for (int size = 2; size <= MAX_RANKS; size++) {
        node_init(size, SHORT_TIMEOUT);
        for (int round = 0; round < 10; round++)
            for (int w = 0; w < size; w++)
                shardtab_signal_add(&node.view[w], size - 1, 3, (uint64_t)(w + 1));
        assert_int_equal(user_word(size - 1, 3), 10 * size * (size + 1) / 2);
        /* the neighbouring slots and the other pads are untouched */
        assert_int_equal(user_word(size - 1, 2), 0);
        assert_int_equal(user_word(size - 1, 4), 0);
        for (int p = 0; p < size - 1; p++)
            for (int k = 0; k < SLOTS; k++)
                assert_int_equal(user_word(p, k), 0);
        expect_guards_intact();
    }
}

static void test_signals_read_returns_what_a_peer_set_in_this_ranks_pad(void **state)
{
    (void)state;
    for (int size = 2; size <= MAX_RANKS; size++) {
        node_init(size, SHORT_TIMEOUT);
        for (int p = 0; p < size; p++)
            shardtab_signal_set(&node.view[(p + 1) % size], p, SLOTS - 1, 77u + (unsigned)p);
        for (int p = 0; p < size; p++) {
            assert_int_equal(shardtab_signal_read(&node.view[p], SLOTS - 1), 77u + (unsigned)p);
            assert_int_equal(shardtab_signal_read(&node.view[p], 0), 0);
        }
    }
}

/* ---- waits that succeed -------------------------------------------------------------- */

static void test_signals_satisfied_eq_and_ge_waits_return_ok_at_once(void **state)
{
    (void)state;
    node_init(3, LONG_TIMEOUT);
    shardtab_signal_set(&node.view[0], 1, 0, 5);
    uint64_t start = now_ns();
    EXPECT_WAIT(1, 0, SHARDTAB_CMP_EQ, 5, SHARDTAB_WAIT_OK);
    EXPECT_WAIT(1, 0, SHARDTAB_CMP_GE, 5, SHARDTAB_WAIT_OK);
    EXPECT_WAIT(1, 0, SHARDTAB_CMP_GE, 4, SHARDTAB_WAIT_OK);
    EXPECT_WAIT(1, 0, SHARDTAB_CMP_GE, 0, SHARDTAB_WAIT_OK);
    /* an untouched slot equals 0 */
    EXPECT_WAIT(2, 1, SHARDTAB_CMP_EQ, 0, SHARDTAB_WAIT_OK);
    assert_true(now_ns() - start < PROMPT);
    for (int r = 0; r < 3; r++) {
        expect_no_record(r);
        assert_int_equal(node.pads[r][SHARDTAB_PAD_ABORT], 0);
    }
}

static void test_signals_eq_wait_is_not_satisfied_by_a_greater_value(void **state)
{
    (void)state;
    node_init(2, SHORT_TIMEOUT);
    shardtab_signal_set(&node.view[0], 1, 2, 6);
    EXPECT_WAIT(1, 2, SHARDTAB_CMP_EQ, 5, SHARDTAB_WAIT_TIMED_OUT);
    assert_int_equal(node.pads[1][SHARDTAB_PAD_ERR_SEEN], 6);
}

typedef struct delayed_set {
    const shardtab_signals_t *view;
    int peer, slot, delay_ms;
    uint64_t value;
    volatile uint64_t *payload; /* written before the signal, when not NULL */
} delayed_set_t;

static void *set_after_delay(void *arg)
{
    delayed_set_t *d = arg;
    sleep_ms(d->delay_ms);
    if (d->payload)
        *d->payload = 0x5eed;
    shardtab_signal_set(d->view, d->peer, d->slot, d->value);
    return NULL;
}

static void test_signals_wait_returns_when_a_peer_thread_signals_later(void **state)
{
    static volatile uint64_t payload;
    pthread_t thread;
    (void)state;
    node_init(2, LONG_TIMEOUT);
    payload = 0;
    delayed_set_t d = {&node.view[0], 1, 4, 10, 3, &payload};
    uint64_t start = now_ns();
    assert_int_equal(pthread_create(&thread, NULL, set_after_delay, &d), 0);
    EXPECT_WAIT(1, 4, SHARDTAB_CMP_GE, 3, SHARDTAB_WAIT_OK);
    /* the store before the release is visible after the acquire */
    assert_int_equal(payload, 0x5eed);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_true(now_ns() - start < PROMPT);
    expect_no_record(1);
    assert_int_equal(node.pads[1][SHARDTAB_PAD_ABORT], 0);
}

/* The NVSHMEM neighbour idiom: rank 0 publishes data then signals iteration i,
 * rank 1 waits for >= i, reads, and acknowledges; many rounds, growing values. */
#define PING_ROUNDS 500
static uint64_t ping_data[PING_ROUNDS + 1];

static void *ping_writer(void *arg)
{
    (void)arg;
    for (uint64_t i = 1; i <= PING_ROUNDS; i++) {
        if (shardtab_signal_wait_until(&node.view[0], 0, SHARDTAB_CMP_GE, i - 1) !=
            SHARDTAB_WAIT_OK)
            return (void *)1;
        ping_data[i] = i * 2654435761u; /* a plain store, published by the release */
        shardtab_signal_set(&node.view[0], 1, 0, i);
    }
    return NULL;
}

static void test_signals_set_then_wait_ge_carries_data_between_threads_every_round(void **state)
{
    pthread_t thread;
    void *writer_failed = NULL;
    (void)state;
    node_init(2, LONG_TIMEOUT);
    memset(ping_data, 0, sizeof ping_data);
    uint64_t start = now_ns();
    assert_int_equal(pthread_create(&thread, NULL, ping_writer, NULL), 0);
    for (uint64_t i = 1; i <= PING_ROUNDS; i++) {
        EXPECT_WAIT(1, 0, SHARDTAB_CMP_GE, i, SHARDTAB_WAIT_OK);
        if (ping_data[i] != i * 2654435761u)
            fail_msg("round %llu: read %llu before the writer's store became visible",
                     (unsigned long long)i, (unsigned long long)ping_data[i]);
        shardtab_signal_set(&node.view[1], 0, 0, i); /* acknowledge */
    }
    assert_int_equal(pthread_join(thread, &writer_failed), 0);
    assert_null(writer_failed);
    print_message("# %d signal round trips in %.1f ms\n", PING_ROUNDS,
                  (double)(now_ns() - start) / 1e6);
}

/* ---- waits that give up ------------------------------------------------------------- */

static void test_signals_timed_out_wait_records_itself_and_flags_every_pad(void **state)
{
    (void)state;
    node_init(3, SHORT_TIMEOUT);
    shardtab_signal_set(&node.view[0], 1, 2, 3);
    uint64_t start = now_ns();
    EXPECT_WAIT(1, 2, SHARDTAB_CMP_GE, 5, SHARDTAB_WAIT_TIMED_OUT);
    uint64_t elapsed = now_ns() - start;
    assert_true(elapsed >= SHORT_TIMEOUT);
    assert_true(elapsed < PROMPT);

    /* the waiter's own header holds what it waited for */
    assert_int_equal(node.pads[1][SHARDTAB_PAD_STATUS], SHARDTAB_WAIT_TIMED_OUT);
    assert_int_equal(node.pads[1][SHARDTAB_PAD_ERR_SLOT], SHARDTAB_PAD_HEADER + 3 + 2);
    assert_int_equal(node.pads[1][SHARDTAB_PAD_ERR_CMP], SHARDTAB_CMP_GE);
    assert_int_equal(node.pads[1][SHARDTAB_PAD_ERR_WANT], 5);
    assert_int_equal(node.pads[1][SHARDTAB_PAD_ERR_SEEN], 3);
    assert_true(node.pads[1][SHARDTAB_PAD_ERR_TICKS] > SHORT_TIMEOUT);
    assert_true(node.pads[1][SHARDTAB_PAD_ERR_TICKS] <= elapsed);
    assert_int_equal(node.pads[1][SHARDTAB_PAD_EPOCH], 0);
    /* every pad, its own included, says node rank 1 gave up */
    expect_abort_everywhere(1 + 1);
    /* the peers' records stay empty, the user slots as they were */
    expect_no_record(0);
    expect_no_record(2);
    assert_int_equal(user_word(1, 2), 3);
    expect_guards_intact();
}

static void test_signals_waits_after_a_give_up_return_aborted_at_once(void **state)
{
    (void)state;
    node_init(3, SHORT_TIMEOUT);
    EXPECT_WAIT(2, 0, SHARDTAB_CMP_EQ, 1, SHARDTAB_WAIT_TIMED_OUT);
    uint64_t record[SHARDTAB_PAD_HEADER];
    memcpy(record, node.pads[2], sizeof record);

    /* waits that could last LONG_TIMEOUT and are not satisfied */
    for (int r = 0; r < 3; r++)
        node.view[r].timeout_ticks = LONG_TIMEOUT;
    uint64_t start = now_ns();
    EXPECT_WAIT(0, 1, SHARDTAB_CMP_GE, 9, SHARDTAB_WAIT_ABORTED);
    EXPECT_WAIT(1, 5, SHARDTAB_CMP_EQ, 9, SHARDTAB_WAIT_ABORTED);
    /* the rank that gave up: its other waiters stop too */
    EXPECT_WAIT(2, 3, SHARDTAB_CMP_GE, 9, SHARDTAB_WAIT_ABORTED);
    assert_true(now_ns() - start < PROMPT);

    /* an aborted wait writes no record and leaves the flags alone */
    expect_no_record(0);
    expect_no_record(1);
    assert_memory_equal(record, node.pads[2], sizeof record);
    expect_abort_everywhere(1 + 2);
}

static void test_signals_only_the_first_give_up_of_a_rank_writes_its_record(void **state)
{
    (void)state;
    node_init(2, SHORT_TIMEOUT);
    EXPECT_WAIT(0, 0, SHARDTAB_CMP_EQ, 7, SHARDTAB_WAIT_TIMED_OUT);
    uint64_t first[SHARDTAB_PAD_HEADER];
    memcpy(first, node.pads[0], sizeof first);

    /* a second wait of the same rank that really times out (flags cleared by
     * hand, as if it had started before the first gave up) */
    for (int r = 0; r < 2; r++)
        node.pads[r][SHARDTAB_PAD_ABORT] = 0;
    shardtab_signal_set(&node.view[1], 0, 1, 4);
    EXPECT_WAIT(0, 1, SHARDTAB_CMP_GE, 9, SHARDTAB_WAIT_TIMED_OUT);
    assert_memory_equal(first, node.pads[0], sizeof first);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_SLOT], SHARDTAB_PAD_HEADER + 2 + 0);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_CMP], SHARDTAB_CMP_EQ);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_WANT], 7);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_SEEN], 0);
    /* but it still tells everybody to stop */
    expect_abort_everywhere(1 + 0);

    /* a direct give-up changes no record either */
    shardtab_detail_give_up(&node.view[0], 99, SHARDTAB_CMP_GE, 98, 97, 96);
    assert_memory_equal(first, node.pads[0], sizeof first);
}

static void test_signals_each_rank_records_its_own_give_up_the_last_flag_wins(void **state)
{
    (void)state;
    node_init(3, SHORT_TIMEOUT);
    EXPECT_WAIT(0, 0, SHARDTAB_CMP_GE, 1, SHARDTAB_WAIT_TIMED_OUT);
    for (int r = 0; r < 3; r++)
        node.pads[r][SHARDTAB_PAD_ABORT] = 0;
    EXPECT_WAIT(2, 6, SHARDTAB_CMP_EQ, 2, SHARDTAB_WAIT_TIMED_OUT);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_STATUS], SHARDTAB_WAIT_TIMED_OUT);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_SLOT], SHARDTAB_PAD_HEADER + 3 + 0);
    assert_int_equal(node.pads[2][SHARDTAB_PAD_STATUS], SHARDTAB_WAIT_TIMED_OUT);
    assert_int_equal(node.pads[2][SHARDTAB_PAD_ERR_SLOT], SHARDTAB_PAD_HEADER + 3 + 6);
    assert_int_equal(node.pads[2][SHARDTAB_PAD_ERR_WANT], 2);
    expect_no_record(1);
    expect_abort_everywhere(1 + 2);
}

/* ---- barrier -------------------------------------------------------------------------- */

#define BARRIER_ROUNDS 1000

/* data[round % 2][rank]: written by rank before barrier `round`, read by the
 * others after it. Two buffers: a rank can be one barrier ahead of a reader,
 * never two. Plain (non-atomic) words: the barrier must order them. */
static uint64_t barrier_data[2][MAX_RANKS];

static uint64_t barrier_value(int round, int rank)
{
    return ((uint64_t)round << 8 | (uint64_t)rank) * 0x9e3779b97f4a7c15ull;
}

typedef struct barrier_thread {
    int rank;
    int rounds;
    int status;    /* the first status that was not OK */
    int bad_round; /* 0, or the first round where a peer's data was missing */
    int bad_peer;
} barrier_thread_t;

static void *barrier_rounds(void *arg)
{
    barrier_thread_t *b = arg;
    const shardtab_signals_t *s = &node.view[b->rank];

    for (int round = 1; round <= b->rounds; round++) {
        barrier_data[round % 2][b->rank] = barrier_value(round, b->rank);
        b->status = shardtab_barrier(s);
        if (b->status != SHARDTAB_WAIT_OK)
            return NULL;
        for (int q = 0; q < node.size; q++) {
            if (barrier_data[round % 2][q] != barrier_value(round, q)) {
                b->bad_round = round;
                b->bad_peer = q;
                return NULL;
            }
        }
    }
    return NULL;
}

static void barrier_threads(int size)
{
    pthread_t threads[MAX_RANKS];
    barrier_thread_t state[MAX_RANKS];

    node_init(size, LONG_TIMEOUT);
    memset(barrier_data, 0, sizeof barrier_data);
    uint64_t start = now_ns();
    for (int r = 0; r < size; r++) {
        state[r] = (barrier_thread_t){r, BARRIER_ROUNDS, -1, 0, 0};
        assert_int_equal(pthread_create(&threads[r], NULL, barrier_rounds, &state[r]), 0);
    }
    for (int r = 0; r < size; r++)
        assert_int_equal(pthread_join(threads[r], NULL), 0);
    for (int r = 0; r < size; r++) {
        if (state[r].bad_round)
            fail_msg("rank %d, round %d: rank %d's data from before the barrier is missing", r,
                     state[r].bad_round, state[r].bad_peer);
        assert_int_equal(state[r].status, SHARDTAB_WAIT_OK);
        /* each rank counted its barriers, and its last arrival is in every peer's pad */
        assert_int_equal(node.pads[r][SHARDTAB_PAD_EPOCH], BARRIER_ROUNDS);
        for (int q = 0; q < size; q++)
            if (q != r)
                assert_int_equal(node.pads[q][SHARDTAB_PAD_HEADER + r], BARRIER_ROUNDS);
        expect_abort_everywhere(0);
    }
    expect_guards_intact();
    print_message("# %d barriers of %d threads in %.1f ms\n", BARRIER_ROUNDS, size,
                  (double)(now_ns() - start) / 1e6);
}

static void test_signals_barrier_of_two_threads_orders_their_data_every_round(void **state)
{
    (void)state;
    barrier_threads(2);
}

static void test_signals_barrier_of_three_threads_orders_their_data_every_round(void **state)
{
    (void)state;
    barrier_threads(3);
}

static void test_signals_barrier_whose_partner_never_arrives_times_out_on_its_arrival(void **state)
{
    (void)state;
    node_init(2, SHORT_TIMEOUT);
    uint64_t start = now_ns();
    assert_int_equal(shardtab_barrier(&node.view[0]), SHARDTAB_WAIT_TIMED_OUT);
    assert_true(now_ns() - start < PROMPT);
    /* it waited for node rank 1's first arrival */
    assert_int_equal(node.pads[0][SHARDTAB_PAD_STATUS], SHARDTAB_WAIT_TIMED_OUT);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_SLOT], SHARDTAB_PAD_HEADER + 1);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_CMP], SHARDTAB_CMP_GE);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_WANT], 1);
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_SEEN], 0);
    /* its own arrival was announced before it waited */
    assert_int_equal(node.pads[0][SHARDTAB_PAD_EPOCH], 1);
    assert_int_equal(node.pads[1][SHARDTAB_PAD_HEADER + 0], 1);
    expect_abort_everywhere(1 + 0);
    expect_no_record(1);
}

static void *barrier_once(void *arg)
{
    barrier_thread_t *b = arg;
    b->status = shardtab_barrier(&node.view[b->rank]);
    return NULL;
}

static void test_signals_give_up_in_a_barrier_releases_the_ranks_still_in_it(void **state)
{
    pthread_t thread;
    barrier_thread_t waiter = {1, 1, -1, 0, 0};
    (void)state;
    node_init(3, LONG_TIMEOUT);
    node.view[0].timeout_ticks = SHORT_TIMEOUT;
    uint64_t start = now_ns();
    assert_int_equal(pthread_create(&thread, NULL, barrier_once, &waiter), 0);
    /* rank 1 is in the barrier before rank 0 starts its clock; rank 2 never comes */
    while (shardtab_detail_load_acquire_system(&node.pads[0][SHARDTAB_PAD_HEADER + 1]) == 0)
        sched_yield();
    assert_int_equal(shardtab_barrier(&node.view[0]), SHARDTAB_WAIT_TIMED_OUT);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(waiter.status, SHARDTAB_WAIT_ABORTED);
    assert_true(now_ns() - start < PROMPT); /* not rank 1's LONG_TIMEOUT */
    assert_int_equal(node.pads[0][SHARDTAB_PAD_ERR_SLOT], SHARDTAB_PAD_HEADER + 2);
    expect_no_record(1);
    expect_abort_everywhere(1 + 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signals_user_slot_index_is_header_plus_node_size_plus_slot),
        cmocka_unit_test(test_signals_set_writes_the_peers_user_slot_and_nothing_else),
        cmocka_unit_test(test_signals_add_accumulates_from_every_rank_into_one_slot),
        cmocka_unit_test(test_signals_read_returns_what_a_peer_set_in_this_ranks_pad),
        cmocka_unit_test(test_signals_satisfied_eq_and_ge_waits_return_ok_at_once),
        cmocka_unit_test(test_signals_eq_wait_is_not_satisfied_by_a_greater_value),
        cmocka_unit_test(test_signals_wait_returns_when_a_peer_thread_signals_later),
        cmocka_unit_test(test_signals_set_then_wait_ge_carries_data_between_threads_every_round),
        cmocka_unit_test(test_signals_timed_out_wait_records_itself_and_flags_every_pad),
        cmocka_unit_test(test_signals_waits_after_a_give_up_return_aborted_at_once),
        cmocka_unit_test(test_signals_only_the_first_give_up_of_a_rank_writes_its_record),
        cmocka_unit_test(test_signals_each_rank_records_its_own_give_up_the_last_flag_wins),
        cmocka_unit_test(test_signals_barrier_of_two_threads_orders_their_data_every_round),
        cmocka_unit_test(test_signals_barrier_of_three_threads_orders_their_data_every_round),
        cmocka_unit_test(test_signals_barrier_whose_partner_never_arrives_times_out_on_its_arrival),
        cmocka_unit_test(test_signals_give_up_in_a_barrier_releases_the_ranks_still_in_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
