/* backend_host.c - the host backend: "device memory" is POSIX shared memory and
 * kernels run on the CPU, so the whole protocol runs on machines without a GPU.
 *
 * Shards start as anonymous shared mappings and have no name. Exporting one
 * moves it into a fresh segment, shm_open(O_CREAT|O_EXCL, 0600) under an
 * unguessable name, mapped over the same address (MAP_FIXED), so the caller's
 * pointer stays valid. The name is the IPC handle. Once every node peer has
 * mapped it, ipc_unpublish unlinks it: a name exists only during create, and
 * nothing of ours outlives the job in /dev/shm, even when it is killed later.
 * A job killed during create is covered by the signal handlers below. Each
 * export copies the shard once (a host-backend cost, not a GPU one), and a
 * shard should belong to one live table at a time on this backend.
 */
#define _GNU_SOURCE
#include "backend.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SEGMENT_PREFIX "/shardtab-"

typedef struct host_alloc {
    void *base;
    size_t bytes;                   /* mapped length, whole pages */
    char name[ST_IPC_HANDLE_BYTES]; /* linked name while published, else "" */
    struct host_alloc *next;
} host_alloc_t;

static host_alloc_t *allocations;

static size_t page_round(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (bytes == 0)
        bytes = 1;
    if (bytes > SIZE_MAX - page)
        return 0;
    return (bytes + page - 1) / page * page;
}

static host_alloc_t *find_containing(const void *ptr, size_t bytes)
{
    const char *p = ptr;
    for (host_alloc_t *a = allocations; a; a = a->next) {
        const char *base = a->base;
        if (p >= base && p < base + a->bytes && bytes <= (size_t)(base + a->bytes - p))
            return a;
    }
    return NULL;
}

static shardtab_status_t host_bind(const st_bind_request_t *req, shardtab_device_info_t *info)
{
    (void)req;
    info->backend = SHARDTAB_BACKEND_HOST;
    info->device = 0;
    info->visible_devices = 1;
    snprintf(info->name, sizeof info->name, "cpu");
    snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "-");
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_unbind(void)
{
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_mem_alloc(size_t bytes, void **ptr)
{
    size_t len = page_round(bytes);
    host_alloc_t *a;
    void *base;

    if (len == 0)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "allocation of %zu bytes overflows", bytes);
    a = calloc(1, sizeof *a);
    if (a == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "calloc of an allocation record failed");
    base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        int err = errno;
        free(a);
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "mmap of %zu bytes failed: %s", len, strerror(err));
    }
    a->base = base;
    a->bytes = len;
    a->next = allocations;
    allocations = a;
    *ptr = base;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_mem_free(void *ptr)
{
    for (host_alloc_t **link = &allocations; *link; link = &(*link)->next) {
        host_alloc_t *a = *link;
        if (a->base != ptr)
            continue;
        if (a->name[0] != '\0')
            shm_unlink(a->name);
        munmap(a->base, a->bytes);
        *link = a->next;
        free(a);
        return SHARDTAB_SUCCESS;
    }
    return st_fail(SHARDTAB_ERR_INVALID_ARG,
                   "shardtab_mem_free(%p): not an allocation of shardtab_mem_alloc", ptr);
}

static shardtab_status_t host_copy(void *dst, const void *src, size_t bytes)
{
    memmove(dst, src, bytes);
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_synchronize(void)
{
    return SHARDTAB_SUCCESS; /* host kernels complete before their launcher returns */
}

/* Shared memory is coherent between processes: C11 atomics order it. */
static shardtab_status_t host_mem_alloc_coherent(size_t bytes, int uncached, void **ptr)
{
    (void)uncached;
    return host_mem_alloc(bytes, ptr);
}

static shardtab_status_t host_copy_async(void *dst, const void *src, size_t bytes,
                                         shardtab_stream_t stream)
{
    (void)stream;
    return host_copy(dst, src, bytes);
}

static shardtab_status_t host_stream_synchronize(shardtab_stream_t stream)
{
    (void)stream;
    return SHARDTAB_SUCCESS;
}

static double host_clock_hz(void)
{
    return 1e9; /* shardtab_clock() on the host: CLOCK_MONOTONIC nanoseconds */
}

/* There is no stream: the barrier runs now; a wait that gives up has recorded
 * itself in the pad, where shardtab_signal_check finds it. */
static shardtab_status_t host_barrier_on_stream(const shardtab_signals_t *signals,
                                                shardtab_stream_t stream)
{
    (void)stream;
    (void)shardtab_barrier(signals);
    return SHARDTAB_SUCCESS;
}

/* ---- names, and removing them when the job is told to die ---------------- *
 * A segment is named /shardtab-<uid>-<key><noise>: 16 hex digits of the key
 * this create's node shares (ipc_begin), 16 of fresh noise. While a create
 * publishes, SIGTERM, SIGINT, SIGHUP and SIGQUIT first remove every name of
 * the node's key, then take their old course. A rank killed outright (SIGKILL)
 * cannot clean, but MPI launchers and Slurm send SIGTERM to the survivors,
 * whose handlers remove its names too. */

static const int cleanup_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
#define CLEANUP_SIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])
static struct sigaction saved_actions[CLEANUP_SIGNALS];
static volatile sig_atomic_t publishing;
static uint64_t publish_key;
static char key_prefix[ST_IPC_HANDLE_BYTES]; /* "shardtab-<uid>-<key>", no slash */
static size_t key_prefix_len;

/* Async-signal-safe: raw getdents64 and unlinkat over /dev/shm. */
static void remove_key_names(void)
{
    struct dirent64_raw {
        uint64_t ino;
        int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[];
    };
    char buf[4096] __attribute__((aligned(8)));
    int dir = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    long n;

    if (dir < 0)
        return;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long at = 0; at < n;) {
            struct dirent64_raw *d = (struct dirent64_raw *)(buf + at);
            size_t i = 0;
            while (i < key_prefix_len && d->name[i] == key_prefix[i])
                i++;
            if (i == key_prefix_len)
                unlinkat(dir, d->name, 0);
            at += d->reclen;
        }
    }
    close(dir);
}

