/* seed_scenario.c - the AMDGPU.jl report this library grew from (JACC.jl's "Using one single
 * array of pointers for multiGPU AMDGPU computation")
 * in C on the HIP runtime API: one array of per-GPU shard pointers, read by a
 * kernel on EVERY GPU, x = table[d]; x[i] *= 2.
 *
 * Each GPU d holds a shard of n doubles, element i of shard d being global
 * index g = d * n + i with the value 1 + (g mod 7). The table (a host array of
 * the device pointers) is placed three ways, and for each the kernel scal_shard
 * runs on every GPU and every element of every shard is checked exactly:
 *
 *   (a) in GPU 0's memory, no peer access enabled - the report's failing case:
 *       the kernel on GPU 1 must fault. Run in a child made with fork() BEFORE
 *       this process touches the GPU runtime (fork after init is unsafe, and a
 *       GPU fault may kill the process: ROCm aborts it). The child reports over
 *       a pipe; its stderr goes to a temporary file the parent quotes.
 *   (b) in GPU 0's memory after hipDeviceEnablePeerAccess between all pairs.
 *   (c) in portable, mapped pinned host memory (hipHostMalloc Portable|Mapped),
 *       the kernels given hipHostGetDevicePointer's pointer, peer access off.
 *
 * Usage: seed_scenario [--n N] [--allow-a-to-pass]
 * Exit: 0 when (a) failed and (b), (c) verified; 77 with fewer than 2 GPUs
 * (or no GPU runtime/driver); 1 otherwise.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "scal.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEED_SKIP 77
#define SEED_ALPHA 2.0
#define SEED_CHILD_TIMEOUT_S 60

/* The first failure's words: "file:line: call failed: text (name)". */
static char seed_err[512];

/* Check a runtime call: on failure record call, file:line and the runtime's
 * text in seed_err, and return -1 from the calling function. */
#define CHECK(call)                                                                                \
  do {                                                                                             \
    hipError_t check_err_ = (call);                                                                \
    if (check_err_ != hipSuccess) {                                                                \
      snprintf(seed_err, sizeof seed_err, "%s:%d: %s failed: %s (%s)", __FILE__, __LINE__, #call,  \
               hipGetErrorString(check_err_), hipGetErrorName(check_err_));                        \
      return -1;                                                                                   \
    }                                                                                              \
  } while (0)

/* The same for a POSIX call returning -1 with errno. */
#define CHECK_OS(call)                                                                             \
  do {                                                                                             \
    if ((call) == -1) {                                                                            \
      snprintf(seed_err, sizeof seed_err, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call,       \
               strerror(errno));                                                                   \
      return -1;                                                                                   \
    }                                                                                              \
  } while (0)

typedef struct seed {
    int ngpus;
    uint64_t n;
    double **shards; /* [ngpus] device pointers, shards[d] on GPU d */
    double *host;    /* n doubles: staging for copies in and out */
} seed_t;

static double initial_value(uint64_t g)
{
    return 1.0 + (double)(g % 7);
}

/* ---- shards ---------------------------------------------------------------- */

static int seed_alloc(seed_t *s)
{
    s->shards = calloc((size_t)s->ngpus, sizeof *s->shards);
    s->host = malloc((size_t)s->n * sizeof *s->host);
    if (!s->shards || !s->host) {
        snprintf(seed_err, sizeof seed_err, "%s:%d: out of host memory", __FILE__, __LINE__);
        return -1;
    }
    for (int d = 0; d < s->ngpus; d++) {
        void *p = NULL;
        CHECK(hipSetDevice(d));
        CHECK(hipMalloc(&p, (size_t)s->n * sizeof(double)));
        s->shards[d] = p;
    }
    return 0;
}

