/* test_exact.c - pins the library's exact sums (include/shardtab/exact.h: cg's
 * reproducible dot products, SHARDTAB_SUM_EXACT's elements, shardtab_exact_*) on the
 * host: every result compared bit for bit with an oracle that shares none of its code.
 * The oracles: the hardware's own correctly rounded a + b and fma(u, v, w); closed
 * forms (ties, cancellations, integer multiples of 2^-1074); and a plain two's
 * complement big integer of this file's own, fed through frexp and 128-bit products,
 * rounded bit by bit to a double or a float. Then the same bits whatever the order
 * and split of the terms, the expansion's errors reaching the limbs, the limbs'
 * normalization and headroom, and the few-values sum (one element of an all-reduce)
 * on both of its paths. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shardtab_comm.h" /* shardtab_exact_*, and shardtab/exact.h */

/* ---- the reference: a big integer counting units of 2^-REF_LOW ---------------------- *
 * 2^-2300 is below the last bit of any product of two doubles (2^-2148 and the 106-bit
 * significand's room), and 60 words reach 2^1540, past any accumulator's value. */
#define REF_LOW 2300
#define REF_WORDS 60

typedef struct ref {
    uint64_t w[REF_WORDS]; /* two's complement, least significant word first */
} ref_t;

static void ref_zero(ref_t *r)
{
    memset(r, 0, sizeof *r);
}

/* r += (negative ? -1 : 1) * mag * 2^exp2 */
static void ref_add_magnitude(ref_t *r, unsigned __int128 mag, int exp2, int negative)
{
    uint64_t t[REF_WORDS] = {0};
    const int pos = exp2 + REF_LOW;
    assert_true(pos >= 0 && pos / 64 + 3 < REF_WORDS);
    const int word = pos / 64, bit = pos % 64;
    const unsigned __int128 low = mag << bit;

    t[word] = (uint64_t)low;
    t[word + 1] = (uint64_t)(low >> 64);
    t[word + 2] = bit != 0 ? (uint64_t)(mag >> (128 - bit)) : 0;
    /* subtracting is adding the complement, plus one */
    unsigned __int128 carry = negative ? 1 : 0;
    for (int i = 0; i < REF_WORDS; i++) {
        carry += (unsigned __int128)r->w[i] + (negative ? ~t[i] : t[i]);
        r->w[i] = (uint64_t)carry;
        carry >>= 64;
    }
}

/* x = f * 2^e with 0.5 <= |f| < 1, so f * 2^53 is an integer (subnormals too) */
static int64_t ref_split(double x, int *exp2)
{
    int e;
    const double f = frexp(x, &e);
    *exp2 = e - 53;
    return (int64_t)ldexp(f, 53);
}

static void ref_add_double(ref_t *r, double x)
{
    int e;
    if (x == 0.0)
        return;
    const int64_t m = ref_split(x, &e);
    ref_add_magnitude(r, (unsigned __int128)(m < 0 ? -m : m), e, m < 0);
}

static void ref_add_product(ref_t *r, double u, double v)
{
    int eu, ev;
    if (u == 0.0 || v == 0.0)
        return;
    const int64_t mu = ref_split(u, &eu), mv = ref_split(v, &ev);
    const unsigned __int128 mag =
        (unsigned __int128)(mu < 0 ? -mu : mu) * (unsigned __int128)(mv < 0 ? -mv : mv);
    ref_add_magnitude(r, mag, eu + ev, (mu < 0) != (mv < 0));
}

static int ref_bit(const ref_t *r, int b)
{
    return (int)((r->w[b / 64] >> (b % 64)) & 1);
}

/* the value rounded to nearest, ties to even, one bit at a time, to `digits`
 * bits (53: a double, 24: a float) and down to 2^quantum_min and no further;
 * returned as a double, exact (a float's fits), or inf past the double range */
static double ref_round_to(const ref_t *r, int digits, int quantum_min)
{
    ref_t a = *r;
    const int negative = (int)(a.w[REF_WORDS - 1] >> 63);

    if (negative) {
        unsigned __int128 carry = 1;
        for (int i = 0; i < REF_WORDS; i++) {
            carry += (uint64_t)~a.w[i];
            a.w[i] = (uint64_t)carry;
            carry >>= 64;
        }
    }
    int lead = 64 * REF_WORDS - 1;
    while (lead >= 0 && !ref_bit(&a, lead))
        lead--;
    if (lead < 0)
        return 0.0;
    int last = lead - (digits - 1); /* digits bits, or down to 2^quantum_min */
    if (last < REF_LOW + quantum_min)
        last = REF_LOW + quantum_min;
    uint64_t m = 0;
    for (int b = lead; b >= last; b--)
        m = m << 1 | (uint64_t)ref_bit(&a, b);
    const int half = ref_bit(&a, last - 1);
    int sticky = 0;
    for (int b = 0; b < last - 1; b++)
        sticky |= ref_bit(&a, b);
    if (half && (sticky || (m & 1)))
        m++;
    const double y = ldexp((double)m, last - REF_LOW); /* exact, or inf past the range */
    return negative ? -y : y;
}

static double ref_round(const ref_t *r)
{
    return ref_round_to(r, 53, -1074);
}

/* to a float: exact from the double ref_round_to gives, inf at 2^128 and past */
static float ref_round_float(const ref_t *r)
{
    return (float)ref_round_to(r, 24, -149);
}

/* the value of an accumulator's digit limbs, whatever their range */
static void ref_from_limbs(ref_t *r, const int64_t *limbs)
{
    ref_zero(r);
    for (int k = 0; k < SHARDTAB_DETAIL_EXACT_DIGITS; k++) {
        const uint64_t mag = limbs[k] < 0 ? -(uint64_t)limbs[k] : (uint64_t)limbs[k];
        ref_add_magnitude(r, mag, 32 * (k - SHARDTAB_DETAIL_EXACT_BIAS), limbs[k] < 0);
    }
}

/* ---- helpers ------------------------------------------------------------------------ */

#define assert_same_bits(got, want) same_bits_at((got), (want), __FILE__, __LINE__)
static void same_bits_at(double got, double want, const char *file, int line)
{
    if (memcmp(&got, &want, sizeof got) != 0) {
        print_error("got %a, want %a\n", got, want);
        _fail(file, line);
    }
}

static uint64_t rng_next(uint64_t *state) /* splitmix64 */
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static int rng_below(uint64_t *state, int n)
{
    return (int)(rng_next(state) % (uint64_t)n);
}

/* either sign, leading bit 2^e with emin <= e <= emax, 52 random bits below it */
static double random_double(uint64_t *state, int emin, int emax)
{
    const uint64_t m = rng_next(state) >> 11 | UINT64_C(1) << 52;
    const int e = emin + rng_below(state, emax - emin + 1);
    const double x = ldexp((double)m, e - 52);
    return rng_next(state) & 1 ? -x : x;
}

