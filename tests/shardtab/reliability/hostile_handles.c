/* hostile_handles.c - what a careless or hostile caller hands the C API
 * one case a run:
 *
 *   null-table, destroyed-table, never-a-table
 *                  every call that takes a table, given NULL, a table destroyed
 *                  already (a stale copy of its pointer) or a pointer that was
 *                  never a table, while another table lives and once none
 *                  does: no crash, no read of the memory behind it; the
 *                  queries answer as shardtab.h says (-1, NULL or 0) and record
 *                  why, the status calls return SHARDTAB_ERR_INVALID_ARG with a
 *                  message that names the call; the live table still answers
 *   empty-shard    a non-NULL shard of 0 bytes (on one rank, then on every
 *                  rank) is an empty shard: every rank's entry for it is NULL
 *                  with 0 bytes, in the host copy (shardtab_peer) and in the
 *                  device table, the other ranks' entries as usual, and its
 *                  allocation is not held by the table
 *   past-allocation a shard that runs past the bytes shardtab_mem_alloc was
 *                  asked for (4096 of 100, 2400 of 16, 51 bytes 50 in of 100)
 *                  is refused on every rank, naming the allocation's size:
 *                  the host backend checked the page-rounded size, and a
 *                  peer could write past what the owner asked for; the whole
 *                  allocation, and its tail, still make tables
 *   create-order   tables created out of order (rank 0 'A' while the others
 *                  create 'B'): the create fails on every rank, naming both
 *                  labels (they were paired silently: rank 0's A with the
 *                  others' B); the same labels make a table, which keeps it
 *   destroy-alone  rank 0 destroys a table its peers never destroy: its wait
 *                  ends after 6 x the wait limit (SHARDTAB_WAIT_TIMEOUT) with
 *                  SHARDTAB_ERR_TIMEOUT naming the table and the rule (it
 *                  waited for ever); rank 0 then ends the job, MPI_Abort(3)
 *   destroy-late   a table made with the smallest wait limit accepted (1 ms)
 *                  is destroyed by ranks that arrive 10 ms apart: every
 *                  destroy succeeds (its patience, 6 x the limit, was 6 ms:
 *                  the first rank blamed the others for a misuse)
 *   crossed-destroy rank 0 creates tables A then B, the others B then A (no
 *                  labels: rank 0's A is paired with their B); every rank
 *                  destroys A then B. Destroy A times out on every rank after
 *                  6 x the wait limit; destroy B then fails at once with
 *                  SHARDTAB_ERR_TIMEOUT, saying the table is out of step (it
 *                  waited for ever: its agreement matched another rank's
 *                  pending one, then waited for a rank that never came);
 *                  rank 0 then ends the job, MPI_Abort(3)
 *   late-destroy   rank 0 destroys a table at once, the others 4 s later, past
 *                  rank 0's patience (6 x 0.5 s): rank 0's destroy times out,
 *                  and theirs, whose first agreement completes rank 0's
 *                  pending one, times out 3 s later in the second (it waited
 *                  for ever for rank 0); rank 0 then ends the job, MPI_Abort(3)
 *   refusal-cause  the last rank's shard is 1024 bytes (then empty), and every
 *                  rank calls an all-reduce of 200 doubles (then 1) from byte
 *                  0: that rank's own checks refuse it; every rank then calls
 *                  shardtab_signal_check and agrees, as shardtab.h advises,
 *                  and the agreed message is the refusal's cause (it was "node
 *                  rank N made a call that failed its own checks": the failing
 *                  rank's signal_check replaced its own cause)
 *   stopped-table  a stream-ordered collective stops the node (the last rank's
 *                  count is 4, the others' 3; then the last rank's own checks
 *                  refuse its call): every later broadcast, all-reduce and
 *                  all-gather fails at once on every rank, SHARDTAB_ERR_ABORTED
 *                  saying the table stopped and must be destroyed, and why
 *                  (they returned 0, and signal_check repeated the old cause);
 *                  signal_check still gives the first cause; the table is then
 *                  destroyed
 *   table-limit    live tables until MPI runs out of communicators (Open MPI:
 *                  about 65,000; plain dups take all but 64 first, and the
 *                  tables, two each, the rest): that create fails on every
 *                  rank with a message naming the cause and the count (the
 *                  job aborted with MPI_ERR_INTERN); every table made is
 *                  then destroyed, and one more can be made
 *   bad-comm-handle the Fortran-handle calls (shardtab_init_f, _create_f,
 *                  _agree_f) given 12345, -1, 3 and a freed dup's handle: a
 *                  local SHARDTAB_ERR_INVALID_ARG naming the call and the
 *                  handle, on every rank (Open MPI's MPI_Comm_f2c gives NULL
 *                  there, and the job aborted with MPI_ERR_COMM); a good
 *                  handle still works
 *   finalize-live  shardtab_finalize with live tables is refused on every
 *                  rank, the message naming each table; the tables and their
 *                  memory stay usable (peers written and read, a barrier, an
 *                  all-reduce) and destroyable, the memory then freed, and
 *                  finalize then succeeds, once
 *
 * USAGE  mpiexec -n <1..4> ./hostile_handles CASE
 *        prints ok/FAIL lines, then PASS (or FAIL) and the count
 * Any backend: memory is read through shardtab_memcpy_to_host.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rank_checks.h"
#include "shardtab.h"
#include "shardtab_device.h"

static int rank, size, failures;

static int says(const char *fragment)
{
    return strstr(shardtab_last_error(), fragment) != NULL;
}

/* The last error names `call` and, for a non-NULL handle, says it is not live. */
static int names(const char *call, const shardtab_t *t)
{
    return says(call) && says(t == NULL ? "no table (NULL)" : "not a live table");
}

