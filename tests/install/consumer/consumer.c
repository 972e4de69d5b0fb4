/* consumer.c - a program outside the project that uses an installed libshardtab:
 * one shard per rank, one table per node, and every rank reads every node peer's
 * shard through the table and checks it exactly.
 *
 * Then its own device code (consumer_kernel.h, built where the package's backend
 * allows: CUDA, or the host backend's C) puts words into the next node rank's
 * shard with shardtab_put_signal_block and all-reduces a double with
 * shardtab_all_reduce_block, both from the installed shardtab_comm.h.
 *
 * Built twice by tests/install/run_install_test.sh: through find_package(shardtab)
 * and through pkg-config (the second without device code of its own).
 * Exit 0 and "consumer: OK" from rank 0 when all is well.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <shardtab.h>
#if CONSUMER_WITH_KERNEL
#  include <shardtab_comm.h>

#  include "consumer_kernel.h"
#endif

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each rank's shard has a different length, and every element says whose it is. */
static size_t shard_length(int rank)
{
    return 1000 + 37 * (size_t)rank;
}

static uint64_t pattern(int rank, size_t i)
{
    return ((uint64_t)rank << 40) ^ (0x9e3779b97f4a7c15ull * (i + 1));
}

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "consumer: rank %d: ", rank);                                                \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                                           \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

