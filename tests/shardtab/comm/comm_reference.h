/* comm_reference.h - what the collectives' tests compare against, written
 * plainly and apart from the library: the inputs (a SplitMix64 stream by rank,
 * call and element: both signs and fractions, so that a sum's order shows in
 * its bits) and the reduction of two values, in the test's own code. */
#ifndef COMM_REFERENCE_H
#define COMM_REFERENCE_H

#include <stdint.h>
#include <string.h>

#include "shardtab_types.h"

static inline uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* node rank r's value i of call `epoch`, as a pad word of the type: floats and
 * doubles with fractions and both signs, so that the order of a sum shows */
static inline uint64_t input(int type, int r, uint64_t epoch, int i)
{
    uint64_t x = splitmix((uint64_t)r << 48 ^ epoch << 20 ^ (uint64_t)i);
    uint64_t w = 0;
    if (type == SHARDTAB_FLOAT) {
        float f = (float)((double)(int32_t)(x >> 32) / 65536.0);
        memcpy(&w, &f, sizeof f);
    } else if (type == SHARDTAB_DOUBLE) {
        double d = (double)(int64_t)x / 1099511627776.0;
        memcpy(&w, &d, sizeof d);
    } else {
        w = x;
    }
    return w;
}

static inline uint64_t plain_combine(int op, int type, uint64_t a, uint64_t b)
{
    if (type == SHARDTAB_FLOAT) {
        float x, y, r;
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b, out;
        memcpy(&x, &ua, 4);
        memcpy(&y, &ub, 4);
        r = op == SHARDTAB_SUM ? x + y : op == SHARDTAB_MIN ? (y < x ? y : x) : (y > x ? y : x);
        memcpy(&out, &r, 4);
        return out;
    }
    if (type == SHARDTAB_DOUBLE) {
        double x, y, r;
        uint64_t out;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        r = op == SHARDTAB_SUM ? x + y : op == SHARDTAB_MIN ? (y < x ? y : x) : (y > x ? y : x);
        memcpy(&out, &r, 8);
        return out;
    }
    int64_t x = (int64_t)a, y = (int64_t)b;
    return op == SHARDTAB_SUM ? a + b
                              : (uint64_t)(op == SHARDTAB_MIN ? (y < x ? y : x) : (y > x ? y : x));
}

#endif /* COMM_REFERENCE_H */
