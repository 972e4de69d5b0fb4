/* comm_check.c - the device-side communication of shardtab_comm.h, end to end under mpiexec, on every backend.
 *
 * PURPOSE  Calls every collective of a few values (all-reduce with sum, min,
 *          max and sum_exact; broadcast from every root; all-gather) for every type (float,
 *          double, int64) and count (0, 1, an odd count, the collective's
 *          whole capacity), many epochs each, so that the ring of deposits
 *          wraps; then two calls in flight at once (split phase) on a second
 *          collective interleaved with barriers; then two collectives and
 *          node barriers from three blocks at once; then puts with signal of 0,
 *          1, 7, 4096 bytes and the whole shard around the ring of node
 *          ranks; then LL puts (shardtab_put_ll_block, _wait_ll_block) of 4 B
 *          to 64 KiB around the ring, a ping to the next rank and its pong
 *          back each round, many rounds with a growing flag, two buffers
 *          each way alternating, every byte compared. sum_exact's inputs
 *          span most exponents and cancel (comm_reference.h), its results
 *          compared with their exact sum rounded once; and an exact dot
 *          product (shardtab_dot_exact_block, its words summed as int64) of
 *          one global array split three ways over the node's ranks, each
 *          split the exact dot's bits. Every value of every result is compared bit for bit with a
 *          plain sequential reduction in node-rank order computed here.
 *          --special: instead, all-reduces min, max and sum_exact of floats and doubles
 *          over special values (NaNs of several payloads and both signs,
 *          infinities, signed zeros, denormals), each value bit for bit
 *          against the rule of shardtab_types.h written apart
 *          (comm_reference.h). --held: every kernel holds its collective
 *          (shardtab_coll_hold_block) for its calls, so that the calls skip
 *          their claims and check themselves against the counts the block
 *          keeps; the same checks and faults.
 * USAGE    mpiexec -n <ranks> ./comm_check [--rounds N] [--values V] [--threads T] [--special]
 *                 [--held] [--fault never|stale|corrupt|count|op|concurrent|third|ll-never|ll-size|
 *                          ll-dst|held-stop|exact-int64]
 *                 [--fault-rank R] [--bench N] [--allow-shared-gpu]
 * NOTES    Inputs differ by rank, epoch and element (a SplitMix64 stream), so a
 *          value read from the wrong rank, epoch or slot shows. A fault is
 *          planted on node rank R (default the last) in the all-reduce stage:
 *          never (it makes no call: the others time out), stale (its deposit
 *          carries an old epoch), corrupt (a value flipped after its checksum),
 *          count / op (it calls with another count or op), exact-int64 (it
 *          calls SHARDTAB_SUM_EXACT of int64: refused by name), concurrent (two of
 *          its blocks enter one collective at once), third (it starts a third
 *          call with two in flight), in the LL stage ll-never (it puts no
 *          ping in one round: the next rank's wait runs out), ll-size (it
 *          calls with 14 bytes, not a multiple of 4: refused) and ll-dst (its
 *          waits' dst 2 bytes off 4-byte alignment: refused); held-stop, first
 *          of all: in a held loop of all-reduces it stops the node after call
 *          3, and every later finish must see it; past-pad, first of all: with
 *          120 more live tables over the shard, every rank calls the
 *          collective at user slot `slots` (one past the last, where the
 *          library's own collective starts) with 2000 values: refused by
 *          name, and every word of the other tables' pads as it was (the call
 *          was taken, and its deposits landed in the next tables' pads). Each must end
 *          every rank with one message (with --rounds 9, the default, at call 15). Exit 0 verified, 1 a failure, 2 bad usage or a refused
 *          call; one message, from rank 0. --bench N then times N
 *          device-side all-reduces of one double back to back in one block
 *          (after N / 10 of warm-up), each call on the device clock, a claim
 *          a call and then held (one claim for the kernel), and prints for
 *          each the median, the 10th and 90th percentiles and the mean; then
 *          each form again with the clock read at each of its steps (the
 *          trace: the median time from a call's start to each step).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check_program.h"
#include "comm_calls.h"
#include "comm_kernels.h"
#include "comm_reference.h"
#include "shardtab.h"

enum {
    FAULT_NONE,
    FAULT_NEVER,
    FAULT_STALE,
    FAULT_CORRUPT,
    FAULT_COUNT,
    FAULT_OP,
    FAULT_CONCURRENT,
    FAULT_THIRD,
    FAULT_LL_NEVER,
    FAULT_LL_SIZE,
    FAULT_LL_DST,
    FAULT_HELD_STOP,
    FAULT_PAST_PAD,
    FAULT_EXACT_INT64,
    FAULT_KINDS
};
static const char *const fault_names[FAULT_KINDS] = {
    "none",  "never",    "stale",   "corrupt", "count",     "op",       "concurrent",
    "third", "ll-never", "ll-size", "ll-dst",  "held-stop", "past-pad", "exact-int64"};

typedef struct cc_options {
    int rounds, values, threads, fault, fault_rank, allow_shared_gpu, bench, special, held;
} cc_options_t;

typedef struct cc_job {
    int rank, size, node_rank, node_size;
    int special; /* --special: the inputs are special values */
    shardtab_t *table;
    shardtab_signals_t sig;
    char *shard;        /* the put target: SHARD_BYTES, coherent */
    uint64_t *in, *out; /* device: the call's values */
    int *status;        /* device: the kernel's SHARDTAB_WAIT_* */
    uint64_t *host_in, *host_out, *want;
    void *stream;
    int slot_a, slot_b, slot_put, slot_dot;
} cc_job_t;

#define SHARD_BYTES (1u << 20)
#define B_VALUES 2

