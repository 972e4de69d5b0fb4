/* scal_host.c - the host backend's "kernels": the same per-element bodies as
 * the GPU kernels (scal_op.h), run by a loop on the CPU. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scal.h"
#include "scal_op.h"

int scal_shard(double *const *table, int shard, uint64_t n, double alpha)
{
    double *x = table[shard];
    for (uint64_t i = 0; i < n; i++)
        scal_element(x, i, alpha);
    return 0;
}

int scal_range(const scal_range_t *r, double alpha)
{
    for (uint64_t k = 0; k < r->count; k++) {
        uint64_t g = r->begin + k;
        if (g >= r->total)
            g -= r->total;
        int s = scal_locate(r->offsets, r->nshards, g);
        scal_element(r->table[s], g - r->offsets[s], alpha);
    }
    return 0;
}

int scal_fill(double *const *table, int shard, uint64_t n, uint64_t seed)
{
    double *x = table[shard];
    for (uint64_t k = 0; k < n; k++)
        x[k] = scal_pattern(seed, k);
    return 0;
}

const char *scal_error_string(int code)
{
    return code == 0 ? "no error" : code == 1 ? "out of host memory" : "host kernel error";
}

/* ---- variants and benchmark services on the CPU ---------------------------- */

const char *scal_kernel_label(int variant)
{
    return scal_variant_name(variant); /* one CPU loop: no shapes */
}

int scal_chunk_shape(int index, int *block, int *unroll)
{
    (void)index, (void)block, (void)unroll;
    return -1;
}

int scal_set_tuning(int blocks_per_sm, int chunk_shape)
{
    /* one loop on the CPU: no grid, no shapes; the values are checked all the same */
    if (blocks_per_sm < 0 || blocks_per_sm > SCAL_MAX_BLOCKS_PER_SM || chunk_shape < 0 ||
        chunk_shape >= SCAL_CHUNK_SHAPE_COUNT)
        return -1;
    return 0;
}

int scal_set_chunk_shape(int index, uint64_t grid_threads)
{
    (void)grid_threads;
    return index == -1 ? 0 : -1;
}

const char *scal_set_variant(int variant)
{
    /* one loop on the CPU: the compiler vectorizes it whatever the name */
    return scal_variant_name(variant);
}

int scal_copy(void *dst, const void *src, uint64_t bytes)
{
    memcpy(dst, src, (size_t)bytes);
    return 0;
}

int scal_copy_kernel(double *dst, const double *src, uint64_t n)
{
    memcpy(dst, src, (size_t)n * sizeof(double));
    return 0;
}

struct scal_timer {
    struct timespec start;
};

int scal_timer_create(scal_timer_t **timer)
{
    *timer = calloc(1, sizeof **timer);
    return *timer ? 0 : 1;
}

int scal_timer_start(scal_timer_t *timer)
{
    clock_gettime(CLOCK_MONOTONIC, &timer->start);
    return 0;
}

int scal_timer_stop(scal_timer_t *timer, double *ms)
{
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    *ms = (double)(end.tv_sec - timer->start.tv_sec) * 1e3 +
          (double)(end.tv_nsec - timer->start.tv_nsec) / 1e6;
    return 0;
}

void scal_timer_destroy(scal_timer_t *timer)
{
    free(timer);
}
