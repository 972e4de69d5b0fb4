/* descriptor.c - packing and validation of the per-rank descriptors exchanged
 * at create. Little-endian fixed layout, explicit field by field: no struct
 * padding travels and no field is used before it is checked. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "descriptor.h"

#include <string.h>

static unsigned char *put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return p + 4;
}

static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return p + 8;
}

static const unsigned char *get_u32(const unsigned char *p, uint32_t *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++)
        *v |= (uint32_t)p[i] << (8 * i);
    return p + 4;
}

static const unsigned char *get_u64(const unsigned char *p, uint64_t *v)
{
    *v = 0;
    for (int i = 0; i < 8; i++)
        *v |= (uint64_t)p[i] << (8 * i);
    return p + 8;
}

static unsigned char *put_bytes(unsigned char *p, const void *src, size_t n)
{
    memcpy(p, src, n);
    return p + n;
}

static const unsigned char *get_bytes(const unsigned char *p, void *dst, size_t n)
{
    memcpy(dst, p, n);
    return p + n;
}

void st_descriptor_pack(const st_descriptor_t *d, unsigned char out[ST_DESCRIPTOR_PACKED_BYTES])
{
    unsigned char *p = out;
    p = put_u32(p, ST_DESCRIPTOR_MAGIC);
    p = put_u32(p, ST_DESCRIPTOR_VERSION);
    p = put_u32(p, d->flags);
    p = put_u32(p, (uint32_t)d->comm_rank);
    p = put_u32(p, (uint32_t)d->node_rank);
    p = put_u32(p, (uint32_t)d->backend);
    p = put_u32(p, (uint32_t)d->device);
    p = put_u64(p, d->bytes);
    p = put_u64(p, d->offset);
    p = put_u64(p, d->alloc_bytes);
    p = put_bytes(p, d->host, sizeof d->host);
    p = put_bytes(p, d->boot_id, sizeof d->boot_id);
    p = put_u64(p, d->ipc_ns);
    p = put_bytes(p, d->pci_bus_id, sizeof d->pci_bus_id);
    p = put_bytes(p, d->handle.bytes, sizeof d->handle.bytes);
    p = put_u32(p, (uint32_t)d->pid);
    put_u64(p, d->alloc_base);
}

static int terminated(const char *s, size_t n)
{
    return memchr(s, '\0', n) != NULL;
}

shardtab_status_t st_descriptor_unpack(const unsigned char in[ST_DESCRIPTOR_PACKED_BYTES],
                                       st_descriptor_t *out)
{
    st_descriptor_t d;
    uint32_t magic, version, u;
    const unsigned char *p = in;

    p = get_u32(p, &magic);
    p = get_u32(p, &version);
    if (magic != ST_DESCRIPTOR_MAGIC)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "received descriptor has magic 0x%08x, want 0x%08x: a peer runs "
                       "another program or corrupted memory",
                       (unsigned)magic, (unsigned)ST_DESCRIPTOR_MAGIC);
    if (version != ST_DESCRIPTOR_VERSION)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "received descriptor version %u, this library speaks %u: "
                       "run the same shardtab build on every rank",
                       (unsigned)version, (unsigned)ST_DESCRIPTOR_VERSION);
    p = get_u32(p, &d.flags);
    p = get_u32(p, &u), d.comm_rank = (int32_t)u;
    p = get_u32(p, &u), d.node_rank = (int32_t)u;
    p = get_u32(p, &u), d.backend = (int32_t)u;
    p = get_u32(p, &u), d.device = (int32_t)u;
    p = get_u64(p, &d.bytes);
    p = get_u64(p, &d.offset);
    p = get_u64(p, &d.alloc_bytes);
    p = get_bytes(p, d.host, sizeof d.host);
    p = get_bytes(p, d.boot_id, sizeof d.boot_id);
    p = get_u64(p, &d.ipc_ns);
    p = get_bytes(p, d.pci_bus_id, sizeof d.pci_bus_id);
    p = get_bytes(p, d.handle.bytes, sizeof d.handle.bytes);
    p = get_u32(p, &u), d.pid = (int32_t)u;
    get_u64(p, &d.alloc_base);

    if (!terminated(d.host, sizeof d.host) || !terminated(d.boot_id, sizeof d.boot_id) ||
        !terminated(d.pci_bus_id, sizeof d.pci_bus_id))
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "received descriptor from rank %d has an unterminated string",
                       (int)d.comm_rank);
    if ((d.flags & ~(uint32_t)ST_DESCRIPTOR_EMPTY) != 0)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "received descriptor from rank %d has unknown flags 0x%x", (int)d.comm_rank,
                       (unsigned)d.flags);
    *out = d;
    return SHARDTAB_SUCCESS;
}

shardtab_status_t st_descriptor_validate(const st_descriptor_t *d,
                                         const st_descriptor_expect_t *expect)
{
    if (d->comm_rank != expect->comm_rank || d->node_rank != expect->node_rank)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "descriptor in slot of rank %d (node rank %d) claims rank %d "
                       "(node rank %d)",
                       (int)expect->comm_rank, (int)expect->node_rank, (int)d->comm_rank,
                       (int)d->node_rank);
    if (strcmp(d->boot_id, expect->boot_id) != 0)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "rank %d is on host '%s' (boot %s), not on this node '%s' (boot %s): "
                       "IPC handles only open inside one node; refusing to open it",
                       (int)d->comm_rank, d->host, d->boot_id, expect->host, expect->boot_id);
    if (d->ipc_ns != expect->ipc_ns)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "rank %d ('%s') runs on this machine but in another IPC namespace (%llu, "
                       "this rank's %llu): IPC handles do not cross IPC namespaces; run the "
                       "containers of a node with a shared IPC namespace (docker --ipc=host)",
                       (int)d->comm_rank, d->host, (unsigned long long)d->ipc_ns,
                       (unsigned long long)expect->ipc_ns);
    if (d->backend != expect->backend)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "rank %d runs backend %d, this rank runs %d: build every rank the same",
                       (int)d->comm_rank, (int)d->backend, (int)expect->backend);
    if (d->flags & ST_DESCRIPTOR_EMPTY) {
        if (d->bytes != 0)
            return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                           "rank %d sent an empty descriptor of %llu bytes", (int)d->comm_rank,
                           (unsigned long long)d->bytes);
        return SHARDTAB_SUCCESS;
    }
    if (d->alloc_bytes == 0 || d->offset > d->alloc_bytes ||
        d->bytes > d->alloc_bytes - d->offset || d->alloc_bytes > (uint64_t)SIZE_MAX)
        return st_fail(SHARDTAB_ERR_DESCRIPTOR,
                       "rank %d sent a shard of %llu bytes at offset %llu in an "
                       "allocation of %llu bytes: the sizes do not add up",
                       (int)d->comm_rank, (unsigned long long)d->bytes,
                       (unsigned long long)d->offset, (unsigned long long)d->alloc_bytes);
    return SHARDTAB_SUCCESS;
}
