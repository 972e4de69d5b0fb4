/* shardtab/exact.h - exact sums of doubles, written once for every backend
 * (detail, not API: shardtab_comm.h's shardtab_exact_* and SHARDTAB_SUM_EXACT
 * are the API over it): HIP and CUDA kernels and the host backend's C loops
 * include the same code. The collectives' SHARDTAB_SUM_EXACT, the device-side
 * exact dot product, and the cg solver's reproducible dot products (--repro)
 * all round from it.
 *
 * A sum is rounded once, to nearest with ties to even, from the EXACT sum of
 * its terms, so its bits are the same whatever the order of the terms and
 * however they are split over threads, blocks, GPUs and ranks. The model is
 * Collange, Defour, Graillat and Iakymchuk, "Full-speed deterministic
 * bit-accurate parallel floating-point summation" (2015):
 *   - TwoProduct: u*v == p + e exactly, p = RN(u*v), e = fma(u, v, -p);
 *   - a per-thread expansion of SHARDTAB_DETAIL_EXACT_LEVELS doubles kept by
 *     TwoSum (s + err == a + b exactly): most terms never touch memory, and
 *     what escapes its last level goes to
 *   - a superaccumulator: a fixed-point integer wide enough for every double,
 *     in base-2^32 digits held by int64 limbs. Integer addition is exact and
 *     associative, so any order of adds, and any split into accumulators that
 *     are then added together, gives the same integer: rounding it once
 *     (shardtab_detail_exact_round, _round_bits) gives the same bits.
 * A handful of values (one element of an all-reduce: a value a rank) goes
 * through shardtab_detail_exact_few_t: a double-double kept by TwoSum, rounded
 * by one add when nothing escaped it, else a superaccumulator of its own.
 * Exactness: TwoSum is exact whenever its sum s is finite, without spurious
 * overflow in its other steps (Boldo, Graillat, Muller, "On the robustness
 * of the 2Sum and Fast2Sum algorithms", 2017); a sum that would overflow sends
 * its operand to the limbs instead, so the expansion never holds an inf.
 * What is not exact, or not handled:
 *   - a product with |u*v| < 2^-968 may have an error term below 2^-1074,
 *     which fma rounds: the dot is then off by at most 2^-1075 per such
 *     product. Its terms p and e are still fixed functions of (u, v), so the
 *     result is as reproducible as ever;
 *   - an inf or nan input, or a product beyond the double range, makes the
 *     result the default NaN (counted in limbs[SHARDTAB_DETAIL_EXACT_NONFINITE]);
 *   - an exact zero is +0.0, whatever the signs of the zeros added;
 *   - one accumulator takes at most 2^31 adds per limb (SHARDTAB_DETAIL_EXACT_LIMB_ADD).
 * The arithmetic must be IEEE double: no -ffast-math, no x87 extended
 * precision, and no contraction of a multiply into TwoSum's adds (the
 * per-target section keeps them apart; the host relies on ISO C, -std=c11,
 * under which GCC does not contract). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_DETAIL_EXACT_H
#define SHARDTAB_DETAIL_EXACT_H

#include <stdint.h>
#include <float.h>

#include "shardtab_device.h"
#include "shardtab_types.h"

#if defined(SHARDTAB_DEVICE_HOST)
#  include <math.h>
#  include <string.h>
#endif

/* shardtab_comm.h includes this header for every kernel that uses the device
 * layer: a build that breaks IEEE arithmetic is told so (the exact sums are then
 * not exact), not refused (its puts and other collectives are fine). */
#if defined(__FAST_MATH__)
#  warning "-ffast-math: SHARDTAB_SUM_EXACT and shardtab_exact_* are not exact (no TwoSum)"
#endif
#if defined(SHARDTAB_DEVICE_HOST) && defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD > 0
#  warning "x87 extended doubles (FLT_EVAL_METHOD > 0): shardtab's exact sums are not exact"
#endif