static int parse(int argc, char **argv, cc_options_t *o, char *err, size_t bytes)
{
    o->rounds = 9;
    o->values = 13;
    o->threads = 64;
    o->fault = FAULT_NONE;
    o->fault_rank = -1;
    o->allow_shared_gpu = 0;
    o->bench = 0;
    o->special = 0;
    o->held = 0;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        long v;
        if (strcmp(argv[i], "--allow-shared-gpu") == 0) {
            o->allow_shared_gpu = 1;
            continue;
        }
        if (strcmp(argv[i], "--special") == 0) {
            o->special = 1;
            continue;
        }
        if (strcmp(argv[i], "--held") == 0) {
            o->held = 1;
            continue;
        }
        if (strcmp(argv[i], "--fault") == 0 && i + 1 < argc) {
            int found = -1;
            i++;
            for (int f = 1; f < FAULT_KINDS; f++)
                if (strcmp(argv[i], fault_names[f]) == 0)
                    found = f;
            if (found < 0) {
                snprintf(err, bytes,
                         "invalid --fault '%s': expected never, stale, corrupt, count, "
                         "op, concurrent, third, ll-never, ll-size, ll-dst, held-stop or "
                         "past-pad",
                         argv[i]);
                return -1;
            }
            o->fault = found;
            continue;
        }
        if (i + 1 >= argc ||
            (strcmp(argv[i], "--rounds") != 0 && strcmp(argv[i], "--values") != 0 &&
             strcmp(argv[i], "--threads") != 0 && strcmp(argv[i], "--fault-rank") != 0 &&
             strcmp(argv[i], "--bench") != 0)) {
            snprintf(err, bytes, "unknown option '%s'", argv[i]);
            return -1;
        }
        v = strtol(argv[i + 1], &end, 10);
        if (*argv[i + 1] == '\0' || *end != '\0' || v < 0 || v > 100000) {
            snprintf(err, bytes, "invalid %s '%s': expected an integer from 0 to 100000", argv[i],
                     argv[i + 1]);
            return -1;
        }
        if (strcmp(argv[i], "--rounds") == 0)
            o->rounds = (int)v;
        else if (strcmp(argv[i], "--values") == 0)
            o->values = (int)v;
        else if (strcmp(argv[i], "--threads") == 0)
            o->threads = (int)v;
        else if (strcmp(argv[i], "--bench") == 0)
            o->bench = (int)v;
        else
            o->fault_rank = (int)v;
        i++;
    }
    if (o->rounds < 1 || o->values < 1 || o->values > SHARDTAB_COLL_MAX_VALUES || o->threads < 1 ||
        o->threads > 1024) {
        snprintf(err, bytes,
                 "--rounds and --values must be at least 1 (values at most %d), "
                 "--threads 1 to 1024",
                 SHARDTAB_COLL_MAX_VALUES);
        return -1;
    }
    return 0;
}

/* ---- the inputs, and the plain reference ----------------------------------------- */

/* node rank r's value i of call `epoch`: the SplitMix64 stream, or a special
 * value; an exact sum's, wide values that cancel */
static uint64_t job_input(const cc_job_t *j, int op, int type, int r, uint64_t epoch, int i)
{
    if (j->special)
        return special_input(type, r, epoch, i);
    return op == SHARDTAB_SUM_EXACT ? exact_input(type, r, epoch, i) : input(type, r, epoch, i);
}

/* The result a call must give, as pad words: values (all-gather: n * count). */
static int reference(const cc_job_t *j, const comm_call_t *c, int n, uint64_t epoch, uint64_t *want)
{
    if (c->kind == SHARDTAB_COLL_REDUCE && c->op == SHARDTAB_SUM_EXACT) {
        for (int i = 0; i < c->count; i++) { /* no order: the exact sum, rounded once */
            uint64_t words[64];
            for (int r = 0; r < n && r < 64; r++)
                words[r] = job_input(j, c->op, c->type, r, epoch, i);
            want[i] = reference_exact_sum(c->type, words, n < 64 ? n : 64);
        }
        return c->count;
    }
    if (c->kind == SHARDTAB_COLL_REDUCE) {
        for (int i = 0; i < c->count; i++) {
            uint64_t acc = job_input(j, c->op, c->type, 0, epoch, i);
            for (int r = 1; r < n; r++)
                acc = plain_combine(c->op, c->type, acc, job_input(j, c->op, c->type, r, epoch, i));
            want[i] = acc;
        }
        return c->count;
    }
    if (c->kind == SHARDTAB_COLL_BROADCAST) {
        for (int i = 0; i < c->count; i++)
            want[i] = job_input(j, SHARDTAB_SUM, c->type, c->root, epoch, i);
        return c->count;
    }
    for (int r = 0; r < n; r++)
        for (int i = 0; i < c->count; i++)
            want[r * c->count + i] = job_input(j, SHARDTAB_SUM, c->type, r, epoch, i);
    return n * c->count;
}

/* ---- one call, checked ----------------------------------------------------------- */

static shardtab_status_t kernel_check(int code, const char *what)
{
    return code == 0 ? SHARDTAB_SUCCESS
                     : shardtab_error_set(SHARDTAB_ERR_DEVICE, "%s failed: %s", what,
                                          test_error_string(code));
}

/* The values of a call, as this rank's type: words to the type's array. */
static void to_typed(int type, const uint64_t *words, void *typed, int count)
{
    for (int i = 0; i < count; i++) {
        if (type == SHARDTAB_FLOAT)
            memcpy((float *)typed + i, &words[i], 4);
        else
            memcpy((uint64_t *)typed + i, &words[i], 8);
    }
}

static uint64_t from_typed(int type, const void *typed, int i)
{
    uint64_t w = 0;
    if (type == SHARDTAB_FLOAT)
        memcpy(&w, (const float *)typed + i, 4);
    else
        memcpy(&w, (const uint64_t *)typed + i, 8);
    return w;
}

/* Launches the phases of one call (blocks: 2 for the refused misuse) and
 * waits; the kernel's status is left for the caller to read. */
static shardtab_status_t launch(cc_job_t *j, const cc_options_t *o, const comm_call_t *c,
                                uint64_t epoch, int blocks)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;

    if (c->phases & COMM_START) {
        for (int i = 0; i < c->count; i++)
            j->host_in[i] = job_input(j, c->kind == SHARDTAB_COLL_REDUCE ? c->op : SHARDTAB_SUM,
                                      c->type, j->node_rank, epoch, i);
        to_typed(c->type, j->host_in, j->host_out, c->count);
        status = shardtab_memcpy_async(j->in, j->host_out, (size_t)(c->count ? c->count : 1) * 8,
                                       j->stream);
    }
    if (status == SHARDTAB_SUCCESS)
        status = kernel_check(
            comm_call_launch(&j->sig, c, j->in, j->out, j->status, o->threads, blocks, j->stream),
            "the collective's kernel");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(j->stream);
    return status;
}

/* After a finish: the kernel's status (a refusal: what the pad says), then
 * every value against the reference. */
static shardtab_status_t verify(cc_job_t *j, const comm_call_t *c, uint64_t epoch, const char *what)
{
    int kernel_status = 0;
    shardtab_status_t status =
        shardtab_memcpy_to_host(&kernel_status, j->status, sizeof kernel_status);
    const int n = j->node_size;
    int len = 0;

    if (status == SHARDTAB_SUCCESS && kernel_status != SHARDTAB_WAIT_OK) {
        status = shardtab_signal_check(j->table);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                        "%s: the kernel returned %d and the pad records nothing",
                                        what, kernel_status);
        return status;
    }
    if (status != SHARDTAB_SUCCESS)
        return status;
    len = reference(j, c, n, epoch, j->want);
    if (len > 0)
        status = shardtab_memcpy_to_host(j->host_out, j->out, (size_t)len * 8);
    for (int i = 0; i < len && status == SHARDTAB_SUCCESS; i++) {
        uint64_t got = from_typed(c->type, j->host_out, i);
        if (got != j->want[i])
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                        "%s, call %llu: value %d is 0x%016llx, the plain reduction "
                                        "in node-rank order gives 0x%016llx",
                                        what, (unsigned long long)epoch, i, (unsigned long long)got,
                                        (unsigned long long)j->want[i]);
    }
    return status;
}