/* ---- handles ---------------------------------------------------------------- */

/* Every call that takes a table, given t that is not a live table. */
static void not_a_table(const char *what, shardtab_t *t)
{
    shardtab_signals_t sig;
    void *base = (void *)0x1;
    size_t bytes = 7;
    shardtab_status_t s;

#define QUERY(fn, args, want, fmt)                                                                 \
  do {                                                                                             \
    shardtab_error_set(SHARDTAB_SUCCESS, "-");                                                     \
    __typeof__(fn args) got_ = fn args;                                                            \
    CHECK(got_ == (want) && names(#fn, t), "%s: %s is " fmt " and says why: '%s'", what, #fn,      \
          got_, shardtab_last_error());                                                            \
  } while (0)
    QUERY(shardtab_node_size, (t), -1, "%d");
    QUERY(shardtab_node_rank, (t), -1, "%d");
    QUERY(shardtab_node_id, (t), -1, "%d");
    QUERY(shardtab_node_count, (t), -1, "%d");
    QUERY(shardtab_member, (t, 0), -1, "%d");
    QUERY(shardtab_node_rank_of, (t, 0), -1, "%d");
    QUERY(shardtab_peer_access, (t, 0, 0), 0, "%d");
    QUERY(shardtab_peers_opened, (t), -1, "%d");
    QUERY(shardtab_peers_reused, (t), -1, "%d");
    QUERY(shardtab_create_ms, (t), -1.0, "%g");
    QUERY(shardtab_open_ms, (t), -1.0, "%g");
    QUERY(shardtab_wait_timeout, (t), -1.0, "%g");
    QUERY(shardtab_device_table, (t), NULL, "%p");
#undef QUERY

#define STATUS(call, name)                                                                         \
  do {                                                                                             \
    s = (call);                                                                                    \
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && names(name, t), "%s: %s is refused, naming it: '%s'",   \
          what, name, shardtab_last_error());                                                      \
  } while (0)
    STATUS(shardtab_peer(t, 0, &base, &bytes), "shardtab_peer");
    CHECK(base == (void *)0x1 && bytes == 7, "%s: shardtab_peer wrote no output", what);
    memset(&sig, 0x5a, sizeof sig);
    STATUS(shardtab_signals(t, &sig), "shardtab_signals");
    STATUS(shardtab_barrier_on_stream(t, NULL), "shardtab_barrier_on_stream");
    STATUS(shardtab_signal_check(t), "shardtab_signal_check");
    STATUS(shardtab_all_reduce(t, SHARDTAB_SUM, SHARDTAB_DOUBLE, 0, 1, NULL),
           "shardtab_all_reduce");
    STATUS(shardtab_broadcast(t, 0, SHARDTAB_DOUBLE, 0, 1, NULL), "shardtab_broadcast");
    STATUS(shardtab_all_gather(t, SHARDTAB_DOUBLE, 0, 1, NULL), "shardtab_all_gather");
    STATUS(shardtab_table_agree(t, SHARDTAB_SUCCESS), "shardtab_table_agree");
#undef STATUS
    {
        shardtab_t *copy = t;
        s = shardtab_destroy(&copy);
        CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("shardtab_destroy") && copy == t,
              "%s: shardtab_destroy is a local error, the pointer left as it was: '%s'", what,
              shardtab_last_error());
    }
}

/* A live table of 64 doubles a rank, checked to answer; NULL on failure. */
static shardtab_t *live_table(double **shard)
{
    shardtab_t *table = NULL;
    shardtab_status_t s;

    *shard = NULL;
    s = shardtab_mem_alloc(64 * sizeof **shard, (void **)shard);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_create(MPI_COMM_WORLD, *shard, 64 * sizeof **shard, &table);
    s = shardtab_agree(MPI_COMM_WORLD, s);
    CHECK(s == SHARDTAB_SUCCESS, "a live table of 64 doubles a rank");
    if (s != SHARDTAB_SUCCESS)
        return NULL;
    CHECK(shardtab_node_size(table) == size && shardtab_node_rank(table) == rank &&
              shardtab_node_count(table) == 1 && shardtab_member(table, rank) == rank &&
              shardtab_node_rank_of(table, rank) == rank && shardtab_device_table(table) != NULL &&
              shardtab_wait_timeout(table) > 0 && shardtab_peers_opened(table) >= 0,
          "the live table answers its queries (node size %d, node rank %d)",
          shardtab_node_size(table), shardtab_node_rank(table));
    return table;
}

/* The case's bad handle given to every call while another table lives, then
 * after that one is destroyed too. */
