/* job.c - what the programs' jobs share (job.h): the command line agreed by
 * every rank, the ranks that share this rank's device, the files' fate. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "job.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bounded.h"
#include "opt_table.h"
#include "shardtab.h"

/* Rank `from`'s message, on every rank. */
static void say_from(int rank, int from, const char *mine, char *said, const char *step)
{
    if (rank == from)
        snprintf(said, APP_MESSAGE_BYTES, "%s", mine);
    app_bcast(said, APP_MESSAGE_BYTES, MPI_BYTE, from, MPI_COMM_WORLD, step);
}

void app_job_start(int *argc, char ***argv, const char *program, int *rank, int *size)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    app_bound_init(program);
}

int app_job_end(int exit_code)
{
    MPI_Finalize();
    return exit_code;
}

int app_options_agree(const app_options_spec_t *spec, int rank, int parsed, const char *err,
                      const void *opts)
{
    const char *step = "the agreement on the command line";
    int worst = parsed, failing = INT_MAX, first = INT_MAX, mine;
    char said[APP_MESSAGE_BYTES], text[512];

    app_allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, step);
    if (worst == APP_OPT_PARSE_ERROR) {
        /* the lowest rank that could not parse says why */
        mine = parsed == APP_OPT_PARSE_ERROR ? rank : INT_MAX;
        app_allreduce(&mine, &failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, step);
        say_from(rank, failing, err, said, step);
        if (rank == 0 && failing == 0)
            fprintf(stderr, "%s%s\nTry '%s --help' for more information.\n", spec->own_error, said,
                    spec->program);
        else if (rank == 0)
            fprintf(stderr,
                    "%s: error: rank %d could not parse %s, rank 0 could: %s; every rank must get "
                    "the same options\n",
                    spec->program, failing, spec->parsed, said);
        return 2;
    }
    if (worst == APP_OPT_PARSE_HELP) {
        if (rank == 0)
            fputs(app_opt_usage_text(spec->table), stdout);
        return 0;
    }
    if (worst == APP_OPT_PARSE_VERSION) {
        app_say_version(spec->program, rank);
        return 0;
    }
    mine = spec->differ(opts, rank, text, sizeof text) ? rank : INT_MAX;
    app_allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, step);
    if (first == INT_MAX)
        return -1;
    say_from(rank, first, text, said, step);
    if (rank == 0)
        fprintf(stderr,
                "%s: error: rank %d's options differ from rank 0's: %s (the first difference); "
                "every rank must get the same options%s\n",
                spec->program, first, said, spec->hint);
    return 2;
}

int app_device_ranks(MPI_Comm node, int *shared)
{
    shardtab_device_info_t info;
    char *ids;
    int size = 1, count = 0;

    shardtab_device_info(&info);
    *shared = info.shared;
    MPI_Comm_size(node, &size);
    ids = malloc((size_t)size * sizeof info.pci_bus_id);
    if (ids == NULL)
        return 0;
    app_allgather(info.pci_bus_id, (int)sizeof info.pci_bus_id, MPI_CHAR, ids,
                  (int)sizeof info.pci_bus_id, MPI_CHAR, node, "the exchange of device ids");
    for (int r = 0; r < size; r++)
        count += strcmp(ids + (size_t)r * sizeof info.pci_bus_id, info.pci_bus_id) == 0;
    free(ids);
    return count;
}

int app_outfiles_commit(const char *program, app_outfile_t *results, app_outfile_t *trace,
                        int exit_code)
{
    app_outfile_t *files[2] = {results, trace};
    static const char *const what[2] = {"results", "trace"};
    char err[APP_MESSAGE_BYTES];
    int write_failed = 0;

    for (int i = 0; i < 2; i++) {
        if (files[i]->f && app_outfile_commit(files[i], err, sizeof err) != 0) {
            fprintf(stderr, "%s: error: %s; the %s above %s not saved\n", program, err, what[i],
                    i == 0 ? "are" : "is");
            fflush(stderr);
            write_failed = 1;
        }
    }
    app_bcast(&write_failed, 1, MPI_INT, 0, MPI_COMM_WORLD, "the broadcast of the files' fate");
    return write_failed && exit_code == 0 ? 1 : exit_code;
}
