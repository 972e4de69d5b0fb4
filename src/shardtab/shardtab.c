/* shardtab.c - the collective protocol that builds and tears down a node's
 * table of shard pointers.
 *
 * Two regions travel the same way: the caller's shard, and the signal pad the
 * table allocates for each rank (shardtab_device.h).
 *
 * create, step by step (each step ends where all ranks agree on its outcome, so
 * a failure on one rank is everybody's failure and nobody waits alone):
 *   1. dup the communicator and split it into nodes (real, or simulated with
 *      SHARDTAB_RANKS_PER_NODE);
 *   2. allocate and zero this rank's signal pad (a range of a coherent chunk
 *      that all this process's tables share, pads.c);
 *   3. export the shard and the pad: IPC handle of each allocation base, plus
 *      offset (any number of live tables may lie in one allocation);
 *   4. allgather fixed-size descriptors inside the node and validate each;
 *   5. check that this device can reach every peer's device;
 *   6. open every peer's handles but our own (our entries are the local
 *      pointers); a peer allocation that this process has open already, for
 *      another table, is not opened again (imports.c counts its users);
 *   7. upload this rank's replica of the table (shards, then pads) to its device.
 * destroy: wait for the table's stream, agree, every importer lets go of its
 * mappings (the last table to use one closes it), agree again; only then may
 * the owners free their shards and pads.
 */
#include "descriptor.h"
#include "imports.h"
#include "internal.h"
#include "pads.h"
#include "registry.h"
#include "collective_body.h"
#include "shardtab_comm.h"
#include "table.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- small helpers ------------------------------------------------------- */

static void *calloc_or_fail(size_t count, size_t size, const char *what,
                            shardtab_status_t *status)
{
    void *p = calloc(count ? count : 1, size);
    if (p == NULL && *status == SHARDTAB_SUCCESS)
        *status = st_fail(SHARDTAB_ERR_NO_MEMORY, "calloc of %zu %s failed", count, what);
    return p;
}

static void region_release_host(st_region_t *r)
{
    free(r->mapped);
    free(r->entries);
    free(r->entry_bytes);
}

static void table_release_host(shardtab_t *t)
{
    if (t->leaders != MPI_COMM_NULL)
        MPI_Comm_free(&t->leaders);
    if (t->node != MPI_COMM_NULL)
        MPI_Comm_free(&t->node);
    if (t->comm != MPI_COMM_NULL)
        MPI_Comm_free(&t->comm);
    free(t->members);
    free(t->node_rank_of);
    region_release_host(&t->shard);
    region_release_host(&t->pad);
    free(t->peer_access);
    if (t->barrier_order != NULL && st_backend() != NULL)
        st_backend()->barrier_order_free(t->barrier_order);
    free(t);
}

/* Lets go of every peer allocation this region uses (the last user closes a
 * mapping); keeps going past failures, reports the first. */
static shardtab_status_t close_region(const shardtab_t *t, st_region_t *r)
{
    shardtab_status_t first = SHARDTAB_SUCCESS;

    for (int q = 0; q < t->node_size; q++) {
        if (r->mapped == NULL || r->mapped[q] == NULL)
            continue;
        shardtab_status_t s = st_import_close(r->mapped[q]);
        if (s != SHARDTAB_SUCCESS && first == SHARDTAB_SUCCESS)
            first = s;
        r->mapped[q] = NULL;
    }
    return first;
}

static shardtab_status_t close_peers(shardtab_t *t)
{
    shardtab_status_t first = st_fault_check(ST_FAULT_CLOSE);
    shardtab_status_t s = close_region(t, &t->shard);

    if (first == SHARDTAB_SUCCESS)
        first = s;
    s = close_region(t, &t->pad);
    return first != SHARDTAB_SUCCESS ? first : s;
}

static void region_alloc_host(st_region_t *r, int n, shardtab_status_t *status)
{
    r->mapped = calloc_or_fail((size_t)n, sizeof *r->mapped, "mappings", status);
    r->entries = calloc_or_fail((size_t)n, sizeof *r->entries, "entries", status);
    r->entry_bytes = calloc_or_fail((size_t)n, sizeof *r->entry_bytes, "entry sizes", status);
}

/* ---- step 1: nodes ---------------------------------------------------------- */

static shardtab_status_t ranks_per_node_from_env(int *ranks_per_node)
{
    const char *text = getenv("SHARDTAB_RANKS_PER_NODE");

    *ranks_per_node = 0;
    if (text == NULL || *text == '\0')
        return SHARDTAB_SUCCESS;
    if (st_parse_positive_int(text, ranks_per_node) != 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "SHARDTAB_RANKS_PER_NODE='%s' is not a positive integer", text);
    return SHARDTAB_SUCCESS;
}

/* Splits comm into this table's nodes and learns who is where. Collective. */
static shardtab_status_t split_nodes(shardtab_t *t, int ranks_per_node)
{
    MPI_Comm real = MPI_COMM_NULL;
    shardtab_status_t status;
    int real_rank, *leaders = NULL;

    /* Each MPI step is agreed before the next, so that no rank returns early
     * while the others go on into a collective. */
    status = st_mpi_check(MPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, t->rank,
                                           MPI_INFO_NULL, &real),
                       "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    status = shardtab_agree(t->comm, status);
    if (status != SHARDTAB_SUCCESS)
        return status;
    if (ranks_per_node > 0) {
        /* Simulated nodes never cross a real node: shared memory must be real. */
        MPI_Comm_rank(real, &real_rank);
        status = st_mpi_check(MPI_Comm_split(real, real_rank / ranks_per_node, real_rank, &t->node),
                           "MPI_Comm_split for SHARDTAB_RANKS_PER_NODE");
        MPI_Comm_free(&real);
        status = shardtab_agree(t->comm, status);
        if (status != SHARDTAB_SUCCESS)
            return status;
    } else {
        t->node = real;
    }
    MPI_Comm_rank(t->node, &t->node_rank);
    MPI_Comm_size(t->node, &t->node_size);

    t->members = calloc_or_fail((size_t)t->node_size, sizeof *t->members, "node members", &status);
    t->node_rank_of = calloc_or_fail((size_t)t->size, sizeof *t->node_rank_of, "ranks", &status);
    leaders = calloc_or_fail((size_t)t->size * 2, sizeof *leaders, "node leaders", &status);
    region_alloc_host(&t->shard, t->node_size, &status);
    region_alloc_host(&t->pad, t->node_size, &status);
    status = shardtab_agree(t->comm, status);
    if (status != SHARDTAB_SUCCESS) {
        free(leaders);
        return status;
    }

    status = st_mpi_check(MPI_Allgather(&t->rank, 1, MPI_INT, t->members, 1, MPI_INT, t->node),
                       "MPI_Allgather of node members");
    status = shardtab_agree(t->comm, status);
    if (status == SHARDTAB_SUCCESS) {
        /* Each rank: (comm rank of its node's leader, its node rank). */
        int mine[2] = {t->members[0], t->node_rank};
        status = st_mpi_check(MPI_Allgather(mine, 2, MPI_INT, leaders, 2, MPI_INT, t->comm),
                           "MPI_Allgather of node leaders");
    }
    if (status == SHARDTAB_SUCCESS) {
        t->node_count = 0;
        t->node_id = 0;
        for (int r = 0; r < t->size; r++) {
            int leader = leaders[2 * r], node_rank = leaders[2 * r + 1];
            t->node_rank_of[r] = leader == t->members[0] ? node_rank : -1;
            if (leader == r) {
                t->node_count++;
                if (r < t->members[0])
                    t->node_id++;
            }
        }
    }
    free(leaders);
    return status;
}