/* ---- the accumulator's layout ----------------------------------------------------
 * Limb k (0 <= k < SHARDTAB_DETAIL_EXACT_DIGITS) holds a digit of weight 2^(32*(k - SHARDTAB_DETAIL_EXACT_BIAS)),
 * so bit b of the integer weighs 2^(b - SHARDTAB_DETAIL_EXACT_POINT). A double's bits lie
 * between 2^-1074 (bit 14, in limb 0) and 2^1023 (bit 2111, in limb 65); limb 66,
 * the top, only takes carries and holds the sign once normalized: it keeps
 * sums of 2^31 terms below 2^1024 (below 2^1055) with room to spare.
 * limbs[SHARDTAB_DETAIL_EXACT_NONFINITE] counts inf and nan inputs. */
#define SHARDTAB_DETAIL_EXACT_BIAS 34
#define SHARDTAB_DETAIL_EXACT_POINT                                                                \
  (32 * SHARDTAB_DETAIL_EXACT_BIAS) /* bit position of 2^0: 1088 */
#define SHARDTAB_DETAIL_EXACT_DIGITS 67
#define SHARDTAB_DETAIL_EXACT_TOP (SHARDTAB_DETAIL_EXACT_DIGITS - 1)
#define SHARDTAB_DETAIL_EXACT_NONFINITE SHARDTAB_DETAIL_EXACT_DIGITS
#define SHARDTAB_DETAIL_EXACT_LIMBS                                                                \
  (SHARDTAB_DETAIL_EXACT_DIGITS + 1) /* int64_t limbs[SHARDTAB_DETAIL_EXACT_LIMBS] */

#define SHARDTAB_DETAIL_EXACT_LEVELS 3 /* doubles of a thread's expansion */

/* ---- per target: a double's bits, the limb add, and IEEE add and multiply ----------
 * SHARDTAB_DETAIL_EXACT_LIMB_ADD(limb, v) adds v (|v| < 2^32) to one limb: an atomic on GPUs
 * (global or shared memory), a plain add on the host (a block of one thread). Both
 * wrap modulo 2^64, so the order of the adds cannot matter and only the limb's final
 * value must fit in an int64: 2^31 adds of |v| <= 2^32 - 1 stay within
 * 2^31 * (2^32 - 1) = 2^63 - 2^31. A kernel whose limbs are its thread's own may
 * define SHARDTAB_DETAIL_EXACT_LIMB_ADD before including this header.
 * shardtab_detail_exact_dadd, _dsub and _dmul are the rounded operations that no compiler may fuse
 * into an fma with their neighbours: nvcc fuses a multiply and an add across
 * statements, clang honours a pragma for HIP. */
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#  ifndef SHARDTAB_DETAIL_EXACT_LIMB_ADD
#    define SHARDTAB_DETAIL_EXACT_LIMB_ADD(limb, v)                                                \
      ((void)atomicAdd((unsigned long long *)(limb), (unsigned long long)(v)))
#  endif
#else
#  ifndef SHARDTAB_DETAIL_EXACT_LIMB_ADD
#    define SHARDTAB_DETAIL_EXACT_LIMB_ADD(limb, v) ((void)(*(uint64_t *)(limb) += (uint64_t)(v)))
#  endif
#endif

