/* signal_check.c - the table's node barrier and device-wait timeouts, end to end through the public API only (shardtab.h), under mpiexec.
 *
 * PURPOSE  Each round, every rank copies a round-specific pattern into the next
 *          node rank's shard through its peer mapping, joins
 *          shardtab_barrier_on_stream, and checks that its own shard holds its
 *          predecessor's pattern exactly. A barrier that lets a rank through
 *          before its predecessor's copy is visible shows as a stale or zero
 *          shard. Fault modes check how a wait that runs out is reported.
 * USAGE    mpiexec -n <ranks> ./signal_check [--rounds N] [--slots S]
 *                 [--never-arrive R] [--slots-differ]
 *            --rounds N        rounds (default 500)
 *            --slots S         signal_slots for shardtab_create_with (default 0:
 *                              the library's default)
 *            --never-arrive R  rank R skips the barrier of the middle round and
 *                              stops: its node peers' waits must time out
 *                              (SHARDTAB_WAIT_TIMEOUT), every rank exit 1
 *            --slots-differ    rank 1 passes signal_slots S+1: create must
 *                              refuse it on every rank (exit 2)
 * NOTES    Errors follow multi_scal: statuses pass through shardtab_agree, rank 0
 *          prints one 'signal_check: error: <message>' line, exit 2 for an
 *          invalid argument or environment, 1 for any other failure. Two halves
 *          per shard, by round parity: a writer one barrier ahead of its
 *          successor never overwrites the half that successor is checking.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shardtab.h"

#define SC_WORDS 256 /* ints in each half of a shard */

typedef struct sc_options {
    int rounds;
    int slots;
    int never_arrive; /* -1: everybody arrives */
    int slots_differ;
    int help;
} sc_options_t;

static const char usage_text[] =
    "Usage: signal_check [--rounds N] [--slots S] [--never-arrive R] [--slots-differ]\n"
    "Checks shardtab_barrier_on_stream with a ring of copies between node ranks, and\n"
    "how a device-side wait that times out is reported (SHARDTAB_WAIT_TIMEOUT=S).\n"
    "Exit status: 0 verified, 1 a failure, 2 bad usage.\n";

/* A decimal integer in [lo, hi], nothing else. */
static int parse_int(const char *name, const char *text, int lo, int hi, int *value, char *err,
                     size_t err_bytes)
{
    char *end = NULL;
    long v;

    errno = 0;
    v = text && *text ? strtol(text, &end, 10) : 0;
    if (text == NULL || *text == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi) {
        snprintf(err, err_bytes, "invalid %s '%s': expected an integer from %d to %d", name,
                 text ? text : "", lo, hi);
        return -1;
    }
    *value = (int)v;
    return 0;
}

/* 0, or -1 with a message in err. */
static int sc_options_parse(int argc, char **argv, int size, sc_options_t *o, char *err,
                            size_t err_bytes)
{
    memset(o, 0, sizeof *o);
    o->rounds = 500;
    o->never_arrive = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int takes_value = strcmp(a, "--rounds") == 0 || strcmp(a, "--slots") == 0 ||
                          strcmp(a, "--never-arrive") == 0;
        if (takes_value && i + 1 >= argc) {
            snprintf(err, err_bytes, "option '%s' needs a value", a);
            return -1;
        }
        if (strcmp(a, "--rounds") == 0) {
            if (parse_int("--rounds", argv[++i], 1, 10000000, &o->rounds, err, err_bytes))
                return -1;
        } else if (strcmp(a, "--slots") == 0) {
            /* negative values on purpose: the library must refuse them */
            if (parse_int("--slots", argv[++i], -1, INT_MAX - 1, &o->slots, err, err_bytes))
                return -1;
        } else if (strcmp(a, "--never-arrive") == 0) {
            if (parse_int("--never-arrive", argv[++i], 0, size - 1, &o->never_arrive, err,
                          err_bytes))
                return -1;
        } else if (strcmp(a, "--slots-differ") == 0) {
            o->slots_differ = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = 1;
        } else {
            snprintf(err, err_bytes, "unknown option '%s'", a);
            return -1;
        }
    }
    return 0;
}

