/* scal_variants.c - every kernel variant, and every shape of the chunk kernel,
 * scales exactly the n elements its table entry points at, on one GPU: shard
 * pointers 16-byte aligned and 8 bytes off (the head the vector kernels peel),
 * n around every chunk boundary, the chunk grid capped low enough to stride
 * over its chunks; each element compared bit for bit with the CPU's product,
 * and guard elements on both sides untouched.
 *
 * USAGE  ./scal_variants     (GPU builds; exits 77 without a GPU)
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_runtime.h"
#include "scal.h"
#include "scal_op.h"

#define GUARD 4      /* doubles on each side of the shard */
#define ALPHA (-1.5) /* exact products, and a sign change to see */
#define MAX_N 1000003

static int failures, cases;

/* One launch of the current variant on n elements at offset (0 or 1 double
 * from a 256-byte aligned base); returns 0 when every element matches. */
static int check(const char *label, double *dev, double **table_dev, double *host, double *want,
                 uint64_t n, int offset)
{
    size_t total = (size_t)n + 2 * GUARD + 1;
    double *shard = dev + GUARD + offset;
    int rc;

    for (size_t i = 0; i < total; i++)
        host[i] = scal_pattern(7, i); /* never 0 or 1 */
    for (size_t i = 0; i < total; i++)
        want[i] = i >= (size_t)(GUARD + offset) && i < (size_t)(GUARD + offset) + n
                      ? scal_value(host[i], ALPHA)
                      : host[i];
    if (hipMemcpy(dev, host, total * sizeof(double), hipMemcpyHostToDevice) != hipSuccess ||
        hipMemcpy(table_dev, &shard, sizeof shard, hipMemcpyHostToDevice) != hipSuccess) {
        printf("FAIL: %s: copy to the GPU failed\n", label);
        return 1;
    }
    rc = scal_shard(table_dev, 0, n, ALPHA);
    if (rc == 0)
        rc = (int)hipDeviceSynchronize();
    if (rc != 0) {
        printf("FAIL: %s n %llu offset %d: %s\n", label, (unsigned long long)n, offset,
               scal_error_string(rc));
        return 1;
    }
    if (hipMemcpy(host, dev, total * sizeof(double), hipMemcpyDeviceToHost) != hipSuccess) {
        printf("FAIL: %s: copy from the GPU failed\n", label);
        return 1;
    }
    cases++;
    for (size_t i = 0; i < total; i++) {
        if (memcmp(&host[i], &want[i], sizeof(double)) != 0) {
            printf("FAIL: %s n %llu offset %d: element %lld is %.17g, want %.17g (%s)\n", label,
                   (unsigned long long)n, offset, (long long)i - GUARD - offset, host[i], want[i],
                   i < (size_t)(GUARD + offset) || i >= (size_t)(GUARD + offset) + n
                       ? "a guard outside the shard"
                       : "inside the shard");
            return 1;
        }
    }
    return 0;
}

/* Every n of interest for a kernel that moves `per_block` pairs per block. */
static void check_sizes(const char *label, uint64_t per_block, double *dev, double **table_dev,
                        double *host, double *want)
{
    uint64_t chunk = 2 * per_block; /* doubles per block */
    uint64_t sizes[] = {1,    2, 3, 4, 5, 7, chunk - 1, chunk, chunk + 1, chunk + 2, 3 * chunk + 3,
                        MAX_N};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int offset = 0; offset <= 1; offset++)
            if (sizes[k] <= MAX_N)
                failures += check(label, dev, table_dev, host, want, sizes[k], offset);
}

int main(void)
{
    double *dev = NULL, **table_dev = NULL;
    double *host = malloc((MAX_N + 2 * GUARD + 1) * sizeof(double));
    double *want = malloc((MAX_N + 2 * GUARD + 1) * sizeof(double));
    int count = 0, block, unroll;
    char label[64];

    if (hipGetDeviceCount(&count) != hipSuccess || count < 1) {
        printf("skipped: no GPU\n");
        return 77;
    }
    if (host == NULL || want == NULL || hipSetDevice(0) != hipSuccess ||
        hipMalloc((void **)&dev, (MAX_N + 2 * GUARD + 1) * sizeof(double)) != hipSuccess ||
        hipMalloc((void **)&table_dev, sizeof(double *)) != hipSuccess) {
        printf("FAIL: set-up (host or GPU memory)\n");
        return 1;
    }
    for (int v = 0; v < SCAL_VARIANT_COUNT; v++) {
        scal_set_variant(v);
        if (v != SCAL_VARIANT_CHUNK) {
            check_sizes(scal_variant_name(v), 4 * 256, dev, table_dev, host, want);
            continue;
        }
        for (int s = 0; scal_chunk_shape(s, &block, &unroll) == 0; s++) {
            uint64_t per_block = (uint64_t)block * (uint64_t)unroll;
            /* the full grid, then one of three blocks: it must stride over the chunks */
            for (int strided = 0; strided <= 1; strided++) {
                scal_set_chunk_shape(s, strided ? 3ull * (uint64_t)block : 0);
                snprintf(label, sizeof label, "%s%s", scal_kernel_label(v),
                         strided ? ", grid of 3 blocks" : "");
                check_sizes(label, per_block, dev, table_dev, host, want);
            }
        }
        scal_set_chunk_shape(-1, 0);
    }
    (void)hipFree(dev);
    (void)hipFree(table_dev);
    free(host);
    free(want);
    printf("%s: %d case(s), %d failed\n", failures ? "FAIL" : "PASS", cases, failures);
    return failures ? 1 : 0;
}
