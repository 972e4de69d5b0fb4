/* test_backend_gpu.c - pins the host logic of src/shardtab/backend_gpu.c, which
 * backend_gpu.h holds apart from the runtime calls so that every build runs it:
 * the device a rank binds (one visible GPU: device 0; else its node rank, round
 * robin when sharing is allowed, refused when not) and the grid of a
 * collective's phase. The runtime calls themselves run on real GPUs (tests/gpu). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "backend_gpu.h"

static int choose(int count, int node_rank, int node_size, int allow_shared)
{
    st_bind_request_t req = {
        .node_rank = node_rank, .node_size = node_size, .allow_shared_device = allow_shared};
    return st_gpu_device_choose(count, &req);
}

static void test_device_is_zero_when_one_gpu_is_visible(void **state)
{
    (void)state;
    /* Frontier's --gpu-bind=closest: every rank sees its own GPU as device 0 */
    assert_int_equal(choose(1, 3, 8, 0), 0);
    assert_int_equal(choose(1, 7, 8, 1), 0);
}

static void test_device_is_the_node_rank_while_gpus_suffice(void **state)
{
    (void)state;
    assert_int_equal(choose(4, 2, 3, 0), 2);
    assert_int_equal(choose(8, 7, 8, 0), 7);
    assert_int_equal(choose(8, 5, 6, 1), 5);
}

static void test_device_round_robin_only_when_sharing_is_allowed(void **state)
{
    (void)state;
    assert_int_equal(choose(3, 4, 7, 1), 1);
    assert_int_equal(choose(3, 6, 7, 1), 0);
    assert_int_equal(choose(3, 4, 7, 0), -1);
    assert_int_equal(choose(2, 0, 5, 0), -1); /* refused on every rank, the first too */
}

static st_coll_phase_t phase(int kind, int type, int vec16, size_t begin, size_t end, size_t count)
{
    st_coll_phase_t p;
    memset(&p, 0, sizeof p);
    p.phase = kind;
    p.type = type;
    p.vec16 = vec16;
    p.begin = begin;
    p.end = end;
    p.count = count;
    return p;
}

static void test_phase_grid_is_a_thread_per_16_bytes_capped_at_8_blocks_a_multiprocessor(
    void **state)
{
    st_coll_phase_t p;
    (void)state;
    /* 3073 floats, 4 a thread: 768 threads, 3 blocks */
    p = phase(ST_PHASE_REDUCE, SHARDTAB_FLOAT, 1, 100, 100 + 3073, 9999);
    assert_int_equal(st_gpu_phase_blocks(&p, 132), 3);
    /* doubles, 2 a thread: 3073 -> 1536 threads, 6 blocks */
    p = phase(ST_PHASE_COPY, SHARDTAB_DOUBLE, 1, 0, 3073, 9999);
    assert_int_equal(st_gpu_phase_blocks(&p, 132), 6);
    /* not 16-byte aligned: a thread an element, 3073 -> 13 blocks */
    p = phase(ST_PHASE_REDUCE, SHARDTAB_INT64, 0, 7, 7 + 3073, 9999);
    assert_int_equal(st_gpu_phase_blocks(&p, 132), 13);
    /* ST_PHASE_CHUNKS covers the whole count, not [begin, end) */
    p = phase(ST_PHASE_CHUNKS, SHARDTAB_DOUBLE, 0, 5, 6, 10000);
    assert_int_equal(st_gpu_phase_blocks(&p, 132), 40);
    assert_int_equal(st_gpu_phase_blocks(&p, 3), 24); /* 8 a multiprocessor */
    /* no elements (a sync) still launches one block */
    p = phase(ST_PHASE_SYNC, SHARDTAB_FLOAT, 1, 0, 0, 0);
    assert_int_equal(st_gpu_phase_blocks(&p, 132), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_is_zero_when_one_gpu_is_visible),
        cmocka_unit_test(test_device_is_the_node_rank_while_gpus_suffice),
        cmocka_unit_test(test_device_round_robin_only_when_sharing_is_allowed),
        cmocka_unit_test(
            test_phase_grid_is_a_thread_per_16_bytes_capped_at_8_blocks_a_multiprocessor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