/* ---- steps 2 and 3: export and exchange ------------------------------------ */

/* Fills this rank's descriptor of one region and, unless it is empty, exports it. */
static shardtab_status_t export_region(shardtab_t *t, st_region_t *r, st_descriptor_t *desc)
{
    st_export_t exp;
    shardtab_status_t status;

    memset(desc, 0, sizeof *desc);
    desc->comm_rank = t->rank;
    desc->node_rank = t->node_rank;
    desc->backend = (int32_t)st_rt.device.backend;
    desc->device = st_rt.device.device;
    desc->bytes = r->bytes;
    memcpy(desc->host, st_rt.host, sizeof desc->host);
    memcpy(desc->boot_id, st_rt.boot_id, sizeof desc->boot_id);
    desc->ipc_ns = st_rt.ipc_ns;
    memcpy(desc->pci_bus_id, st_rt.device.pci_bus_id, sizeof desc->pci_bus_id);

    if (r->local == NULL) {
        desc->flags = ST_DESCRIPTOR_EMPTY;
        return SHARDTAB_SUCCESS;
    }
    status = st_backend()->ipc_export(r->local, r->bytes, &exp);
    if (status != SHARDTAB_SUCCESS)
        return status;
    if (r == &t->shard) {
        /* so that the allocation is not freed while this table lives */
        t->live.base = (const char *)r->local - exp.offset;
        t->live.bytes = exp.alloc_bytes;
    }
    desc->offset = exp.offset;
    desc->alloc_bytes = exp.alloc_bytes;
    desc->handle = exp.handle;
    desc->pid = (int32_t)getpid();
    desc->alloc_base = (uint64_t)(uintptr_t)((const char *)r->local - exp.offset);
    return SHARDTAB_SUCCESS;
}

/* Allgathers packed descriptors in the node; fills descs[node_size] on success.
 * Every rank enters the allgather, even one that already failed. */
static shardtab_status_t exchange(shardtab_t *t, const st_descriptor_t *mine,
                                  st_descriptor_t *descs)
{
    unsigned char packed[ST_DESCRIPTOR_PACKED_BYTES];
    unsigned char *all;
    shardtab_status_t status = st_fault_check(ST_FAULT_EXCHANGE);

    all = calloc_or_fail((size_t)t->node_size, sizeof packed, "packed descriptors", &status);
    st_descriptor_pack(mine, packed);
    /* an allocation failure on any rank must keep every rank out of the allgather */
    if (shardtab_agree(t->comm, all == NULL ? SHARDTAB_ERR_NO_MEMORY : SHARDTAB_SUCCESS) ==
        SHARDTAB_SUCCESS) {
        shardtab_status_t s = st_mpi_check(MPI_Allgather(packed, (int)sizeof packed, MPI_BYTE, all,
                                                      (int)sizeof packed, MPI_BYTE, t->node),
                                        "MPI_Allgather of shard descriptors");
        if (status == SHARDTAB_SUCCESS)
            status = s;
    } else if (status == SHARDTAB_SUCCESS) {
        status = SHARDTAB_ERR_NO_MEMORY; /* the message came with the agreement */
    }
    for (int q = 0; q < t->node_size && status == SHARDTAB_SUCCESS; q++) {
        st_descriptor_expect_t expect = {
            .comm_rank = t->members[q],
            .node_rank = q,
            .backend = (int32_t)st_rt.device.backend,
            .host = st_rt.host,
            .boot_id = st_rt.boot_id,
            .ipc_ns = st_rt.ipc_ns,
        };
        status = st_descriptor_unpack(all + (size_t)q * sizeof packed, &descs[q]);
        if (status == SHARDTAB_SUCCESS)
            status = st_descriptor_validate(&descs[q], &expect);
    }
    free(all);
    return status;
}

/* ---- step 4: peer access, the whole matrix at once ------------------------- */

