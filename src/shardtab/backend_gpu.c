/* backend_gpu.c - the GPU backend: shards in hipMalloc memory, shared through
 * HIP IPC handles. Plain C11 on the HIP runtime API; the same file runs on
 * NVIDIA through src/platform/gpu_runtime.h, which maps each HIP name onto CUDA.
 *
 * The IPC rules that bite (see docs/design.md): a handle names a whole
 * allocation, so we export the allocation base and send the offset beside it;
 * opening our own handle fails, so the library never asks; the only open flag
 * is hipIpcMemLazyEnablePeerAccess, by name (its value differs between
 * vendors and releases); importers close before the owner frees (the library's
 * destroy orders that).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"
#include "backend_gpu.h"
#include "gpu_runtime.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int bound_device = -1;
static double wall_clock_hz = 1e9;

/* The GPU barrier kernel's launcher (signal_gpu.hip); 0 or a hipError_t. */
int st_gpu_barrier_launch(const shardtab_signals_t *signals, void *stream);
int st_gpu_collective_launch(const st_coll_phase_t *phase, int blocks, void *stream);

/* Report a failed runtime call with its name and the runtime's words; returns
 * from the calling function. GPU_CHECK names the call by its source text,
 * GPU_CHECK_AS by the text given (for a status computed earlier). */
#define GPU_CHECK_AS(status_on_error, what, expr)                                                  \
  do {                                                                                             \
    hipError_t gpu_check_err_ = (expr);                                                            \
    if (gpu_check_err_ != hipSuccess)                                                              \
      return st_fail((status_on_error), "%s failed: %s (%s)", (what),                              \
                     hipGetErrorString(gpu_check_err_), hipGetErrorName(gpu_check_err_));          \
  } while (0)
#define GPU_CHECK(status_on_error, call) GPU_CHECK_AS(status_on_error, #call, (call))

static const char *visible_devices_hint(void)
{
#if defined(GPU_BACKEND_CUDA)
    return "check CUDA_VISIBLE_DEVICES, the driver (nvidia-smi) and Slurm's --gpus-per-task";
#else
    return "check HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES, rocm-smi and Slurm's "
           "--gpus-per-task";
#endif
}

static shardtab_status_t gpu_bind(const st_bind_request_t *req, shardtab_device_info_t *info)
{
    hipDeviceProp_t props;
    int count = 0, device;
    hipError_t err = hipGetDeviceCount(&count);

    if (err == hipErrorNoDevice || err == hipErrorInsufficientDriver ||
        (err == hipSuccess && count == 0))
        return st_fail(SHARDTAB_ERR_NO_DEVICE,
                       "no GPU found: hipGetDeviceCount says '%s'; %s; on a machine without "
                       "GPUs build with -DSHARDTAB_BACKEND=host",
                       err == hipSuccess ? "0 devices" : hipGetErrorString(err),
                       visible_devices_hint());
    GPU_CHECK_AS(SHARDTAB_ERR_DEVICE, "hipGetDeviceCount", err);

    device = st_gpu_device_choose(count, req); /* backend_gpu.h */
    if (device < 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%d ranks on this node but only %d GPUs visible: launch at most %d ranks "
                       "per node, or let ranks share GPUs (multi_scal --allow-shared-gpu)",
                       req->node_size, count, count);

    err = hipSetDevice(device);
    if (err != hipSuccess)
        return st_fail(SHARDTAB_ERR_DEVICE, "hipSetDevice(%d) failed: %s (%s); %s", device,
                       hipGetErrorString(err), hipGetErrorName(err), visible_devices_hint());
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipGetDeviceProperties(&props, device));
    GPU_CHECK(SHARDTAB_ERR_DEVICE,
              hipDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, device));
    info->backend = st_backend_gpu_ops.kind;
    info->device = device;
    info->visible_devices = count;
    snprintf(info->name, sizeof info->name, "%.63s", props.name);
    wall_clock_hz = gpu_wall_clock_hz(device, &props);
    bound_device = device;
    return SHARDTAB_SUCCESS;
}

/* A thread's current device is its own: every call that touches the device
 * binds this rank's first, so a table made or used from another thread (an
 * OpenMP region, a Python or Julia thread) lands on the right GPU. */
#define USE_BOUND_DEVICE()                                                                         \
  do {                                                                                             \
    if (bound_device >= 0)                                                                         \
      GPU_CHECK_AS(SHARDTAB_ERR_DEVICE, "hipSetDevice of the bound device",                        \
                   hipSetDevice(bound_device));                                                    \
  } while (0)

