/* example_round.h - the usage example at the top of include/shardtab_device.h,
 * written once for every backend (tests/shardtab/signals/signal_kernels.hip runs it as
 * a GPU kernel would, signal_kernels_host.c on the host backend), and a round
 * of shardtab_barrier_block: each thread writes its part of a pattern into the
 * next node rank's shard, the block signals (or joins the barrier), and once
 * the wait is over every thread checks its part of its own shard. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef EXAMPLE_ROUND_H
#define EXAMPLE_ROUND_H

#include <stdint.h>

#include "shardtab_device.h"

#define EXAMPLE_WORDS 4096 /* ints in each half of a shard; halves alternate by round */

/* Never 0 (a zeroed shard), different for every writer, round and element. */
SHARDTAB_DEVFN int example_pattern(int writer, uint64_t round, int i)
{
    uint32_t h =
        (uint32_t)(writer + 1) * 2654435761u ^ (uint32_t)round * 40503u ^ (uint32_t)i * 2246822519u;
    return (int)(1u + h % 0x3fffffffu);
}

/* Thread `thread` of `threads`: the example of shardtab_device.h. Returns the
 * mismatches this thread saw in its own shard, or -1 when the wait gave up. */
SHARDTAB_DEVFN int example_round(const shardtab_signals_t *sig, int *const *table, uint64_t round,
                                 int thread, int threads)
{
    const int next = (sig->node_rank + 1) % sig->node_size;
    const int previous = (sig->node_rank + sig->node_size - 1) % sig->node_size;
    const int half = (int)(round & 1) * EXAMPLE_WORDS;
    int bad = 0;

    for (int i = thread; i < EXAMPLE_WORDS; i += threads)
        table[next][half + i] = example_pattern(sig->node_rank, round, i);
    shardtab_signal_set_block(sig, next, 0, round + 1); /* every thread calls it */
    if (shardtab_signal_wait_block(sig, 0, SHARDTAB_CMP_GE, round + 1))
        return -1; /* timed out or aborted: the host reports */
    for (int i = thread; i < EXAMPLE_WORDS; i += threads)
        bad += table[sig->node_rank][half + i] != example_pattern(previous, round, i);
    return bad;
}

/* The same ring ordered by the node barrier of one block per rank. */
SHARDTAB_DEVFN int barrier_round(const shardtab_signals_t *sig, int *const *table, uint64_t round,
                                 int thread, int threads)
{
    const int next = (sig->node_rank + 1) % sig->node_size;
    const int previous = (sig->node_rank + sig->node_size - 1) % sig->node_size;
    const int half = (int)(round & 1) * EXAMPLE_WORDS;
    int bad = 0;

    for (int i = thread; i < EXAMPLE_WORDS; i += threads)
        table[next][half + i] = example_pattern(sig->node_rank, round, i);
    if (shardtab_barrier_block(sig))
        return -1;
    for (int i = thread; i < EXAMPLE_WORDS; i += threads)
        bad += table[sig->node_rank][half + i] != example_pattern(previous, round, i);
    return bad;
}

#endif /* EXAMPLE_ROUND_H */
