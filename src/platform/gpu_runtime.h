/* gpu_runtime.h - the HIP API, spelled once, for AMD (HIP itself) and for
 * NVIDIA (each HIP name this project uses, mapped onto the CUDA runtime).
 * tests/platform/check_hip_names.sh fails when a source uses a HIP name not mapped here.
 *
 *  AMD  (default):          C host  -> <hip/hip_runtime_api.h>  (needs -D__HIP_PLATFORM_AMD__)
 *                           kernels -> <hip/hip_runtime.h>      (clang -x hip / hipcc)
 *  NVIDIA (-DGPU_BACKEND_CUDA, or any nvcc compile):
 *                           C host  -> <cuda_runtime_api.h>     + HIP->CUDA name map below
 *                           kernels -> <cuda_runtime.h>         + same map
 *  HIP's own nvidia_detail headers are NOT used (they do not compile against CUDA 13).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef GPU_RUNTIME_H
#define GPU_RUNTIME_H

#if defined(__CUDACC__) && !defined(GPU_BACKEND_CUDA)
#  define GPU_BACKEND_CUDA 1
#endif

#if !defined(GPU_BACKEND_CUDA)
/* ------------------------------------------------------------------ AMD */
#  if defined(__HIP__) || defined(__HIPCC__)
#    include <hip/hip_runtime.h>
#    include <hip/hip_cooperative_groups.h> /* namespace cooperative_groups, as CUDA's */
#  else
#    ifndef __HIP_PLATFORM_AMD__
#      define __HIP_PLATFORM_AMD__
#    endif
#    include <hip/hip_runtime_api.h>
#  endif
#  include <string.h>
#  include "gpu_clock.h"

/* Ticks per second of wall_clock64() (s_memrealtime) in kernels: the device
 * attribute where the runtime has it (ROCm >= 5.4) and says more than 0, else
 * by architecture (gpu_clock.h). */
static inline double gpu_wall_clock_hz(int device, const hipDeviceProp_t *props)
{
#  if HIP_VERSION >= 50400000
    int khz = 0;
    if (hipDeviceGetAttribute(&khz, hipDeviceAttributeWallClockRate, device) == hipSuccess &&
        khz > 0)
        return khz * 1e3;
    (void)hipGetLastError();
#  endif
    (void)device;
    return gpu_wall_clock_fallback_hz(props->gcnArchName);
}

/* What a pointer is, before it is handed to hipIpcGetMemHandle: its kind
 * (GPU_MEMORY_*), its device, whether legacy IPC can export its allocation
 * (1, 0, or -1 unknown) and whether it comes from a stream-ordered pool. */
#  define GPU_MEMORY_UNREGISTERED 0
#  define GPU_MEMORY_HOST 1
#  define GPU_MEMORY_DEVICE 2
#  define GPU_MEMORY_MANAGED 3
static inline void gpu_memory_query(const void *p, int *kind, int *device, int *legacy_ipc,
                                    int *pool)
{
    hipPointerAttribute_t a;
    int capable = 0;
    void *handle = NULL;

    *kind = GPU_MEMORY_UNREGISTERED, *device = -1, *legacy_ipc = -1, *pool = 0;
    if (hipPointerGetAttributes(&a, p) != hipSuccess) {
        (void)hipGetLastError(); /* plain host memory: HIP does not know it */
        return;
    }
#  if HIP_VERSION_MAJOR >= 6
    *kind = a.type == hipMemoryTypeManaged  ? GPU_MEMORY_MANAGED
            : a.type == hipMemoryTypeDevice ? GPU_MEMORY_DEVICE
            : a.type == hipMemoryTypeHost   ? GPU_MEMORY_HOST
                                            : GPU_MEMORY_UNREGISTERED;
#  else
    *kind = a.isManaged                           ? GPU_MEMORY_MANAGED
            : a.memoryType == hipMemoryTypeDevice ? GPU_MEMORY_DEVICE
            : a.memoryType == hipMemoryTypeHost   ? GPU_MEMORY_HOST
                                                  : GPU_MEMORY_UNREGISTERED;
#  endif
    *device = a.device;
    if (hipPointerGetAttribute(&capable, HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE,
                               (hipDeviceptr_t)p) == hipSuccess)
        *legacy_ipc = capable != 0;
    else
        (void)hipGetLastError();
    if (hipPointerGetAttribute(&handle, HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, (hipDeviceptr_t)p) ==
        hipSuccess)
        *pool = handle != NULL;
    else
        (void)hipGetLastError();
}

