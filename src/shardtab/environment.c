/* environment.c - what the library reads from the node and the environment:
 * host name and boot id (which together identify a running node), the
 * SHARDTAB_FAULT injection points, integer variables and the host memory
 * left to this process (shardtab_host_memory_available). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "internal.h"
#include "test_hooks.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void st_node_identity(char host[ST_HOST_NAME_BYTES], char boot_id[ST_BOOT_ID_BYTES])
{
    FILE *f;

    if (gethostname(host, ST_HOST_NAME_BYTES) != 0)
        snprintf(host, ST_HOST_NAME_BYTES, "unknown-host");
    host[ST_HOST_NAME_BYTES - 1] = '\0';

    /* Host names repeat across containers and clusters; the boot id does not. */
    snprintf(boot_id, ST_BOOT_ID_BYTES, "unknown-boot");
    f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (fgets(boot_id, ST_BOOT_ID_BYTES, f) == NULL)
            snprintf(boot_id, ST_BOOT_ID_BYTES, "unknown-boot");
        boot_id[strcspn(boot_id, "\n")] = '\0';
        fclose(f);
    }
}

/* The first number of a one-line file, or UINT64_MAX ("max", missing). */
static uint64_t read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned long long v;
    uint64_t value = UINT64_MAX;

    if (f == NULL)
        return UINT64_MAX;
    if (fscanf(f, "%llu", &v) == 1)
        value = (uint64_t)v;
    fclose(f);
    return value;
}

/* What a cgroup allows beyond what it uses, at least 1 (0 reads as unknown),
 * or UINT64_MAX: no limit set. v1 writes "no limit" as a number near 2^63, so
 * anything from 2^62 up is none. */
static uint64_t cgroup_left(const char *limit_path, const char *usage_path)
{
    uint64_t limit = read_number(limit_path), used = read_number(usage_path);

    if (limit == UINT64_MAX || limit >= (1ull << 62) || used == UINT64_MAX)
        return UINT64_MAX;
    return limit > used ? limit - used : 1;
}

/* Whether the comma-separated list names the controller. */
static int lists_controller(const char *list, const char *name)
{
    size_t len = strlen(name);

    for (const char *c = list;; c++) {
        if (strncmp(c, name, len) == 0 && (c[len] == ',' || c[len] == '\0'))
            return 1;
        if ((c = strchr(c, ',')) == NULL)
            return 0;
    }
}

uint64_t st_memory_left(const char *meminfo, const char *self_cgroup, const char *cgroup_root)
{
    FILE *f = fopen(meminfo, "r");
    char line[1024], group[512], path[1024], path2[1024];
    unsigned long long kib;
    uint64_t available = 0;

    if (f) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
                available = (uint64_t)kib * 1024;
        fclose(f);
    }
    /* Each line of /proc/self/cgroup is "id:controllers:path". cgroup v2 is
     * "0::/path", its files memory.max and memory.current; v1 names the memory
     * controller, its files memory.limit_in_bytes and memory.usage_in_bytes
     * under the controller's own mount. Either may be there, or both. */
    f = fopen(self_cgroup, "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            char *controllers = strchr(line, ':'), *rest;
            uint64_t left = UINT64_MAX;

            if (controllers == NULL || (rest = strchr(controllers + 1, ':')) == NULL)
                continue;
            *rest++ = '\0';
            controllers++;
            if (sscanf(rest, "%511s", group) != 1)
                continue;
            if (controllers[0] == '\0') {
                snprintf(path, sizeof path, "%s%s/memory.max", cgroup_root, group);
                snprintf(path2, sizeof path2, "%s%s/memory.current", cgroup_root, group);
                left = cgroup_left(path, path2);
            } else if (lists_controller(controllers, "memory")) {
                const char *sub = strcmp(group, "/") == 0 ? "" : group;
                snprintf(path, sizeof path, "%s/memory%s/memory.limit_in_bytes", cgroup_root, sub);
                snprintf(path2, sizeof path2, "%s/memory%s/memory.usage_in_bytes", cgroup_root,
                         sub);
                left = cgroup_left(path, path2);
            }
            if (left != UINT64_MAX && (available == 0 || left < available))
                available = left;
        }
        fclose(f);
    }
    return available;
}

uint64_t shardtab_host_memory_available(void)
{
    return st_memory_left("/proc/meminfo", "/proc/self/cgroup", "/sys/fs/cgroup");
}

uint64_t st_ipc_namespace(void)
{
    char link[64];
    unsigned long long inode = 0;
    ssize_t len = readlink("/proc/self/ns/ipc", link, sizeof link - 1);

    if (len <= 0)
        return 0;
    link[len] = '\0';
    return sscanf(link, "ipc:[%llu]", &inode) == 1 ? (uint64_t)inode : 0;
}

