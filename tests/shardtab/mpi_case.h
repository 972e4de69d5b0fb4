/* mpi_case.h - what the library's unit tests under mpiexec share (test_error.c,
 * test_fhandle.c, test_runtime.c, test_shardtab.c, test_regions.c): MPI around
 * their cases, this rank and its host, and the checks of a message. Included
 * after cmocka.h. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_MPI_CASE_H
#define ST_MPI_CASE_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "registry.h"

static int rank;
static char host[ST_HOST_NAME_BYTES];

/* MPI up, this rank and host known, no fault and no simulated node asked for. */
static inline void mpi_case_start(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown-host");
    host[sizeof host - 1] = '\0';
    unsetenv("SHARDTAB_FAULT");
    unsetenv("SHARDTAB_RANKS_PER_NODE");
}

/* The cases' failures, MPI down: main's status. */
static inline int mpi_case_end(int failed)
{
    MPI_Finalize();
    return failed;
}

/* main's whole work: MPI up, the `count` cases of `tests` run as one group
 * (group_setup and group_teardown around them, NULL: none), MPI down. Returns
 * main's status: the cases that failed. */
static inline int mpi_case_main(int *argc, char ***argv, const struct CMUnitTest *tests,
                                size_t count, CMFixtureFunction group_setup,
                                CMFixtureFunction group_teardown)
{
    mpi_case_start(argc, argv);
    return mpi_case_end(
        _cmocka_run_group_tests("tests", tests, count, group_setup, group_teardown));
}

/* The message of this thread's last failure, without who speaks before it. */
static inline const char *said(void)
{
    return st_thread_last_error() + st_error_prefix_bytes();
}

/* Every rank holds rank r's message, whole, as the host backend words it:
 * "<host> rank <r>: text" before shardtab_init, "<host> rank <r> (cpu): text" after. */
static inline void expect_agreed(shardtab_status_t got, shardtab_status_t want, int r,
                                 const char *text)
{
    char line[2048];

    assert_int_equal(got, want);
    snprintf(line, sizeof line, "%s rank %d%s: %s", host, r, st_rt.initialized ? " (cpu)" : "",
             text);
    assert_string_equal(shardtab_last_error(), line);
}

/* Nothing of a failed create, or of a destroyed table, is left on this rank. */
static inline void expect_nothing_left(void)
{
    assert_int_equal(st_live_count(), 0);
    assert_int_equal(shardtab_peer_mappings(), 0);
}

#endif /* ST_MPI_CASE_H */
