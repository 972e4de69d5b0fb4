/* cycle_table.c - 1000 create/destroy cycles of a table in one process, and
 * the resources they must not leak: open descriptors, mappings, RSS, VmSize.
 *
 * USAGE  mpiexec -n 2 ./cycle_table [--cycles N] [--warmup W] [--bytes B]
 *                                   [--rss-slack KIB] [--vm-slack KIB] [--maps-slack N]
 *                                   [--inject-leak] [--allow-shared-device]
 * Two variants, each measured after W warm-up cycles and again after N:
 *   fresh   each cycle: shardtab_mem_alloc, shardtab_create, write into every
 *           peer's shard through shardtab_peer, shardtab_destroy, check what
 *           the peers wrote, shardtab_mem_free
 *   reuse   one shard allocated once, then N x (create, touch, destroy)
 * Descriptors (/proc/self/fd) must be equal and mappings (/proc/self/maps
 * lines) equal too unless --maps-slack allows a few more (default 0: the
 * plain ctest run stays strict; valgrind's own arenas add lines as memory
 * churns, so sanitize.sh gives it a slack and leaves leaks to memcheck);
 * VmRSS and VmSize may grow by at most their slack (default 1024 KiB).
 * Every rank checks itself; rank 0 prints every rank's counts. Exit 0 when
 * all ranks pass, 1 otherwise. --inject-leak leaks one descriptor, one page
 * mapping and one heap block per cycle on purpose, to prove that this check,
 * LeakSanitizer and valgrind see a leak (sanitize.sh runs it that way too).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rank_checks.h"
#include "shardtab.h"

typedef struct usage {
    long fds, maps, rss_kib, vm_kib;
} usage_t;

typedef struct config {
    int cycles, warmup;
    size_t bytes;
    long rss_slack_kib, vm_slack_kib, maps_slack;
    int inject_leak;
} config_t;

static int rank, size;
static void *volatile leaked_block; /* --inject-leak overwrites it: lost */

static long count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    long n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the descriptor of the listing itself */
}