static shardtab_status_t zero_status(cc_job_t *j)
{
    static const int zero = 0;
    return shardtab_memcpy_to_device(j->status, &zero, sizeof zero);
}

/* A launch (its runtime code) waited for; *kernel_status the kernel's
 * SHARDTAB_WAIT_* status, and a refusal reported as the pad records it
 * (SHARDTAB_SUCCESS where the pad records nothing: the caller says so). */
static shardtab_status_t kernel_ended(cc_job_t *j, int code, const char *what, int *kernel_status)
{
    shardtab_status_t status = kernel_check(code, what);

    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(j->stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_host(kernel_status, j->status, sizeof *kernel_status);
    if (status == SHARDTAB_SUCCESS && *kernel_status != SHARDTAB_WAIT_OK)
        status = shardtab_signal_check(j->table);
    return status;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- the stages -------------------------------------------------------------------- */

/* The call a fault is planted in: an all-reduce sum of one float (the second
 * count), after the ring of deposits has wrapped (--rounds 9: call 15). */
static uint64_t fault_epoch(const cc_options_t *o)
{
    return (uint64_t)o->rounds + (uint64_t)(o->rounds < 6 ? o->rounds : 6);
}

/* A call of `kind` (SHARDTAB_COLL_*) on the collective at slot, of `values`
 * values: op, type and count; both phases, rooted at 0, nothing planted. */
static comm_call_t call_of(const cc_options_t *o, int slot, int values, int kind, int op, int type,
                           int count)
{
    /* in comm_calls.h's order: slot, values, kind, op, type, root, count, phases, held */
    return (comm_call_t){slot, values, kind, op, type, 0, count, COMM_BOTH, o->held, {0}};
}

/* Call c of epoch `epoch` in `blocks` blocks, from zeroed statuses to its
 * check (`what` names it), agreed on every rank and counted in *calls. */
static shardtab_status_t call_checked(cc_job_t *j, const cc_options_t *o, const comm_call_t *c,
                                      uint64_t epoch, int blocks, const char *what, int *calls)
{
    shardtab_status_t status = zero_status(j);

    if (status == SHARDTAB_SUCCESS)
        status = launch(j, o, c, epoch, blocks);
    if (status == SHARDTAB_SUCCESS)
        status = verify(j, c, epoch, what);
    (*calls)++;
    return shardtab_agree(MPI_COMM_WORLD, status);
}

/* Every kind, op, type and count on collective A, the fault if any planted. */
static shardtab_status_t every_call(cc_job_t *j, const cc_options_t *o, int *calls)
{
    static const char *const type_names[] = {"float", "double", "int64"};
    const int counts[4] = {0, 1, 7, o->values};
    const int faulty = o->fault != FAULT_NONE && j->node_rank == o->fault_rank;
    uint64_t epoch = 0;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    /* 3 reduce ops, bcast, gather, then the exact sum (floats and doubles) */
    for (int kind = 0; kind < 6 && status == SHARDTAB_SUCCESS; kind++)
        for (int type = 0; type < SHARDTAB_TYPE_COUNT && status == SHARDTAB_SUCCESS; type++)
            for (int ci = 0; ci < 4 && status == SHARDTAB_SUCCESS; ci++)
                for (int round = 0; round < o->rounds && status == SHARDTAB_SUCCESS; round++) {
                    if (kind == 5 && type == SHARDTAB_INT64)
                        continue; /* refused: an int64 sum is exact already */
                    comm_call_t c = call_of(o, j->slot_a, o->values,
                                            kind < 3 || kind == 5 ? SHARDTAB_COLL_REDUCE
                                            : kind == 3           ? SHARDTAB_COLL_BROADCAST
                                                                  : SHARDTAB_COLL_GATHER,
                                            kind < 3    ? kind
                                            : kind == 5 ? SHARDTAB_SUM_EXACT
                                                        : SHARDTAB_SUM,
                                            type, counts[ci]);
                    char what[128];
                    c.root = kind == 3 ? round % j->node_size : 0;
                    epoch++;
                    snprintf(what, sizeof what, "%s of %d %s values%s",
                             kind < 3    ? (kind == 0   ? "all-reduce sum"
                                            : kind == 1 ? "all-reduce min"
                                                        : "all-reduce max")
                             : kind == 3 ? "broadcast"
                             : kind == 4 ? "all-gather"
                                         : "all-reduce sum_exact",
                             c.count, type_names[type],
                             kind == 3 ? " (root: round % node size)" : "");
                    int blocks = 1;
                    if (epoch == fault_epoch(o) && o->fault != FAULT_NONE &&
                        o->fault != FAULT_THIRD) {
                        if (faulty && o->fault == FAULT_NEVER) {
                            /* no call: the others' waits must give up */
                            status = shardtab_agree(MPI_COMM_WORLD, SHARDTAB_SUCCESS);
                            (*calls)++;
                            continue;
                        }
                        if (faulty && o->fault == FAULT_STALE)
                            c.plant = (comm_plant_t){COMM_PLANT_STALE, j->node_rank, 0, 0};
                        if (faulty && o->fault == FAULT_CORRUPT)
                            c.plant = (comm_plant_t){COMM_PLANT_CORRUPT, j->node_rank, 0, 0};
                        if (faulty && o->fault == FAULT_COUNT)
                            c.count = c.count > 0 ? c.count - 1 : 1;
                        if (faulty && o->fault == FAULT_OP)
                            c.op = SHARDTAB_MAX;
                        if (faulty && o->fault == FAULT_EXACT_INT64) {
                            c.op = SHARDTAB_SUM_EXACT; /* refused: an int64 sum is exact */
                            c.type = SHARDTAB_INT64;
                        }
                        if (o->fault == FAULT_CONCURRENT) {
                            if (faulty)
                                blocks = 2;
                            else
                                sleep_ms(300); /* the two blocks of the faulty rank overlap */
                        }
                    }
                    c.plant.epoch = epoch; /* the collective's epoch is its count of calls */
                    status = call_checked(j, o, &c, epoch, blocks, what, calls);
                }
    return status;
}

/* --special: all-reduces min, max and sum_exact of floats and doubles over
 * special values on collective A, --rounds calls of each at every count. */
static shardtab_status_t special_calls(cc_job_t *j, const cc_options_t *o, int *calls)
{
    static const char *const type_names[] = {"float", "double"};
    const int counts[3] = {1, 7, o->values};
    uint64_t epoch = 0;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int op = SHARDTAB_MIN; op <= SHARDTAB_SUM_EXACT && status == SHARDTAB_SUCCESS; op++)
        for (int type = 0; type < SHARDTAB_INT64 && status == SHARDTAB_SUCCESS; type++)
            for (int ci = 0; ci < 3 && status == SHARDTAB_SUCCESS; ci++)
                for (int round = 0; round < o->rounds && status == SHARDTAB_SUCCESS; round++) {
                    comm_call_t c = call_of(o, j->slot_a, o->values, SHARDTAB_COLL_REDUCE, op, type,
                                            counts[ci]);
                    char what[128];
                    c.plant.epoch = ++epoch;
                    snprintf(what, sizeof what, "all-reduce %s of %d special %s values",
                             op == SHARDTAB_MIN   ? "min"
                             : op == SHARDTAB_MAX ? "max"
                                                  : "sum_exact",
                             c.count, type_names[type]);
                    status = call_checked(j, o, &c, epoch, 1, what, calls);
                }
    return status;
}

/* Two calls in flight on collective B (start, start, finish, finish), with a
 * barrier of the table between them and collective A's calls untouched. The
 * fault "third" starts a third. */
static shardtab_status_t split_phase(cc_job_t *j, const cc_options_t *o, uint64_t *epoch_b)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int round = 0; round < o->rounds && status == SHARDTAB_SUCCESS; round++) {
        comm_call_t c = call_of(o, j->slot_b, B_VALUES, SHARDTAB_COLL_REDUCE, SHARDTAB_SUM,
                                SHARDTAB_DOUBLE, B_VALUES);
        uint64_t first = *epoch_b + 1;
        status = zero_status(j);
        for (int k = 0; k < 2 && status == SHARDTAB_SUCCESS; k++) {
            c.phases = COMM_START;
            status = launch(j, o, &c, first + (uint64_t)k, 1);
            if (status == SHARDTAB_SUCCESS)
                status = shardtab_barrier_on_stream(j->table, j->stream);
        }
        if (status == SHARDTAB_SUCCESS && o->fault == FAULT_THIRD &&
            j->node_rank == o->fault_rank && round == 1) {
            c.phases = COMM_START;
            status = launch(j, o, &c, first + 2, 1);
        }
        for (int k = 0; k < 2 && status == SHARDTAB_SUCCESS; k++) {
            c.phases = COMM_FINISH;
            status = launch(j, o, &c, first + (uint64_t)k, 1);
            if (status == SHARDTAB_SUCCESS)
                status =
                    verify(j, &c, first + (uint64_t)k, "split-phase all-reduce, two in flight");
        }
        *epoch_b += 2;
        status = shardtab_agree(MPI_COMM_WORLD, status);
    }
    return status;
}