static void seed_free(seed_t *s)
{
    /* Best effort at the end of the program: errors here change nothing. */
    for (int d = 0; s->shards && d < s->ngpus; d++) {
        if (s->shards[d] && hipSetDevice(d) == hipSuccess)
            (void)hipFree(s->shards[d]);
    }
    free(s->shards);
    free(s->host);
    s->shards = NULL;
    s->host = NULL;
}

/* Every shard back to 1 + (g mod 7), copied in with hipMemcpy. */
static int seed_reset(seed_t *s)
{
    for (int d = 0; d < s->ngpus; d++) {
        for (uint64_t i = 0; i < s->n; i++)
            s->host[i] = initial_value((uint64_t)d * s->n + i);
        CHECK(hipSetDevice(d));
        CHECK(
            hipMemcpy(s->shards[d], s->host, (size_t)s->n * sizeof(double), hipMemcpyHostToDevice));
        /* A pageable copy may return before its DMA lands: finish it before any
         * kernel, whatever stream that kernel uses. */
        CHECK(hipDeviceSynchronize());
    }
    return 0;
}

/* Copy every shard back and compare each element exactly with the host's
 * (1 + g mod 7) * alpha. *bad gets the mismatches; the first few are printed. */
static int seed_verify(seed_t *s, const char *tag, uint64_t *bad)
{
    uint64_t wrong = 0;

    for (int d = 0; d < s->ngpus; d++) {
        CHECK(hipSetDevice(d));
        CHECK(
            hipMemcpy(s->host, s->shards[d], (size_t)s->n * sizeof(double), hipMemcpyDeviceToHost));
        for (uint64_t i = 0; i < s->n; i++) {
            uint64_t g = (uint64_t)d * s->n + i;
            double want = initial_value(g) * SEED_ALPHA;
            if (s->host[i] != want) {
                if (wrong < 5)
                    fprintf(stderr,
                            "# seed %s: GPU %d element %llu (global %llu): %.17g, want %.17g\n",
                            tag, d, (unsigned long long)i, (unsigned long long)g, s->host[i], want);
                wrong++;
            }
        }
    }
    *bad = wrong;
    return 0;
}

/* ---- placement (a), in the child ------------------------------------------------- */