static long status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t len = strlen(key);

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, len) == 0 && line[len] == ':') {
            v = strtol(line + len + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static usage_t measure(void)
{
    usage_t u;
    /* counted in a fixed order, with nothing allocated in between that stays */
    u.fds = count_fds();
    u.maps = count_lines("/proc/self/maps");
    u.rss_kib = status_kib("VmRSS");
    u.vm_kib = status_kib("VmSize");
    return u;
}

static int check(shardtab_status_t s, const char *what)
{
    if (s == SHARDTAB_SUCCESS)
        return 0;
    fprintf(stderr, "cycle_table: rank %d: %s failed: %s: %s\n", rank, what,
            shardtab_status_string(s), shardtab_last_error());
    return 1;
}

/* One cycle on shard (bytes long); pass alloc=1 to allocate and free it here.
 * Every rank writes (rank + 1) * 1000 + cycle into byte slot `rank` (as a
 * uint32_t) of every node peer's shard, then checks its own shard's slots. */
static int one_cycle(void **shard, size_t bytes, int alloc, int cycle)
{
    shardtab_t *table = NULL;
    uint32_t *mine, want, got;
    int bad = 0;

    if (alloc && check(shardtab_mem_alloc(bytes, shard), "shardtab_mem_alloc"))
        return 1;
    mine = *shard;
    if (check(shardtab_create(MPI_COMM_WORLD, *shard, bytes, &table), "shardtab_create"))
        return 1;
    for (int r = 0; r < size; r++) {
        void *base;
        size_t len;
        if (check(shardtab_peer(table, r, &base, &len), "shardtab_peer"))
            return 1;
        if (base == NULL || len != bytes) {
            fprintf(stderr, "cycle_table: rank %d: peer %d has base %p, %zu bytes\n", rank, r, base,
                    len);
            return 1;
        }
        want = (uint32_t)((rank + 1) * 1000 + cycle);
        /* host backend: peer memory is plain shared memory; write through it */
        shardtab_memcpy_to_device((uint32_t *)base + rank, &want, sizeof want);
        /* and the last word of the shard: the whole range is mapped */
        shardtab_memcpy_to_device((char *)base + bytes - sizeof want, &want, sizeof want);
    }
    if (check(shardtab_device_synchronize(), "shardtab_device_synchronize"))
        return 1;
    /* destroy is collective: every peer has written once it returns */
    if (check(shardtab_destroy(&table), "shardtab_destroy"))
        return 1;
    for (int r = 0; r < size; r++) {
        shardtab_memcpy_to_host(&got, mine + r, sizeof got);
        want = (uint32_t)((r + 1) * 1000 + cycle);
        if (got != want) {
            if (bad++ == 0)
                fprintf(stderr, "cycle_table: rank %d cycle %d: slot %d holds %u, want %u\n", rank,
                        cycle, r, got, want);
        }
    }
    if (alloc && check(shardtab_mem_free(*shard), "shardtab_mem_free"))
        return 1;
    return bad != 0;
}

/* Runs one variant; returns 0 when this rank passed. */
static int variant(const char *name, int reuse, const config_t *cfg)
{
    void *shard = NULL;
    usage_t before = {-1, -1, -1, -1}, after;
    int failed = 0, any_failed = 0;
    double started = 0.0, seconds;

    if (reuse && check(shardtab_mem_alloc(cfg->bytes, &shard), "shardtab_mem_alloc"))
        return 1;
    for (int c = 0; c < cfg->cycles && !failed; c++) {
        if (c == cfg->warmup) {
            MPI_Barrier(MPI_COMM_WORLD);
            before = measure();
            started = MPI_Wtime();
        }
        failed = one_cycle(&shard, cfg->bytes, !reuse, c);
        if (cfg->inject_leak && c >= cfg->warmup) {
            /* self-test of the detector: leak on purpose */
            (void)!open("/dev/null", O_RDONLY);
            (void)mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            leaked_block = malloc(64); /* and a heap block, for LSan and valgrind */
        }
        /* a failed cycle on one rank must not leave the others in a collective */
        MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        failed = any_failed;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    seconds = MPI_Wtime() - started;
    after = measure();
    if (reuse && shard && check(shardtab_mem_free(shard), "shardtab_mem_free"))
        failed = 1;
    if (failed) {
        if (rank == 0)
            printf("# %s: a cycle failed\n", name);
        return 1;
    }

    long mine[8] = {before.fds,     after.fds,     before.maps,   after.maps,
                    before.rss_kib, after.rss_kib, before.vm_kib, after.vm_kib};
    long *all = rank == 0 ? malloc(sizeof mine * (size_t)size) : NULL;
    int ok = after.fds == before.fds && after.maps - before.maps <= cfg->maps_slack &&
             after.rss_kib - before.rss_kib < cfg->rss_slack_kib &&
             after.vm_kib - before.vm_kib <= cfg->vm_slack_kib && before.fds >= 0 &&
             before.maps >= 0 && before.rss_kib >= 0 && before.vm_kib >= 0;
    int all_ok = 0;

    MPI_Gather(mine, 8, MPI_LONG, all, 8, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("# %s: %d cycles of %zu-byte shards at %d ranks, measured after cycle %d and "
               "after cycle %d; %.3f ms a cycle (a figure, not a check)\n",
               name, cfg->cycles, cfg->bytes, size, cfg->warmup, cfg->cycles,
               1e3 * seconds / (cfg->cycles - cfg->warmup));
        for (int r = 0; r < size && all; r++) {
            const long *v = all + 8 * r;
            printf("%s rank %d: fds %ld -> %ld, maps %ld -> %ld, VmRSS %ld -> %ld KiB (%+ld), "
                   "VmSize %ld -> %ld KiB (%+ld)\n",
                   name, r, v[0], v[1], v[2], v[3], v[4], v[5], v[5] - v[4], v[6], v[7],
                   v[7] - v[6]);
        }
        printf("# %s: %s (fds equal, maps growth <= %ld, VmRSS growth < %ld KiB, VmSize growth "
               "<= %ld KiB)\n",
               name, all_ok ? "PASS" : "FAIL", cfg->maps_slack, cfg->rss_slack_kib,
               cfg->vm_slack_kib);
        fflush(stdout);
    }
    free(all);
    return !all_ok;
}

static int segments_left(void)
{
    char pattern[64];
    glob_t g;
    int n;

    /* any name of this uid still linked after the variants is a leak; the
     * test runs alone (RUN_SERIAL), so no other job's names are about */
    snprintf(pattern, sizeof pattern, "/dev/shm/shardtab-%u-*", (unsigned)getuid());
    if (glob(pattern, 0, NULL, &g) != 0)
        return 0; /* GLOB_NOMATCH: none */
    n = (int)g.gl_pathc;
    for (int i = 0; i < n; i++)
        fprintf(stderr, "cycle_table: rank %d: %s is still linked\n", rank, g.gl_pathv[i]);
    globfree(&g);
    return n;
}

int main(int argc, char **argv)
{
    config_t cfg = {.cycles = 1000,
                    .warmup = 10,
                    .bytes = 64 * 1024,
                    .rss_slack_kib = 1024,
                    .vm_slack_kib = 1024};
    shardtab_init_params_t init = {0};
    int failed = 0, any = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && strcmp(argv[i], "--cycles") == 0)
            cfg.cycles = atoi(v);
        else if (v && strcmp(argv[i], "--warmup") == 0)
            cfg.warmup = atoi(v);
        else if (v && strcmp(argv[i], "--bytes") == 0)
            cfg.bytes = (size_t)strtoull(v, NULL, 10);
        else if (v && strcmp(argv[i], "--rss-slack") == 0)
            cfg.rss_slack_kib = atol(v);
        else if (v && strcmp(argv[i], "--vm-slack") == 0)
            cfg.vm_slack_kib = atol(v);
        else if (v && strcmp(argv[i], "--maps-slack") == 0)
            cfg.maps_slack = atol(v);
        else if (strcmp(argv[i], "--inject-leak") == 0) {
            cfg.inject_leak = 1;
            continue;
        } else if (strcmp(argv[i], "--allow-shared-device") == 0) { /* one GPU under MPS */
            init.allow_shared_device = 1;
            continue;
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: cycle_table [--cycles N] [--warmup W] [--bytes B] "
                                "[--rss-slack KIB] [--vm-slack KIB] [--maps-slack N] "
                                "[--inject-leak] [--allow-shared-device]\n");
            MPI_Finalize();
            return 2;
        }
        i++;
    }
    if (cfg.warmup < 1 || cfg.cycles <= cfg.warmup ||
        cfg.bytes < 2 * sizeof(uint32_t) * (size_t)size) {
        if (rank == 0)
            fprintf(stderr, "cycle_table: need 1 <= warmup < cycles and bytes >= %zu\n",
                    2 * sizeof(uint32_t) * (size_t)size);
        MPI_Finalize();
        return 2;
    }

    if (check(shardtab_init(MPI_COMM_WORLD, &init), "shardtab_init")) {
        MPI_Finalize();
        return 1;
    }
    failed |= variant("fresh", 0, &cfg);
    failed |= variant("reuse", 1, &cfg);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && segments_left() > 0)
        failed = 1;
    failed |= check(shardtab_finalize(), "shardtab_finalize");
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", any ? "FAIL" : "PASS");
    MPI_Finalize();
    return any;
}
