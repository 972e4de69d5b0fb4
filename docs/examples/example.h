/* example.h - what the C examples share: a library call checked, the command
 * line read, and one verdict for every rank. Define EXAMPLE_NAME before
 * including it. Uses the installed public API only (shardtab.h).
 *
 * Exit statuses, the same in every example: 0 verified, 1 a result differs
 * (or a library call failed), 2 bad command-line input. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef EXAMPLE_H
#define EXAMPLE_H

#include <shardtab.h>

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EXAMPLE_NAME
#  error "define EXAMPLE_NAME (the program's name) before including example.h"
#endif

/* A failed library call ends the job on every rank: the library's message
 * names the host, rank, device and call. Collective calls fail on every
 * rank alike; a local one (an allocation) would otherwise leave the others
 * waiting in the next collective. */
static inline void example_abort(const char *call, shardtab_status_t status)
{
    fprintf(stderr, "%s: %s: %s: %s\n", EXAMPLE_NAME, call, shardtab_status_string(status),
            shardtab_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define EXAMPLE_CALL(call)                                                                         \
  do {                                                                                             \
    shardtab_status_t status_ = (call);                                                            \
    if (status_ != SHARDTAB_SUCCESS)                                                               \
      example_abort(#call, status_);                                                               \
  } while (0)

/* ---- the command line: --name VALUE options (integers) and --flag switches ---- */
typedef struct example_option {
    const char *name; /* "--n" */
    long min, max;    /* the values it takes; max 0: a switch, set to 1 when given */
    long *value;      /* holds the default, gets what was given */
} example_option_t;

/* Reads argv into the options. Returns 0, or 2 after rank 0 said why in one
 * line: every rank reads the same argv, so every rank returns the same. */
static inline int example_options(int argc, char **argv, example_option_t *options, int count,
                                  int rank)
{
    for (int a = 1; a < argc; a++) {
        example_option_t *o = NULL;
        for (int k = 0; k < count; k++)
            if (strcmp(argv[a], options[k].name) == 0)
                o = &options[k];
        if (o == NULL) {
            if (rank == 0)
                fprintf(stderr, "%s: unknown option '%s' (see the top of %s.c)\n", EXAMPLE_NAME,
                        argv[a], EXAMPLE_NAME);
            return 2;
        }
        if (o->max == 0) {
            *o->value = 1;
            continue;
        }
        char *end = NULL;
        errno = 0;
        long v = a + 1 < argc ? strtol(argv[a + 1], &end, 10) : 0;
        if (a + 1 >= argc || end == argv[a + 1] || *end != '\0' || errno != 0 || v < o->min ||
            v > o->max) {
            if (rank == 0)
                fprintf(stderr, "%s: %s '%s': expected an integer from %ld to %ld\n", EXAMPLE_NAME,
                        o->name, a + 1 < argc ? argv[a + 1] : "", o->min, o->max);
            return 2;
        }
        *o->value = v;
        a++;
    }
    return 0;
}

/* ---- the start and the host buffer -------------------------------------------- */

/* MPI up, this rank and the job's size known, argv read into the options (as
 * example_options). Returns 0, or 2 after MPI_Finalize: bad input. */
static inline int example_start(int *argc, char ***argv, example_option_t *options, int count,
                                int *rank, int *size)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (example_options(*argc, *argv, options, count, *rank) != 0) {
        MPI_Finalize();
        return 2;
    }
    return 0;
}

/* bytes of host memory; without them the job ends (the other ranks would
 * wait for this one in the next collective) */
static inline void *example_host(size_t bytes)
{
    void *p = malloc(bytes);

    if (p == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    return p;
}

/* ---- the verdict ------------------------------------------------------------ */

/* Collective: the wrong elements of every rank summed; rank 0 prints
 * "<name>: OK <what>" or "<name>: FAILED ...". Returns the exit status. */
static inline int example_verdict(long wrong, const char *what)
{
    long all = 0;
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("%s: OK %s\n", EXAMPLE_NAME, what);
    else if (rank == 0)
        printf("%s: FAILED: %ld wrong values (each rank's first on stderr)\n", EXAMPLE_NAME, all);
    return all == 0 ? 0 : 1;
}

#endif /* EXAMPLE_H */
