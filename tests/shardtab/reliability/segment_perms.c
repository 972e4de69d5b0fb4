/* segment_perms.c - the host backend's shared memory is private to its owner
 * and never named: each exported allocation is a memfd (mode 0600, owned by
 * the caller, a 128-bit random tag in its name), nothing appears in /dev/shm,
 * another user cannot open it through /proc, a handle can only name such a
 * memfd, and its descriptor goes with shardtab_mem_free.
 *
 * USAGE  mpiexec -n 1 ./segment_perms    (root: it drops to uid/gid 65534 in a
 *        forked child; exits 77, "skipped", when not run as root)
 * Calls the backend through the library's private header (src/shardtab/
 * backend.h), to look at a handle between export and open.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"

#define OTHER_UID 65534 /* nobody */
#define OTHER_GID 65534 /* nogroup */

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (cond) {                                                                                    \
      printf("ok:   " __VA_ARGS__);                                                                \
    } else {                                                                                       \
      printf("FAIL: " __VA_ARGS__);                                                                \
      failures++;                                                                                  \
    }                                                                                              \
    printf("\n");                                                                                  \
  } while (0)

/* The handle's layout (backend_host.c): magic, pid, descriptor, tag. */
typedef struct handle_view {
    char magic[8];
    int32_t pid;
    int32_t fd;
    char tag[33];
} handle_view_t;

/* In a child that has become OTHER_UID: try to open the owner's memfd through
 * /proc. Exit status: bit 0 O_RDWR opened, bit 1 O_RDONLY opened, bit 3 an
 * errno other than EACCES, 64 setuid failed. */
static int other_user_tries(const char *path)
{
    int result = 0, fd;

    if (setgroups(0, NULL) != 0 || setgid(OTHER_GID) != 0 || setuid(OTHER_UID) != 0 ||
        getuid() != OTHER_UID || geteuid() != OTHER_UID)
        return 64;
    fd = open(path, O_RDWR);
    if (fd >= 0)
        result |= 1;
    else if (errno != EACCES)
        result |= 8;
    fd = open(path, O_RDONLY);
    if (fd >= 0)
        result |= 2;
    else if (errno != EACCES)
        result |= 8;
    return result;
}