static shardtab_status_t check_peer_access(shardtab_t *t, const st_descriptor_t *descs)
{
    const st_backend_ops_t *ops = st_backend();
    shardtab_status_t status = SHARDTAB_SUCCESS;
    int n = t->node_size, *row, *matrix, missing = 0;
    char *msg;
    size_t used;

    if (ops->can_access_peer == NULL)
        return SHARDTAB_SUCCESS;
    row = calloc_or_fail((size_t)n, sizeof *row, "peer row", &status);
    matrix = calloc_or_fail((size_t)n * (size_t)n, sizeof *matrix, "peer matrix", &status);
    for (int q = 0; q < n && status == SHARDTAB_SUCCESS; q++)
        status = q == t->node_rank ? (row[q] = 1, SHARDTAB_SUCCESS)
                                   : ops->can_access_peer(descs[q].pci_bus_id, &row[q]);
    /* Everyone enters the allgather, so that every rank can name every gap;
     * unless a rank could not allocate, which all learn first. */
    if (shardtab_agree(t->comm, row == NULL || matrix == NULL ? SHARDTAB_ERR_NO_MEMORY
                                                             : SHARDTAB_SUCCESS) ==
        SHARDTAB_SUCCESS) {
        shardtab_status_t s = st_mpi_check(
            MPI_Allgather(row, n, MPI_INT, matrix, n, MPI_INT, t->node), "MPI_Allgather of peer access");
        if (status == SHARDTAB_SUCCESS)
            status = s;
    } else if (status == SHARDTAB_SUCCESS) {
        status = SHARDTAB_ERR_NO_MEMORY; /* the message came with the agreement */
    }
    if (status == SHARDTAB_SUCCESS) {
        for (int i = 0; i < n * n; i++)
            missing += matrix[i] == 0;
    }
    if (status == SHARDTAB_SUCCESS && missing > 0) {
        size_t cap = 256 + (size_t)missing * 160;
        msg = malloc(cap);
        if (msg == NULL) {
            status = st_fail(SHARDTAB_ERR_PEER_ACCESS, "%d device pairs lack peer access", missing);
        } else {
            used = (size_t)snprintf(msg, cap, "%d of %d device pairs of this node lack peer access:",
                                    missing, n * (n - 1));
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++)
                    if (!matrix[a * n + b] && used < cap)
                        used += (size_t)snprintf(msg + used, cap - used,
                                                 " rank %d device %d [%s] -> rank %d [%s];",
                                                 descs[a].comm_rank, descs[a].device,
                                                 descs[a].pci_bus_id, descs[b].comm_rank,
                                                 descs[b].pci_bus_id);
            status = st_fail(SHARDTAB_ERR_PEER_ACCESS,
                             "%s check the GPU topology (rocm-smi --showtopo, nvidia-smi topo -m) "
                             "and Slurm's GPU binding", msg);
            free(msg);
        }
    }
    free(row);
    t->peer_access = matrix; /* kept for shardtab_peer_access */
    return status;
}

/* ---- step 6: open ---------------------------------------------------------- */

static shardtab_status_t open_region(shardtab_t *t, st_region_t *r, const st_descriptor_t *descs)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int q = 0; q < t->node_size && status == SHARDTAB_SUCCESS; q++) {
        const st_descriptor_t *d = &descs[q];
        r->entry_bytes[q] = (size_t)d->bytes;
        if (d->flags & ST_DESCRIPTOR_EMPTY) {
            r->entries[q] = NULL;
        } else if (q == t->node_rank) {
            r->entries[q] = r->local; /* opening our own handle would fail */
        } else {
            void *base = NULL;
            int opened = 0;
            st_import_key_t key;
            memset(&key, 0, sizeof key);
            snprintf(key.device, sizeof key.device, "%s", d->pci_bus_id);
            key.pid = d->pid;
            key.base = d->alloc_base;
            key.bytes = (size_t)d->alloc_bytes;
            status = st_import_open(&key, &d->handle, &base, &opened);
            if (status == SHARDTAB_SUCCESS) {
                r->mapped[q] = base;
                r->entries[q] = (char *)base + d->offset;
                r->opened += opened;
                r->reused += !opened;
            } else {
                /* the backend's words, without the prefix st_fail adds again */
                char detail[ST_ERROR_BYTES];
                snprintf(detail, sizeof detail, "%s", st_thread_last_error() + st_error_prefix_bytes());
                status = st_fail(status, "opening the %s of rank %d (node rank %d, device "
                                         "%d [%s]) failed: %s",
                                 r->what, d->comm_rank, q, d->device, d->pci_bus_id, detail);
            }
        }
    }
    return status;
}

static shardtab_status_t open_peers(shardtab_t *t, const st_descriptor_t *shard_descs,
                                    const st_descriptor_t *pad_descs)
{
    shardtab_status_t status = st_fault_check(ST_FAULT_OPEN);
    double start = MPI_Wtime();

    if (status == SHARDTAB_SUCCESS)
        status = open_region(t, &t->shard, shard_descs);
    if (status == SHARDTAB_SUCCESS)
        status = open_region(t, &t->pad, pad_descs);
    t->open_ms = (MPI_Wtime() - start) * 1e3;
    return status;
}

/* ---- step 7: upload -------------------------------------------------------- */

static shardtab_status_t upload(shardtab_t *t)
{
    size_t n = (size_t)t->node_size, bytes = 2 * n * sizeof(void *);
    shardtab_status_t status = st_fault_check(ST_FAULT_UPLOAD);
    void *device_table = NULL, **host_table;

    if (status != SHARDTAB_SUCCESS)
        return status;
    host_table = malloc(bytes);
    if (host_table == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "malloc of a %zu-byte table failed", bytes);
    memcpy(host_table, t->shard.entries, n * sizeof(void *));
    memcpy(host_table + n, t->pad.entries, n * sizeof(void *));
    /* Built on the host, then copied: never store into device memory from the
     * host. On the table's stream, and waiting for that stream alone. */
    status = st_backend()->mem_alloc(bytes, &device_table);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->copy_async(device_table, host_table, bytes, t->stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(t->stream);
    free(host_table);
    if (status != SHARDTAB_SUCCESS) {
        if (device_table)
            st_backend()->mem_free(device_table);
        return status;
    }
    t->device_table = device_table;
    return SHARDTAB_SUCCESS;
}

/* ---- step 2: the signal pad -------------------------------------------------- */

/* the header, the barrier's arrivals, the user's slots, then the library's
 * collective (shardtab_comm.h: the stream-ordered collectives' deposits) */
static size_t pad_bytes(int node_size, int slots)
{
    return ((size_t)SHARDTAB_PAD_HEADER + (size_t)node_size + (size_t)slots +
            (size_t)SHARDTAB_COLL_SLOTS(node_size, SHARDTAB_LIB_COLL_VALUES)) *
           sizeof(uint64_t);
}

/* Coherent memory, zeroed by a copy (never a host store into device memory). */
static shardtab_status_t allocate_pad(shardtab_t *t)
{
    size_t bytes = pad_bytes(t->node_size, t->signal_slots);
    shardtab_status_t status;
    void *zeros = calloc(1, bytes);

    if (zeros == NULL)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "calloc of a %zu-byte signal pad failed", bytes);
    status = st_pad_alloc(bytes, &t->pad.local);
    if (status == SHARDTAB_SUCCESS) {
        t->pad.bytes = bytes;
        status = st_backend()->copy_async(t->pad.local, zeros, bytes, t->stream);
    }
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(t->stream);
    free(zeros);
    return status;
}

