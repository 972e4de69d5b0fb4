/* test_registry.c - pins the live-table registry (src/shardtab/registry.c): handles live until removed and never read when not, a free of memory a live table's allocation overlaps refused by name, finalize's list of live tables (the first 8 named, the rest counted), and a handle reused by a later table counted as that table. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "shardtab.h"

static int says(const char *fragment)
{
    return strstr(shardtab_last_error(), fragment) != NULL;
}

/* An entry for table handle `table` whose shard is [shard, shard + shard_bytes)
 * of the allocation [base, base + bytes). */
static st_live_entry_t entry(const void *table, const char *base, size_t bytes, const void *shard,
                             size_t shard_bytes, int rank)
{
    st_live_entry_t e;
    memset(&e, 0, sizeof e);
    e.table = table;
    e.base = base;
    e.bytes = bytes;
    e.shard = shard;
    e.shard_bytes = shard_bytes;
    e.rank = rank;
    e.size = 4;
    e.node_rank = rank;
    return e;
}

static void test_an_empty_registry_knows_no_table(void **state)
{
    int never;
    (void)state;
    assert_int_equal(st_live_count(), 0);
    assert_false(st_live_has(NULL));
    assert_false(st_live_has(&never));
    assert_int_equal(st_check_none_live("shardtab_finalize"), SHARDTAB_SUCCESS);
    assert_int_equal(st_check_table(NULL, "shardtab_node_size"), SHARDTAB_ERR_INVALID_ARG);
    assert_true(says("shardtab_node_size: no table (NULL)"));
    assert_int_equal(st_check_table(&never, "shardtab_peer"), SHARDTAB_ERR_INVALID_ARG);
    assert_true(says("shardtab_peer(") && says("not a live table of this process"));
    assert_int_equal(st_check_free(&never), SHARDTAB_SUCCESS);
}

static void test_tables_live_from_add_to_remove(void **state)
{
    enum { ALLOC = 4096 };
    static char space[ALLOC + 64], other[256]; /* the allocation with a margin each side */
    char *const alloc = space + 32;
    static int handles[3];
    st_live_entry_t a = entry(&handles[0], alloc, ALLOC, alloc, 1024, 0);
    st_live_entry_t b = entry(&handles[1], alloc, ALLOC, alloc + 1024, 2048, 1);
    st_live_entry_t empty = entry(&handles[2], NULL, 0, NULL, 0, 2);
    st_live_entry_t found;
    (void)state;

    st_live_add(&a);
    st_live_add(&b);
    st_live_add(&empty);
    assert_int_equal(st_live_count(), 3);
    for (int i = 0; i < 3; i++)
        assert_true(st_live_has(&handles[i]));
    assert_int_equal(st_check_table(&handles[1], "shardtab_peer"), SHARDTAB_SUCCESS);
    /* any byte of the allocation is shared, the shards' own ranges or not */
    assert_true(st_live_find(alloc + 4095, 1, &found));
    assert_ptr_equal(found.base, alloc);
    assert_true(st_live_find(alloc - 1, 2, &found));
    assert_false(st_live_find(alloc - 1, 1, &found));
    assert_false(st_live_find(alloc + ALLOC, 1, &found));
    assert_false(st_live_find(other, sizeof other, &found)); /* the empty shard holds nothing */
    assert_int_equal(st_check_free(alloc + 100), SHARDTAB_ERR_INVALID_ARG);
    assert_true(says("a live table (rank") && says("shardtab_destroy the table first"));
    assert_int_equal(st_check_free(other), SHARDTAB_SUCCESS);
    assert_int_equal(st_check_none_live("shardtab_finalize"), SHARDTAB_ERR_INVALID_ARG);
    assert_true(says("shardtab_finalize: 3 live tables of this process") &&
                says("Nothing was released"));

    /* removed once; a second remove, and a remove of an entry never added, find nothing */
    assert_true(st_live_remove(&b));
    assert_false(st_live_remove(&b));
    st_live_entry_t never = entry(&other, other, sizeof other, other, 1, 3);
    assert_false(st_live_remove(&never));
    assert_false(st_live_has(&handles[1]));
    assert_true(st_live_has(&handles[0]));
    assert_true(st_live_find(alloc, 1, &found)); /* a still holds the allocation */
    assert_true(st_live_remove(&a));
    assert_int_equal(st_check_free(alloc), SHARDTAB_SUCCESS);
    assert_true(st_live_remove(&empty));
    assert_int_equal(st_live_count(), 0);
    assert_int_equal(st_check_none_live("shardtab_finalize"), SHARDTAB_SUCCESS);
}

static void test_finalize_names_eight_tables_and_counts_the_rest(void **state)
{
    static char allocs[20][64];
    static st_live_entry_t entries[20];
    char eight_more[32];
    (void)state;

    for (int i = 0; i < 20; i++) {
        entries[i] = entry(allocs[i], allocs[i], sizeof allocs[i], allocs[i], 64, i);
        st_live_add(&entries[i]);
    }
    assert_int_equal(st_check_none_live("shardtab_finalize"), SHARDTAB_ERR_INVALID_ARG);
    assert_true(says("20 live tables"));
    snprintf(eight_more, sizeof eight_more, ", and %d more", 20 - 8);
    assert_true(says(eight_more));
    for (int i = 0; i < 20; i++)
        assert_true(st_live_remove(&entries[i]));
    assert_int_equal(st_live_count(), 0);
}

static void test_a_reused_handle_is_the_later_table(void **state)
{
    static char alloc[64];
    static int handle;
    st_live_entry_t first = entry(&handle, alloc, sizeof alloc, alloc, 64, 0);
    st_live_entry_t later = entry(&handle, alloc, sizeof alloc, alloc, 32, 1);
    (void)state;

    st_live_add(&first);
    assert_true(st_live_remove(&first));
    assert_false(st_live_has(&handle));
    st_live_add(&later); /* a new table at the address of a destroyed one */
    assert_true(st_live_has(&handle));
    assert_true(st_live_remove(&later));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_empty_registry_knows_no_table),
        cmocka_unit_test(test_tables_live_from_add_to_remove),
        cmocka_unit_test(test_finalize_names_eight_tables_and_counts_the_rest),
        cmocka_unit_test(test_a_reused_handle_is_the_later_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
