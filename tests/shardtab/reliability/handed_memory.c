/* handed_memory.c - the rules for the memory and the tables a program hands
 * the library, on any backend: an allocation a live table shares cannot be
 * freed (a second table may share it too); a shard off the asked alignment is
 * refused; a destroy of a table that is not live is a local error; ranks that
 * disagree on SHARDTAB_RANKS_PER_NODE fail together instead of hanging; a
 * table made, used and destroyed from another thread works, and its errors
 * are the process's; the error recorder needs no MPI after MPI_Finalize.
 *
 * USAGE  mpiexec -n <2..4> ./handed_memory [--allow-shared-device]
 *        prints ok/FAIL lines, then PASS (--allow-shared-device: ranks may share a GPU)
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_checks.h"
#include "shardtab.h"
#include "shardtab_device.h"

static int rank, size, failures;

static int says(const char *fragment)
{
    return strstr(shardtab_last_error(), fragment) != NULL;
}

/* ---- a table from a second thread ----------------------------------------- */

typedef struct thread_job {
    int ok;
    char why[256];
} thread_job_t;

static void *table_in_a_thread(void *arg)
{
    thread_job_t *job = arg;
    shardtab_create_params_t params = {0};
    shardtab_t *table = NULL;
    uint32_t *shard = NULL, mine[64], back[64];
    shardtab_status_t s;
    void *peer;
    size_t bytes;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    job->ok = 0;
    s = shardtab_mem_alloc(sizeof mine, (void **)&shard);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_create_with(MPI_COMM_WORLD, shard, sizeof mine, &params, &table);
    /* write a pattern into the next rank's shard through the table, barrier, check ours */
    for (int i = 0; i < 64; i++)
        mine[i] = 0x51000000u + (uint32_t)rank * 1000u + (uint32_t)i * 7u;
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_peer(table, next, &peer, &bytes);
    if (s == SHARDTAB_SUCCESS && peer == NULL)
        s = SHARDTAB_ERR_VERIFY, snprintf(job->why, sizeof job->why, "no entry for rank %d", next);
    if (s == SHARDTAB_SUCCESS)
        s = write_next_between_barriers(table, peer, mine, sizeof mine);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_memcpy_async(back, shard, sizeof back, NULL);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_stream_synchronize(NULL);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_signal_check(table);
    s = shardtab_agree(MPI_COMM_WORLD, s);
    if (s == SHARDTAB_SUCCESS) {
        job->ok = 1;
        for (int i = 0; i < 64; i++)
            if (back[i] != 0x51000000u + (uint32_t)prev * 1000u + (uint32_t)i * 7u)
                job->ok = 0;
        if (!job->ok)
            snprintf(job->why, sizeof job->why, "the shard does not hold rank %d's pattern", prev);
    } else {
        snprintf(job->why, sizeof job->why, "%s", shardtab_last_error());
    }
    if (table && shardtab_destroy(&table) != SHARDTAB_SUCCESS)
        job->ok = 0;
    if (shard && shardtab_mem_free(shard) != SHARDTAB_SUCCESS)
        job->ok = 0;
    /* an error met on this thread is the process's */
    (void)shardtab_mem_free((void *)0x1000);
    return NULL;
}