#if defined(SHARDTAB_DEVICE_CUDA)
SHARDTAB_DEVFN double shardtab_detail_exact_dadd(double a, double b)
{
    return __dadd_rn(a, b);
}
SHARDTAB_DEVFN double shardtab_detail_exact_dsub(double a, double b)
{
    return __dsub_rn(a, b);
}
SHARDTAB_DEVFN double shardtab_detail_exact_dmul(double a, double b)
{
    return __dmul_rn(a, b);
}
#else
#  if defined(__clang__)
#    define SHARDTAB_DETAIL_EXACT_NO_CONTRACT _Pragma("clang fp contract(off)")
#  else
#    define SHARDTAB_DETAIL_EXACT_NO_CONTRACT
#  endif
SHARDTAB_DEVFN double shardtab_detail_exact_dadd(double a, double b)
{
    SHARDTAB_DETAIL_EXACT_NO_CONTRACT
    return a + b;
}
SHARDTAB_DEVFN double shardtab_detail_exact_dsub(double a, double b)
{
    SHARDTAB_DETAIL_EXACT_NO_CONTRACT
    return a - b;
}
SHARDTAB_DEVFN double shardtab_detail_exact_dmul(double a, double b)
{
    SHARDTAB_DETAIL_EXACT_NO_CONTRACT
    return a * b;
}
#endif

/* The paths a dot product rarely takes (an add that overflows the
 * expansion into the limbs) and those taken once a reduction (normalizing
 * and rounding the limbs): kept out of the GPU kernels' loops, so that they
 * take neither registers nor code there. */
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#  define SHARDTAB_DETAIL_EXACT_COLD __device__ static __noinline__
#elif defined(__GNUC__) /* and clang: out of the host's loops too; unused where unused */
#  define SHARDTAB_DETAIL_EXACT_COLD static __attribute__((noinline, cold, unused))
#else
#  define SHARDTAB_DETAIL_EXACT_COLD SHARDTAB_DEVFN
#endif

/* ---- the superaccumulator ---------------------------------------------------------- */

SHARDTAB_DEVFN void shardtab_detail_exact_zero(int64_t *limbs)
{
    for (int k = 0; k < SHARDTAB_DETAIL_EXACT_LIMBS; k++)
        limbs[k] = 0;
}

/* Where a double goes: x = m * 2^(e - 1075) with m its 53-bit integer significand
 * and e its biased exponent (e = 1 and no hidden bit for subnormals); m's last bit
 * lands on bit e + 13 of the accumulator, so m shifted into place spans three
 * digits at most: digit[j] (signed as x) goes to limb *k + j. Returns 0 for an
 * inf or nan, which is counted, not added. */
SHARDTAB_DEVFN int shardtab_detail_exact_place(double x, int *k, int64_t digit[3])
{
    const uint64_t bits = shardtab_detail_double_bits(x);
    const int negative = (int)(bits >> 63);
    const int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);

    if (biased == 0x7ff)
        return 0;
    if (biased != 0)
        m |= UINT64_C(1) << 52;
    const int pos = (biased != 0 ? biased : 1) + (SHARDTAB_DETAIL_EXACT_POINT - 1075);
    const int shift = pos & 31;
    const uint64_t high = m >> (32 - shift); /* (m << shift) >> 32: below 2^53 */
    *k = pos >> 5;
    digit[0] = (int64_t)((m << shift) & 0xffffffffu);
    digit[1] = (int64_t)(high & 0xffffffffu);
    digit[2] = (int64_t)(high >> 32);
    for (int j = 0; j < 3; j++)
        digit[j] = negative ? -digit[j] : digit[j];
    return 1;
}

/* Adds a double exactly, each limb by SHARDTAB_DETAIL_EXACT_LIMB_ADD (an atomic
 * on GPUs: limbs the block's threads share). 0 adds nothing. */
SHARDTAB_DETAIL_EXACT_COLD void shardtab_detail_exact_add(int64_t *limbs, double x)
{
    int64_t digit[3];
    int k = 0;

    if (!shardtab_detail_exact_place(x, &k, digit)) {
        SHARDTAB_DETAIL_EXACT_LIMB_ADD(&limbs[SHARDTAB_DETAIL_EXACT_NONFINITE], 1);
        return;
    }
    for (int j = 0; j < 3; j++)
        if (digit[j] != 0)
            SHARDTAB_DETAIL_EXACT_LIMB_ADD(&limbs[k + j], digit[j]);
}

