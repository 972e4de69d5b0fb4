/* memory_kinds.c - shardtab_create refuses, with a message that names the
 * memory and what to use instead, every pointer legacy GPU IPC cannot export:
 * stream-ordered pool memory (hipMallocAsync, CUDA.jl's default), virtual
 * memory (hipMemCreate / cuMemCreate, PyTorch's expandable segments), managed
 * memory, pinned host memory, plain host memory, memory of another device than
 * the bound one; and a shard off the asked alignment. hipMalloc memory passes.
 *
 * USAGE  mpiexec -n 1 ./memory_kinds     (GPU builds; exits 77 without a GPU)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_runtime.h"
#include "shardtab.h"

static int failures;

/* Virtual memory: physical memory made on one device, mapped read-write at an
 * address range reserved for it. HIP has it in the runtime; on CUDA it is the
 * driver's (cuMemCreate and friends), reached as the library does, through
 * the runtime's driver entry points, without linking libcuda. */
typedef struct vmm {
    void *ptr;
    size_t bytes;
#if defined(GPU_BACKEND_CUDA)
    CUmemGenericAllocationHandle handle;
#else
    hipMemGenericAllocationHandle_t handle;
#endif
} vmm_t;

#if defined(GPU_BACKEND_CUDA)
static void *driver(const char *name)
{
    void *fn = NULL;
    return gpu_driver_symbol(name, &fn) == cudaSuccess ? fn : NULL;
}
#endif

