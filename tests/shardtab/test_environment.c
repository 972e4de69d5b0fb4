/* test_environment.c - pins what src/shardtab/environment.c reads: SHARDTAB_FAULT
 * (st_fault_parse: "<step>:<rank>", st_fault_check before MPI), st_parse_positive_int,
 * the node's identity (host name, boot id, IPC namespace), and st_memory_left, behind
 * shardtab_host_memory_available: MemAvailable capped by cgroup v2 (memory.max) and v1
 * (memory.limit_in_bytes) limits, "no limit" in either form, controllers listed
 * together, both versions at once, and a cgroup at its limit; on files made in a
 * temporary folder laid out as /proc and /sys/fs/cgroup are. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* ---- SHARDTAB_FAULT and integers ------------------------------------------- */

static const char *const step_names[ST_FAULT_STEP_COUNT] = {
    "alloc",       "export",     "exchange",      "open",       "upload",    "close",
    "free",        "coll-enter", "coll-phase",    "coll-args",  "coll-node", "coll-leaders",
    "coll-result", "coll-end",   "faces-staging", "faces-post",
};

static void expect_fault(const char *text, st_fault_step_t step, int rank)
{
    st_fault_step_t got_step = ST_FAULT_STEP_COUNT;
    int got_rank = -99;
    if (st_fault_parse(text, &got_step, &got_rank) != 0)
        fail_msg("'%s' rejected", text);
    assert_int_equal(got_step, step);
    assert_int_equal(got_rank, rank);
}

static void expect_no_fault(const char *text)
{
    st_fault_step_t step = ST_FAULT_STEP_COUNT;
    int rank = -99;
    if (st_fault_parse(text, &step, &rank) == 0)
        fail_msg("'%s' accepted as step %d rank %d", text ? text : "(null)", (int)step, rank);
    /* nothing written on failure */
    assert_int_equal(step, ST_FAULT_STEP_COUNT);
    assert_int_equal(rank, -99);
}

static void expect_int(const char *text, int value)
{
    int got = -99;
    if (st_parse_positive_int(text, &got) != 0)
        fail_msg("'%s' rejected", text);
    assert_int_equal(got, value);
}

static void expect_no_int(const char *text)
{
    int got = -99;
    if (st_parse_positive_int(text, &got) == 0)
        fail_msg("'%s' accepted as %d", text ? text : "(null)", got);
    assert_int_equal(got, -99);
}

static void test_fault_parse_accepts_every_step_at_rank_zero_and_three(void **state)
{
    char text[32];
    (void)state;
    for (int s = 0; s < ST_FAULT_STEP_COUNT; s++) {
        snprintf(text, sizeof text, "%s:0", step_names[s]);
        expect_fault(text, (st_fault_step_t)s, 0);
        snprintf(text, sizeof text, "%s:3", step_names[s]);
        expect_fault(text, (st_fault_step_t)s, 3);
    }
    expect_fault("open:0", ST_FAULT_OPEN, 0);
    expect_fault("close:3", ST_FAULT_CLOSE, 3);
}

static void test_fault_parse_accepts_large_ranks(void **state)
{
    char text[32];
    (void)state;
    expect_fault("exchange:1023", ST_FAULT_EXCHANGE, 1023);
    snprintf(text, sizeof text, "free:%d", INT_MAX);
    expect_fault(text, ST_FAULT_FREE, INT_MAX);
}

static void test_fault_parse_rejects_missing_rank(void **state)
{
    (void)state;
    expect_no_fault("open");
    expect_no_fault("open:");
    expect_no_fault("");
    expect_no_fault(NULL);
}

static void test_fault_parse_rejects_bad_rank(void **state)
{
    (void)state;
    expect_no_fault("open:-1");
    expect_no_fault("open:+1");
    expect_no_fault("open:1x");
    expect_no_fault("open:x");
    expect_no_fault("open:1.0");
    expect_no_fault("open:1:2");
    expect_no_fault("open:2147483648");
    expect_no_fault("open:99999999999999999999");
}