static int run_as_other_user(const char *path)
{
    pid_t pid;
    int status;

    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        _exit(other_user_tries(path)); /* never returns into MPI */
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static int is_tag(const char *tag)
{
    regex_t re;
    int ok;

    if (regcomp(&re, "^[0-9a-f]{32}$", REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    ok = regexec(&re, tag, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

static int shm_entries(void)
{
    DIR *dir = opendir("/dev/shm");
    struct dirent *e;
    int n = 0;

    if (dir == NULL)
        return 0;
    while ((e = readdir(dir)) != NULL)
        n += strncmp(e->d_name, "shardtab-", 9) == 0;
    closedir(dir);
    return n;
}

static int open_descriptors(void)
{
    DIR *dir = opendir("/proc/self/fd");
    int n = 0;

    if (dir == NULL)
        return -1;
    while (readdir(dir) != NULL)
        n++;
    closedir(dir);
    return n;
}

int main(int argc, char **argv)
{
    const st_backend_ops_t *ops;
    st_export_t exp, exp2, again;
    st_ipc_handle_t bad;
    handle_view_t h, h2;
    char path[128], link[160], want[160];
    unsigned char *shard, *other, *mapped = NULL;
    size_t bytes = 3 * 4096;
    struct stat st;
    int child, size, shm_before, fds_before;
    ssize_t len;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (geteuid() != 0) {
        printf("skipped: needs root to become uid %d in a child\n", OTHER_UID);
        MPI_Finalize();
        return 77;
    }
    if (size != 1 || shardtab_init(MPI_COMM_WORLD, NULL) != SHARDTAB_SUCCESS ||
        shardtab_backend() != SHARDTAB_BACKEND_HOST) {
        printf("FAIL: run at 1 rank of a host-backend build (%s)\n", shardtab_last_error());
        MPI_Finalize();
        return 1;
    }
    ops = st_backend();
    shm_before = shm_entries();
    fds_before = open_descriptors();

    /* a shard inside a larger allocation, with a pattern in it */
    if (shardtab_mem_alloc(bytes, (void **)&shard) != SHARDTAB_SUCCESS ||
        shardtab_mem_alloc(bytes, (void **)&other) != SHARDTAB_SUCCESS) {
        printf("FAIL: shardtab_mem_alloc: %s\n", shardtab_last_error());
        return 1;
    }
    for (size_t i = 0; i < bytes; i++)
        shard[i] = (unsigned char)(i * 7 + 1);

    /* ---- export: the handle, the memfd, its mode and owner ---- */
    CHECK(ops->ipc_export(shard + 100, 200, &exp) == SHARDTAB_SUCCESS, "ipc_export");
    memcpy(&h, exp.handle.bytes, sizeof h);
    CHECK(memcmp(h.magic, "STMEMFD1", 8) == 0 && h.pid == (int32_t)getpid() && h.fd >= 0 &&
              is_tag(h.tag),
          "handle: magic, this pid %d, descriptor %d, tag '%.32s' of 32 hex digits (128 random "
          "bits)",
          (int)h.pid, (int)h.fd, h.tag);
    CHECK(exp.offset == 100 && exp.alloc_bytes == bytes, "offset %zu, alloc_bytes %zu", exp.offset,
          exp.alloc_bytes);
    snprintf(path, sizeof path, "/proc/self/fd/%d", (int)h.fd);
    len = readlink(path, link, sizeof link - 1);
    link[len > 0 ? len : 0] = '\0';
    snprintf(want, sizeof want, "/memfd:shardtab-%s (deleted)", h.tag);
    CHECK(strcmp(link, want) == 0, "the descriptor is the memfd '%s' (got '%s')", want, link);
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode), "it is a regular file");
    CHECK((st.st_mode & 07777) == 0600, "mode %04o, expected 0600", (unsigned)(st.st_mode & 07777));
    CHECK(st.st_uid == getuid() && st.st_gid == getgid(), "owner %u:%u, expected %u:%u",
          (unsigned)st.st_uid, (unsigned)st.st_gid, (unsigned)getuid(), (unsigned)getgid());
    CHECK((size_t)st.st_size == bytes, "size %lld, expected %zu", (long long)st.st_size, bytes);
    CHECK(shm_entries() == shm_before, "nothing named in /dev/shm");
    {
        int same = 1;
        for (size_t i = 0; i < bytes; i++)
            same &= shard[i] == (unsigned char)(i * 7 + 1);
        CHECK(same, "the shard kept its contents and address across the export");
    }

    /* one memfd per allocation: a second export gives the same handle; another
     * allocation gets another tag */
    CHECK(ops->ipc_export(shard, 16, &again) == SHARDTAB_SUCCESS &&
              memcmp(again.handle.bytes, exp.handle.bytes, sizeof again.handle.bytes) == 0,
          "a second export of the allocation gives the same handle");
    CHECK(ops->ipc_export(other, 16, &exp2) == SHARDTAB_SUCCESS &&
              (memcpy(&h2, exp2.handle.bytes, sizeof h2), strcmp(h.tag, h2.tag) != 0) &&
              is_tag(h2.tag) && h2.fd != h.fd,
          "a second allocation gets its own memfd and a different random tag");

    /* ---- another user cannot open it ---- */
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)getpid(), (int)h.fd);
    child = run_as_other_user(path);
    CHECK(child == 0,
          "uid %d: open(%s) O_RDWR and O_RDONLY both fail with EACCES (child "
          "status %d)",
          OTHER_UID, path, child);

    /* ---- the peer path opens it, and sees the same bytes ---- */
    CHECK(ops->ipc_open(&exp.handle, exp.alloc_bytes, (void **)&mapped) == SHARDTAB_SUCCESS &&
              mapped != NULL && memcmp(mapped, shard, bytes) == 0,
          "ipc_open of the handle maps the same bytes");
    if (mapped) {
        mapped[150] ^= 0xff;
        CHECK(shard[150] == (unsigned char)((150 * 7 + 1) ^ 0xff), "a store through the peer "
                                                                   "mapping is seen by the owner");
        ops->ipc_close(mapped, exp.alloc_bytes);
    }

    /* ---- a peer handle can only name such a memfd ---- */
    {
        handle_view_t evil;
        void *p;
        const char *what[] = {"another magic",
                              "a negative pid",
                              "a negative descriptor",
                              "a tag with a non-hex digit",
                              "a tag without its NUL",
                              "another allocation's tag",
                              "a descriptor that is not a memfd"};
        for (int i = 0; i < 7; i++) {
            evil = h;
            switch (i) {
            case 0:
                memcpy(evil.magic, "STMEMFD0", 8);
                break;
            case 1:
                evil.pid = -5;
                break;
            case 2:
                evil.fd = -1;
                break;
            case 3:
                evil.tag[7] = 'g';
                break;
            case 4:
                memset(evil.tag, 'a', sizeof evil.tag);
                break;
            case 5:
                memcpy(evil.tag, h2.tag, sizeof evil.tag);
                break;
            case 6:
                evil.fd = 1;
                break; /* stdout */
            }
            memset(&bad, 0, sizeof bad);
            memcpy(bad.bytes, &evil, sizeof evil);
            p = NULL;
            CHECK(ops->ipc_open(&bad, exp.alloc_bytes, &p) == SHARDTAB_ERR_DESCRIPTOR && p == NULL,
                  "a handle with %s is rejected as a bad descriptor", what[i]);
        }
        p = NULL;
        CHECK(ops->ipc_open(&exp.handle, exp.alloc_bytes + 4096, &p) == SHARDTAB_ERR_DESCRIPTOR &&
                  p == NULL,
              "a handle whose size disagrees with the memory is rejected");
    }

    /* ---- the shard stays usable; its descriptor goes with the free ---- */
    shard[0] = 42;
    CHECK(shard[0] == 42 && shard[bytes - 1] == (unsigned char)((bytes - 1) * 7 + 1),
          "the shard stays usable after export and open");
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS &&
              shardtab_mem_free(other) == SHARDTAB_SUCCESS,
          "shardtab_mem_free");
    CHECK(open_descriptors() == fds_before,
          "the memfds are closed with the allocations (%d "
          "descriptors, %d before)",
          open_descriptors(), fds_before);
    CHECK(shm_entries() == shm_before, "still nothing in /dev/shm");
    shardtab_finalize();
    MPI_Finalize();
    printf("%s: %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
