/* comm_kernels_host.c - comm_check's "kernels" on the host backend
 * (comm_kernels.h): the same device code (comm_calls.h) run by the calling
 * thread, the block of one; two blocks at once are two threads. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <pthread.h>

#include "comm_calls.h"
#include "comm_kernels.h"

typedef struct comm_block {
    const shardtab_signals_t *sig;
    const comm_call_t *call;
    const void *in;
    void *out;
    int status;
} comm_block_t;

static void *run_block(void *arg)
{
    comm_block_t *b = arg;
    b->status = comm_call_block(b->sig, b->call, b->in, b->out);
    return NULL;
}

int comm_call_launch(const shardtab_signals_t *sig, const comm_call_t *call, const void *in,
                     void *out, int *status, int threads, int blocks, void *stream)
{
    comm_block_t b[2] = {{sig, call, in, out, 0}, {sig, call, in, out, 0}};
    pthread_t second;

    (void)threads, (void)stream;
    if (blocks == 2) {
        if (pthread_create(&second, NULL, run_block, &b[1]) != 0)
            return 1;
        run_block(&b[0]);
        pthread_join(second, NULL);
    } else {
        run_block(&b[0]);
    }
    for (int i = 0; i < blocks && i < 2; i++)
        if (b[i].status > *status)
            *status = b[i].status;
    return 0;
}

int comm_put_launch(const shardtab_signals_t *sig, void *const *table, int peer, size_t offset,
                    const void *src, size_t bytes, int slot, uint64_t round, int *status,
                    int threads, void *stream)
{
    (void)threads, (void)stream;
    *status = comm_put_block(sig, table, peer, offset, src, bytes, slot, round);
    return 0;
}

int comm_ll_launch(const shardtab_signals_t *sig, void *const *table, const comm_ll_t *ll,
                   const unsigned char *src, unsigned char *dst, int *status, int threads,
                   void *stream)
{
    (void)threads, (void)stream;
    *status = comm_ll_block(sig, table, ll, src, dst);
    return 0;
}

int comm_bench_launch(const shardtab_signals_t *sig, int slot, int iters, int held, int trace,
                      double *value, uint64_t *ticks, int *status, int threads, void *stream)
{
    (void)threads, (void)stream;
    *status = comm_bench_block(sig, slot, iters, held, trace, value, ticks);
    return 0;
}

int comm_held_stop_launch(const shardtab_signals_t *sig, int slot, int values, int calls,
                          int stop_rank, int stop_after, double *out, int *status, int threads,
                          void *stream)
{
    (void)threads, (void)stream;
    *status = comm_held_stop_block(sig, slot, values, calls, stop_rank, stop_after, out);
    return 0;
}

int comm_dot_exact_launch(const shardtab_signals_t *sig, int slot, const double *x, const double *y,
                          size_t n, double *out, int *status, int threads, void *stream)
{
    (void)threads, (void)stream;
    *status = comm_dot_exact_block(sig, slot, x, y, n, out);
    return 0;
}

typedef struct comm_concurrent {
    const shardtab_signals_t *sig;
    int which, slot_a, values_a, slot_b, rounds, held, status;
    const double *in;
    double *out;
} comm_concurrent_t;

static void *run_concurrent(void *arg)
{
    comm_concurrent_t *c = arg;
    c->status = comm_concurrent_block(c->sig, c->which, c->slot_a, c->values_a, c->slot_b,
                                      c->rounds, c->held, c->in, c->out);
    return NULL;
}

int comm_concurrent_launch(const shardtab_signals_t *sig, int slot_a, int values_a, int slot_b,
                           int rounds, int held, const double *in, double *out, int *status,
                           void *stream)
{
    comm_concurrent_t c[3];
    pthread_t ids[3];
    int started = 0;

    (void)stream;
    for (int i = 0; i < 3; i++) {
        c[i] = (comm_concurrent_t){sig, i, slot_a, values_a, slot_b, rounds, held, 0, in, out};
        if (pthread_create(&ids[i], NULL, run_concurrent, &c[i]) != 0)
            break;
        started++;
    }
    for (int i = 0; i < started; i++) {
        pthread_join(ids[i], NULL);
        if (c[i].status > *status)
            *status = c[i].status;
    }
    return started == 3 ? 0 : 1;
}

double comm_clock_hz(void)
{
    return 1e9; /* CLOCK_MONOTONIC nanoseconds */
}
