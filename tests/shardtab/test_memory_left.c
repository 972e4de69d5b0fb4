/* test_memory_left.c - pins st_memory_left, behind shardtab_host_memory_available:
 * MemAvailable capped by cgroup v2 (memory.max) and v1 (memory.limit_in_bytes)
 * limits, "no limit" in either form, controllers listed together, both
 * versions at once, and a cgroup at its limit; on files made in a temporary
 * folder laid out as /proc and /sys/fs/cgroup are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define GIB (1ull << 30)

static char root[64];                  /* the temporary folder */
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

static void test_memory_left_v2_limit_caps_and_max_does_not(void **state)
{
    (void)state;
    put("proc/self/cgroup", "0::/job.slice/step_0\n");
    put("sys/fs/cgroup/job.slice/step_0/memory.max", "4294967296\n");
    put("sys/fs/cgroup/job.slice/step_0/memory.current", "1073741824\n");
    assert_int_equal(st_memory_left(meminfo, self, sys), 3 * GIB);
    put("sys/fs/cgroup/job.slice/step_0/memory.max", "max\n");
    assert_int_equal(st_memory_left(meminfo, self, sys), 16 * GIB);
    /* a limit above MemAvailable leaves MemAvailable */
    put("sys/fs/cgroup/job.slice/step_0/memory.max", "68719476736\n");
    assert_int_equal(st_memory_left(meminfo, self, sys), 16 * GIB);
}

static void test_memory_left_v1_limit_caps_and_unlimited_does_not(void **state)
{
    (void)state;
    put("proc/self/cgroup", "12:pids:/slurm/uid_0/job_7\n4:memory:/slurm/uid_0/job_7\n0::/\n");
    put("sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes", "8589934592\n");
    put("sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.usage_in_bytes", "2147483648\n");
    assert_int_equal(st_memory_left(meminfo, self, sys), 6 * GIB);
    /* v1 writes "no limit" as PAGE_COUNTER_MAX pages */
    put("sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes", "9223372036854771712\n");
    assert_int_equal(st_memory_left(meminfo, self, sys), 16 * GIB);
}

static void test_memory_left_v1_controllers_listed_together_and_root(void **state)
{
    (void)state;
    put("proc/self/cgroup", "3:cpu,cpuacct,memory:/\n");
    put("sys/fs/cgroup/memory/memory.limit_in_bytes", "5368709120\n");
    put("sys/fs/cgroup/memory/memory.usage_in_bytes", "1073741824\n");
    assert_int_equal(st_memory_left(meminfo, self, sys), 4 * GIB);
    /* "memory" must be a whole name in the list */
    put("proc/self/cgroup", "3:cpu,memory_fake:/\n");
    assert_int_equal(st_memory_left(meminfo, self, sys), 16 * GIB);
}

static void test_memory_left_takes_the_least_of_v1_and_v2(void **state)
{
    (void)state;
    put("proc/self/cgroup", "4:memory:/a\n0::/b\n");
    put("sys/fs/cgroup/memory/a/memory.limit_in_bytes", "10737418240\n");
    put("sys/fs/cgroup/memory/a/memory.usage_in_bytes", "0\n");
    put("sys/fs/cgroup/b/memory.max", "2147483648\n");
    put("sys/fs/cgroup/b/memory.current", "0\n");
    assert_int_equal(st_memory_left(meminfo, self, sys), 2 * GIB);
}

static void test_memory_left_at_the_limit_is_one_byte_not_unknown(void **state)
{
    (void)state;
    put("proc/self/cgroup", "0::/full\n");
    put("sys/fs/cgroup/full/memory.max", "1073741824\n");
    put("sys/fs/cgroup/full/memory.current", "1073745920\n"); /* over: the kernel lets it be */
    assert_int_equal(st_memory_left(meminfo, self, sys), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_left_is_memavailable_without_cgroups),
        cmocka_unit_test(test_memory_left_v2_limit_caps_and_max_does_not),
        cmocka_unit_test(test_memory_left_v1_limit_caps_and_unlimited_does_not),
        cmocka_unit_test(test_memory_left_v1_controllers_listed_together_and_root),
        cmocka_unit_test(test_memory_left_takes_the_least_of_v1_and_v2),
        cmocka_unit_test(test_memory_left_at_the_limit_is_one_byte_not_unknown),
    };
    return cmocka_run_group_tests(tests, make_root, remove_root);
}