static void case_handles(const char *which)
{
    double *shard;
    shardtab_t *table = live_table(&shard), *stale = NULL;
    unsigned char *junk = NULL;

    if (table == NULL)
        return;
    if (strcmp(which, "destroyed-table") == 0) {
        double *other;
        shardtab_t *gone = live_table(&other);
        stale = gone;
        CHECK(gone && shardtab_destroy(&gone) == SHARDTAB_SUCCESS && gone == NULL,
              "a second table is destroyed; a copy of its pointer is kept");
        CHECK(shardtab_mem_free(other) == SHARDTAB_SUCCESS, "its memory is freed");
    } else if (strcmp(which, "never-a-table") == 0) {
        /* bytes that look like nothing a table holds: any read of them as one crashes or lies */
        junk = malloc(1 << 16);
        if (junk)
            memset(junk, 0x5a, 1 << 16);
        stale = (shardtab_t *)(junk + 64);
    }
    not_a_table(which, stale);
    CHECK(shardtab_node_size(table) == size && shardtab_signal_check(table) == SHARDTAB_SUCCESS,
          "the live table still answers");

    CHECK(shardtab_destroy(&table) == SHARDTAB_SUCCESS && table == NULL,
          "the live table is destroyed");
    if (strcmp(which, "null-table") != 0)
        not_a_table(which, stale); /* with no table live at all */
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS, "its memory is freed");
    free(junk);
}

/* ---- empty-shard -------------------------------------------------------------- */

/* Every rank's view of table t, where the ranks in `empty` (a bit each) gave 0
 * bytes and every other rank r gave `bytes_of(r)`: why it is wrong, or "". */
static void check_entries(shardtab_t *t, unsigned empty, size_t (*bytes_of)(int), char *why,
                          size_t why_bytes)
{
    int n = shardtab_node_size(t);
    void **device = calloc((size_t)n, sizeof *device);

    *why = '\0';
    if (device == NULL || shardtab_memcpy_to_host(device, shardtab_device_table(t),
                                                  (size_t)n * sizeof *device) != SHARDTAB_SUCCESS) {
        snprintf(why, why_bytes, "reading the device table: %s", shardtab_last_error());
        free(device);
        return;
    }
    for (int r = 0; r < size && !*why; r++) {
        void *base = (void *)0x1;
        size_t bytes = 7;
        int q = shardtab_node_rank_of(t, r), is_empty = (empty >> r) & 1;
        if (shardtab_peer(t, r, &base, &bytes) != SHARDTAB_SUCCESS)
            snprintf(why, why_bytes, "shardtab_peer(%d): %s", r, shardtab_last_error());
        else if (is_empty && (base != NULL || bytes != 0))
            snprintf(why, why_bytes,
                     "rank %d gave 0 bytes: shardtab_peer gives %p and %zu bytes, "
                     "want NULL and 0",
                     r, base, bytes);
        else if (is_empty && q >= 0 && device[q] != NULL)
            snprintf(why, why_bytes,
                     "rank %d gave 0 bytes: the device table holds %p for it, "
                     "want NULL",
                     r, device[q]);
        else if (!is_empty && (base == NULL || bytes != bytes_of(r) || device[q] != base))
            snprintf(why, why_bytes,
                     "rank %d gave %zu bytes: shardtab_peer gives %p and %zu "
                     "bytes, the device table %p",
                     r, bytes_of(r), base, bytes, device[q]);
    }
    free(device);
}

static size_t bytes_of(int r)
{
    return 64 + 8 * (size_t)r;
}

static void case_empty_shard(void)
{
    char *mem = NULL, why[512];
    shardtab_t *table = NULL;
    shardtab_status_t s;
    const int zero = size - 1; /* the rank whose shard is empty */

    s = shardtab_agree(MPI_COMM_WORLD, shardtab_mem_alloc(4096, (void **)&mem));
    CHECK(s == SHARDTAB_SUCCESS, "an allocation of 4096 bytes a rank");
    if (s != SHARDTAB_SUCCESS)
        return;

    /* one rank: a pointer into its allocation, 0 bytes */
    s = shardtab_create(MPI_COMM_WORLD, mem + 128, rank == zero ? 0 : bytes_of(rank), &table);
    CHECK(s == SHARDTAB_SUCCESS, "a table where rank %d gives a non-NULL shard of 0 bytes", zero);
    if (s == SHARDTAB_SUCCESS) {
        check_entries(table, 1u << zero, bytes_of, why, sizeof why);
        CHECK(*why == '\0',
              "every rank sees rank %d's entry NULL with 0 bytes, the others' "
              "as given%s%s",
              zero, *why ? ": " : "", why);
        s = shardtab_mem_free(mem);
        CHECK(rank == zero ? s == SHARDTAB_SUCCESS : s == SHARDTAB_ERR_INVALID_ARG,
              "the empty shard's allocation is not held by the table (rank %d frees it), the "
              "others' are",
              zero);
        if (rank == zero && s == SHARDTAB_SUCCESS)
            mem = NULL;
        CHECK(shardtab_destroy(&table) == SHARDTAB_SUCCESS, "the table is destroyed");
    }
    s = SHARDTAB_SUCCESS;
    if (mem == NULL)
        s = shardtab_mem_alloc(4096, (void **)&mem);
    s = shardtab_agree(MPI_COMM_WORLD, s);
    CHECK(s == SHARDTAB_SUCCESS, "rank %d allocates again", zero);
    if (s != SHARDTAB_SUCCESS)
        return;

    /* every rank: 0 bytes at its allocation's start */
    s = shardtab_create(MPI_COMM_WORLD, mem, 0, &table);
    CHECK(s == SHARDTAB_SUCCESS, "a table where every rank gives a non-NULL shard of 0 bytes");
    if (s == SHARDTAB_SUCCESS) {
        check_entries(table, ~0u, bytes_of, why, sizeof why);
        CHECK(*why == '\0', "every entry is NULL with 0 bytes%s%s", *why ? ": " : "", why);
        CHECK(shardtab_destroy(&table) == SHARDTAB_SUCCESS, "the table is destroyed");
    }

    /* NULL with 0 bytes: as before, NULL */
    s = shardtab_create(MPI_COMM_WORLD, rank == zero ? NULL : mem,
                        rank == zero ? 0 : bytes_of(rank), &table);
    CHECK(s == SHARDTAB_SUCCESS, "a table where rank %d gives NULL and 0 bytes", zero);
    if (s == SHARDTAB_SUCCESS) {
        check_entries(table, 1u << zero, bytes_of, why, sizeof why);
        CHECK(*why == '\0', "rank %d's entry is NULL, the others' as given%s%s", zero,
              *why ? ": " : "", why);
        CHECK(shardtab_destroy(&table) == SHARDTAB_SUCCESS, "the table is destroyed");
    }
    CHECK(shardtab_mem_free(mem) == SHARDTAB_SUCCESS, "the allocation is freed");
}