/* any finite double, every exponent as likely */
static double random_any_double(uint64_t *state)
{
    for (;;) {
        const uint64_t bits = rng_next(state);
        if (((bits >> 52) & 0x7ff) != 0x7ff) {
            double x;
            memcpy(&x, &bits, sizeof x);
            return x;
        }
    }
}

static void shuffle(double *x, double *y, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) {
        const size_t j = (size_t)(rng_next(state) % i);
        double t = x[i - 1];
        x[i - 1] = x[j];
        x[j] = t;
        if (y != NULL) {
            t = y[i - 1];
            y[i - 1] = y[j];
            y[j] = t;
        }
    }
}

/* sum of x[0..n) by the accumulator alone */
static double direct_sum(const double *x, size_t n)
{
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS];
    shardtab_detail_exact_zero(limbs);
    for (size_t i = 0; i < n; i++)
        shardtab_detail_exact_add(limbs, x[i]);
    return shardtab_detail_exact_round(limbs);
}

/* sum of x[0..n) through one expansion */
static double expansion_sum(const double *x, size_t n)
{
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS];
    shardtab_detail_exact_expansion_t e;
    shardtab_detail_exact_zero(limbs);
    shardtab_detail_exact_expansion_init(&e);
    for (size_t i = 0; i < n; i++)
        shardtab_detail_exact_expansion_add(&e, limbs, x[i]);
    shardtab_detail_exact_expansion_flush(&e, limbs);
    return shardtab_detail_exact_round(limbs);
}

static double reference_sum(const double *x, size_t n)
{
    ref_t r;
    ref_zero(&r);
    for (size_t i = 0; i < n; i++)
        ref_add_double(&r, x[i]);
    return ref_round(&r);
}

/* The terms as a machine splits them, into `total` (normalized): ranks own contiguous
 * ranges; in a rank, the threads of its blocks take its terms grid-stride, each thread
 * an expansion flushed into its block's limbs; a block's limbs, normalized, are added
 * into its rank's, and a rank's into the total. With y, the terms are x[i]*y[i]. */
static void split_sum(const double *x, const double *y, size_t n, int ranks, int blocks,
                      int threads, int64_t *total)
{
    int64_t rank_limbs[SHARDTAB_DETAIL_EXACT_LIMBS], block_limbs[SHARDTAB_DETAIL_EXACT_LIMBS];

    shardtab_detail_exact_zero(total);
    for (int r = 0; r < ranks; r++) {
        const size_t first = n * (size_t)r / (size_t)ranks;
        const size_t end = n * (size_t)(r + 1) / (size_t)ranks;
        const size_t grid = (size_t)blocks * (size_t)threads;
        shardtab_detail_exact_zero(rank_limbs);
        for (int b = 0; b < blocks; b++) {
            shardtab_detail_exact_zero(block_limbs);
            for (int t = 0; t < threads; t++) {
                shardtab_detail_exact_expansion_t e;
                shardtab_detail_exact_expansion_init(&e);
                for (size_t i = first + (size_t)b * (size_t)threads + (size_t)t; i < end;
                     i += grid) {
                    if (y != NULL)
                        shardtab_detail_exact_expansion_add_product(&e, block_limbs, x[i], y[i]);
                    else
                        shardtab_detail_exact_expansion_add(&e, block_limbs, x[i]);
                }
                shardtab_detail_exact_expansion_flush(&e, block_limbs);
            }
            shardtab_detail_exact_normalize(block_limbs);
            shardtab_detail_exact_add_limbs(rank_limbs, block_limbs);
        }
        shardtab_detail_exact_normalize(rank_limbs);
        shardtab_detail_exact_add_limbs(total, rank_limbs);
    }
    shardtab_detail_exact_normalize(total);
}

/* ---- two terms, and u*v + w: the hardware rounds these exactly once ------------------- */

static void test_two_terms_round_like_the_hardware_add(void **state)
{
    uint64_t rng = 11;
    (void)state;
    for (int trial = 0; trial < 200000; trial++) {
        double pair[2];
        switch (trial % 5) {
        case 0: /* any two doubles */
            pair[0] = random_any_double(&rng);
            pair[1] = random_any_double(&rng);
            break;
        case 1: /* exponents close together: every rounding case */
            pair[0] = random_double(&rng, -40, 40);
            pair[1] = random_double(&rng, -100, 40);
            break;
        case 2: /* cancellation */
            pair[0] = random_double(&rng, -200, 200);
            pair[1] = -pair[0] * (1.0 + ldexp((double)rng_below(&rng, 1 << 20) - 524288.0, -52));
            break;
        case 3: /* around the subnormals */
            pair[0] = random_double(&rng, -1074, -1015);
            pair[1] = random_double(&rng, -1074, -1015);
            break;
        default: /* around DBL_MAX: some overflow to inf */
            pair[0] = random_double(&rng, 1015, 1023);
            pair[1] = random_double(&rng, 960, 1023);
            break;
        }
        double want = pair[0] + pair[1];
        if (want == 0.0)
            want = 0.0; /* the accumulator's exact 0 is +0 */
        assert_same_bits(direct_sum(pair, 2), want);
        assert_same_bits(expansion_sum(pair, 2), want);
        assert_same_bits(reference_sum(pair, 2), want);
    }
}

static void test_product_plus_a_term_rounds_like_the_hardware_fma(void **state)
{
    uint64_t rng = 12;
    (void)state;
    for (int trial = 0; trial < 100000; trial++) {
        /* products from 2^-960 to 2^1000: TwoProduct is exact there */
        const double u = random_double(&rng, -480, 500), v = random_double(&rng, -480, 500);
        const double p = u * v;
        double w;
        switch (trial % 3) {
        case 0:
            w = random_double(&rng, -1000, 1000);
            break;
        case 1: /* near -p: the product's low bits decide */
            w = -p * (1.0 + ldexp((double)rng_below(&rng, 64) - 32.0, -52));
            break;
        default:
            w = -p;
            break;
        }
        int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS];
        shardtab_detail_exact_expansion_t e;
        ref_t r;
        shardtab_detail_exact_zero(limbs);
        shardtab_detail_exact_expansion_init(&e);
        shardtab_detail_exact_expansion_add_product(&e, limbs, u, v);
        shardtab_detail_exact_expansion_add(&e, limbs, w);
        shardtab_detail_exact_expansion_flush(&e, limbs);
        double want = fma(u, v, w);
        if (want == 0.0)
            want = 0.0;
        assert_same_bits(shardtab_detail_exact_round(limbs), want);
        ref_zero(&r);
        ref_add_product(&r, u, v);
        ref_add_double(&r, w);
        assert_same_bits(ref_round(&r), want);
    }
}

/* ---- many terms against the big integer ------------------------------------------------ */

