/* segment_perms.c - the host backend's shared-memory segments are private to
 * their owner: mode 0600, owned by the caller, a name with 128 random bits,
 * not openable by another user, gone after ipc_unpublish, and a peer handle
 * cannot name anything but a shardtab segment.
 *
 * USAGE  mpiexec -n 1 ./segment_perms    (root: it drops to uid/gid 65534 in a
 *        forked child; exits 77, "skipped", when not run as root)
 * Calls the backend through the library's private header (src/shardtab/
 * backend.h), because on the public API a name exists only inside
 * shardtab_create.
 */
#define _GNU_SOURCE
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

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (cond) {                                                               \
            printf("ok:   " __VA_ARGS__);                                         \
        } else {                                                                  \
            printf("FAIL: " __VA_ARGS__);                                         \
            failures++;                                                           \
        }                                                                         \
        printf("\n");                                                             \
    } while (0)

/* In a child that has become OTHER_UID: try to open the segment every way.
 * Exit status: bit 0 O_RDWR opened, bit 1 O_RDONLY opened, bit 2 open(2) of
 * the /dev/shm path opened, bit 3 an errno other than EACCES, 64 setuid failed. */
static int other_user_tries(const char *name, const char *path)
{
    int result = 0, fd;

    if (setgroups(0, NULL) != 0 || setgid(OTHER_GID) != 0 || setuid(OTHER_UID) != 0 ||
        getuid() != OTHER_UID || geteuid() != OTHER_UID)
        return 64;
    fd = shm_open(name, O_RDWR, 0);
    if (fd >= 0)
        result |= 1;
    else if (errno != EACCES)
        result |= 8;
    fd = shm_open(name, O_RDONLY, 0);
    if (fd >= 0)
        result |= 2;
    else if (errno != EACCES)
        result |= 8;
    fd = open(path, O_RDONLY);
    if (fd >= 0)
        result |= 4;
    else if (errno != EACCES)
        result |= 8;
    return result;
}