/* ---- finalize-live ------------------------------------------------------------ */

static void case_finalize_live(void)
{
    enum { N = 64 };
    double *mem = NULL, mine[N], back[N];
    shardtab_t *a = NULL, *b = NULL;
    shardtab_status_t s;
    char pa[32], pb[32];
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, ok = 1;
    void *peer = NULL;
    size_t bytes = 0;

    s = shardtab_mem_alloc(2 * N * sizeof *mem, (void **)&mem);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_create(MPI_COMM_WORLD, mem, N * sizeof *mem, &a);
    s = shardtab_agree(MPI_COMM_WORLD, s);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_create(MPI_COMM_WORLD, mem + N, N * sizeof *mem, &b);
    CHECK(s == SHARDTAB_SUCCESS, "two live tables over one allocation");
    if (s != SHARDTAB_SUCCESS)
        return;

    snprintf(pa, sizeof pa, "%p", (void *)a);
    snprintf(pb, sizeof pb, "%p", (void *)b);
    s = shardtab_finalize();
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("shardtab_finalize") && says("2 live table") &&
              says(pa) && says(pb) && says("shardtab_destroy"),
          "shardtab_finalize with two live tables is refused on every rank, naming both: '%s'",
          shardtab_last_error());
    s = shardtab_finalize();
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("2 live table"), "and again, the same: '%s'",
          shardtab_last_error());

    /* everything still works: write the next rank's shard of a, read ours back, all-reduce b */
    for (int i = 0; i < N; i++)
        mine[i] = rank * 1000.0 + i;
    s = shardtab_peer(a, next, &peer, &bytes);
    if (s == SHARDTAB_SUCCESS)
        s = write_next_between_barriers(a, peer, mine, sizeof mine);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_memcpy_to_host(back, mem, sizeof back);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_signal_check(a);
    for (int i = 0; s == SHARDTAB_SUCCESS && i < N; i++)
        ok &= back[i] == prev * 1000.0 + i;
    s = shardtab_agree(MPI_COMM_WORLD, s);
    CHECK(s == SHARDTAB_SUCCESS && ok,
          "after it, a pattern goes through a to the next rank "
          "between two barriers: %s",
          s ? shardtab_last_error() : "");
    for (int i = 0; i < N; i++)
        mine[i] = rank + 1.0;
    s = shardtab_memcpy_to_device(mem + N, mine, sizeof mine);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_all_reduce(b, SHARDTAB_SUM, SHARDTAB_DOUBLE, 0, N, NULL);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_stream_synchronize(NULL);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_signal_check(b);
    if (s == SHARDTAB_SUCCESS)
        s = shardtab_memcpy_to_host(back, mem + N, sizeof back);
    for (int i = 0; s == SHARDTAB_SUCCESS && i < N; i++)
        ok &= back[i] == size * (size + 1) / 2.0;
    s = shardtab_agree(MPI_COMM_WORLD, s);
    CHECK(s == SHARDTAB_SUCCESS && ok, "and an all-reduce over b: %s",
          s ? shardtab_last_error() : "");
    CHECK(shardtab_mem_free(mem) == SHARDTAB_ERR_INVALID_ARG && says("a live table"),
          "their memory is still refused to a free while they live: '%s'", shardtab_last_error());

    CHECK(shardtab_destroy(&a) == SHARDTAB_SUCCESS && a == NULL, "a is destroyed");
    s = shardtab_finalize();
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("1 live table") && says(pb) && !says(pa),
          "finalize with b alone live is refused, naming b alone: '%s'", shardtab_last_error());
    CHECK(shardtab_destroy(&b) == SHARDTAB_SUCCESS && b == NULL, "b is destroyed");
    CHECK(shardtab_mem_free(mem) == SHARDTAB_SUCCESS, "their memory is freed");
    CHECK(shardtab_finalize() == SHARDTAB_SUCCESS, "with no table live, finalize succeeds: %s",
          shardtab_last_error());
    s = shardtab_finalize();
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("without shardtab_init"),
          "a second finalize is an error: '%s'", shardtab_last_error());
}

/* ---- shards within their allocation ------------------------------------------ */