/* Every pad of the node must have this rank's layout: the same slot count. */
static shardtab_status_t check_pads(const shardtab_t *t, const st_descriptor_t *pads)
{
    for (int q = 0; q < t->node_size; q++) {
        if ((pads[q].flags & ST_DESCRIPTOR_EMPTY) || pads[q].bytes != t->pad.bytes)
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "rank %d has a signal pad of %llu bytes, this rank %zu: pass the "
                           "same signal_slots to shardtab_create_with on every rank",
                           pads[q].comm_rank, (unsigned long long)pads[q].bytes, t->pad.bytes);
    }
    return SHARDTAB_SUCCESS;
}

/* ---- parameters ------------------------------------------------------------ */

#define ST_MAX_SIGNAL_SLOTS (1 << 20)

/* A plain decimal number, nothing around it: digits, an optional fraction and
 * an optional exponent ("5", "2.5", ".5", "1e1"); not " 5", "5 ", "0x10",
 * "inf" or "nan", which strtod alone would take or refuse unevenly. */
static int decimal_seconds(const char *text)
{
    const char *p = text;
    int digits = 0;

    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (digits == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

static shardtab_status_t resolve_params(const shardtab_create_params_t *params,
                                        shardtab_create_params_t *out)
{
    const char *text = getenv("SHARDTAB_WAIT_TIMEOUT");

    memset(out, 0, sizeof *out);
    if (params)
        *out = *params;
    if (out->alignment == 0)
        out->alignment = 1;
    if (out->alignment & (out->alignment - 1))
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "alignment %zu is not a power of two",
                       out->alignment);
    if (out->signal_slots < 0 || out->signal_slots > ST_MAX_SIGNAL_SLOTS)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "signal_slots %d is outside [0, %d]",
                       out->signal_slots, ST_MAX_SIGNAL_SLOTS);
    if (out->signal_slots == 0)
        out->signal_slots = SHARDTAB_SIGNAL_SLOTS_DEFAULT;
    if (!(out->wait_timeout_s >= 0.0) || out->wait_timeout_s > 1e6)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "wait_timeout_s %g is not a number of seconds in [0, 1e6]",
                       out->wait_timeout_s);
    if (out->wait_timeout_s == 0.0 && text != NULL && *text != '\0') {
        char *end;
        double v = decimal_seconds(text) ? strtod(text, &end) : -1.0;
        if (!(v > 0.0) || v > 1e6)
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "SHARDTAB_WAIT_TIMEOUT='%s' is not a number of seconds in (0, 1e6]",
                           text);
        out->wait_timeout_s = v;
    }
    if (out->wait_timeout_s == 0.0)
        out->wait_timeout_s = SHARDTAB_WAIT_TIMEOUT_DEFAULT_S;
    return SHARDTAB_SUCCESS;
}

/* shardtab_agree, but bounded: a peer that skipped a collective destroy (or
 * destroys another table, or this one twice) leaves the others here, and that
 * must never be a silent hang, nor an endless one. Past 6 x the table's wait
 * limit (60 s by default) a rank gives up with SHARDTAB_ERR_TIMEOUT and a
 * message naming the table and the rule. The request is left pending: the
 * communicator cannot be used again, and the job should end. */
#define ST_PATIENCE_WAITS 6

static shardtab_status_t agree_patiently(const shardtab_t *t, shardtab_status_t local,
                                         const char *where, int *pending)
{
    int flag = local == SHARDTAB_SUCCESS ? 0 : 1, any = 0, done = 0;
    const double limit = ST_PATIENCE_WAITS * t->wait_timeout_s, start = MPI_Wtime();
    struct timespec nap = {0, 200000}; /* 0.2 ms */
    MPI_Request req;

    *pending = 0;
    if (MPI_Iallreduce(&flag, &any, 1, MPI_INT, MPI_MAX, t->comm, &req) != MPI_SUCCESS)
        return st_fail(SHARDTAB_ERR_MPI, "MPI_Iallreduce in %s failed", where);
    while (!done) {
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return st_fail(SHARDTAB_ERR_MPI, "MPI_Test in %s failed", where);
        if (!done && MPI_Wtime() - start > limit) {
            *pending = 1;
            return st_fail(SHARDTAB_ERR_TIMEOUT,
                           "%s of table '%s' waited %.0f s (6 x its wait limit) for the other %d "
                           "rank(s): every rank must destroy the same live table, once, its "
                           "tables in the same order as it created them (a rank that passed "
                           "NULL, destroyed it twice, or destroys another table now waits "
                           "elsewhere); end the job",
                           where, t->label, limit, t->size - 1);
        }
        if (!done)
            nanosleep(&nap, NULL);
    }
    /* everybody is here: the usual agreement carries the first failure's message */
    return shardtab_agree(t->comm, local);
}

/* The label every rank gave its create, against rank 0's: a rank that creates
 * another table here (out of order) would be paired with rank 0's. Collective
 * on t->comm; an error on the ranks whose label differs, the agreement
 * after it spreading the first one's message. */
static shardtab_status_t check_label(const shardtab_t *t)
{
    char root[SHARDTAB_LABEL_MAX];

    memcpy(root, t->label, sizeof root);
    if (MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, t->comm) != MPI_SUCCESS)
        return st_fail(SHARDTAB_ERR_MPI, "MPI_Bcast of the table's label failed");
    root[sizeof root - 1] = '\0';
    if (strcmp(root, t->label) != 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "rank %d creates table '%s' where rank 0 creates '%s': creates are "
                       "collective and pair by order, so every rank must create its tables in "
                       "the same order (shardtab_create_params_t.label)",
                       t->rank, t->label, root);
    return SHARDTAB_SUCCESS;
}

/* ---- create / destroy ------------------------------------------------------ */

shardtab_status_t shardtab_create(MPI_Comm comm, void *shard, size_t bytes, shardtab_t **table)
{
    return shardtab_create_with(comm, shard, bytes, NULL, table);
}

