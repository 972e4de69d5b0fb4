/* partition.h - how multi_scal cuts N elements into P contiguous shards, as
 * even as possible: the first N mod P shards hold one element more. N < P
 * leaves empty shards at the end. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef MS_PARTITION_H
#define MS_PARTITION_H

#include <stdint.h>

typedef struct ms_shard {
    uint64_t start;  /* global index of the first element */
    uint64_t length; /* elements */
} ms_shard_t;

ms_shard_t ms_partition(uint64_t n, int parts, int index);
/* The index of the shard that holds global element g (g < n). */
int ms_partition_owner(uint64_t n, int parts, uint64_t g);

#endif /* MS_PARTITION_H */