static void case_past_allocation(void)
{
    static const struct {
        size_t alloc, offset, bytes;
        int ok;
    } cases[] = {{100, 0, 4096, 0}, {16, 0, 2400, 0}, {100, 50, 51, 0}, {100, 0, 101, 0},
                 {100, 0, 100, 1},  {100, 50, 50, 1}, {16, 0, 16, 1}};

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        void *mem = NULL;
        shardtab_t *t = NULL;
        shardtab_status_t s;
        CHECK(shardtab_mem_alloc(cases[i].alloc, &mem) == SHARDTAB_SUCCESS, "%zu bytes allocated",
              cases[i].alloc);
        s = shardtab_create(MPI_COMM_WORLD, (char *)mem + cases[i].offset, cases[i].bytes, &t);
        if (cases[i].ok) {
            CHECK(s == SHARDTAB_SUCCESS && t != NULL, "%zu bytes %zu in of %zu make a table%s%s",
                  cases[i].bytes, cases[i].offset, cases[i].alloc, s ? ": " : "",
                  s ? shardtab_last_error() : "");
            CHECK(t && shardtab_destroy(&t) == SHARDTAB_SUCCESS, "and it is destroyed");
        } else {
            char alloc_text[48];
            snprintf(alloc_text, sizeof alloc_text, "allocation of %zu bytes", cases[i].alloc);
            CHECK(s != SHARDTAB_SUCCESS && t == NULL && says("runs past") && says(alloc_text),
                  "%zu bytes %zu in of %zu refused: %s", cases[i].bytes, cases[i].offset,
                  cases[i].alloc, shardtab_last_error());
        }
        CHECK(shardtab_mem_free(mem) == SHARDTAB_SUCCESS, "freed");
    }
}

/* ---- creates and destroys in order --------------------------------------------- */

/* A table of 64 bytes a rank labelled `label`, its wait limit wait_s; its
 * shard in *shard. `what` names it in the check. */
static shardtab_t *labelled_table(const char *label, double wait_s, void **shard, const char *what)
{
    shardtab_create_params_t p;
    shardtab_t *t = NULL;

    CHECK(shardtab_mem_alloc(64, shard) == SHARDTAB_SUCCESS, "a shard allocated");
    memset(&p, 0, sizeof p);
    p.label = label;
    p.wait_timeout_s = wait_s;
    CHECK(shardtab_create_with(MPI_COMM_WORLD, *shard, 64, &p, &t) == SHARDTAB_SUCCESS, "%s", what);
    return t;
}

/* One rank alone has no peer to fail it: t is destroyed and its shard freed,
 * and the case is over (1). With peers: 0. */
static int alone_destroys(shardtab_t **t, void *shard)
{
    if (size > 1)
        return 0;
    CHECK(shardtab_destroy(t) == SHARDTAB_SUCCESS, "one rank: the destroy ends");
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS, "its shard freed");
    return 1;
}

/* Rank 0 ends the job after a destroy that left the tables' communicators
 * with pending requests, as shardtab.h says: its verdict, then MPI_Abort(3). */
static void rank0_ends_job(void)
{
    printf("%s: %d checks failed\n", failures ? "FAIL" : "PASS", failures);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void case_create_order(void)
{
    shardtab_create_params_t p;
    shardtab_t *t = NULL;
    void *shard = NULL;
    shardtab_status_t s;

    CHECK(shardtab_mem_alloc(64, &shard) == SHARDTAB_SUCCESS, "a shard allocated");
    memset(&p, 0, sizeof p);
    p.label = rank == 0 ? "A" : "B";
    s = shardtab_create_with(MPI_COMM_WORLD, shard, 64, &p, &t);
    if (size > 1)
        CHECK(s == SHARDTAB_ERR_INVALID_ARG && t == NULL &&
                  says("creates table 'B' where rank 0 creates 'A'") && says("same order"),
              "an out-of-order create is refused on every rank: %s", shardtab_last_error());
    else
        CHECK(s == SHARDTAB_SUCCESS && shardtab_destroy(&t) == SHARDTAB_SUCCESS,
              "one rank: its label is rank 0's");
    p.label = "the same on every rank";
    CHECK(shardtab_create_with(MPI_COMM_WORLD, shard, 64, &p, &t) == SHARDTAB_SUCCESS && t != NULL,
          "the same labels make a table");
    CHECK(t && shardtab_destroy(&t) == SHARDTAB_SUCCESS, "and it is destroyed");
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS, "its shard freed");
}

static void case_destroy_alone(void)
{
    void *shard = NULL;
    shardtab_t *t = labelled_table("lonely", 0.5, &shard, "a table");
    double start;
    shardtab_status_t s;

    if (alone_destroys(&t, shard))
        return;
    if (rank != 0) {
        MPI_Barrier(MPI_COMM_WORLD); /* never destroys it: rank 0's abort ends it here */
        return;
    }
    start = MPI_Wtime();
    s = shardtab_destroy(&t);
    /* rank 0 alone from here: no collective check */
    {
        int ok = s == SHARDTAB_ERR_TIMEOUT && t == NULL && says("table 'lonely' waited 3 s") &&
                 says("destroys another table");
        printf("%s the destroy gave up after %.1f s: %s\n",
               ok ? "ok:  " : "FAIL:", MPI_Wtime() - start, shardtab_last_error());
        failures += !ok;
        rank0_ends_job();
    }
}