static shardtab_status_t gpu_unbind(void)
{
    bound_device = -1;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_mem_alloc(size_t bytes, void **ptr)
{
    void *p = NULL;
    hipError_t err;

    USE_BOUND_DEVICE();
    err = hipMalloc(&p, bytes ? bytes : 1); /* a unique pointer even for 0 */

    if (err == hipErrorOutOfMemory)
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "hipMalloc of %zu bytes: out of device memory",
                       bytes);
    GPU_CHECK_AS(SHARDTAB_ERR_DEVICE, "hipMalloc", err);
    *ptr = p;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_mem_free(void *ptr)
{
    hipError_t err;

    USE_BOUND_DEVICE();
    err = hipFree(ptr);
    if (err != hipSuccess) {
        /* a bad pointer is not sticky, but it stays the runtime's last error:
         * clear it so that the caller's next launch check does not see it */
        (void)hipGetLastError();
        return st_fail(SHARDTAB_ERR_DEVICE,
                       "shardtab_mem_free(%p): hipFree failed: %s (%s); free only what "
                       "shardtab_mem_alloc returned on this rank, once",
                       ptr, hipGetErrorString(err), hipGetErrorName(err));
    }
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_copy_to_device(void *dst, const void *src, size_t bytes)
{
    USE_BOUND_DEVICE();
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice));
    /* from pageable memory hipMemcpy returns once the bytes are staged, not
     * landed (the CUDA runtime's "API synchronization behavior"): a kernel on
     * a non-blocking stream, or a peer told by MPI, could read the old bytes.
     * Wait for the default stream, which holds the copy (not the device). */
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipStreamSynchronize(0));
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_copy_to_host(void *dst, const void *src, size_t bytes)
{
    USE_BOUND_DEVICE();
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost));
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_synchronize(void)
{
    USE_BOUND_DEVICE();
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipDeviceSynchronize());
    return SHARDTAB_SUCCESS;
}

/* Fine-grained memory stays coherent while kernels run and takes system-scope
 * atomics; uncached (ROCm >= 5.7) bypasses the caches too, which is what the
 * signal pads want (RCCL, vLLM and MSCCL++ allocate their flags so). On NVIDIA
 * gpu_runtime.h makes this a plain cudaMalloc: ordinary device memory already is. */
static shardtab_status_t gpu_mem_alloc_coherent(size_t bytes, int uncached, void **ptr)
{
    void *p = NULL;
    hipError_t err = hipErrorInvalidValue;

    USE_BOUND_DEVICE();
#if defined(hipDeviceMallocUncached)
    if (uncached) {
        err = hipExtMallocWithFlags(&p, bytes ? bytes : 1, hipDeviceMallocUncached);
        if (err != hipSuccess)
            (void)hipGetLastError(); /* not on this device or driver: fine-grained below */
    }
#else
    (void)uncached;
#endif
    if (err != hipSuccess)
        err = hipExtMallocWithFlags(&p, bytes ? bytes : 1, hipDeviceMallocFinegrained);
    if (err == hipErrorOutOfMemory)
        return st_fail(SHARDTAB_ERR_NO_MEMORY,
                       "hipExtMallocWithFlags(fine-grained) of %zu bytes: out of device memory",
                       bytes);
    GPU_CHECK_AS(SHARDTAB_ERR_DEVICE, "hipExtMallocWithFlags(hipDeviceMallocFinegrained)", err);
    *ptr = p;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_copy_async(void *dst, const void *src, size_t bytes,
                                        shardtab_stream_t stream)
{
    USE_BOUND_DEVICE();
    GPU_CHECK(SHARDTAB_ERR_DEVICE,
              hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, (hipStream_t)stream));
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_stream_synchronize(shardtab_stream_t stream)
{
    USE_BOUND_DEVICE();
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipStreamSynchronize((hipStream_t)stream));
    return SHARDTAB_SUCCESS;
}

static double gpu_clock_hz(void)
{
    return wall_clock_hz;
}

/* The order is an event recorded after each barrier: the next barrier's
 * stream waits for it first. */