/* Collectives A and B and node barriers, each from its own block, at once;
 * every result checked. */
static shardtab_status_t concurrent(cc_job_t *j, const cc_options_t *o)
{
    const int rounds = 50 * o->rounds;
    double *in = NULL, *out = NULL, *host = malloc((size_t)rounds * 2 * sizeof *host);
    shardtab_status_t status =
        host ? SHARDTAB_SUCCESS : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc failed");
    int kernel_status = 0;

    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)rounds * 2 * sizeof *in, (void **)&in);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)rounds * 2 * sizeof *out, (void **)&out);
    for (int k = 0; k < 2 * rounds && status == SHARDTAB_SUCCESS; k++) {
        uint64_t w = input(SHARDTAB_DOUBLE, j->node_rank, 7000, k);
        memcpy(&host[k], &w, sizeof w);
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(in, host, (size_t)rounds * 2 * sizeof *host);
    if (status == SHARDTAB_SUCCESS)
        status = zero_status(j);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS)
        status =
            kernel_ended(j,
                         comm_concurrent_launch(&j->sig, j->slot_a, o->values, j->slot_b, rounds,
                                                o->held, in, out, j->status, j->stream),
                         "the concurrent kernel", &kernel_status);
    if (status == SHARDTAB_SUCCESS && kernel_status != SHARDTAB_WAIT_OK)
        status = shardtab_error_set(SHARDTAB_ERR_VERIFY, "concurrent: the kernel returned %d",
                                    kernel_status);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_host(host, out, (size_t)rounds * 2 * sizeof *host);
    for (int k = 0; k < 2 * rounds && status == SHARDTAB_SUCCESS; k++) {
        uint64_t want = input(SHARDTAB_DOUBLE, 0, 7000, k), got;
        for (int r = 1; r < j->node_size; r++)
            want = plain_combine(SHARDTAB_SUM, SHARDTAB_DOUBLE, want,
                                 input(SHARDTAB_DOUBLE, r, 7000, k));
        memcpy(&got, &host[k], sizeof got);
        if (got != want)
            status =
                shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                   "concurrent: collective %c, round %d: 0x%016llx, the plain sum "
                                   "in node-rank order is 0x%016llx",
                                   k < rounds ? 'A' : 'B', k % rounds, (unsigned long long)got,
                                   (unsigned long long)want);
    }
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (in)
        (void)shardtab_mem_free(in);
    if (out)
        (void)shardtab_mem_free(out);
    free(host);
    return status;
}

/* Puts with signal around the ring: each rank into its successor's shard,
 * the halves alternating by round; the successor waits and checks every byte. */
