/* test_backend_host.c - pins src/shardtab/backend_host.c, the host backend, through
 * its ops table: the binding it reports, allocations in whole pages, an export that
 * moves the memory into a memfd under the same address (contents kept, the same
 * handle every time), a handle that opens the same memory again, the refusals
 * (outside an allocation, past the bytes asked for, a handle that is none, a size
 * that differs, a free of what is no allocation), each with its message. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "internal.h"

static const st_backend_ops_t *const ops = &st_backend_host_ops;

/* The message of the last failure, without the host and rank before it. */
static const char *said(void)
{
    return st_thread_last_error() + st_error_prefix_bytes();
}

static size_t page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static void test_host_binds_the_cpu(void **state)
{
    st_bind_request_t req = {.node_rank = 2, .node_size = 3, .allow_shared_device = 0};
    shardtab_device_info_t info;
    (void)state;
    memset(&info, 0x5a, sizeof info);
    assert_int_equal(ops->bind(&req, &info), SHARDTAB_SUCCESS);
    assert_int_equal(info.backend, SHARDTAB_BACKEND_HOST);
    assert_int_equal(info.device, 0);
    assert_int_equal(info.visible_devices, 1);
    assert_string_equal(info.name, "cpu");
    assert_string_equal(info.pci_bus_id, "-");
    assert_int_equal(ops->unbind(), SHARDTAB_SUCCESS);
    assert_true(ops->clock_hz() == 1e9); /* shardtab_detail_clock(): nanoseconds */
    assert_null(ops->can_access_peer);   /* every pair can */
}

static void test_host_export_keeps_address_and_contents_and_opens_again(void **state)
{
    const size_t asked = 3 * page() + 123;
    unsigned char *base = NULL, *again = NULL;
    st_export_t first, second;
    (void)state;
    assert_int_equal(ops->mem_alloc(asked, (void **)&base), SHARDTAB_SUCCESS);
    assert_int_equal((uintptr_t)base % page(), 0);
    for (size_t i = 0; i < asked; i++)
        base[i] = (unsigned char)(i * 7 + 3);
    /* a shard inside the allocation: the whole allocation is exported, in pages */
    assert_int_equal(ops->ipc_export(base + 2 * page() + 8, page(), &first), SHARDTAB_SUCCESS);
    assert_int_equal(first.offset, 2 * page() + 8);
    assert_int_equal(first.alloc_bytes, 4 * page());
    for (size_t i = 0; i < asked; i++) /* moved under the same address, bytes and all */
        if (base[i] != (unsigned char)(i * 7 + 3))
            fail_msg("byte %zu changed by the export", i);
    /* a second export (another table) reuses the memfd: the same handle */
    assert_int_equal(ops->ipc_export(base, asked, &second), SHARDTAB_SUCCESS);
    assert_int_equal(second.offset, 0);
    assert_memory_equal(second.handle.bytes, first.handle.bytes, ST_IPC_HANDLE_BYTES);
    /* the handle opens the same memory at another address */
    assert_int_equal(ops->ipc_open(&first.handle, first.alloc_bytes, (void **)&again),
                     SHARDTAB_SUCCESS);
    assert_ptr_not_equal(again, base);
    assert_int_equal(again[page() + 5], (unsigned char)((page() + 5) * 7 + 3));
    again[17] = 0xa5;
    assert_int_equal(base[17], 0xa5);
    assert_int_equal(ops->ipc_close(again, first.alloc_bytes), SHARDTAB_SUCCESS);
    assert_int_equal(ops->mem_free(base), SHARDTAB_SUCCESS);
}

