/* job.h - what the programs' jobs share on every rank: one verdict on the
 * command line for the whole job (every rank parses, all agree, rank 0
 * speaks), the ranks of a node bound to this rank's device, and the result
 * files saved with one fate for every rank. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef APP_JOB_H
#define APP_JOB_H

#include <mpi.h>
#include <stddef.h>

#include "app.h"
#include "shardtab.h"

/* How a program words the verdict, and how its options are compared. */
typedef struct app_options_spec {
    const char *program;   /* "cg" */
    const char *own_error; /* how rank 0's own parse error starts: "cg: error: " */
    const char *parsed;    /* what a rank parses: "its command line" */
    const char *hint;      /* after "every rank must get the same options": "" or " (...)" */
    const struct app_opt_table *table; /* the command line's, for --help */
    /* 1 with "A against B" in text where this rank's options differ from rank
     * 0's; called on every rank, which broadcasts rank 0's options there */
    int (*differ)(const void *opts, int rank, char *text, size_t bytes);
} app_options_spec_t;

/* MPI started, this rank and the job's size, the bounded steps named for
 * the program (bounded.h): every program's first lines. */
void app_job_start(int *argc, char ***argv, const char *program, int *rank, int *size);

/* MPI finalized; returns exit_code, for `return app_job_end(code);`. */
int app_job_end(int exit_code);

/* One verdict for the job from every rank's parse (parsed: opt_table.h's
 * APP_OPT_PARSE_*, err its message): a parse error (the lowest failing
 * rank's; exit 2), --help (rank 0 prints the usage; exit 0), --version
 * (exit 0), options that differ from rank 0's (the lowest such rank's; exit
 * 2), or go on (-1). Rank 0 prints every message. Collective. */
int app_options_agree(const app_options_spec_t *spec, int rank, int parsed, const char *err,
                      const void *opts);

/* The ranks of `node` whose device is this rank's, itself included (0 when
 * the exchange found no memory); *shared: the library says the device is
 * shared. Collective over node. */
int app_device_ranks(MPI_Comm node, int *shared);

/* A teardown that goes on past a failure keeps the first: first where it
 * failed, else next (the status of the step just taken). */
static inline shardtab_status_t app_status_first(shardtab_status_t first, shardtab_status_t next)
{
    return first != SHARDTAB_SUCCESS ? first : next;
}

/* Rank 0 commits its results file and its trace (either may be unopened: f
 * NULL); a file that cannot be saved is said on stderr ("PROGRAM: error:
 * REASON; the results above are not saved") and turns exit status 0 into 1,
 * on every rank. Returns the exit status. Collective. */
int app_outfiles_commit(const char *program, app_outfile_t *results, app_outfile_t *trace,
                        int exit_code);

#endif /* APP_JOB_H */