static shardtab_status_t ring_puts(cc_job_t *j, const cc_options_t *o, int *count)
{
    const size_t sizes[5] = {0, 1, 7, 4096, SHARD_BYTES / 2};
    const int next = (j->node_rank + 1) % j->node_size,
              prev = (j->node_rank + j->node_size - 1) % j->node_size;
    unsigned char *src = NULL, *got = NULL, *dev_src = NULL;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    uint64_t round = 0;

    src = malloc(SHARD_BYTES / 2);
    got = malloc(SHARD_BYTES / 2);
    if (src == NULL || got == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the put buffers failed");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(SHARD_BYTES / 2, (void **)&dev_src);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    for (int si = 0; si < 5 && status == SHARDTAB_SUCCESS; si++)
        for (int r = 0; r < 2 && status == SHARDTAB_SUCCESS; r++) {
            const size_t bytes = sizes[si], half = (size_t)(round & 1) * (SHARD_BYTES / 2);
            round++;
            for (size_t b = 0; b < bytes; b++)
                src[b] = (unsigned char)splitmix((uint64_t)j->node_rank << 40 ^ round << 32 ^ b);
            if (bytes)
                status = shardtab_memcpy_to_device(dev_src, src, bytes);
            if (status == SHARDTAB_SUCCESS)
                status = zero_status(j);
            if (status == SHARDTAB_SUCCESS)
                status = kernel_check(comm_put_launch(&j->sig, shardtab_device_table(j->table),
                                                      next, half, dev_src, bytes, j->slot_put,
                                                      round, j->status, o->threads, j->stream),
                                      "the put kernel");
            if (status == SHARDTAB_SUCCESS)
                status = shardtab_stream_synchronize(j->stream);
            if (status == SHARDTAB_SUCCESS)
                status = verify(j, &(comm_call_t){0}, 0, "put with signal");
            if (status == SHARDTAB_SUCCESS && bytes)
                status = shardtab_memcpy_to_host(got, j->shard + half, bytes);
            for (size_t b = 0; b < bytes && status == SHARDTAB_SUCCESS; b++) {
                unsigned char want =
                    (unsigned char)splitmix((uint64_t)prev << 40 ^ round << 32 ^ b);
                if (got[b] != want)
                    status =
                        shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                           "put of %zu bytes, round %llu: byte %zu is 0x%02x, "
                                           "node rank %d put 0x%02x",
                                           bytes, (unsigned long long)round, b, got[b], prev, want);
            }
            status = shardtab_agree(MPI_COMM_WORLD, status);
            (*count)++;
        }
    free(src);
    free(got);
    if (dev_src)
        (void)shardtab_mem_free(dev_src);
    return status;
}

/* LL message byte b of node rank r's ping (kind 0) or pong (1) with flag f */
static unsigned char ll_byte(int r, int kind, uint32_t f, size_t b)
{
    return (unsigned char)splitmix((uint64_t)r << 56 ^ (uint64_t)kind << 52 ^ (uint64_t)f << 20 ^
                                   (uint64_t)b);
}

#define LL_MOST ((size_t)64 << 10) /* the largest LL message */

/* LL puts around the ring (comm_ll_block): for each size, a launch of
 * `rounds` rounds, each a ping to the next rank and a pong back from it, the
 * flag growing by one a round from 1 over the whole stage (the buffers zeroed
 * once, by the first launch); every byte each rank got compared with what
 * its neighbours put. --fault ll-never / ll-size plant theirs at 12 bytes. */