static void test_fault_parse_rejects_unknown_or_missing_step(void **state)
{
    (void)state;
    expect_no_fault("opne:1");
    expect_no_fault(":1");
    expect_no_fault("OPEN:1");
    expect_no_fault("ope:1");    /* a prefix of a step */
    expect_no_fault("opener:1"); /* a step as a prefix */
    expect_no_fault("open :1");
    expect_no_fault(" open:1");
    expect_no_fault("1:open");
}

static void test_fault_step_names_match_the_parser(void **state)
{
    (void)state;
    for (int s = 0; s < ST_FAULT_STEP_COUNT; s++)
        assert_string_equal(st_fault_step_name((st_fault_step_t)s), step_names[s]);
    assert_string_equal(st_fault_step_name(ST_FAULT_STEP_COUNT), "?");
    assert_string_equal(st_fault_step_name((st_fault_step_t)-1), "?");
}

static void test_parse_positive_int_accepts_positive_decimals(void **state)
{
    char text[32];
    (void)state;
    expect_int("1", 1);
    expect_int("4", 4);
    expect_int("0010", 10);
    expect_int("65536", 65536);
    snprintf(text, sizeof text, "%d", INT_MAX);
    expect_int(text, INT_MAX);
}

static void test_parse_positive_int_rejects_zero_signs_and_junk(void **state)
{
    (void)state;
    expect_no_int("0");
    expect_no_int("00");
    expect_no_int("-1");
    expect_no_int("+1");
    expect_no_int("");
    expect_no_int(NULL);
    expect_no_int("abc");
    expect_no_int("4x");
    expect_no_int("4 ");
    expect_no_int("1.5");
    expect_no_int("0x10");
    expect_no_int("2147483648"); /* INT_MAX + 1 */
    expect_no_int("99999999999999999999");
}

/* "a positive decimal integer": signs are refused up front, so a sign or a
 * blank hidden behind leading white space must be refused as well. */
static void test_parse_positive_int_rejects_leading_white_space(void **state)
{
    (void)state;
    expect_no_int(" 4");
    expect_no_int("\t4");
    expect_no_int(" +4");
    expect_no_fault("open: 1");
}

/* Before MPI_Init there is no rank to aim at: a well-formed variable injects
 * nothing, a malformed one is refused at every step, with the same message. */
static void test_fault_check_before_mpi_refuses_only_a_malformed_variable(void **state)
{
    const char *const want = "SHARDTAB_FAULT='open:x' is not <step>:<rank> with step one of "
                             "alloc, export, exchange, open, upload, close, free, coll-enter, "
                             "coll-phase, coll-args, coll-node, coll-leaders, coll-result, "
                             "coll-end, faces-staging, faces-post";
    (void)state;
    setenv("SHARDTAB_FAULT", "open:0", 1);
    for (int s = 0; s < ST_FAULT_STEP_COUNT; s++)
        assert_int_equal(st_fault_check((st_fault_step_t)s), SHARDTAB_SUCCESS);
    setenv("SHARDTAB_FAULT", "open:x", 1);
    for (int s = 0; s < ST_FAULT_STEP_COUNT; s++) {
        assert_int_equal(st_fault_check((st_fault_step_t)s), SHARDTAB_ERR_INVALID_ARG);
        assert_string_equal(st_thread_last_error() + st_error_prefix_bytes(), want);
    }
    setenv("SHARDTAB_FAULT", "", 1);
    assert_int_equal(st_fault_check(ST_FAULT_OPEN), SHARDTAB_SUCCESS);
    unsetenv("SHARDTAB_FAULT");
    assert_int_equal(st_fault_check(ST_FAULT_OPEN), SHARDTAB_SUCCESS);
}

/* ---- the node's identity ----------------------------------------------------- */

