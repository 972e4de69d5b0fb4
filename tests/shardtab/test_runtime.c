/* test_runtime.c - pins src/shardtab/runtime.c under mpiexec (2 ranks): every
 * call refused before shardtab_init, by name; init choosing the build's backend,
 * binding (the device, who speaks in messages) and refusing a second init on
 * every rank; the memory calls forwarded (a NULL pointer refused, zero bytes
 * nothing, SHARDTAB_FAULT aimed at one rank, memory a live table shares kept);
 * finalize refused while a table lives, then releasing the binding. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "internal.h"
#include "registry.h"
#include "mpi_case.h"

static void refused(shardtab_status_t status, const char *message)
{
    assert_int_equal(status, SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), message);
}

static void test_every_call_is_refused_before_init(void **state)
{
    shardtab_device_info_t info;
    void *p = NULL;
    char byte = 3;
    (void)state;
    assert_false(st_rt.initialized);
    refused(shardtab_device_info(&info), "shardtab_device_info before shardtab_init");
    refused(shardtab_finalize(), "shardtab_finalize without shardtab_init");
    refused(shardtab_mem_alloc(64, &p), "shardtab_mem_alloc called before shardtab_init");
    refused(shardtab_mem_free(&byte), "shardtab_mem_free called before shardtab_init");
    refused(shardtab_mem_alloc_coherent(64, &p),
            "shardtab_mem_alloc_coherent called before shardtab_init");
    refused(shardtab_memcpy_to_device(&byte, &byte, 1),
            "shardtab_memcpy_to_device called before shardtab_init");
    refused(shardtab_memcpy_to_host(&byte, &byte, 1),
            "shardtab_memcpy_to_host called before shardtab_init");
    refused(shardtab_memcpy_async(&byte, &byte, 1, NULL),
            "shardtab_memcpy_async called before shardtab_init");
    refused(shardtab_device_synchronize(),
            "shardtab_device_synchronize called before shardtab_init");
    refused(shardtab_stream_synchronize(NULL),
            "shardtab_stream_synchronize called before shardtab_init");
    assert_null(p);
}

static void test_init_binds_this_rank_once(void **state)
{
    shardtab_device_info_t info;
    char want[256];
    (void)state;
    assert_int_equal(shardtab_init(MPI_COMM_WORLD, NULL), SHARDTAB_SUCCESS);
    assert_true(st_rt.initialized);
    assert_int_equal(st_rt.world_rank, rank);
    assert_string_equal(st_rt.host, host);
    assert_ptr_equal(st_backend(), st_backend_of(shardtab_backend()));
    memset(&info, 0x5a, sizeof info);
    assert_int_equal(shardtab_device_info(&info), SHARDTAB_SUCCESS);
    assert_int_equal(info.backend, SHARDTAB_BACKEND_HOST);
    assert_int_equal(info.shared, 0);
    assert_string_equal(info.name, "cpu");
    assert_string_equal(info.pci_bus_id, "-");
    assert_int_equal(info.device, 0);
    assert_int_equal(info.visible_devices, 1);
    /* from now on every message says which rank and device speaks */
    snprintf(want, sizeof want, "%s rank %d (cpu): ", host, rank);
    st_fail(SHARDTAB_ERR_IPC, "x");
    assert_int_equal(st_error_prefix_bytes(), strlen(want));
    assert_memory_equal(st_thread_last_error(), want, strlen(want));
    /* a second init is refused on every rank (rank 0's words), and leaves the first binding */
    assert_int_equal(shardtab_init(MPI_COMM_WORLD, NULL), SHARDTAB_ERR_INVALID_ARG);
    snprintf(want, sizeof want, "%s rank 0 (cpu): shardtab_init called twice", host);
    assert_string_equal(shardtab_last_error(), want);
    assert_true(st_rt.initialized);
}

