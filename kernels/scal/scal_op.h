/* scal_op.h - the per-element work of multi_scal, written once and compiled
 * for the CPU (host backend) and for GPUs (HIP and CUDA kernels alike). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SCAL_OP_H
#define SCAL_OP_H

#include <stdint.h>

#if defined(__HIPCC__) || defined(__CUDACC__)
#  define SCAL_HD __host__ __device__
#else
#  define SCAL_HD
#endif

/* One value: a plain IEEE multiply, so host and device agree bit for bit. */
static SCAL_HD inline double scal_value(double v, double alpha)
{
    return v * alpha;
}

/* One element in place; the vector kernels apply scal_value lane by lane. */
static SCAL_HD inline void scal_element(double *x, uint64_t i, double alpha)
{
    x[i] = scal_value(x[i], alpha);
}

/* The pattern --check-peers writes through the table: distinct per writer
 * (seed) and element, never 0 or 1, exact in double. */
static SCAL_HD inline double scal_pattern(uint64_t seed, uint64_t k)
{
    return (double)((seed * 1000003u + k * 7919u) % 1048573u) + 0.25;
}

/* Which shard holds node index g, given prefix offsets[0..nshards] of the
 * node's shards (offsets[0] = 0, offsets[nshards] = node total, g < total).
 * Returns the last s with offsets[s] <= g: never an empty shard, because an
 * empty shard s has offsets[s + 1] == offsets[s]. */
static SCAL_HD inline int scal_locate(const uint64_t *offsets, int nshards, uint64_t g)
{
    int lo = 0, hi = nshards - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (offsets[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

#endif /* SCAL_OP_H */
