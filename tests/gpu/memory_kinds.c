/* memory_kinds.c - shardtab_create refuses, with a message that names the
 * memory and what to use instead, every pointer legacy GPU IPC cannot export:
 * stream-ordered pool memory (hipMallocAsync, CUDA.jl's default), managed
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
    int count = 0;

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
    expect_refused(managed, 4096, 0, "managed memory", "managed memory");
    expect_refused(pinned, 4096, 0, "pinned host memory", "pinned host memory");
    expect_refused(host, 4096, 0, "host memory from malloc", "not memory the GPU runtime knows");
    expect_refused((char *)device + 4, 4096, 8, "a shard 4 bytes off 8", "is not aligned to 8 bytes");
    if (count > 1) {
        int bound = 0;
        (void)hipGetDevice(&bound);
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
