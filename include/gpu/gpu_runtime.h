/* gpu_runtime.h - the HIP API, spelled once, for AMD (HIP itself) and for
 * NVIDIA (each HIP name this project uses, mapped onto the CUDA runtime).
 * tests/check_hip_names.sh fails when a source uses a HIP name not mapped here.
 *
 *  AMD  (default):          C host  -> <hip/hip_runtime_api.h>  (needs -D__HIP_PLATFORM_AMD__)
 *                           kernels -> <hip/hip_runtime.h>      (clang -x hip / hipcc)
 *  NVIDIA (-DGPU_BACKEND_CUDA, or any nvcc compile):
 *                           C host  -> <cuda_runtime_api.h>     + HIP->CUDA name map below
 *                           kernels -> <cuda_runtime.h>         + same map
 *  HIP's own nvidia_detail headers are NOT used (they do not compile against CUDA 13).
 */
#ifndef GPU_RUNTIME_H
#define GPU_RUNTIME_H

#if defined(__CUDACC__) && !defined(GPU_BACKEND_CUDA)
#define GPU_BACKEND_CUDA 1
#endif

#if !defined(GPU_BACKEND_CUDA)
/* ------------------------------------------------------------------ AMD */
#  if defined(__HIP__) || defined(__HIPCC__)
#    include <hip/hip_runtime.h>
#  else
#    ifndef __HIP_PLATFORM_AMD__
#      define __HIP_PLATFORM_AMD__
#    endif
#    include <hip/hip_runtime_api.h>
#  endif
#  include <string.h>

/* Ticks per second of wall_clock64() (s_memrealtime) in kernels: the device
 * attribute where the runtime has it (ROCm >= 5.4), else by architecture:
 * 25 MHz on gfx9 before gfx940 (MI100, MI200), 100 MHz on gfx940+ (MI300)
 * and gfx10+ (as LLVM libc's GPU clock and RCCL assume). */
static inline double gpu_wall_clock_hz(int device, const hipDeviceProp_t *props)
{
#  if HIP_VERSION >= 50400000
    int khz = 0;
    if (hipDeviceGetAttribute(&khz, hipDeviceAttributeWallClockRate, device) == hipSuccess && khz > 0)
        return khz * 1e3;
    (void)hipGetLastError();
#  endif
    (void)device;
    if (strncmp(props->gcnArchName, "gfx9", 4) == 0 && strncmp(props->gcnArchName, "gfx94", 5) != 0)
        return 25e6;
    return 1e8;
}

#else
/* --------------------------------------------------------------- NVIDIA */
#  ifdef __CUDACC__
#    include <cuda_runtime.h>
#  else
#    include <cuda_runtime_api.h>
#  endif
#  include <cuda.h>   /* types only (CUresult, CUdeviceptr); libcuda is NOT linked */
#  include <stddef.h>
#  include <stdint.h>
#  include <string.h>

typedef cudaError_t            hipError_t;
typedef cudaStream_t           hipStream_t;
typedef cudaEvent_t            hipEvent_t;
typedef cudaIpcMemHandle_t     hipIpcMemHandle_t;   /* both 64 bytes */
typedef struct cudaDeviceProp  hipDeviceProp_t;
typedef enum cudaDeviceAttr    hipDeviceAttribute_t;
typedef void                  *hipDeviceptr_t;      /* HIP: void*, CUDA driver: integer */

/* error codes (numeric values are identical: 0, 1, 2, 35, 100, 704, ...) */
#define hipSuccess                        cudaSuccess
#define hipErrorInvalidValue              cudaErrorInvalidValue
#define hipErrorOutOfMemory               cudaErrorMemoryAllocation
#define hipErrorInsufficientDriver        cudaErrorInsufficientDriver
#define hipErrorNoDevice                  cudaErrorNoDevice
#define hipErrorPeerAccessAlreadyEnabled  cudaErrorPeerAccessAlreadyEnabled
#define hipErrorNotSupported              cudaErrorNotSupported

/* flags / enums (values differ between HIP and CUDA: always use the names) */
#define hipIpcMemLazyEnablePeerAccess     cudaIpcMemLazyEnablePeerAccess /* HIP 0, CUDA 1 */
#define hipHostMallocDefault              cudaHostAllocDefault
#define hipHostMallocPortable             cudaHostAllocPortable          /* 1 */
#define hipHostMallocMapped               cudaHostAllocMapped            /* 2 */
#define hipMemcpyHostToHost               cudaMemcpyHostToHost
#define hipMemcpyHostToDevice             cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost             cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice           cudaMemcpyDeviceToDevice
#define hipMemcpyDefault                  cudaMemcpyDefault
#define hipDeviceAttributeMultiprocessorCount      cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeMaxThreadsPerBlock       cudaDevAttrMaxThreadsPerBlock
#define hipDeviceAttributeWarpSize                 cudaDevAttrWarpSize
#define hipDeviceAttributeComputeCapabilityMajor   cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor   cudaDevAttrComputeCapabilityMinor
#define hipDeviceAttributePciBusId                 cudaDevAttrPciBusId
#define hipDeviceAttributePciDeviceId              cudaDevAttrPciDeviceId
#define hipDeviceAttributeCanMapHostMemory         cudaDevAttrCanMapHostMemory

