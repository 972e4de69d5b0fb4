/* memory_kinds.c - shardtab_create refuses, with a message that names the
 * memory and what to use instead, every pointer legacy GPU IPC cannot export:
 * stream-ordered pool memory (hipMallocAsync, CUDA.jl's default), virtual
 * memory (hipMemCreate / cuMemCreate, PyTorch's expandable segments), managed
 * memory, pinned host memory, plain host memory, memory of another device than
 * the bound one; and a shard off the asked alignment. hipMalloc memory passes.
 *
 * USAGE  mpiexec -n 1 ./memory_kinds     (GPU builds; exits 77 without a GPU)
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_runtime.h"
#include "shardtab.h"

static int failures;

/* Virtual memory: physical memory made on one device, mapped read-write at an
 * address range reserved for it (on CUDA the driver's calls, mapped by
 * gpu_runtime.h). Returns hipSuccess and at least `bytes`, or the first
 * failing call's error, named in *call. */
typedef struct vmm {
    void *ptr;
    size_t bytes;
    hipMemGenericAllocationHandle_t handle;
    int created;
} vmm_t;

static hipError_t vmm_alloc(int device, size_t bytes, vmm_t *v, const char **call)
{
    hipMemAllocationProp prop;
    hipMemAccessDesc desc;
    size_t granularity = 0;
    hipError_t e;

    memset(v, 0, sizeof *v);
    memset(&prop, 0, sizeof prop);
    memset(&desc, 0, sizeof desc);
    prop.type = hipMemAllocationTypePinned;
    prop.location.type = hipMemLocationTypeDevice;
    prop.location.id = device;
    desc.location = prop.location;
    desc.flags = hipMemAccessFlagsProtReadWrite;
    *call = "hipMemGetAllocationGranularity";
    if ((e = hipMemGetAllocationGranularity(&granularity, &prop,
                                            hipMemAllocationGranularityMinimum)) != hipSuccess)
        return e;
    if (granularity == 0)
        return hipErrorInvalidValue;
    v->bytes = (bytes + granularity - 1) / granularity * granularity;
    *call = "hipMemCreate";
    if ((e = hipMemCreate(&v->handle, v->bytes, &prop, 0)) != hipSuccess)
        return e;
    v->created = 1;
    *call = "hipMemAddressReserve";
    if ((e = hipMemAddressReserve(&v->ptr, v->bytes, 0, NULL, 0)) != hipSuccess)
        return e;
    *call = "hipMemMap";
    if ((e = hipMemMap(v->ptr, v->bytes, 0, v->handle, 0)) != hipSuccess)
        return e;
    *call = "hipMemSetAccess";
    return hipMemSetAccess(v->ptr, v->bytes, &desc, 1);
}

/* Undoes whatever vmm_alloc got to. */
static void vmm_free(vmm_t *v)
{
    if (v->ptr) {
        (void)hipMemUnmap(v->ptr, v->bytes);
        (void)hipMemAddressFree(v->ptr, v->bytes);
    }
    if (v->created)
        (void)hipMemRelease(v->handle);
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
    const char *vmm_call = "";
    hipError_t vmm_err;

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
    if (hipStreamCreate(&stream) != hipSuccess ||
        hipMallocAsync(&pool, 1 << 20, stream) != hipSuccess ||
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
    if ((vmm_err = vmm_alloc(bound, 1 << 20, &vmm, &vmm_call)) == hipSuccess) {
        expect_refused(vmm.ptr, 4096, 0, "virtual memory (hipMemCreate / cuMemCreate)",
                       "virtual memory");
    } else if (vmm_err == hipErrorNotSupported) {
        printf("skip: virtual memory: %s says '%s' here\n", vmm_call, hipGetErrorString(vmm_err));
    } else {
        printf("FAIL: could not make virtual memory to test: %s failed: %s\n", vmm_call,
               hipGetErrorString(vmm_err));
        failures++;
    }
    vmm_free(&vmm);
    expect_refused(managed, 4096, 0, "managed memory", "managed memory");
    expect_refused(pinned, 4096, 0, "pinned host memory", "pinned host memory");
    expect_refused(host, 4096, 0, "host memory from malloc", "not memory the GPU runtime knows");
    expect_refused((char *)device + 4, 4096, 8, "a shard 4 bytes off 8",
                   "is not aligned to 8 bytes");
    if (count > 1) {
        (void)hipSetDevice(bound == 0 ? 1 : 0);
        if (hipMalloc(&other, 1 << 20) == hipSuccess) {
            (void)hipSetDevice(bound);
            expect_refused(other, 4096, 0, "memory of another device",
                           "but this rank is bound to device");
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