shardtab_status_t shardtab_create_with(MPI_Comm comm, void *shard, size_t bytes,
                                       const shardtab_create_params_t *params,
                                       shardtab_t **table)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    st_descriptor_t mine, mine_pad, *descs = NULL, *pad_descs = NULL;
    shardtab_create_params_t p;
    double start = MPI_Wtime();
    int ranks_per_node = 0;
    shardtab_t *t;

    /* An empty shard is NULL to every rank, whatever pointer comes with it
     * (shardtab.h): nothing of it is checked, exported or held. */
    if (bytes == 0)
        shard = NULL;
    if (!st_rt.initialized)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_create before shardtab_init");
    else if (table == NULL)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_create: table is NULL");
    else if (shard == NULL && bytes != 0)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                         "shardtab_create: shard is NULL but bytes is %zu", bytes);
    if (status == SHARDTAB_SUCCESS)
        status = resolve_params(params, &p);
    if (status == SHARDTAB_SUCCESS && shard != NULL && (uintptr_t)shard % p.alignment != 0)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                         "shard %p is not aligned to %zu bytes, as shardtab_create_params_t."
                         "alignment asks (the kernels' vector accesses need it)",
                         shard, p.alignment);
    if (status == SHARDTAB_SUCCESS)
        status = ranks_per_node_from_env(&ranks_per_node);
    else
        ranks_per_node = -1;
    /* Every rank reads the variable on its own: a wrapper that sets it for some
     * ranks only would send them into different collectives. Agree on it. A
     * rank that failed already takes no part (INT_MIN leaves the maxima as
     * they are): its own cause is what the agreement below reports. */
    {
        int rpn[2] = {ranks_per_node, -ranks_per_node}, all[2] = {0, 0};
        if (status != SHARDTAB_SUCCESS)
            rpn[0] = rpn[1] = INT_MIN;
        if (MPI_Allreduce(rpn, all, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS &&
            status == SHARDTAB_SUCCESS)
            status = st_fail(SHARDTAB_ERR_MPI, "MPI_Allreduce of SHARDTAB_RANKS_PER_NODE failed");
        else if (status == SHARDTAB_SUCCESS && all[0] != -all[1])
            status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                             "SHARDTAB_RANKS_PER_NODE differs between the ranks (from %d to %d; "
                             "0 means unset): give every rank the same value (mpirun -x, or the "
                             "job's environment)",
                             -all[1], all[0]);
    }
    t = calloc_or_fail(1, sizeof *t, "table", &status);
    status = shardtab_agree(comm, status);
    if (status != SHARDTAB_SUCCESS) {
        free(t);
        return status;
    }
    t->comm = t->node = t->leaders = MPI_COMM_NULL;
    t->shard.what = "shard";
    t->shard.local = shard;
    t->shard.bytes = bytes;
    t->pad.what = "signal pad";
    t->stream = p.stream;
    t->signal_slots = p.signal_slots;
    if (p.label)
        snprintf(t->label, sizeof t->label, "%s", p.label);
    t->wait_timeout_s = p.wait_timeout_s;
    t->clock_hz = st_backend()->clock_hz();

    /* 1. nodes. The dup under MPI_ERRORS_RETURN, the caller's handler put
     * back after: its failure (Open MPI runs out of communicators past about
     * 32,000 live tables, two each) must be an error returned, not an abort. */
    {
        MPI_Errhandler theirs;
        int got = MPI_Comm_get_errhandler(comm, &theirs), rc;
        if (got == MPI_SUCCESS)
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        rc = MPI_Comm_dup(comm, &t->comm);
        if (got == MPI_SUCCESS) {
            MPI_Comm_set_errhandler(comm, theirs);
            MPI_Errhandler_free(&theirs);
        }
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, text, &len);
            status = st_fail(SHARDTAB_ERR_MPI,
                             "MPI_Comm_dup failed: %s; this process holds %d live table(s), and "
                             "each holds two communicators: destroy tables you no longer use (MPI "
                             "has a limit on communicators, about 32,000 tables with Open MPI)",
                             text, st_live_count());
            free(t);
            return status;
        }
    }
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(t->comm, &t->rank);
    MPI_Comm_size(t->comm, &t->size);
    status = shardtab_agree(t->comm, check_label(t));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(t->comm, split_nodes(t, ranks_per_node));
    if (status != SHARDTAB_SUCCESS)
        goto err_release;

    /* 2. the signal pad */
    status = shardtab_agree(t->comm, allocate_pad(t));
    if (status != SHARDTAB_SUCCESS)
        goto err_release;

    /* 3. export */
    descs = calloc_or_fail((size_t)t->node_size, sizeof *descs, "descriptors", &status);
    pad_descs = calloc_or_fail((size_t)t->node_size, sizeof *pad_descs, "descriptors", &status);
    if (status == SHARDTAB_SUCCESS)
        status = st_fault_check(ST_FAULT_EXPORT);
    if (status == SHARDTAB_SUCCESS)
        status = export_region(t, &t->shard, &mine);
    if (status == SHARDTAB_SUCCESS)
        status = export_region(t, &t->pad, &mine_pad);
    status = shardtab_agree(t->comm, status);
    if (status != SHARDTAB_SUCCESS)
        goto err_release;

    /* 4. exchange, 5. peer access */
    status = shardtab_agree(t->comm, exchange(t, &mine, descs));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(t->comm, exchange(t, &mine_pad, pad_descs));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(t->comm, check_pads(t, pad_descs));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(t->comm, check_peer_access(t, descs));
    if (status != SHARDTAB_SUCCESS)
        goto err_release;

    /* 6. open */
    status = shardtab_agree(t->comm, open_peers(t, descs, pad_descs));
    if (status != SHARDTAB_SUCCESS)
        goto err_close;

    /* 7. upload */
    status = shardtab_agree(t->comm, upload(t));
    if (status != SHARDTAB_SUCCESS)
        goto err_close;

    free(descs);
    free(pad_descs);
    t->create_ms = (MPI_Wtime() - start) * 1e3;
    t->live.table = t;
    t->live.shard = t->shard.local;
    t->live.shard_bytes = t->shard.bytes;
    t->live.rank = t->rank;
    t->live.size = t->size;
    t->live.node_rank = t->node_rank;
    st_live_add(&t->live);
    *table = t;
    return SHARDTAB_SUCCESS;

err_close:
    close_peers(t);
    /* nobody may free a shard or pad a peer still maps */
    MPI_Barrier(t->comm);