static void case_crossed_destroy(void)
{
    shardtab_t *a = NULL, *b = NULL;
    void *shard = NULL;
    double start, took;
    shardtab_status_t s;

    CHECK(shardtab_mem_alloc(64, &shard) == SHARDTAB_SUCCESS, "a shard allocated");
    if (rank == 0) {
        s = shardtab_create(MPI_COMM_WORLD, shard, 64, &a);
        if (s == SHARDTAB_SUCCESS)
            s = shardtab_create(MPI_COMM_WORLD, shard, 64, &b);
    } else {
        s = shardtab_create(MPI_COMM_WORLD, shard, 64, &b);
        if (s == SHARDTAB_SUCCESS)
            s = shardtab_create(MPI_COMM_WORLD, shard, 64, &a);
    }
    CHECK(s == SHARDTAB_SUCCESS, "rank 0 creates A then B, the others B then A");
    if (size == 1) {
        CHECK(shardtab_destroy(&a) == SHARDTAB_SUCCESS && shardtab_destroy(&b) == SHARDTAB_SUCCESS,
              "one rank: both destroys end");
        CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS, "its shard freed");
        return;
    }
    start = MPI_Wtime();
    s = shardtab_destroy(&a);
    took = MPI_Wtime() - start;
    CHECK(s == SHARDTAB_ERR_TIMEOUT && a == NULL && took > 5.0 && says("waited 6 s"),
          "destroy A times out after %.1f s: %s", took, shardtab_last_error());
    start = MPI_Wtime();
    s = shardtab_destroy(&b);
    took = MPI_Wtime() - start;
    CHECK(s == SHARDTAB_ERR_TIMEOUT && b == NULL && took < 1.0 && says("out of step"),
          "destroy B fails at once (%.2f s): %s", took, shardtab_last_error());
    if (rank == 0)
        rank0_ends_job();
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0's abort ends it here */
}

static void case_late_destroy(void)
{
    void *shard = NULL;
    shardtab_t *t = labelled_table("late", 0.5, &shard, "a table");
    double start, took;
    shardtab_status_t s;

    if (alone_destroys(&t, shard))
        return;
    if (rank != 0)
        sleep(4);
    start = MPI_Wtime();
    s = shardtab_destroy(&t);
    took = MPI_Wtime() - start;
    CHECK(s == SHARDTAB_ERR_TIMEOUT && t == NULL && took > 2.5 && took < 4.5 &&
              (rank == 0 ? says("table 'late' waited 3 s") : says("waited 3 s for every rank")),
          "every rank's destroy times out, the late ones too (%.1f s here): %s", took,
          shardtab_last_error());
    if (rank == 0)
        rank0_ends_job();
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0's abort ends it here */
}

/* ---- the cause of a refused collective ---------------------------------------- */

/* The last rank's shard is `last` bytes, the others' 1600; every rank calls an
 * all-reduce of count doubles, then signal_check and the agreement. */
static void refusal_cause(size_t last, size_t count, const char *cause)
{
    const size_t bytes = rank == size - 1 ? last : 1600;
    shardtab_t *t = NULL;
    void *shard = NULL;
    shardtab_status_t s;

    CHECK(shardtab_mem_alloc(1600, &shard) == SHARDTAB_SUCCESS, "a shard allocated");
    CHECK(shardtab_create(MPI_COMM_WORLD, shard, bytes, &t) == SHARDTAB_SUCCESS,
          "a table, the last rank's shard %zu bytes", last);
    s = shardtab_all_reduce(t, SHARDTAB_SUM, SHARDTAB_DOUBLE, 0, count, NULL);
    CHECK(rank == size - 1 ? s == SHARDTAB_ERR_INVALID_ARG && says(cause) : 1,
          "the last rank's all-reduce of %zu doubles is refused there: %s", count,
          rank == size - 1 ? shardtab_last_error() : "");
    if (size > 1) { /* alone, the call's own refusal is all: nothing stops */
        s = shardtab_agree(MPI_COMM_WORLD, shardtab_signal_check(t));
        CHECK(s == SHARDTAB_ERR_INVALID_ARG && says(cause),
              "signal_check, agreed, carries the cause: %s", shardtab_last_error());
    }
    CHECK(shardtab_destroy(&t) == SHARDTAB_SUCCESS, "the table destroyed");
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS, "its shard freed");
}

static void case_refusal_cause(void)
{
    refusal_cause(1024, 200,
                  "200 double values from byte 0 need 1600 bytes, past this rank's shard of "
                  "1024 bytes");
    refusal_cause(0, 1,
                  "1 double values from byte 0 need 8 bytes, past this rank's shard of 0 "
                  "bytes");
}

/* ---- a stopped table's later calls ------------------------------------------- */

/* An all-reduce of count doubles (the last rank: last_count) stops the node;
 * every later call must be refused at once, naming the cause as this rank knew
 * it (a fragment of its message: the last rank's, the others'). */