static void test_random_sums_match_the_reference(void **state)
{
    static double x[700];
    uint64_t rng = 13;
    (void)state;
    for (int trial = 0; trial < 3000; trial++) {
        size_t n = 1 + (size_t)rng_below(&rng, 300);
        const int regime = trial % 6;
        for (size_t i = 0; i < n; i++) {
            switch (regime) {
            case 0:
                x[i] = random_any_double(&rng);
                break;
            case 1:
                x[i] = random_double(&rng, -60, 60);
                break;
            case 2:
                x[i] = random_double(&rng, -1074, -990);
                break;
            case 3:
                x[i] = random_double(&rng, 1010, 1023);
                break;
            default:
                x[i] = random_double(&rng, -300, 300);
                break;
            }
        }
        if (regime >= 3) { /* massive cancellation: every term again, negated, and a few
                            * of them off by some ulps */
            for (size_t i = 0; i < n; i++) {
                x[n + i] = -x[i];
                if (rng_below(&rng, 8) == 0)
                    x[n + i] = nextafter(x[n + i], rng_next(&rng) & 1 ? INFINITY : -INFINITY);
            }
            n *= 2;
            if (regime == 5) /* and a lone small one under it all */
                x[n++] = random_double(&rng, -1074, 0);
            shuffle(x, NULL, n, &rng);
        }
        const double want = reference_sum(x, n);
        assert_same_bits(direct_sum(x, n), want);
        assert_same_bits(expansion_sum(x, n), want);
    }
}

static void test_cancellation_leaves_the_small_terms(void **state)
{
    const double dmin = ldexp(1.0, -1074);
    (void)state;
    {
        const double x[] = {1e300, 1.0, -1e300};
        assert_same_bits(expansion_sum(x, 3), 1.0);
        assert_same_bits(direct_sum(x, 3), 1.0);
    }
    {
        const double x[] = {DBL_MAX, dmin, -DBL_MAX};
        assert_same_bits(expansion_sum(x, 3), dmin);
    }
    {
        const double x[] = {1.0, 1e-16, -1.0, 1e-300, -1e-300};
        assert_same_bits(expansion_sum(x, 5), 1e-16);
    }
    {
        const double x[] = {-1e-300, 1e300, 1e-300, -1e300};
        assert_same_bits(expansion_sum(x, 4), 0.0); /* +0, not -0 */
    }
    {
        const double x[] = {-0.0, -0.0};
        assert_same_bits(expansion_sum(x, 2), 0.0);
        assert_same_bits(direct_sum(x, 2), 0.0);
    }
    {
        const double x[] = {-3.5, 1e200, 2.25, -1e200, -1e-200};
        assert_same_bits(expansion_sum(x, 5), -1.25); /* -1.25 - 1e-200 rounds to -1.25 */
    }
}

/* ---- ties, subnormals, overflow: closed forms ------------------------------------------ */

static void test_ties_round_to_even(void **state)
{
    const double h = ldexp(1.0, -53), dmin = ldexp(1.0, -1074);
    uint64_t rng = 14;
    (void)state;
    {
        const double x[] = {1.0, h}; /* 1 is even */
        assert_same_bits(expansion_sum(x, 2), 1.0);
    }
    {
        const double x[] = {1.0 + 2 * h, h}; /* odd: up */
        assert_same_bits(expansion_sum(x, 2), 1.0 + 4 * h);
    }
    {
        const double x[] = {1.0, h, dmin}; /* not a tie any more */
        assert_same_bits(expansion_sum(x, 3), 1.0 + 2 * h);
    }
    {
        const double x[] = {-1.0, -h};
        assert_same_bits(expansion_sum(x, 2), -1.0);
    }
    {
        const double x[] = {1e300, 1.0, -1e300, h, 7.0, -7.0};
        assert_same_bits(expansion_sum(x, 6), 1.0);
    }
    {
        /* the first binade with rounding: 2^-1021 has spacing 2^-1073 */
        const double x[] = {ldexp(1.0, -1021), dmin};
        assert_same_bits(expansion_sum(x, 2), ldexp(1.0, -1021));
    }
    for (int trial = 0; trial < 20000; trial++) {
        /* a + half its ulp, the half split into pieces, under noise that cancels */
        const double a = random_double(&rng, -900, 900);
        const double sign = a < 0 ? -1.0 : 1.0;
        const double half = (fabs(nextafter(a, sign * INFINITY)) - fabs(a)) / 2; /* the ulp up */
        const double noise = random_double(&rng, -1000, 1000);
        double x[6] = {noise, a, sign * half * 0.75, sign * half * 0.25, -noise, 0.0};
        size_t n = 5;
        uint64_t bits;
        memcpy(&bits, &a, sizeof bits);
        double want = (bits & 1) ? nextafter(a, sign * INFINITY) : a;
        if (trial % 2 == 1) { /* a sticky bit far below breaks the tie away from a */
            x[n++] = sign * dmin;
            want = nextafter(a, sign * INFINITY);
        }
        shuffle(x, NULL, n, &rng);
        assert_same_bits(expansion_sum(x, n), want);
        assert_same_bits(direct_sum(x, n), want);
        assert_same_bits(reference_sum(x, n), want);
    }
}

static void test_subnormal_results_are_exact(void **state)
{
    uint64_t rng = 15;
    (void)state;
    for (int trial = 0; trial < 20000; trial++) {
        /* terms k * 2^-1074, |k| < 2^50 (subnormals and the lowest normals): their sum
         * K * 2^-1074 with |K| < 2^53 is a double */
        double x[12];
        int64_t sum = 0;
        size_t n = 1 + (size_t)rng_below(&rng, 8);
        for (size_t i = 0; i < n; i++) {
            const int64_t k = (int64_t)(rng_next(&rng) >> (14 + rng_below(&rng, 50))) *
                              (rng_next(&rng) & 1 ? -1 : 1);
            x[i] = ldexp((double)k, -1074);
            sum += k;
        }
        x[n] = random_double(&rng, -200, 200);
        x[n + 1] = -x[n];
        n += 2;
        shuffle(x, NULL, n, &rng);
        const double want = sum == 0 ? 0.0 : ldexp((double)sum, -1074);
        assert_same_bits(expansion_sum(x, n), want);
        assert_same_bits(direct_sum(x, n), want);
    }
}

