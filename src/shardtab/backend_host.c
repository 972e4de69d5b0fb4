/* backend_host.c - the host backend: "device memory" is shared memory and
 * kernels run on the CPU, so the whole protocol runs on machines without a GPU.
 *
 * Shards start as anonymous shared mappings. Exporting one moves it into a
 * memfd (memfd_create: a file that never has a name in any directory), mapped
 * over the same address (MAP_FIXED), so the caller's pointer stays valid. The
 * handle is (pid, descriptor, 128-bit tag): a node peer opens
 * /proc/<pid>/fd/<descriptor> - which only the same user may, like ptrace -
 * checks that what it opened is the memfd named with that tag, and maps it.
 * The owner keeps the descriptor until shardtab_mem_free, so later tables on
 * the same allocation need no new copy. Nothing is ever named in /dev/shm:
 * however a job dies (SIGKILL, the OOM killer, mpirun killed), the memory
 * lives exactly as long as a mapping of it in a live process, and nothing is
 * left to clean up. Each first export copies the shard once (a host-backend
 * cost, not a GPU one).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE
#include "backend.h"
#include "halo_body.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define HANDLE_MAGIC "STMEMFD1"
#define MEMFD_PREFIX "shardtab-"
#define TAG_HEX 32 /* 128 random bits */

/* What travels in st_ipc_handle_t.bytes. */
typedef struct host_handle {
    char magic[8];
    int32_t pid;
    int32_t fd;
    char tag[TAG_HEX + 1];
} host_handle_t;
typedef char host_handle_fits[sizeof(host_handle_t) <= ST_IPC_HANDLE_BYTES ? 1 : -1];

typedef struct host_alloc {
    void *base;
    size_t bytes; /* mapped length, whole pages */
    size_t asked; /* the bytes asked for: a shard ends within them */
    int fd;       /* the memfd once exported, else -1 */
    char tag[TAG_HEX + 1];
    struct host_alloc *next;
} host_alloc_t;

/* Allocations may be made and freed from any thread. */
static host_alloc_t *allocations;
static pthread_mutex_t allocations_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t page_round(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (bytes == 0)
        bytes = 1;
    if (bytes > SIZE_MAX - page)
        return 0;
    return (bytes + page - 1) / page * page;
}