static void stopped_table(const char *what, size_t count, size_t last_count, const char *cause,
                          const char *others_cause)
{
    static const char *const names[] = {"shardtab_broadcast", "shardtab_all_reduce",
                                        "shardtab_all_gather"};
    shardtab_t *t = NULL;
    void *shard = NULL;
    shardtab_status_t s;
    double start;

    CHECK(shardtab_mem_alloc(64, &shard) == SHARDTAB_SUCCESS, "a shard allocated");
    CHECK(shardtab_create(MPI_COMM_WORLD, shard, 64, &t) == SHARDTAB_SUCCESS, "a table");
    s = shardtab_all_reduce(t, SHARDTAB_SUM, SHARDTAB_DOUBLE, 0,
                            rank == size - 1 ? last_count : count, NULL);
    s = shardtab_agree(MPI_COMM_WORLD, s != SHARDTAB_SUCCESS ? s : shardtab_signal_check(t));
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && says(cause), "%s stops the node: %s", what,
          shardtab_last_error());
    for (int call = 0; call < 3; call++) {
        start = MPI_Wtime();
        s = call == 0   ? shardtab_broadcast(t, 0, SHARDTAB_DOUBLE, 0, 3, NULL)
            : call == 1 ? shardtab_all_reduce(t, SHARDTAB_SUM, SHARDTAB_DOUBLE, 0, 3, NULL)
                        : shardtab_all_gather(t, SHARDTAB_DOUBLE, 0, 1, NULL);
        CHECK(s == SHARDTAB_ERR_ABORTED && MPI_Wtime() - start < 1.0 && says(names[call]) &&
                  says("refused: this table stopped at an earlier call; destroy it. It stopped "
                       "because: ") &&
                  says(rank == size - 1 ? cause : others_cause),
              "then %s is refused at once on every rank: %s", names[call], shardtab_last_error());
    }
    s = shardtab_agree(MPI_COMM_WORLD, shardtab_signal_check(t));
    CHECK(s == SHARDTAB_ERR_INVALID_ARG && says(cause) && !says("refused: this table"),
          "signal_check, agreed, still gives the first cause: %s", shardtab_last_error());
    CHECK(shardtab_destroy(&t) == SHARDTAB_SUCCESS, "the stopped table is destroyed");
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS, "its shard freed");
}

static void case_stopped_table(void)
{
    if (size == 1) {
        if (rank == 0)
            printf("ok:   one rank: no node to stop\n");
        return;
    }
    stopped_table("counts that differ (3, the last rank 4)", 3, 4, "disagree", "disagree");
    /* the others know only who refused: its own words reach them in the agreement */
    stopped_table("the last rank's call past its shard", 3, 9, "past this rank's shard",
                  "made a call that failed its own checks");
}

static void case_destroy_late(void)
{
    const struct timespec late = {0, 10000000L * rank}; /* rank r arrives r x 10 ms late */
    void *shard = NULL;
    shardtab_t *t = labelled_table("late", 0.001, &shard, "a table with a wait limit of 1 ms");
    shardtab_status_t s;

    nanosleep(&late, NULL);
    s = shardtab_destroy(&t);
    if (s != SHARDTAB_SUCCESS) {
        /* the peers may wait for this rank in the destroy: no collective check */
        printf("FAIL: rank %d: the destroy of ranks 10 ms apart failed: %s\n", rank,
               shardtab_last_error());
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    CHECK(s == SHARDTAB_SUCCESS && t == NULL, "ranks 10 ms apart destroy it under a 1 ms limit");
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS, "its shard freed");
}

/* ---- MPI's limit on communicators ----------------------------------------------- */

#define TABLE_LIMIT_TRIES 70000 /* beyond any limit seen (Open MPI 4.1: 32,000 to 34,000) */
#define TABLE_LIMIT_HEADROOM 64 /* communicators left to the tables: 30 tables or so */

/* MPI's communicators, all but TABLE_LIMIT_HEADROOM of them, taken by plain dups (Open
 * MPI 4.1 makes 65,000 in a second; as many tables take a minute and more): the tables
 * then reach the real limit after a few dozen. The dups are returned by
 * release_communicators. *count is how many were kept. */
static MPI_Comm *take_communicators(int *count)
{
    MPI_Comm *dups = calloc(TABLE_LIMIT_TRIES * 2, sizeof *dups);
    MPI_Errhandler was;
    int n = 0;

    /* dups of MPI_COMM_WORLD itself: after a dup of a dup failed there, freeing the
     * parent left Open MPI 4.1 to crash in the next collective on a new communicator */
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &was);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    while (dups && n < TABLE_LIMIT_TRIES * 2 &&
           MPI_Comm_dup(MPI_COMM_WORLD, &dups[n]) == MPI_SUCCESS)
        n++;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, was);
    MPI_Errhandler_free(&was);
    for (int i = 0; i < TABLE_LIMIT_HEADROOM && n > 0; i++)
        MPI_Comm_free(&dups[--n]);
    *count = n;
    return dups;
}

static void release_communicators(MPI_Comm *dups, int count)
{
    for (int i = count - 1; i >= 0; i--)
        MPI_Comm_free(&dups[i]);
    free(dups);
}