/* One line to the parent: "<KEY> <text>\n". */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
report(int fd, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if ((size_t)len > sizeof line - 2)
        len = (int)(sizeof line - 2);
    line[len++] = '\n';
    for (const char *p = line; len > 0;) {
        ssize_t w = write(fd, p, (size_t)len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        len -= (int)w;
    }
}

/* Lines the child sends, one per event; the last decisive one wins:
 *   SKIP <count> <text>        fewer than 2 GPUs (or no runtime)
 *   INFO <text>                quoted by the parent
 *   LAUNCH <d>                 about to launch on GPU d
 *   FAULT <d> <text>           the launch or synchronize on GPU d failed
 *   WRONG <bad>                all kernels ran, <bad> elements wrong
 *   PASS <shards> <n>          every element verified (not what the report saw)
 *   ERROR <text>               set-up failed: no verdict */
static int child_placement_a(int fd, uint64_t n)
{
    seed_t s = {0, n, NULL, NULL};
    void *table = NULL;
    hipError_t err;
    uint64_t bad = 0;
    int can = 0;

    err = hipGetDeviceCount(&s.ngpus);
    if (err != hipSuccess) {
        report(fd, "SKIP 0 hipGetDeviceCount: %s (%s)", hipGetErrorString(err),
               hipGetErrorName(err));
        return 0;
    }
    if (s.ngpus < 2) {
        report(fd, "SKIP %d", s.ngpus);
        return 0;
    }
    if (s.ngpus > 64)
        s.ngpus = 64;
    if (seed_alloc(&s) != 0 || seed_reset(&s) != 0)
        return -1;
    CHECK(hipDeviceCanAccessPeer(&can, 1, 0));
    report(fd, "INFO runtime says GPU 1 %s access GPU 0's memory once peer access is enabled",
           can ? "can" : "cannot");
    /* The report's set-up: the table copied into GPU 0's memory, nothing enabled. */
    CHECK(hipSetDevice(0));
    CHECK(hipMalloc(&table, (size_t)s.ngpus * sizeof(double *)));
    CHECK(hipMemcpy(table, s.shards, (size_t)s.ngpus * sizeof(double *), hipMemcpyHostToDevice));
    for (int d = 0; d < s.ngpus; d++) {
        CHECK(hipSetDevice(d));
        report(fd, "LAUNCH %d", d);
        err = (hipError_t)scal_shard((double *const *)table, d, s.n, SEED_ALPHA);
        if (err == hipSuccess)
            err = hipDeviceSynchronize();
        if (err == hipSuccess)
            err = hipGetLastError();
        if (err != hipSuccess) {
            report(fd, "FAULT %d %s (%s)", d, hipGetErrorString(err), hipGetErrorName(err));
            return 0; /* the context is gone (sticky error): nothing more to do */
        }
    }
    if (seed_verify(&s, "(a)", &bad) != 0)
        return -1;
    if (bad)
        report(fd, "WRONG %llu", (unsigned long long)bad);
    else
        report(fd, "PASS %d %llu", s.ngpus, (unsigned long long)s.n);
    return 0;
}

/* The child: placement (a), then _exit without running atexit handlers or
 * flushing the parent's stdio buffers a second time. */
static void run_child(int fd, uint64_t n)
{
    alarm(SEED_CHILD_TIMEOUT_S); /* a hung fault handler must not hang the test */
    if (child_placement_a(fd, n) != 0)
        report(fd, "ERROR %s", seed_err);
    close(fd);
    _exit(0);
}

/* What the child said and how it ended. */
typedef struct child_result {
    char verdict[16]; /* SKIP FAULT WRONG PASS ERROR, or "" */
    char text[1024];  /* the rest of the verdict line */
    int last_launch;  /* GPU of the last LAUNCH line, -1 if none */
    char info[512];
    int status;            /* from waitpid */
    char stderr_tail[512]; /* last non-empty line the child wrote to stderr */
} child_result_t;

static void parse_child_line(child_result_t *r, char *line)
{
    char *space = strchr(line, ' ');
    const char *rest = space ? space + 1 : "";

    if (space)
        *space = '\0';
    if (strcmp(line, "LAUNCH") == 0)
        r->last_launch = atoi(rest);
    else if (strcmp(line, "INFO") == 0)
        snprintf(r->info, sizeof r->info, "%s", rest);
    else {
        snprintf(r->verdict, sizeof r->verdict, "%s", line);
        snprintf(r->text, sizeof r->text, "%s", rest);
    }
}

static int run_placement_a_in_child(uint64_t n, child_result_t *r)
{
    int fds[2];
    pid_t pid;
    FILE *err_file = tmpfile();
    char buf[8192];
    size_t used = 0;

    memset(r, 0, sizeof *r);
    r->last_launch = -1;
    if (!err_file) {
        snprintf(seed_err, sizeof seed_err, "%s:%d: tmpfile failed: %s", __FILE__, __LINE__,
                 strerror(errno));
        return -1;
    }
    CHECK_OS(pipe(fds));
    fflush(NULL);
    CHECK_OS(pid = fork());
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fileno(err_file), STDERR_FILENO) == -1)
            _exit(3);
        run_child(fds[1], n);
    }
    close(fds[1]);
    for (;;) {
        ssize_t got = read(fds[0], buf + used, sizeof buf - 1 - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        used += (size_t)got;
        if (used == sizeof buf - 1)
            break; /* far more than the child ever says */
    }
    buf[used] = '\0';
    close(fds[0]);
    while (waitpid(pid, &r->status, 0) == -1) {
        if (errno != EINTR) {
            snprintf(seed_err, sizeof seed_err, "%s:%d: waitpid failed: %s", __FILE__, __LINE__,
                     strerror(errno));
            fclose(err_file);
            return -1;
        }
    }
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        parse_child_line(r, line);

    /* The child's stderr: echo it, keep the last line to quote. */
    rewind(err_file);
    {
        char line[512];
        while (fgets(line, sizeof line, err_file)) {
            line[strcspn(line, "\r\n")] = '\0';
            if (line[0]) {
                fprintf(stderr, "# seed (a) child stderr: %s\n", line);
                snprintf(r->stderr_tail, sizeof r->stderr_tail, "%s", line);
            }
        }
    }
    fclose(err_file);
    return 0;
}

