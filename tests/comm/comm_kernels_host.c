/* comm_kernels_host.c - comm_check's "kernels" on the host backend
 * (comm_kernels.h): the same device code (comm_calls.h) run by the calling
 * thread, the block of one; two blocks at once are two threads. */
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

int comm_bench_launch(const shardtab_signals_t *sig, int slot, int iters, double *value,
                      uint64_t *ticks, int *status, int threads, void *stream)
{
    (void)threads, (void)stream;
    *status = comm_bench_block(sig, slot, iters, value, ticks);
    return 0;
}

double comm_clock_hz(void)
{
    return 1e9; /* CLOCK_MONOTONIC nanoseconds */
}

int comm_stream_create(void **stream)
{
    *stream = NULL;
    return 0;
}

void comm_stream_destroy(void *stream)
{
    (void)stream;
}

const char *comm_error_string(int code)
{
    return code == 0 ? "no error" : "could not start a thread";
}
