/* signal_example.c - the signal API as a user's kernels call it, end to end under mpiexec, on every backend.
 *
 * PURPOSE  Runs the usage example of include/shardtab_device.h (a block writes
 *          into the next rank's shard, signals with shardtab_signal_set_block,
 *          waits with shardtab_signal_wait_block, then every thread checks what
 *          its predecessor wrote), rounds of shardtab_barrier_block, barriers
 *          of shardtab_barrier_on_stream alternating between two streams, and
 *          two barriers of one rank at once, which must be refused by name.
 * USAGE    mpiexec -n <ranks> ./signal_example [--mode example|barrier|streams|concurrent]
 *                 [--rounds N] [--threads T] [--allow-shared-gpu]
 * NOTES    Each round's pattern differs by writer, round and element, and the
 *          shard's two halves alternate by round. Exit 0 verified, 1 a failure,
 *          2 bad usage or a refused barrier (an invalid use); one message, from
 *          rank 0. --mode concurrent: rank 0 joins two barriers at once (two
 *          blocks; two threads on the host backend) while the others arrive
 *          late; every rank must then report the refusal.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check_program.h"
#include "example_round.h"
#include "shardtab.h"
#include "signal_kernels.h"

typedef enum { MODE_EXAMPLE, MODE_BARRIER, MODE_STREAMS, MODE_CONCURRENT } mode_t_;

typedef struct se_options {
    mode_t_ mode;
    int rounds, threads, allow_shared_gpu;
} se_options_t;

static int parse(int argc, char **argv, se_options_t *o, char *err, size_t bytes)
{
    static const char *const modes[] = {"example", "barrier", "streams", "concurrent"};

    o->mode = MODE_EXAMPLE;
    o->rounds = 200;
    o->threads = 256;
    o->allow_shared_gpu = 0;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
            int found = -1;
            i++;
            for (int m = 0; m < 4; m++)
                if (strcmp(argv[i], modes[m]) == 0)
                    found = m;
            if (found < 0) {
                snprintf(err, bytes,
                         "invalid --mode '%s': expected example, barrier, streams or concurrent",
                         argv[i]);
                return -1;
            }
            o->mode = (mode_t_)found;
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            o->rounds = (int)strtol(argv[++i], &end, 10);
            if (*end != '\0' || o->rounds < 1 || o->rounds > 1000000) {
                snprintf(err, bytes, "invalid --rounds '%s': expected 1 to 1000000", argv[i]);
                return -1;
            }
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            o->threads = (int)strtol(argv[++i], &end, 10);
            if (*end != '\0' || o->threads < 1 || o->threads > 1024) {
                snprintf(err, bytes, "invalid --threads '%s': expected 1 to 1024", argv[i]);
                return -1;
            }
        } else if (strcmp(argv[i], "--allow-shared-gpu") == 0) {
            o->allow_shared_gpu = 1;
        } else {
            snprintf(err, bytes, "unknown option '%s'", argv[i]);
            return -1;
        }
    }
    return 0;
}

static shardtab_status_t kernel_check(int code, const char *what)
{
    return code == 0 ? SHARDTAB_SUCCESS
                     : shardtab_error_set(SHARDTAB_ERR_DEVICE, "%s failed: %s", what,
                                          test_error_string(code));
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct se_job {
    shardtab_t *table;
    shardtab_signals_t sig;
    int *shard;                     /* mine: 2 halves of EXAMPLE_WORDS */
    int *const *device_table;       /* the replica kernels index */
    unsigned long long *mismatches; /* device */
    void *streams[2];
    int rank, node_rank, node_size, predecessor;
} se_job_t;