#define CALL(expr)                                                                                 \
  do {                                                                                             \
    shardtab_status_t s_ = (expr);                                                                 \
    if (s_ != SHARDTAB_SUCCESS) {                                                                  \
      fprintf(stderr, "consumer: rank %d: %s: %s: %s\n", rank, #expr, shardtab_status_string(s_),  \
              shardtab_last_error());                                                              \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

/* How many ranks share this rank's node: the real node (shared memory),
 * split further by SHARDTAB_RANKS_PER_NODE, as the library documents. */
static int expected_node_size(int rank)
{
    MPI_Comm real;
    int real_rank, real_size, rpn = 0;
    const char *text = getenv("SHARDTAB_RANKS_PER_NODE");

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &real);
    MPI_Comm_rank(real, &real_rank);
    MPI_Comm_size(real, &real_size);
    MPI_Comm_free(&real);
    if (text != NULL && *text != '\0')
        rpn = atoi(text);
    if (rpn <= 0)
        return real_size;
    int group = real_rank / rpn;
    int left = real_size - group * rpn;
    return left < rpn ? left : rpn;
}

int main(int argc, char **argv)
{
    shardtab_init_params_t params = {0};
    shardtab_t *table = NULL;
    uint64_t *shard = NULL, *staging;
    int rank, size, all_failures = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* ranks sharing one GPU (a one-GPU test machine, under MPS) */
    params.allow_shared_device = argc > 1 && strcmp(argv[1], "--allow-shared-gpu") == 0;

    size_t len = shard_length(rank), bytes = len * sizeof(uint64_t);
    staging = malloc(bytes);
    if (staging == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);

    CALL(shardtab_init(MPI_COMM_WORLD, &params));
    CALL(shardtab_mem_alloc(bytes, (void **)&shard));
    CHECK(shard != NULL, "shardtab_mem_alloc returned NULL");
    {
        shardtab_create_params_t create = {0};
        /* the put's signal, then an all-reduce of one double (shardtab_comm.h) */
#if CONSUMER_WITH_KERNEL
        create.signal_slots = CONSUMER_COLL_SLOT + SHARDTAB_COLL_SLOTS(size, 1);
#endif
        CALL(shardtab_create_with(MPI_COMM_WORLD, shard, bytes, &create, &table));
    }
    CHECK(table != NULL, "shardtab_create returned no table");

    /* The pattern goes in after create: the peers' mappings must see it. */
    for (size_t i = 0; i < len; i++)
        staging[i] = pattern(rank, i);
    CALL(shardtab_memcpy_to_device(shard, staging, bytes));
    CALL(shardtab_device_synchronize());
    MPI_Barrier(MPI_COMM_WORLD);

    int node_size = shardtab_node_size(table), on_node = 0;
    CHECK(node_size == expected_node_size(rank), "node size %d, expected %d", node_size,
          expected_node_size(rank));
    CHECK(shardtab_node_rank(table) >= 0 && shardtab_node_rank(table) < node_size,
          "node rank %d outside [0, %d)", shardtab_node_rank(table), node_size);
    CHECK(shardtab_member(table, shardtab_node_rank(table)) == rank, "member(own node rank) is %d",
          shardtab_member(table, shardtab_node_rank(table)));
    CHECK(shardtab_node_id(table) >= 0 && shardtab_node_id(table) < shardtab_node_count(table),
          "node id %d of %d nodes", shardtab_node_id(table), shardtab_node_count(table));
    CHECK(shardtab_device_table(table) != NULL, "no device table");

    for (int peer = 0; peer < size; peer++) {
        void *base = (void *)&failures; /* must be overwritten */
        size_t peer_bytes = 12345;
        int q = shardtab_node_rank_of(table, peer);

        CALL(shardtab_peer(table, peer, &base, &peer_bytes));
        if (q < 0) {
            CHECK(base == NULL && peer_bytes == 0,
                  "rank %d is off this node, but its entry is %p (%zu bytes)", peer, base,
                  peer_bytes);
            continue;
        }
        on_node++;
        CHECK(shardtab_member(table, q) == peer, "member(%d) is %d, expected %d", q,
              shardtab_member(table, q), peer);
        CHECK(base != NULL, "rank %d is on this node, but its entry is NULL", peer);
        CHECK(peer_bytes == shard_length(peer) * sizeof(uint64_t),
              "rank %d's shard has %zu bytes, expected %zu", peer, peer_bytes,
              shard_length(peer) * sizeof(uint64_t));
        if (peer == rank)
            CHECK(base == shard, "own entry %p is not the shard %p", base, (void *)shard);
        if (base == NULL || peer_bytes != shard_length(peer) * sizeof(uint64_t))
            continue;

        /* On the host backend the entries are CPU pointers; elsewhere copy. */
        const uint64_t *values = base;
        uint64_t *copy = NULL;
        if (shardtab_backend() != SHARDTAB_BACKEND_HOST) {
            copy = malloc(peer_bytes);
            if (copy == NULL)
                MPI_Abort(MPI_COMM_WORLD, 1);
            CALL(shardtab_memcpy_to_host(copy, base, peer_bytes));
            values = copy;
        }
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < shard_length(peer); i++) {
            if (values[i] != pattern(peer, i) && bad++ == 0)
                first = i;
        }
        CHECK(bad == 0, "%zu wrong elements in rank %d's shard, first at %zu", bad, peer, first);
        free(copy);
    }
    CHECK(on_node == node_size, "%d ranks found on this node, node size %d", on_node, node_size);
    CHECK(shardtab_node_rank_of(table, size) == -1, "node_rank_of(size) is not -1");
    CHECK(shardtab_member(table, node_size) == -1, "member(node_size) is not -1");

    /* Everyone has read before the shards change, or anyone tears down. */
    MPI_Barrier(MPI_COMM_WORLD);
#if CONSUMER_WITH_KERNEL
    {
        shardtab_signals_t sig;
        const int me = shardtab_node_rank(table), next = (me + 1) % node_size;
        const int prev = (me + node_size - 1) % node_size;
        uint64_t words[CONSUMER_PUT_WORDS], got[CONSUMER_PUT_WORDS], *dev_words = NULL;
        double value = 0.5 + rank, *dev_value = NULL, want = 0.0;
        int status = -1, *dev_status = NULL;

        for (int i = 0; i < CONSUMER_PUT_WORDS; i++)
            words[i] = pattern(1000 + me, (size_t)i);
        CALL(shardtab_signals(table, &sig));
        CALL(shardtab_mem_alloc(sizeof words, (void **)&dev_words));
        CALL(shardtab_mem_alloc(sizeof value, (void **)&dev_value));
        CALL(shardtab_mem_alloc(sizeof status, (void **)&dev_status));
        CALL(shardtab_memcpy_to_device(dev_words, words, sizeof words));
        CALL(shardtab_memcpy_to_device(dev_value, &value, sizeof value));
        CHECK(consumer_round(&sig, shardtab_device_table(table), next, dev_words, dev_value,
                             dev_status) == 0,
              "the consumer's kernel failed to run");
        CALL(shardtab_memcpy_to_host(&status, dev_status, sizeof status));
        CALL(shardtab_memcpy_to_host(&value, dev_value, sizeof value));
        CALL(shardtab_memcpy_to_host(got, shard, sizeof got));
        CALL(shardtab_signal_check(table));
        CHECK(status == SHARDTAB_WAIT_OK, "the consumer's kernel's wait returned %d", status);
        for (int q = 0; q < node_size; q++) /* node-rank order, as the library sums */
            want += 0.5 + shardtab_member(table, q);
        CHECK(value == want, "the kernel's all-reduce gave %.17g, the node's sum is %.17g", value,
              want);
        for (int i = 0; i < CONSUMER_PUT_WORDS; i++)
            CHECK(got[i] == pattern(1000 + prev, (size_t)i),
                  "word %d put by node rank %d is 0x%llx, expected 0x%llx", i, prev,
                  (unsigned long long)got[i], (unsigned long long)pattern(1000 + prev, (size_t)i));
        CALL(shardtab_mem_free(dev_words));
        CALL(shardtab_mem_free(dev_value));
        CALL(shardtab_mem_free(dev_status));
        MPI_Barrier(MPI_COMM_WORLD);
    }
#endif
    CALL(shardtab_destroy(&table));
    CHECK(table == NULL, "shardtab_destroy left the table pointer set");
    CALL(shardtab_mem_free(shard));
    CALL(shardtab_finalize());
    free(staging);

    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all_failures == 0)
            printf("consumer: OK (%d ranks, backend %s, library %d.%d.%d)\n", size,
                   shardtab_backend_name(shardtab_backend()), SHARDTAB_VERSION_MAJOR,
                   SHARDTAB_VERSION_MINOR, SHARDTAB_VERSION_PATCH);
        else
            printf("consumer: FAILED (%d checks)\n", all_failures);
    }
    MPI_Finalize();
    return all_failures == 0 ? 0 : 1;
}
