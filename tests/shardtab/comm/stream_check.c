/* stream_check.c - the stream-ordered collectives of shardtab.h (all-reduce, broadcast, all-gather over the table's shards), end to end under mpiexec.
 *
 * PURPOSE  Every op (sum, min, max; sum_exact of floats and doubles) and type of
 *          shardtab_all_reduce at counts 0, 1, 2, 7, 1001 and the whole
 *          shard (up to 8 bytes one-block runs in its sync's words), each
 *          algorithm, at a 16-byte aligned offset and an offset
 *          of one element; shardtab_broadcast from every root and
 *          shardtab_all_gather; each result, on every rank, compared bit for
 *          bit with a plain reduction computed here: in node-rank order
 *          inside a node, then in node order across nodes (the library's
 *          hierarchy), so a wrong order shows in the bits of a float sum.
 *          sum_exact's inputs span most exponents and cancel; each element
 *          is compared with their exact sum by comm_reference.h's big
 *          integer, rounded once: the same at every layout and algorithm.
 *          --special: min, max and sum_exact of floats and doubles over special values
 *          (NaNs of several payloads and both signs, infinities, signed
 *          zeros, denormals) on every rank, each element bit for bit
 *          against a reduction in rank order by the rule of shardtab_types.h,
 *          written apart in comm_reference.h: the same at every layout.
 * USAGE    mpiexec -n <ranks> ./stream_check [--shard-bytes B] [--big] [--special]
 *                 [--fault count|offset|op|past-shard|algo|scratch|exact-int64|unknown-op]
 *                 [--fault-rank R]
 *                 [--fault-small] [--allow-shared-gpu]
 * NOTES    --big runs instead an all-reduce of 64 MiB a rank, each algorithm. A
 *          fault makes one rank (default the last) call otherwise (another
 *          count, offset or op), call past its shard, or set another
 *          SHARDTAB_ALL_REDUCE_ALGO, or (host backend) lower its address-space
 *          limit so that the all-reduce's scratch buffer cannot be mapped,
 *          or call SHARDTAB_SUM_EXACT of int64 or an unknown op (refused);
 *          every rank must end with one message, exit 2 (1 for scratch), at once.
 *          SHARDTAB_FAULT=coll-<step>:<rank> (the library's test hook) stops that
 *          rank (SIGSTOP) at that step of its first call that reaches it: the
 *          others give up within the table's patience and end the job, each
 *          call's agreement here bounded too (3 x the wait limit + 1 s).
 *          --fault-small: the fault's call is an all-reduce of one double
 *          (one-block in its sync's words), not the first of the list. Exit 0 verified, 1 a failure, 2 bad usage or a refused
 *          call; one message, from rank 0.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

#include "../check_program.h"
#include "comm_reference.h"
#include "shardtab.h"
#include "shardtab_comm.h" /* shardtab_exact_*: the exact dot's accumulator, on the host */

enum {
    FAULT_NONE,
    FAULT_COUNT,
    FAULT_OFFSET,
    FAULT_OP,
    FAULT_PAST,
    FAULT_ALGO,
    FAULT_SCRATCH,
    FAULT_EXACT_INT64,
    FAULT_UNKNOWN_OP,
    FAULT_KINDS
};
static const char *const fault_names[FAULT_KINDS] = {
    "none", "count", "offset", "op", "past-shard", "algo", "scratch", "exact-int64", "unknown-op"};
static const char *const type_names[] = {"float", "double", "int64"};
static const char *const op_names[] = {"sum", "min", "max", "sum_exact"};

typedef struct sc_job {
    int rank, size, node_id, node_count;
    int *node_of; /* [size] node id of each rank */
    shardtab_t *table;
    char *shard; /* device */
    size_t shard_bytes;
    unsigned char *host, *want;
    int fault, fault_rank, fault_small, big, special;
    double agree_s; /* each call's agreement: bounded, a rank stopped or gone ends the job */
} sc_job_t;