static void test_host_export_refuses_what_no_allocation_holds(void **state)
{
    const size_t asked = page() + 100;
    char *base = NULL, want[256], outside[64];
    st_export_t out;
    (void)state;
    assert_int_equal(ops->mem_alloc(asked, (void **)&base), SHARDTAB_SUCCESS);
    /* past the bytes asked for, though inside the pages mapped */
    assert_int_equal(ops->ipc_export(base + 60, asked - 59, &out), SHARDTAB_ERR_INVALID_ARG);
    snprintf(want, sizeof want,
             "shard %p + %zu bytes runs past its allocation of %zu bytes at %p "
             "(shardtab_mem_alloc's size, not its pages)",
             (void *)(base + 60), asked - 59, asked, (void *)base);
    assert_string_equal(said(), want);
    assert_int_equal(ops->ipc_export(base + 60, asked - 60, &out), SHARDTAB_SUCCESS);
    /* memory of no allocation */
    assert_int_equal(ops->ipc_export(outside, sizeof outside, &out), SHARDTAB_ERR_INVALID_ARG);
    snprintf(want, sizeof want,
             "shard %p (%zu bytes) is not inside an allocation of "
             "shardtab_mem_alloc",
             (void *)outside, sizeof outside);
    assert_string_equal(said(), want);
    assert_int_equal(ops->mem_free(base), SHARDTAB_SUCCESS);
    /* freed: no allocation any more */
    assert_int_equal(ops->mem_free(base), SHARDTAB_ERR_INVALID_ARG);
    snprintf(want, sizeof want, "shardtab_mem_free(%p): not an allocation of shardtab_mem_alloc",
             (void *)base);
    assert_string_equal(said(), want);
}

static void test_host_open_refuses_a_handle_that_is_none_or_a_size_that_differs(void **state)
{
    char *base = NULL, want[256];
    void *mapped = NULL;
    st_export_t out;
    st_ipc_handle_t bad;
    (void)state;
    assert_int_equal(ops->mem_alloc(page(), (void **)&base), SHARDTAB_SUCCESS);
    assert_int_equal(ops->ipc_export(base, page(), &out), SHARDTAB_SUCCESS);
    bad = out.handle;
    bad.bytes[0] ^= 0x20; /* the magic */
    assert_int_equal(ops->ipc_open(&bad, page(), &mapped), SHARDTAB_ERR_DESCRIPTOR);
    assert_string_equal(said(), "peer handle is not a shardtab memory handle");
    memset(&bad, 0, sizeof bad);
    assert_int_equal(ops->ipc_open(&bad, page(), &mapped), SHARDTAB_ERR_DESCRIPTOR);
    assert_int_equal(ops->ipc_open(&out.handle, 2 * page(), &mapped), SHARDTAB_ERR_DESCRIPTOR);
    snprintf(want, sizeof want, "the peer's memory holds %lld bytes, the descriptor says %zu",
             (long long)page(), 2 * page());
    assert_string_equal(said(), want);
    assert_null(mapped);
    assert_int_equal(ops->mem_free(base), SHARDTAB_SUCCESS);
}

static void test_host_copies_are_plain_and_synchronous(void **state)
{
    int64_t src[5] = {11, -22, 33, -44, 55}, dst[5] = {7, 7, 7, 7, 7};
    (void)state;
    assert_int_equal(ops->copy_to_device(dst, src, 3 * sizeof *src), SHARDTAB_SUCCESS);
    assert_int_equal(dst[2], 33);
    assert_int_equal(dst[3], 7);
    assert_int_equal(ops->copy_async(dst + 1, dst, 3 * sizeof *src, NULL), SHARDTAB_SUCCESS);
    assert_int_equal(dst[1], 11); /* overlapping: as memmove */
    assert_int_equal(dst[3], 33);
    assert_int_equal(ops->copy_to_host(src, dst, sizeof src), SHARDTAB_SUCCESS);
    assert_memory_equal(src, dst, sizeof src);
    assert_int_equal(ops->synchronize(), SHARDTAB_SUCCESS);
    assert_int_equal(ops->stream_synchronize(NULL), SHARDTAB_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_binds_the_cpu),
        cmocka_unit_test(test_host_export_keeps_address_and_contents_and_opens_again),
        cmocka_unit_test(test_host_export_refuses_what_no_allocation_holds),
        cmocka_unit_test(test_host_open_refuses_a_handle_that_is_none_or_a_size_that_differs),
        cmocka_unit_test(test_host_copies_are_plain_and_synchronous),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
