/* test_shardtab.c - pins src/shardtab/shardtab.c, the create/destroy protocol, under
 * mpiexec (2 ranks): create's refusals (before init, bad arguments, ranks that
 * disagree on SHARDTAB_RANKS_PER_NODE or on the label), each agreed on every rank
 * with the first failing rank's words; a table's nodes, members and uploaded
 * replica, on one node and on simulated nodes of one rank; destroy's refusals of
 * what is no live table; faults at create's own steps leaving nothing behind. */
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

#include "table.h"
#include "mpi_case.h"

static void test_create_before_init_is_refused_on_every_rank(void **state)
{
    shardtab_t *t = NULL;
    char shard[64];
    (void)state;
    expect_agreed(shardtab_create(MPI_COMM_WORLD, shard, sizeof shard, &t),
                  SHARDTAB_ERR_INVALID_ARG, 0, "shardtab_create before shardtab_init");
    assert_null(t);
    assert_int_equal(shardtab_init(MPI_COMM_WORLD, NULL), SHARDTAB_SUCCESS);
}

static void test_create_refuses_bad_arguments_on_every_rank(void **state)
{
    shardtab_create_params_t params = {.alignment = 64};
    shardtab_t *t = NULL;
    char *shard = NULL, want[256];
    uintptr_t misaligned;
    (void)state;
    assert_int_equal(shardtab_mem_alloc(4096, (void **)&shard), SHARDTAB_SUCCESS);
    expect_agreed(shardtab_create(MPI_COMM_WORLD, shard, 4096, NULL), SHARDTAB_ERR_INVALID_ARG, 0,
                  "shardtab_create: table is NULL");
    expect_agreed(shardtab_create(MPI_COMM_WORLD, NULL, 8, &t), SHARDTAB_ERR_INVALID_ARG, 0,
                  "shardtab_create: shard is NULL but bytes is 8");
    /* rank 1's shard alone is misaligned: its words reach rank 0 */
    misaligned = (uintptr_t)(shard + (rank == 1 ? 4 : 0));
    expect_nothing_left();
    shardtab_status_t status =
        shardtab_create_with(MPI_COMM_WORLD, (void *)misaligned, 64, &params, &t);
    MPI_Bcast(&misaligned, (int)sizeof misaligned, MPI_BYTE, 1, MPI_COMM_WORLD);
    snprintf(want, sizeof want,
             "shard %p is not aligned to 64 bytes, as shardtab_create_params_t."
             "alignment asks (the kernels' vector accesses need it)",
             (void *)misaligned);
    expect_agreed(status, SHARDTAB_ERR_INVALID_ARG, 1, want);
    /* the parameters' own checks (params.c) */
    params.alignment = 3;
    expect_agreed(shardtab_create_with(MPI_COMM_WORLD, shard, 64, &params, &t),
                  SHARDTAB_ERR_INVALID_ARG, 0, "alignment 3 is not a power of two");
    assert_null(t);
    expect_nothing_left();
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
}

static void test_create_refuses_ranks_that_disagree(void **state)
{
    shardtab_create_params_t params = {.label = rank == 0 ? "left" : "right"};
    shardtab_t *t = NULL;
    char shard[64];
    (void)state;
    /* SHARDTAB_RANKS_PER_NODE set for some ranks only would split them differently */
    if (rank == 1)
        setenv("SHARDTAB_RANKS_PER_NODE", "1", 1);
    expect_agreed(shardtab_create(MPI_COMM_WORLD, NULL, 0, &t), SHARDTAB_ERR_INVALID_ARG, 0,
                  "SHARDTAB_RANKS_PER_NODE differs between the ranks (from 0 to 1; 0 means unset): "
                  "give every rank the same value (mpirun -x, or the job's environment)");
    setenv("SHARDTAB_RANKS_PER_NODE", "x", 1);
    expect_agreed(shardtab_create(MPI_COMM_WORLD, NULL, 0, &t), SHARDTAB_ERR_INVALID_ARG, 0,
                  "SHARDTAB_RANKS_PER_NODE='x' is not a positive integer");
    unsetenv("SHARDTAB_RANKS_PER_NODE");
    /* creates pair by order: a rank creating another table is named by its label */
    expect_agreed(shardtab_create_with(MPI_COMM_WORLD, shard, 0, &params, &t),
                  SHARDTAB_ERR_INVALID_ARG, 1,
                  "rank 1 creates table 'right' where rank 0 creates 'left': creates are "
                  "collective and pair by order, so every rank must create its tables in the "
                  "same order (shardtab_create_params_t.label)");
    assert_null(t);
    expect_nothing_left();
}