static size_t type_size(int type)
{
    return type == SHARDTAB_FLOAT ? 4 : 8;
}

static void put_word(int type, unsigned char *at, uint64_t w)
{
    memcpy(at, &w, type_size(type)); /* little-endian: a float is the low half */
}

static uint64_t get_word(int type, const unsigned char *at)
{
    uint64_t w = 0;
    memcpy(&w, at, type_size(type));
    return w;
}

/* rank r's element i of `call`: the SplitMix64 stream, or with --special a
 * special value; an exact sum's, wide values that cancel */
static uint64_t value_of(const sc_job_t *j, int op, int type, int r, uint64_t call, int i)
{
    if (j->special)
        return special_input(type, r, call, i);
    return op == SHARDTAB_SUM_EXACT ? exact_input(type, r, call, i) : input(type, r, call, i);
}

/* The plain all-reduce of element i: node-rank order inside each node, then
 * node order; with --special (min and max) simply in rank order, as the
 * rule's result depends on no order. */
static uint64_t reduced(const sc_job_t *j, int op, int type, uint64_t call, size_t i)
{
    uint64_t total = 0;
    if (op == SHARDTAB_SUM_EXACT) { /* no order: the exact sum of every rank's, rounded once */
        uint64_t words[64];
        for (int r = 0; r < j->size && r < 64; r++)
            words[r] = value_of(j, op, type, r, call, (int)i);
        return reference_exact_sum(type, words, j->size < 64 ? j->size : 64);
    }
    if (j->special) {
        total = value_of(j, op, type, 0, call, (int)i);
        for (int r = 1; r < j->size; r++)
            total = plain_combine(op, type, total, value_of(j, op, type, r, call, (int)i));
        return total;
    }
    for (int node = 0; node < j->node_count; node++) {
        int first = 1;
        uint64_t acc = 0;
        for (int r = 0; r < j->size; r++) {
            if (j->node_of[r] != node)
                continue;
            uint64_t v = input(type, r, call, (int)i);
            acc = first ? v : plain_combine(op, type, acc, v);
            first = 0;
        }
        total = node == 0 ? acc : plain_combine(op, type, total, acc);
    }
    return total;
}

/* Fills this rank's region with its inputs of `call` (all-gather: its own
 * piece; the rest of the region, and the shard around it, with a marker),
 * runs the collective, and compares every element of the region, and the
 * marker around it, with what it must hold. */
/* The fault "scratch": this process's address-space limit lowered to what it
 * maps now and a page more, so that no new mapping of 64 KiB fits; *saved
 * keeps the limit to restore. */
static void limit_address_space(struct rlimit *saved)
{
    long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    struct rlimit lower;

    getrlimit(RLIMIT_AS, saved);
    if (statm != NULL) {
        if (fscanf(statm, "%ld", &pages) != 1)
            pages = 0;
        fclose(statm);
    }
    lower = *saved;
    lower.rlim_cur = (rlim_t)(pages + 1) * 4096;
    if (pages > 0)
        setrlimit(RLIMIT_AS, &lower);
}

