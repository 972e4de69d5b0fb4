/* comm_reference.h - what the collectives' tests compare against, written
 * plainly and apart from the library: the inputs (a SplitMix64 stream by rank,
 * call and element: both signs and fractions, so that a sum's order shows in
 * its bits; or special values: NaNs of several payloads and both signs,
 * infinities, signed zeros, denormals) and the reduction of two values, in
 * the test's own code; for SHARDTAB_SUM_EXACT, inputs of a wide range of
 * exponents that cancel, and their exact sum by a big integer of its own,
 * rounded bit by bit; and the global arrays of an exact dot product, with
 * the splits of them over the ranks. */
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

/* ---- SHARDTAB_SUM_EXACT: wide inputs that cancel, and their exact sum ---------------- */

/* node rank r's value i of call `epoch` for an exact sum: exponents over most
 * of the type's range (subnormals too), the negative of rank r - 1's value
 * (a whole cancellation), or of it nearly; never all ones or zeros */
static inline uint64_t exact_input(int type, int r, uint64_t epoch, int i)
{
    const uint64_t x = splitmix((uint64_t)r << 48 ^ epoch << 20 ^ (uint64_t)i ^ 0xe7ac7ull << 36);
    const int kind = (int)(x % 8);
    const int wide = type != SHARDTAB_FLOAT;
    double v;

    if (r > 0 && (kind == 5 || kind == 6)) {
        double prev = reference_double(type, exact_input(type, r - 1, epoch, i));
        v = kind == 5 ? -prev : -prev * (1.0 + ldexp(1.0, wide ? -40 : -20));
    } else {
        const int span = kind < 3 ? 40 : kind == 7 ? 1 : (wide ? 2000 : 250);
        const int low = kind < 3 ? -20 : kind == 7 ? (wide ? -1070 : -146) : (wide ? -1070 : -146);
        const int e = low + (int)((x >> 8) % (uint64_t)span);
        const double m = (double)((x >> 11) | 1u) / 9007199254740992.0; /* in (0, 1) */
        v = ldexp(m, e);
        if (x >> 63)
            v = -v;
    }
    uint64_t w = 0;
    if (type == SHARDTAB_FLOAT) {
        float f = (float)v;
        memcpy(&w, &f, sizeof f);
    } else {
        memcpy(&w, &v, sizeof v);
    }
    return w;
}

/* A two's complement integer in units of 2^-1074: 72 words of 32 bits reach
 * 2^1230, past any sum of a few doubles. */
enum { EXACT_REF_WORDS = 72 };

static inline void exact_ref_add(uint32_t *acc, double x)
{
    int e;
    const double f = frexp(x, &e); /* x = f * 2^e, 0.5 <= |f| < 1 */
    uint64_t m = (uint64_t)fabs(ldexp(f, 53));
    int at = e - 53 + 1074; /* where m's last bit goes */
    while (at < 0) {        /* a subnormal's trailing zeros */
        m >>= 1;
        at++;
    }
    uint32_t part[EXACT_REF_WORDS] = {0};
    for (int b = 0; b < 64; b++)
        if (m >> b & 1)
            part[(at + b) / 32] |= 1u << ((at + b) % 32);
    uint64_t carry = x < 0 ? 1 : 0; /* minus: add the complement, plus one */
    for (int k = 0; k < EXACT_REF_WORDS; k++) {
        carry += (uint64_t)acc[k] + (x < 0 ? (uint32_t)~part[k] : part[k]);
        acc[k] = (uint32_t)carry;
        carry >>= 32;
    }
}

static inline int exact_ref_bit(const uint32_t *acc, int b)
{
    return b >= 0 && (acc[b / 32] >> (b % 32) & 1);
}

/* The exact sum of n value words of the type, rounded once to nearest, ties
 * to even, as a word of the type, by the rule of shardtab_types.h: a NaN
 * among them gives the greatest NaN word; else +inf and -inf the default NaN,
 * one of them itself; an exact zero +0.0, -0.0 where every value is -0.0. */