static shardtab_status_t gpu_barrier_on_stream(const shardtab_signals_t *signals,
                                               shardtab_stream_t stream, void **order)
{
    hipEvent_t last = (hipEvent_t)*order;

    USE_BOUND_DEVICE();
    if (last == NULL) {
        GPU_CHECK(SHARDTAB_ERR_DEVICE, hipEventCreateWithFlags(&last, hipEventDisableTiming));
        *order = (void *)last;
    } else {
        GPU_CHECK(SHARDTAB_ERR_DEVICE, hipStreamWaitEvent((hipStream_t)stream, last, 0));
    }
    GPU_CHECK_AS(SHARDTAB_ERR_DEVICE, "launch of the barrier kernel",
                 (hipError_t)st_gpu_barrier_launch(signals, stream));
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipEventRecord(last, (hipStream_t)stream));
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_barrier_wait(void *order)
{
    USE_BOUND_DEVICE();
    if (order != NULL)
        GPU_CHECK(SHARDTAB_ERR_DEVICE, hipEventSynchronize((hipEvent_t)order));
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_order_begin(shardtab_stream_t stream, void **order)
{
    hipEvent_t last = (hipEvent_t)*order;
    hipStreamCaptureStatus capturing = hipStreamCaptureStatusNone;

    USE_BOUND_DEVICE();
    /* inside a graph capture the graph orders its own collectives; an event
     * recorded before the capture is not the graph's to wait for (the caller
     * orders the graph's launch after the table's earlier work) */
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipStreamIsCapturing((hipStream_t)stream, &capturing));
    if (capturing != hipStreamCaptureStatusNone && last != NULL)
        return SHARDTAB_SUCCESS;
    if (last == NULL) {
        GPU_CHECK(SHARDTAB_ERR_DEVICE, hipEventCreateWithFlags(&last, hipEventDisableTiming));
        *order = (void *)last;
        return SHARDTAB_SUCCESS;
    }
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipStreamWaitEvent((hipStream_t)stream, last, 0));
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_order_end(shardtab_stream_t stream, void *order)
{
    hipStreamCaptureStatus capturing = hipStreamCaptureStatusNone;

    USE_BOUND_DEVICE();
    /* a record inside a capture would leave the event unrecorded for the host
     * (hipEventSynchronize then fails): the graph orders its own, and the
     * table's last record stays the last one outside a graph */
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipStreamIsCapturing((hipStream_t)stream, &capturing));
    if (capturing != hipStreamCaptureStatusNone)
        return SHARDTAB_SUCCESS;
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipEventRecord((hipEvent_t)order, (hipStream_t)stream));
    return SHARDTAB_SUCCESS;
}

/* A phase's kernel, on a grid of st_gpu_phase_blocks (backend_gpu.h). */
static shardtab_status_t gpu_collective_phase(const st_coll_phase_t *phase,
                                              shardtab_stream_t stream)
{
    static int multiprocessors = 0;
    size_t blocks;

    USE_BOUND_DEVICE();
    if (multiprocessors == 0) {
        int device = 0, count = 0;
        GPU_CHECK(SHARDTAB_ERR_DEVICE, hipGetDevice(&device));
        GPU_CHECK(SHARDTAB_ERR_DEVICE,
                  hipDeviceGetAttribute(&count, hipDeviceAttributeMultiprocessorCount, device));
        multiprocessors = count > 0 ? count : 1;
    }
    blocks = st_gpu_phase_blocks(phase, multiprocessors);
    GPU_CHECK_AS(SHARDTAB_ERR_DEVICE, "launch of a collective's kernel",
                 (hipError_t)st_gpu_collective_launch(phase, (int)blocks, stream));
    return SHARDTAB_SUCCESS;
}

static void gpu_barrier_order_free(void *order)
{
    if (order != NULL)
        (void)hipEventDestroy((hipEvent_t)order);
}

/* Legacy IPC exports memory of hipMalloc / cudaMalloc on the bound device,
 * and nothing else: say what the pointer is, and what to use instead, before
 * the runtime answers "invalid argument" from deep inside. */
