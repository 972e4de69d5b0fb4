/* backend_gpu.h - the GPU backend's plain arithmetic, kept apart from its
 * runtime calls (backend_gpu.c) so that a build without a GPU tests it too:
 * which device a rank binds, and the grid a collective's phase launches. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_BACKEND_GPU_H
#define SHARDTAB_BACKEND_GPU_H

#include <stddef.h>

#include "backend.h"

/* The device a rank binds among count (>= 1) visible GPUs, or -1 when the
 * node has more ranks than GPUs and sharing was not allowed. One visible GPU
 * per rank is Frontier's --gpu-bind=closest: device 0. Else the rank inside
 * the node picks; the bus-id check in runtime.c catches the rest. */
static inline int st_gpu_device_choose(int count, const st_bind_request_t *req)
{
    if (count == 1)
        return 0;
    if (req->node_size <= count)
        return req->node_rank;
    if (req->allow_shared_device)
        return req->node_rank % count;
    return -1;
}

/* Blocks of 256 threads for a phase: a thread per 16 bytes (or element), at
 * most 8 blocks per multiprocessor, the loops striding over the rest; at
 * least one. */
static inline size_t st_gpu_phase_blocks(const st_coll_phase_t *phase, int multiprocessors)
{
    size_t work = phase->phase == ST_PHASE_CHUNKS ? phase->count : phase->end - phase->begin;
    size_t per = phase->vec16 ? 16 / st_type_size(phase->type) : 1;
    size_t blocks = (work / per + 255) / 256;

    if (blocks > (size_t)multiprocessors * 8)
        blocks = (size_t)multiprocessors * 8;
    if (blocks < 1)
        blocks = 1;
    return blocks;
}

#endif /* SHARDTAB_BACKEND_GPU_H */