/* The same into limbs the calling thread alone holds (a plain add: no atomic
 * on a thread's own memory). */
SHARDTAB_DETAIL_EXACT_COLD void shardtab_detail_exact_add_own(int64_t *limbs, double x)
{
    int64_t digit[3];
    int k = 0;

    if (!shardtab_detail_exact_place(x, &k, digit)) {
        limbs[SHARDTAB_DETAIL_EXACT_NONFINITE] += 1;
        return;
    }
    for (int j = 0; j < 3; j++)
        limbs[k + j] = (int64_t)((uint64_t)limbs[k + j] + (uint64_t)digit[j]);
}

/* Carries every limb but the top into the next, leaving it in [0, 2^32); the top
 * carries the sign (a two's complement integer) and the value is unchanged. Not
 * atomic: call it once no thread adds any more. With every |limb| <= 2^63 - 2^31
 * (the 2^31-add bound) no step overflows: a carry is within [-2^31, 2^31 - 1]. */
SHARDTAB_DETAIL_EXACT_COLD void shardtab_detail_exact_normalize(int64_t *limbs)
{
    for (int k = 0; k < SHARDTAB_DETAIL_EXACT_TOP; k++) {
        const int64_t carry = limbs[k] >> 32; /* floor(limb / 2^32): an arithmetic shift */
        limbs[k] &= INT64_C(0xffffffff);
        limbs[k + 1] += carry;
    }
}

/* Adds a normalized accumulator into another, digit by digit: one add of
 * |v| < 2^32 per limb, except the top's (a sum of 2^31 terms has |top| <= 2^31). */
SHARDTAB_DEVFN void shardtab_detail_exact_add_limbs(int64_t *into, const int64_t *normalized)
{
    for (int k = 0; k < SHARDTAB_DETAIL_EXACT_LIMBS; k++)
        if (normalized[k] != 0)
            SHARDTAB_DETAIL_EXACT_LIMB_ADD(&into[k], normalized[k]);
}

/* bit p of a normalized, non-negative digit array */
SHARDTAB_DEVFN int shardtab_detail_exact_bit(const int64_t *digits, int p)
{
    return (int)((digits[p >> 5] >> (p & 31)) & 1);
}

/* whether any of bits 0 .. p-1 is set */
SHARDTAB_DEVFN int shardtab_detail_exact_any_below(const int64_t *digits, int p)
{
    for (int k = 0; k < (p >> 5); k++)
        if (digits[k] != 0)
            return 1;
    return (digits[p >> 5] & ((INT64_C(1) << (p & 31)) - 1)) != 0;
}

/* the 64 bits from bit p up */
SHARDTAB_DEVFN uint64_t shardtab_detail_exact_window(const int64_t *digits, int p)
{
    const int k = p >> 5, shift = p & 31;
    const uint64_t next = k + 1 < SHARDTAB_DETAIL_EXACT_DIGITS ? (uint64_t)digits[k + 1] : 0;
    const uint64_t after = k + 2 < SHARDTAB_DETAIL_EXACT_DIGITS ? (uint64_t)digits[k + 2] : 0;
    const uint64_t low = (uint64_t)digits[k] | next << 32;

    return shift == 0 ? low : low >> shift | after << (64 - shift);
}

/* The exact value rounded to nearest, ties to even, as the bits of a double
 * (wide) or of a float (in the low half): subnormals exact, +-inf past the
 * type's range, +0 for an exact 0, the default NaN if an inf or nan was added.
 * One rounding from the exact value for either type (a float is never a
 * rounded double rounded again). Takes a normalized or non-normalized
 * accumulator (it normalizes a copy). */