#else
/* --------------------------------------------------------------- NVIDIA */
#  ifdef __CUDACC__
#    include <cuda_runtime.h>
#    include <cooperative_groups.h>
#  else
#    include <cuda_runtime_api.h>
#  endif
#  include <cuda.h> /* types only (CUresult, CUdeviceptr); libcuda is NOT linked */
#  include <stddef.h>
#  include <stdint.h>
#  include <string.h>

typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaIpcMemHandle_t hipIpcMemHandle_t; /* both 64 bytes */
typedef struct cudaDeviceProp hipDeviceProp_t;
typedef enum cudaDeviceAttr hipDeviceAttribute_t;
typedef void *hipDeviceptr_t; /* HIP: void*, CUDA driver: integer */

/* error codes (numeric values are identical: 0, 1, 2, 35, 100, 704, ...) */
#  define hipSuccess cudaSuccess
#  define hipErrorInvalidValue cudaErrorInvalidValue
#  define hipErrorOutOfMemory cudaErrorMemoryAllocation
#  define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#  define hipErrorNoDevice cudaErrorNoDevice
#  define hipErrorPeerAccessAlreadyEnabled cudaErrorPeerAccessAlreadyEnabled
#  define hipErrorNotSupported cudaErrorNotSupported

/* flags / enums (values differ between HIP and CUDA: always use the names) */
#  define hipIpcMemLazyEnablePeerAccess cudaIpcMemLazyEnablePeerAccess /* HIP 0, CUDA 1 */
#  define hipHostMallocDefault cudaHostAllocDefault
#  define hipHostMallocPortable cudaHostAllocPortable /* 1 */
#  define hipHostMallocMapped cudaHostAllocMapped     /* 2 */
#  define hipMemcpyHostToHost cudaMemcpyHostToHost
#  define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#  define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#  define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#  define hipMemcpyDefault cudaMemcpyDefault
#  define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#  define hipDeviceAttributeMaxThreadsPerBlock cudaDevAttrMaxThreadsPerBlock
#  define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#  define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#  define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#  define hipDeviceAttributePciBusId cudaDevAttrPciBusId
#  define hipDeviceAttributePciDeviceId cudaDevAttrPciDeviceId
#  define hipDeviceAttributeCanMapHostMemory cudaDevAttrCanMapHostMemory
#  define hipDeviceAttributeSharedMemPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#  define hipDeviceAttributeMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock

/* functions: identical signatures -> plain renames */
#  define hipGetDeviceCount cudaGetDeviceCount
#  define hipSetDevice cudaSetDevice
#  define hipGetDevice cudaGetDevice
#  define hipGetDeviceProperties cudaGetDeviceProperties
#  define hipDeviceGetAttribute cudaDeviceGetAttribute
#  define hipDeviceGetPCIBusId cudaDeviceGetPCIBusId
#  define hipDeviceCanAccessPeer cudaDeviceCanAccessPeer
#  define hipDeviceGetByPCIBusId cudaDeviceGetByPCIBusId
#  define hipDeviceDisablePeerAccess cudaDeviceDisablePeerAccess
#  define hipMemcpyPeer cudaMemcpyPeer
#  define hipMemcpyPeerAsync cudaMemcpyPeerAsync
#  define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#  define hipStreamNonBlocking cudaStreamNonBlocking
#  define hipErrorPeerAccessNotEnabled cudaErrorPeerAccessNotEnabled
#  define hipDriverGetVersion cudaDriverGetVersion
#  define hipRuntimeGetVersion cudaRuntimeGetVersion
#  define hipDeviceEnablePeerAccess cudaDeviceEnablePeerAccess
#  define hipDeviceSynchronize cudaDeviceSynchronize
#  define hipGetErrorString cudaGetErrorString
#  define hipGetErrorName cudaGetErrorName
#  define hipGetLastError cudaGetLastError
#  define hipPeekAtLastError cudaPeekAtLastError
#  define hipMalloc cudaMalloc
#  define hipFree cudaFree
#  define hipMemcpy cudaMemcpy
#  define hipMemcpyAsync cudaMemcpyAsync
#  define hipMemset cudaMemset
#  define hipMemsetAsync cudaMemsetAsync
#  define hipIpcGetMemHandle cudaIpcGetMemHandle
#  define hipIpcOpenMemHandle cudaIpcOpenMemHandle
#  define hipIpcCloseMemHandle cudaIpcCloseMemHandle
#  define hipStreamCreate cudaStreamCreate
#  define hipStreamDestroy cudaStreamDestroy
#  define hipStreamSynchronize cudaStreamSynchronize
#  define hipEventCreate cudaEventCreate
#  define hipEventDestroy cudaEventDestroy
#  define hipEventRecord cudaEventRecord
#  define hipEventSynchronize cudaEventSynchronize
#  define hipEventElapsedTime cudaEventElapsedTime
/* graphs: a captured stream replayed with one launch */
typedef cudaGraph_t hipGraph_t;
typedef cudaGraphExec_t hipGraphExec_t;
#  define hipStreamBeginCapture cudaStreamBeginCapture
#  define hipStreamEndCapture cudaStreamEndCapture
#  define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
typedef enum cudaStreamCaptureStatus hipStreamCaptureStatus;
#  define hipStreamIsCapturing cudaStreamIsCapturing
#  define hipStreamCaptureStatusNone cudaStreamCaptureStatusNone
#  define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#  define hipGraphLaunch cudaGraphLaunch
#  define hipGraphExecDestroy cudaGraphExecDestroy
#  define hipGraphDestroy cudaGraphDestroy
#  define hipEventCreateWithFlags cudaEventCreateWithFlags
#  define hipEventDisableTiming cudaEventDisableTiming
#  define hipStreamWaitEvent cudaStreamWaitEvent
#  define hipPointerGetAttributes cudaPointerGetAttributes
#  define hipMallocAsync cudaMallocAsync
#  define hipFreeAsync cudaFreeAsync
#  define hipMallocManaged cudaMallocManaged
#  define hipMemAttachGlobal cudaMemAttachGlobal
/* cooperative launches: every block co-resident, a grid-wide barrier inside */
#  define hipLaunchCooperativeKernel cudaLaunchCooperativeKernel
#  define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#  define hipDeviceAttributeCooperativeLaunch cudaDevAttrCooperativeLaunch
#  define hipErrorCooperativeLaunchTooLarge cudaErrorCooperativeLaunchTooLarge
/* more than 48 KB of dynamic shared memory a block asks for it first */
#  define hipFuncSetAttribute cudaFuncSetAttribute
#  define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
/* a kernel's own static shared memory, to size the dynamic part beside it */
#  define hipFuncAttributes cudaFuncAttributes
#  define hipFuncGetAttributes cudaFuncGetAttributes

/* Allocation flags of hipExtMallocWithFlags. CUDA device memory already takes
 * system-scope loads, stores and atomics from peers while kernels run (over
 * NVLink, with native peer atomics): no flag is needed, plain cudaMalloc is it. */
#  define hipDeviceMallocDefault 0x0
#  define hipDeviceMallocFinegrained 0x1
#  define hipDeviceMallocUncached 0x3
static inline cudaError_t hipExtMallocWithFlags(void **ptr, size_t bytes, unsigned int flags)
{
    (void)flags;
    return cudaMalloc(ptr, bytes);
}

/* %globaltimer, which the kernels read, counts nanoseconds. */
static inline double gpu_wall_clock_hz(int device, const hipDeviceProp_t *props)
{
    (void)device, (void)props;
    return 1e9;
}

/* functions whose names differ */
#  define hipHostMalloc cudaHostAlloc /* (void**, size_t, unsigned) */
#  define hipHostFree cudaFreeHost
#  define hipHostGetDevicePointer cudaHostGetDevicePointer

/* A CUDA driver function, fetched through the runtime so that the program
 * does not link libcuda.so.1 and still starts (and reports "no GPU") on hosts
 * without a driver. cudaGetDriverEntryPointByVersion is CUDA >= 12.5; 12.0 to
 * 12.4 have cudaGetDriverEntryPoint (deprecated since, still in CUDA 13:
 * -DGPU_LEGACY_DRIVER_ENTRY_POINT takes that path on a newer CUDA, to test it). */
static inline cudaError_t gpu_driver_symbol(const char *name, void **fn)
{
    enum cudaDriverEntryPointQueryResult q;
    cudaError_t e;
#  if CUDART_VERSION >= 12050 && !defined(GPU_LEGACY_DRIVER_ENTRY_POINT)
    e = cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q);
#  else
    e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &q);