static void test_table_knows_its_node_and_uploads_its_replica(void **state)
{
    shardtab_create_params_t params = {.label = "halo", .signal_slots = 12};
    void *shard = NULL, *replica[4] = {NULL, NULL, NULL, NULL}, *base;
    shardtab_t *t = NULL;
    size_t bytes;
    (void)state;
    assert_int_equal(shardtab_mem_alloc(4096, &shard), SHARDTAB_SUCCESS);
    assert_int_equal(
        shardtab_create_with(MPI_COMM_WORLD, shard, 1000 + 8 * (size_t)rank, &params, &t),
        SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_node_size(t), 2);
    assert_int_equal(shardtab_node_rank(t), rank);
    assert_int_equal(shardtab_node_count(t), 1);
    assert_int_equal(shardtab_node_id(t), 0);
    assert_int_equal(shardtab_member(t, 0), 0);
    assert_int_equal(shardtab_member(t, 1), 1);
    assert_int_equal(shardtab_node_rank_of(t, 1), 1);
    assert_string_equal(t->label, "halo");
    assert_int_equal(t->signal_slots, 12);
    assert_true(t->wait_timeout_s == SHARDTAB_WAIT_TIMEOUT_DEFAULT_S);
    assert_true(shardtab_create_ms(t) > 0.0);
    assert_true(shardtab_open_ms(t) >= 0.0 && shardtab_open_ms(t) <= shardtab_create_ms(t));
    /* the device's replica: the shards, then the pads, this rank's own pointers its own */
    assert_int_equal(shardtab_memcpy_to_host(replica, shardtab_device_table(t), sizeof replica),
                     SHARDTAB_SUCCESS);
    assert_ptr_equal(replica[rank], shard);
    assert_ptr_equal(replica[2 + rank], t->pad.local);
    for (int q = 0; q < 2; q++) {
        assert_int_equal(shardtab_peer(t, q, &base, &bytes), SHARDTAB_SUCCESS);
        assert_ptr_equal(replica[q], base);
        assert_int_equal(bytes, 1000 + 8 * (size_t)q);
        assert_ptr_equal(replica[2 + q], t->pad.entries[q]);
        assert_non_null(replica[2 + q]);
    }
    assert_int_equal(st_live_count(), 1);
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    assert_null(t);
    expect_nothing_left();
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
}

static void test_simulated_nodes_of_one_rank(void **state)
{
    void *shard = NULL, *base = &base;
    shardtab_t *t = NULL;
    size_t bytes = 1;
    (void)state;
    setenv("SHARDTAB_RANKS_PER_NODE", "1", 1);
    assert_int_equal(shardtab_mem_alloc(256, &shard), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, shard, 256, &t), SHARDTAB_SUCCESS);
    unsetenv("SHARDTAB_RANKS_PER_NODE");
    assert_int_equal(shardtab_node_size(t), 1);
    assert_int_equal(shardtab_node_rank(t), 0);
    assert_int_equal(shardtab_node_count(t), 2);
    assert_int_equal(shardtab_node_id(t), rank);
    assert_int_equal(shardtab_member(t, 0), rank);
    assert_int_equal(shardtab_node_rank_of(t, rank), 0);
    assert_int_equal(shardtab_node_rank_of(t, 1 - rank), -1);
    assert_int_equal(shardtab_peer(t, 1 - rank, &base, &bytes), SHARDTAB_SUCCESS);
    assert_null(base); /* off this node */
    assert_int_equal(bytes, 0);
    assert_int_equal(shardtab_peers_opened(t), 0);
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
}

static void test_destroy_refuses_what_is_no_live_table(void **state)
{
    shardtab_t *t = NULL, *stale;
    char want[256];
    (void)state;
    assert_int_equal(shardtab_destroy(NULL), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_destroy: no table (NULL, or destroyed already); "
                                "destroying is collective: every rank of the table passes the "
                                "same live table, once");
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_destroy: no table (NULL, or destroyed already); "
                                "destroying is collective: every rank of the table passes the "
                                "same live table, once");
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, NULL, 0, &t), SHARDTAB_SUCCESS);
    stale = t;
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    assert_null(t);
    assert_int_equal(shardtab_destroy(&stale), SHARDTAB_ERR_INVALID_ARG); /* local: no collective */
    snprintf(want, sizeof want,
             "shardtab_destroy(%p): not a live table of this process "
             "(destroyed already, or never created); destroying is collective: every rank of the "
             "table passes the same live table, once",
             (void *)stale);
    assert_string_equal(said(), want);
}

static void test_faults_at_create_s_steps_leave_nothing(void **state)
{
    /* each the status of that step's real failure */
    static const char *const faults[] = {"export:1", "upload:0", "upload:1"};
    static const shardtab_status_t statuses[] = {SHARDTAB_ERR_IPC, SHARDTAB_ERR_DEVICE,
                                                 SHARDTAB_ERR_DEVICE};
    char text[96];
    void *shard = NULL;
    shardtab_t *t = NULL;
    (void)state;
    assert_int_equal(shardtab_mem_alloc(512, &shard), SHARDTAB_SUCCESS);
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) {
        setenv("SHARDTAB_FAULT", faults[i], 1);
        snprintf(text, sizeof text, "fault injected at step '%.*s' (SHARDTAB_FAULT=%s)",
                 (int)(strchr(faults[i], ':') - faults[i]), faults[i], faults[i]);
        expect_agreed(shardtab_create(MPI_COMM_WORLD, shard, 512, &t), statuses[i],
                      faults[i][strlen(faults[i]) - 1] - '0', text);
        assert_null(t);
        expect_nothing_left();
    }
    unsetenv("SHARDTAB_FAULT");
    /* and the next create works, on the same memory */
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, shard, 512, &t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_finalize(), SHARDTAB_SUCCESS);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_before_init_is_refused_on_every_rank),
        cmocka_unit_test(test_create_refuses_bad_arguments_on_every_rank),
        cmocka_unit_test(test_create_refuses_ranks_that_disagree),
        cmocka_unit_test(test_table_knows_its_node_and_uploads_its_replica),
        cmocka_unit_test(test_simulated_nodes_of_one_rank),
        cmocka_unit_test(test_destroy_refuses_what_is_no_live_table),
        cmocka_unit_test(test_faults_at_create_s_steps_leave_nothing)};

    return mpi_case_main(&argc, &argv, tests, sizeof tests / sizeof *tests, NULL, NULL);
}
