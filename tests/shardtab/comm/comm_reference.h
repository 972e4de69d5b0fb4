/* comm_reference.h - what the collectives' tests compare against, written
 * plainly and apart from the library: the inputs (a SplitMix64 stream by rank,
 * call and element: both signs and fractions, so that a sum's order shows in
 * its bits; or special values: NaNs of several payloads and both signs,
 * infinities, signed zeros, denormals) and the reduction of two values, in
 * the test's own code. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef COMM_REFERENCE_H
#define COMM_REFERENCE_H

#include <math.h>
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

/* The special values, as pad words: NaNs (quiet and signalling, several
 * payloads, both signs), then numbers (infinities, signed zeros, the smallest
 * and largest denormals, ones, the largest finite). */
enum { SPECIAL_NANS = 5, SPECIAL_COUNT = 15 };
static const uint64_t special_doubles[SPECIAL_COUNT] = {
    0x7ff8000000000000ull, 0x7ff8000000000123ull, 0xfff8000000000000ull, 0xfff0000000000001ull,
    0x7ff0000000000042ull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x0000000000000000ull,
    0x8000000000000000ull, 0x0000000000000001ull, 0x8000000000000001ull, 0x000fffffffffffffull,
    0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7fefffffffffffffull};
static const uint32_t special_floats[SPECIAL_COUNT] = {
    0x7fc00000u, 0x7fc00123u, 0xffc00000u, 0xff800001u, 0x7f800042u,
    0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u, 0x00000001u,
    0x80000001u, 0x007fffffu, 0x3f800000u, 0xbf800000u, 0x7f7fffffu};

/* node rank r's special value i of call `epoch`: on even elements any of
 * them, on odd ones numbers only (so that signed zeros and denormals meet
 * without a NaN beside them on every rank count) */
static inline uint64_t special_input(int type, int r, uint64_t epoch, int i)
{
    uint64_t x = splitmix((uint64_t)r << 48 ^ epoch << 20 ^ (uint64_t)i ^ 0x5eed00000000ull);
    int k = (i & 1) ? SPECIAL_NANS + (int)(x % (SPECIAL_COUNT - SPECIAL_NANS))
                    : (int)(x % SPECIAL_COUNT);
    return type == SHARDTAB_FLOAT ? special_floats[k] : special_doubles[k];
}

/* The value of a float or double pad word, as a double (a float converts
 * exactly; a NaN stays a NaN). */
static inline double reference_double(int type, uint64_t w)
{
    if (type == SHARDTAB_FLOAT) {
        uint32_t u = (uint32_t)w;
        float f;
        memcpy(&f, &u, 4);
        return (double)f;
    }
    double d;
    memcpy(&d, &w, 8);
    return d;
}

/* Min and max of floats and doubles, the rule of shardtab_types.h written
 * apart from the library's: does x win over y? A NaN wins over a number;
 * of two NaNs the greater unsigned bit pattern; of two numbers the smaller
 * (min) or greater (max), -0.0 below +0.0. */
static inline int reference_wins(int op, int type, uint64_t x, uint64_t y)
{
    const double dx = reference_double(type, x), dy = reference_double(type, y);
    if (isnan(dx) || isnan(dy))
        return isnan(dx) && (!isnan(dy) || x > y);
    if (dx == dy) /* equal numbers with other bits: the two zeros */
        return op == SHARDTAB_MIN ? !!signbit(dx) > !!signbit(dy) : !!signbit(dx) < !!signbit(dy);
    return op == SHARDTAB_MIN ? dx < dy : dx > dy;
}

static inline uint64_t plain_combine(int op, int type, uint64_t a, uint64_t b)
{
    if (type != SHARDTAB_INT64 && op != SHARDTAB_SUM)
        return reference_wins(op, type, b, a) ? b : a;
    if (type == SHARDTAB_FLOAT) {
        float x, y, r;
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b, out;
        memcpy(&x, &ua, 4);
        memcpy(&y, &ub, 4);
        r = x + y;
        memcpy(&out, &r, 4);
        return out;
    }
    if (type == SHARDTAB_DOUBLE) {
        double x, y, r;
        uint64_t out;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        r = x + y;
        memcpy(&out, &r, 8);
        return out;
    }
    int64_t x = (int64_t)a, y = (int64_t)b;
    return op == SHARDTAB_SUM ? a + b
                              : (uint64_t)(op == SHARDTAB_MIN ? (y < x ? y : x) : (y > x ? y : x));
}

#endif /* COMM_REFERENCE_H */