/* Returns 0 and a mapped range of at least `bytes`, or -1 (nothing held). */
static int vmm_alloc(int device, size_t bytes, vmm_t *v)
{
    size_t granularity = 0;
    memset(v, 0, sizeof *v);
#if defined(GPU_BACKEND_CUDA)
    CUresult (*granularity_fn)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
    CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
    CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    void *f[5] = {driver("cuMemGetAllocationGranularity"), driver("cuMemCreate"),
                  driver("cuMemAddressReserve"), driver("cuMemMap"), driver("cuMemSetAccess")};
    CUmemAllocationProp prop = {0};
    CUmemAccessDesc desc = {0};
    CUdeviceptr base = 0;

    for (int i = 0; i < 5; i++)
        if (f[i] == NULL)
            return -1;
    memcpy(&granularity_fn, &f[0], sizeof f[0]);
    memcpy(&create, &f[1], sizeof f[1]);
    memcpy(&reserve, &f[2], sizeof f[2]);
    memcpy(&map, &f[3], sizeof f[3]);
    memcpy(&access, &f[4], sizeof f[4]);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    desc.location = prop.location;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (granularity_fn(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS)
        return -1;
    v->bytes = (bytes + granularity - 1) / granularity * granularity;
    if (create(&v->handle, v->bytes, &prop, 0) != CUDA_SUCCESS)
        return -1;
    if (reserve(&base, v->bytes, 0, 0, 0) != CUDA_SUCCESS || map(base, v->bytes, 0, v->handle, 0) != CUDA_SUCCESS ||
        access(base, v->bytes, &desc, 1) != CUDA_SUCCESS)
        return -1; /* a test failure follows; what is held dies with the process */
    v->ptr = (void *)(uintptr_t)base;
#else
    hipMemAllocationProp prop = {0};
    hipMemAccessDesc desc = {0};

    prop.type = hipMemAllocationTypePinned;
    prop.location.type = hipMemLocationTypeDevice;
    prop.location.id = device;
    desc.location = prop.location;
    desc.flags = hipMemAccessFlagsProtReadWrite;
    if (hipMemGetAllocationGranularity(&granularity, &prop, hipMemAllocationGranularityMinimum) != hipSuccess)
        return -1;
    v->bytes = (bytes + granularity - 1) / granularity * granularity;
    if (hipMemCreate(&v->handle, v->bytes, &prop, 0) != hipSuccess ||
        hipMemAddressReserve(&v->ptr, v->bytes, 0, NULL, 0) != hipSuccess ||
        hipMemMap(v->ptr, v->bytes, 0, v->handle, 0) != hipSuccess ||
        hipMemSetAccess(v->ptr, v->bytes, &desc, 1) != hipSuccess)
        return -1;
#endif
    return 0;
}

static void vmm_free(vmm_t *v)
{
    if (v->ptr == NULL)
        return;
#if defined(GPU_BACKEND_CUDA)
    CUresult (*unmap)(CUdeviceptr, size_t);
    CUresult (*release)(CUmemGenericAllocationHandle);
    CUresult (*address_free)(CUdeviceptr, size_t);
    void *f[3] = {driver("cuMemUnmap"), driver("cuMemRelease"), driver("cuMemAddressFree")};
    if (f[0] && f[1] && f[2]) {
        memcpy(&unmap, &f[0], sizeof f[0]);
        memcpy(&release, &f[1], sizeof f[1]);
        memcpy(&address_free, &f[2], sizeof f[2]);
        (void)unmap((CUdeviceptr)(uintptr_t)v->ptr, v->bytes);
        (void)release(v->handle);
        (void)address_free((CUdeviceptr)(uintptr_t)v->ptr, v->bytes);
    }
#else
    (void)hipMemUnmap(v->ptr, v->bytes);
    (void)hipMemRelease(v->handle);
    (void)hipMemAddressFree(v->ptr, v->bytes);
#endif
}

static void expect_refused(void *shard, size_t bytes, size_t alignment, const char *what,
                           const char *fragment)
{
    shardtab_create_params_t params = {0};
    shardtab_t *table = NULL;
    shardtab_status_t s;

    params.alignment = alignment;
    s = shardtab_create_with(MPI_COMM_WORLD, shard, bytes, &params, &table);
    if (s == SHARDTAB_ERR_INVALID_ARG && strstr(shardtab_last_error(), fragment)) {
        printf("ok:   %s is refused: '%s'\n", what, shardtab_last_error());
    } else {
        printf("FAIL: %s: status %d, '%s' (want INVALID_ARG saying '%s')\n", what, (int)s,
               shardtab_last_error(), fragment);
        failures++;
    }
    if (table)
        shardtab_destroy(&table);
}

int main(int argc, char **argv)
{
    shardtab_t *table = NULL;
    hipStream_t stream;
    void *pool = NULL, *managed = NULL, *pinned = NULL, *device = NULL, *other = NULL;
    char *host = malloc(4096);
    int count = 0, bound = 0;
    vmm_t vmm;

    MPI_Init(&argc, &argv);
    if (hipGetDeviceCount(&count) != hipSuccess || count < 1) {
        printf("skipped: no GPU\n");
        MPI_Finalize();
        return 77;
    }
    if (shardtab_init(MPI_COMM_WORLD, NULL) != SHARDTAB_SUCCESS) {
        printf("FAIL: shardtab_init: %s\n", shardtab_last_error());
        MPI_Finalize();
        return 1;
    }
    if (hipStreamCreate(&stream) != hipSuccess || hipMallocAsync(&pool, 1 << 20, stream) != hipSuccess ||
        hipStreamSynchronize(stream) != hipSuccess ||
        hipMallocManaged(&managed, 1 << 20, hipMemAttachGlobal) != hipSuccess ||
        hipHostMalloc(&pinned, 1 << 20, hipHostMallocDefault) != hipSuccess ||
        shardtab_mem_alloc(1 << 20, &device) != SHARDTAB_SUCCESS) {
        printf("FAIL: could not allocate the kinds of memory to test\n");
        MPI_Finalize();
        return 1;
    }
    expect_refused(pool, 4096, 0, "pool memory (hipMallocAsync)", "stream-ordered pool memory");
    (void)hipGetDevice(&bound);
    if (vmm_alloc(bound, 1 << 20, &vmm) == 0) {
        expect_refused(vmm.ptr, 4096, 0, "virtual memory (hipMemCreate / cuMemCreate)", "virtual memory");
        vmm_free(&vmm);
    } else {
        printf("FAIL: could not make virtual memory (hipMemCreate / cuMemCreate) to test\n");
        failures++;
    }
    expect_refused(managed, 4096, 0, "managed memory", "managed memory");
    expect_refused(pinned, 4096, 0, "pinned host memory", "pinned host memory");
    expect_refused(host, 4096, 0, "host memory from malloc", "not memory the GPU runtime knows");
    expect_refused((char *)device + 4, 4096, 8, "a shard 4 bytes off 8", "is not aligned to 8 bytes");
    if (count > 1) {
        (void)hipSetDevice(bound == 0 ? 1 : 0);
        if (hipMalloc(&other, 1 << 20) == hipSuccess) {
            (void)hipSetDevice(bound);
            expect_refused(other, 4096, 0, "memory of another device", "but this rank is bound to device");
        }
        (void)hipSetDevice(bound);
    } else {
        printf("skip: one visible GPU, no other device's memory to hand over\n");
    }
    if (shardtab_create(MPI_COMM_WORLD, (char *)device + 8, 4096, &table) == SHARDTAB_SUCCESS) {
        printf("ok:   hipMalloc memory (shardtab_mem_alloc) is accepted\n");
        shardtab_destroy(&table);
    } else {
        printf("FAIL: hipMalloc memory was refused: %s\n", shardtab_last_error());
        failures++;
    }
    (void)hipFreeAsync(pool, stream);
    (void)hipStreamSynchronize(stream);
    (void)hipFree(managed);
    (void)hipHostFree(pinned);
    if (other)
        (void)hipFree(other);
    shardtab_mem_free(device);
    free(host);
    shardtab_finalize();
    MPI_Finalize();
    printf("%s: %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