static void test_results_beyond_the_range_are_inf_and_near_dbl_max_are_exact(void **state)
{
    const double top_half = ldexp(1.0, 970); /* half of DBL_MAX's ulp */
    const double dmin = ldexp(1.0, -1074);
    static double many[2001];
    (void)state;
    {
        const double x[] = {DBL_MAX, top_half}; /* a tie; DBL_MAX is odd: up, to inf */
        assert_same_bits(expansion_sum(x, 2), INFINITY);
        assert_same_bits(reference_sum(x, 2), INFINITY);
    }
    {
        const double x[] = {DBL_MAX, top_half, -dmin}; /* just under the tie */
        assert_same_bits(expansion_sum(x, 3), DBL_MAX);
        assert_same_bits(reference_sum(x, 3), DBL_MAX);
    }
    {
        const double x[] = {DBL_MAX, DBL_MAX, -DBL_MAX}; /* overflows on the way only */
        assert_same_bits(expansion_sum(x, 3), DBL_MAX);
        assert_same_bits(direct_sum(x, 3), DBL_MAX);
    }
    {
        const double x[] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
        assert_same_bits(expansion_sum(x, 3), -INFINITY);
        assert_same_bits(direct_sum(x, 3), -INFINITY);
    }
    {
        const double x[] = {-DBL_MAX, -top_half}; /* a tie, negative: to -inf */
        assert_same_bits(expansion_sum(x, 2), -INFINITY);
    }
    {
        const double x[] = {ldexp(1.0, 1023), ldexp(1.0, 1023), -1.0}; /* 2^1024 - 1 */
        assert_same_bits(expansion_sum(x, 3), INFINITY);
    }
    {
        const double x[] = {DBL_MAX, -DBL_MAX, -1.0, DBL_MAX}; /* a negative sum on the way */
        assert_same_bits(expansion_sum(x, 4), DBL_MAX);
    }
    /* 1000 times DBL_MAX, less 999 times, in either order */
    for (int i = 0; i < 1000; i++)
        many[i] = DBL_MAX;
    for (int i = 1000; i < 1999; i++)
        many[i] = -DBL_MAX;
    assert_same_bits(expansion_sum(many, 1999), DBL_MAX);
    assert_same_bits(direct_sum(many, 1000), INFINITY);
    for (int i = 0; i < 999; i++) { /* -999, then +1000: every partial sum negative */
        many[i] = -DBL_MAX;
        many[999 + i] = DBL_MAX;
    }
    many[1998] = DBL_MAX;
    assert_same_bits(expansion_sum(many, 1999), DBL_MAX);
    many[1999] = -top_half; /* DBL_MAX less half its ulp: a tie, to the even one below */
    assert_same_bits(expansion_sum(many, 2000), nextafter(DBL_MAX, 0.0));
    assert_same_bits(reference_sum(many, 2000), nextafter(DBL_MAX, 0.0));
}

/* ---- order and split ---------------------------------------------------------------------- */

static void test_order_and_split_do_not_change_the_bits(void **state)
{
    enum { N = 3000 };
    static double x[N], y[N];
    static const int shapes[][3] = {{1, 1, 1},  {1, 1, 7},   {1, 3, 32}, {2, 2, 64},
                                    {3, 5, 17}, {4, 8, 256}, {7, 1, 3},  {8, 64, 1}};
    int64_t first[SHARDTAB_DETAIL_EXACT_LIMBS], limbs[SHARDTAB_DETAIL_EXACT_LIMBS];
    uint64_t rng = 16;
    (void)state;

    for (int i = 0; i < N; i++) {
        x[i] = i % 3 == 0 ? random_any_double(&rng) : random_double(&rng, -700, 700);
        if (i % 10 == 9)
            x[i] = -x[i - 1];
    }
    x[N - 1] = 1e-300;
    const double want = reference_sum(x, N);
    split_sum(x, NULL, N, 1, 1, 1, first);
    assert_same_bits(shardtab_detail_exact_round(first), want);
    for (int trial = 0; trial < 64; trial++) {
        const int *shape = shapes[trial % 8];
        shuffle(x, NULL, N, &rng);
        split_sum(x, NULL, N, shape[0], shape[1], shape[2], limbs);
        /* normalized limbs are the integer's one representation: all of them match */
        assert_memory_equal(limbs, first, sizeof first);
        assert_same_bits(shardtab_detail_exact_round(limbs), want);
    }

    /* and the same for a dot product */
    for (int i = 0; i < N; i++) {
        x[i] = random_double(&rng, -200, 200); /* |y| < 2^602, the products < 2^402 */
        y[i] = i % 4 == 3 ? -x[i - 1] * y[i - 1] / x[i] : random_double(&rng, -200, 200);
    }
    split_sum(x, y, N, 1, 1, 1, first);
    for (int trial = 0; trial < 32; trial++) {
        const int *shape = shapes[(trial * 3) % 8];
        shuffle(x, y, N, &rng);
        split_sum(x, y, N, shape[0], shape[1], shape[2], limbs);
        assert_memory_equal(limbs, first, sizeof first);
    }
}

/* ---- dot products ------------------------------------------------------------------------ */

static void test_dot_product_is_the_rounded_exact_dot(void **state)
{
    static double u[1200], v[1200];
    uint64_t rng = 17;
    (void)state;
    for (int trial = 0; trial < 600; trial++) {
        size_t n = 1 + (size_t)rng_below(&rng, 400);
        const int lo = trial % 2 ? -480 : -30, hi = trial % 2 ? 500 : 30;
        for (size_t i = 0; i < n; i++) {
            u[i] = random_double(&rng, lo, hi);
            v[i] = random_double(&rng, lo, hi);
        }
        if (trial % 3 == 2) { /* every product again, nearly cancelled */
            for (size_t i = 0; i < n; i++) {
                u[n + i] = -u[i];
                v[n + i] = rng_below(&rng, 4) == 0 ? nextafter(v[i], 0.0) : v[i];
            }
            n *= 2;
            shuffle(u, v, n, &rng);
        }
        ref_t r;
        int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS];
        ref_zero(&r);
        for (size_t i = 0; i < n; i++)
            ref_add_product(&r, u[i], v[i]);
        split_sum(u, v, n, 1 + trial % 3, 1 + trial % 4, 1 + trial % 32, limbs);
        assert_same_bits(shardtab_detail_exact_round(limbs), ref_round(&r));
    }
}

/* Below |u*v| = 2^-968 the error term may fall under 2^-1074, and fma rounds it: the
 * result is then the rounded sum of the terms p and fma(u, v, -p), as documented, not
 * of the exact products. Two equal products whose exact error term is K + f units of
 * 2^-1074 with 0.5 < f < 0.75, their p cancelled: the exact dot, 2K + 2f units, rounds
 * to 2K + 1; the rounded error terms give 2K + 2, one unit (2 * 2^-1075, the bound) more. */
