/* test_error.c - pins src/shardtab/error.c under mpiexec (2 ranks): the status
 * strings; the last-error message with who speaks ahead of it (host and rank,
 * or the identity runtime.c sets), per thread and for the process; the
 * agreement that gives every rank the first failing rank's status and words
 * (a cause before a consequence), with or without a deadline; and
 * shardtab_mpi_check's words. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "mpi_case.h"

static int size;
static char who[ST_HOST_NAME_BYTES + 32]; /* "<host> rank <r>: " */

/* rank r's message as it says it before shardtab_init */
static const char *from(int r, const char *text)
{
    static char line[512];
    snprintf(line, sizeof line, "%s rank %d: %s", host, r, text);
    return line;
}

static void test_status_strings(void **state)
{
    static const char *const want[SHARDTAB_STATUS_COUNT] = {"success",
                                                            "invalid argument",
                                                            "out of memory",
                                                            "no usable device",
                                                            "device runtime error",
                                                            "IPC error",
                                                            "peer access missing",
                                                            "invalid peer descriptor",
                                                            "MPI error",
                                                            "not supported",
                                                            "verification failed",
                                                            "device wait timed out",
                                                            "stopped after another rank failed"};
    (void)state;
    assert_int_equal(SHARDTAB_STATUS_COUNT, 13);
    for (int s = 0; s < SHARDTAB_STATUS_COUNT; s++)
        assert_string_equal(shardtab_status_string((shardtab_status_t)s), want[s]);
    assert_int_equal(SHARDTAB_ERR_ABORTED, 12);
    assert_string_equal(shardtab_status_string(SHARDTAB_STATUS_COUNT), "unknown status");
    assert_string_equal(shardtab_status_string((shardtab_status_t)-1), "unknown status");
}

static void test_message_starts_with_who_speaks(void **state)
{
    char want[256];
    (void)state;
    assert_int_equal(shardtab_error_set(SHARDTAB_ERR_IPC, "open %d of %s failed", 3, "x"),
                     SHARDTAB_ERR_IPC);
    snprintf(want, sizeof want, "%sopen 3 of x failed", who);
    assert_string_equal(shardtab_last_error(), want);
    assert_string_equal(st_thread_last_error(), want);
    assert_int_equal(st_error_prefix_bytes(), strlen(who));
    /* once the rank is bound, runtime.c names it and its device */
    st_error_identity("node7 rank 1 device 2 [0000:c1:00.0]: ");
    assert_int_equal(st_fail(SHARDTAB_ERR_DEVICE, "late"), SHARDTAB_ERR_DEVICE);
    assert_string_equal(shardtab_last_error(), "node7 rank 1 device 2 [0000:c1:00.0]: late");
    assert_int_equal(st_error_prefix_bytes(), strlen("node7 rank 1 device 2 [0000:c1:00.0]: "));
    st_error_identity(NULL);
    assert_int_equal(shardtab_error_set_message(SHARDTAB_ERR_VERIFY, NULL), SHARDTAB_ERR_VERIFY);
    assert_string_equal(shardtab_last_error(), who); /* nothing after who */
    assert_int_equal(shardtab_error_set_message(SHARDTAB_ERR_VERIFY, "100% % kept"),
                     SHARDTAB_ERR_VERIFY);
    snprintf(want, sizeof want, "%s100%% %% kept", who);
    assert_string_equal(shardtab_last_error(), want);
    assert_true(st_mpi_usable());
}

static void *fail_on_a_thread(void *arg)
{
    (void)arg;
    st_fail(SHARDTAB_ERR_NO_MEMORY, "from a worker thread");
    return NULL;
}

static void test_last_error_is_the_process_s_own_per_thread(void **state)
{
    char mine[256], theirs[256];
    pthread_t worker;
    (void)state;
    st_fail(SHARDTAB_ERR_IPC, "from the main thread");
    snprintf(mine, sizeof mine, "%sfrom the main thread", who);
    assert_int_equal(pthread_create(&worker, NULL, fail_on_a_thread, NULL), 0);
    assert_int_equal(pthread_join(worker, NULL), 0);
    snprintf(theirs, sizeof theirs, "%sfrom a worker thread", who);
    assert_string_equal(shardtab_last_error(), theirs); /* the process's latest, any thread's */
    assert_string_equal(st_thread_last_error(), mine);  /* this thread's own */
}

