/* test_backend.c - pins src/shardtab/backend.c: the backends a build has (the host
 * backend always, the GPU one in a GPU build, nothing else), their names, the
 * build's own backend, and st_backend answering whatever st_backend_use set last
 * (nothing before shardtab_init). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend.h"

static void test_backend_is_none_until_one_is_used(void **state)
{
    static const st_backend_ops_t stand_in = {.kind = SHARDTAB_BACKEND_CUDA, .name = "stand-in"};
    (void)state;
    assert_null(st_backend()); /* a fresh process: shardtab_init has not chosen */
    st_backend_use(&stand_in);
    assert_ptr_equal(st_backend(), &stand_in);
    st_backend_use(&st_backend_host_ops);
    assert_ptr_equal(st_backend(), &st_backend_host_ops);
    st_backend_use(NULL);
    assert_null(st_backend());
}

static void test_backend_of_has_the_host_and_the_build_s_own_only(void **state)
{
    const shardtab_backend_t built = shardtab_backend();
    (void)state;
    assert_ptr_equal(st_backend_of(SHARDTAB_BACKEND_HOST), &st_backend_host_ops);
    assert_int_equal(st_backend_host_ops.kind, SHARDTAB_BACKEND_HOST);
    assert_string_equal(st_backend_host_ops.name, "host");
    assert_non_null(st_backend_of(built));
    assert_int_equal(st_backend_of(built)->kind, built);
    assert_string_equal(st_backend_of(built)->name, shardtab_backend_name(built));
    for (int k = 0; k < SHARDTAB_BACKEND_COUNT; k++)
        if (k != SHARDTAB_BACKEND_HOST && k != (int)built)
            assert_null(st_backend_of((shardtab_backend_t)k));
    /* HIP and CUDA are one source: a build has one of them at most */
    assert_false(st_backend_of(SHARDTAB_BACKEND_HIP) && st_backend_of(SHARDTAB_BACKEND_CUDA));
    assert_null(st_backend_of(SHARDTAB_BACKEND_COUNT));
    assert_null(st_backend_of((shardtab_backend_t)-1));
}

static void test_backend_names(void **state)
{
    (void)state;
    assert_string_equal(shardtab_backend_name(SHARDTAB_BACKEND_HOST), "host");
    assert_string_equal(shardtab_backend_name(SHARDTAB_BACKEND_HIP), "hip");
    assert_string_equal(shardtab_backend_name(SHARDTAB_BACKEND_CUDA), "cuda");
    assert_string_equal(shardtab_backend_name(SHARDTAB_BACKEND_COUNT), "unknown");
    assert_string_equal(shardtab_backend_name((shardtab_backend_t)-1), "unknown");
    assert_string_equal(shardtab_backend_name((shardtab_backend_t)77), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backend_is_none_until_one_is_used),
        cmocka_unit_test(test_backend_of_has_the_host_and_the_build_s_own_only),
        cmocka_unit_test(test_backend_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