static inline uint64_t reference_exact_sum(int type, const uint64_t *words, int n)
{
    const int digits = type == SHARDTAB_FLOAT ? 24 : 53;
    const int first = type == SHARDTAB_FLOAT ? 1074 - 149 : 0; /* the smallest quantum's bit */
    const uint64_t sign = type == SHARDTAB_FLOAT ? 1ull << 31 : 1ull << 63;
    uint32_t acc[EXACT_REF_WORDS] = {0};
    uint64_t nan = 0;
    int plus_inf = 0, minus_inf = 0, all_minus_zero = 1;

    for (int r = 0; r < n; r++) {
        const double x = reference_double(type, words[r]);
        all_minus_zero &= x == 0.0 && signbit(x);
        if (isnan(x) && words[r] > nan)
            nan = words[r];
        plus_inf |= isinf(x) && x > 0;
        minus_inf |= isinf(x) && x < 0;
        if (isfinite(x) && x != 0.0)
            exact_ref_add(acc, x);
    }
    if (nan != 0 || (plus_inf && minus_inf))
        return nan != 0 ? nan : type == SHARDTAB_FLOAT ? 0x7fc00000u : 0x7ff8000000000000ull;
    if (plus_inf || minus_inf)
        return (minus_inf ? sign : 0) |
               (type == SHARDTAB_FLOAT ? 0x7f800000u : 0x7ff0000000000000ull);
    const int negative = (int)(acc[EXACT_REF_WORDS - 1] >> 31);
    if (negative) {
        uint64_t carry = 1;
        for (int k = 0; k < EXACT_REF_WORDS; k++) {
            carry += (uint32_t)~acc[k];
            acc[k] = (uint32_t)carry;
            carry >>= 32;
        }
    }
    int lead = 32 * EXACT_REF_WORDS - 1;
    while (lead >= 0 && !exact_ref_bit(acc, lead))
        lead--;
    if (lead < 0)
        return all_minus_zero ? sign : 0;
    int last = lead - (digits - 1) < first ? first : lead - (digits - 1);
    uint64_t m = 0;
    for (int b = lead; b >= last; b--)
        m = m << 1 | (uint64_t)exact_ref_bit(acc, b);
    int sticky = 0;
    for (int b = 0; b < last - 1; b++)
        sticky |= exact_ref_bit(acc, b);
    if (exact_ref_bit(acc, last - 1) && (sticky || (m & 1)))
        m++;
    const double y = ldexp((double)m, last - 1074) * (negative ? -1.0 : 1.0); /* exact, or inf */
    uint64_t w = 0;
    if (type == SHARDTAB_FLOAT) {
        const float f = (float)y; /* exact, or inf at 2^128 */
        memcpy(&w, &f, sizeof f);
    } else {
        memcpy(&w, &y, sizeof y);
    }
    return w;
}

/* ---- an exact dot product: one global pair of arrays, split over the ranks ---------- */

enum { DOT_ELEMENTS = 1001, DOT_SPLITS = 3 };

/* element i of the global x and y: 26-bit significands, exponents over
 * [-200, 200], so that every product is exact; every third product cancels
 * the one before it */
static inline void dot_element(int i, double *x, double *y)
{
    const uint64_t a = splitmix(0xd07ull << 40 ^ (uint64_t)i);
    const uint64_t b = splitmix(0xd07ull << 41 ^ (uint64_t)i);
    *x = ldexp((double)(a >> 38 | 1), (int)(a % 401) - 200 - 26) * (a >> 37 & 1 ? -1.0 : 1.0);
    *y = ldexp((double)(b >> 38 | 1), (int)(b % 401) - 200 - 26) * (b >> 37 & 1 ? -1.0 : 1.0);
    if (i % 3 == 2) {
        double px, py;
        dot_element(i - 1, &px, &py);
        *x = px;
        *y = -py;
    }
}

/* the rank (of n) that holds element i in split `way`: even blocks, uneven
 * blocks (rank r's weight r + 1), round robin */
static inline int dot_owner(int way, int i, int n)
{
    if (way == 0)
        return (int)((int64_t)i * n / DOT_ELEMENTS);
    if (way == 1) {
        const int total = n * (n + 1) / 2;
        int r = 0, end = 0;
        for (r = 0; r < n; r++) {
            end += (int)((int64_t)DOT_ELEMENTS * (r + 1) / total);
            if (i < end)
                return r;
        }
        return n - 1;
    }
    return i % n;
}

#endif /* COMM_REFERENCE_H */
