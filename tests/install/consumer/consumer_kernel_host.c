/* consumer_kernel_host.c - the consumer's device code on the host backend: the
 * body (consumer_body.h) run by the calling thread, the block of one. */
#include "consumer_body.h"

int consumer_round(const shardtab_signals_t *sig, void *const *table, int next,
                   const uint64_t *words, double *value, int *status)
{
    *status = consumer_body(sig, table, next, words, value);
    return 0;
}