static void test_memory_calls_forward_to_the_backend(void **state)
{
    int64_t values[4] = {-5, 17, 400, 9}, back[4] = {1, 1, 1, 1};
    void *p = NULL, *q = NULL;
    (void)state;
    refused(shardtab_mem_alloc(64, NULL), "shardtab_mem_alloc: ptr is NULL");
    refused(shardtab_mem_alloc_coherent(64, NULL), "shardtab_mem_alloc_coherent: ptr is NULL");
    assert_int_equal(shardtab_mem_alloc(sizeof values, &p), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_alloc_coherent(sizeof values, &q), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_memcpy_to_device(p, values, sizeof values), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_memcpy_async(q, p, sizeof values, NULL), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_stream_synchronize(NULL), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_memcpy_to_host(back, q, sizeof back), SHARDTAB_SUCCESS);
    assert_memory_equal(back, values, sizeof values);
    assert_int_equal(shardtab_device_synchronize(), SHARDTAB_SUCCESS);
    /* zero bytes move nothing, whatever the pointers */
    assert_int_equal(shardtab_memcpy_to_device(NULL, NULL, 0), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_memcpy_to_host(NULL, NULL, 0), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_memcpy_async(NULL, NULL, 0, NULL), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(NULL), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(p), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(q), SHARDTAB_SUCCESS);
}

static void test_injected_faults_hit_the_named_rank_only(void **state)
{
    char want[128];
    void *p = NULL;
    (void)state;
    setenv("SHARDTAB_FAULT", "alloc:1", 1);
    assert_int_equal(shardtab_mem_alloc(64, &p),
                     rank == 1 ? SHARDTAB_ERR_NO_MEMORY : SHARDTAB_SUCCESS);
    if (rank == 1) {
        assert_string_equal(said(), "fault injected at step 'alloc' (SHARDTAB_FAULT=alloc:1)");
        assert_null(p);
        assert_int_equal(shardtab_mem_alloc_coherent(64, &p), SHARDTAB_ERR_NO_MEMORY);
        unsetenv("SHARDTAB_FAULT");
        assert_int_equal(shardtab_mem_alloc(64, &p), SHARDTAB_SUCCESS);
    }
    /* a failed free still frees: a second free finds nothing */
    snprintf(want, sizeof want, "free:%d", rank);
    setenv("SHARDTAB_FAULT", want, 1);
    assert_int_equal(shardtab_mem_free(p), SHARDTAB_ERR_DEVICE);
    unsetenv("SHARDTAB_FAULT");
    assert_int_equal(shardtab_mem_free(p), SHARDTAB_ERR_INVALID_ARG);
}

static void test_finalize_waits_for_the_tables(void **state)
{
    shardtab_t *t = NULL;
    void *shard = NULL;
    char want[128];
    (void)state;
    assert_int_equal(shardtab_mem_alloc(4096, &shard), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, shard, 4096, &t), SHARDTAB_SUCCESS);
    /* the peers map the shard: freeing it is refused, finalizing too (registry.c's words) */
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_ERR_INVALID_ARG);
    assert_int_equal(shardtab_finalize(), SHARDTAB_ERR_INVALID_ARG);
    snprintf(want, sizeof want, "shardtab_finalize: 1 live table of this process: table %p",
             (void *)t);
    assert_memory_equal(said(), want, strlen(want));
    assert_true(st_rt.initialized); /* nothing released */
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_finalize(), SHARDTAB_SUCCESS);
    assert_false(st_rt.initialized);
    /* the binding is gone: messages say the host and rank alone again */
    refused(shardtab_finalize(), "shardtab_finalize without shardtab_init");
    snprintf(want, sizeof want, "%s rank %d: ", host, rank);
    assert_int_equal(st_error_prefix_bytes(), strlen(want));
    /* and a new init binds again */
    assert_int_equal(shardtab_init(MPI_COMM_WORLD, NULL), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_finalize(), SHARDTAB_SUCCESS);
    assert_int_equal(st_live_count(), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_call_is_refused_before_init),
        cmocka_unit_test(test_init_binds_this_rank_once),
        cmocka_unit_test(test_memory_calls_forward_to_the_backend),
        cmocka_unit_test(test_injected_faults_hit_the_named_rank_only),
        cmocka_unit_test(test_finalize_waits_for_the_tables)};

    return mpi_case_main(&argc, &argv, tests, sizeof tests / sizeof *tests, NULL, NULL);
}
