/* halo_device.h - halo_bench's and halo_check's device side: a kernel of one block that makes
 * `iters` device-side halo exchanges back to back (shardtab_halo_exchange_block),
 * as a persistent solver's exchanging block does; or a cooperative grid of
 * `blocks` sharing each (shardtab_halo_exchange_blocks, the grid's sync after
 * each); halo_check's rounds change the block's interior between exchanges, as a
 * solver's sweeps do (halo_device_vary_t). halo_device.hip for HIP and CUDA,
 * halo_device_host.c for CPUs, over the round's body written here once. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef COLL_BENCH_HALO_DEVICE_H
#define COLL_BENCH_HALO_DEVICE_H

#include "shardtab_halo_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the block's threads on a GPU; a cooperative grid's blocks take fewer: its
 * kernel (every form's paths and the grid's sync) takes 107 registers a
 * thread for sm_90, so that blocks of 256 fit two a multiprocessor and ranks
 * sharing a GPU fit their grids beside each other's (it took 164 before the
 * halo's copy loop was one loop, and 512 threads of it did not fit at all) */
#define HALO_DEVICE_THREADS 512
#define HALO_DEVICE_GRID_THREADS 256

/* A rank's interior cells, changed before every exchange but the first: each
 * byte XORed with that round's mask (halo_device_mask), so that each round's
 * ghost cells differ from the last's; and after every exchange but the first,
 * each ghost byte checked against its value after the first: it must be that
 * XORed with every mask so far (filled from a neighbour), or that alone (a
 * ghost with no neighbour), else a ghost cell came from another round. */
typedef struct halo_device_vary {
    unsigned char *first; /* cell (0, 0, 0), a ghost cell, in this rank's shard */
    unsigned char *snap;  /* device memory as large: the ghosts after the first round */
    uint64_t *wrong;      /* device memory, ~0 at the start: the first round found wrong */
    uint64_t ghost[3], block[3], stride[3]; /* cells, along each axis (1 and 0 past dims) */
    uint64_t elem;                          /* bytes a cell */
} halo_device_vary_t;

/* Round i's mask (i >= 1): never 0, never the same two rounds running. */
SHARDTAB_DEVFN unsigned char halo_device_mask(int i)
{
    return (unsigned char)(1 + (unsigned)i * 91u % 255u);
}

/* Before exchange i (i >= 1), thread `thread` of `threads`: its share of the
 * interior's bytes XORed with round i's mask. The caller's block or grid sync
 * follows, before the exchange reads them. */
SHARDTAB_DEVFN void halo_device_vary_round(const halo_device_vary_t *v, int i, uint64_t thread,
                                           uint64_t threads)
{
    const uint64_t cells = v->block[0] * v->block[1] * v->block[2];
    const unsigned char mask = halo_device_mask(i);

    for (uint64_t k = thread; k < cells * v->elem; k += threads) {
        const uint64_t cell = k / v->elem, c0 = cell % v->block[0],
                       c1 = cell / v->block[0] % v->block[1],
                       c2 = cell / (v->block[0] * v->block[1]);
        v->first[((c0 + v->ghost[0]) * v->stride[0] + (c1 + v->ghost[1]) * v->stride[1] +
                  (c2 + v->ghost[2]) * v->stride[2]) *
                     v->elem +
                 k % v->elem] ^= mask;
    }
}

/* After exchange i, thread `thread` of `threads`: round i's ghost bytes
 * against the first's (snapshot, i == 0: taken), `all` the XOR of the masks
 * of rounds 1 to i; a wrong byte puts i into *wrong (the smallest stays). */
SHARDTAB_DEVFN void halo_device_check_round(const halo_device_vary_t *v, int i, unsigned char all,
                                            uint64_t thread, uint64_t threads)
{
    const uint64_t e0 = v->block[0] + 2 * v->ghost[0], e1 = v->block[1] + 2 * v->ghost[1],
                   e2 = v->block[2] + 2 * v->ghost[2];

    for (uint64_t k = thread; k < e0 * e1 * e2 * v->elem; k += threads) {
        const uint64_t cell = k / v->elem, c0 = cell % e0, c1 = cell / e0 % e1,
                       c2 = cell / (e0 * e1);
        if (c0 >= v->ghost[0] && c0 < v->ghost[0] + v->block[0] && c1 >= v->ghost[1] &&
            c1 < v->ghost[1] + v->block[1] && c2 >= v->ghost[2] && c2 < v->ghost[2] + v->block[2])
            continue; /* interior */
        const uint64_t at =
            (c0 * v->stride[0] + c1 * v->stride[1] + c2 * v->stride[2]) * v->elem + k % v->elem;
        if (i == 0)
            v->snap[at] = v->first[at];
        else if (v->first[at] != v->snap[at] && v->first[at] != (v->snap[at] ^ all))
            shardtab_detail_min_relaxed_system(v->wrong, (uint64_t)i);
    }
}

/* 0 or the runtime's code of the launch; a wait that gave up is recorded in
 * the pad (shardtab_signal_check). vary: NULL, or the interior changed before
 * every exchange but the first. */
int halo_device_exchanges(const shardtab_signals_t *sig, const shardtab_halo_device_t *halo,
                          int iters, int blocks, const halo_device_vary_t *vary, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* COLL_BENCH_HALO_DEVICE_H */