/* One round of the example or of barrier_block: the kernel checks, the host reads its count. */
static shardtab_status_t device_round(se_job_t *j, const se_options_t *o, uint64_t round)
{
    static const unsigned long long zero = 0;
    unsigned long long bad = 0;
    shardtab_status_t status =
        shardtab_memcpy_async(j->mismatches, &zero, sizeof zero, j->streams[0]);
    int rc;

    if (status != SHARDTAB_SUCCESS)
        return status;
    rc = o->mode == MODE_EXAMPLE ? example_round_launch(&j->sig, j->device_table, round, o->threads,
                                                        j->mismatches, j->streams[0])
                                 : barrier_round_launch(&j->sig, j->device_table, round, o->threads,
                                                        j->mismatches, j->streams[0]);
    status = kernel_check(rc, "the round's kernel");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_async(&bad, j->mismatches, sizeof bad, j->streams[0]);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(j->streams[0]);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(j->table);
    if (status == SHARDTAB_SUCCESS && bad != 0)
        status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                    "round %llu: %llu elements of this rank's shard differ from "
                                    "what rank %d wrote before it signalled: the block read too "
                                    "early",
                                    (unsigned long long)round, bad, j->predecessor);
    return status;
}

/* Rounds of copies, each followed by a barrier, alternating between two
 * streams, all enqueued before any wait: two barriers of this rank would run
 * at once (and the second be refused) unless shardtab_barrier_on_stream orders
 * them itself. Then the last two rounds' halves are checked. */
static shardtab_status_t streams_rounds(se_job_t *j, int rounds, int *out, int *in)
{
    const int next = shardtab_member(j->table, (j->node_rank + 1) % j->node_size);
    const int prev = (j->node_rank + j->node_size - 1) % j->node_size;
    void *successor = NULL;
    size_t bytes = 0;
    shardtab_status_t status = shardtab_peer(j->table, next, &successor, &bytes);

    for (int r = 1; r <= rounds && status == SHARDTAB_SUCCESS; r++) {
        void *stream = j->streams[r & 1];
        const int half = (r & 1) * EXAMPLE_WORDS;
        /* the source must live until the copy ran: synchronize before reuse */
        status = shardtab_stream_synchronize(stream);
        for (int i = 0; i < EXAMPLE_WORDS; i++)
            out[(r & 1) * EXAMPLE_WORDS + i] = example_pattern(j->node_rank, (uint64_t)r, i);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_async((int *)successor + half, out + (r & 1) * EXAMPLE_WORDS,
                                           EXAMPLE_WORDS * sizeof *out, stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_barrier_on_stream(j->table, stream);
    }
    /* waits for the last barrier, on whichever stream */
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(j->table);
    for (int r = rounds > 1 ? rounds - 1 : rounds; r <= rounds && status == SHARDTAB_SUCCESS; r++) {
        const int half = (r & 1) * EXAMPLE_WORDS;
        status = shardtab_memcpy_async(in, j->shard + half, EXAMPLE_WORDS * sizeof *in, NULL);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(NULL);
        for (int i = 0; i < EXAMPLE_WORDS && status == SHARDTAB_SUCCESS; i++)
            if (in[i] != example_pattern(prev, (uint64_t)r, i))
                status = shardtab_error_set(
                    SHARDTAB_ERR_VERIFY,
                    "round %d: element %d holds %d, rank %d wrote %d before "
                    "the last barrier",
                    r, i, in[i], j->predecessor, example_pattern(prev, (uint64_t)r, i));
    }
    return status;
}

static shardtab_status_t set_up(se_job_t *j)
{
    static const int zeros[2 * EXAMPLE_WORDS];
    shardtab_create_params_t params = {0};
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int s = 0; s < 2 && status == SHARDTAB_SUCCESS; s++)
        status = kernel_check(test_stream_create(&j->streams[s]), "creating a stream");
    /* peers store into it while this rank's kernels run: coherent memory */
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc_coherent(sizeof zeros, (void **)&j->shard);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(j->shard, zeros, sizeof zeros);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(sizeof *j->mismatches, (void **)&j->mismatches);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS)
        return status;
    params.signal_slots = 1;
    status = shardtab_create_with(MPI_COMM_WORLD, j->shard, sizeof zeros, &params, &j->table);
    if (status != SHARDTAB_SUCCESS)
        return status;
    j->node_rank = shardtab_node_rank(j->table);
    j->node_size = shardtab_node_size(j->table);
    j->predecessor = shardtab_member(j->table, (j->node_rank + j->node_size - 1) % j->node_size);
    j->device_table = (int *const *)shardtab_device_table(j->table);
    return shardtab_agree(MPI_COMM_WORLD, shardtab_signals(j->table, &j->sig));
}