err_release:
    free(descs);
    free(pad_descs);
    if (t->device_table)
        st_backend()->mem_free(t->device_table);
    if (t->pad.local)
        st_pad_free(t->pad.local);
    table_release_host(t);
    return status;
}

shardtab_status_t shardtab_destroy(shardtab_t **table)
{
    shardtab_status_t status, closed, freed, pad_freed;
    shardtab_t *t;

    /* Not live (NULL, destroyed already, a stale copy): a local error and no
     * collective, so this rank never waits alone. Its peers, if they destroy
     * the table, wait for it in the first agreement below, which says so. */
    if (table == NULL || *table == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shardtab_destroy: no table (NULL, or destroyed already); destroying is "
                       "collective: every rank of the table passes the same live table, once");
    if (!st_live_remove(&(*table)->live))
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shardtab_destroy(%p): not a live table of this process (destroyed "
                       "already, or never created); destroying is collective: every rank of "
                       "the table passes the same live table, once",
                       (void *)*table);
    t = *table;

    /* Kernels still running may read peers, barriers may run on other streams:
     * finish them everywhere first. */
    status = st_backend()->stream_synchronize(t->stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->barrier_wait(t->barrier_order);
    {
        int pending = 0;
        status = agree_patiently(t, status, "shardtab_destroy", &pending);
        if (pending) {
            /* the peers never came: nothing here may wait for them again, nor
             * free what they may still map; the table is gone on this rank */
            *table = NULL;
            return status;
        }
    }
    closed = shardtab_agree(t->comm, close_peers(t));
    freed = st_backend()->mem_free(t->device_table);
    if (t->coll_scratch != NULL) {
        shardtab_status_t scratch_freed = st_backend()->mem_free(t->coll_scratch);
        if (freed == SHARDTAB_SUCCESS)
            freed = scratch_freed;
    }
    pad_freed = st_pad_free(t->pad.local); /* no importer uses it any more */
    /* one answer on every rank, so that no caller goes on alone */
    freed = shardtab_agree(t->comm, freed != SHARDTAB_SUCCESS ? freed : pad_freed);
    table_release_host(t);
    *table = NULL;
    if (status == SHARDTAB_SUCCESS)
        status = closed;
    if (status == SHARDTAB_SUCCESS)
        status = freed;
    return status;
}

/* ---- signals ----------------------------------------------------------------- */

shardtab_status_t shardtab_signals(const shardtab_t *t, shardtab_signals_t *out)
{
    double ticks;
    shardtab_status_t status = st_check_table(t, "shardtab_signals");

    if (status != SHARDTAB_SUCCESS)
        return status;
    if (out == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_signals: NULL argument");
    memset(out, 0, sizeof *out);
    out->pads = (uint64_t *const *)(t->device_table + t->node_size);
    out->mine = t->pad.local;
    out->node_rank = t->node_rank;
    out->node_size = t->node_size;
    out->slots = t->signal_slots;
    out->lib_first = SHARDTAB_PAD_HEADER + t->node_size + t->signal_slots;
    ticks = t->wait_timeout_s * t->clock_hz;
    out->timeout_ticks = ticks >= 1.8e19 ? UINT64_MAX : (uint64_t)ticks;
    return SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_barrier_on_stream(shardtab_t *t, shardtab_stream_t stream)
{
    shardtab_signals_t sig;
    shardtab_status_t status = st_check_table(t, "shardtab_barrier_on_stream");

    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signals(t, &sig);
    /* after this table's previous barrier, whatever stream it ran on */
    return status == SHARDTAB_SUCCESS ? st_backend()->barrier_on_stream(&sig, stream, &t->barrier_order)
                                      : status;
}

/* Names pad index `index` for a message: a barrier arrival, a user slot, or
 * the library's collective. */
static void describe_index(const shardtab_t *t, uint64_t index, char *out, size_t bytes)
{
    uint64_t first_user = (uint64_t)SHARDTAB_PAD_HEADER + (uint64_t)t->node_size;
    uint64_t first_lib = first_user + (uint64_t)t->signal_slots;

    if (index >= SHARDTAB_PAD_HEADER && index < first_user)
        snprintf(out, bytes, "the barrier arrival of node rank %d (rank %d)",
                 (int)(index - SHARDTAB_PAD_HEADER),
                 t->members[index - SHARDTAB_PAD_HEADER]);
    else if (index >= first_lib)
        snprintf(out, bytes, "pad word %llu of the stream-ordered collectives (shardtab_all_reduce, "
                 "_broadcast, _all_gather)", (unsigned long long)(index - first_lib));
    else if (index >= first_user)
        snprintf(out, bytes, "signal slot %llu", (unsigned long long)(index - first_user));
    else
        snprintf(out, bytes, "reserved pad slot %llu", (unsigned long long)index);
}

/* A collective call as its descriptor says it (shardtab_coll_call). */
static void describe_call(uint64_t call, char *out, size_t bytes)
{
    static const char *const kinds[] = {"all-gather", "all-reduce", "broadcast", "stream collective",
                                        "kind 4", "kind 5", "kind 6", "kind 7"};
    static const char *const ops[] = {"sum", "min", "max", "op 3"};
    static const char *const types[] = {"float", "double", "int64", "type 3"};
    snprintf(out, bytes, "%s (op %s, type %s, root %d, count %d)", kinds[call & 7],
             ops[(call >> 3) & 3], types[(call >> 5) & 3], (int)((call >> 7) & 1023),
             (int)((call >> 17) & 0x7fff));
}

/* A stream-ordered collective's call word (collectives.c call_words), in words. */
static void describe_stream_call(uint64_t word, char *out, size_t bytes)
{
    static const char *const kinds[] = {"?", "shardtab_all_reduce", "shardtab_broadcast",
                                        "shardtab_all_gather"};
    static const char *const ops[] = {"sum", "min", "max"};
    static const char *const types[] = {"float", "double", "int64"};
    unsigned kind = (unsigned)(word & 15), op = (unsigned)(word >> 4 & 15), type = (unsigned)(word >> 8 & 15);

    snprintf(out, bytes, "%s (op %s, type %s, root %u, %s, count %llu)",
             kind < 4 ? kinds[kind] : "?", op < 3 ? ops[op] : "?", type < 3 ? types[type] : "?",
             (unsigned)(word >> 12 & 4095),
             (word >> 24 & 3) == 1 ? "one-shot" : (word >> 24 & 3) == 2 ? "two-shot" : "no algorithm",
             (unsigned long long)(word >> 26));
}

/* A stream-ordered collective whose ranks' calls differ (ST_PHASE_SYNC). */
static shardtab_status_t stream_call_failure(const shardtab_t *t, const uint64_t *header,
                                             uint64_t peer, int peer_rank)
{
    const uint64_t which = header[SHARDTAB_PAD_ERR_SLOT] - (uint64_t)(SHARDTAB_PAD_HEADER + t->node_size +
                                                                     t->signal_slots);
    const uint64_t want = header[SHARDTAB_PAD_ERR_WANT], seen = header[SHARDTAB_PAD_ERR_SEEN];
    char mine[160], theirs[160];

    if (seen == ST_ARGS_INVALID) /* a consequence: that rank's own message is the cause */
        return st_fail(SHARDTAB_ERR_ABORTED,
                       "a stream-ordered collective stopped: node rank %llu (rank %d) made a call "
                       "that failed its own checks (its message says which)",
                       (unsigned long long)peer, peer_rank);
    if (want == ST_ARGS_INVALID)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "a stream-ordered collective stopped: node rank %d made a call that failed "
                       "its own checks", t->node_rank);
    if (which == 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "the ranks disagree on a stream-ordered collective: node rank %d called it "
                       "at byte offset %llu, node rank %llu (rank %d) at %llu; every rank must pass "
                       "the same arguments", t->node_rank, (unsigned long long)want,
                       (unsigned long long)peer, peer_rank, (unsigned long long)seen);
    describe_stream_call(want, mine, sizeof mine);
    describe_stream_call(seen, theirs, sizeof theirs);
    return st_fail(SHARDTAB_ERR_INVALID_ARG,
                   "the ranks disagree on a stream-ordered collective: node rank %d called %s, node "
                   "rank %llu (rank %d) %s; every rank must make the same calls, in the same order, "
                   "with the same arguments (SHARDTAB_ALL_REDUCE_ALGO and _CUTOVER too)",
                   t->node_rank, mine, (unsigned long long)peer, peer_rank, theirs);
}

/* The message of a refused collective call (SHARDTAB_WAIT_MISMATCH, _CORRUPT, _MISUSE). */
static shardtab_status_t collective_failure(const shardtab_t *t, const uint64_t *header)
{
    char where[160], mine[96], theirs[96];
    const uint64_t peer = header[SHARDTAB_PAD_ERR_TICKS];
    const int peer_rank = peer < (uint64_t)t->node_size ? t->members[peer] : -1;

    describe_index(t, header[SHARDTAB_PAD_ERR_SLOT], where, sizeof where);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_CORRUPT)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "node rank %d read a collective deposit of node rank %llu (rank %d) at %s "
                       "whose values fail their checksum (0x%08llx read, 0x%08llx deposited): "
                       "something wrote into those pad slots between the deposit and the read "
                       "(slots shared with signals or another collective?)",
                       t->node_rank, (unsigned long long)peer, peer_rank, where,
                       (unsigned long long)header[SHARDTAB_PAD_ERR_WANT],
                       (unsigned long long)header[SHARDTAB_PAD_ERR_SEEN]);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_MISMATCH &&
        header[SHARDTAB_PAD_ERR_CMP] == ST_CMP_STREAM_ARGS)
        return stream_call_failure(t, header, peer, peer_rank);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_MISMATCH) {
        uint64_t want = header[SHARDTAB_PAD_ERR_WANT], seen = header[SHARDTAB_PAD_ERR_SEEN];
        if (header[SHARDTAB_PAD_ERR_CMP] == SHARDTAB_CMP_GE) /* the epoch word */
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "the ranks disagree on a collective's calls at %s: node rank %d is at "
                           "its call %llu, and node rank %llu (rank %d) deposited its call %llu "
                           "there; every rank of the node must make the same calls, in the same "
                           "order", where, t->node_rank, (unsigned long long)want,
                           (unsigned long long)peer, peer_rank, (unsigned long long)seen);
        describe_call(want, mine, sizeof mine);
        describe_call(seen, theirs, sizeof theirs);
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "the ranks disagree on a collective call at %s: node rank %d called %s, "
                       "node rank %llu (rank %d) %s; every rank of the node must make the same "
                       "calls, in the same order",
                       where, t->node_rank, mine, (unsigned long long)peer, peer_rank, theirs);
    }
    switch (header[SHARDTAB_PAD_ERR_WANT]) {
    case SHARDTAB_MISUSE_COUNT:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called a collective with count %lld, above the values it "
                       "was made for (shardtab_coll)", t->node_rank,
                       (long long)header[SHARDTAB_PAD_ERR_SEEN]);
    case SHARDTAB_MISUSE_RANGE:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called a collective whose slots run past the %d user "
                       "slots of the pad (it needs SHARDTAB_COLL_SLOTS(node_size, values) from "
                       "its first slot): raise signal_slots in shardtab_create_with",
                       t->node_rank, t->signal_slots);
    case SHARDTAB_MISUSE_OP:
        describe_call(header[SHARDTAB_PAD_ERR_SEEN], mine, sizeof mine);
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called a collective with an unknown op, type or kind: %s",
                       t->node_rank, mine);
    case SHARDTAB_MISUSE_THIRD:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d started a third call of one collective before finishing "
                       "the first (at most two in flight: shardtab_coll_finish_block first)",
                       t->node_rank);
    case SHARDTAB_MISUSE_NOTHING:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d finished a collective call it never started", t->node_rank);
    case SHARDTAB_MISUSE_ROOT:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d called a broadcast from root %lld, outside the node's %d "
                       "ranks", t->node_rank, (long long)header[SHARDTAB_PAD_ERR_SEEN],
                       t->node_size);
    default:
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "node rank %d misused a collective (reason %llu)",
                       t->node_rank, (unsigned long long)header[SHARDTAB_PAD_ERR_WANT]);
    }
}