static void test_node_identity_is_the_host_name_and_the_boot_id(void **state)
{
    char host[ST_HOST_NAME_BYTES], boot_id[ST_BOOT_ID_BYTES];
    char want_host[ST_HOST_NAME_BYTES] = "", want_boot[ST_BOOT_ID_BYTES] = "unknown-boot";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    const int known = f != NULL;
    (void)state;
    assert_int_equal(gethostname(want_host, sizeof want_host), 0);
    want_host[sizeof want_host - 1] = '\0';
    if (f != NULL) {
        assert_non_null(fgets(want_boot, sizeof want_boot, f));
        want_boot[strcspn(want_boot, "\n")] = '\0';
        fclose(f);
    }
    memset(host, 'x', sizeof host);
    memset(boot_id, 'x', sizeof boot_id);
    st_node_identity(host, boot_id);
    assert_string_equal(host, want_host);
    assert_string_equal(boot_id, want_boot);
    if (known) /* a UUID, whole */
        assert_int_equal(strlen(boot_id), 36);
}

static void test_ipc_namespace_is_the_inode_of_proc_self_ns_ipc(void **state)
{
    struct stat st;
    (void)state;
    if (stat("/proc/self/ns/ipc", &st) != 0)
        skip();
    assert_int_equal(st_ipc_namespace(), (uint64_t)st.st_ino);
    assert_true(st_ipc_namespace() != 0);
}

/* ---- st_memory_left ---------------------------------------------------------- */

#define GIB (1ull << 30)

static char root[64]; /* the temporary folder */
static char meminfo[128], self[128], sys[128];

/* Writes text to root/relative, making its folders. */
static void put(const char *relative, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", root, relative);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int make_root(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/shardtab-memory-left-XXXXXX");
    if (mkdtemp(root) == NULL)
        return -1;
    snprintf(meminfo, sizeof meminfo, "%s/proc/meminfo", root);
    snprintf(self, sizeof self, "%s/proc/self/cgroup", root);
    snprintf(sys, sizeof sys, "%s/sys/fs/cgroup", root);
    put("proc/meminfo", "MemTotal:       33554432 kB\nMemAvailable:   16777216 kB\n"); /* 16 GiB */
    return 0;
}

static int remove_root(void **state)
{
    char command[128];
    (void)state;
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    return system(command) == 0 ? 0 : -1;
}

static void test_memory_left_is_memavailable_without_cgroups(void **state)
{
    (void)state;
    put("proc/self/cgroup", "0::/\n");
    assert_int_equal(st_memory_left(meminfo, self, sys), 16 * GIB);
    assert_int_equal(st_memory_left(meminfo, "/nonexistent/cgroup", sys), 16 * GIB);
    assert_int_equal(st_memory_left("/nonexistent/meminfo", "/nonexistent/cgroup", sys), 0);
}

/* A memory-left case, step by step: each step writes a file under the fake
 * root, then, where it gives `left`, st_memory_left must answer that many
 * bytes. The cases are rows of memory_cases in main. */
typedef struct memory_step {
    const char *file, *text;
    unsigned long long left; /* 0: no answer checked after this step */
} memory_step_t;

static void test_memory_left_case(void **state)
{
    for (const memory_step_t *step = *state; step->file; step++) {
        put(step->file, step->text);
        if (step->left)
            assert_int_equal(st_memory_left(meminfo, self, sys), step->left);
    }
}

#define V2 "sys/fs/cgroup/job.slice/step_0/memory."
#define V1 "sys/fs/cgroup/memory/slurm/uid_0/job_7/memory."
static const memory_step_t v2_limit_caps_and_max_does_not[] = {
    {"proc/self/cgroup", "0::/job.slice/step_0\n", 0},
    {V2 "max", "4294967296\n", 0},
    {V2 "current", "1073741824\n", 3 * GIB},
    {V2 "max", "max\n", 16 * GIB},
    {V2 "max", "68719476736\n", 16 * GIB}, /* a limit above MemAvailable: MemAvailable */
    {NULL}};
static const memory_step_t v1_limit_caps_and_unlimited_does_not[] = {
    {"proc/self/cgroup", "12:pids:/slurm/uid_0/job_7\n4:memory:/slurm/uid_0/job_7\n0::/\n", 0},
    {V1 "limit_in_bytes", "8589934592\n", 0},
    {V1 "usage_in_bytes", "2147483648\n", 6 * GIB},
    {V1 "limit_in_bytes", "9223372036854771712\n", 16 * GIB}, /* v1's "no limit" in pages */
    {NULL}};
