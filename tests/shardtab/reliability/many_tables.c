/* many_tables.c - any number of live tables over one allocation:
 * two tables over its halves, a table that overlaps another, 100 tables over
 * uneven slices destroyed in a shuffled order, and failed creates that found
 * the peers' allocations open already. Checked every time: each table's view
 * of every node peer holds exactly what that peer wrote there, each peer
 * allocation is opened once per process and closed after its last table, and
 * the allocation cannot be freed while any table in it lives.
 *
 * USAGE  mpiexec -n <1..4> ./many_tables [--allow-shared-device]
 *        prints ok/FAIL lines, then PASS; the option lets ranks share a GPU
 * Any backend: peers are read through shardtab_memcpy_to_host, as a GPU needs.
 * With SHARDTAB_RANKS_PER_NODE=1 every node has one rank and nothing is opened.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_checks.h"
#include "shardtab.h"

#define WORDS (64 * 1024) /* uint32 words in each rank's allocation */
#define MANY 100

static int rank, size, failures;

/* What rank r keeps in word i of its allocation: differs per rank and word. */
static uint32_t pattern(int r, size_t i)
{
    uint32_t x = (uint32_t)(r + 1) * 2654435761u ^ (uint32_t)i * 40503u;
    return x ^ (x >> 15);
}

typedef struct slice {
    size_t first, words; /* in this rank's allocation; words 0: an empty shard */
    shardtab_t *table;
} slice_t;

static uint32_t *mem;     /* this rank's allocation (device memory on a GPU) */
static uint32_t *scratch; /* host copy of one peer's slice */

/* Rank r's slice of table i of the hundred: uneven across ranks and tables;
 * some ranks hold nothing in some tables. */
static slice_t many_slice(int i, int r)
{
    slice_t s = {0, 0, NULL};
    if (i > 0 && i % 7 == r % 7)
        return s;
    s.first = ((size_t)i * 389u + (size_t)r * 61u) % (WORDS / 2);
    s.words = 1 + ((size_t)i * 131u + (size_t)r * 17u) % 700u;
    return s;
}

static shardtab_status_t create(slice_t *s)
{
    return shardtab_create(MPI_COMM_WORLD, s->words ? mem + s->first : NULL, s->words * sizeof *mem,
                           &s->table);
}

/* Every node peer's entry in t holds that peer's pattern at the slice the peer
 * gave (slice_of(r)), whole; an off-node rank has no entry. */
static int views_hold(const shardtab_t *t, slice_t (*slice_of)(int, int), int i, char *why,
                      size_t why_bytes)
{
    for (int r = 0; r < size; r++) {
        slice_t want = slice_of(i, r);
        void *peer = NULL;
        size_t bytes = 0;
        int on_node = shardtab_node_rank_of(t, r) >= 0;
        if (shardtab_peer(t, r, &peer, &bytes) != SHARDTAB_SUCCESS) {
            snprintf(why, why_bytes, "shardtab_peer(%d): %s", r, shardtab_last_error());
            return 0;
        }
        if (!on_node || want.words == 0) {
            if (peer != NULL || bytes != 0) {
                snprintf(why, why_bytes, "rank %d: an entry %p (%zu bytes) where none belongs", r,
                         peer, bytes);
                return 0;
            }
            continue;
        }
        if (peer == NULL || bytes != want.words * sizeof *mem) {
            snprintf(why, why_bytes, "rank %d: entry %p of %zu bytes, want %zu bytes", r, peer,
                     bytes, want.words * sizeof *mem);
            return 0;
        }
        if (shardtab_memcpy_to_host(scratch, peer, bytes) != SHARDTAB_SUCCESS) {
            snprintf(why, why_bytes, "reading rank %d: %s", r, shardtab_last_error());
            return 0;
        }
        for (size_t k = 0; k < want.words; k++)
            if (scratch[k] != pattern(r, want.first + k)) {
                snprintf(why, why_bytes, "table %d, rank %d, word %zu of its slice: %#x, want %#x",
                         i, r, k, scratch[k], pattern(r, want.first + k));
                return 0;
            }
    }
    return 1;
}