SHARDTAB_DETAIL_EXACT_COLD uint64_t shardtab_detail_exact_round_bits(const int64_t *limbs, int wide)
{
    const int digits = wide ? 53 : 24; /* the significand's bits, hidden one included */
    const int emin = wide ? -1074 : -149, emax = wide ? 1023 : 127; /* quantum, exponent */
    const uint64_t sign_bit = wide ? UINT64_C(1) << 63 : UINT64_C(1) << 31;
    const uint64_t inf_bits = wide ? UINT64_C(0x7ff0000000000000) : UINT64_C(0x7f800000);
    int64_t d[SHARDTAB_DETAIL_EXACT_DIGITS];
    uint64_t sign = 0;

    if (limbs[SHARDTAB_DETAIL_EXACT_NONFINITE] != 0)
        return wide ? UINT64_C(0x7ff8000000000000) : UINT64_C(0x7fc00000);
    for (int k = 0; k < SHARDTAB_DETAIL_EXACT_DIGITS; k++)
        d[k] = limbs[k];
    shardtab_detail_exact_normalize(d);

    /* A top of -1 is a negative value above -2^1024: work on its magnitude. Any
     * other nonzero top is a magnitude of 2^1024 or more. */
    if (d[SHARDTAB_DETAIL_EXACT_TOP] == -1) {
        sign = sign_bit;
        for (int k = 0; k < SHARDTAB_DETAIL_EXACT_DIGITS; k++)
            d[k] = -d[k];
        shardtab_detail_exact_normalize(d);
    }
    if (d[SHARDTAB_DETAIL_EXACT_TOP] != 0)
        return (d[SHARDTAB_DETAIL_EXACT_TOP] < 0 ? sign_bit : sign) | inf_bits;

    int k = SHARDTAB_DETAIL_EXACT_TOP - 1;
    while (k >= 0 && d[k] == 0)
        k--;
    if (k < 0)
        return 0;
    int lead = 32 * k + 31; /* the leading bit's position */
    while (!shardtab_detail_exact_bit(d, lead))
        lead--;
    if (lead - SHARDTAB_DETAIL_EXACT_POINT > emax) /* 2^128 or more, as a float */
        return sign | inf_bits;

    /* The result's last bit: digits - 1 below the leading one, or the smallest
     * subnormal's (2^-1074 is bit 14, 2^-149 bit 939: the rounding bit below exists). */
    int quantum = lead - SHARDTAB_DETAIL_EXACT_POINT - (digits - 1);
    if (quantum < emin)
        quantum = emin;
    const int last = quantum + SHARDTAB_DETAIL_EXACT_POINT;
    uint64_t m = shardtab_detail_exact_window(d, last); /* bits last .. lead: below 2^digits */
    const uint64_t half = (uint64_t)shardtab_detail_exact_bit(d, last - 1);
    const uint64_t sticky = (uint64_t)shardtab_detail_exact_any_below(d, last - 1);
    m += half & (sticky | (m & 1));

    /* The value is m * 2^quantum, and its bits are exactly this sum: m's hidden bit
     * adds 1 to the exponent field (hence quantum - emin = biased exponent - 1), a
     * subnormal has no hidden bit and quantum - emin = 0, and a round up to
     * m = 2^digits carries into the exponent, from the largest finite value's up to inf's. */
    return sign | (((uint64_t)(quantum - emin) << (digits - 1)) + m);
}

/* The exact value rounded to the nearest double (shardtab_detail_exact_round_bits). */
SHARDTAB_DEVFN double shardtab_detail_exact_round(const int64_t *limbs)
{
    return shardtab_detail_bits_double(shardtab_detail_exact_round_bits(limbs, 1));
}

/* ---- the expansion in front of it ---------------------------------------------------- */

typedef struct shardtab_detail_exact_expansion {
    double a[SHARDTAB_DETAIL_EXACT_LEVELS];
} shardtab_detail_exact_expansion_t;

/* Knuth's TwoSum, branch-free: s = RN(a + b) and *err = a + b - s exactly while s
 * is finite. */