int st_parse_positive_int(const char *text, int *value)
{
    char *end;
    long v;

    if (text == NULL || !isdigit((unsigned char)*text)) /* no sign, no blanks */
        return -1;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v <= 0 || v > INT_MAX)
        return -1;
    *value = (int)v;
    return 0;
}

/* Each step: its name in SHARDTAB_FAULT, and the status its real failure
 * gives (a coll-* step stops before it can fail). */
static const struct {
    const char *name;
    shardtab_status_t status;
} fault_steps[ST_FAULT_STEP_COUNT] = {
    [ST_FAULT_ALLOC] = {"alloc", SHARDTAB_ERR_NO_MEMORY},
    [ST_FAULT_EXPORT] = {"export", SHARDTAB_ERR_IPC},
    [ST_FAULT_EXCHANGE] = {"exchange", SHARDTAB_ERR_MPI},
    [ST_FAULT_OPEN] = {"open", SHARDTAB_ERR_IPC},
    [ST_FAULT_UPLOAD] = {"upload", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_CLOSE] = {"close", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_FREE] = {"free", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_COLL_ENTER] = {"coll-enter", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_COLL_PHASE] = {"coll-phase", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_COLL_ARGS] = {"coll-args", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_COLL_NODE] = {"coll-node", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_COLL_LEADERS] = {"coll-leaders", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_COLL_RESULT] = {"coll-result", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_COLL_END] = {"coll-end", SHARDTAB_ERR_DEVICE},
    [ST_FAULT_FACES_STAGING] = {"faces-staging", SHARDTAB_ERR_NO_MEMORY},
    [ST_FAULT_FACES_POST] = {"faces-post", SHARDTAB_ERR_MPI},
};

const char *st_fault_step_name(st_fault_step_t step)
{
    return (unsigned)step < ST_FAULT_STEP_COUNT ? fault_steps[step].name : "?";
}

int st_fault_parse(const char *text, st_fault_step_t *step, int *rank)
{
    const char *colon = text ? strchr(text, ':') : NULL;
    int r;

    if (colon == NULL)
        return -1;
    for (int s = 0; s < ST_FAULT_STEP_COUNT; s++) {
        size_t len = strlen(fault_steps[s].name);
        if ((size_t)(colon - text) == len && strncmp(text, fault_steps[s].name, len) == 0) {
            /* rank 0 is a valid target, so parse it by hand */
            if (strcmp(colon + 1, "0") == 0)
                r = 0;
            else if (st_parse_positive_int(colon + 1, &r) != 0)
                return -1;
            *step = (st_fault_step_t)s;
            *rank = r;
            return 0;
        }
    }
    return -1;
}

shardtab_status_t st_fault_check(st_fault_step_t step)
{
    const char *text;
    char refused[256];
    st_fault_step_t target;
    int rank, me = -1;

    if (test_hook_read("SHARDTAB_FAULT", &text, refused, sizeof refused) != 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s", refused);
    if (text == NULL)
        return SHARDTAB_SUCCESS;
    if (st_fault_parse(text, &target, &rank) != 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "SHARDTAB_FAULT='%s' is not <step>:<rank> with step one of "
                       "alloc, export, exchange, open, upload, close, free, coll-enter, "
                       "coll-phase, coll-args, coll-node, coll-leaders, coll-result, coll-end, "
                       "faces-staging, faces-post",
                       text);
    if (!st_mpi_usable())
        return SHARDTAB_SUCCESS; /* no rank to aim at before MPI_Init or after MPI_Finalize */
    MPI_Comm_rank(MPI_COMM_WORLD, &me); /* the rank the variable names: of MPI_COMM_WORLD */
    if (target != step || rank != me)
        return SHARDTAB_SUCCESS;
    return st_fail(st_fault_status(step), "fault injected at step '%s' (SHARDTAB_FAULT=%s)",
                   st_fault_step_name(step), text);
}

shardtab_status_t st_fault_status(st_fault_step_t step)
{
    return (unsigned)step < ST_FAULT_STEP_COUNT ? fault_steps[step].status : SHARDTAB_ERR_DEVICE;
}

void st_fault_stall(st_fault_step_t step)
{
    /* a malformed value or a build without hooks: refused at create's steps */
    if (step >= ST_FAULT_COLL_ENTER && step <= ST_FAULT_COLL_END &&
        st_fault_check(step) == st_fault_status(step)) {
        fprintf(stderr, "shardtab: %s: this rank stops here (SIGSTOP)\n", shardtab_last_error());
        fflush(stderr);
        raise(SIGSTOP);
    }
}