static void on_terminating_signal(int sig)
{
    int saved_errno = errno; /* if the old disposition returns, nobody sees ours */

    if (publishing)
        remove_key_names();
    for (size_t i = 0; i < CLEANUP_SIGNALS; i++) {
        if (cleanup_signals[i] == sig) {
            sigaction(sig, &saved_actions[i], NULL);
            break;
        }
    }
    raise(sig); /* the old disposition, usually death, now runs */
    errno = saved_errno;
}

static shardtab_status_t host_ipc_begin(uint64_t key)
{
    struct sigaction act;

    publish_key = key;
    key_prefix_len = (size_t)snprintf(key_prefix, sizeof key_prefix, "shardtab-%u-%016llx",
                                      (unsigned)getuid(), (unsigned long long)key);
    memset(&act, 0, sizeof act);
    act.sa_handler = on_terminating_signal;
    sigemptyset(&act.sa_mask);
    for (size_t i = 0; i < CLEANUP_SIGNALS; i++) {
        sigaction(cleanup_signals[i], NULL, &saved_actions[i]);
        /* an ignored signal (SIGHUP under nohup) stays ignored: it must not
         * unlink the node's names while the job goes on */
        if (saved_actions[i].sa_handler != SIG_IGN)
            sigaction(cleanup_signals[i], &act, NULL);
    }
    publishing = 1;
    return SHARDTAB_SUCCESS;
}

static void host_ipc_end(void)
{
    publishing = 0;
    for (size_t i = 0; i < CLEANUP_SIGNALS; i++)
        sigaction(cleanup_signals[i], &saved_actions[i], NULL);
    publish_key = 0;
}