SHARDTAB_DEVFN double shardtab_detail_exact_two_sum(double a, double b, double *err)
{
    const double s = shardtab_detail_exact_dadd(a, b);
    const double b_virtual = shardtab_detail_exact_dsub(s, a);
    const double a_virtual = shardtab_detail_exact_dsub(s, b_virtual);

    *err = shardtab_detail_exact_dadd(shardtab_detail_exact_dsub(a, a_virtual),
                                      shardtab_detail_exact_dsub(b, b_virtual));
    return s;
}

SHARDTAB_DEVFN void shardtab_detail_exact_expansion_init(shardtab_detail_exact_expansion_t *e)
{
    for (int i = 0; i < SHARDTAB_DETAIL_EXACT_LEVELS; i++)
        e->a[i] = 0.0;
}

/* Adds x: it cascades down the levels, a[i] keeping the sum and x becoming its
 * error; an error left after the last level, or an operand whose sum would
 * overflow, goes to the limbs. Always, a[0] + ... + a[N-1] plus what the limbs
 * received is the exact sum of everything added. Lanes that keep copies of
 * one expansion (every lane of a chunk: cg's kernels) pass limbs NULL but one:
 * their expansions stay alike, and the overflow is added once. */
SHARDTAB_DEVFN void shardtab_detail_exact_expansion_add(shardtab_detail_exact_expansion_t *e,
                                                        int64_t *limbs, double x)
{
    for (int i = 0; i < SHARDTAB_DETAIL_EXACT_LEVELS; i++) {
        double err;
        const double s = shardtab_detail_exact_two_sum(e->a[i], x, &err);
        if (!(fabs(s) <= DBL_MAX)) { /* inf, or nan from an inf or nan x */
            if (limbs)
                shardtab_detail_exact_add(limbs, x);
            return;
        }
        e->a[i] = s;
        x = err;
    }
    if (x != 0.0 && limbs)
        shardtab_detail_exact_add(limbs, x);
}

/* Adds u*v: both parts of TwoProduct. Exact when |u*v| >= 2^-968 (the error
 * term's last bit is then at or above 2^-1074), and whenever u's and v's last
 * set bits weigh 2^-1074 or more together; otherwise off by at most 2^-1075. */
SHARDTAB_DEVFN void shardtab_detail_exact_expansion_add_product(
    shardtab_detail_exact_expansion_t *e, int64_t *limbs, double u, double v)
{
    const double p = shardtab_detail_exact_dmul(u, v);
    const double err = fma(u, v, -p);

    shardtab_detail_exact_expansion_add(e, limbs, p);
    shardtab_detail_exact_expansion_add(e, limbs, err);
}

/* Adds every level to the limbs and zeroes the expansion. */
SHARDTAB_DEVFN void shardtab_detail_exact_expansion_flush(shardtab_detail_exact_expansion_t *e,
                                                          int64_t *limbs)
{
    for (int i = 0; i < SHARDTAB_DETAIL_EXACT_LEVELS; i++) {
        shardtab_detail_exact_add(limbs, e->a[i]);
        e->a[i] = 0.0;
    }
}

/* ---- a handful of values: one element of SHARDTAB_SUM_EXACT ---------------------------
 * hi + lo is the exact sum of what was added (at most two TwoSums an add; the
 * first value taken as it is, shardtab_detail_exact_few_start), while every
 * sum stayed finite and nothing escaped lo's TwoSum; then RN(hi + lo), one add, is
 * the exact sum rounded (the rounding of an exact value). The first add that
 * breaks either moves the sum into the state's own superaccumulator, exactly (hi,
 * lo and what escaped), where every later value goes: the result is the same bits
 * either way. Values come in as words (add_word): an inf or NaN is noted apart,
 * and -0.0 tracked, so that the result of SHARDTAB_SUM_EXACT's rule depends on
 * no order and one value is itself. A float's sum is rounded from hi + lo as
 * one double and its remainder, never twice: the double's nearest float, or at
 * a midpoint of two floats the one on the remainder's side. */
