/* check_peers.c - multi_scal --check-peers: P2P can be reported and still not
 * work, so write a pattern through the table for every ordered pair of a node's
 * ranks and have the owner verify it, then show the whole matrix at once.
 *
 * Round d = 1 .. L-1: node rank q writes the shard of node rank (q + d) mod L
 * through the table; every owner then checks the pattern of its writer. Every
 * pair is exercised once, and all ranks stay in step through the agreements. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "bounded.h"
#include "check_peers.h"
#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scal.h"
#include "scal_op.h"

enum { PAIR_UNTESTED = 0, PAIR_OK = 1, PAIR_FAILED = 2, PAIR_EMPTY = 3 };

static uint64_t pair_seed(int writer, int owner, int nodes)
{
    return (uint64_t)writer * (uint64_t)nodes + (uint64_t)owner + 1;
}

static const char *outcome_name(int outcome)
{
    return outcome == PAIR_OK ? "ok" : outcome == PAIR_EMPTY ? "empty" : "FAIL";
}

/* Rank 0: every node's matrix from the gathered rows. outcomes[r][w]: what
 * owner r saw from writer w; reported[r][o]: what writer r's runtime said about
 * reaching o; where[r] = (node, node rank, node size). Fills pairs. */
static int print_matrix(const int *outcomes, const int *reported, const int *where, int size,
                        ms_peer_pair_t *pairs, int *npairs)
{
    int failed = 0, count = 0, empty = 0;

    for (int leader = 0; leader < size; leader++) {
        int node = where[3 * leader], nodes = where[3 * leader + 2];
        int *ranks;
        if (where[3 * leader + 1] != 0)
            continue;
        ranks = calloc((size_t)nodes, sizeof *ranks);
        if (ranks == NULL)
            return -1;
        for (int r = 0; r < size; r++)
            if (where[3 * r] == node)
                ranks[where[3 * r + 1]] = r;
        printf("# check-peers node %d: cell = reported access (Y yes, N no, ? unknown) / write "
               "through the table, verified by the owner\n",
               node);
        ms_report_matrix_head(nodes, 8);
        for (int w = 0; w < nodes; w++) {
            printf("#   %-14d", w);
            for (int o = 0; o < nodes; o++) {
                int rep = reported[ranks[w] * size + o], outcome = outcomes[ranks[o] * size + w];
                char cell[16];
                if (w == o) {
                    printf(" %8s", "self");
                    continue;
                }
                snprintf(cell, sizeof cell, "%s/%s",
                         rep == 1   ? "Y"
                         : rep == 0 ? "N"
                                    : "?",
                         outcome_name(outcome));
                printf(" %8s", cell);
                failed += outcome == PAIR_FAILED || outcome == PAIR_UNTESTED;
                empty += outcome == PAIR_EMPTY;
                pairs[count++] = (ms_peer_pair_t){
                    node, w, o, ranks[w], ranks[o], rep, outcome == PAIR_OK, outcome == PAIR_EMPTY};
            }
            printf("\n");
        }
        free(ranks);
    }
    if (failed == 0 && empty == 0)
        printf("# check-peers: OK (%d pairs written and verified through the table)\n", count);
    else if (failed == 0)
        printf("# check-peers: OK (%d pairs written and verified through the table, %d more "
               "with an empty shard, not tested)\n",
               count - empty, empty);
    else
        printf("# check-peers: FAILED (%d of %d pairs)\n", failed, count);
    fflush(stdout);
    *npairs = count;
    return failed;
}