static void test_tiny_products_are_the_documented_terms(void **state)
{
    uint64_t rng = 18;
    double u, v, p;
    (void)state;
    for (int tries = 0;; tries++) {
        int eu, ev, ep;
        assert_true(tries < 100000);
        u = fabs(random_double(&rng, -500, -500));
        v = fabs(random_double(&rng, -501, -501)); /* u*v near 2^-1000, normal */
        p = u * v;
        const int64_t mu = ref_split(u, &eu), mv = ref_split(v, &ev), mp = ref_split(p, &ep);
        /* u*v - p = d * 2^(eu + ev), and 2^(eu + ev) = 2^-1074 / 2^s */
        const int s = -1074 - (eu + ev);
        assert_true(s > 2 && s < 64 && ep >= eu + ev);
        const __int128 d = (__int128)mu * mv - ((__int128)mp << (ep - eu - ev));
        if (d <= 0)
            continue;
        const __int128 f = d & ((((__int128)1) << s) - 1); /* the fraction, in 2^-s units */
        if (f > ((__int128)1) << (s - 1) && f < ((__int128)3) << (s - 2))
            break;
    }
    const double us[] = {u, u, -p, -p}, vs[] = {v, v, 1.0, 1.0};
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS];
    ref_t exact, terms;
    split_sum(us, vs, 4, 1, 1, 1, limbs);
    ref_zero(&exact);
    ref_zero(&terms);
    for (int i = 0; i < 4; i++) {
        const double product = us[i] * vs[i];
        ref_add_product(&exact, us[i], vs[i]);
        ref_add_double(&terms, product);
        ref_add_double(&terms, fma(us[i], vs[i], -product));
    }
    const double got = shardtab_detail_exact_round(limbs);
    assert_same_bits(got, ref_round(&terms));
    assert_same_bits(got - ref_round(&exact), ldexp(1.0, -1074)); /* both multiples of it */
}

/* ---- the expansion ---------------------------------------------------------------------- */

static void test_expansion_errors_reach_the_limbs_only_past_the_last_level(void **state)
{
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS], empty[SHARDTAB_DETAIL_EXACT_LIMBS];
    shardtab_detail_exact_expansion_t e;
    (void)state;
    shardtab_detail_exact_zero(limbs);
    shardtab_detail_exact_zero(empty);
    shardtab_detail_exact_expansion_init(&e);
    shardtab_detail_exact_expansion_add(&e, limbs, 1.0);
    shardtab_detail_exact_expansion_add(&e, limbs, ldexp(1.0, -60));
    shardtab_detail_exact_expansion_add(&e, limbs, ldexp(1.0, -120));
    /* three levels hold three parts: nothing reached memory */
    assert_same_bits(e.a[0], 1.0);
    assert_same_bits(e.a[1], ldexp(1.0, -60));
    assert_same_bits(e.a[2], ldexp(1.0, -120));
    assert_memory_equal(limbs, empty, sizeof limbs);
    /* a fourth escapes every level, whole */
    shardtab_detail_exact_expansion_add(&e, limbs, ldexp(3.0, -180));
    assert_same_bits(e.a[2], ldexp(1.0, -120));
    assert_same_bits(shardtab_detail_exact_round(limbs), ldexp(3.0, -180));
    /* after the flush the limbs hold all of it: peel it part by part */
    shardtab_detail_exact_expansion_flush(&e, limbs);
    for (int i = 0; i < SHARDTAB_DETAIL_EXACT_LEVELS; i++)
        assert_same_bits(e.a[i], 0.0);
    assert_same_bits(shardtab_detail_exact_round(limbs), 1.0);
    shardtab_detail_exact_add(limbs, -1.0);
    assert_same_bits(shardtab_detail_exact_round(limbs), ldexp(1.0, -60));
    shardtab_detail_exact_add(limbs, -ldexp(1.0, -60));
    assert_same_bits(shardtab_detail_exact_round(limbs), ldexp(1.0, -120));
    shardtab_detail_exact_add(limbs, -ldexp(1.0, -120));
    assert_same_bits(shardtab_detail_exact_round(limbs), ldexp(3.0, -180));
    shardtab_detail_exact_add(limbs, -ldexp(3.0, -180));
    shardtab_detail_exact_normalize(limbs);
    assert_memory_equal(limbs, empty, sizeof limbs);
}

static void test_expansion_sends_an_overflowing_operand_to_the_limbs(void **state)
{
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS];
    shardtab_detail_exact_expansion_t e;
    (void)state;
    shardtab_detail_exact_zero(limbs);
    shardtab_detail_exact_expansion_init(&e);
    shardtab_detail_exact_expansion_add(&e, limbs, DBL_MAX);
    shardtab_detail_exact_expansion_add(&e, limbs, DBL_MAX);
    assert_same_bits(e.a[0], DBL_MAX);
    assert_same_bits(shardtab_detail_exact_round(limbs), DBL_MAX);
    shardtab_detail_exact_expansion_add_product(&e, limbs, ldexp(1.0, 600),
                                                ldexp(1.5, 423)); /* 1.5 * 2^1023 */
    assert_true(fabs(e.a[0]) <= DBL_MAX && fabs(e.a[1]) <= DBL_MAX && fabs(e.a[2]) <= DBL_MAX);
    shardtab_detail_exact_add(limbs, -DBL_MAX);
    shardtab_detail_exact_add(limbs, -DBL_MAX);
    shardtab_detail_exact_expansion_flush(&e, limbs);
    assert_same_bits(shardtab_detail_exact_round(limbs), ldexp(1.5, 1023));
}

/* After every add, the expansion flushed into a copy of the limbs is the same integer
 * as the accumulator fed every term directly. */
static void test_expansion_and_limbs_always_hold_the_exact_sum(void **state)
{
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS], direct[SHARDTAB_DETAIL_EXACT_LIMBS],
        flushed[SHARDTAB_DETAIL_EXACT_LIMBS];
    shardtab_detail_exact_expansion_t e;
    uint64_t rng = 19;
    int reached = 0;
    (void)state;
    shardtab_detail_exact_zero(limbs);
    shardtab_detail_exact_zero(direct);
    shardtab_detail_exact_expansion_init(&e);
    for (int i = 0; i < 20000; i++) {
        const double x = i % 7 == 0 ? random_any_double(&rng) : random_double(&rng, -80, 80);
        shardtab_detail_exact_expansion_add(&e, limbs, x);
        shardtab_detail_exact_add(direct, x);
        shardtab_detail_exact_expansion_t copy = e;
        memcpy(flushed, limbs, sizeof flushed);
        shardtab_detail_exact_expansion_flush(&copy, flushed);
        shardtab_detail_exact_normalize(flushed);
        int64_t want[SHARDTAB_DETAIL_EXACT_LIMBS];
        memcpy(want, direct, sizeof want);
        shardtab_detail_exact_normalize(want);
        assert_memory_equal(flushed, want, sizeof want);
        for (int k = 0; k < SHARDTAB_DETAIL_EXACT_LIMBS; k++)
            reached |= limbs[k] != 0;
    }
    assert_true(reached); /* some errors did escape */
}

/* ---- inf and nan ------------------------------------------------------------------------- */