typedef struct shardtab_detail_exact_few {
    double hi, lo;
    int spilled;    /* the sum is in limbs, not hi + lo */
    int infs;       /* the infinities seen: 1 +inf, 2 -inf (add_word) */
    int all_minus;  /* every value so far -0.0 (add_word) */
    uint64_t nan;   /* the greatest NaN word seen, or 0 (add_word) */
    int64_t *limbs; /* the caller's SHARDTAB_DETAIL_EXACT_LIMBS words, the thread's own:
                       apart from the state, so that hi and lo stay in registers */
} shardtab_detail_exact_few_t;

SHARDTAB_DEVFN void shardtab_detail_exact_few_init(shardtab_detail_exact_few_t *f, int64_t *limbs)
{
    f->hi = 0.0;
    f->lo = 0.0;
    f->spilled = 0;
    f->infs = 0;
    f->all_minus = 1;
    f->nan = 0;
    f->limbs = limbs;
}

/* a + b + x, the sum so far and the value that broke the fast path, into limbs */
SHARDTAB_DETAIL_EXACT_COLD void shardtab_detail_exact_few_spill(int64_t *limbs, double a, double b,
                                                                double x)
{
    for (int k = 0; k < SHARDTAB_DETAIL_EXACT_LIMBS; k++)
        limbs[k] = 0;
    shardtab_detail_exact_add_own(limbs, a);
    shardtab_detail_exact_add_own(limbs, b);
    shardtab_detail_exact_add_own(limbs, x);
}

SHARDTAB_DEVFN void shardtab_detail_exact_few_add(shardtab_detail_exact_few_t *f, double x)
{
    if (f->spilled) {
        shardtab_detail_exact_add_own(f->limbs, x);
        return;
    }
    double err, escaped;
    const double hi = shardtab_detail_exact_two_sum(f->hi, x, &err);
    if (!(fabs(hi) <= DBL_MAX)) { /* inf, or nan from an inf or nan x */
        shardtab_detail_exact_few_spill(f->limbs, f->hi, f->lo, x);
        f->spilled = 1;
        return;
    }
    f->hi = hi;
    if (err == 0.0) /* an exact add (most adds of floats, as doubles): lo stays */
        return;
    const double lo = shardtab_detail_exact_two_sum(f->lo, err, &escaped);
    if (escaped != 0.0) {
        shardtab_detail_exact_few_spill(f->limbs, hi, lo, escaped);
        f->spilled = 1;
        return;
    }
    f->lo = lo;
}

/* A value word of the type (a float in the low half) as a double: exact. */
SHARDTAB_DEVFN double shardtab_detail_exact_word_value(int type, uint64_t w)
{
    return type == SHARDTAB_FLOAT ? (double)shardtab_detail_bits_float((uint32_t)w)
                                  : shardtab_detail_bits_double(w);
}

/* One value word of the type (SHARDTAB_FLOAT in the low half, or
 * SHARDTAB_DOUBLE): an inf or NaN is noted, not summed, so that the result's
 * rule depends on no order (shardtab_types.h's SHARDTAB_SUM_EXACT), and 0
 * returned; else 1, its value in *x, -0.0 tracked. */
SHARDTAB_DEVFN int shardtab_detail_exact_few_value(shardtab_detail_exact_few_t *f, int type,
                                                   uint64_t w, double *x)
{
    const int wide = type != SHARDTAB_FLOAT;
    const uint64_t sign = wide ? UINT64_C(1) << 63 : UINT64_C(1) << 31;
    const uint64_t inf = wide ? UINT64_C(0x7ff0000000000000) : UINT64_C(0x7f800000);

    w &= wide ? ~UINT64_C(0) : UINT64_C(0xffffffff);
    if ((w & ~sign) > inf) {
        f->nan = w > f->nan ? w : f->nan;
        return 0;
    }
    if ((w & ~sign) == inf) {
        f->infs |= w & sign ? 2 : 1;
        return 0;
    }
    f->all_minus &= w == sign;
    *x = shardtab_detail_exact_word_value(type, w);
    return 1;
}