#  endif
    if (e != cudaSuccess)
        return e;
    return q == cudaDriverEntryPointSuccess && *fn ? cudaSuccess : cudaErrorNotSupported;
}

/* hipMemGetAddressRange: the CUDA *runtime* has no equivalent
 * (cudaPointerGetAttributes gives no base/size): the driver's
 * cuMemGetAddressRange. */
typedef CUresult (*gpu_cuMemGetAddressRange_fn)(CUdeviceptr *, size_t *, CUdeviceptr);

static inline cudaError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize,
                                                hipDeviceptr_t dptr)
{
    static gpu_cuMemGetAddressRange_fn fn = NULL;
    if (!fn) {
        void *p = NULL;
        cudaError_t e = gpu_driver_symbol("cuMemGetAddressRange", &p);
        if (e != cudaSuccess)
            return e;
        memcpy(&fn, &p, sizeof fn); /* void* -> function pointer, pedantic-clean */
    }
    CUdeviceptr base = 0;
    size_t size = 0;
    CUresult r = fn(&base, &size, (CUdeviceptr)(uintptr_t)dptr);
    if (r != CUDA_SUCCESS)
        return cudaErrorInvalidValue; /* CUresult != cudaError_t */
    if (pbase)
        *pbase = (void *)(uintptr_t)base;
    if (psize)
        *psize = size;
    return cudaSuccess;
}

/* Virtual memory management (hipMemCreate and friends, what PyTorch's
 * expandable segments use) is the driver's on CUDA: the same calls and the
 * same structures (type, location.type, location.id; location, flags), reached
 * through gpu_driver_symbol. The library never makes such memory; its tests
 * hand it over to check that it is refused. */
typedef CUmemGenericAllocationHandle hipMemGenericAllocationHandle_t;
typedef CUmemAllocationProp hipMemAllocationProp;
typedef CUmemAccessDesc hipMemAccessDesc;
#  define hipMemAllocationTypePinned CU_MEM_ALLOCATION_TYPE_PINNED
#  define hipMemLocationTypeDevice CU_MEM_LOCATION_TYPE_DEVICE
#  define hipMemAccessFlagsProtReadWrite CU_MEM_ACCESS_FLAGS_PROT_READWRITE
#  define hipMemAllocationGranularityMinimum CU_MEM_ALLOC_GRANULARITY_MINIMUM

/* Loads the driver function `name` into *fn, a function pointer of `bytes`
 * (the size of a void *: checked below). */
typedef char
    gpu_function_pointers_are_pointer_sized[sizeof(void (*)(void)) == sizeof(void *) ? 1 : -1];

static inline cudaError_t gpu_driver_load(const char *name, void *fn, size_t bytes)
{
    void *p = NULL;
    cudaError_t e = gpu_driver_symbol(name, &p);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return e;
    }
    memcpy(fn, &p, bytes); /* void* -> function pointer, pedantic-clean */
    return cudaSuccess;
}

/* The driver's codes these calls return share their numbers with the
 * runtime's (1 invalid value, 2 out of memory, 801 not supported, ...). */
static inline cudaError_t gpu_driver_status(CUresult r)
{
    return (cudaError_t)r;
}

static inline cudaError_t hipMemGetAllocationGranularity(size_t *granularity,
                                                         const CUmemAllocationProp *prop,
                                                         CUmemAllocationGranularity_flags option)
{
    CUresult (*fn)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags) = NULL;
    cudaError_t e = gpu_driver_load("cuMemGetAllocationGranularity", &fn, sizeof fn);
    return e != cudaSuccess ? e : gpu_driver_status(fn(granularity, prop, option));
}

static inline cudaError_t hipMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                       const CUmemAllocationProp *prop, unsigned long long flags)
{
    CUresult (*fn)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                   unsigned long long) = NULL;
    cudaError_t e = gpu_driver_load("cuMemCreate", &fn, sizeof fn);
    return e != cudaSuccess ? e : gpu_driver_status(fn(handle, size, prop, flags));
}

static inline cudaError_t hipMemAddressReserve(void **ptr, size_t size, size_t alignment,
                                               void *addr, unsigned long long flags)
{
    CUresult (*fn)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long) = NULL;
    CUdeviceptr base = 0;
    cudaError_t e = gpu_driver_load("cuMemAddressReserve", &fn, sizeof fn);
    if (e == cudaSuccess)
        e = gpu_driver_status(fn(&base, size, alignment, (CUdeviceptr)(uintptr_t)addr, flags));
    if (e == cudaSuccess)
        *ptr = (void *)(uintptr_t)base;
    return e;
}