static void test_agree_gives_everyone_the_first_failure(void **state)
{
    (void)state;
    assert_int_equal(shardtab_agree(MPI_COMM_WORLD, SHARDTAB_SUCCESS), SHARDTAB_SUCCESS);
    /* rank 1 fails alone: every rank returns its status and its words, whole */
    shardtab_status_t local =
        rank == 1 ? st_fail(SHARDTAB_ERR_PEER_ACCESS, "rank one's cause") : SHARDTAB_SUCCESS;
    assert_int_equal(shardtab_agree(MPI_COMM_WORLD, local), SHARDTAB_ERR_PEER_ACCESS);
    assert_string_equal(shardtab_last_error(), from(1, "rank one's cause"));
    assert_int_equal(st_error_prefix_bytes(), 0); /* another rank's words: kept whole */
    /* a cause before a consequence, whatever their ranks */
    local = rank == 0 ? st_fail(SHARDTAB_ERR_ABORTED, "a consequence")
                      : st_fail(SHARDTAB_ERR_NO_MEMORY, "the cause");
    assert_int_equal(shardtab_agree(MPI_COMM_WORLD, local), SHARDTAB_ERR_NO_MEMORY);
    assert_string_equal(shardtab_last_error(), from(1, "the cause"));
    /* among causes (or among consequences) the lowest rank */
    local = st_fail(rank == 0 ? SHARDTAB_ERR_MPI : SHARDTAB_ERR_IPC, "rank %d", rank);
    assert_int_equal(shardtab_agree(MPI_COMM_WORLD, local), SHARDTAB_ERR_MPI);
    assert_string_equal(shardtab_last_error(), from(0, "rank 0"));
    local = st_fail(SHARDTAB_ERR_ABORTED, "stopped %d", rank);
    assert_int_equal(shardtab_agree(MPI_COMM_WORLD, local), SHARDTAB_ERR_ABORTED);
    assert_string_equal(shardtab_last_error(), from(0, "stopped 0"));
}

static void test_agree_within_a_deadline_agrees_the_same(void **state)
{
    (void)state;
    assert_int_equal(shardtab_agree_within(MPI_COMM_WORLD, SHARDTAB_SUCCESS, 30.0),
                     SHARDTAB_SUCCESS);
    shardtab_status_t local =
        rank == size - 1 ? st_fail(SHARDTAB_ERR_VERIFY, "last rank's") : SHARDTAB_SUCCESS;
    assert_int_equal(shardtab_agree_within(MPI_COMM_WORLD, local, 30.0), SHARDTAB_ERR_VERIFY);
    assert_string_equal(shardtab_last_error(), from(size - 1, "last rank's"));
}

static void test_mpi_check_names_the_call_and_mpi_s_words(void **state)
{
    char text[MPI_MAX_ERROR_STRING], want[MPI_MAX_ERROR_STRING + 256];
    int len = 0;
    (void)state;
    assert_int_equal(shardtab_mpi_check(MPI_SUCCESS, "MPI_Barrier"), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mpi_check(MPI_ERR_COMM, "MPI_Barrier of the node"), SHARDTAB_ERR_MPI);
    MPI_Error_string(MPI_ERR_COMM, text, &len);
    snprintf(want, sizeof want, "%sMPI_Barrier of the node failed: %s", who, text);
    assert_string_equal(shardtab_last_error(), want);
}

/* What the cases need known first: the job's size, and who speaks in a message. */
static int know_who_speaks(void **state)
{
    (void)state;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(who, sizeof who, "%s rank %d: ", host, rank);
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_message_starts_with_who_speaks),
        cmocka_unit_test(test_last_error_is_the_process_s_own_per_thread),
        cmocka_unit_test(test_agree_gives_everyone_the_first_failure),
        cmocka_unit_test(test_agree_within_a_deadline_agrees_the_same),
        cmocka_unit_test(test_mpi_check_names_the_call_and_mpi_s_words)};

    return mpi_case_main(&argc, &argv, tests, sizeof tests / sizeof *tests, know_who_speaks, NULL);
}