static slice_t half_slice(int i, int r)
{
    slice_t s = {i == 0 ? 0 : WORDS / 2, WORDS / 2 - (size_t)r * 3, NULL};
    return s;
}

static slice_t kept_slice(int i, int r)
{
    slice_t s = {100, 300, NULL};
    (void)i, (void)r;
    return s;
}

int main(int argc, char **argv)
{
    uint32_t *host;
    slice_t halves[2], many[MANY], a, b;
    shardtab_device_info_t info;
    int order[MANY], node_peers, opened_ok = 1, reused_ok = 1, views_ok = 1, live, free_ok = 1;
    long maps_before = -1;
    char why[512] = "";
    shardtab_status_t s;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    {
        shardtab_init_params_t params = {0};
        params.allow_shared_device = argc > 1 && strcmp(argv[1], "--allow-shared-device") == 0;
        s = shardtab_init(MPI_COMM_WORLD, &params);
    }
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_mem_alloc(WORDS * sizeof *mem, (void **)&mem);
    host = malloc(WORDS * sizeof *host);
    scratch = malloc(WORDS * sizeof *scratch);
    if (s == SHARDTAB_SUCCESS && (host == NULL || scratch == NULL))
        s = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of two host buffers failed");
    for (size_t i = 0; host && i < WORDS; i++)
        host[i] = pattern(rank, i);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_memcpy_to_device(mem, host, WORDS * sizeof *mem);
    s = shardtab_agree(MPI_COMM_WORLD, s);
    if (s != SHARDTAB_SUCCESS) {
        if (rank == 0)
            printf("FAIL: set-up: %s\n", shardtab_last_error());
        MPI_Finalize();
        return 1;
    }
    shardtab_device_info(&info);

    /* ---- two tables, one per half, destroyed first-made-last ---- */
    for (int i = 0; i < 2; i++) {
        halves[i] = half_slice(i, rank);
        s = shardtab_agree(MPI_COMM_WORLD, create(&halves[i]));
        CHECK(s == SHARDTAB_SUCCESS, "table %d over the %s half of each allocation%s%s", i,
              i ? "upper" : "lower", s ? ": " : "", s ? shardtab_last_error() : "");
        if (s != SHARDTAB_SUCCESS)
            goto out;
    }
    node_peers = shardtab_node_size(halves[0].table) - 1;
    CHECK(shardtab_peers_opened(halves[0].table) == 2 * node_peers &&
              shardtab_peers_reused(halves[0].table) == 0,
          "the first opened each node peer's allocation and signal pad (%d of %d), reused none",
          shardtab_peers_opened(halves[0].table), 2 * node_peers);
    CHECK(shardtab_peers_opened(halves[1].table) == 0 &&
              shardtab_peers_reused(halves[1].table) == 2 * node_peers,
          "the second opened nothing (%d), found all %d open",
          shardtab_peers_opened(halves[1].table), shardtab_peers_reused(halves[1].table));
    CHECK(shardtab_peer_mappings() == 2 * node_peers,
          "the process maps %d peer allocations, want %d", shardtab_peer_mappings(),
          2 * node_peers);
    for (int i = 0; i < 2; i++)
        CHECK(views_hold(halves[i].table, half_slice, i, why, sizeof why),
              "table %d: every node peer's half holds that peer's words%s%s", i, *why ? ": " : "",
              why);
    s = shardtab_mem_free(mem);
    CHECK(s == SHARDTAB_ERR_INVALID_ARG, "freeing the allocation while two tables live: refused");
    CHECK(shardtab_destroy(&halves[0].table) == SHARDTAB_SUCCESS,
          "the first table is destroyed first");
    CHECK(views_hold(halves[1].table, half_slice, 1, why, sizeof why),
          "the second still reads every peer%s%s", *why ? ": " : "", why);
    CHECK(shardtab_peer_mappings() == 2 * node_peers, "and its mappings stay (%d)",
          shardtab_peer_mappings());
    CHECK(shardtab_mem_free(mem) == SHARDTAB_ERR_INVALID_ARG, "freeing while one lives: refused");
    CHECK(shardtab_destroy(&halves[1].table) == SHARDTAB_SUCCESS, "then the second");
    CHECK(shardtab_peer_mappings() == 0, "no peer allocation is mapped after the last (%d)",
          shardtab_peer_mappings());
    if (info.backend == SHARDTAB_BACKEND_HOST)
        maps_before = count_lines("/proc/self/maps");

    /* ---- a table over a slice that overlaps another's ---- */
    a = (slice_t){1024, 2048, NULL};
    b = (slice_t){2048, 2048, NULL}; /* words [2048, 3072) are in both */
    s = shardtab_agree(MPI_COMM_WORLD, create(&a));
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_agree(MPI_COMM_WORLD, create(&b));
    CHECK(s == SHARDTAB_SUCCESS, "two tables whose slices overlap by 1024 words%s%s", s ? ": " : "",
          s ? shardtab_last_error() : "");
    if (s == SHARDTAB_SUCCESS) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size, ok = 1;
        uint32_t mark = 0xC0DE0000u + (uint32_t)rank * 0x101u, seen[2] = {0, 0};
        void *pa, *pb;
        size_t ba, bb;
        /* rank r writes into rank next's memory through b; reads it back through a */
        shardtab_peer(b.table, next, &pb, &bb);
        shardtab_peer(a.table, next, &pa, &ba);
        if (pb != NULL) {
            ok = shardtab_memcpy_to_device((uint32_t *)pb + 5, &mark, sizeof mark) == 0 &&
                 shardtab_device_synchronize() == 0;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (pa != NULL)
            ok = ok &&
                 shardtab_memcpy_to_host(&seen[0], (uint32_t *)pa + 1024 + 5, sizeof mark) == 0 &&
                 seen[0] == mark;
        /* ours holds what prev wrote, if prev shares our node */
        ok = ok && shardtab_memcpy_to_host(&seen[1], mem + 2048 + 5, sizeof *mem) == 0;
        if (shardtab_node_rank_of(a.table, prev) >= 0)
            ok = ok && seen[1] == 0xC0DE0000u + (uint32_t)prev * 0x101u;
        else
            ok = ok && seen[1] == pattern(rank, 2048 + 5);
        CHECK(ok, "a word written through one table is read through the other, and in the owner's "
                  "memory");
        /* put the pattern back */
        shardtab_memcpy_to_device(mem + 2048 + 5, &host[2048 + 5], sizeof *mem);
        shardtab_device_synchronize();
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(shardtab_peers_opened(b.table) == 0, "the overlapping table opened nothing (%d)",
              shardtab_peers_opened(b.table));
    }
    if (b.table)
        shardtab_destroy(&b.table);
    if (a.table)
        shardtab_destroy(&a.table);
    CHECK(shardtab_peer_mappings() == 0, "nothing mapped after both are destroyed (%d)",
          shardtab_peer_mappings());

    /* ---- a hundred tables over uneven slices, destroyed in a shuffled order ---- */
    for (int i = 0; i < MANY; i++) {
        many[i] = many_slice(i, rank);
        s = shardtab_agree(MPI_COMM_WORLD, create(&many[i]));
        if (s != SHARDTAB_SUCCESS)
            break;
        if (i > 0 && shardtab_peers_opened(many[i].table) != 0)
            opened_ok = 0;
        if (i == 0 && shardtab_peers_opened(many[i].table) != 2 * node_peers)
            opened_ok = 0;
        if (i > 0 && shardtab_peers_reused(many[i].table) < node_peers)
            reused_ok = 0;
    }
    CHECK(s == SHARDTAB_SUCCESS, "%d tables over slices of one allocation, some empty%s%s", MANY,
          s ? ": " : "", s ? shardtab_last_error() : "");
    if (s != SHARDTAB_SUCCESS)
        goto out;
    CHECK(opened_ok && reused_ok,
          "only the first opened anything; the other %d found every "
          "peer allocation open",
          MANY - 1);
    CHECK(shardtab_peer_mappings() == 2 * node_peers,
          "the process maps %d peer allocations for "
          "all of them, want %d",
          shardtab_peer_mappings(), 2 * node_peers);
    for (int i = 0; i < MANY; i++)
        order[i] = i;
    {
        uint32_t x = 12345u; /* the same shuffle on every rank: destroy is collective */
        for (int i = MANY - 1; i > 0; i--) {
            int j;
            x = x * 1664525u + 1013904223u;
            j = (int)(x % (uint32_t)(i + 1));
            int swapped = order[i];
            order[i] = order[j];
            order[j] = swapped;
        }
    }
    live = MANY;
    for (int k = 0; k < MANY; k++) {
        int i = order[k];
        for (int j = 0; j < MANY && views_ok && k % 10 == 0; j++)
            if (many[j].table && !views_hold(many[j].table, many_slice, j, why, sizeof why))
                views_ok = 0;
        if (shardtab_mem_free(mem) != SHARDTAB_ERR_INVALID_ARG)
            free_ok = 0;
        if (shardtab_destroy(&many[i].table) != SHARDTAB_SUCCESS)
            views_ok = 0, snprintf(why, sizeof why, "destroy: %s", shardtab_last_error());
        live--;
        if (live > 0 && shardtab_peer_mappings() != 2 * node_peers)
            views_ok = 0, snprintf(why, sizeof why, "%d mappings with %d tables live",
                                   shardtab_peer_mappings(), live);
    }
    CHECK(views_ok, "destroyed in a shuffled order; the live tables read every peer throughout%s%s",
          *why ? ": " : "", why);
    CHECK(free_ok, "the allocation could not be freed while any of them lived");
    CHECK(shardtab_peer_mappings() == 0, "nothing mapped after the last (%d)",
          shardtab_peer_mappings());

    /* ---- signal pads across chunks: a pad that needs a new chunk opens it on
     * every peer, one that fits a gap opens nothing; barriers on every table
     * prove each pad is where its peers map it ---- */
    {
        static const int slots[8] = {60000, 60000, 60000, 60000, 60000, 100, 1 << 20, 100};
        /* pads of 60000 slots: two to a 1 MiB chunk; 2^20 slots: a chunk of its own */
        static const int new_chunk[8] = {1, 0, 1, 0, 1, 0, 1, 0};
        shardtab_t *t[8] = {NULL};
        int opened_as_expected = 1, ok = 1;
        static const int destroy_order[8] = {6, 0, 7, 3, 2, 4, 5, 1};
        for (int i = 0; i < 8 && ok; i++) {
            shardtab_create_params_t params = {0};
            params.signal_slots = slots[i];
            if (i == 5) /* first free a pad of the first chunk: a gap to fill */
                ok = shardtab_destroy(&t[1]) == SHARDTAB_SUCCESS;
            s = shardtab_agree(MPI_COMM_WORLD, shardtab_create_with(MPI_COMM_WORLD, mem + 16 * i,
                                                                    64, &params, &t[i]));
            ok = ok && s == SHARDTAB_SUCCESS;
            if (ok && shardtab_peers_opened(t[i]) != (i == 0 ? 2 : new_chunk[i]) * node_peers)
                opened_as_expected = 0;
        }
        CHECK(ok, "8 tables with pads of 60000, 100 and 2^20 slots, one destroyed in between%s%s",
              ok ? "" : ": ", ok ? "" : shardtab_last_error());
        CHECK(opened_as_expected, "a pad that needed a new chunk opened it on every peer, the "
                                  "others opened nothing");
        for (int i = 0; i < 8 && ok; i++) {
            if (t[i] == NULL)
                continue;
            for (int k = 0; k < 3 && s == SHARDTAB_SUCCESS; k++)
                s = shardtab_barrier_on_stream(t[i], NULL);
            if (s == SHARDTAB_SUCCESS)
                s = shardtab_device_synchronize();
            if (s == SHARDTAB_SUCCESS)
                s = shardtab_signal_check(t[i]);
            ok = shardtab_agree(MPI_COMM_WORLD, s) == SHARDTAB_SUCCESS;
        }
        CHECK(ok, "three barriers on each of the 7 live tables, their pads sharing chunks%s%s",
              ok ? "" : ": ", ok ? "" : shardtab_last_error());
        for (int k = 0; k < 8; k++)
            if (t[destroy_order[k]] != NULL &&
                shardtab_destroy(&t[destroy_order[k]]) != SHARDTAB_SUCCESS)
                ok = 0;
        CHECK(ok && shardtab_peer_mappings() == 0,
              "all destroyed in another order; %d mappings "
              "left",
              shardtab_peer_mappings());
    }

    /* ---- a create that found everything open, failed midway ---- */
    a = (slice_t){100, 300, NULL};
    s = shardtab_agree(MPI_COMM_WORLD, create(&a));
    CHECK(s == SHARDTAB_SUCCESS, "a table to keep alive");
    if (s != SHARDTAB_SUCCESS)
        goto out;
    {
        static const char *faults[] = {"open", "upload"};
        for (int f = 0; f < 2; f++) {
            char text[32];
            snprintf(text, sizeof text, "%s:%d", faults[f], size - 1);
            setenv("SHARDTAB_FAULT", text, 1);
            b = (slice_t){200, 500, NULL};
            s = create(&b);
            unsetenv("SHARDTAB_FAULT");
            CHECK(s == (f == 0 ? SHARDTAB_ERR_IPC : SHARDTAB_ERR_DEVICE) && b.table == NULL &&
                      strstr(shardtab_last_error(), text) != NULL,
                  "SHARDTAB_FAULT=%s in a create that hit the cache fails on every rank: '%s'",
                  text, shardtab_last_error());
            CHECK(shardtab_peer_mappings() == 2 * node_peers,
                  "it let go of what it took: %d mappings, as before", shardtab_peer_mappings());
            *why = '\0';
            CHECK(views_hold(a.table, kept_slice, 0, why, sizeof why),
                  "the live table still reads every peer%s%s", *why ? ": " : "", why);
        }
    }
    CHECK(shardtab_destroy(&a.table) == SHARDTAB_SUCCESS && shardtab_peer_mappings() == 0,
          "the kept table still destroys cleanly, closing the last mappings (%d left)",
          shardtab_peer_mappings());
    /* the library's own count could be wrong with it: a fresh table must open again */
    b = (slice_t){0, 16, NULL};
    s = shardtab_agree(MPI_COMM_WORLD, create(&b));
    CHECK(s == SHARDTAB_SUCCESS && shardtab_peers_opened(b.table) == 2 * node_peers,
          "a new table opens everything again (%d of %d): the failed creates left no user behind",
          b.table ? shardtab_peers_opened(b.table) : -1, 2 * node_peers);
    if (b.table)
        shardtab_destroy(&b.table);
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer's allocator maps memory of its own as the test goes:
     * LeakSanitizer is the leak check there, and the mapping count above */
    if (rank == 0)
        printf("skip: /proc/self/maps under AddressSanitizer (its allocator maps as it goes)\n");
    (void)maps_before;
#else
    if (info.backend == SHARDTAB_BACKEND_HOST) {
        long now = count_lines("/proc/self/maps");
        CHECK(now == maps_before,
              "/proc/self/maps has as many lines as after the first two "
              "tables were gone: %ld, then %ld",
              maps_before, now);
    }
#endif
    CHECK(shardtab_mem_free(mem) == SHARDTAB_SUCCESS,
          "with every table gone, the allocation is freed");

out:
    if (rank == 0)
        printf(failures ? "FAIL: %d check(s) failed\n" : "PASS: 0 checks failed\n", failures);
    free(host);
    free(scratch);
    shardtab_finalize();
    MPI_Finalize();
    return failures != 0;
}