static const memory_step_t v1_controllers_listed_together_and_root[] = {
    {"proc/self/cgroup", "3:cpu,cpuacct,memory:/\n", 0},
    {"sys/fs/cgroup/memory/memory.limit_in_bytes", "5368709120\n", 0},
    {"sys/fs/cgroup/memory/memory.usage_in_bytes", "1073741824\n", 4 * GIB},
    {"proc/self/cgroup", "3:cpu,memory_fake:/\n", 16 * GIB}, /* "memory" a whole name */
    {NULL}};
static const memory_step_t takes_the_least_of_v1_and_v2[] = {
    {"proc/self/cgroup", "4:memory:/a\n0::/b\n", 0},
    {"sys/fs/cgroup/memory/a/memory.limit_in_bytes", "10737418240\n", 0},
    {"sys/fs/cgroup/memory/a/memory.usage_in_bytes", "0\n", 0},
    {"sys/fs/cgroup/b/memory.max", "2147483648\n", 0},
    {"sys/fs/cgroup/b/memory.current", "0\n", 2 * GIB},
    {NULL}};
static const memory_step_t at_the_limit_is_one_byte_not_unknown[] = {
    {"proc/self/cgroup", "0::/full\n", 0},
    {"sys/fs/cgroup/full/memory.max", "1073741824\n", 0},
    {"sys/fs/cgroup/full/memory.current", "1073745920\n", 1}, /* over: the kernel lets it be */
    {NULL}};
#undef V1
#undef V2

int main(void)
{
    const struct CMUnitTest environment[] = {
        cmocka_unit_test(test_fault_parse_accepts_every_step_at_rank_zero_and_three),
        cmocka_unit_test(test_fault_parse_accepts_large_ranks),
        cmocka_unit_test(test_fault_parse_rejects_missing_rank),
        cmocka_unit_test(test_fault_parse_rejects_bad_rank),
        cmocka_unit_test(test_fault_parse_rejects_unknown_or_missing_step),
        cmocka_unit_test(test_fault_step_names_match_the_parser),
        cmocka_unit_test(test_parse_positive_int_accepts_positive_decimals),
        cmocka_unit_test(test_parse_positive_int_rejects_zero_signs_and_junk),
        cmocka_unit_test(test_parse_positive_int_rejects_leading_white_space),
        cmocka_unit_test(test_fault_check_before_mpi_refuses_only_a_malformed_variable),
        cmocka_unit_test(test_node_identity_is_the_host_name_and_the_boot_id),
        cmocka_unit_test(test_ipc_namespace_is_the_inode_of_proc_self_ns_ipc),
    };
    /* st_memory_left's cases share one temporary folder */
    const struct CMUnitTest memory_left[] = {
        cmocka_unit_test(test_memory_left_is_memavailable_without_cgroups),
        {"memory_left_v2_limit_caps_and_max_does_not", test_memory_left_case, NULL, NULL,
         (void *)v2_limit_caps_and_max_does_not},
        {"memory_left_v1_limit_caps_and_unlimited_does_not", test_memory_left_case, NULL, NULL,
         (void *)v1_limit_caps_and_unlimited_does_not},
        {"memory_left_v1_controllers_listed_together_and_root", test_memory_left_case, NULL, NULL,
         (void *)v1_controllers_listed_together_and_root},
        {"memory_left_takes_the_least_of_v1_and_v2", test_memory_left_case, NULL, NULL,
         (void *)takes_the_least_of_v1_and_v2},
        {"memory_left_at_the_limit_is_one_byte_not_unknown", test_memory_left_case, NULL, NULL,
         (void *)at_the_limit_is_one_byte_not_unknown},
    };
    int failed = cmocka_run_group_tests_name("environment", environment, NULL, NULL);

    return failed + cmocka_run_group_tests_name("memory_left", memory_left, make_root, remove_root);
}