static int run_as_other_user(const char *name, const char *path)
{
    pid_t pid;
    int status;

    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        _exit(other_user_tries(name, path)); /* never returns into MPI */
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static int is_segment_name(const char *name)
{
    regex_t re;
    char pattern[96];
    int ok;

    snprintf(pattern, sizeof pattern, "^/shardtab-%u-[0-9a-f]{32}$", (unsigned)getuid());
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    ok = regexec(&re, name, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

int main(int argc, char **argv)
{
    const st_backend_ops_t *ops;
    st_export_t exp, exp2;
    st_ipc_handle_t bad;
    char name[ST_IPC_HANDLE_BYTES], name2[ST_IPC_HANDLE_BYTES], path[128];
    unsigned char *shard, *other, *mapped = NULL;
    size_t bytes = 3 * 4096;
    struct stat st;
    int child, size;

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

    /* a shard inside a larger allocation, with a pattern in it */
    if (shardtab_mem_alloc(bytes, (void **)&shard) != SHARDTAB_SUCCESS ||
        shardtab_mem_alloc(bytes, (void **)&other) != SHARDTAB_SUCCESS) {
        printf("FAIL: shardtab_mem_alloc: %s\n", shardtab_last_error());
        return 1;
    }
    for (size_t i = 0; i < bytes; i++)
        shard[i] = (unsigned char)(i * 7 + 1);

    /* ---- export: the name, the file, its mode and owner ---- */
    CHECK(ops->ipc_export(shard + 100, 200, &exp) == SHARDTAB_SUCCESS, "ipc_export");
    memcpy(name, exp.handle.bytes, sizeof name);
    name[sizeof name - 1] = '\0';
    CHECK(is_segment_name(name), "name '%s' is /shardtab-<uid>-<32 hex digits> (128 random bits)",
          name);
    CHECK(exp.offset == 100 && exp.alloc_bytes == bytes, "offset %zu, alloc_bytes %zu",
          exp.offset, exp.alloc_bytes);
    snprintf(path, sizeof path, "/dev/shm%s", name);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "%s exists, a regular file", path);
    CHECK((st.st_mode & 07777) == 0600, "mode %04o, expected 0600", (unsigned)(st.st_mode & 07777));
    CHECK(st.st_uid == getuid() && st.st_gid == getgid(), "owner %u:%u, expected %u:%u",
          (unsigned)st.st_uid, (unsigned)st.st_gid, (unsigned)getuid(), (unsigned)getgid());
    CHECK((size_t)st.st_size == bytes, "size %lld, expected %zu", (long long)st.st_size, bytes);
    {
        int same = 1;
        for (size_t i = 0; i < bytes; i++)
            same &= shard[i] == (unsigned char)(i * 7 + 1);
        CHECK(same, "the shard kept its contents and address across the export");
    }

    /* a second export of the same shard is refused; another shard gets another name */
    CHECK(ops->ipc_export(shard, 16, &exp2) == SHARDTAB_ERR_UNSUPPORTED,
          "a second export of a published shard is refused");
    CHECK(ops->ipc_export(other, 16, &exp2) == SHARDTAB_SUCCESS &&
              (memcpy(name2, exp2.handle.bytes, sizeof name2), strcmp(name, name2) != 0) &&
              is_segment_name(name2),
          "a second allocation gets a different random name");
    ops->ipc_unpublish(other);

    /* ---- another user cannot open it ---- */
    child = run_as_other_user(name, path);
    CHECK(child == 0, "uid %d: shm_open(O_RDWR), shm_open(O_RDONLY) and open(%s) all fail "
                      "with EACCES (child status %d)", OTHER_UID, path, child);

    /* ---- the owner's peer path opens it, and sees the same bytes ---- */
    CHECK(ops->ipc_open(&exp.handle, exp.alloc_bytes, (void **)&mapped) == SHARDTAB_SUCCESS &&
              mapped != NULL && memcmp(mapped, shard, bytes) == 0,
          "ipc_open of the handle maps the same bytes");
    if (mapped) {
        mapped[150] ^= 0xff;
        CHECK(shard[150] == (unsigned char)((150 * 7 + 1) ^ 0xff), "a store through the peer "
                                                                  "mapping is seen by the owner");
        ops->ipc_close(mapped, exp.alloc_bytes);
    }

    /* ---- a peer handle can only name a shardtab segment ---- */
    {
        static const char *const evil[] = {"/etc/passwd", "/shardtab-0-../../etc/passwd",
                                           "shardtab-0-abc", "/dev/shm/shardtab-x", "/sem.x"};
        for (size_t i = 0; i < sizeof evil / sizeof evil[0]; i++) {
            void *p = NULL;
            memset(&bad, 0, sizeof bad);
            memcpy(bad.bytes, evil[i], strlen(evil[i]));
            CHECK(ops->ipc_open(&bad, 4096, &p) == SHARDTAB_ERR_DESCRIPTOR && p == NULL,
                  "a handle naming '%s' is rejected as a bad descriptor", evil[i]);
        }
        void *p = NULL;
        memset(&bad, 'a', sizeof bad); /* no terminating NUL */
        CHECK(ops->ipc_open(&bad, 4096, &p) == SHARDTAB_ERR_DESCRIPTOR && p == NULL,
              "a handle without a terminating NUL is rejected");
        p = NULL;
        CHECK(ops->ipc_open(&exp.handle, exp.alloc_bytes + 4096, &p) == SHARDTAB_ERR_DESCRIPTOR &&
                  p == NULL,
              "a handle whose size disagrees with the segment is rejected");
    }

    /* ---- unpublish: the name is gone, the shard still works ---- */
    CHECK(ops->ipc_unpublish(shard) == SHARDTAB_SUCCESS, "ipc_unpublish");
    CHECK(lstat(path, &st) != 0 && errno == ENOENT, "%s is gone after ipc_unpublish", path);
    shard[0] = 42;
    CHECK(shard[0] == 42 && shard[bytes - 1] == (unsigned char)((bytes - 1) * 7 + 1),
          "the shard stays usable after unpublish");
    CHECK(shardtab_mem_free(shard) == SHARDTAB_SUCCESS &&
              shardtab_mem_free(other) == SHARDTAB_SUCCESS,
          "shardtab_mem_free");
    shardtab_finalize();
    MPI_Finalize();
    printf("%s: %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
