/* scal.h - the launchers multi_scal calls: the only door from C host code into
 * the kernels, with one implementation per backend (scal.hip for HIP and CUDA,
 * scal_host.c for CPUs) and what they share written once (scal.c, plain C:
 * the variants' names). Host code never sees a <<< >>> launch. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SCAL_H
#define SCAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A contiguous stretch of a node's index space, possibly crossing shards and
 * wrapping past the end. All pointers are device memory of the calling rank. */
typedef struct scal_range {
    double *const *table;    /* [nshards] the node's table */
    const uint64_t *offsets; /* [nshards + 1] prefix offsets of the shards */
    int nshards;
    uint64_t total; /* offsets[nshards] */
    uint64_t begin; /* first node index, < total */
    uint64_t count; /* elements, <= total */
} scal_range_t;

/* x = table[shard]; x[i] *= alpha for i in [0, n). Returns 0 or a runtime error
 * code; launches are asynchronous on GPUs. */
int scal_shard(double *const *table, int shard, uint64_t n, double alpha);
/* Every element of the range, each located in its shard through the table. */
int scal_range(const scal_range_t *range, double alpha);
/* table[shard][k] = scal_pattern(seed, k) for k in [0, n): a write through the
 * table, for the write-and-verify peer check. */
int scal_fill(double *const *table, int shard, uint64_t n, uint64_t seed);
/* The runtime's text for a code returned above. */
const char *scal_error_string(int code);

/* Kernel variants, kept so that the benchmark can show why the default won
 * (docs/performance.md). Every variant computes the same values. */
typedef enum scal_variant {
    SCAL_VARIANT_NAIVE = 0, /* one double per thread per grid-stride step */
    SCAL_VARIANT_VEC2,      /* 16-byte loads, one per step */
    SCAL_VARIANT_VEC2X4,    /* 16-byte loads, four in flight per thread */
    SCAL_VARIANT_VEC2X8,    /* 16-byte loads, eight in flight per thread */
    SCAL_VARIANT_VEC2X4S,   /* vec2x4 with streaming (evict-first) loads and stores */
    SCAL_VARIANT_CHUNK,     /* non-persistent grid: one block per contiguous chunk, 16-byte
                               loads, all of a thread's loads in flight before its stores */
    SCAL_VARIANT_COUNT
} scal_variant_t;
#define SCAL_VARIANT_DEFAULT SCAL_VARIANT_CHUNK
/* The names, in scal_variant_t order: --variant's words and the reports' labels. */
extern const char *const scal_variant_names[SCAL_VARIANT_COUNT];

/* Selects the variant for the following launches; returns its name or NULL.
 * Like the tuning below, a setting of the process: make it before launching. */
const char *scal_set_variant(int variant);
/* The variant's name, or NULL past the last. */
const char *scal_variant_name(int variant);
/* What the reports call the kernel: the variant's name, with the chunk
 * kernel's shape on GPUs ("chunk 256x1"). */
const char *scal_kernel_label(int variant);

/* The chunk kernel's compiled shapes, threads per block x 16-byte pairs per
 * thread, the default first (chosen by measurement, docs/performance.md):
 * X(block, unroll) for each, in index order. The GPU kernels instantiate
 * them, multi_scal's options check SCAL_CHUNK_SHAPE against them. */
#define SCAL_CHUNK_SHAPES(X)                                                                       \
  X(256, 1) X(64, 2) X(64, 4) X(128, 1) X(128, 2) X(128, 4) X(256, 2) X(256, 4) X(512, 2)
#define SCAL_CHUNK_SHAPE_ONE(block, unroll) +1
#define SCAL_CHUNK_SHAPE_COUNT (0 SCAL_CHUNK_SHAPES(SCAL_CHUNK_SHAPE_ONE))

/* The tuning of the following launches, as multi_scal's options checked it
 * (SCAL_BLOCKS_PER_SM, SCAL_CHUNK_SHAPE): the persistent variants' resident
 * blocks a multiprocessor, 1 to SCAL_MAX_BLOCKS_PER_SM (0: the kernels' own),
 * and the chunk kernel's shape, an index into SCAL_CHUNK_SHAPES (0: the
 * default). The host backend's one loop takes neither. Returns 0, or -1 for a
 * value out of range (nothing changed). */
#define SCAL_MAX_BLOCKS_PER_SM 64
int scal_set_tuning(int blocks_per_sm, int chunk_shape);

/* The chunk kernel's compiled shapes: index 0 (the default) and up; returns
 * -1 past the last (at once on the host backend, which has none). */
int scal_chunk_shape(int index, int *block, int *unroll);
/* Selects shape `index` for the chunk launches that follow (-1: the tuning's,
 * scal_set_tuning), and the most threads a chunk grid may have before it
 * strides over the chunks (0: 2^31); tests lower it to run the striding path.
 * Returns 0, or -1 for an index out of range. */
int scal_set_chunk_shape(int index, uint64_t grid_threads);

/* ---- services the benchmark needs, on the same stream as the kernels ---- */

/* Device-to-device copy by the copy engines; either side may be a peer's
 * shard opened by IPC. */
int scal_copy(void *dst, const void *src, uint64_t bytes);
/* The same copy done by a kernel's loads and stores (16-byte, four in flight):
 * separates what SM-issued remote reads and writes cost from the DMA engines. */
int scal_copy_kernel(double *dst, const double *src, uint64_t n);

typedef struct scal_timer scal_timer_t;
int scal_timer_create(scal_timer_t **timer);
int scal_timer_start(scal_timer_t *timer);
/* Waits for the work queued since start; *ms is its device time. */
int scal_timer_stop(scal_timer_t *timer, double *ms);
void scal_timer_destroy(scal_timer_t *timer);

#ifdef __cplusplus
}
#endif

#endif /* SCAL_H */