static inline cudaError_t hipMemMap(void *ptr, size_t size, size_t offset,
                                    CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    CUresult (*fn)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) =
        NULL;
    cudaError_t e = gpu_driver_load("cuMemMap", &fn, sizeof fn);
    return e != cudaSuccess
               ? e
               : gpu_driver_status(fn((CUdeviceptr)(uintptr_t)ptr, size, offset, handle, flags));
}

static inline cudaError_t hipMemSetAccess(void *ptr, size_t size, const CUmemAccessDesc *desc,
                                          size_t count)
{
    CUresult (*fn)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t) = NULL;
    cudaError_t e = gpu_driver_load("cuMemSetAccess", &fn, sizeof fn);
    return e != cudaSuccess ? e
                            : gpu_driver_status(fn((CUdeviceptr)(uintptr_t)ptr, size, desc, count));
}

static inline cudaError_t hipMemUnmap(void *ptr, size_t size)
{
    CUresult (*fn)(CUdeviceptr, size_t) = NULL;
    cudaError_t e = gpu_driver_load("cuMemUnmap", &fn, sizeof fn);
    return e != cudaSuccess ? e : gpu_driver_status(fn((CUdeviceptr)(uintptr_t)ptr, size));
}

static inline cudaError_t hipMemRelease(CUmemGenericAllocationHandle handle)
{
    CUresult (*fn)(CUmemGenericAllocationHandle) = NULL;
    cudaError_t e = gpu_driver_load("cuMemRelease", &fn, sizeof fn);
    return e != cudaSuccess ? e : gpu_driver_status(fn(handle));
}

static inline cudaError_t hipMemAddressFree(void *ptr, size_t size)
{
    CUresult (*fn)(CUdeviceptr, size_t) = NULL;
    cudaError_t e = gpu_driver_load("cuMemAddressFree", &fn, sizeof fn);
    return e != cudaSuccess ? e : gpu_driver_status(fn((CUdeviceptr)(uintptr_t)ptr, size));
}

/* What a pointer is, before it is handed to cudaIpcGetMemHandle (as the AMD
 * branch above): kind, device, legacy-IPC capable (the driver's
 * CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE), pool memory. */
#  define GPU_MEMORY_UNREGISTERED 0
#  define GPU_MEMORY_HOST 1
#  define GPU_MEMORY_DEVICE 2
#  define GPU_MEMORY_MANAGED 3
typedef CUresult (*gpu_cuPointerGetAttribute_fn)(void *, CUpointer_attribute, CUdeviceptr);

static inline void gpu_memory_query(const void *p, int *kind, int *device, int *legacy_ipc,
                                    int *pool)
{
    static gpu_cuPointerGetAttribute_fn fn = NULL;
    struct cudaPointerAttributes a;
    int capable = 0;
    CUmemoryPool handle = NULL;

    *kind = GPU_MEMORY_UNREGISTERED, *device = -1, *legacy_ipc = -1, *pool = 0;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    *kind = a.type == cudaMemoryTypeManaged  ? GPU_MEMORY_MANAGED
            : a.type == cudaMemoryTypeDevice ? GPU_MEMORY_DEVICE
            : a.type == cudaMemoryTypeHost   ? GPU_MEMORY_HOST
                                             : GPU_MEMORY_UNREGISTERED;
    *device = a.device;
    if (!fn) {
        void *sym = NULL;
        if (gpu_driver_symbol("cuPointerGetAttribute", &sym) != cudaSuccess) {
            (void)cudaGetLastError();
            return;
        }
        memcpy(&fn, &sym, sizeof fn);
    }
    if (fn(&capable, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, (CUdeviceptr)(uintptr_t)p) ==
        CUDA_SUCCESS)
        *legacy_ipc = capable != 0;
    if (fn(&handle, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS)
        *pool = handle != NULL;
}
#endif /* GPU_BACKEND_CUDA */

/* IPC handles are exchanged as raw bytes over MPI: 64 bytes on both vendors. */
typedef char gpu_runtime_ipc_handle_is_64_bytes[sizeof(hipIpcMemHandle_t) == 64 ? 1 : -1];

#endif /* GPU_RUNTIME_H */
