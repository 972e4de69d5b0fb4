/* scal.h - the launchers multi_scal calls: the only door from C host code into
 * the kernels, with one implementation per backend (scal.hip for HIP and CUDA,
 * scal_host.c for CPUs). Host code never sees a <<< >>> launch. */
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
    uint64_t total;          /* offsets[nshards] */
    uint64_t begin;          /* first node index, < total */
    uint64_t count;          /* elements, <= total */
} scal_range_t;

/* x = table[shard]; x[i] *= alpha for i in [0, n). Returns 0 or a runtime error
 * code; launches are asynchronous on GPUs. */
int scal_shard(double *const *table, int shard, uint64_t n, double alpha);
/* Every element of the range, each located in its shard through the table. */
int scal_range(const scal_range_t *range, double alpha);
/* The runtime's text for a code returned above. */
const char *scal_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif /* SCAL_H */