static shardtab_status_t random_segment_name(char name[ST_IPC_HANDLE_BYTES])
{
    uint64_t noise[2];

    if (getrandom(noise, sizeof noise, 0) != (ssize_t)sizeof noise)
        return st_fail(SHARDTAB_ERR_DEVICE, "getrandom failed: %s", strerror(errno));
    if (publishing)
        noise[0] = publish_key;
    snprintf(name, ST_IPC_HANDLE_BYTES, SEGMENT_PREFIX "%u-%016llx%016llx", (unsigned)getuid(),
             (unsigned long long)noise[0], (unsigned long long)noise[1]);
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_ipc_export(void *ptr, size_t bytes, st_export_t *out)
{
    host_alloc_t *a = find_containing(ptr, bytes);
    char name[ST_IPC_HANDLE_BYTES];
    shardtab_status_t status;
    void *staging, *moved;
    int fd, err;

    if (a == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shard %p (%zu bytes) is not inside an allocation of shardtab_mem_alloc",
                       ptr, bytes);
    if (a->name[0] != '\0')
        return st_fail(SHARDTAB_ERR_UNSUPPORTED,
                       "shard %p is already being published by another shardtab_create", ptr);

    status = random_segment_name(name);
    if (status != SHARDTAB_SUCCESS)
        return status;
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return st_fail(SHARDTAB_ERR_IPC, "shm_open(%s, O_CREAT|O_EXCL, 0600) failed: %s", name,
                       strerror(errno));
    /* Reserve the pages now: a full /dev/shm must fail here, not SIGBUS later. */
    err = ftruncate(fd, (off_t)a->bytes) != 0 ? errno : posix_fallocate(fd, 0, (off_t)a->bytes);
    if (err != 0) {
        close(fd);
        shm_unlink(name);
        return st_fail(SHARDTAB_ERR_NO_MEMORY,
                       "reserving %zu bytes in /dev/shm failed: %s; /dev/shm is too small "
                       "(check df -h /dev/shm; containers: raise --shm-size)",
                       a->bytes, strerror(err));
    }
    staging = mmap(NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (staging == MAP_FAILED) {
        err = errno;
        close(fd);
        shm_unlink(name);
        return st_fail(SHARDTAB_ERR_IPC, "mmap of segment %s failed: %s", name, strerror(err));
    }
    memcpy(staging, a->base, a->bytes);
    munmap(staging, a->bytes);
    /* Replace the old pages at the same address in one call (no other thread
     * may write the shard during create: it is a collective). */
    moved = mmap(a->base, a->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    err = errno;
    close(fd);
    if (moved == MAP_FAILED) {
        /* Linux may have dropped the old pages already: keep the range valid */
        mmap(a->base, a->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        shm_unlink(name);
        return st_fail(SHARDTAB_ERR_IPC, "mmap(MAP_FIXED) of segment %s over the shard failed: "
                                         "%s; the shard's contents are lost",
                       name, strerror(err));
    }
    memcpy(a->name, name, sizeof a->name);
    memset(out, 0, sizeof *out);
    memcpy(out->handle.bytes, name, strlen(name) + 1);
    out->offset = (size_t)((char *)ptr - (char *)a->base);
    out->alloc_bytes = a->bytes;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_ipc_unpublish(void *ptr)
{
    host_alloc_t *a = find_containing(ptr, 0);

    if (a == NULL || a->name[0] == '\0')
        return SHARDTAB_SUCCESS;
    if (shm_unlink(a->name) != 0 && errno != ENOENT)
        return st_fail(SHARDTAB_ERR_IPC, "shm_unlink(%s) failed: %s", a->name, strerror(errno));
    a->name[0] = '\0';
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_ipc_open(const st_ipc_handle_t *handle, size_t alloc_bytes,
                                       void **base)
{
    char name[ST_IPC_HANDLE_BYTES];
    struct stat st;
    void *mapped;
    int fd, err;

    memcpy(name, handle->bytes, sizeof name);
    if (memchr(name, '\0', sizeof name) == NULL ||
        strncmp(name, SEGMENT_PREFIX, strlen(SEGMENT_PREFIX)) != 0 || strchr(name + 1, '/'))
        return st_fail(SHARDTAB_ERR_DESCRIPTOR, "peer handle is not a shardtab segment name");
    fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return st_fail(SHARDTAB_ERR_IPC, "shm_open(%s) failed: %s", name, strerror(errno));
    if (fstat(fd, &st) != 0) {
        err = errno;
        close(fd);
        return st_fail(SHARDTAB_ERR_IPC, "fstat of peer segment %s failed: %s", name, strerror(err));
    }
    if ((size_t)st.st_size != alloc_bytes) {
        close(fd);
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "segment %s holds %lld bytes, the descriptor says %zu", name,
                       (long long)st.st_size, alloc_bytes);
    }
    mapped = mmap(NULL, alloc_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    err = errno;
    close(fd);
    if (mapped == MAP_FAILED)
        return st_fail(SHARDTAB_ERR_IPC, "mmap of peer segment %s failed: %s", name,
                       strerror(err));
    *base = mapped;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_ipc_close(void *base, size_t alloc_bytes)
{
    if (munmap(base, alloc_bytes) != 0)
        return st_fail(SHARDTAB_ERR_IPC, "munmap of a peer segment failed: %s", strerror(errno));
    return SHARDTAB_SUCCESS;
}

const st_backend_ops_t st_backend_host_ops = {
    .kind = SHARDTAB_BACKEND_HOST,
    .name = "host",
    .bind = host_bind,
    .unbind = host_unbind,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .copy_to_device = host_copy,
    .copy_to_host = host_copy,
    .synchronize = host_synchronize,
    .mem_alloc_coherent = host_mem_alloc_coherent,
    .copy_async = host_copy_async,
    .stream_synchronize = host_stream_synchronize,
    .clock_hz = host_clock_hz,
    .barrier_on_stream = host_barrier_on_stream,
    .ipc_begin = host_ipc_begin,
    .ipc_end = host_ipc_end,
    .ipc_export = host_ipc_export,
    .ipc_unpublish = host_ipc_unpublish,
    .ipc_open = host_ipc_open,
    .ipc_close = host_ipc_close,
    .can_access_peer = NULL,
};