/* Adds one value word of the type (shardtab_detail_exact_few_value). */
SHARDTAB_DEVFN void shardtab_detail_exact_few_add_word(shardtab_detail_exact_few_t *f, int type,
                                                       uint64_t w)
{
    double x;
    if (shardtab_detail_exact_few_value(f, type, w, &x))
        shardtab_detail_exact_few_add(f, x);
}

/* A sum (limbs as shardtab_detail_exact_few_init's) of its first value word:
 * that value itself, with no TwoSum (exactly what adding it to zero gives,
 * but for -0.0, which the rounding's zero rule treats alike). */
SHARDTAB_DEVFN void shardtab_detail_exact_few_start(shardtab_detail_exact_few_t *f, int64_t *limbs,
                                                    int type, uint64_t w)
{
    double x;
    shardtab_detail_exact_few_init(f, limbs);
    if (shardtab_detail_exact_few_value(f, type, w, &x))
        f->hi = x;
}

/* The sum rounded once to the type (SHARDTAB_FLOAT or SHARDTAB_DOUBLE), as a value word. */
SHARDTAB_DEVFN uint64_t shardtab_detail_exact_few_word(shardtab_detail_exact_few_t *f, int type)
{
    const int wide = type != SHARDTAB_FLOAT;
    const uint64_t minus_zero = f->all_minus ? (wide ? UINT64_C(1) << 63 : UINT64_C(1) << 31) : 0;

    if (f->nan != 0 || f->infs != 0) /* a NaN, the greatest; both infinities: NaN */
        return f->nan != 0    ? f->nan
               : f->infs == 3 ? (wide ? UINT64_C(0x7ff8000000000000) : UINT64_C(0x7fc00000))
               : wide ? (f->infs == 2 ? UINT64_C(1) << 63 : 0) | UINT64_C(0x7ff0000000000000)
                      : (f->infs == 2 ? UINT64_C(1) << 31 : 0) | UINT64_C(0x7f800000);
    if (!f->spilled) {
        if (wide) {
            const double sum = shardtab_detail_exact_dadd(f->hi, f->lo);
            return sum == 0.0 ? minus_zero : shardtab_detail_double_bits(sum);
        }
        /* the exact sum is d + r, d = RN(d + r) a double: the float nearest d is
         * the float nearest the sum unless d is a midpoint of two floats (r then
         * decides, or the tie to even where r is 0); past FLT_MAX, the limbs */
        double r = 0.0;
        const double d = f->lo == 0.0 ? f->hi : shardtab_detail_exact_two_sum(f->hi, f->lo, &r);
        const float nearest = (float)d;
        if (d == 0.0)
            return minus_zero;
        if (r == 0.0 || (double)nearest == d)
            return shardtab_detail_float_bits(nearest);
        if (fabsf(nearest) <= FLT_MAX) {
            /* the float next to it on d's side: one more or one less in magnitude */
            const uint32_t bits = shardtab_detail_float_bits(nearest);
            const float other =
                shardtab_detail_bits_float(fabs(d) > (double)fabsf(nearest) ? bits + 1 : bits - 1);
            const int midpoint = d - (double)nearest == (double)other - d; /* exact differences */
            const int toward_other = (r > 0.0) == ((double)other > (double)nearest);
            return shardtab_detail_float_bits(midpoint && toward_other ? other : nearest);
        }
        shardtab_detail_exact_few_spill(f->limbs, f->hi, f->lo, 0.0);
        f->spilled = 1;
    }
    const uint64_t rounded = shardtab_detail_exact_round_bits(f->limbs, wide);
    return rounded == 0 ? minus_zero : rounded;
}

#endif /* SHARDTAB_DETAIL_EXACT_H */
