/* cg_host.c - the host backend's conjugate-gradient solve (cg.h): a grid of
 * one block of one thread running cg_body.h, the code the GPUs run, over
 * the node's shards in shared memory; a grid-wide barrier is nothing here,
 * and the library's barrier and all-reduce run between the processes. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>

#include "cg_body.h"

int cg_grid(const cg_args_t *args, int resident, int share, int *blocks, int *most, char *why,
            size_t why_bytes)
{
    (void)args;
    (void)resident;
    (void)share;
    (void)why;
    (void)why_bytes;
    *blocks = *most = 1; /* one block of one thread */
    return 0;
}

/* A launch of one block of one thread: its shared memory on the stack (the
 * host's thread runs it to its end before the call returns). */
static int one_block(const cg_args_t *args, int phase,
                     void (*body)(const cg_args_t *, int, int, cg_state_t *, int64_t *))
{
    int64_t block_limbs[2 * CG_EXACT_WORDS];
    cg_state_t st;
    body(args, phase, 0, &st, block_limbs);
    return 0;
}

static void start_body(const cg_args_t *g, int phase, int b, cg_state_t *st, int64_t *limbs)
{
    (void)phase;
    cg_start_block(g, b, st, limbs);
}

static void persistent_body(const cg_args_t *g, int phase, int b, cg_state_t *st, int64_t *limbs)
{
    (void)phase;
    cg_persistent_body(g, b, st, limbs);
}

int cg_start(const cg_args_t *args, void *stream)
{
    (void)stream;
    return one_block(args, 0, start_body);
}

int cg_stream_phase(const cg_args_t *args, int phase, void *stream)
{
    (void)stream;
    return one_block(args, phase, cg_stream_block);
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
    (void)stream;
    return one_block(args, 0, persistent_body);
}

double cg_clock_hz(void)
{
    return 1e9; /* shardtab_detail_clock: CLOCK_MONOTONIC in nanoseconds */
}

const char *cg_error_string(int code)
{
    return code == 0 ? "no error" : "unknown error";
}