static shardtab_status_t check_exportable(const void *ptr)
{
    static const char *const use =
        "allocate shards with shardtab_mem_alloc (hipMalloc / cudaMalloc)";
    int kind, device, legacy_ipc, pool;

    gpu_memory_query(ptr, &kind, &device, &legacy_ipc, &pool);
    switch (kind) {
    case GPU_MEMORY_UNREGISTERED:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shard %p is not memory the GPU runtime knows (host memory from malloc?): "
                       "%s",
                       ptr, use);
    case GPU_MEMORY_HOST:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shard %p is pinned host memory (hipHostMalloc / cudaHostAlloc): IPC "
                       "exports device memory only; %s",
                       ptr, use);
    case GPU_MEMORY_MANAGED:
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shard %p is managed memory (hipMallocManaged / cudaMallocManaged): "
                       "legacy IPC cannot export it; %s",
                       ptr, use);
    default:
        break;
    }
    if (device != bound_device)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shard %p is memory of device %d, but this rank is bound to device %d: "
                       "allocate it after shardtab_init, with shardtab_mem_alloc",
                       ptr, device, bound_device);
    if (legacy_ipc == 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shard %p is %s: legacy IPC (hipIpcGetMemHandle) cannot export it; %s", ptr,
                       pool ? "stream-ordered pool memory (hipMallocAsync / cudaMallocAsync, "
                              "CUDA.jl's default allocator)"
                            : "virtual memory (hipMemCreate / cuMemCreate, PyTorch's "
                              "expandable segments)",
                       use);
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_ipc_export(void *ptr, size_t bytes, st_export_t *out)
{
    shardtab_status_t status;
    hipIpcMemHandle_t handle;
    hipDeviceptr_t base = NULL;
    size_t size = 0;

    USE_BOUND_DEVICE();
    status = check_exportable(ptr);
    if (status != SHARDTAB_SUCCESS)
        return status;
    /* The handle names the whole allocation: export its base, send the offset. */
    GPU_CHECK(SHARDTAB_ERR_IPC, hipMemGetAddressRange(&base, &size, (hipDeviceptr_t)ptr));
    if ((char *)ptr < (char *)base || bytes > size - (size_t)((char *)ptr - (char *)base))
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "shard %p + %zu bytes runs past its allocation [%p, +%zu)", ptr, bytes,
                       (void *)base, size);
    GPU_CHECK(SHARDTAB_ERR_IPC, hipIpcGetMemHandle(&handle, (void *)base));
    memset(out, 0, sizeof *out);
    memcpy(out->handle.bytes, &handle, sizeof handle);
    out->offset = (size_t)((char *)ptr - (char *)base);
    out->alloc_bytes = size;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_ipc_open(const st_ipc_handle_t *handle, size_t alloc_bytes,
                                      void **base)
{
    hipIpcMemHandle_t h;
    hipError_t err;
    void *p = NULL;

    (void)alloc_bytes;
    USE_BOUND_DEVICE();
    memcpy(&h, handle->bytes, sizeof h);
    err = hipIpcOpenMemHandle(&p, h, hipIpcMemLazyEnablePeerAccess);
    if (err != hipSuccess)
        return st_fail(SHARDTAB_ERR_IPC,
                       "hipIpcOpenMemHandle failed: %s (%s); IPC needs the ranks of a node to "
                       "see each other's GPUs: in containers share the IPC and PID namespaces, "
                       "under Slurm GPU isolation add --gres-flags=allow-task-sharing, and run "
                       "multi_scal --check-peers",
                       hipGetErrorString(err), hipGetErrorName(err));
    *base = p;
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_ipc_close(void *base, size_t alloc_bytes)
{
    (void)alloc_bytes;
    USE_BOUND_DEVICE();
    GPU_CHECK(SHARDTAB_ERR_IPC, hipIpcCloseMemHandle(base));
    return SHARDTAB_SUCCESS;
}

static shardtab_status_t gpu_can_access_peer(const char *peer_pci_bus_id, int *can)
{
    int peer = -1, access = 0;

    USE_BOUND_DEVICE();
    /* A peer GPU this process cannot see (one visible GPU per rank) cannot be
     * asked about; -1 says "unknown", and the write-and-verify check decides. */
    if (hipDeviceGetByPCIBusId(&peer, peer_pci_bus_id) != hipSuccess) {
        (void)hipGetLastError(); /* clear the sticky "last error" of the query */
        *can = -1;
        return SHARDTAB_SUCCESS;
    }
    if (peer == bound_device) {
        *can = 1; /* ranks sharing one GPU */
        return SHARDTAB_SUCCESS;
    }
    GPU_CHECK(SHARDTAB_ERR_DEVICE, hipDeviceCanAccessPeer(&access, bound_device, peer));
    *can = access ? 1 : 0;
    return SHARDTAB_SUCCESS;
}

const st_backend_ops_t st_backend_gpu_ops = {
#if defined(GPU_BACKEND_CUDA)
    .kind = SHARDTAB_BACKEND_CUDA,
    .name = "cuda",
#else
    .kind = SHARDTAB_BACKEND_HIP,
    .name = "hip",
#endif
    .bind = gpu_bind,
    .unbind = gpu_unbind,
    .mem_alloc = gpu_mem_alloc,
    .mem_free = gpu_mem_free,
    .copy_to_device = gpu_copy_to_device,
    .copy_to_host = gpu_copy_to_host,
    .synchronize = gpu_synchronize,
    .mem_alloc_coherent = gpu_mem_alloc_coherent,
    .copy_async = gpu_copy_async,
    .stream_synchronize = gpu_stream_synchronize,
    .clock_hz = gpu_clock_hz,
    .barrier_on_stream = gpu_barrier_on_stream,
    .barrier_wait = gpu_barrier_wait,
    .barrier_order_free = gpu_barrier_order_free,
    .order_begin = gpu_order_begin,
    .collective_phase = gpu_collective_phase,
    .order_end = gpu_order_end,
    .ipc_export = gpu_ipc_export,
    .ipc_open = gpu_ipc_open,
    .ipc_close = gpu_ipc_close,
    .can_access_peer = gpu_can_access_peer,
};
