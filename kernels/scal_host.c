/* scal_host.c - the host backend's "kernels": the same per-element bodies as
 * the GPU kernels (scal_op.h), run by a loop on the CPU. */
#include "scal.h"
#include "scal_op.h"

int scal_shard(double *const *table, int shard, uint64_t n, double alpha)
{
    double *x = table[shard];
    for (uint64_t i = 0; i < n; i++)
        scal_element(x, i, alpha);
    return 0;
}

int scal_range(const scal_range_t *r, double alpha)
{
    for (uint64_t k = 0; k < r->count; k++) {
        uint64_t g = r->begin + k;
        if (g >= r->total)
            g -= r->total;
        int s = scal_locate(r->offsets, r->nshards, g);
        scal_element(r->table[s], g - r->offsets[s], alpha);
    }
    return 0;
}

const char *scal_error_string(int code)
{
    return code == 0 ? "no error" : "host kernel error";
}