static shardtab_status_t one(sc_job_t *j, int kind, int op, int type, size_t offset, size_t count,
                             int root, uint64_t call, const char *algo)
{
    const size_t size = type_size(type);
    const size_t elements = kind == 2 ? count * (size_t)j->size : count;
    const size_t bytes = elements * size;
    shardtab_status_t status = SHARDTAB_SUCCESS;
    char what[160];
    const int faulty = j->fault != FAULT_NONE && j->rank == j->fault_rank;

    snprintf(what, sizeof what, "%s of %zu %s%s%s at byte %zu%s%s",
             kind == 0   ? "shardtab_all_reduce"
             : kind == 1 ? "shardtab_broadcast"
                         : "shardtab_all_gather",
             count, type_names[type], kind == 0 ? " " : "", kind == 0 ? op_names[op] : "", offset,
             algo ? ", " : "", algo ? algo : "");
    memset(j->host, 0xA5,
           offset + bytes + 64 < j->shard_bytes ? offset + bytes + 64 : j->shard_bytes);
    for (size_t i = 0; i < elements; i++) {
        int owner = kind == 2 ? (int)(i / (count ? count : 1)) : j->rank;
        size_t index = kind == 2 ? i % (count ? count : 1) : i;
        if (kind != 2 || owner == j->rank)
            put_word(type, j->host + offset + i * size,
                     value_of(j, kind == 0 ? op : SHARDTAB_SUM, type, j->rank, call, (int)index));
    }
    status = shardtab_memcpy_to_device(j->shard, j->host, j->shard_bytes);
    if (algo)
        setenv("SHARDTAB_ALL_REDUCE_ALGO", algo, 1);
    if (status == SHARDTAB_SUCCESS) {
        size_t my_count = count, my_offset = offset;
        int my_op = op, my_type = type;
        if (faulty && j->fault == FAULT_COUNT)
            my_count = count + 1;
        if (faulty && j->fault == FAULT_OFFSET)
            my_offset = offset + size;
        if (faulty && j->fault == FAULT_OP)
            my_op = (op + 1) % SHARDTAB_OP_COUNT;
        if (faulty && j->fault == FAULT_EXACT_INT64)
            my_op = SHARDTAB_SUM_EXACT, my_type = SHARDTAB_INT64;
        if (faulty && j->fault == FAULT_UNKNOWN_OP)
            my_op = SHARDTAB_OP_COUNT;
        if (faulty && j->fault == FAULT_PAST)
            my_offset = j->shard_bytes + size;
        if (faulty && j->fault == FAULT_ALGO && kind == 0)
            setenv("SHARDTAB_ALL_REDUCE_ALGO",
                   algo && strcmp(algo, "one-shot") == 0 ? "two-shot" : "one-shot", 1);
        struct rlimit saved;
        if (faulty && j->fault == FAULT_SCRATCH)
            limit_address_space(&saved);
        if (kind == 0)
            status = shardtab_all_reduce(j->table, (shardtab_op_t)my_op, (shardtab_type_t)my_type,
                                         my_offset, my_count, NULL);
        else if (kind == 1)
            status = shardtab_broadcast(j->table, root, (shardtab_type_t)type, my_offset, my_count,
                                        NULL);
        else
            status =
                shardtab_all_gather(j->table, (shardtab_type_t)type, my_offset, my_count, NULL);
        if (faulty && j->fault == FAULT_SCRATCH)
            setrlimit(RLIMIT_AS, &saved);
    }
    unsetenv("SHARDTAB_ALL_REDUCE_ALGO");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(NULL);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(j->table);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_host(j->want, j->shard, j->shard_bytes);
    for (size_t i = 0; i < elements && status == SHARDTAB_SUCCESS; i++) {
        uint64_t want;
        if (kind == 0)
            want = reduced(j, op, type, call, i);
        else if (kind == 1)
            want = value_of(j, SHARDTAB_SUM, type, root, call, (int)i);
        else
            want = value_of(j, SHARDTAB_SUM, type, (int)(i / count), call, (int)(i % count));
        uint64_t got = get_word(type, j->want + offset + i * size);
        if (got != want)
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                        "%s: element %zu is 0x%016llx, the plain reduction gives "
                                        "0x%016llx",
                                        what, i, (unsigned long long)got, (unsigned long long)want);
    }
    /* nothing written outside the region */
    for (size_t b = 0; b < j->shard_bytes && status == SHARDTAB_SUCCESS; b++) {
        if (b >= offset && b < offset + bytes)
            continue;
        if (j->want[b] != j->host[b])
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                        "%s: byte %zu, outside the region [%zu, %zu), changed",
                                        what, b, offset, offset + bytes);
    }
    /* bounded: a rank stopped inside a call (SHARDTAB_FAULT=coll-*) leaves its peers to
     * give up in the call, then here, where they end the job */
    return shardtab_agree_within(MPI_COMM_WORLD, status, j->agree_s);
}

