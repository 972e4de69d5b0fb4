/* rank_checks.h - what the reliability tests' MPI programs share: a check
 * every rank agrees on (rank 0 prints "ok:" or "FAIL:"), a write to the next
 * rank between barriers, and the line count of a file (/proc/self/maps). CHECK uses the including file's `rank` and
 * `failures` (ints). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_TESTS_RANK_CHECKS_H
#define SHARDTAB_TESTS_RANK_CHECKS_H

#include <mpi.h>
#include <stdio.h>

#include "shardtab.h"

/* Every rank passes cond; the check passes only where it holds on all. */
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    int ok_ = (cond), all_ok_ = 0;                                                                 \
    MPI_Allreduce(&ok_, &all_ok_, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);                            \
    if (rank == 0) {                                                                               \
      printf(all_ok_ ? "ok:   " : "FAIL: ");                                                       \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      fflush(stdout);                                                                              \
    }                                                                                              \
    failures += !all_ok_;                                                                          \
  } while (0)

/* `bytes` of this rank's `mine` written to `peer` (the next rank's shard, as
 * table t gives it) between two barriers of the table: after it every rank's
 * shard holds its previous rank's bytes. */
static inline shardtab_status_t write_next_between_barriers(shardtab_t *t, void *peer,
                                                            const void *mine, size_t bytes)
{
    shardtab_status_t s = shardtab_barrier_on_stream(t, NULL);

    if (s == SHARDTAB_SUCCESS)
        s = shardtab_memcpy_async(peer, mine, bytes, NULL);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_stream_synchronize(NULL);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_barrier_on_stream(t, NULL);
    return s;
}

/* Lines of the file at path, or -1 when it cannot be read. */
static inline long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    long n = 0;
    int c;

    if (f == NULL)
        return -1;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

#endif /* SHARDTAB_TESTS_RANK_CHECKS_H */