static shardtab_status_t ll_puts(cc_job_t *j, const cc_options_t *o, int *count)
{
    const size_t sizes[7] = {4, 8, 12, 60, 1024, 4096, LL_MOST};
    const int next = (j->node_rank + 1) % j->node_size,
              prev = (j->node_rank + j->node_size - 1) % j->node_size;
    const int faulty = j->node_rank == o->fault_rank;
    const size_t most_rows = 8 * 2 * LL_MOST; /* rounds x (ping, pong) x bytes, at most */
    unsigned char *src = malloc(most_rows), *got = malloc(most_rows);
    unsigned char *dev_src = NULL, *dev_dst = NULL;
    shardtab_status_t status =
        src && got ? SHARDTAB_SUCCESS
                   : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the LL buffers failed");
    uint32_t flag = 1;

    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(most_rows, (void **)&dev_src);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(most_rows, (void **)&dev_dst);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    for (int si = 0; si < 7 && status == SHARDTAB_SUCCESS; si++) {
        comm_ll_t ll;
        const size_t bytes = sizes[si];
        memset(&ll, 0, sizeof ll);
        for (int b = 0; b < 2; b++) {
            ll.ping[b] = (size_t)b * 2 * LL_MOST;
            ll.pong[b] = (size_t)(2 + b) * 2 * LL_MOST;
        }
        ll.bytes = bytes;
        ll.clear = si == 0 ? LL_MOST : 0;
        ll.rounds = bytes < 4096 ? 32 : 8;
        ll.flag = flag;
        ll.skip = -1;
        if (si == 2 && faulty && o->fault == FAULT_LL_NEVER)
            ll.skip = 3;
        if (si == 2 && faulty && o->fault == FAULT_LL_SIZE)
            ll.bytes = bytes + 2;
        if (si == 2 && faulty && o->fault == FAULT_LL_DST)
            ll.dst_shift = 2;
        const size_t rows = (size_t)ll.rounds * 2 * ll.bytes;
        for (int r = 0; r < ll.rounds; r++)
            for (int kind = 0; kind < 2; kind++)
                for (size_t b = 0; b < ll.bytes; b++)
                    src[((size_t)r * 2 + (size_t)kind) * ll.bytes + b] =
                        ll_byte(j->node_rank, kind, flag + (uint32_t)r, b);
        memset(got, 0x5a, rows); /* what dst holds before: no byte of it may be left */
        status = shardtab_memcpy_to_device(dev_src, src, rows);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_device(dev_dst, got, rows);
        if (status == SHARDTAB_SUCCESS)
            status = zero_status(j);
        if (status == SHARDTAB_SUCCESS)
            status =
                kernel_check(comm_ll_launch(&j->sig, shardtab_device_table(j->table), &ll, dev_src,
                                            dev_dst, j->status, o->threads, j->stream),
                             "the LL kernel");
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(j->stream);
        if (status == SHARDTAB_SUCCESS)
            status = verify(j, &(comm_call_t){0}, 0, "LL puts");
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_host(got, dev_dst, rows);
        for (int r = 0; r < ll.rounds && status == SHARDTAB_SUCCESS; r++)
            for (int kind = 0; kind < 2 && status == SHARDTAB_SUCCESS; kind++)
                for (size_t b = 0; b < bytes && status == SHARDTAB_SUCCESS; b++) {
                    const int from = kind == 0 ? prev : next;
                    const unsigned char want = ll_byte(from, kind, flag + (uint32_t)r, b),
                                        have = got[((size_t)r * 2 + (size_t)kind) * bytes + b];
                    if (have != want)
                        status = shardtab_error_set(
                            SHARDTAB_ERR_VERIFY,
                            "LL %s of %zu bytes, round %d (flag %u): byte %zu is 0x%02x, node "
                            "rank %d put 0x%02x",
                            kind == 0 ? "ping" : "pong", bytes, r, flag + (unsigned)r, b, have,
                            from, want);
                }
        status = shardtab_agree(MPI_COMM_WORLD, status);
        flag += (uint32_t)ll.rounds;
        *count += ll.rounds;
    }
    free(src);
    free(got);
    if (dev_src)
        (void)shardtab_mem_free(dev_src);
    if (dev_dst)
        (void)shardtab_mem_free(dev_dst);
    return status;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median of n ticks (sorted in place), in us. */
static double median_us(uint64_t *t, int n, double us)
{
    qsort(t, (size_t)n, sizeof *t, compare_u64);
    return (double)t[n / 2] * us;
}

/* The device-side 8-byte all-reduce, back to back in one kernel (collective B):
 * a claim a call, then held (one claim for the kernel), each after a warm-up
 * launch; then each form again with every step traced (its clock read at
 * each SHARDTAB_TRACE_* point: a few reads more a call, so its own run). */
static shardtab_status_t bench(cc_job_t *j, const cc_options_t *o)
{
    const int warm = o->bench / 10 > 0 ? o->bench / 10 : 1, n = o->bench;
    const size_t rows = 2 + SHARDTAB_DETAIL_TRACE_POINTS;
    uint64_t *ticks = NULL, *host = malloc((size_t)n * rows * sizeof *host);
    double *sums = malloc((size_t)(n + 1) * sizeof *sums), *value = NULL;
    shardtab_status_t status =
        host && sums ? SHARDTAB_SUCCESS
                     : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the timings failed");
    static const char *const step_names[SHARDTAB_DETAIL_TRACE_POINTS] = {
        "start claimed", "start stored", "finish entered", "loaded", "agreed", "done"};
    int kernel_status = 0;

    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)n * rows * sizeof *ticks, (void **)&ticks);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc((size_t)(n + 1) * sizeof *value, (void **)&value);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    for (int pass = 0; pass < 6 && status == SHARDTAB_SUCCESS; pass++) {
        /* warm, claim a call; warm, held; traced claim a call; traced held */
        const int timed = pass % 2 == 1 || pass >= 4, trace = pass >= 4;
        const int iters = timed ? n : warm, held = pass >= 4 ? pass == 5 : pass >= 2;
        const double mine = 0.25 + j->node_rank; /* the sum, exact: 0.25 n + n (n - 1) / 2 */
        status = shardtab_memcpy_to_device(value, &mine, sizeof mine);
        if (status == SHARDTAB_SUCCESS)
            status = zero_status(j);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_agree(MPI_COMM_WORLD, status); /* every rank ready: launch together */
        if (status == SHARDTAB_SUCCESS)
            status = kernel_ended(j,
                                  comm_bench_launch(&j->sig, j->slot_b, iters, held, trace, value,
                                                    ticks, j->status, 32, j->stream),
                                  "the benchmark kernel", &kernel_status);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_host(sums, value, (size_t)(iters + 1) * sizeof *sums);
        double want = 0.0;
        for (int r = 0; r < j->node_size; r++)
            want += 0.25 + r;
        for (int i = 0; i < iters && status == SHARDTAB_SUCCESS; i++)
            if (sums[1 + i] != want)
                status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                            "benchmark: all-reduce %d gave %.17g, not %.17g", i,
                                            sums[1 + i], want);
        status = shardtab_agree(MPI_COMM_WORLD, status);
        if (status == SHARDTAB_SUCCESS && timed)
            status =
                shardtab_memcpy_to_host(host, ticks, (size_t)n * (trace ? rows : 2) * sizeof *host);
        if (status != SHARDTAB_SUCCESS || !timed)
            continue;
        const double us = 1e6 / comm_clock_hz();
        const char *form = held ? "held" : "a claim a call";
        if (!trace) {
            double mean = 0.0;
            for (int i = 0; i < n; i++)
                mean += (double)host[i];
            mean /= n;
            qsort(host, (size_t)n, sizeof *host, compare_u64);
            printf("# comm_check bench: rank %d: device all-reduce of 8 B, %s, %d ranks, %d calls: "
                   "median %.3f us, p10 %.3f, p90 %.3f, mean %.3f; its start (the deposit) alone: "
                   "median %.3f us\n",
                   j->rank, form, j->node_size, n, (double)host[n / 2] * us,
                   (double)host[n / 10] * us, (double)host[(n * 9) / 10] * us, mean * us,
                   median_us(host + n, n, us));
        } else {
            printf("# comm_check trace: rank %d: %s, %d ranks, traced: the whole call %.3f us; "
                   "from its start, medians:",
                   j->rank, form, j->node_size, median_us(host, n, us));
            for (int p = 0; p < SHARDTAB_DETAIL_TRACE_POINTS; p++) {
                uint64_t *at = host + (size_t)(2 + p) * n;
                if (at[0] != 0 || at[n - 1] != 0)
                    printf(" %s %.3f%s", step_names[p], median_us(at, n, us),
                           p + 1 < SHARDTAB_DETAIL_TRACE_POINTS ? "," : "");
            }
            printf("\n");
        }
        fflush(stdout);
    }
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (ticks)
        (void)shardtab_mem_free(ticks);
    if (value)
        (void)shardtab_mem_free(value);
    free(host);
    free(sums);
    return status;
}

/* ---- set-up ---------------------------------------------------------------------- */

static shardtab_status_t set_up(cc_job_t *j, const cc_options_t *o)
{
    shardtab_create_params_t params = {0};
    shardtab_status_t status;
    int node_size_guess;
    void *zeros = calloc(1, SHARD_BYTES);
    const size_t words = (size_t)o->values * 8 + 64;

    status = zeros
                 ? SHARDTAB_SUCCESS
                 : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "calloc of the shard's zeros failed");
    if (status == SHARDTAB_SUCCESS)
        status = kernel_check(test_stream_create(&j->stream), "creating a stream");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc_coherent(SHARD_BYTES, (void **)&j->shard);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(j->shard, zeros, SHARD_BYTES);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(words * 8, (void **)&j->in);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(words * 8, (void **)&j->out);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(sizeof(int), (void **)&j->status);
    j->host_in = malloc(words * 8);
    j->host_out = malloc(words * 8);
    j->want = malloc(words * 8);
    if (status == SHARDTAB_SUCCESS && (!j->host_in || !j->host_out || !j->want))
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the value buffers failed");
    free(zeros);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS)
        return status;
    /* the node's size decides the slots: learn it from a first table */
    status = shardtab_create(MPI_COMM_WORLD, j->shard, SHARD_BYTES, &j->table);
    if (status != SHARDTAB_SUCCESS)
        return status;
    node_size_guess = shardtab_node_size(j->table);
    status = shardtab_destroy(&j->table);
    if (status != SHARDTAB_SUCCESS)
        return status;
    /* A fills the pad's first slots; B and the put's signal follow */
    j->slot_a = 0;
    j->slot_b = SHARDTAB_COLL_SLOTS(node_size_guess, o->values);
    j->slot_put = j->slot_b + SHARDTAB_COLL_SLOTS(node_size_guess, B_VALUES);
    j->slot_dot = j->slot_put + 1;
    params.signal_slots = j->slot_dot + SHARDTAB_COLL_SLOTS(node_size_guess, SHARDTAB_EXACT_WORDS);
    params.stream = j->stream;
    status = shardtab_create_with(MPI_COMM_WORLD, j->shard, SHARD_BYTES, &params, &j->table);
    if (status != SHARDTAB_SUCCESS)
        return status;
    j->node_rank = shardtab_node_rank(j->table);
    j->node_size = shardtab_node_size(j->table);
    return shardtab_agree(MPI_COMM_WORLD, shardtab_signals(j->table, &j->sig));
}

