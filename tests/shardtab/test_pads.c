/* test_pads.c - pins the signal-pad allocator (src/shardtab/pads.c) over a counting stand-in backend: pads packed first-fit into 1 MiB chunks, each chunk made and exported once, the gaps of freed pads reused, a pad larger than a chunk getting its own (freed when it empties), the last empty ordinary chunk kept for the next table (not rebuilt every create) and freed by st_pad_release_idle, and a free of what is no pad refused. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "internal.h"
#include "pads.h"

/* the stand-in backend: coherent memory from the heap, counted */
static int allocs, exports, frees;

static shardtab_status_t fake_alloc_coherent(size_t bytes, int uncached, void **ptr)
{
    (void)uncached;
    *ptr = aligned_alloc(4096, bytes);
    allocs += *ptr != NULL;
    return *ptr ? SHARDTAB_SUCCESS : SHARDTAB_ERR_NO_MEMORY;
}

static shardtab_status_t fake_export(void *ptr, size_t bytes, st_export_t *out)
{
    (void)ptr;
    memset(out, 0, sizeof *out);
    out->alloc_bytes = bytes;
    exports++;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t fake_free(void *ptr)
{
    free(ptr);
    frees++;
    return SHARDTAB_SUCCESS;
}

static st_backend_ops_t fake;

static int set_up(void **state)
{
    (void)state;
    fake = (st_backend_ops_t){.mem_alloc_coherent = fake_alloc_coherent,
                              .ipc_export = fake_export,
                              .mem_free = fake_free};
    st_backend_use(&fake);
    allocs = exports = frees = 0;
    return 0;
}

static int tear_down(void **state)
{
    (void)state;
    assert_int_equal(st_pad_release_idle(), SHARDTAB_SUCCESS);
    assert_int_equal(allocs, frees); /* every chunk made is gone */
    st_backend_use(NULL);
    return 0;
}

static void test_pads_pack_into_one_chunk_made_and_exported_once(void **state)
{
    void *p[64];
    (void)state;
    for (int i = 0; i < 64; i++) {
        assert_int_equal(st_pad_alloc(1000, &p[i]), SHARDTAB_SUCCESS);
        assert_int_equal((uintptr_t)p[i] % ST_PAD_ALIGN, 0);
        if (i > 0) /* first fit, rounded to the alignment: each right after the last */
            assert_int_equal((char *)p[i] - (char *)p[i - 1], 1024);
    }
    assert_int_equal(allocs, 1);
    assert_int_equal(exports, 1);
    /* a gap left by a freed pad is reused by the next pad that fits */
    assert_int_equal(st_pad_free(p[10]), SHARDTAB_SUCCESS);
    void *again;
    assert_int_equal(st_pad_alloc(700, &again), SHARDTAB_SUCCESS);
    assert_ptr_equal(again, p[10]);
    assert_int_equal(st_pad_free(again), SHARDTAB_SUCCESS);
    for (int i = 0; i < 64; i++)
        if (i != 10)
            assert_int_equal(st_pad_free(p[i]), SHARDTAB_SUCCESS);
    assert_int_equal(allocs, 1);
}

static void test_the_last_empty_chunk_is_kept_for_the_next_table(void **state)
{
    void *p;
    (void)state;
    for (int cycle = 0; cycle < 100; cycle++) { /* a create/destroy loop */
        assert_int_equal(st_pad_alloc(400, &p), SHARDTAB_SUCCESS);
        assert_int_equal(st_pad_free(p), SHARDTAB_SUCCESS);
    }
    assert_int_equal(allocs, 1);
    assert_int_equal(exports, 1);
    assert_int_equal(frees, 0); /* kept, until release_idle */
    assert_int_equal(st_pad_release_idle(), SHARDTAB_SUCCESS);
    assert_int_equal(frees, 1);
    assert_int_equal(st_pad_release_idle(), SHARDTAB_SUCCESS); /* nothing left to free */
    assert_int_equal(frees, 1);
}

static void test_a_full_chunk_opens_another_and_only_one_empty_stays(void **state)
{
    const size_t pad = 64 * 1024; /* 16 to a chunk */
    void *p[40];
    (void)state;
    for (int i = 0; i < 40; i++)
        assert_int_equal(st_pad_alloc(pad, &p[i]), SHARDTAB_SUCCESS);
    assert_int_equal(allocs, 3);
    for (int i = 0; i < 40; i++)
        assert_int_equal(st_pad_free(p[i]), SHARDTAB_SUCCESS);
    assert_int_equal(frees, 2); /* three emptied, one kept */
}

static void test_a_pad_larger_than_a_chunk_gets_its_own_not_kept(void **state)
{
    void *big, *small;
    (void)state;
    assert_int_equal(st_pad_alloc(3 * ST_PAD_CHUNK_BYTES, &big), SHARDTAB_SUCCESS);
    assert_int_equal(st_pad_alloc(256, &small), SHARDTAB_SUCCESS); /* no room left in its chunk */
    assert_int_equal(allocs, 2);
    assert_int_equal(st_pad_free(big), SHARDTAB_SUCCESS);
    assert_int_equal(frees, 1); /* a chunk made for one large pad goes at once */
    assert_int_equal(st_pad_free(small), SHARDTAB_SUCCESS);
    assert_int_equal(frees, 1); /* the ordinary one is kept */
}

static void test_a_free_of_no_pad_is_refused(void **state)
{
    void *p;
    (void)state;
    assert_int_equal(st_pad_free(NULL), SHARDTAB_SUCCESS);
    assert_int_equal(st_pad_alloc(512, &p), SHARDTAB_SUCCESS);
    assert_int_equal(st_pad_free((char *)p + 256), SHARDTAB_ERR_INVALID_ARG); /* inside, no start */
    assert_non_null(strstr(shardtab_last_error(), "no signal pad starts at"));
    int not_a_pad;
    assert_int_equal(st_pad_free(&not_a_pad), SHARDTAB_ERR_INVALID_ARG);
    assert_int_equal(st_pad_free(p), SHARDTAB_SUCCESS);
    assert_int_equal(st_pad_free(p), SHARDTAB_ERR_INVALID_ARG); /* twice */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pads_pack_into_one_chunk_made_and_exported_once,
                                        set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_the_last_empty_chunk_is_kept_for_the_next_table,
                                        set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_a_full_chunk_opens_another_and_only_one_empty_stays,
                                        set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_a_pad_larger_than_a_chunk_gets_its_own_not_kept,
                                        set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_a_free_of_no_pad_is_refused, set_up, tear_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
