/* test_imports.c - pins the importer-side cache of peer allocations (src/shardtab/imports.c) over a counting stand-in backend: one open per key (device, pid, base, bytes) however many tables use it, the same handle-less key from another process or device a new open, the last user's close the only close, a failed open leaving nothing behind, a close of what is not mapped refused, and two threads opening one key at once opening it once. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "imports.h"
#include "internal.h"

static int opens, closes, fail_next_open;
static pthread_mutex_t counts = PTHREAD_MUTEX_INITIALIZER;

static shardtab_status_t fake_open(const st_ipc_handle_t *handle, size_t alloc_bytes, void **base)
{
    (void)handle;
    pthread_mutex_lock(&counts);
    int fail = fail_next_open;
    fail_next_open = 0;
    if (!fail)
        opens++;
    pthread_mutex_unlock(&counts);
    if (fail)
        return SHARDTAB_ERR_IPC;
    *base = malloc(alloc_bytes ? alloc_bytes : 1);
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t fake_close(void *base, size_t alloc_bytes)
{
    (void)alloc_bytes;
    free(base);
    pthread_mutex_lock(&counts);
    closes++;
    pthread_mutex_unlock(&counts);
    return SHARDTAB_SUCCESS;
}

static st_backend_ops_t fake;
static st_ipc_handle_t handle;

static st_import_key_t key(const char *device, int32_t pid, uint64_t base, size_t bytes)
{
    st_import_key_t k;
    memset(&k, 0, sizeof k);
    strncpy(k.device, device, sizeof k.device - 1);
    k.pid = pid;
    k.base = base;
    k.bytes = bytes;
    return k;
}

static int set_up(void **state)
{
    (void)state;
    fake = (st_backend_ops_t){.ipc_open = fake_open, .ipc_close = fake_close};
    st_backend_use(&fake);
    opens = closes = fail_next_open = 0;
    return 0;
}

static int tear_down(void **state)
{
    (void)state;
    assert_int_equal(st_import_count(), 0);
    assert_int_equal(opens, closes);
    st_backend_use(NULL);
    return 0;
}

static void test_one_open_per_allocation_however_many_tables(void **state)
{
    const st_import_key_t k = key("0000:01:00.0", 100, 0x7000, 4096);
    void *b[3];
    int opened;
    (void)state;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(st_import_open(&k, &handle, &b[i], &opened), SHARDTAB_SUCCESS);
        assert_int_equal(opened, i == 0);
        assert_ptr_equal(b[i], b[0]);
    }
    assert_int_equal(opens, 1);
    assert_int_equal(st_import_count(), 1);
    assert_int_equal(st_import_close(b[0]), SHARDTAB_SUCCESS);
    assert_int_equal(st_import_close(b[1]), SHARDTAB_SUCCESS);
    assert_int_equal(closes, 0); /* a table still uses it */
    assert_int_equal(st_import_close(b[2]), SHARDTAB_SUCCESS);
    assert_int_equal(closes, 1);
}

static void test_another_process_device_or_size_is_another_allocation(void **state)
{
    const st_import_key_t keys[] = {
        key("0000:01:00.0", 100, 0x7000, 4096), key("0000:01:00.0", 101, 0x7000, 4096),
        key("0000:02:00.0", 100, 0x7000, 4096), key("0000:01:00.0", 100, 0x7000, 8192),
        key("0000:01:00.0", 100, 0x9000, 4096)};
    void *b[5];
    int opened;
    (void)state;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(st_import_open(&keys[i], &handle, &b[i], &opened), SHARDTAB_SUCCESS);
        assert_int_equal(opened, 1);
    }
    assert_int_equal(st_import_count(), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(st_import_close(b[i]), SHARDTAB_SUCCESS);
}

static void test_a_failed_open_leaves_nothing_and_a_stray_close_is_refused(void **state)
{
    const st_import_key_t k = key("0000:01:00.0", 7, 0x1000, 64);
    void *b = NULL;
    int opened = 1, here;
    (void)state;
    fail_next_open = 1;
    assert_int_equal(st_import_open(&k, &handle, &b, &opened), SHARDTAB_ERR_IPC);
    assert_int_equal(opened, 0);
    assert_int_equal(st_import_count(), 0);
    assert_int_equal(st_import_open(&k, &handle, &b, &opened), SHARDTAB_SUCCESS); /* tried again */
    assert_int_equal(opened, 1);
    assert_int_equal(st_import_close(&here), SHARDTAB_ERR_INVALID_ARG);
    assert_non_null(strstr(shardtab_last_error(), "no peer allocation is mapped at"));
    assert_int_equal(st_import_close(b), SHARDTAB_SUCCESS);
    assert_int_equal(st_import_close(b), SHARDTAB_ERR_INVALID_ARG); /* closed already */
}

static void *open_from_a_thread(void *arg)
{
    static const char device[] = "0000:03:00.0";
    st_import_key_t k = key(device, 55, 0x5000, 1024);
    void **out = arg;
    int opened;
    for (int i = 0; i < 1000; i++) { /* open and close, racing the other thread */
        void *b;
        if (st_import_open(&k, &handle, &b, &opened) != SHARDTAB_SUCCESS ||
            st_import_close(b) != SHARDTAB_SUCCESS)
            return NULL;
    }
    return st_import_open(&k, &handle, out, &opened) == SHARDTAB_SUCCESS ? out : NULL;
}

static void test_two_threads_share_one_mapping(void **state)
{
    pthread_t t[2];
    void *b[2] = {NULL, NULL}, *ok[2];
    (void)state;
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, open_from_a_thread, &b[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], &ok[i]), 0);
    assert_non_null(ok[0]);
    assert_non_null(ok[1]);
    assert_ptr_equal(b[0], b[1]); /* both ended holding the one mapping */
    assert_int_equal(st_import_count(), 1);
    assert_int_equal(opens - closes, 1);
    assert_int_equal(st_import_close(b[0]), SHARDTAB_SUCCESS);
    assert_int_equal(st_import_close(b[1]), SHARDTAB_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_one_open_per_allocation_however_many_tables, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(test_another_process_device_or_size_is_another_allocation,
                                        set_up, tear_down),
        cmocka_unit_test_setup_teardown(
            test_a_failed_open_leaves_nothing_and_a_stray_close_is_refused, set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_two_threads_share_one_mapping, set_up, tear_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