static shardtab_status_t release(se_job_t *j)
{
    shardtab_status_t first = SHARDTAB_SUCCESS, s;

    if (j->table && (s = shardtab_destroy(&j->table)) != SHARDTAB_SUCCESS)
        first = s;
    if ((s = shardtab_mem_free(j->shard)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    if ((s = shardtab_mem_free(j->mismatches)) != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
        first = s;
    for (int i = 0; i < 2; i++)
        test_stream_destroy(j->streams[i]);
    return first;
}

int main(int argc, char **argv)
{
    static const char *const mode_names[] = {"example", "barrier", "streams", "concurrent"};
    se_options_t o;
    se_job_t j;
    char err[256];
    int size, code, *out = NULL, *in = NULL;
    shardtab_status_t status;

    memset(&j, 0, sizeof j);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    code = parse(argc, argv, &o, err, sizeof err) != 0;
    code =
        check_program_start("signal_example", j.rank, code ? err : "", o.allow_shared_gpu, &status);
    if (code >= 0)
        return code;
    if (status == SHARDTAB_SUCCESS)
        status = set_up(&j);
    out = malloc(2 * EXAMPLE_WORDS * sizeof *out);
    in = malloc(EXAMPLE_WORDS * sizeof *in);
    if (status == SHARDTAB_SUCCESS && (!out || !in))
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of two rows failed");
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS && j.rank == 0)
        printf("# signal_example: %s, %d ranks, %d node ranks, %d rounds\n", mode_names[o.mode],
               size, j.node_size, o.mode == MODE_CONCURRENT ? 1 : o.rounds);
    if (status == SHARDTAB_SUCCESS && o.mode == MODE_CONCURRENT) {
        /* rank 0: two barriers at once; the others late, so that both overlap */
        shardtab_status_t mine = SHARDTAB_SUCCESS;
        if (j.rank == 0) {
            mine = kernel_check(concurrent_barriers_launch(&j.sig, 2, j.streams[0]),
                                "two barriers at once");
        } else {
            sleep_ms(500);
            mine = kernel_check(concurrent_barriers_launch(&j.sig, 1, j.streams[0]), "a barrier");
        }
        if (mine == SHARDTAB_SUCCESS)
            mine = shardtab_stream_synchronize(j.streams[0]);
        if (mine == SHARDTAB_SUCCESS)
            mine = shardtab_signal_check(j.table);
        status = shardtab_agree(MPI_COMM_WORLD, mine);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_error_set(
                SHARDTAB_ERR_VERIFY, "two barriers of rank 0 ran at once and neither was refused");
        status = shardtab_agree(MPI_COMM_WORLD, status);
    }
    if (status == SHARDTAB_SUCCESS && o.mode == MODE_STREAMS)
        status = shardtab_agree(MPI_COMM_WORLD, streams_rounds(&j, o.rounds, out, in));
    for (int r = 1; o.mode <= MODE_BARRIER && r <= o.rounds && status == SHARDTAB_SUCCESS; r++) {
        status = shardtab_agree(MPI_COMM_WORLD, device_round(&j, &o, (uint64_t)r));
        /* the halves alternate, so a writer may run one round ahead, not two */
        if (status == SHARDTAB_SUCCESS)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    if (status == SHARDTAB_SUCCESS && j.rank == 0)
        printf("# signal_example: OK (%s, %d rounds, %d ranks)\n", mode_names[o.mode], o.rounds,
               size);
    {
        shardtab_status_t released = release(&j);
        free(out);
        free(in);
        return check_program_end("signal_example", j.rank, status, released);
    }
}