shardtab_status_t shardtab_signal_check(const shardtab_t *t)
{
    uint64_t header[SHARDTAB_PAD_HEADER];
    shardtab_status_t status;
    char what[160];

    status = st_check_table(t, "shardtab_signal_check");
    if (status != SHARDTAB_SUCCESS)
        return status;
    /* the barriers of shardtab_barrier_on_stream may be on other streams */
    status = st_backend()->barrier_wait(t->barrier_order);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->copy_async(header, t->pad.local, sizeof header, t->stream);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(t->stream);
    if (status != SHARDTAB_SUCCESS)
        return status;
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_MISMATCH ||
        header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_CORRUPT ||
        header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_MISUSE)
        return collective_failure(t, header);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_CONCURRENT &&
        header[SHARDTAB_PAD_ERR_SLOT] != SHARDTAB_PAD_BUSY) {
        describe_index(t, header[SHARDTAB_PAD_ERR_SLOT], what, sizeof what);
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d entered a collective (its claim at %s) while another call "
                       "of the same collective still ran on this rank (two blocks or two "
                       "streams at once): the second was refused and the node stopped; give "
                       "concurrent collectives distinct slots", t->node_rank, what);
    }
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_CONCURRENT)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "node rank %d entered a barrier of this table while another of its "
                       "barriers still ran (two streams or two blocks at once); they would "
                       "share one arrival number, so the second was refused and the node "
                       "stopped: run one barrier at a time per rank (shardtab_barrier_on_stream "
                       "orders its own calls; call shardtab_barrier_block from one block)",
                       t->node_rank);
    if (header[SHARDTAB_PAD_STATUS] == SHARDTAB_WAIT_TIMED_OUT) {
        describe_index(t, header[SHARDTAB_PAD_ERR_SLOT], what, sizeof what);
        return st_fail(SHARDTAB_ERR_TIMEOUT,
                       "a device-side wait gave up after %.2f s (limit %.3g s, "
                       "SHARDTAB_WAIT_TIMEOUT): node rank %d waited for %s to be %s %llu, "
                       "and it held %llu; the rank that should have signalled it is late, "
                       "stuck or gone",
                       (double)header[SHARDTAB_PAD_ERR_TICKS] / t->clock_hz, t->wait_timeout_s,
                       t->node_rank, what,
                       header[SHARDTAB_PAD_ERR_CMP] == SHARDTAB_CMP_EQ ? "==" : ">=",
                       (unsigned long long)header[SHARDTAB_PAD_ERR_WANT],
                       (unsigned long long)header[SHARDTAB_PAD_ERR_SEEN]);
    }
    if (header[SHARDTAB_PAD_ABORT] != 0) {
        uint64_t q = header[SHARDTAB_PAD_ABORT] - 1;
        return st_fail(SHARDTAB_ERR_ABORTED,
                       "stopped: node rank %llu (rank %d) gave up a device-side wait first",
                       (unsigned long long)q,
                       q < (uint64_t)t->node_size ? t->members[q] : -1);
    }
    return SHARDTAB_SUCCESS;
}

