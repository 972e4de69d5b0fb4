/* runtime.c - the process side of shardtab: init and finalize (the backend
 * chosen, backend.c; the device this rank binds, by its rank inside the
 * node), and the memory calls that forward to the backend. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "internal.h"
#include "pads.h"
#include "registry.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

st_runtime_t st_rt;

/* Two ranks of a node on one device is a launch mistake unless asked for. */
static shardtab_status_t check_device_sharing(MPI_Comm node, const st_bind_request_t *req,
                                              shardtab_device_info_t *info)
{
    char *ids = malloc((size_t)req->node_size * sizeof info->pci_bus_id);
    shardtab_status_t status = SHARDTAB_SUCCESS;
    int sharers = 0;

    /* every rank learns of a failed malloc before anyone enters the allgather */
    status =
        shardtab_agree(node, ids == NULL ? st_fail(SHARDTAB_ERR_NO_MEMORY,
                                                   "malloc of %d bus ids failed", req->node_size)
                                         : SHARDTAB_SUCCESS);
    if (status != SHARDTAB_SUCCESS) {
        free(ids);
        return status;
    }
    if (MPI_Allgather(info->pci_bus_id, (int)sizeof info->pci_bus_id, MPI_CHAR, ids,
                      (int)sizeof info->pci_bus_id, MPI_CHAR, node) != MPI_SUCCESS) {
        free(ids);
        return st_fail(SHARDTAB_ERR_MPI, "MPI_Allgather of device bus ids failed");
    }
    for (int r = 0; r < req->node_size; r++)
        if (r != req->node_rank &&
            strcmp(ids + (size_t)r * sizeof info->pci_bus_id, info->pci_bus_id) == 0)
            sharers++;
    free(ids);
    if (sharers > 0 && !req->allow_shared_device)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG,
                         "%d rank(s) of this node bind the same GPU [%s] (%d ranks on the "
                         "node, %d GPU(s) visible to this rank): launch one rank per GPU, "
                         "or allow sharing (multi_scal --allow-shared-gpu)",
                         sharers + 1, info->pci_bus_id, req->node_size, info->visible_devices);
    info->shared = sharers > 0;
    return status;
}

/* From now on every message says which rank and device speaks. */
static void say_who(const st_runtime_t *rt)
{
    char prefix[ST_HOST_NAME_BYTES + 96];

    if (rt->device.backend == SHARDTAB_BACKEND_HOST)
        snprintf(prefix, sizeof prefix, "%s rank %d (cpu): ", rt->host, rt->world_rank);
    else
        snprintf(prefix, sizeof prefix, "%s rank %d device %d [%s]: ", rt->host, rt->world_rank,
                 rt->device.device, rt->device.pci_bus_id);
    st_error_identity(prefix);
}

shardtab_status_t shardtab_init(MPI_Comm comm, const shardtab_init_params_t *params)
{
    st_bind_request_t req = {0};
    shardtab_device_info_t info;
    shardtab_status_t status = SHARDTAB_SUCCESS, bound;
    MPI_Comm node = MPI_COMM_NULL;
    int rank;

    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return st_fail(SHARDTAB_ERR_MPI, "shardtab_init: MPI_Comm_rank failed");
    if (st_rt.initialized)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_init called twice");
    status = shardtab_agree(comm, status);
    if (status != SHARDTAB_SUCCESS)
        return status;

    memset(&st_rt, 0, sizeof st_rt);
    MPI_Comm_rank(MPI_COMM_WORLD, &st_rt.world_rank);
    st_node_identity(st_rt.host, st_rt.boot_id);
    st_rt.ipc_ns = st_ipc_namespace();
    st_backend_use(st_backend_of(shardtab_backend()));

    /* Devices belong to the real node: split by shared memory, never by the
     * global rank (rank % ndevices goes wrong as soon as nodes differ). */
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        status = st_fail(SHARDTAB_ERR_MPI, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
    status = shardtab_agree(comm, status);
    if (status != SHARDTAB_SUCCESS)
        return status;
    MPI_Comm_rank(node, &req.node_rank);
    MPI_Comm_size(node, &req.node_size);
    req.allow_shared_device = params ? params->allow_shared_device : 0;

    memset(&info, 0, sizeof info);
    bound = st_backend()->bind(&req, &info);
    status = shardtab_agree(comm, bound);
    if (status != SHARDTAB_SUCCESS && bound == SHARDTAB_SUCCESS)
        st_backend()->unbind(); /* another rank failed: give our device back */
    if (status == SHARDTAB_SUCCESS) {
        st_rt.device = info;
        st_rt.initialized = 1;
        say_who(&st_rt);
        if (info.backend != SHARDTAB_BACKEND_HOST)
            status = check_device_sharing(node, &req, &st_rt.device);
        status = shardtab_agree(comm, status);
        if (status != SHARDTAB_SUCCESS) {
            st_backend()->unbind();
            st_rt.initialized = 0;
            st_error_identity(NULL);
        }
    }
    MPI_Comm_free(&node);
    return status;
}

shardtab_status_t shardtab_finalize(void)
{
    shardtab_status_t status;

    if (!st_rt.initialized)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_finalize without shardtab_init");
    /* Local: a live table still needs the binding (its memory is freed, and its
     * peers read, through it), so nothing is released while one lives. Every
     * rank of a table holds it until the collective destroy, so each refuses. */
    status = st_check_none_live("shardtab_finalize");
    if (status != SHARDTAB_SUCCESS)
        return status;
    status = st_pad_release_idle(); /* the signal pad chunk kept for a next table */
    {
        shardtab_status_t unbound = st_backend()->unbind();
        if (status == SHARDTAB_SUCCESS)
            status = unbound;
    }
    st_rt.initialized = 0;
    st_error_identity(NULL);
    return status;
}

shardtab_status_t shardtab_device_info(shardtab_device_info_t *info)
{
    if (!st_rt.initialized)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "shardtab_device_info before shardtab_init");
    *info = st_rt.device;
    return SHARDTAB_SUCCESS;
}