/* Never 0 or -1 (a zeroed or 0xff-filled shard), different in every round,
 * writer and element. */
static int pattern(int round, int writer, int i)
{
    uint32_t h =
        (uint32_t)round * 2654435761u ^ (uint32_t)writer * 40503u ^ (uint32_t)i * 2246822519u;
    return (int)(1u + h % 0x3fffffffu);
}

typedef struct sc_ring {
    shardtab_t *table;
    int *shard;      /* mine: 2 * SC_WORDS ints */
    int *successor;  /* the next node rank's shard, as mapped here */
    int predecessor; /* comm rank of the previous node rank: who writes my shard */
    int out[SC_WORDS], in[SC_WORDS];
} sc_ring_t;

/* This rank's half `half` must hold predecessor's pattern of `round`. */
static shardtab_status_t check_half(sc_ring_t *ring, int round, int half)
{
    shardtab_status_t status =
        shardtab_memcpy_async(ring->in, ring->shard + half * SC_WORDS, sizeof ring->in, NULL);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(NULL);
    if (status != SHARDTAB_SUCCESS)
        return status;
    for (int i = 0; i < SC_WORDS; i++) {
        int want = pattern(round, ring->predecessor, i);
        if (ring->in[i] != want)
            return shardtab_error_set(
                SHARDTAB_ERR_VERIFY,
                "round %d: element %d of this rank's shard holds %d, but rank %d wrote %d "
                "before the barrier (%s): the barrier let this rank through too early",
                round, i, ring->in[i], ring->predecessor, want,
                ring->in[i] == 0 || ring->in[i] == -1 ? "never written" : "a stale round");
    }
    return SHARDTAB_SUCCESS;
}

/* The rounds. Returns at the first failure of this rank; a rank that skips a
 * barrier (--never-arrive) stops there with SUCCESS: its peers report. */
static shardtab_status_t run_rounds(sc_ring_t *ring, const sc_options_t *o, int rank)
{
    int skip_round = o->rounds / 2 + 1;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int round = 1; round <= o->rounds && status == SHARDTAB_SUCCESS; round++) {
        int half = round % 2;
        for (int i = 0; i < SC_WORDS; i++)
            ring->out[i] = pattern(round, rank, i);
        status = shardtab_memcpy_async(ring->successor + half * SC_WORDS, ring->out,
                                       sizeof ring->out, NULL);
        if (status == SHARDTAB_SUCCESS && rank == o->never_arrive && round == skip_round)
            return shardtab_stream_synchronize(NULL);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_barrier_on_stream(ring->table, NULL);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(NULL);
        /* a wait that gave up leaves the shard as it was: report that, not the data */
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_signal_check(ring->table);
        if (status == SHARDTAB_SUCCESS)
            status = check_half(ring, round, half);
    }
    return status;
}

static shardtab_status_t set_up(sc_ring_t *ring, const sc_options_t *o, int rank)
{
    shardtab_create_params_t params = {0};
    static const int zeros[2 * SC_WORDS];
    shardtab_status_t status;
    void *base = NULL;
    size_t bytes = 0;
    int next;

    status =
        shardtab_agree(MPI_COMM_WORLD, shardtab_mem_alloc(sizeof zeros, (void **)&ring->shard));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(MPI_COMM_WORLD,
                                shardtab_memcpy_to_device(ring->shard, zeros, sizeof zeros));
    if (status != SHARDTAB_SUCCESS)
        return status;
    params.signal_slots = o->slots + (o->slots_differ && rank == 1);
    status = shardtab_create_with(MPI_COMM_WORLD, ring->shard, sizeof zeros, &params, &ring->table);
    if (status != SHARDTAB_SUCCESS)
        return status;

    /* the ring inside this node: write the next node rank, read the previous */
    int node_rank = shardtab_node_rank(ring->table), node_size = shardtab_node_size(ring->table);
    next = shardtab_member(ring->table, (node_rank + 1) % node_size);
    ring->predecessor = shardtab_member(ring->table, (node_rank + node_size - 1) % node_size);
    status = shardtab_peer(ring->table, next, &base, &bytes);
    if (status == SHARDTAB_SUCCESS && (base == NULL || bytes != sizeof zeros))
        status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                    "shardtab_peer gave rank %d's shard as %p, %zu bytes; "
                                    "expected a mapping of %zu bytes",
                                    next, base, bytes, sizeof zeros);
    ring->successor = base;
    return shardtab_agree(MPI_COMM_WORLD, status);
}

