/* latency_body.h - the device-side timings' body, written once for every
 * backend (latency.hip and latency_host.c include it): what a user's kernel
 * does with shardtab_comm.h, with its clock read around each step. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef COLL_BENCH_LATENCY_BODY_H
#define COLL_BENCH_LATENCY_BODY_H

#include "latency.h"
#include "shardtab_comm.h"

SHARDTAB_DEVFN int lat_pingpong_block(const shardtab_signals_t *s, void *const *table,
                                      const void *src, size_t dst_offset, size_t bytes, int iters,
                                      uint64_t base, uint64_t *ticks)
{
    const int me = s->node_rank, peer = 1 - me;
    int status = SHARDTAB_WAIT_OK;

    for (int i = 0; i < iters && status == SHARDTAB_WAIT_OK; i++) {
        const uint64_t v = base + (uint64_t)i + 1, t0 = shardtab_detail_clock();
        if (me == 0) {
            shardtab_put_signal_block(s, table, peer, dst_offset, src, bytes, LAT_PINGPONG_SLOT, v,
                                      SHARDTAB_SIGNAL_SET);
            status = shardtab_signal_wait_block(s, LAT_PINGPONG_SLOT, SHARDTAB_CMP_GE, v);
            if (shardtab_detail_block_leader())
                ticks[i] = shardtab_detail_clock() - t0;
        } else {
            status = shardtab_signal_wait_block(s, LAT_PINGPONG_SLOT, SHARDTAB_CMP_GE, v);
            if (status == SHARDTAB_WAIT_OK)
                shardtab_put_signal_block(s, table, peer, dst_offset, src, bytes, LAT_PINGPONG_SLOT,
                                          v, SHARDTAB_SIGNAL_SET);
        }
    }
    return status;
}

/* The same ping-pong with LL puts: rank 0 puts into rank 1's LL buffer at
 * ll_offset with flag i + 1, rank 1 waits for it (into dst) and puts its own
 * src back into rank 0's buffer at the same offset with the same flag; the
 * reply is the ack (a rank writes the peer's buffer again only after the
 * peer's reply to what it held). The buffers hold flags below 1 when it
 * starts (zeroed). */
SHARDTAB_DEVFN int lat_ll_pingpong_block(const shardtab_signals_t *s, void *const *table,
                                         const void *src, void *dst, size_t ll_offset, size_t bytes,
                                         int iters, uint64_t *ticks)
{
    const int me = s->node_rank, peer = 1 - me;
    const void *mine = (const char *)table[me] + ll_offset;
    int status = SHARDTAB_WAIT_OK;

    for (int i = 0; i < iters && status == SHARDTAB_WAIT_OK; i++) {
        const uint32_t flag = (uint32_t)i + 1;
        const uint64_t t0 = shardtab_detail_clock();
        if (me == 0) {
            shardtab_put_ll_block(table, peer, ll_offset, src, bytes, flag);
            status = shardtab_wait_ll_block(s, mine, dst, bytes, flag);
            if (shardtab_detail_block_leader())
                ticks[i] = shardtab_detail_clock() - t0;
        } else {
            status = shardtab_wait_ll_block(s, mine, dst, bytes, flag);
            if (status == SHARDTAB_WAIT_OK)
                shardtab_put_ll_block(table, peer, ll_offset, src, bytes, flag);
        }
    }
    return status;
}

SHARDTAB_DEVFN int lat_all_reduce_block(const shardtab_signals_t *s, const double *in, double *out,
                                        int iters, int held, uint64_t *ticks)
{
    shardtab_coll_t c = shardtab_coll(s, LAT_COLL_SLOT, 1);
    SHARDTAB_BLOCK_SHARED double mine[1]; /* in shared memory, as a solver's block sum */
    int status = held ? shardtab_coll_hold_block(s, &c) : SHARDTAB_WAIT_OK;

    if (shardtab_detail_block_leader())
        mine[0] = in[0];
    shardtab_detail_block_sync();

    for (int i = 0; i < iters && status == SHARDTAB_WAIT_OK; i++) {
        const uint64_t t0 = shardtab_detail_clock();
        status = shardtab_all_reduce_block(s, &c, SHARDTAB_SUM, SHARDTAB_DOUBLE, mine, out + i, 1);
        if (shardtab_detail_block_leader())
            ticks[i] = shardtab_detail_clock() - t0;
    }
    shardtab_coll_release_block(s, &c);
    return status;
}

/* One thread: `iters` loads through ring, each at the index the one before
 * returned (so each waits for the last), with the order of `how`
 * (LAT_LOAD_*); ticks[0] the ticks they took, ticks[1] where they ended. */
SHARDTAB_DEVFN void lat_load_chain_block(uint64_t *ring, int how, int iters, uint64_t *ticks)
{
    if (!shardtab_detail_block_leader())
        return;
    uint64_t at = 0;
    const uint64_t t0 = shardtab_detail_clock();
    for (int i = 0; i < iters; i++)
        at = how == LAT_LOAD_SYSTEM   ? shardtab_detail_load_relaxed_system(ring + at)
             : how == LAT_LOAD_DEVICE ? shardtab_detail_load_relaxed_device(ring + at)
                                      : (uint64_t)(uint32_t)shardtab_detail_ll_load(ring + at);
    ticks[0] = shardtab_detail_clock() - t0;
    ticks[1] = at;
}

#endif /* COLL_BENCH_LATENCY_BODY_H */