/* --special: min, max and sum_exact of floats and doubles over special
 * values, every algorithm, at offset 0 and one element in. */
static shardtab_status_t special_calls(sc_job_t *j, int *calls)
{
    static const char *const algos[3] = {"one-shot", "two-shot", "one-block"};
    shardtab_status_t status = SHARDTAB_SUCCESS;
    uint64_t call = 2000000;

    for (int type = 0; type < SHARDTAB_INT64 && status == SHARDTAB_SUCCESS; type++)
        for (int op = SHARDTAB_MIN; op <= SHARDTAB_SUM_EXACT && status == SHARDTAB_SUCCESS; op++)
            for (int a = 0; a < 3 && status == SHARDTAB_SUCCESS; a++)
                for (int o = 0; o < 2 && status == SHARDTAB_SUCCESS; o++) {
                    const size_t size = type_size(type), whole = j->shard_bytes / size - 1;
                    status = one(j, 0, op, type, (size_t)o * size, whole < 4096 ? whole : 4096, 0,
                                 ++call, algos[a]);
                    (*calls)++;
                }
    return status;
}

/* The exact dot recipe of shardtab_comm.h, stream-ordered: one global pair of
 * arrays split three ways over every rank (across nodes too), each rank's
 * accumulator normalized into its region, shardtab_all_reduce of the words as
 * int64 SUM, rounded: every split, rank count and layout the exact dot's bits
 * (comm_check's, the same arrays). *bits: them. */
static shardtab_status_t exact_dot(sc_job_t *j, uint64_t *bits)
{
    static uint64_t products[DOT_ELEMENTS];
    shardtab_status_t status = SHARDTAB_SUCCESS;
    const size_t bytes = SHARDTAB_EXACT_WORDS * sizeof(int64_t);

    for (int i = 0; i < DOT_ELEMENTS; i++) {
        double x, y;
        dot_element(i, &x, &y);
        const double p = x * y; /* exact */
        memcpy(&products[i], &p, sizeof p);
    }
    *bits = reference_exact_sum(SHARDTAB_DOUBLE, products, DOT_ELEMENTS);
    for (int way = 0; way < DOT_SPLITS && status == SHARDTAB_SUCCESS; way++) {
        int64_t acc[SHARDTAB_EXACT_WORDS];
        shardtab_exact_zero(acc);
        for (int i = 0; i < DOT_ELEMENTS; i++)
            if (dot_owner(way, i, j->size) == j->rank) {
                double x, y;
                dot_element(i, &x, &y);
                shardtab_exact_add_product(acc, x, y);
            }
        shardtab_exact_normalize(acc);
        status = shardtab_memcpy_to_device(j->shard, acc, bytes);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_all_reduce(j->table, SHARDTAB_SUM, SHARDTAB_INT64, 0,
                                         SHARDTAB_EXACT_WORDS, NULL);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(NULL);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_signal_check(j->table);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_host(acc, j->shard, bytes);
        const double dot = shardtab_exact_round(acc);
        uint64_t got = 0;
        memcpy(&got, &dot, sizeof dot);
        if (status == SHARDTAB_SUCCESS && got != *bits)
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                        "the exact dot split %d ways (split %d) is 0x%016llx, the "
                                        "exact dot rounded once is 0x%016llx",
                                        j->size, way, (unsigned long long)got,
                                        (unsigned long long)*bits);
        status = shardtab_agree_within(MPI_COMM_WORLD, status, j->agree_s);
    }
    return status;
}