/* Reverse order of set_up; keeps going past a failure, returns the first. Collective. */
static shardtab_status_t release(sc_ring_t *ring)
{
    shardtab_status_t first = SHARDTAB_SUCCESS, s;

    if (ring->table && (s = shardtab_destroy(&ring->table)) != SHARDTAB_SUCCESS)
        first = s;
    if (ring->shard && (s = shardtab_mem_free(ring->shard)) != SHARDTAB_SUCCESS &&
        first == SHARDTAB_SUCCESS)
        first = s;
    return first;
}

static int exit_code_for(shardtab_status_t status)
{
    return status == SHARDTAB_ERR_INVALID_ARG ? 2 : 1;
}

static void say_error(int rank, const char *message)
{
    if (rank == 0) {
        fprintf(stderr, "signal_check: error: %s\n", message);
        fflush(stderr);
    }
}

int main(int argc, char **argv)
{
    static sc_ring_t ring;
    sc_options_t opts;
    shardtab_status_t status, released;
    char err[256];
    int rank, size, exit_code = 0;
    double start, seconds = 0.0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* ---- options: every rank parses the same argv, rank 0 speaks ---- */
    if (sc_options_parse(argc, argv, size, &opts, err, sizeof err) != 0) {
        say_error(rank, err);
        MPI_Finalize();
        return 2;
    }
    if (opts.help) {
        if (rank == 0)
            fputs(usage_text, stdout);
        MPI_Finalize();
        return 0;
    }

    status = shardtab_init(MPI_COMM_WORLD, NULL);
    if (status != SHARDTAB_SUCCESS) {
        say_error(rank, shardtab_last_error());
        MPI_Finalize();
        return exit_code_for(status);
    }

    /* ---- shard, table, rounds ---- */
    status = set_up(&ring, &opts, rank);
    if (status == SHARDTAB_SUCCESS && rank == 0)
        printf("# signals: %d ranks, %d nodes, %d rounds, %d ints a round to the next node "
               "rank%s\n",
               size, shardtab_node_count(ring.table), opts.rounds, SC_WORDS,
               opts.never_arrive >= 0 ? ", one rank never arrives" : "");
    if (status == SHARDTAB_SUCCESS) {
        MPI_Barrier(MPI_COMM_WORLD);
        start = MPI_Wtime();
        status = run_rounds(&ring, &opts, rank);
        seconds = MPI_Wtime() - start;
        /* every rank's verdict; a rank that stopped because another gave up
         * (ABORTED) yields to the rank that timed out */
        status = shardtab_agree(MPI_COMM_WORLD, status);
    }

    /* Teardown failures count too. */
    released = shardtab_agree(MPI_COMM_WORLD, release(&ring));
    if (status == SHARDTAB_SUCCESS)
        status = released;
    if (status == SHARDTAB_SUCCESS) {
        double slowest = 0.0;
        MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("# barrier round: %.1f us (copy, barrier, check; slowest rank)\n",
                   slowest / opts.rounds * 1e6);
            printf("# signals: OK (%d rounds, %d ranks)\n", opts.rounds, size);
        }
    } else {
        say_error(rank, shardtab_last_error());
        exit_code = exit_code_for(status);
    }
    shardtab_finalize();
    MPI_Finalize();
    return exit_code;
}
