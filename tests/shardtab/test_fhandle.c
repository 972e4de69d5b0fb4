/* test_fhandle.c - pins src/shardtab/fhandle.c under mpiexec (2 ranks): the
 * calls that take a communicator as a Fortran handle (the Fortran module's,
 * mpi4py's comm.py2f()) refuse MPI_COMM_NULL's handle and one MPI does not
 * know, naming the call, and with a real handle do what their C twins do. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "mpi_case.h"

static void refused_handle(shardtab_status_t status, const char *call, MPI_Fint handle)
{
    char want[256];
    assert_int_equal(status, SHARDTAB_ERR_INVALID_ARG);
    snprintf(want, sizeof want,
             "%s: communicator handle %d is MPI_COMM_NULL, or not a communicator: "
             "pass MPI_COMM_WORLD (use mpi), comm%%MPI_VAL (use mpi_f08) or comm.py2f() (mpi4py)",
             call, (int)handle);
    assert_string_equal(said(), want);
}

static void test_null_handle_is_refused_by_every_call(void **state)
{
    const MPI_Fint null = MPI_Comm_c2f(MPI_COMM_NULL);
    shardtab_t *t = NULL;
    char shard[64];
    (void)state;
    refused_handle(shardtab_init_f(null, 0), "shardtab_init", null);
    refused_handle(shardtab_agree_f(null, SHARDTAB_SUCCESS), "shardtab_agree", null);
    refused_handle(shardtab_create_f(null, shard, sizeof shard, NULL, &t), "shardtab_create", null);
    assert_null(t);
    assert_false(st_rt.initialized);
}

static void test_unknown_handle_is_refused_not_an_abort(void **state)
{
    (void)state;
#if defined(OPEN_MPI)
    /* Open MPI turns a handle it never made into NULL, which any call aborts on */
    refused_handle(shardtab_init_f(12345, 1), "shardtab_init", 12345);
    refused_handle(shardtab_agree_f(-1, SHARDTAB_SUCCESS), "shardtab_agree", -1);
    assert_false(st_rt.initialized);
#else
    skip(); /* MPICH checks its handles itself */
#endif
}

static void test_real_handle_does_what_the_c_call_does(void **state)
{
    const MPI_Fint world = MPI_Comm_c2f(MPI_COMM_WORLD);
    shardtab_create_params_t params = {.label = "fortran"};
    shardtab_t *t = NULL;
    void *shard = NULL;
    char want[256];
    (void)state;
    assert_int_equal(shardtab_agree_f(world, SHARDTAB_SUCCESS), SHARDTAB_SUCCESS);
    shardtab_status_t local =
        rank == 1 ? st_fail(SHARDTAB_ERR_IPC, "rank 1 says") : SHARDTAB_SUCCESS;
    assert_int_equal(shardtab_agree_f(world, local), SHARDTAB_ERR_IPC);
    snprintf(want, sizeof want, "%s rank 1: rank 1 says", host); /* rank 1's words, whole */
    assert_string_equal(shardtab_last_error(), want);

    assert_int_equal(shardtab_init_f(world, 7), SHARDTAB_SUCCESS); /* any non-zero: allowed */
    assert_true(st_rt.initialized);
    assert_int_equal(shardtab_mem_alloc(4096, &shard), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_create_f(world, shard, 4096, &params, &t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_node_size(t), 2);
    assert_int_equal(shardtab_node_rank(t), rank);
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_finalize(), SHARDTAB_SUCCESS);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_handle_is_refused_by_every_call),
        cmocka_unit_test(test_unknown_handle_is_refused_not_an_abort),
        cmocka_unit_test(test_real_handle_does_what_the_c_call_does)};

    return mpi_case_main(&argc, &argv, tests, sizeof tests / sizeof *tests, NULL, NULL);
}
