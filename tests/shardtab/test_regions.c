/* test_regions.c - pins src/shardtab/regions.c under mpiexec (2 ranks): a region's
 * descriptor as export fills it; peers' shards and pads opened so that each rank
 * reads and writes the other's memory, each peer allocation opened once however
 * many tables use it and closed by the last; an empty shard; pads whose layouts
 * differ; the peer-access matrix (a stand-in backend that denies, or does not
 * know); faults at the exchange, the open and the close, leaving nothing. */
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
#include "shardtab_comm.h"
#include "table.h"
#include "mpi_case.h"

static void test_export_describes_this_rank_s_region(void **state)
{
    st_descriptor_t desc;
    shardtab_t t;
    char *alloc = NULL;
    (void)state;
    memset(&t, 0, sizeof t);
    t.rank = 7;
    t.node_rank = 3;
    /* an empty region: described, never exported */
    memset(&desc, 0x5a, sizeof desc);
    assert_int_equal(st_region_export(&t, &t.shard, &desc), SHARDTAB_SUCCESS);
    assert_int_equal(desc.flags, ST_DESCRIPTOR_EMPTY);
    assert_int_equal(desc.comm_rank, 7);
    assert_int_equal(desc.node_rank, 3);
    assert_int_equal(desc.backend, (int32_t)st_rt.device.backend);
    assert_int_equal(desc.device, st_rt.device.device);
    assert_int_equal(desc.bytes, 0);
    assert_string_equal(desc.host, host);
    assert_string_equal(desc.boot_id, st_rt.boot_id);
    assert_int_equal(desc.ipc_ns, st_rt.ipc_ns);
    assert_string_equal(desc.pci_bus_id, st_rt.device.pci_bus_id);
    assert_int_equal(desc.alloc_bytes, 0);
    assert_null(t.live.base);
    /* a shard inside an allocation: its offset and the whole allocation's size and base */
    assert_int_equal(shardtab_mem_alloc(5000, (void **)&alloc), SHARDTAB_SUCCESS);
    t.shard.local = alloc + 128;
    t.shard.bytes = 256;
    assert_int_equal(st_region_export(&t, &t.shard, &desc), SHARDTAB_SUCCESS);
    assert_int_equal(desc.flags, 0);
    assert_int_equal(desc.bytes, 256);
    assert_int_equal(desc.offset, 128);
    assert_int_equal(desc.alloc_bytes, 2 * (size_t)sysconf(_SC_PAGESIZE)); /* whole pages */
    assert_int_equal(desc.pid, getpid());
    assert_int_equal(desc.alloc_base, (uint64_t)(uintptr_t)alloc);
    assert_ptr_equal(t.live.base, alloc); /* the shard's allocation is held while the table lives */
    assert_int_equal(t.live.bytes, desc.alloc_bytes);
    /* a pad's export leaves the registry's entry alone */
    t.live.base = NULL;
    t.pad.local = alloc + 1024;
    t.pad.bytes = 64;
    assert_int_equal(st_region_export(&t, &t.pad, &desc), SHARDTAB_SUCCESS);
    assert_int_equal(desc.offset, 1024);
    assert_null(t.live.base);
    assert_int_equal(shardtab_mem_free(alloc), SHARDTAB_SUCCESS);
}

