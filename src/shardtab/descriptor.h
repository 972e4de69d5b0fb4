/* descriptor.h - the fixed-size record every rank sends its node peers at
 * create: what its shard is, where it lives, and the IPC handle that opens it.
 * Packed into a byte layout of its own so that a receiver can validate every
 * field before trusting any of it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_DESCRIPTOR_H
#define SHARDTAB_DESCRIPTOR_H

#include <stddef.h>
#include <stdint.h>
#include "backend.h"
#include "internal.h"

#define ST_DESCRIPTOR_MAGIC 0x53544231u /* "STB1" */
#define ST_DESCRIPTOR_VERSION                                                                      \
  3u /* 2: the IPC namespace joined the node identity;
                                    3: the exporter's pid and allocation base */

enum { ST_DESCRIPTOR_EMPTY = 1u }; /* flags: the shard has no bytes, no handle */

typedef struct st_descriptor {
    uint32_t flags;
    int32_t comm_rank;
    int32_t node_rank;
    int32_t backend; /* shardtab_backend_t of the sender */
    int32_t device;
    uint64_t bytes;  /* of the shard */
    uint64_t offset; /* of the shard inside the exported allocation */
    uint64_t alloc_bytes;
    char host[ST_HOST_NAME_BYTES];
    char boot_id[ST_BOOT_ID_BYTES];
    uint64_t ipc_ns; /* inode of the sender's IPC namespace (0: unknown) */
    char pci_bus_id[32];
    st_ipc_handle_t handle;
    int32_t pid;         /* of the exporting process, in its PID namespace */
    uint64_t alloc_base; /* the exported allocation's address in the exporter:
                             with pid, device and alloc_bytes, what importers
                             key their mappings by (imports.h) */
} st_descriptor_t;

/* magic, version, flags, 4 x int32, 3 x uint64, host, boot id, IPC namespace,
 * bus id, the handle, pid, allocation base */
#define ST_DESCRIPTOR_PACKED_BYTES                                                                 \
  (4 + 4 + 4 + 4 * 4 + 3 * 8 + ST_HOST_NAME_BYTES + ST_BOOT_ID_BYTES + 8 + 32 +                    \
   ST_IPC_HANDLE_BYTES + 4 + 8)

void st_descriptor_pack(const st_descriptor_t *desc, unsigned char out[ST_DESCRIPTOR_PACKED_BYTES]);
/* Returns SHARDTAB_SUCCESS and fills *desc, or SHARDTAB_ERR_DESCRIPTOR with a
 * message saying which field is wrong. */
shardtab_status_t st_descriptor_unpack(const unsigned char in[ST_DESCRIPTOR_PACKED_BYTES],
                                       st_descriptor_t *desc);

/* Check a peer's descriptor against what this rank expects of a node peer:
 * same node (boot id and IPC namespace: host names differ between containers
 * that share a machine, so a host name alone decides nothing), same backend,
 * the node rank it was sent for, and sizes that add up. */
typedef struct st_descriptor_expect {
    int32_t comm_rank;
    int32_t node_rank;
    int32_t backend;
    const char *host;
    const char *boot_id;
    uint64_t ipc_ns;
} st_descriptor_expect_t;

shardtab_status_t st_descriptor_validate(const st_descriptor_t *desc,
                                         const st_descriptor_expect_t *expect);

#endif /* SHARDTAB_DESCRIPTOR_H */