static void test_a_nonfinite_term_makes_the_result_nan(void **state)
{
    const double bad[] = {INFINITY, -INFINITY, NAN};
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS], total[SHARDTAB_DETAIL_EXACT_LIMBS];
    shardtab_detail_exact_expansion_t e;
    (void)state;
    for (int b = 0; b < 3; b++) {
        const double x[] = {1.0, bad[b], 2.0};
        assert_true(isnan(expansion_sum(x, 3)));
        assert_true(isnan(direct_sum(x, 3)));
    }
    {
        const double x[] = {INFINITY, -INFINITY};
        assert_true(isnan(expansion_sum(x, 2)));
    }
    /* a product past the range, and the mark carried into another accumulator */
    shardtab_detail_exact_zero(limbs);
    shardtab_detail_exact_expansion_init(&e);
    shardtab_detail_exact_expansion_add_product(&e, limbs, 1e200, 1e200);
    shardtab_detail_exact_expansion_flush(&e, limbs);
    assert_true(isnan(shardtab_detail_exact_round(limbs)));
    shardtab_detail_exact_normalize(limbs);
    shardtab_detail_exact_zero(total);
    shardtab_detail_exact_add(total, 3.0);
    shardtab_detail_exact_add_limbs(total, limbs);
    assert_true(isnan(shardtab_detail_exact_round(total)));
}

/* ---- the limbs: normalization and headroom ------------------------------------------------ */

static void test_normalize_keeps_the_value_and_bounds_the_digits(void **state)
{
    const int64_t bound = INT64_MAX - INT64_C(0x7fffffff); /* 2^63 - 2^31 */
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS], again[SHARDTAB_DETAIL_EXACT_LIMBS];
    uint64_t rng = 20;
    (void)state;
    for (int trial = 0; trial < 4000; trial++) {
        ref_t before, after;
        shardtab_detail_exact_zero(limbs);
        for (int k = 0; k < SHARDTAB_DETAIL_EXACT_DIGITS; k++) {
            switch (trial % 5) {
            case 0: /* the bound, both ways: what 2^31 adds of +-(2^32 - 1) leave */
                limbs[k] = (trial / 5) % 2 ? bound : -bound;
                break;
            case 1:
                limbs[k] = rng_next(&rng) & 1 ? bound : -bound;
                break;
            case 2: /* a small accumulator's digits: a carry or borrow here and there */
                limbs[k] = (int64_t)(rng_next(&rng) >> 31) - (INT64_C(1) << 32);
                break;
            default:
                limbs[k] =
                    (int64_t)(rng_next(&rng) % (uint64_t)bound) * (rng_next(&rng) & 1 ? -1 : 1);
                break;
            }
        }
        if (trial % 7 == 0) /* a top of 0 or -1: values within the double range */
            limbs[SHARDTAB_DETAIL_EXACT_TOP] = limbs[SHARDTAB_DETAIL_EXACT_TOP - 1] = -(trial % 2);
        ref_from_limbs(&before, limbs);
        const double rounded = shardtab_detail_exact_round(limbs);
        shardtab_detail_exact_normalize(limbs);
        for (int k = 0; k < SHARDTAB_DETAIL_EXACT_TOP; k++)
            assert_true(limbs[k] >= 0 && limbs[k] <= INT64_C(0xffffffff));
        ref_from_limbs(&after, limbs);
        assert_memory_equal(&after, &before, sizeof before);
        assert_same_bits(shardtab_detail_exact_round(limbs), rounded);
        assert_same_bits(rounded, ref_round(&before));
        memcpy(again, limbs, sizeof again);
        shardtab_detail_exact_normalize(again);
        assert_memory_equal(again, limbs, sizeof again);
    }
}

/* One term adds at most one digit of at most 2^32 - 1 to a limb: so 2^31 terms leave a
 * limb within 2^31 * (2^32 - 1) = 2^63 - 2^31 (normalize's bound, the test above), and
 * the adds wrap modulo 2^64, so that their order cannot matter. Checked here on a
 * smaller count: 1 - 2^-53 has the digit 2^32 - 1 in limb 33, added 2^16 times. */
static void test_one_limb_takes_many_adds_of_the_largest_digit(void **state)
{
    _Static_assert((INT64_C(1) << 31) * INT64_C(0xffffffff) == INT64_MAX - INT64_C(0x7fffffff),
                   "2^31 adds of 2^32 - 1 reach 2^63 - 2^31");
    const double x = 1.0 - ldexp(1.0, -53);
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS], up_down[SHARDTAB_DETAIL_EXACT_LIMBS],
        empty[SHARDTAB_DETAIL_EXACT_LIMBS];
    uint64_t rng = 21;
    (void)state;
    shardtab_detail_exact_zero(limbs);
    shardtab_detail_exact_add(limbs, x);
    assert_int_equal(limbs[33], INT64_C(0xffffffff));
    for (int i = 1; i < 1 << 16; i++)
        shardtab_detail_exact_add(limbs, x);
    assert_int_equal(limbs[33], (INT64_C(0xffffffff)) << 16);
    assert_same_bits(shardtab_detail_exact_round(limbs), ldexp(x, 16));
    /* the adds wrap: a limb may pass the int64 range on the way, only its end counts */
    shardtab_detail_exact_zero(up_down);
    shardtab_detail_exact_zero(empty);
    up_down[40] = INT64_MAX - INT64_C(0x7fffffff);
    SHARDTAB_DETAIL_EXACT_LIMB_ADD(&up_down[40], INT64_C(0xffffffff)); /* past INT64_MAX */
    assert_true(up_down[40] < 0);
    SHARDTAB_DETAIL_EXACT_LIMB_ADD(&up_down[40], -INT64_C(0xffffffff));
    assert_int_equal(up_down[40], INT64_MAX - INT64_C(0x7fffffff));
    up_down[40] = 0;
    for (int i = 0; i < 1 << 16; i++)
        shardtab_detail_exact_add(up_down, i % 2 ? -x : x);
    assert_memory_equal(up_down, empty, sizeof empty);
    /* every double adds three digits at most, each below 2^32 */
    for (int trial = 0; trial < 100000; trial++) {
        int touched = 0;
        shardtab_detail_exact_zero(limbs);
        shardtab_detail_exact_add(limbs, random_any_double(&rng));
        for (int k = 0; k < SHARDTAB_DETAIL_EXACT_LIMBS; k++) {
            assert_true(limbs[k] > -(INT64_C(1) << 32) && limbs[k] < INT64_C(1) << 32);
            touched += limbs[k] != 0;
        }
        assert_true(touched <= 3);
        assert_int_equal(limbs[SHARDTAB_DETAIL_EXACT_TOP], 0); /* the top takes carries only */
    }
}

/* ---- a few values: one element of SHARDTAB_SUM_EXACT, and rounding to a float ------------ */

static uint64_t bits_of_double(double x)
{
    uint64_t w;
    memcpy(&w, &x, sizeof w);
    return w;
}

static uint64_t bits_of_float(float x)
{
    uint32_t w;
    memcpy(&w, &x, sizeof w);
    return w;
}

/* x's word of the type: a float's bits (x a float's value), or a double's */
static uint64_t word_of(double x, int type)
{
    return type == SHARDTAB_FLOAT ? bits_of_float((float)x) : bits_of_double(x);
}

