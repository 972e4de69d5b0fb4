/* backend.h - the one boundary between the table protocol and a device runtime.
 *
 * The library's files speak only to this ops table; backend_host.c (POSIX
 * shared memory) and backend_gpu.c (HIP, also compiled against CUDA) fill it in,
 * and backend.c says which one this process runs. A backend that is not
 * compiled in has no entry (st_backend_of answers NULL).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_BACKEND_H
#define SHARDTAB_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "shardtab.h"
#include "shardtab_device.h"
#include "collective_body.h"

/* Bytes of an opaque IPC handle: hipIpcMemHandle_t and cudaIpcMemHandle_t are 64;
 * the host backend stores a shared-memory name there. */
#define ST_IPC_HANDLE_BYTES 64

typedef struct st_ipc_handle {
    unsigned char bytes[ST_IPC_HANDLE_BYTES];
} st_ipc_handle_t;

/* What the backend learns about an allocation when it exports it. */
typedef struct st_export {
    st_ipc_handle_t handle;
    size_t offset;      /* of the shard inside the exported allocation */
    size_t alloc_bytes; /* size of the whole allocation */
} st_export_t;

/* The node as device binding sees it: the real shared-memory node. */
typedef struct st_bind_request {
    int node_rank;
    int node_size;
    int allow_shared_device;
} st_bind_request_t;

typedef struct st_backend_ops {
    shardtab_backend_t kind;
    const char *name;

    /* Choose and bind a device; fill what info can be known locally. */
    shardtab_status_t (*bind)(const st_bind_request_t *req, shardtab_device_info_t *info);
    shardtab_status_t (*unbind)(void);

    shardtab_status_t (*mem_alloc)(size_t bytes, void **ptr);
    shardtab_status_t (*mem_free)(void *ptr);
    shardtab_status_t (*copy_to_device)(void *dst, const void *src, size_t bytes);
    shardtab_status_t (*copy_to_host)(void *dst, const void *src, size_t bytes);
    shardtab_status_t (*synchronize)(void);
    /* Memory peers may write while this device's kernels run (shardtab_device.h):
     * fine-grained, or uncached where asked and available (signal pads). */
    shardtab_status_t (*mem_alloc_coherent)(size_t bytes, int uncached, void **ptr);
    shardtab_status_t (*copy_async)(void *dst, const void *src, size_t bytes,
                                    shardtab_stream_t stream);
    shardtab_status_t (*stream_synchronize)(shardtab_stream_t stream);
    /* Ticks per second of shardtab_detail_clock() in this backend's device code. */
    double (*clock_hz)(void);
    /* Enqueue shardtab_barrier(signals) on stream (the host backend runs it
     * now), after the table's previous barrier whatever its stream, so that
     * two never run at once: *order is the table's record of its last one
     * (NULL before the first; the backend makes it). A wait that gives up is
     * reported by shardtab_signal_check. The handle's pad table must be
     * readable where the barrier runs. */
    shardtab_status_t (*barrier_on_stream)(const shardtab_signals_t *signals,
                                           shardtab_stream_t stream, void **order);
    /* Wait until the table's last barrier has run (order NULL: nothing to wait
     * for), and free the record. */
    shardtab_status_t (*barrier_wait)(void *order);
    void (*barrier_order_free)(void *order);
    /* A stream-ordered collective (collectives.c): order_begin makes stream
     * wait for the table's last barrier or collective (*order, made when NULL),
     * collective_phase enqueues one phase (collective_body.h; the host backend
     * runs it now), order_end records the collective as the table's last. */
    shardtab_status_t (*order_begin)(shardtab_stream_t stream, void **order);
    shardtab_status_t (*collective_phase)(const st_coll_phase_t *phase, shardtab_stream_t stream);
    shardtab_status_t (*order_end)(shardtab_stream_t stream, void *order);

    /* Make [ptr, ptr+bytes) openable by the other processes of this node, for
     * as long as the allocation lives (the same handle for every table). */
    shardtab_status_t (*ipc_export)(void *ptr, size_t bytes, st_export_t *out);
    /* Map a peer's allocation; *base is the start of the whole allocation. */
    shardtab_status_t (*ipc_open)(const st_ipc_handle_t *handle, size_t alloc_bytes, void **base);
    shardtab_status_t (*ipc_close)(void *base, size_t alloc_bytes);
    /* Can this rank's device load and store peer_device's memory? NULL when
     * every pair can (host backend). */
    shardtab_status_t (*can_access_peer)(const char *peer_pci_bus_id, int *can);
} st_backend_ops_t;

extern const st_backend_ops_t st_backend_host_ops;
#if defined(SHARDTAB_WITH_GPU)
extern const st_backend_ops_t st_backend_gpu_ops;
#endif

/* The ops of the backend this process runs; never NULL after shardtab_init. */
const st_backend_ops_t *st_backend(void);
/* From now on st_backend() answers ops (shardtab_init: the build's; a unit
 * test: a stand-in). */
void st_backend_use(const st_backend_ops_t *ops);
/* The ops of a backend compiled into this build, or NULL. */
const st_backend_ops_t *st_backend_of(shardtab_backend_t kind);

#endif /* SHARDTAB_BACKEND_H */