/* ---- placements (b) and (c), in this process ---------------------------------------- */

/* scal_shard(table_for(d), d) on every GPU, synchronized, then verified. */
static int launch_all_and_verify(seed_t *s, double *const *tables[], const char *tag, uint64_t *bad)
{
    for (int d = 0; d < s->ngpus; d++) {
        CHECK(hipSetDevice(d));
        CHECK((hipError_t)scal_shard(tables[d], d, s->n, SEED_ALPHA));
    }
    for (int d = 0; d < s->ngpus; d++) {
        CHECK(hipSetDevice(d));
        CHECK(hipDeviceSynchronize());
    }
    return seed_verify(s, tag, bad);
}

static int set_peer_access(int ngpus, int enable)
{
    for (int i = 0; i < ngpus; i++) {
        CHECK(hipSetDevice(i));
        for (int j = 0; j < ngpus; j++) {
            int can = 0;
            hipError_t err;
            if (i == j)
                continue;
            CHECK(hipDeviceCanAccessPeer(&can, i, j));
            if (!can) {
                snprintf(seed_err, sizeof seed_err,
                         "hipDeviceCanAccessPeer: GPU %d cannot access GPU %d's memory", i, j);
                return -1;
            }
            if (enable) {
                err = hipDeviceEnablePeerAccess(j, 0);
                if (err == hipErrorPeerAccessAlreadyEnabled) {
                    (void)hipGetLastError(); /* not an error: clear it */
                    continue;
                }
                CHECK(err);
            } else {
                err = hipDeviceDisablePeerAccess(j);
                if (err == hipErrorPeerAccessNotEnabled) {
                    (void)hipGetLastError();
                    continue;
                }
                CHECK(err);
            }
        }
    }
    return 0;
}

/* (b): the table in GPU 0's memory, peer access on between all pairs. */
static int placement_b(seed_t *s, uint64_t *bad)
{
    void *table = NULL;
    double *const *tables[64];
    int rc;

    if (seed_reset(s) != 0)
        return -1;
    CHECK(hipSetDevice(0));
    CHECK(hipMalloc(&table, (size_t)s->ngpus * sizeof(double *)));
    CHECK(hipMemcpy(table, s->shards, (size_t)s->ngpus * sizeof(double *), hipMemcpyHostToDevice));
    for (int d = 0; d < s->ngpus; d++)
        tables[d] = (double *const *)table;
    rc = set_peer_access(s->ngpus, 1);
    if (rc == 0)
        rc = launch_all_and_verify(s, tables, "(b)", bad);
    /* Peer access off again, so that (c) runs without it. */
    if (set_peer_access(s->ngpus, 0) != 0 && rc == 0)
        rc = -1;
    CHECK(hipSetDevice(0));
    CHECK(hipFree(table));
    return rc;
}