static shardtab_status_t release(cc_job_t *j)
{
    shardtab_status_t first = SHARDTAB_SUCCESS, s;

    if (j->table && (s = shardtab_destroy(&j->table)) != SHARDTAB_SUCCESS)
        first = s;
    void *device[4] = {j->shard, j->in, j->out, j->status};
    for (int i = 0; i < 4; i++)
        if (device[i] && (s = shardtab_mem_free(device[i])) != SHARDTAB_SUCCESS &&
            first == SHARDTAB_SUCCESS)
            first = s;
    test_stream_destroy(j->stream);
    free(j->host_in);
    free(j->host_out);
    free(j->want);
    return first;
}

/* --fault held-stop: a held loop of 8 all-reduces (collective B) in which
 * the faulty rank stops the node after call 3; the kernel must return
 * SHARDTAB_WAIT_ABORTED (the record: what that rank planted), never OK. */
static shardtab_status_t held_stop(cc_job_t *j, const cc_options_t *o)
{
    double *out = NULL;
    int kernel_status = 0;
    shardtab_status_t status = shardtab_mem_alloc(8 * sizeof *out, (void **)&out);

    if (status == SHARDTAB_SUCCESS)
        status = zero_status(j);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS)
        status = kernel_ended(j,
                              comm_held_stop_launch(&j->sig, j->slot_b, B_VALUES, 8, o->fault_rank,
                                                    3, out, j->status, o->threads, j->stream),
                              "the held-stop kernel", &kernel_status);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                    "held-stop: node rank %d's kernel returned %d (%s) after "
                                    "the node was stopped",
                                    j->node_rank, kernel_status,
                                    kernel_status == SHARDTAB_WAIT_OK ? "OK" : "not aborted");
    if (out)
        (void)shardtab_mem_free(out);
    return shardtab_agree(MPI_COMM_WORLD, status);
}

/* --fault past-pad: PAST_PAD_TABLES more live tables over the shard, then every rank's
 * call of the collective at user slot `slots`, one past the last user slot (where the
 * library's own collective lies), with 2000 values: refused by name (the refusal is
 * the status returned), and every word of the other tables' pads as it was. */
#define PAST_PAD_TABLES 120
static shardtab_status_t past_pad(cc_job_t *j, const cc_options_t *o)
{
    shardtab_t *tables[PAST_PAD_TABLES] = {0};
    uint64_t *before[PAST_PAD_TABLES] = {0}, *after = NULL;
    size_t words[PAST_PAD_TABLES] = {0};
    shardtab_status_t status = SHARDTAB_SUCCESS, refusal;
    int made = 0, kernel_status = 0;
    long changed = 0, tables_changed = 0;
    comm_call_t call;

    for (; made < PAST_PAD_TABLES && status == SHARDTAB_SUCCESS; made++)
        status = shardtab_create(MPI_COMM_WORLD, j->shard, SHARD_BYTES, &tables[made]);
    for (int i = 0; i < made && status == SHARDTAB_SUCCESS; i++) {
        shardtab_signals_t sig;
        status = shardtab_signals(tables[i], &sig);
        /* the whole pad: header, arrivals, user slots, the library's collective */
        words[i] = (size_t)sig.lib_first +
                   SHARDTAB_COLL_SLOTS(sig.node_size, SHARDTAB_DETAIL_LIB_COLL_VALUES);
        before[i] = status == SHARDTAB_SUCCESS ? malloc(words[i] * 8) : NULL;
        if (status == SHARDTAB_SUCCESS && before[i] == NULL)
            status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of a pad's copy failed");
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_host(before[i], sig.mine, words[i] * 8);
    }
    if (status == SHARDTAB_SUCCESS)
        status = zero_status(j);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS)
        goto out;
    memset(&call, 0, sizeof call);
    call.slot = j->sig.slots;
    call.values = 2000;
    call.kind = SHARDTAB_COLL_REDUCE;
    call.op = SHARDTAB_SUM;
    call.type = SHARDTAB_DOUBLE;
    call.count = 1;
    call.phases = COMM_BOTH;
    refusal = kernel_ended(
        j, comm_call_launch(&j->sig, &call, j->in, j->out, j->status, o->threads, 1, j->stream),
        "the call one past the user slots", &kernel_status);
    if (refusal == SHARDTAB_SUCCESS)
        refusal = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                     "past-pad: node rank %d's call at user slot %d of %d, with "
                                     "2000 values, was taken (kernel status %d)",
                                     j->node_rank, call.slot, j->sig.slots, kernel_status);
    /* the pads, every word, whatever the call said */
    for (int i = 0; i < made; i++) {
        shardtab_signals_t sig;
        long here = 0;
        after = realloc(after, words[i] * 8);
        if (after == NULL || shardtab_signals(tables[i], &sig) != SHARDTAB_SUCCESS ||
            shardtab_memcpy_to_host(after, sig.mine, words[i] * 8) != SHARDTAB_SUCCESS) {
            status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "past-pad: reading a pad failed");
            break;
        }
        for (size_t w = 0; w < words[i]; w++)
            here += after[w] != before[i][w];
        changed += here;
        tables_changed += here > 0;
    }
    if (status == SHARDTAB_SUCCESS && changed > 0)
        status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                    "past-pad: node rank %d: %ld words of %ld other live tables' "
                                    "pads changed by the call",
                                    j->node_rank, changed, tables_changed);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        printf("# comm_check: past-pad: the pads of %d other live tables unchanged, word for "
               "word\n",
               made);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(MPI_COMM_WORLD, refusal);
out:
    for (int i = made - 1; i >= 0; i--) {
        if (tables[i]) {
            shardtab_status_t d = shardtab_destroy(&tables[i]);
            if (status == SHARDTAB_SUCCESS)
                status = d;
        }
        free(before[i]);
    }
    free(after);
    return status;
}

/* Every stage but --special's, in order, each announced by rank 0. */
/* ---- the exact dot product, split over the node's ranks (comm_reference.h) ---------- */

/* The global dot of DOT_ELEMENTS split over the node's ranks three ways, each
 * rank's share by shardtab_dot_exact_block and the words summed on the device:
 * every split, and every rank count and layout, the bits of the exact dot
 * (comm_reference.h's big integer over the exact products). *bits: them. */