int main(int argc, char **argv)
{
    shardtab_create_params_t params = {0};
    shardtab_t *first = NULL, *second = NULL, *copy;
    char *a = NULL, *b = NULL;
    size_t bytes = 4096;
    shardtab_status_t s;
    int provided = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* --allow-shared-device: ranks may share a GPU (one GPU under MPS) */
    shardtab_init_params_t init = {0};
    init.allow_shared_device = argc > 1 && strcmp(argv[1], "--allow-shared-device") == 0;
    if (shardtab_init(MPI_COMM_WORLD, &init) != SHARDTAB_SUCCESS) {
        if (rank == 0)
            printf("FAIL: shardtab_init: %s\n", shardtab_last_error());
        MPI_Finalize();
        return 1;
    }
    s = shardtab_mem_alloc(bytes, (void **)&a);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_mem_alloc(bytes, (void **)&b);
    s = shardtab_agree(MPI_COMM_WORLD, s);
    CHECK(s == SHARDTAB_SUCCESS, "two allocations of %zu bytes on every rank", bytes);

    /* ---- a live table's memory cannot be freed ---- */
    s = shardtab_create(MPI_COMM_WORLD, a, bytes, &first);
    CHECK(s == SHARDTAB_SUCCESS, "a table on the first allocation");
    s = shardtab_mem_free(a);
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("a live table") &&
              says("shardtab_destroy the table first"),
          "freeing memory a live table shares is refused: '%s'", shardtab_last_error());
    s = shardtab_create(MPI_COMM_WORLD, a + 64, 128, &second);
    CHECK(s == SHARDTAB_SUCCESS && second != NULL,
          "a second live table on the same allocation is fine (many_tables tests it whole)");
    CHECK(shardtab_mem_free(a) == SHARDTAB_ERR_INVALID_ARG, "and the memory stays unfreeable");
    CHECK(second && shardtab_destroy(&second) == SHARDTAB_SUCCESS && second == NULL,
          "it is destroyed");
    s = shardtab_create(MPI_COMM_WORLD, b, bytes, &second);
    CHECK(s == SHARDTAB_SUCCESS, "a second table on another allocation is fine");
    CHECK(second && shardtab_destroy(&second) == SHARDTAB_SUCCESS && second == NULL,
          "and is destroyed");

    /* ---- alignment: both sides of the rule ---- */
    params.alignment = 8;
    s = shardtab_create_with(MPI_COMM_WORLD, b + 4, 64, &params, &second);
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("is not aligned to 8 bytes"),
          "a shard 4 bytes off an 8-byte alignment is refused: '%s'", shardtab_last_error());
    s = shardtab_create_with(MPI_COMM_WORLD, b + 8, 64, &params, &second);
    CHECK(s == SHARDTAB_SUCCESS, "a shard on an 8-byte boundary is accepted");
    if (second)
        shardtab_destroy(&second);
    params.alignment = 12;
    s = shardtab_create_with(MPI_COMM_WORLD, b, 64, &params, &second);
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("not a power of two"),
          "an alignment that is not a power of two is refused");

    /* ---- destroy of a table that is not live: local, no collective ---- */
    copy = first;
    CHECK(shardtab_destroy(&first) == SHARDTAB_SUCCESS && first == NULL,
          "the first table is destroyed");
    CHECK(shardtab_destroy(&first) == SHARDTAB_ERR_INVALID_ARG && says("no table"),
          "destroying it again (NULL) is a local error: '%s'", shardtab_last_error());
    CHECK(shardtab_destroy(&copy) == SHARDTAB_ERR_INVALID_ARG && says("not a live table"),
          "destroying a stale copy of the pointer is a local error: '%s'", shardtab_last_error());
    /* only rank 0 destroys again: nobody else is asked into a collective */
    if (rank == 0)
        s = shardtab_destroy(&first);
    CHECK(rank != 0 || s == SHARDTAB_ERR_INVALID_ARG,
          "one rank alone destroying nothing returns at once");
    CHECK(shardtab_mem_free(a) == SHARDTAB_SUCCESS, "after the destroy the memory can be freed");

    /* ---- ranks that disagree on SHARDTAB_RANKS_PER_NODE fail together ---- */
    if (rank == size - 1)
        setenv("SHARDTAB_RANKS_PER_NODE", "1", 1);
    else
        unsetenv("SHARDTAB_RANKS_PER_NODE");
    s = shardtab_create(MPI_COMM_WORLD, b, bytes, &second);
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && second == NULL && says("differs between the ranks"),
          "SHARDTAB_RANKS_PER_NODE set on one rank only: every rank fails, none hangs: '%s'",
          shardtab_last_error());
    unsetenv("SHARDTAB_RANKS_PER_NODE");

    /* ---- a table from another thread ---- */
    if (provided >= MPI_THREAD_SERIALIZED) {
        thread_job_t job;
        pthread_t worker;
        memset(&job, 0, sizeof job);
        pthread_create(&worker, NULL, table_in_a_thread, &job);
        pthread_join(worker, NULL); /* the main thread makes no MPI call meanwhile */
        CHECK(job.ok,
              "a table created, used (a pattern through the table between two barriers "
              "on the stream) and destroyed from a second thread%s%s",
              job.ok ? "" : ": ", job.why);
        CHECK(says("not an allocation of shardtab_mem_alloc") || says("shardtab_mem_free"),
              "an error recorded on that thread is what shardtab_last_error() says here: '%s'",
              shardtab_last_error());
    } else if (rank == 0) {
        printf("skip: the MPI library gives MPI_THREAD_SERIALIZED no support (level %d)\n",
               provided);
    }

    CHECK(shardtab_mem_free(b) == SHARDTAB_SUCCESS, "the second allocation is freed");
    shardtab_finalize();
    MPI_Finalize();

    /* ---- after MPI_Finalize the recorder must not call MPI ---- */
    (void)shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "recorded after MPI_Finalize");
    if (rank == 0) {
        int ok = strstr(shardtab_last_error(), "recorded after MPI_Finalize") != NULL;
        printf("%s: an error recorded after MPI_Finalize: '%s'\n", ok ? "ok" : "FAIL",
               shardtab_last_error());
        failures += !ok;
        printf("%s: %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
    }
    return failures ? 1 : 0;
}