static shardtab_status_t every_call(sc_job_t *j, int *calls)
{
    static const char *const algos[3] = {"one-shot", "two-shot", "one-block"};
    shardtab_status_t status = SHARDTAB_SUCCESS;
    uint64_t call = 0;

    if (j->fault == FAULT_SCRATCH) { /* the whole shard: a scratch buffer of 64 KiB */
        *calls = 1;
        return one(j, 0, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, j->shard_bytes / 4 - 2, 0, ++call,
                   "one-block");
    }
    if (j->fault_small) { /* one double: one-block in its sync's words */
        *calls = 1;
        return one(j, 0, SHARDTAB_SUM, SHARDTAB_DOUBLE, 0, 1, 0, ++call, "one-block");
    }

    for (int type = 0; type < SHARDTAB_TYPE_COUNT && status == SHARDTAB_SUCCESS; type++) {
        const size_t size = type_size(type);
        const size_t counts[6] = {0, 1, 2, 7, 1001, j->shard_bytes / size - 2};
        for (int ci = 0; ci < 6 && status == SHARDTAB_SUCCESS; ci++)
            for (int op = 0; op < SHARDTAB_OP_COUNT && status == SHARDTAB_SUCCESS; op++)
                for (int a = 0; a < 3 && status == SHARDTAB_SUCCESS; a++) {
                    if (op == SHARDTAB_SUM_EXACT && type == SHARDTAB_INT64)
                        continue; /* refused: an int64 sum is exact (--fault exact-int64) */
                    /* the whole shard at offset 0; the others one element in (not 16-byte aligned) too */
                    size_t offsets[2] = {0, size}, count = counts[ci];
                    for (int o = 0; o < 2 && status == SHARDTAB_SUCCESS; o++) {
                        if (offsets[o] + count * size > j->shard_bytes)
                            continue;
                        status = one(j, 0, op, type, offsets[o], count, 0, ++call, algos[a]);
                        (*calls)++;
                        if (j->fault != FAULT_NONE)
                            return status;
                    }
                }
        for (int root = 0; root < j->size && status == SHARDTAB_SUCCESS; root++) {
            status = one(j, 1, SHARDTAB_SUM, type, 16, 1001, root, ++call, NULL);
            (*calls)++;
        }
        size_t per = (j->shard_bytes / size - 8) / (size_t)j->size;
        const size_t gathers[3] = {1, 33, per};
        for (int g = 0; g < 3 && status == SHARDTAB_SUCCESS; g++) {
            status = one(j, 2, SHARDTAB_SUM, type, size, gathers[g], 0, ++call, NULL);
            (*calls)++;
        }
    }
    return status;
}