static void case_table_limit(void)
{
    shardtab_t **tables = calloc(TABLE_LIMIT_TRIES, sizeof *tables);
    void *shard = NULL;
    shardtab_status_t s = SHARDTAB_SUCCESS;
    int made = 0, destroyed = 0, taken = 0;
    MPI_Comm *dups;

    CHECK(tables != NULL && shardtab_mem_alloc(64, &shard) == SHARDTAB_SUCCESS, "a shard");
    dups = take_communicators(&taken);
    CHECK(dups != NULL && taken > 0, "%d communicators taken by plain dups, %d left to the tables",
          taken, TABLE_LIMIT_HEADROOM);
    while (made < TABLE_LIMIT_TRIES &&
           (s = shardtab_create(MPI_COMM_WORLD, shard, 64, &tables[made])) == SHARDTAB_SUCCESS)
        made++;
    CHECK(made > 0 && made < TABLE_LIMIT_TRIES && s == SHARDTAB_ERR_MPI && says("MPI_Comm_dup") &&
              says("live table(s), and each holds two communicators"),
          "table %d fails with a message, not an abort: %s", made + 1, shardtab_last_error());
    for (int i = made - 1; i >= 0; i--)
        destroyed += shardtab_destroy(&tables[i]) == SHARDTAB_SUCCESS;
    CHECK(destroyed == made, "the %d tables made are destroyed", made);
    release_communicators(dups, taken);
    CHECK(shardtab_create(MPI_COMM_WORLD, shard, 64, &tables[0]) == SHARDTAB_SUCCESS &&
              shardtab_destroy(&tables[0]) == SHARDTAB_SUCCESS,
          "and a table can be made again");
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS, "its shard freed");
    free(tables);
}

/* ---- Fortran communicator handles ------------------------------------------- */

static void case_bad_comm_handle(void)
{
    MPI_Comm dup;
    MPI_Fint freed, bad[4];
    shardtab_t *t = NULL;
    void *shard = NULL;

    CHECK(shardtab_mem_alloc(64, &shard) == SHARDTAB_SUCCESS, "a shard allocated");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    freed = MPI_Comm_c2f(dup);
    MPI_Comm_free(&dup);
    bad[0] = 12345;
    bad[1] = -1;
    bad[2] = 3;
    bad[3] = freed;
    for (int i = 0; i < 4; i++) {
        char handle[32];
        shardtab_status_t s;
        snprintf(handle, sizeof handle, "handle %d", (int)bad[i]);
        s = shardtab_create_f(bad[i], shard, 64, NULL, &t);
        CHECK(s == SHARDTAB_ERR_INVALID_ARG && t == NULL && says("shardtab_create") && says(handle),
              "shardtab_create_f(%d) refused: %s", (int)bad[i], shardtab_last_error());
        s = shardtab_agree_f(bad[i], SHARDTAB_SUCCESS);
        CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("shardtab_agree") && says(handle),
              "shardtab_agree_f(%d) refused: %s", (int)bad[i], shardtab_last_error());
        s = shardtab_init_f(bad[i], 0);
        CHECK(s == SHARDTAB_ERR_INVALID_ARG && says("shardtab_init") && says(handle),
              "shardtab_init_f(%d) refused: %s", (int)bad[i], shardtab_last_error());
    }
    CHECK(shardtab_create_f(MPI_Comm_c2f(MPI_COMM_WORLD), shard, 64, NULL, &t) ==
                  SHARDTAB_SUCCESS &&
              t != NULL,
          "a good handle still makes a table: %s", t ? "" : shardtab_last_error());
    CHECK(shardtab_agree_f(MPI_Comm_c2f(MPI_COMM_WORLD), SHARDTAB_SUCCESS) == SHARDTAB_SUCCESS,
          "and agrees");
    CHECK(t && shardtab_destroy(&t) == SHARDTAB_SUCCESS, "and is destroyed");
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS, "its shard freed");
}

/* The cases, in the order the usage names them; NULL: a bad handle (case_handles). */
static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"null-table", NULL},
    {"destroyed-table", NULL},
    {"never-a-table", NULL},
    {"empty-shard", case_empty_shard},
    {"finalize-live", case_finalize_live}, /* finalizes itself */
    {"bad-comm-handle", case_bad_comm_handle},
    {"past-allocation", case_past_allocation},
    {"create-order", case_create_order},
    {"destroy-alone", case_destroy_alone},
    {"table-limit", case_table_limit},
    {"crossed-destroy", case_crossed_destroy},
    {"late-destroy", case_late_destroy},
    {"refusal-cause", case_refusal_cause},
    {"stopped-table", case_stopped_table},
    {"destroy-late", case_destroy_late},
};

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    size_t chosen = sizeof cases / sizeof *cases;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (strcmp(which, cases[i].name) == 0)
            chosen = i;
    if (chosen == sizeof cases / sizeof *cases) {
        if (rank == 0) {
            fprintf(stderr, "usage: hostile_handles ");
            for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
                fprintf(stderr, "%s%s", i ? "|" : "", cases[i].name);
            fprintf(stderr, "\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (shardtab_init(MPI_COMM_WORLD, NULL) != SHARDTAB_SUCCESS) {
        if (rank == 0)
            printf("FAIL: shardtab_init: %s\n", shardtab_last_error());
        MPI_Finalize();
        return 1;
    }
    if (cases[chosen].run != NULL)
        cases[chosen].run();
    else
        case_handles(which);
    if (strcmp(which, "finalize-live") != 0) {
        shardtab_status_t s = shardtab_finalize();
        CHECK(s == SHARDTAB_SUCCESS, "finalize%s%s", s ? ": " : "", s ? shardtab_last_error() : "");
    }
    if (rank == 0)
        printf(failures ? "FAIL: %d check(s) failed\n" : "PASS: 0 checks failed\n", failures);
    MPI_Finalize();
    return failures != 0;
}
