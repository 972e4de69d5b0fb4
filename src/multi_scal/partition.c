/* partition.c - contiguous, near-even sharding of a global index space. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "partition.h"

ms_shard_t ms_partition(uint64_t n, int parts, int index)
{
    uint64_t base = n / (uint64_t)parts, extra = n % (uint64_t)parts, i = (uint64_t)index;
    ms_shard_t s;

    s.length = base + (i < extra ? 1 : 0);
    s.start = i * base + (i < extra ? i : extra);
    return s;
}

int ms_partition_owner(uint64_t n, int parts, uint64_t g)
{
    uint64_t base = n / (uint64_t)parts, extra = n % (uint64_t)parts;
    uint64_t wide = extra * (base + 1); /* elements held by the longer shards */

    if (g < wide)
        return (int)(g / (base + 1));
    return (int)(extra + (g - wide) / base);
}
