/* test_partition.c - pins ms_partition/ms_partition_owner: contiguous, near-even shards covering [0,N). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "partition.h"

/* Every shard of (n, parts) as the contract says: lengths differ by at most one,
 * the longer ones first, contiguous from 0, ending exactly at n. */
static void check_partition(uint64_t n, int parts)
{
    uint64_t base = n / (uint64_t)parts, extra = n % (uint64_t)parts, next = 0;

    for (int i = 0; i < parts; i++) {
        ms_shard_t s = ms_partition(n, parts, i);
        assert_int_equal(s.start, next);
        assert_int_equal(s.length, base + ((uint64_t)i < extra ? 1 : 0));
        assert_true(s.start <= n);
        assert_true(s.length <= n - s.start);
        next = s.start + s.length;
    }
    assert_int_equal(next, n);
}

static void test_partition_even_split_gives_equal_shards(void **state)
{
    (void)state;
    for (int i = 0; i < 4; i++) {
        ms_shard_t s = ms_partition(600, 4, i);
        assert_int_equal(s.start, 150u * (uint64_t)i);
        assert_int_equal(s.length, 150);
    }
}

static void test_partition_uneven_first_shards_get_one_more(void **state)
{
    static const uint64_t start[4] = {0, 3, 6, 8}, length[4] = {3, 3, 2, 2};
    (void)state;
    /* 10 = 4 * 2 + 2: shards 0 and 1 hold 3, shards 2 and 3 hold 2 */
    for (int i = 0; i < 4; i++) {
        ms_shard_t s = ms_partition(10, 4, i);
        assert_int_equal(s.start, start[i]);
        assert_int_equal(s.length, length[i]);
    }
    /* 7 = 3 * 2 + 1: only shard 0 is longer */
    assert_int_equal(ms_partition(7, 3, 0).length, 3);
    assert_int_equal(ms_partition(7, 3, 1).start, 3);
    assert_int_equal(ms_partition(7, 3, 1).length, 2);
    assert_int_equal(ms_partition(7, 3, 2).start, 5);
    assert_int_equal(ms_partition(7, 3, 2).length, 2);
}

static void test_partition_fewer_elements_than_shards_leaves_empty_shards_at_end(void **state)
{
    (void)state;
    /* 3 elements over 5 shards: one each for 0..2, then two empty shards at n */
    for (int i = 0; i < 3; i++) {
        ms_shard_t s = ms_partition(3, 5, i);
        assert_int_equal(s.start, (uint64_t)i);
        assert_int_equal(s.length, 1);
    }
    for (int i = 3; i < 5; i++) {
        ms_shard_t s = ms_partition(3, 5, i);
        assert_int_equal(s.start, 3);
        assert_int_equal(s.length, 0);
    }
    /* no elements at all: every shard empty, starting at 0 */
    for (int i = 0; i < 4; i++) {
        ms_shard_t s = ms_partition(0, 4, i);
        assert_int_equal(s.start, 0);
        assert_int_equal(s.length, 0);
    }
}

static void test_partition_single_shard_holds_everything(void **state)
{
    static const uint64_t sizes[] = {0, 1, 2, 600, 1000003, UINT64_MAX / 8};
    (void)state;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        ms_shard_t s = ms_partition(sizes[k], 1, 0);
        assert_int_equal(s.start, 0);
        assert_int_equal(s.length, sizes[k]);
    }
}

static void test_partition_shards_are_contiguous_and_cover_exactly_for_many_sizes(void **state)
{
    (void)state;
    for (uint64_t n = 0; n <= 200; n++)
        for (int parts = 1; parts <= 33; parts++)
            check_partition(n, parts);
    check_partition(1000003, 7);
    check_partition(1ull << 32, 3);
    check_partition(1000, 1024);
}

static void test_partition_huge_n_near_2_pow_61_does_not_overflow(void **state)
{
    static const uint64_t sizes[] = {(1ull << 61) - 1, 1ull << 61, (1ull << 61) + 12345,
                                     UINT64_MAX / 8};
    static const int parts[] = {1, 2, 3, 7, 8, 1000, 65536, 1000003};
    (void)state;
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof parts / sizeof parts[0]; b++)
            check_partition(sizes[a], parts[b]);
    /* (2^61 - 1) / 3: 2^61 - 1 = 3 * 768614336404564650 + 1 */
    ms_shard_t last = ms_partition((1ull << 61) - 1, 3, 2);
    assert_int_equal(last.length, 768614336404564650ull);
    assert_int_equal(last.start + last.length, (1ull << 61) - 1);
    /* owner of the first and the last element */
    assert_int_equal(ms_partition_owner((1ull << 61) - 1, 3, 0), 0);
    assert_int_equal(ms_partition_owner((1ull << 61) - 1, 3, (1ull << 61) - 2), 2);
    assert_int_equal(ms_partition_owner((1ull << 61) - 1, 3, 768614336404564650ull), 0);
    assert_int_equal(ms_partition_owner((1ull << 61) - 1, 3, 768614336404564651ull), 1);
}

static void test_partition_owner_matches_partition_for_every_element(void **state)
{
    (void)state;
    for (uint64_t n = 1; n <= 120; n++) {
        for (int parts = 1; parts <= 17; parts++) {
            for (int i = 0; i < parts; i++) {
                ms_shard_t s = ms_partition(n, parts, i);
                for (uint64_t g = s.start; g < s.start + s.length; g++)
                    assert_int_equal(ms_partition_owner(n, parts, g), i);
            }
        }
    }
}

static void test_partition_owner_never_names_an_empty_shard(void **state)
{
    (void)state;
    /* n < parts: element g is shard g's only element */
    for (uint64_t n = 1; n < 9; n++)
        for (uint64_t g = 0; g < n; g++)
            assert_int_equal(ms_partition_owner(n, 9, g), (int)g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_even_split_gives_equal_shards),
        cmocka_unit_test(test_partition_uneven_first_shards_get_one_more),
        cmocka_unit_test(test_partition_fewer_elements_than_shards_leaves_empty_shards_at_end),
        cmocka_unit_test(test_partition_single_shard_holds_everything),
        cmocka_unit_test(test_partition_shards_are_contiguous_and_cover_exactly_for_many_sizes),
        cmocka_unit_test(test_partition_huge_n_near_2_pow_61_does_not_overflow),
        cmocka_unit_test(test_partition_owner_matches_partition_for_every_element),
        cmocka_unit_test(test_partition_owner_never_names_an_empty_shard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
