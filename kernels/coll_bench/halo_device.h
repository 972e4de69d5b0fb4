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
 * kernel carries every form's paths and the grid's sync, and ranks sharing a
 * GPU need their grids resident beside each other's */
#define HALO_DEVICE_THREADS 512
#define HALO_DEVICE_GRID_THREADS 256

/* halo_check's rounds: a rank's interior cells changed before every exchange
 * but the first, each byte XORed so that after round i it is its first value
 * XORed with round i's mark (halo_device_mark); and after every exchange, each
 * ghost byte checked: one filled from a neighbour must hold its value after
 * the first round XORed with round i's mark, any other that value alone. */
typedef struct halo_device_vary {
    unsigned char *origin;       /* cell (0, 0, 0), a ghost cell, in this rank's shard */
    unsigned char *snap;         /* device memory as large: the bytes after the first round */
    const unsigned char *filled; /* device memory, a byte a cell, axis 0 fastest over the
                                    padded block: 1 where a neighbour fills the ghost cell */
    uint64_t *wrong;             /* device memory, ~0 at the start: the first round found wrong */
    uint64_t ghost[3], block[3], stride[3]; /* cells, along each axis (block 1 and ghost 0
                                               past dims) */
    uint64_t elem;                          /* bytes a cell */
} halo_device_vary_t;

/* Round i's mark: 0 for the first round, then 1 to 255 and round again, so
 * never 0 after the first and never the round before's. */
SHARDTAB_DEVFN unsigned char halo_device_mark(int i)
{
    return i == 0 ? 0 : (unsigned char)(1 + (unsigned)(i - 1) % 255u);
}

/* Byte b of padded cell (c0, c1, c2), from origin. */
SHARDTAB_DEVFN uint64_t halo_device_byte(const halo_device_vary_t *vary, uint64_t c0, uint64_t c1,
                                         uint64_t c2, uint64_t b)
{
    return (c0 * vary->stride[0] + c1 * vary->stride[1] + c2 * vary->stride[2]) * vary->elem + b;
}

/* Before exchange i (i >= 1), thread `thread` of `threads`: its share of the
 * interior's bytes moved from round i - 1's mark to round i's. The caller's
 * block or grid sync follows, before the exchange reads them. */
SHARDTAB_DEVFN void halo_device_vary_round(const halo_device_vary_t *vary, int i, uint64_t thread,
                                           uint64_t threads)
{
    const uint64_t cells = vary->block[0] * vary->block[1] * vary->block[2];
    const unsigned char step = halo_device_mark(i) ^ halo_device_mark(i - 1);

    for (uint64_t k = thread; k < cells * vary->elem; k += threads) {
        const uint64_t cell = k / vary->elem, c0 = cell % vary->block[0],
                       c1 = cell / vary->block[0] % vary->block[1],
                       c2 = cell / (vary->block[0] * vary->block[1]);
        vary->origin[halo_device_byte(vary, c0 + vary->ghost[0], c1 + vary->ghost[1],
                                      c2 + vary->ghost[2], k % vary->elem)] ^= step;
    }
}

/* After exchange i, thread `thread` of `threads`: its share of the ghost
 * bytes, copied into snap after the first round, checked against snap from
 * the second; a wrong byte puts i into *wrong (the smallest stays). */
SHARDTAB_DEVFN void halo_device_check_round(const halo_device_vary_t *vary, int i, uint64_t thread,
                                            uint64_t threads)
{
    const uint64_t extent[3] = {vary->block[0] + 2 * vary->ghost[0],
                                vary->block[1] + 2 * vary->ghost[1],
                                vary->block[2] + 2 * vary->ghost[2]};
    const unsigned char mark = halo_device_mark(i);

    for (uint64_t k = thread; k < extent[0] * extent[1] * extent[2] * vary->elem; k += threads) {
        const uint64_t cell = k / vary->elem;
        if (!vary->filled[cell])
            continue; /* interior, or a ghost with no neighbour: the exchange leaves it */
        const uint64_t c0 = cell % extent[0], c1 = cell / extent[0] % extent[1],
                       c2 = cell / (extent[0] * extent[1]);
        const uint64_t at = halo_device_byte(vary, c0, c1, c2, k % vary->elem);
        if (i == 0)
            vary->snap[at] = vary->origin[at];
        else if (vary->origin[at] != (unsigned char)(vary->snap[at] ^ mark))
            shardtab_detail_min_relaxed_system(vary->wrong, (uint64_t)i);
    }
}

/* 0 or the runtime's code of the launch; a wait that gave up is recorded in
 * the pad (shardtab_signal_check). vary: NULL (halo_bench), or halo_check's
 * rounds. */
int halo_device_exchanges(const shardtab_signals_t *sig, const shardtab_halo_device_t *halo,
                          int iters, int blocks, const halo_device_vary_t *vary, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* COLL_BENCH_HALO_DEVICE_H */
