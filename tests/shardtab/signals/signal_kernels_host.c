/* signal_kernels_host.c - signal_example's "kernels" on the host backend
 * (signal_kernels.h): the same device code run by the calling thread, the
 * block of one; the concurrent barriers by threads of this process. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <pthread.h>

#include "example_round.h"
#include "signal_kernels.h"

#define GAVE_UP (1ull << 40)

int example_round_launch(const shardtab_signals_t *sig, int *const *table, uint64_t round,
                         int threads, unsigned long long *mismatches, void *stream)
{
    (void)threads, (void)stream;
    int bad = example_round(sig, table, round, 0, 1);
    *mismatches += bad < 0 ? GAVE_UP : (unsigned long long)bad;
    return 0;
}

int barrier_round_launch(const shardtab_signals_t *sig, int *const *table, uint64_t round,
                         int threads, unsigned long long *mismatches, void *stream)
{
    (void)threads, (void)stream;
    int bad = barrier_round(sig, table, round, 0, 1);
    *mismatches += bad < 0 ? GAVE_UP : (unsigned long long)bad;
    return 0;
}

static void *join_barrier(void *sig)
{
    (void)shardtab_barrier_block(sig);
    return NULL;
}

int concurrent_barriers_launch(const shardtab_signals_t *sig, int blocks, void *stream)
{
    pthread_t ids[16];
    int started = 0;

    (void)stream;
    for (; started < blocks && started < 16; started++)
        if (pthread_create(&ids[started], NULL, join_barrier, (void *)sig) != 0)
            break;
    for (int i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
    return started == blocks ? 0 : 1;
}