static shardtab_status_t exact_dot(cc_job_t *j, const cc_options_t *o, uint64_t *bits)
{
    static double x[DOT_ELEMENTS], y[DOT_ELEMENTS], mine_x[DOT_ELEMENTS], mine_y[DOT_ELEMENTS];
    static uint64_t products[DOT_ELEMENTS];
    double *dev = NULL, got = 0.0;
    shardtab_status_t status = shardtab_mem_alloc(2 * DOT_ELEMENTS * sizeof(double), (void **)&dev);

    for (int i = 0; i < DOT_ELEMENTS; i++) {
        dot_element(i, &x[i], &y[i]);
        const double p = x[i] * y[i]; /* exact */
        memcpy(&products[i], &p, sizeof p);
    }
    *bits = reference_exact_sum(SHARDTAB_DOUBLE, products, DOT_ELEMENTS);
    for (int way = 0; way < DOT_SPLITS && status == SHARDTAB_SUCCESS; way++) {
        size_t n = 0;
        int kernel_status = 0;
        for (int i = 0; i < DOT_ELEMENTS; i++)
            if (dot_owner(way, i, j->node_size) == j->node_rank) {
                mine_x[n] = x[i];
                mine_y[n++] = y[i];
            }
        status = shardtab_memcpy_to_device(dev, mine_x, n * sizeof(double));
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_device(dev + DOT_ELEMENTS, mine_y, n * sizeof(double));
        if (status == SHARDTAB_SUCCESS)
            status = zero_status(j);
        if (status == SHARDTAB_SUCCESS)
            status = kernel_ended(j,
                                  comm_dot_exact_launch(&j->sig, j->slot_dot, dev,
                                                        dev + DOT_ELEMENTS, n, (double *)j->out,
                                                        j->status, o->threads, j->stream),
                                  "the exact dot's kernel", &kernel_status);
        if (status == SHARDTAB_SUCCESS && kernel_status != SHARDTAB_WAIT_OK)
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                        "the exact dot's kernel returned %d and the pad "
                                        "records nothing",
                                        kernel_status);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_host(&got, j->out, sizeof got);
        uint64_t got_bits = 0;
        memcpy(&got_bits, &got, sizeof got);
        if (status == SHARDTAB_SUCCESS && got_bits != *bits)
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                        "the exact dot split %d ways (split %d) is 0x%016llx, the "
                                        "exact dot rounded once is 0x%016llx",
                                        j->node_size, way, (unsigned long long)got_bits,
                                        (unsigned long long)*bits);
        status = shardtab_agree(MPI_COMM_WORLD, status);
    }
    if (dev != NULL && shardtab_mem_free(dev) != SHARDTAB_SUCCESS && status == SHARDTAB_SUCCESS)
        status = SHARDTAB_ERR_DEVICE;
    return shardtab_agree(MPI_COMM_WORLD, status);
}

static shardtab_status_t every_stage(cc_job_t *j, cc_options_t *o)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    int calls = 0, put_count = 0;
    uint64_t epoch_b = 0;

    if (o->fault == FAULT_HELD_STOP)
        status = held_stop(j, o);
    if (o->fault == FAULT_PAST_PAD)
        status = past_pad(j, o);
    if (status == SHARDTAB_SUCCESS && o->bench > 0) {
        status = bench(j, o);
        o->rounds = 1; /* then one quick pass of every check */
    }
    if (status == SHARDTAB_SUCCESS)
        status = every_call(j, o, &calls);
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        printf("# comm_check: collectives OK (%d calls, every value bit for bit)\n", calls);
    uint64_t dot_bits = 0;
    if (status == SHARDTAB_SUCCESS)
        status = exact_dot(j, o, &dot_bits);
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        printf("# comm_check: exact dot OK (0x%016llx: %d elements split %d ways over %d node "
               "ranks, every split the same bits)\n",
               (unsigned long long)dot_bits, DOT_ELEMENTS, DOT_SPLITS, j->node_size);
    if (status == SHARDTAB_SUCCESS)
        status = split_phase(j, o, &epoch_b);
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        printf("# comm_check: split phase OK (%d rounds of two calls in flight)\n", o->rounds);
    if (status == SHARDTAB_SUCCESS)
        status = concurrent(j, o);
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        printf("# comm_check: concurrency OK (%d rounds of two collectives and barriers at once)\n",
               50 * o->rounds);
    if (status == SHARDTAB_SUCCESS)
        status = ring_puts(j, o, &put_count);
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        printf("# comm_check: puts with signal OK (%d puts, 0 B to %u B)\n", put_count,
               SHARD_BYTES / 2);
    put_count = 0;
    if (status == SHARDTAB_SUCCESS)
        status = ll_puts(j, o, &put_count);
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        printf("# comm_check: LL puts OK (%d rounds of a ping and a pong, 4 B to %zu B, every "
               "byte)\n",
               put_count, LL_MOST);
    return status;
}

int main(int argc, char **argv)
{
    cc_options_t o;
    cc_job_t j;
    char err[256];
    int code, calls = 0;
    shardtab_status_t status;

    memset(&j, 0, sizeof j);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    code = parse(argc, argv, &o, err, sizeof err) != 0;
    code = check_program_start("comm_check", j.rank, code ? err : "", o.allow_shared_gpu, &status);
    if (code >= 0)
        return code;
    if (status == SHARDTAB_SUCCESS)
        status = set_up(&j, &o);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (o.fault_rank < 0)
        o.fault_rank = j.node_size - 1;
    if (status == SHARDTAB_SUCCESS && o.fault_rank >= j.node_size)
        status = shardtab_agree(MPI_COMM_WORLD,
                                shardtab_error_set(SHARDTAB_ERR_INVALID_ARG,
                                                   "invalid --fault-rank %d: the node has %d ranks",
                                                   o.fault_rank, j.node_size));
    if (status == SHARDTAB_SUCCESS && j.rank == 0)
        printf("# comm_check: %d ranks, %d node ranks, %d rounds, collective of %d values (%d "
               "slots), fault %s\n",
               j.size, j.node_size, o.rounds, o.values, SHARDTAB_COLL_SLOTS(j.node_size, o.values),
               fault_names[o.fault]);
    j.special = o.special;
    if (status == SHARDTAB_SUCCESS && o.special) /* --special: that stage alone */
        status = special_calls(&j, &o, &calls);
    if (status == SHARDTAB_SUCCESS && o.special && j.rank == 0)
        printf("# comm_check: special values OK (%d calls of min, max and sum_exact, every "
               "value bit "
               "for bit)\n",
               calls);
    if (status == SHARDTAB_SUCCESS && !o.special)
        status = every_stage(&j, &o);
    status = check_program_verdict("comm_check", j.rank, j.size, status,
                                   o.fault != FAULT_NONE ? fault_names[o.fault] : NULL);
    return check_program_end("comm_check", j.rank, status, release(&j));
}