shardtab_status_t ms_check_peers(const ms_check_peers_args_t *a, int *all_ok,
                                 ms_peer_pair_t **pairs_out, int *npairs)
{
    shardtab_t *table = a->table;
    double *const *device_table = (double *const *)shardtab_device_table(table);
    int me = shardtab_node_rank(table), nodes = shardtab_node_size(table);
    int rank, size, rounds = 0, failed = 0, where[3];
    int *row = NULL, *rows = NULL, *wheres = NULL, *reported = NULL, *reported_rows = NULL;
    ms_peer_pair_t *pairs = NULL;
    uint64_t my_length = a->offsets[me + 1] - a->offsets[me];
    shardtab_status_t status = SHARDTAB_SUCCESS;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    row = calloc((size_t)size, sizeof *row);
    reported = calloc((size_t)size, sizeof *reported);
    if (rank == 0) {
        rows = calloc((size_t)size * (size_t)size, sizeof *rows);
        reported_rows = calloc((size_t)size * (size_t)size, sizeof *reported_rows);
        wheres = calloc((size_t)size * 3, sizeof *wheres);
        pairs = calloc((size_t)size * (size_t)size + 1, sizeof *pairs);
    }
    if (row == NULL || reported == NULL ||
        (rank == 0 && (rows == NULL || wheres == NULL || reported_rows == NULL || pairs == NULL)))
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "calloc for the peer matrix failed");
    status =
        app_agree(MPI_COMM_WORLD, status, "the agreement in ms_check_peers() (check_peers.c)", 0);
    /* Nodes may differ in size: every rank runs the rounds of the largest one,
     * so that all ranks enter the same agreements. */
    app_allreduce(&nodes, &rounds, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                  "the allreduce in ms_check_peers() (check_peers.c)");

    for (int d = 1; d < rounds && status == SHARDTAB_SUCCESS; d++) {
        int active = d < nodes;
        int target = (me + d) % nodes, writer = (me - d + nodes) % nodes;
        uint64_t length = a->offsets[target + 1] - a->offsets[target];
        int code =
            active ? scal_fill(device_table, target, length, pair_seed(me, target, nodes)) : 0;

        if (code != 0)
            status = shardtab_error_set(SHARDTAB_ERR_DEVICE,
                                        "kernel scal_fill into node rank %d "
                                        "failed: %s",
                                        target, scal_error_string(code));
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_device_synchronize();
        status =
            app_agree(MPI_COMM_WORLD, status, "the agreement in ms_check_peers() (check_peers.c)",
                      0); /* all writes done */
        if (status != SHARDTAB_SUCCESS)
            break;
        if (active)
            status =
                shardtab_memcpy_to_host(a->staging, a->shard, (size_t)my_length * sizeof(double));
        if (active && status == SHARDTAB_SUCCESS) {
            uint64_t seed = pair_seed(writer, me, nodes), bad = 0;
            for (uint64_t k = 0; k < my_length; k++) {
                double want = scal_pattern(seed, k);
                bad += memcmp(&a->staging[k], &want, sizeof want) != 0;
            }
            row[writer] = my_length == 0 ? PAIR_EMPTY : bad ? PAIR_FAILED : PAIR_OK;
            failed += bad != 0;
        }
        status =
            app_agree(MPI_COMM_WORLD, status, "the agreement in ms_check_peers() (check_peers.c)",
                      0); /* all reads done */
    }
    if (status == SHARDTAB_SUCCESS) {
        where[0] = shardtab_node_id(table);
        where[1] = me;
        where[2] = nodes;
        for (int o = 0; o < nodes; o++)
            reported[o] = shardtab_peer_access(table, me, o);
        app_gather(row, size, MPI_INT, rows, size, MPI_INT, 0, MPI_COMM_WORLD,
                   "the gather in ms_check_peers() (check_peers.c)");
        app_gather(reported, size, MPI_INT, reported_rows, size, MPI_INT, 0, MPI_COMM_WORLD,
                   "the gather in ms_check_peers() (check_peers.c)");
        app_gather(where, 3, MPI_INT, wheres, 3, MPI_INT, 0, MPI_COMM_WORLD,
                   "the gather in ms_check_peers() (check_peers.c)");
        if (rank == 0)
            failed = print_matrix(rows, reported_rows, wheres, size, pairs, npairs);
        if (rank == 0 && failed < 0)
            status =
                shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "calloc for the peer matrix failed");
        status = app_agree(MPI_COMM_WORLD, status,
                           "the agreement in ms_check_peers() (check_peers.c)", 0);
    }
    if (status == SHARDTAB_SUCCESS) {
        app_bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD,
                  "the broadcast in ms_check_peers() (check_peers.c)");
        *all_ok = failed == 0;
        if (rank == 0) {
            *pairs_out = pairs;
            pairs = NULL;
        }
    }
    free(pairs);
    free(row);
    free(rows);
    free(reported);
    free(reported_rows);
    free(wheres);
    return status;
}