#define REQUIRE_INIT(what)                                                                         \
  do {                                                                                             \
    if (!st_rt.initialized)                                                                        \
      return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s called before shardtab_init", what);            \
  } while (0)

/* shardtab_mem_alloc and _coherent: the same checks (named for the call),
 * then the backend's allocator of the kind asked for */
static shardtab_status_t mem_alloc_checked(const char *call, size_t bytes, int coherent, void **ptr)
{
    shardtab_status_t status;

    REQUIRE_INIT(call);
    if (ptr == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: ptr is NULL", call);
    status = st_fault_check(ST_FAULT_ALLOC);
    if (status != SHARDTAB_SUCCESS)
        return status;
    return coherent ? st_backend()->mem_alloc_coherent(bytes, 0, ptr)
                    : st_backend()->mem_alloc(bytes, ptr);
}

shardtab_status_t shardtab_mem_alloc(size_t bytes, void **ptr)
{
    return mem_alloc_checked("shardtab_mem_alloc", bytes, 0, ptr);
}

shardtab_status_t shardtab_mem_free(void *ptr)
{
    shardtab_status_t status;

    REQUIRE_INIT("shardtab_mem_free");
    if (ptr == NULL)
        return SHARDTAB_SUCCESS;
    /* a table's peers map it: freeing it would hand them freed memory */
    status = st_check_free(ptr);
    if (status != SHARDTAB_SUCCESS)
        return status;
    /* An injected failure still frees: the fault tests count leaks too. */
    status = st_fault_check(ST_FAULT_FREE);
    shardtab_status_t freed = st_backend()->mem_free(ptr);
    return status != SHARDTAB_SUCCESS ? status : freed;
}

shardtab_status_t shardtab_memcpy_to_device(void *dst, const void *src, size_t bytes)
{
    REQUIRE_INIT("shardtab_memcpy_to_device");
    return bytes ? st_backend()->copy_to_device(dst, src, bytes) : SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_memcpy_to_host(void *dst, const void *src, size_t bytes)
{
    REQUIRE_INIT("shardtab_memcpy_to_host");
    return bytes ? st_backend()->copy_to_host(dst, src, bytes) : SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_device_synchronize(void)
{
    REQUIRE_INIT("shardtab_device_synchronize");
    return st_backend()->synchronize();
}

shardtab_status_t shardtab_mem_alloc_coherent(size_t bytes, void **ptr)
{
    return mem_alloc_checked("shardtab_mem_alloc_coherent", bytes, 1, ptr);
}

shardtab_status_t shardtab_memcpy_async(void *dst, const void *src, size_t bytes,
                                        shardtab_stream_t stream)
{
    REQUIRE_INIT("shardtab_memcpy_async");
    return bytes ? st_backend()->copy_async(dst, src, bytes, stream) : SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_stream_synchronize(shardtab_stream_t stream)
{
    REQUIRE_INIT("shardtab_stream_synchronize");
    return st_backend()->stream_synchronize(stream);
}