int main(int argc, char **argv)
{
    sc_job_t j;
    int code, calls = 0, allow_shared_gpu = 0;
    shardtab_status_t status;
    char err[200] = "";

    memset(&j, 0, sizeof j);
    j.shard_bytes = 1 << 16;
    j.fault_rank = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    for (int i = 1; i < argc && err[0] == '\0'; i++) {
        if (strcmp(argv[i], "--allow-shared-gpu") == 0)
            allow_shared_gpu = 1;
        else if (strcmp(argv[i], "--big") == 0)
            j.big = 1;
        else if (strcmp(argv[i], "--special") == 0)
            j.special = 1;
        else if (strcmp(argv[i], "--shard-bytes") == 0 && i + 1 < argc)
            j.shard_bytes = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--fault-small") == 0)
            j.fault_small = 1;
        else if (strcmp(argv[i], "--fault-rank") == 0 && i + 1 < argc)
            j.fault_rank = atoi(argv[++i]);
        else if (strcmp(argv[i], "--fault") == 0 && i + 1 < argc) {
            i++;
            for (int f = 1; f < FAULT_KINDS; f++)
                if (strcmp(argv[i], fault_names[f]) == 0)
                    j.fault = f;
            if (j.fault == FAULT_NONE)
                snprintf(err, sizeof err, "invalid --fault '%s'", argv[i]);
        } else
            snprintf(err, sizeof err, "unknown option '%s'", argv[i]);
    }
    if (err[0] == '\0' && j.special && j.big)
        snprintf(err, sizeof err, "--special and --big are two runs: give one");
    if (err[0] == '\0' && (j.shard_bytes < 1024 || j.shard_bytes % 16 != 0))
        snprintf(err, sizeof err, "--shard-bytes must be a multiple of 16, at least 1024");
    code = check_program_start("stream_check", j.rank, err, allow_shared_gpu, &status);
    if (code >= 0)
        return code;
    if (j.fault_rank < 0)
        j.fault_rank = j.size - 1;
    if (j.big && j.shard_bytes < (64u << 20) + 64)
        j.shard_bytes = (64u << 20) + 64;
    j.host = malloc(j.shard_bytes);
    j.want = malloc(j.shard_bytes);
    j.node_of = malloc((size_t)j.size * sizeof *j.node_of);
    if (status == SHARDTAB_SUCCESS && (!j.host || !j.want || !j.node_of))
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the host buffers failed");
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(j.shard_bytes, (void **)&j.shard);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_create(MPI_COMM_WORLD, j.shard, j.shard_bytes, &j.table);
    if (status == SHARDTAB_SUCCESS) {
        j.agree_s = 3 * shardtab_wait_timeout(j.table) + 1;
        j.node_id = shardtab_node_id(j.table);
        j.node_count = shardtab_node_count(j.table);
        MPI_Allgather(&j.node_id, 1, MPI_INT, j.node_of, 1, MPI_INT, MPI_COMM_WORLD);
        if (j.rank == 0)
            printf("# stream_check: %d ranks, %d nodes, shards of %zu bytes, fault %s\n", j.size,
                   j.node_count, j.shard_bytes, fault_names[j.fault]);
        if (j.special) /* --special: the special values alone */
            status = special_calls(&j, &calls);
        else if (!j.big) /* --big: the 64 MiB calls alone */
            status = every_call(&j, &calls);
    }
    if (status == SHARDTAB_SUCCESS && j.rank == 0 && j.special)
        printf("# stream_check: special values OK (%d calls of min, max and sum_exact, every "
               "element bit "
               "for bit)\n",
               calls);
    else if (status == SHARDTAB_SUCCESS && j.rank == 0 && !j.big)
        printf("# stream_check: every call OK (%d calls, every element bit for bit)\n", calls);
    if (status == SHARDTAB_SUCCESS && !j.big && !j.special && j.fault == FAULT_NONE) {
        uint64_t bits = 0;
        status = exact_dot(&j, &bits);
        if (status == SHARDTAB_SUCCESS && j.rank == 0)
            printf("# stream_check: exact dot OK (0x%016llx: %d elements split %d ways over %d "
                   "ranks, every split the same bits)\n",
                   (unsigned long long)bits, DOT_ELEMENTS, DOT_SPLITS, j.size);
    }
    if (status == SHARDTAB_SUCCESS && j.big) {
        const size_t count = (64u << 20) / 4;
        status = one(&j, 0, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, count, 0, 1000001, "one-shot");
        if (status == SHARDTAB_SUCCESS)
            status = one(&j, 0, SHARDTAB_SUM, SHARDTAB_FLOAT, 0, count, 0, 1000002, "two-shot");
        if (status == SHARDTAB_SUCCESS && j.rank == 0)
            printf("# stream_check: 64 MiB all-reduce OK (one-shot and two-shot)\n");
    }
    status = check_program_verdict("stream_check", j.rank, j.size, status,
                                   j.fault != FAULT_NONE ? fault_names[j.fault] : NULL);
    {
        shardtab_status_t s = SHARDTAB_SUCCESS;
        if (j.table)
            s = shardtab_destroy(&j.table);
        if (j.shard && shardtab_mem_free(j.shard) != SHARDTAB_SUCCESS && s == SHARDTAB_SUCCESS)
            s = SHARDTAB_ERR_DEVICE;
        free(j.host);
        free(j.want);
        free(j.node_of);
        return check_program_end("stream_check", j.rank, status, s);
    }
}