/* The allocation whose mapping holds ptr, or NULL. Caller holds allocations_lock. */
static host_alloc_t *find_containing(const void *ptr)
{
    const char *p = ptr;
    for (host_alloc_t *a = allocations; a; a = a->next) {
        const char *base = a->base;
        if (p >= base && p < base + a->bytes)
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
    uint64_t available = shardtab_host_memory_available();
    host_alloc_t *a;
    void *base;

    if (len == 0)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "allocation of %zu bytes overflows", bytes);
    /* refuse what the OOM killer would end the job for, with a message */
    if (available != 0 && len > available)
        return st_fail(SHARDTAB_ERR_NO_MEMORY,
                       "allocating %zu bytes exceeds the %llu bytes this node has available "
                       "(MemAvailable, capped by the cgroup's memory limit): use less memory per "
                       "rank, or fewer ranks per node",
                       len, (unsigned long long)available);
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
    a->asked = bytes;
    a->fd = -1;
    pthread_mutex_lock(&allocations_lock);
    a->next = allocations;
    allocations = a;
    pthread_mutex_unlock(&allocations_lock);
    *ptr = base;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_mem_free(void *ptr)
{
    host_alloc_t *found = NULL;

    pthread_mutex_lock(&allocations_lock);
    for (host_alloc_t **link = &allocations; *link; link = &(*link)->next) {
        if ((*link)->base == ptr) {
            found = *link;
            *link = found->next;
            break;
        }
    }
    pthread_mutex_unlock(&allocations_lock);
    if (found == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shardtab_mem_free(%p): not an allocation of shardtab_mem_alloc", ptr);
    if (found->fd >= 0)
        close(found->fd);
    munmap(found->base, found->bytes);
    free(found);
    return SHARDTAB_SUCCESS;
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
    return 1e9; /* shardtab_detail_clock() on the host: CLOCK_MONOTONIC nanoseconds */
}

/* There is no stream: the barrier runs now; a wait that gives up has recorded
 * itself in the pad, where shardtab_signal_check finds it. */
static shardtab_status_t host_barrier_on_stream(const shardtab_signals_t *signals,
                                                shardtab_stream_t stream, void **order)
{
    (void)stream, (void)order; /* done before it returns: nothing to order */
    (void)shardtab_barrier(signals);
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_barrier_wait(void *order)
{
    (void)order;
    return SHARDTAB_SUCCESS;
}

static void host_barrier_order_free(void *order)
{
    (void)order;
}

/* A collective's phase, now, by this thread: the same body as the GPU's
 * kernels (collective_body.h). */
static shardtab_status_t host_order_begin(shardtab_stream_t stream, void **order)
{
    (void)stream, (void)order;
    return SHARDTAB_SUCCESS;
}

/* ST_PHASE_HALO_PUSH: by put, the grid's blocks (a slice each) one after
 * another, every block's send before any block's take (the neighbours'
 * sends come in any order); as LL words, one block. */
static void host_halo_push(const st_coll_phase_t *phase)
{
    const uint64_t blocks = (uint64_t)phase->blocks;
    uint64_t e = 1;

    if (phase->halo.form != SHARDTAB_HALO_PUSHED_PUT) {
        (void)st_body_halo_push(phase, 0);
        return;
    }
    for (uint64_t b = 0; b < blocks && e != 0; b++) /* every slice counts the same number */
        e = shardtab_detail_halo_put_send(&phase->sig, &phase->halo, b, b + 1);
    for (uint64_t b = 0; b < blocks && e != 0; b++)
        if (shardtab_detail_halo_put_take(&phase->sig, &phase->halo, e, b, b + 1) !=
            SHARDTAB_WAIT_OK)
            return; /* the node has stopped: shardtab_signal_check says why */
}

static shardtab_status_t host_collective_phase(const st_coll_phase_t *phase,
                                               shardtab_stream_t stream)
{
    (void)stream;
    if (phase->phase == ST_PHASE_SYNC)
        (void)st_body_sync_block(phase); /* a refusal records itself in the pad */
    else if (phase->phase == ST_PHASE_ONE_BLOCK)
        (void)st_body_one_block(phase, 0, 1);
    else if (phase->phase == ST_PHASE_LL)
        (void)st_body_ll(phase);
    else if (phase->phase == ST_PHASE_HALO_PUSH)
        host_halo_push(phase);
    else if (shardtab_aborted(&phase->sig))
        return SHARDTAB_SUCCESS; /* the node has stopped: shardtab_signal_check says why */
    else if (phase->phase == ST_PHASE_REDUCE)
        st_body_reduce(phase, 0, 1);
    else if (phase->phase == ST_PHASE_HALO)
        st_body_halo(phase, 0, 1);
    else
        st_body_copy(phase, 0, 1);
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_order_end(shardtab_stream_t stream, void *order)
{
    (void)stream, (void)order;
    return SHARDTAB_SUCCESS;
}

/* ---- export: move the allocation into a memfd, once ----------------------- */

/* A memfd's size counts against RLIMIT_FSIZE: growing one past it would kill
 * the process with SIGXFSZ instead of failing, so it is checked first. */
static shardtab_status_t check_file_size_limit(size_t bytes)
{
    struct rlimit limit;

    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        (uint64_t)bytes > (uint64_t)limit.rlim_cur)
        return st_fail(SHARDTAB_ERR_NO_MEMORY,
                       "the file-size limit (ulimit -f: %llu bytes) is below this shard's "
                       "allocation of %zu bytes: the host backend keeps shards in memory files; "
                       "raise it (ulimit -f unlimited)",
                       (unsigned long long)limit.rlim_cur, bytes);
    return SHARDTAB_SUCCESS;
}

/* Caller holds allocations_lock. */
static shardtab_status_t move_into_memfd(host_alloc_t *a)
{
    uint64_t noise[2];
    char name[sizeof MEMFD_PREFIX + TAG_HEX];
    shardtab_status_t status = check_file_size_limit(a->bytes);
    void *staging, *moved;
    int fd, err;

    if (status != SHARDTAB_SUCCESS)
        return status;
    if (getrandom(noise, sizeof noise, 0) != (ssize_t)sizeof noise)
        return st_fail(SHARDTAB_ERR_DEVICE, "getrandom failed: %s", strerror(errno));
    snprintf(a->tag, sizeof a->tag, "%016llx%016llx", (unsigned long long)noise[0],
             (unsigned long long)noise[1]);
    snprintf(name, sizeof name, MEMFD_PREFIX "%s", a->tag);
    fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        return st_fail(SHARDTAB_ERR_IPC, "memfd_create failed: %s", strerror(errno));
    /* Reserve the pages now: too little memory must fail here, not SIGBUS later. */
    err = fchmod(fd, 0600) != 0 ? errno : ftruncate(fd, (off_t)a->bytes) != 0 ? errno : 0;
    if (err == 0)
        err = posix_fallocate(fd, 0, (off_t)a->bytes);
    if (err != 0) {
        close(fd);
        return st_fail(SHARDTAB_ERR_NO_MEMORY,
                       "reserving %zu bytes of shared memory for the shard failed: %s", a->bytes,
                       strerror(err));
    }
    staging = mmap(NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (staging == MAP_FAILED) {
        err = errno;
        close(fd);
        return st_fail(SHARDTAB_ERR_IPC, "mmap of the shard's memfd failed: %s", strerror(err));
    }
    memcpy(staging, a->base, a->bytes);
    munmap(staging, a->bytes);
    /* Replace the old pages at the same address in one call (no other thread
     * may write the shard during create: it is a collective). */
    moved = mmap(a->base, a->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (moved == MAP_FAILED) {
        err = errno;
        /* Linux may have dropped the old pages already: keep the range valid */
        mmap(a->base, a->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1,
             0);
        close(fd);
        return st_fail(SHARDTAB_ERR_IPC,
                       "mmap(MAP_FIXED) of the memfd over the shard failed: "
                       "%s; the shard's contents are lost",
                       strerror(err));
    }
    a->fd = fd;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_ipc_export(void *ptr, size_t bytes, st_export_t *out)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    host_handle_t h;
    host_alloc_t *a;

    pthread_mutex_lock(&allocations_lock);
    a = find_containing(ptr);
    if (a == NULL)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                         "shard %p (%zu bytes) is not inside an allocation of shardtab_mem_alloc",
                         ptr, bytes);
    /* the bytes asked for, not the whole pages mapped: past them a peer would
     * write where the owner never asked for memory */
    else if (bytes > a->asked || (size_t)((char *)ptr - (char *)a->base) > a->asked - bytes)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                         "shard %p + %zu bytes runs past its allocation of %zu bytes at %p "
                         "(shardtab_mem_alloc's size, not its pages)",
                         ptr, bytes, a->asked, a->base);
    else if (a->fd < 0)
        status = move_into_memfd(a);
    if (status == SHARDTAB_SUCCESS) {
        memset(&h, 0, sizeof h);
        memcpy(h.magic, HANDLE_MAGIC, sizeof h.magic);
        h.pid = (int32_t)getpid();
        h.fd = a->fd;
        memcpy(h.tag, a->tag, sizeof h.tag);
        memset(out, 0, sizeof *out);
        memcpy(out->handle.bytes, &h, sizeof h);
        out->offset = (size_t)((char *)ptr - (char *)a->base);
        out->alloc_bytes = a->bytes;
    }
    pthread_mutex_unlock(&allocations_lock);
    return status;
}

static int is_hex_tag(const char *tag)
{
    for (int i = 0; i < TAG_HEX; i++)
        if (!((tag[i] >= '0' && tag[i] <= '9') || (tag[i] >= 'a' && tag[i] <= 'f')))
            return 0;
    return tag[TAG_HEX] == '\0';
}

static shardtab_status_t host_ipc_open(const st_ipc_handle_t *handle, size_t alloc_bytes,
                                       void **base)
{
    char path[64], link[128], want[128];
    host_handle_t h;
    struct stat st;
    ssize_t len;
    void *mapped;
    int fd, err;

    memcpy(&h, handle->bytes, sizeof h);
    if (memcmp(h.magic, HANDLE_MAGIC, sizeof h.magic) != 0 || h.pid <= 0 || h.fd < 0 ||
        !is_hex_tag(h.tag))
        return st_fail(SHARDTAB_ERR_DESCRIPTOR, "peer handle is not a shardtab memory handle");
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)h.pid, (int)h.fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        return st_fail(SHARDTAB_ERR_IPC,
                       "opening %s failed: %s; the host backend opens its node peers' memory "
                       "through /proc: the ranks of a node must run as one user, in one PID "
                       "namespace, and the peer must still be running",
                       path, strerror(err));
    }
    /* what was opened must be the memfd of that tag (not a reused descriptor) */
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    len = readlink(path, link, sizeof link - 1);
    link[len > 0 ? len : 0] = '\0';
    snprintf(want, sizeof want, "/memfd:" MEMFD_PREFIX "%s (deleted)", h.tag);
    if (strcmp(link, want) != 0) {
        close(fd);
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "descriptor %d of process %d is '%s', not the shard's memory '%s': "
                       "are the ranks in different PID namespaces?",
                       (int)h.fd, (int)h.pid, link, want);
    }
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != alloc_bytes) {
        close(fd);
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "the peer's memory holds %lld bytes, the "
                       "descriptor says %zu",
                       (long long)st.st_size, alloc_bytes);
    }
    mapped = mmap(NULL, alloc_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    err = errno;
    close(fd); /* the mapping keeps the memory */
    if (mapped == MAP_FAILED)
        return st_fail(SHARDTAB_ERR_IPC, "mmap of a peer's memory failed: %s", strerror(err));
    *base = mapped;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t host_ipc_close(void *base, size_t alloc_bytes)
{
    if (munmap(base, alloc_bytes) != 0)
        return st_fail(SHARDTAB_ERR_IPC, "munmap of a peer's memory failed: %s", strerror(errno));
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
    .barrier_wait = host_barrier_wait,
    .barrier_order_free = host_barrier_order_free,
    .order_begin = host_order_begin,
    .collective_phase = host_collective_phase,
    .order_end = host_order_end,
    .ipc_export = host_ipc_export,
    .ipc_open = host_ipc_open,
    .ipc_close = host_ipc_close,
    .can_access_peer = NULL,
};
