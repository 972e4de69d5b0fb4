/* cg_host.c - the host backend's conjugate-gradient solve (cg.h): a grid of
 * one block of one thread running cg_body.h, the code the GPUs run, over
 * the node's shards in shared memory; a grid-wide barrier is nothing here,
 * and the library's barrier and all-reduce run between the processes. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>

#include "cg_body.h"

int cg_grid(const cg_args_t *args, cg_launch_t launch, int share, int *blocks, int *most, char *why,
            size_t why_bytes)
{
    (void)args;
    (void)launch;
    (void)share;
    (void)why;
    (void)why_bytes;
    *blocks = *most = 1; /* one block of one thread */
    return 0;
}

int cg_start(const cg_args_t *args, void *stream)
{
    int64_t block_limbs[2 * CG_EXACT_WORDS];
    cg_state_t st;
    (void)stream;
    cg_start_block(args, 0, &st, block_limbs);
    return 0;
}

int cg_stream_phase(const cg_args_t *args, int phase, void *stream)
{
    int64_t block_limbs[2 * CG_EXACT_WORDS];
    cg_state_t st;
    (void)stream;
    cg_stream_block(args, phase, 0, &st, block_limbs);
    return 0;
}

int cg_decide(const cg_args_t *args, int decision, void *stream)
{
    cg_state_t st;
    (void)stream;
    cg_decide_block(args, &st, decision);
    return 0;
}

int cg_persistent(const cg_args_t *args, void *stream)
{
    int64_t block_limbs[2 * CG_EXACT_WORDS];
    cg_state_t st;
    (void)stream;
    cg_persistent_body(args, 0, &st, block_limbs);
    return 0;
}

double cg_clock_hz(void)
{
    return 1e9; /* shardtab_detail_clock: CLOCK_MONOTONIC in nanoseconds */
}

const char *cg_error_string(int code)
{
    return code == 0 ? "no error" : "unknown error";
}