static void test_peers_read_and_write_each_other_s_shard(void **state)
{
    int32_t *shard = NULL, *peer;
    shardtab_t *t = NULL;
    size_t bytes;
    const int other = 1 - rank;
    (void)state;
    assert_int_equal(shardtab_mem_alloc(1024 * sizeof *shard, (void **)&shard), SHARDTAB_SUCCESS);
    for (int i = 0; i < 1024; i++)
        shard[i] = (rank + 1) * 100000 + i;
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, shard, 1024 * sizeof *shard, &t),
                     SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_peer(t, other, (void **)&peer, &bytes), SHARDTAB_SUCCESS);
    assert_ptr_not_equal(peer, shard);
    assert_int_equal(bytes, 1024 * sizeof *shard);
    for (int i = 0; i < 1024; i++)
        if (peer[i] != (other + 1) * 100000 + i)
            fail_msg("peer value %d is %d", i, (int)peer[i]);
    peer[rank] = -1 - rank; /* into the peer's own memory */
    MPI_Barrier(MPI_COMM_WORLD);
    assert_int_equal(shard[other], -1 - other);
    assert_int_equal(shardtab_peer(t, rank, (void **)&peer, &bytes), SHARDTAB_SUCCESS);
    assert_ptr_equal(peer, shard); /* its own entry is its own pointer */
    /* the shard's and the pad's peer allocations, each opened once */
    assert_int_equal(shardtab_peers_opened(t), 2);
    assert_int_equal(shardtab_peers_reused(t), 0);
    assert_int_equal(shardtab_peer_mappings(), 2);
    assert_int_equal(shardtab_peer_access(t, 0, 1), 1); /* the host backend reaches every pair */
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    expect_nothing_left();
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
}

static void test_a_second_table_opens_nothing_new(void **state)
{
    char *alloc = NULL;
    shardtab_t *first = NULL, *second = NULL, *empty = NULL;
    void *base = &base;
    size_t bytes = 1;
    (void)state;
    assert_int_equal(shardtab_mem_alloc(8192, (void **)&alloc), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, alloc, 4096, &first), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, alloc + 4096, 4096, &second),
                     SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_peers_opened(first), 2);
    assert_int_equal(shardtab_peers_opened(second), 0); /* the same allocation, the same chunk */
    assert_int_equal(shardtab_peers_reused(second), 2);
    assert_int_equal(shardtab_peer_mappings(), 2);
    /* rank 1's shard empty: NULL to every rank; only its pad is opened */
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, alloc, rank == 1 ? 0 : 64, &empty),
                     SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_peer(empty, 1, &base, &bytes), SHARDTAB_SUCCESS);
    assert_null(base);
    assert_int_equal(bytes, 0);
    assert_int_equal(shardtab_peers_opened(empty) + shardtab_peers_reused(empty),
                     rank == 0 ? 1 : 2);
    assert_int_equal(shardtab_destroy(&empty), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_destroy(&first), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_peer_mappings(), 2); /* the second still uses both */
    assert_int_equal(shardtab_destroy(&second), SHARDTAB_SUCCESS);
    expect_nothing_left();
    assert_int_equal(shardtab_mem_free(alloc), SHARDTAB_SUCCESS);
}

static size_t pad_bytes(int slots)
{
    return ((size_t)SHARDTAB_PAD_HEADER + 2 + (size_t)slots +
            (size_t)SHARDTAB_COLL_SLOTS(2, SHARDTAB_DETAIL_LIB_COLL_VALUES)) *
           sizeof(uint64_t);
}

static void test_pads_of_another_layout_are_refused(void **state)
{
    shardtab_create_params_t params = {.signal_slots = rank == 0 ? 8 : 16};
    shardtab_t *t = NULL;
    char want[256];
    (void)state;
    snprintf(want, sizeof want,
             "rank 1 has a signal pad of %zu bytes, this rank %zu: pass the "
             "same signal_slots to shardtab_create_with on every rank",
             pad_bytes(16), pad_bytes(8));
    expect_agreed(shardtab_create_with(MPI_COMM_WORLD, NULL, 0, &params, &t),
                  SHARDTAB_ERR_INVALID_ARG, 0, want);
    assert_null(t);
    expect_nothing_left();
}

/* ---- peer access, asked of a stand-in: the host backend's ops but this one ---- */

static int answer[2]; /* what this rank's device says of node rank 0's and 1's */

static shardtab_status_t stand_in_access(const char *peer_pci_bus_id, int *can)
{
    assert_string_equal(peer_pci_bus_id, "-");
    *can = answer[1 - rank];
    return SHARDTAB_SUCCESS;
}

