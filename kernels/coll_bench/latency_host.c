/* latency_host.c - coll_bench's device-side timings on the host backend: the
 * same body run by the calling thread (a block of one). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "latency_body.h"

int lat_pingpong_launch(const shardtab_signals_t *sig, void *const *table, const void *src,
                        size_t dst_offset, size_t bytes, int iters, uint64_t base, uint64_t *ticks,
                        int *status, void *stream)
{
    (void)stream;
    *status = lat_pingpong_block(sig, table, src, dst_offset, bytes, iters, base, ticks);
    return 0;
}

int lat_ll_pingpong_launch(const shardtab_signals_t *sig, void *const *table, const void *src,
                           void *dst, size_t ll_offset, size_t bytes, int iters, uint64_t *ticks,
                           int *status, void *stream)
{
    (void)stream;
    *status = lat_ll_pingpong_block(sig, table, src, dst, ll_offset, bytes, iters, ticks);
    return 0;
}

int lat_all_reduce_launch(const shardtab_signals_t *sig, const double *in, double *out, int iters,
                          int held, uint64_t *ticks, int *status, void *stream)
{
    (void)stream;
    *status = lat_all_reduce_block(sig, in, out, iters, held, ticks);
    return 0;
}

int lat_load_chain_launch(uint64_t *ring, int how, int iters, uint64_t *ticks, void *stream)
{
    (void)stream;
    lat_load_chain_block(ring, how, iters, ticks);
    return 0;
}

int lat_empty_launch(void *stream)
{
    (void)stream;
    return 0;
}

double lat_clock_hz(void)
{
    return 1e9; /* CLOCK_MONOTONIC nanoseconds */
}