/* n >= 1 value words summed twice: from zero, every word added; and as the
 * collectives do, the first word the sum (shardtab_detail_exact_few_start),
 * the others added. The two must give the same bits, which are returned. */
static uint64_t few_words(const uint64_t *w, int n, int type)
{
    shardtab_detail_exact_few_t f, g;
    int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS], more[SHARDTAB_DETAIL_EXACT_LIMBS]; /* spills */
    shardtab_detail_exact_few_init(&f, limbs);
    for (int i = 0; i < n; i++)
        shardtab_detail_exact_few_add_word(&f, type, w[i]);
    shardtab_detail_exact_few_start(&g, more, type, w[0]);
    for (int i = 1; i < n; i++)
        shardtab_detail_exact_few_add_word(&g, type, w[i]);
    const uint64_t from_zero = shardtab_detail_exact_few_word(&f, type);
    assert_int_equal(shardtab_detail_exact_few_word(&g, type), from_zero);
    return from_zero;
}

static uint64_t few_sum(const double *x, int n, int type)
{
    uint64_t w[8];
    for (int i = 0; i < n && i < 8; i++)
        w[i] = word_of(x[i], type);
    return few_words(w, n < 8 ? n : 8, type);
}

/* any finite float of a wide range of exponents, as a double */
static double random_float(uint64_t *state, int emin, int emax)
{
    const uint64_t m = rng_next(state) >> 40 | UINT64_C(1) << 23;
    const int e = emin + rng_below(state, emax - emin + 1);
    const float x = (float)ldexp((double)m, e - 23);
    return rng_next(state) & 1 ? -(double)x : (double)x;
}

/* 1 to 8 values (a value a rank): exponents far apart, whole values cancelled
 * and nearly cancelled, the fast path and the limbs both taken; every sum's
 * bits those of the big integer rounded, and the same in every order. */
static void test_few_values_match_the_reference(void **state)
{
    uint64_t rng = 51;
    int fast = 0, spilled = 0;
    (void)state;
    for (int trial = 0; trial < 20000; trial++) {
        const int type = trial % 2 ? SHARDTAB_FLOAT : SHARDTAB_DOUBLE;
        const int n = 1 + rng_below(&rng, 8);
        double x[8];
        ref_t r;
        ref_zero(&r);
        for (int i = 0; i < n; i++) {
            const int kind = rng_below(&rng, 4);
            if (type == SHARDTAB_FLOAT)
                x[i] = random_float(&rng, kind == 0 ? -149 : -40, kind == 0 ? 127 : 40);
            else
                x[i] = random_double(&rng, kind == 0 ? -1074 : -60, kind == 0 ? 1023 : 60);
            if (i > 0 && kind == 1)
                x[i] = -x[i - 1]; /* a whole cancellation */
            if (i > 0 && kind == 2 && type == SHARDTAB_DOUBLE)
                x[i] = -x[i - 1] * (1 + ldexp(1.0, -52)); /* nearly */
            ref_add_double(&r, x[i]);
        }
        const uint64_t want = type == SHARDTAB_FLOAT ? bits_of_float(ref_round_float(&r))
                                                     : bits_of_double(ref_round(&r));
        shardtab_detail_exact_few_t f;
        int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS]; /* its spill */
        shardtab_detail_exact_few_init(&f, limbs);
        for (int i = 0; i < n; i++)
            shardtab_detail_exact_few_add_word(&f, type, word_of(x[i], type));
        if (f.spilled)
            spilled++;
        else
            fast++;
        assert_int_equal(shardtab_detail_exact_few_word(&f, type), want);
        shuffle(x, NULL, (size_t)n, &rng);
        assert_int_equal(few_sum(x, n, type), want);
    }
    assert_true(fast > 1000 && spilled > 1000); /* both paths, often */
}

/* A float is rounded once from the exact sum: 1 + 2^-24 + 2^-60 is just above
 * the tie between 1 and 1 + 2^-23, so it rounds up; through a double (1 + 2^-24,
 * the 2^-60 lost) it would be a tie, rounded down to 1. Ties go to even. */
static void test_floats_round_once_not_through_a_double(void **state)
{
    const double above[] = {1.0, ldexp(1.0, -24), ldexp(1.0, -60)};
    const double tie[] = {1.0, ldexp(1.0, -24)};
    const double tie_odd[] = {1.0 + ldexp(1.0, -23), ldexp(1.0, -24)};
    (void)state;
    assert_int_equal(few_sum(above, 3, SHARDTAB_FLOAT), bits_of_float(1.0f + 0x1p-23f));
    assert_int_equal(few_sum(tie, 2, SHARDTAB_FLOAT), bits_of_float(1.0f));
    assert_int_equal(few_sum(tie_odd, 2, SHARDTAB_FLOAT), bits_of_float(1.0f + 0x1p-22f));
    /* random midpoints: a float, half its ulp (the sum a double on the tie), and a
     * term far below on either side, or none (the tie to even) */
    uint64_t rng = 53;
    for (int trial = 0; trial < 20000; trial++) {
        const double a = random_float(&rng, -60, 120); /* every term below a float too */
        const double half = ldexp(1.0, ilogb(a) - 24) * (rng_next(&rng) & 1 ? -1.0 : 1.0);
        const double below = trial % 3 == 0 ? 0.0 : ldexp(random_float(&rng, 0, 0), ilogb(a) - 60);
        const double x[3] = {a, half, below};
        ref_t r;
        ref_zero(&r);
        for (int i = 0; i < 3; i++)
            ref_add_double(&r, x[i]);
        assert_int_equal(few_sum(x, 3, SHARDTAB_FLOAT), bits_of_float(ref_round_float(&r)));
    }
    /* the limbs' own rounding to a float, the public call */
    int64_t limbs[SHARDTAB_EXACT_WORDS];
    shardtab_exact_zero(limbs);
    for (int i = 0; i < 3; i++)
        shardtab_exact_add(limbs, above[i]);
    assert_true(shardtab_exact_round_float(limbs) == 1.0f + 0x1p-23f);
    assert_same_bits(shardtab_exact_round(limbs), 1.0 + ldexp(1.0, -24));
}

/* The ends of the range: subnormal sums exact, past the range inf (of the type,
 * not of a double), an exact zero +0.0 but -0.0 of -0.0s; the order-free rule
 * of infinities and NaNs (shardtab_types.h), and one value itself. */