/* ---- queries --------------------------------------------------------------- */

/* Each query looks its table up before it reads it: NULL, a destroyed table
 * and a pointer that never was one get the answer shardtab.h gives, and the
 * reason in shardtab_last_error(). */
static int live(const shardtab_t *t, const char *call)
{
    return st_check_table(t, call) == SHARDTAB_SUCCESS;
}

int shardtab_node_size(const shardtab_t *t)
{
    return live(t, "shardtab_node_size") ? t->node_size : -1;
}

int shardtab_node_rank(const shardtab_t *t)
{
    return live(t, "shardtab_node_rank") ? t->node_rank : -1;
}

int shardtab_node_id(const shardtab_t *t)
{
    return live(t, "shardtab_node_id") ? t->node_id : -1;
}

int shardtab_node_count(const shardtab_t *t)
{
    return live(t, "shardtab_node_count") ? t->node_count : -1;
}

void *const *shardtab_device_table(const shardtab_t *t)
{
    return live(t, "shardtab_device_table") ? t->device_table : NULL;
}

double shardtab_create_ms(const shardtab_t *t)
{
    return live(t, "shardtab_create_ms") ? t->create_ms : -1.0;
}

double shardtab_wait_timeout(const shardtab_t *t)
{
    return live(t, "shardtab_wait_timeout") ? t->wait_timeout_s : -1.0;
}

double shardtab_open_ms(const shardtab_t *t)
{
    return live(t, "shardtab_open_ms") ? t->open_ms : -1.0;
}

int shardtab_peers_opened(const shardtab_t *t)
{
    return live(t, "shardtab_peers_opened") ? t->shard.opened + t->pad.opened : -1;
}

int shardtab_peers_reused(const shardtab_t *t)
{
    return live(t, "shardtab_peers_reused") ? t->shard.reused + t->pad.reused : -1;
}

int shardtab_peer_mappings(void) { return st_import_count(); }

int shardtab_peer_access(const shardtab_t *t, int from, int to)
{
    if (!live(t, "shardtab_peer_access"))
        return 0;
    if (from < 0 || to < 0 || from >= t->node_size || to >= t->node_size)
        return 0;
    return t->peer_access ? t->peer_access[from * t->node_size + to] : 1;
}

int shardtab_member(const shardtab_t *t, int node_rank)
{
    if (!live(t, "shardtab_member"))
        return -1;
    return node_rank >= 0 && node_rank < t->node_size ? t->members[node_rank] : -1;
}

int shardtab_node_rank_of(const shardtab_t *t, int comm_rank)
{
    if (!live(t, "shardtab_node_rank_of"))
        return -1;
    return comm_rank >= 0 && comm_rank < t->size ? t->node_rank_of[comm_rank] : -1;
}

shardtab_status_t shardtab_peer(const shardtab_t *t, int comm_rank, void **base, size_t *bytes)
{
    shardtab_status_t status = st_check_table(t, "shardtab_peer");
    int q;

    if (status != SHARDTAB_SUCCESS)
        return status;
    if (base == NULL || bytes == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_peer: NULL argument");
    if (comm_rank < 0 || comm_rank >= t->size)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_peer: rank %d outside [0, %d)",
                       comm_rank, t->size);
    q = t->node_rank_of[comm_rank];
    *base = q < 0 ? NULL : t->shard.entries[q];
    *bytes = q < 0 ? 0 : t->shard.entry_bytes[q];
    return SHARDTAB_SUCCESS;
}