static void test_peer_access_gaps_are_named_pair_by_pair(void **state)
{
    st_backend_ops_t stand_in = st_backend_host_ops;
    shardtab_t *t = NULL;
    (void)state;
    stand_in.can_access_peer = stand_in_access;
    st_backend_use(&stand_in);
    answer[0] = answer[1] = 0;
    expect_agreed(shardtab_create(MPI_COMM_WORLD, NULL, 0, &t), SHARDTAB_ERR_PEER_ACCESS, 0,
                  "2 of 2 device pairs of this node lack peer access: rank 0 device 0 [-] -> "
                  "rank 1 [-]; rank 1 device 0 [-] -> rank 0 [-]; check the GPU topology "
                  "(rocm-smi --showtopo, nvidia-smi topo -m) and Slurm's GPU binding");
    expect_nothing_left();
    answer[0] = 0; /* rank 1 cannot reach rank 0; rank 0 does not know of rank 1 */
    answer[1] = -1;
    expect_agreed(shardtab_create(MPI_COMM_WORLD, NULL, 0, &t), SHARDTAB_ERR_PEER_ACCESS, 0,
                  "1 of 2 device pairs of this node lack peer access: rank 1 device 0 [-] -> "
                  "rank 0 [-]; check the GPU topology (rocm-smi --showtopo, nvidia-smi topo -m) "
                  "and Slurm's GPU binding");
    answer[0] = 1; /* unknown is no gap: the matrix keeps it for shardtab_peer_access */
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, NULL, 0, &t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_peer_access(t, 0, 1), -1);
    assert_int_equal(shardtab_peer_access(t, 1, 0), 1);
    assert_int_equal(shardtab_peer_access(t, 1, 1), 1);
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    st_backend_use(&st_backend_host_ops);
}

static void test_faults_at_the_regions_steps_leave_nothing(void **state)
{
    void *shard = NULL;
    shardtab_t *t = NULL;
    (void)state;
    assert_int_equal(shardtab_mem_alloc(512, &shard), SHARDTAB_SUCCESS);
    setenv("SHARDTAB_FAULT", "exchange:1", 1);
    expect_agreed(shardtab_create(MPI_COMM_WORLD, shard, 512, &t), SHARDTAB_ERR_MPI, 1,
                  "fault injected at step 'exchange' (SHARDTAB_FAULT=exchange:1)");
    expect_nothing_left();
    setenv("SHARDTAB_FAULT", "open:0", 1);
    expect_agreed(shardtab_create(MPI_COMM_WORLD, shard, 512, &t), SHARDTAB_ERR_IPC, 0,
                  "fault injected at step 'open' (SHARDTAB_FAULT=open:0)");
    expect_nothing_left();
    assert_null(t);
    /* a close that fails still lets go of every mapping, and the table is gone */
    setenv("SHARDTAB_FAULT", "close:1", 1);
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, shard, 512, &t), SHARDTAB_SUCCESS);
    expect_agreed(shardtab_destroy(&t), SHARDTAB_ERR_DEVICE, 1,
                  "fault injected at step 'close' (SHARDTAB_FAULT=close:1)");
    assert_null(t);
    unsetenv("SHARDTAB_FAULT");
    expect_nothing_left();
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
}

/* The cases run between one init and one finalize of the library. */
static int init_library(void **state)
{
    (void)state;
    if (shardtab_init(MPI_COMM_WORLD, NULL) != SHARDTAB_SUCCESS) {
        fprintf(stderr, "test_regions: error: %s\n", shardtab_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 0;
}

static int finalize_library(void **state)
{
    (void)state;
    return shardtab_finalize() == SHARDTAB_SUCCESS ? 0 : -1;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_describes_this_rank_s_region),
        cmocka_unit_test(test_peers_read_and_write_each_other_s_shard),
        cmocka_unit_test(test_a_second_table_opens_nothing_new),
        cmocka_unit_test(test_pads_of_another_layout_are_refused),
        cmocka_unit_test(test_peer_access_gaps_are_named_pair_by_pair),
        cmocka_unit_test(test_faults_at_the_regions_steps_leave_nothing)};

    return mpi_case_main(&argc, &argv, tests, sizeof tests / sizeof *tests, init_library,
                         finalize_library);
}