static void test_few_values_at_the_ends_of_the_range(void **state)
{
    const double tiny[] = {ldexp(1.0, -1074), ldexp(1.0, -1074), -ldexp(3.0, -1074)};
    const double big[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
    const double over[] = {DBL_MAX, ldexp(1.0, 970)};          /* the tie above DBL_MAX: inf */
    const double under[] = {DBL_MAX, ldexp(1.0, 969)};         /* below the tie: DBL_MAX */
    const double fover[] = {(double)FLT_MAX, ldexp(1.0, 103)}; /* a float's tie: inf */
    const double fsub[] = {ldexp(1.0, -149), ldexp(1.0, -149), ldexp(3.0, -149)}; /* exact */
    const double zeros[] = {-0.0, -0.0};
    const double cancel[] = {-1.5, 1.5};
    const double nonfinite[] = {1.0, INFINITY, -INFINITY};
    const double inf_in[] = {1.0, INFINITY, -DBL_MAX, INFINITY};
    const double minus_inf[] = {-INFINITY, FLT_MAX};
    const double mixed_zeros[] = {-0.0, 0.0, -0.0};
    const uint64_t nans[] = {UINT64_C(0x7ff8000000000123), 0x3ff0000000000000,
                             UINT64_C(0xfff8000000000000), UINT64_C(0x7ff0000000000000)};
    const uint64_t float_nans[] = {0x7fc00001, 0xff800001, 0x3f800000};
    const uint64_t one_nan = UINT64_C(0x7ff0000000000001), one_minus_zero = UINT64_C(1) << 63;
    (void)state;
    assert_int_equal(few_sum(tiny, 3, SHARDTAB_DOUBLE), bits_of_double(-ldexp(1.0, -1074)));
    assert_int_equal(few_sum(big, 3, SHARDTAB_DOUBLE), bits_of_double(DBL_MAX));
    assert_int_equal(few_sum(over, 2, SHARDTAB_DOUBLE), bits_of_double(INFINITY));
    assert_int_equal(few_sum(under, 2, SHARDTAB_DOUBLE), bits_of_double(DBL_MAX));
    assert_int_equal(few_sum(fover, 2, SHARDTAB_FLOAT), bits_of_float(INFINITY));
    assert_int_equal(few_sum(fsub, 3, SHARDTAB_FLOAT), 5);
    assert_int_equal(few_sum(zeros, 2, SHARDTAB_DOUBLE), UINT64_C(1) << 63);
    assert_int_equal(few_sum(zeros, 2, SHARDTAB_FLOAT), UINT64_C(1) << 31);
    assert_int_equal(few_sum(mixed_zeros, 3, SHARDTAB_DOUBLE), 0);
    assert_int_equal(few_sum(cancel, 2, SHARDTAB_DOUBLE), 0);
    assert_int_equal(few_sum(cancel, 2, SHARDTAB_FLOAT), 0);
    assert_int_equal(few_sum(nonfinite, 3, SHARDTAB_DOUBLE), UINT64_C(0x7ff8000000000000));
    assert_int_equal(few_sum(nonfinite, 3, SHARDTAB_FLOAT), UINT64_C(0x7fc00000));
    assert_int_equal(few_sum(inf_in, 4, SHARDTAB_DOUBLE), bits_of_double(INFINITY));
    assert_int_equal(few_sum(minus_inf, 2, SHARDTAB_FLOAT), bits_of_float(-INFINITY));
    assert_int_equal(few_words(nans, 4, SHARDTAB_DOUBLE), UINT64_C(0xfff8000000000000));
    assert_int_equal(few_words(float_nans, 3, SHARDTAB_FLOAT), 0xff800001);
    /* one value: itself, NaN payloads and -0.0 included */
    assert_int_equal(few_words(&one_nan, 1, SHARDTAB_DOUBLE), one_nan);
    assert_int_equal(few_words(&one_minus_zero, 1, SHARDTAB_DOUBLE), one_minus_zero);
    assert_int_equal(few_words(&float_nans[1], 1, SHARDTAB_FLOAT), float_nans[1]);
}

/* The dot product recipe of shardtab_comm.h: one global pair of arrays split over
 * 1 to 4 "ranks" in different ways, each rank's accumulator normalized and the
 * words summed as int64 (wrapping), then rounded: the same bits at every split,
 * those of the big integer. */
static void test_dot_words_summed_as_int64_give_the_same_bits_at_any_split(void **state)
{
    enum { N = 999 };
    static double x[N], y[N];
    uint64_t rng = 52;
    ref_t r;
    (void)state;
    ref_zero(&r);
    for (int i = 0; i < N; i++) {
        x[i] = random_double(&rng, -300, 300);
        y[i] = i % 3 == 2 ? -x[i - 1] * y[i - 1] / x[i] : random_double(&rng, -300, 300);
        ref_add_product(&r, x[i], y[i]);
    }
    const double want = ref_round(&r);
    for (int ranks = 1; ranks <= 4; ranks++)
        for (int uneven = 0; uneven < 2; uneven++) {
            uint64_t total[SHARDTAB_EXACT_WORDS] = {0};
            int begin = 0;
            for (int rank = 0; rank < ranks; rank++) {
                const int end = rank == ranks - 1 ? N
                                : uneven          ? begin + (N / ranks) / (rank + 2)
                                                  : (rank + 1) * N / ranks;
                int64_t acc[SHARDTAB_EXACT_WORDS];
                shardtab_exact_zero(acc);
                shardtab_dot_exact_block(x + begin, y + begin, (size_t)(end - begin), acc);
                shardtab_exact_normalize(acc);
                for (int k = 0; k < SHARDTAB_EXACT_WORDS; k++)
                    total[k] += (uint64_t)acc[k]; /* an int64 SUM: wraps */
                begin = end;
            }
            assert_same_bits(shardtab_exact_round((const int64_t *)total), want);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_terms_round_like_the_hardware_add),
        cmocka_unit_test(test_product_plus_a_term_rounds_like_the_hardware_fma),
        cmocka_unit_test(test_random_sums_match_the_reference),
        cmocka_unit_test(test_cancellation_leaves_the_small_terms),
        cmocka_unit_test(test_ties_round_to_even),
        cmocka_unit_test(test_subnormal_results_are_exact),
        cmocka_unit_test(test_results_beyond_the_range_are_inf_and_near_dbl_max_are_exact),
        cmocka_unit_test(test_order_and_split_do_not_change_the_bits),
        cmocka_unit_test(test_dot_product_is_the_rounded_exact_dot),
        cmocka_unit_test(test_tiny_products_are_the_documented_terms),
        cmocka_unit_test(test_expansion_errors_reach_the_limbs_only_past_the_last_level),
        cmocka_unit_test(test_expansion_sends_an_overflowing_operand_to_the_limbs),
        cmocka_unit_test(test_expansion_and_limbs_always_hold_the_exact_sum),
        cmocka_unit_test(test_a_nonfinite_term_makes_the_result_nan),
        cmocka_unit_test(test_normalize_keeps_the_value_and_bounds_the_digits),
        cmocka_unit_test(test_one_limb_takes_many_adds_of_the_largest_digit),
        cmocka_unit_test(test_few_values_match_the_reference),
        cmocka_unit_test(test_floats_round_once_not_through_a_double),
        cmocka_unit_test(test_few_values_at_the_ends_of_the_range),
        cmocka_unit_test(test_dot_words_summed_as_int64_give_the_same_bits_at_any_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