/* (c): the table in portable, mapped pinned host memory. */
static int placement_c(seed_t *s, uint64_t *bad, int *same_pointer)
{
    void *host_table = NULL;
    double *const *tables[64];
    int rc;

    if (seed_reset(s) != 0)
        return -1;
    CHECK(hipSetDevice(0));
    CHECK(hipHostMalloc(&host_table, (size_t)s->ngpus * sizeof(double *),
                        hipHostMallocPortable | hipHostMallocMapped));
    memcpy(host_table, s->shards, (size_t)s->ngpus * sizeof(double *)); /* written on the host */
    *same_pointer = 1;
    for (int d = 0; d < s->ngpus; d++) {
        void *dp = NULL;
        CHECK(hipSetDevice(d));
        CHECK(hipHostGetDevicePointer(&dp, host_table, 0));
        tables[d] = (double *const *)dp;
        if (dp != host_table)
            *same_pointer = 0;
    }
    rc = launch_all_and_verify(s, tables, "(c)", bad);
    CHECK(hipHostFree(host_table));
    return rc;
}

/* ---- main ------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "Usage: seed_scenario [--n N] [--allow-a-to-pass]\n"
               "  --n N              doubles per GPU shard (default 600)\n"
               "  --allow-a-to-pass  do not fail when placement (a) unexpectedly works\n"
               "Exit 0 when (a) fails and (b), (c) verify; 77 with fewer than 2 GPUs.\n");
}

int main(int argc, char **argv)
{
    uint64_t n = 600, bad = 0;
    int allow_a_to_pass = 0, a_ok = 0, b_ok = 0, c_ok = 0, count = 0, same = 0;
    child_result_t a;
    seed_t s = {0, 0, NULL, NULL};
    hipError_t err;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            char *end = NULL;
            unsigned long long v;
            errno = 0;
            v = strtoull(argv[++i], &end, 10);
            if (errno || !end || *end || v == 0 || argv[i][0] == '-' || v > (1ull << 32)) {
                fprintf(stderr, "seed_scenario: --n wants a count in [1, 2^32], got '%s'\n",
                        argv[i]);
                return 1;
            }
            n = v;
        } else if (strcmp(argv[i], "--allow-a-to-pass") == 0) {
            allow_a_to_pass = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "seed_scenario: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 1;
        }
    }

    /* (a) first, in a child, before this process initializes the GPU runtime. */
    if (run_placement_a_in_child(n, &a) != 0) {
        fprintf(stderr, "seed_scenario: %s\n", seed_err);
        return 1;
    }

    /* Now this process's own look at the GPUs. */
    err = hipGetDeviceCount(&count);
    if (err != hipSuccess || count < 2) {
        if (err == hipSuccess || err == hipErrorNoDevice || err == hipErrorInsufficientDriver) {
            printf("# seed: SKIPPED (needs 2 GPUs, found %d)\n", err == hipSuccess ? count : 0);
            if (err != hipSuccess)
                printf("# seed: hipGetDeviceCount says: %s (%s)\n", hipGetErrorString(err),
                       hipGetErrorName(err));
            return SEED_SKIP;
        }
        fprintf(stderr, "seed_scenario: hipGetDeviceCount failed: %s (%s)\n",
                hipGetErrorString(err), hipGetErrorName(err));
        return 1;
    }
    if (count > 64) {
        printf("# seed: using the first 64 of %d GPUs\n", count);
        count = 64;
    }
    printf("# seed: %d GPUs, %llu doubles per shard, alpha %g\n", count, (unsigned long long)n,
           SEED_ALPHA);

    /* Placement (a): what the child saw. */
    {
        const char *what = "# seed (a) table in GPU 0 memory, no peer access";
        if (a.info[0])
            printf("# seed (a): %s\n", a.info);
        if (strcmp(a.verdict, "FAULT") == 0) {
            char *space = strchr(a.text, ' ');
            int d = atoi(a.text);
            printf("%s: FAILED as expected on GPU %d: %s\n", what, d, space ? space + 1 : a.text);
            a_ok = d != 0;
            if (d == 0)
                printf("%s: but GPU 0 holds the table: that launch should have worked\n", what);
        } else if (strcmp(a.verdict, "WRONG") == 0) {
            printf("%s: FAILED as expected (no runtime error, %s elements wrong)\n", what, a.text);
            a_ok = 1;
        } else if (strcmp(a.verdict, "PASS") == 0) {
            printf("%s: UNEXPECTEDLY verified on all %d GPUs - this system lets GPU 1 read GPU 0's "
                   "memory without hipDeviceEnablePeerAccess, so it does not reproduce the "
                   "report%s\n",
                   what, count, allow_a_to_pass ? " (allowed by --allow-a-to-pass)" : "");
            a_ok = allow_a_to_pass;
        } else if (WIFSIGNALED(a.status) && a.last_launch >= 1) {
            int sig = WTERMSIG(a.status);
            printf("%s: FAILED as expected on GPU %d: process killed by signal %d (%s)%s%s\n", what,
                   a.last_launch, sig, strsignal(sig), a.stderr_tail[0] ? ": " : "", a.stderr_tail);
            a_ok = sig != SIGALRM;
            if (sig == SIGALRM)
                printf("%s: (that was the %d s timeout: a hang, not a clean fault)\n", what,
                       SEED_CHILD_TIMEOUT_S);
        } else if (strcmp(a.verdict, "SKIP") == 0) {
            printf("%s: the child found fewer than 2 GPUs (%s), this process %d\n", what, a.text,
                   count);
        } else if (strcmp(a.verdict, "ERROR") == 0) {
            printf("%s: ERROR in set-up: %s\n", what, a.text);
        } else {
            if (WIFSIGNALED(a.status))
                printf("%s: ERROR: the child was killed by signal %d (%s) before launching on "
                       "GPU 1%s%s\n",
                       what, WTERMSIG(a.status), strsignal(WTERMSIG(a.status)),
                       a.stderr_tail[0] ? ": " : "", a.stderr_tail);
            else
                printf("%s: ERROR: the child exited with status %d without a verdict%s%s\n", what,
                       WIFEXITED(a.status) ? WEXITSTATUS(a.status) : -1,
                       a.stderr_tail[0] ? ": " : "", a.stderr_tail);
        }
    }

    s.ngpus = count;
    s.n = n;
    if (seed_alloc(&s) != 0) {
        fprintf(stderr, "seed_scenario: %s\n", seed_err);
        seed_free(&s);
        return 1;
    }

    /* Placement (b). */
    bad = 0;
    if (placement_b(&s, &bad) != 0)
        printf("# seed (b) table in GPU 0 memory, peer access enabled: ERROR: %s\n", seed_err);
    else if (bad)
        printf("# seed (b) table in GPU 0 memory, peer access enabled: FAILED (%llu of %llu "
               "elements wrong)\n",
               (unsigned long long)bad, (unsigned long long)(n * (uint64_t)count));
    else {
        printf("# seed (b) table in GPU 0 memory, peer access enabled: OK (%d shards x %llu "
               "elements verified)\n",
               count, (unsigned long long)n);
        b_ok = 1;
    }

    /* Placement (c). */
    bad = 0;
    if (placement_c(&s, &bad, &same) != 0)
        printf("# seed (c) table in mapped pinned host memory, no peer access: ERROR: %s\n",
               seed_err);
    else if (bad)
        printf("# seed (c) table in mapped pinned host memory, no peer access: FAILED (%llu of "
               "%llu elements wrong)\n",
               (unsigned long long)bad, (unsigned long long)(n * (uint64_t)count));
    else {
        printf("# seed (c) table in mapped pinned host memory, no peer access: OK (%d shards x "
               "%llu elements verified; device pointer %s the host pointer)\n",
               count, (unsigned long long)n, same ? "equals" : "differs from");
        c_ok = 1;
    }
    seed_free(&s);

    if (a_ok && b_ok && c_ok) {
        printf("# seed: OK\n");
        return 0;
    }
    printf("# seed: FAILED ((a) %s, (b) %s, (c) %s)\n", a_ok ? "as expected" : "unexpected",
           b_ok ? "ok" : "failed", c_ok ? "ok" : "failed");
    return 1;
}