/* functions: identical signatures -> plain renames */
#define hipGetDeviceCount          cudaGetDeviceCount
#define hipSetDevice               cudaSetDevice
#define hipGetDevice               cudaGetDevice
#define hipGetDeviceProperties     cudaGetDeviceProperties
#define hipDeviceGetAttribute      cudaDeviceGetAttribute
#define hipDeviceGetPCIBusId       cudaDeviceGetPCIBusId
#define hipDeviceCanAccessPeer     cudaDeviceCanAccessPeer
#define hipDeviceGetByPCIBusId     cudaDeviceGetByPCIBusId
#define hipDeviceDisablePeerAccess cudaDeviceDisablePeerAccess
#define hipMemcpyPeer              cudaMemcpyPeer
#define hipMemcpyPeerAsync         cudaMemcpyPeerAsync
#define hipStreamCreateWithFlags   cudaStreamCreateWithFlags
#define hipStreamNonBlocking       cudaStreamNonBlocking
#define hipErrorPeerAccessNotEnabled cudaErrorPeerAccessNotEnabled
#define hipDriverGetVersion        cudaDriverGetVersion
#define hipRuntimeGetVersion       cudaRuntimeGetVersion
#define hipDeviceEnablePeerAccess  cudaDeviceEnablePeerAccess
#define hipDeviceSynchronize       cudaDeviceSynchronize
#define hipGetErrorString          cudaGetErrorString
#define hipGetErrorName            cudaGetErrorName
#define hipGetLastError            cudaGetLastError
#define hipPeekAtLastError         cudaPeekAtLastError
#define hipMalloc                  cudaMalloc
#define hipFree                    cudaFree
#define hipMemcpy                  cudaMemcpy
#define hipMemcpyAsync             cudaMemcpyAsync
#define hipMemset                  cudaMemset
#define hipMemsetAsync             cudaMemsetAsync
#define hipIpcGetMemHandle         cudaIpcGetMemHandle
#define hipIpcOpenMemHandle        cudaIpcOpenMemHandle
#define hipIpcCloseMemHandle       cudaIpcCloseMemHandle
#define hipStreamCreate            cudaStreamCreate
#define hipStreamDestroy           cudaStreamDestroy
#define hipStreamSynchronize       cudaStreamSynchronize
#define hipEventCreate             cudaEventCreate
#define hipEventDestroy            cudaEventDestroy
#define hipEventRecord             cudaEventRecord
#define hipEventSynchronize        cudaEventSynchronize
#define hipEventElapsedTime        cudaEventElapsedTime
/* graphs: a captured stream replayed with one launch */
typedef cudaGraph_t            hipGraph_t;
typedef cudaGraphExec_t        hipGraphExec_t;
#define hipStreamBeginCapture            cudaStreamBeginCapture
#define hipStreamEndCapture              cudaStreamEndCapture
#define hipStreamCaptureModeThreadLocal  cudaStreamCaptureModeThreadLocal
#define hipGraphInstantiateWithFlags     cudaGraphInstantiateWithFlags
#define hipGraphLaunch                   cudaGraphLaunch
#define hipGraphExecDestroy              cudaGraphExecDestroy
#define hipGraphDestroy                  cudaGraphDestroy
#define hipEventCreateWithFlags          cudaEventCreateWithFlags
#define hipEventDisableTiming            cudaEventDisableTiming
#define hipStreamWaitEvent               cudaStreamWaitEvent
#define hipPointerGetAttributes          cudaPointerGetAttributes

/* Allocation flags of hipExtMallocWithFlags. CUDA device memory already takes
 * system-scope loads, stores and atomics from peers while kernels run (over
 * NVLink, with native peer atomics): no flag is needed, plain cudaMalloc is it. */
#define hipDeviceMallocDefault      0x0
#define hipDeviceMallocFinegrained  0x1
#define hipDeviceMallocUncached     0x3
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
#define hipHostMalloc              cudaHostAlloc      /* (void**, size_t, unsigned) */
#define hipHostFree                cudaFreeHost
#define hipHostGetDevicePointer    cudaHostGetDevicePointer

/* hipMemGetAddressRange: the CUDA *runtime* has no equivalent
 * (cudaPointerGetAttributes gives no base/size).  Use the driver's
 * cuMemGetAddressRange, fetched through the runtime with
 * cudaGetDriverEntryPointByVersion (CUDA >= 12.5), so the program does not
 * link libcuda.so.1 and still starts (and reports "no GPU") on driverless hosts. */
typedef CUresult (*gpu_cuMemGetAddressRange_fn)(CUdeviceptr *, size_t *, CUdeviceptr);

static inline cudaError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize,
                                                hipDeviceptr_t dptr)
{
    static gpu_cuMemGetAddressRange_fn fn = NULL;
    if (!fn) {
        void *p = NULL;
        enum cudaDriverEntryPointQueryResult q;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &p,
                                                         12000, cudaEnableDefault, &q);
        if (e != cudaSuccess) return e;
        if (q != cudaDriverEntryPointSuccess || !p) return cudaErrorNotSupported;
        memcpy(&fn, &p, sizeof fn);   /* void* -> function pointer, pedantic-clean */
    }
    CUdeviceptr base = 0;
    size_t size = 0;
    CUresult r = fn(&base, &size, (CUdeviceptr)(uintptr_t)dptr);
    if (r != CUDA_SUCCESS) return cudaErrorInvalidValue;  /* CUresult != cudaError_t */
    if (pbase) *pbase = (void *)(uintptr_t)base;
    if (psize) *psize = size;
    return cudaSuccess;
}
#endif /* GPU_BACKEND_CUDA */

/* IPC handles are exchanged as raw bytes over MPI: 64 bytes on both vendors. */
typedef char gpu_runtime_ipc_handle_is_64_bytes[sizeof(hipIpcMemHandle_t) == 64 ? 1 : -1];

#endif /* GPU_RUNTIME_H */
