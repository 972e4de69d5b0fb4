/* cg_exact.h - the exact accumulation behind the cg solver's reproducible dot
 * products (--repro), written once for every backend: HIP and CUDA kernels
 * and the host backend's C loops include the same code.
 *
 * A dot product sum_i u_i*v_i is rounded once, to nearest with ties to even,
 * from the EXACT sum of its products, so its bits are the same whatever the
 * order of the terms and however they are split over threads, blocks, GPUs
 * and ranks. The model is Collange, Defour, Graillat and Iakymchuk, "Full-speed
 * deterministic bit-accurate parallel floating-point summation" (2015):
 *   - TwoProduct: u*v == p + e exactly, p = RN(u*v), e = fma(u, v, -p);
 *   - a per-thread expansion of CG_EXPANSION doubles kept by TwoSum
 *     (s + err == a + b exactly): most terms never touch memory, and what
 *     escapes its last level goes to
 *   - a superaccumulator: a fixed-point integer wide enough for every double,
 *     in base-2^32 digits held by int64 limbs. Integer addition is exact and
 *     associative, so any order of adds, and any split into accumulators that
 *     are then added together, gives the same integer: rounding it once
 *     (cg_exact_round) gives the same bits.
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
 *     result NaN (counted in limbs[CG_EXACT_NONFINITE]);
 *   - one accumulator takes at most 2^31 adds per limb (CG_EXACT_LIMB_ADD).
 * The arithmetic must be IEEE double: no -ffast-math, no x87 extended
 * precision, and no contraction of a multiply into TwoSum's adds (the
 * per-target section keeps them apart; the host relies on ISO C, -std=c11,
 * under which GCC does not contract). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_EXACT_H
#define CG_EXACT_H

#include <stdint.h>
#include <float.h>

#include "shardtab_device.h"

#if defined(SHARDTAB_DEVICE_HOST)
#  include <math.h>
#  include <string.h>
#endif

#if defined(__FAST_MATH__)
#  error "cg_exact.h needs IEEE arithmetic: TwoSum is not exact under -ffast-math"
#endif
#if defined(SHARDTAB_DEVICE_HOST) && defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD > 0
#  error "cg_exact.h needs doubles evaluated as doubles (FLT_EVAL_METHOD 0), not x87 extended"
#endif

/* ---- the accumulator's layout ----------------------------------------------------
 * Limb k (0 <= k < CG_EXACT_DIGITS) holds a digit of weight 2^(32*(k - CG_EXACT_BIAS)),
 * so bit b of the integer weighs 2^(b - CG_EXACT_POINT). A double's bits lie
 * between 2^-1074 (bit 14, in limb 0) and 2^1023 (bit 2111, in limb 65); limb 66,
 * the top, only takes carries and holds the sign once normalized: it keeps
 * sums of 2^31 terms below 2^1024 (below 2^1055) with room to spare.
 * limbs[CG_EXACT_NONFINITE] counts inf and nan inputs. */
#define CG_EXACT_BIAS 34
#define CG_EXACT_POINT (32 * CG_EXACT_BIAS) /* bit position of 2^0: 1088 */
#define CG_EXACT_DIGITS 67
#define CG_EXACT_TOP (CG_EXACT_DIGITS - 1)
#define CG_EXACT_NONFINITE CG_EXACT_DIGITS
#define CG_EXACT_LIMBS (CG_EXACT_DIGITS + 1) /* int64_t limbs[CG_EXACT_LIMBS] */

#define CG_EXPANSION 3 /* doubles of a thread's expansion */

/* ---- per target: a double's bits, the limb add, and IEEE add and multiply ----------
 * CG_EXACT_LIMB_ADD(limb, v) adds v (|v| < 2^32) to one limb: an atomic on GPUs
 * (global or shared memory), a plain add on the host (a block of one thread). Both
 * wrap modulo 2^64, so the order of the adds cannot matter and only the limb's final
 * value must fit in an int64: 2^31 adds of |v| <= 2^32 - 1 stay within
 * 2^31 * (2^32 - 1) = 2^63 - 2^31. A kernel whose limbs are its thread's own may
 * define CG_EXACT_LIMB_ADD before including this header.
 * cg_exact_dadd, _dsub and _dmul are the rounded operations that no compiler may fuse
 * into an fma with their neighbours: nvcc fuses a multiply and an add across
 * statements, clang honours a pragma for HIP. */
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#  ifndef CG_EXACT_LIMB_ADD
#    define CG_EXACT_LIMB_ADD(limb, v)                                                             \
      ((void)atomicAdd((unsigned long long *)(limb), (unsigned long long)(v)))
#  endif
#else
#  ifndef CG_EXACT_LIMB_ADD
#    define CG_EXACT_LIMB_ADD(limb, v) ((void)(*(uint64_t *)(limb) += (uint64_t)(v)))
#  endif
#endif

#if defined(SHARDTAB_DEVICE_CUDA)
SHARDTAB_DEVFN double cg_exact_dadd(double a, double b)
{
    return __dadd_rn(a, b);
}
SHARDTAB_DEVFN double cg_exact_dsub(double a, double b)
{
    return __dsub_rn(a, b);
}
SHARDTAB_DEVFN double cg_exact_dmul(double a, double b)
{
    return __dmul_rn(a, b);
}
#else
#  if defined(__clang__)
#    define CG_EXACT_NO_CONTRACT _Pragma("clang fp contract(off)")
#  else
#    define CG_EXACT_NO_CONTRACT
#  endif
SHARDTAB_DEVFN double cg_exact_dadd(double a, double b)
{
    CG_EXACT_NO_CONTRACT
    return a + b;
}
SHARDTAB_DEVFN double cg_exact_dsub(double a, double b)
{
    CG_EXACT_NO_CONTRACT
    return a - b;
}
SHARDTAB_DEVFN double cg_exact_dmul(double a, double b)
{
    CG_EXACT_NO_CONTRACT
    return a * b;
}
#endif

/* The paths a dot product rarely takes (an add that overflows the
 * expansion into the limbs) and those taken once a reduction (normalizing
 * and rounding the limbs): kept out of the GPU kernels' loops, so that they
 * take neither registers nor code there. */
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
#  define CG_EXACT_COLD __device__ static __noinline__
#else
#  define CG_EXACT_COLD SHARDTAB_DEVFN
#endif

/* ---- the superaccumulator ---------------------------------------------------------- */

SHARDTAB_DEVFN void cg_exact_zero(int64_t *limbs)
{
    for (int k = 0; k < CG_EXACT_LIMBS; k++)
        limbs[k] = 0;
}

/* Adds a double exactly. x = m * 2^(e - 1075) with m its 53-bit integer significand
 * and e its biased exponent (e = 1 and no hidden bit for subnormals); m's last bit
 * lands on bit e + 13 of the accumulator, so m shifted into place spans three
 * digits at most. 0 adds nothing; inf and nan are counted, not added. */
CG_EXACT_COLD void cg_exact_add(int64_t *limbs, double x)
{
    const uint64_t bits = shardtab_detail_double_bits(x);
    const int negative = (int)(bits >> 63);
    const int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);

    if (biased == 0x7ff) {
        CG_EXACT_LIMB_ADD(&limbs[CG_EXACT_NONFINITE], 1);
        return;
    }
    if (biased != 0)
        m |= UINT64_C(1) << 52;
    const int pos = (biased != 0 ? biased : 1) + (CG_EXACT_POINT - 1075);
    const int k = pos >> 5, shift = pos & 31;
    const uint64_t high = m >> (32 - shift); /* (m << shift) >> 32: below 2^53 */
    const int64_t digit[3] = {(int64_t)((m << shift) & 0xffffffffu), (int64_t)(high & 0xffffffffu),
                              (int64_t)(high >> 32)};
    for (int j = 0; j < 3; j++)
        if (digit[j] != 0)
            CG_EXACT_LIMB_ADD(&limbs[k + j], negative ? -digit[j] : digit[j]);
}

/* Carries every limb but the top into the next, leaving it in [0, 2^32); the top
 * carries the sign (a two's complement integer) and the value is unchanged. Not
 * atomic: call it once no thread adds any more. With every |limb| <= 2^63 - 2^31
 * (the 2^31-add bound) no step overflows: a carry is within [-2^31, 2^31 - 1]. */
CG_EXACT_COLD void cg_exact_normalize(int64_t *limbs)
{
    for (int k = 0; k < CG_EXACT_TOP; k++) {
        const int64_t carry = limbs[k] >> 32; /* floor(limb / 2^32): an arithmetic shift */
        limbs[k] &= INT64_C(0xffffffff);
        limbs[k + 1] += carry;
    }
}

/* Adds a normalized accumulator into another, digit by digit: one add of
 * |v| < 2^32 per limb, except the top's (a sum of 2^31 terms has |top| <= 2^31). */
SHARDTAB_DEVFN void cg_exact_add_limbs(int64_t *into, const int64_t *normalized)
{
    for (int k = 0; k < CG_EXACT_LIMBS; k++)
        if (normalized[k] != 0)
            CG_EXACT_LIMB_ADD(&into[k], normalized[k]);
}

/* bit p of a normalized, non-negative digit array */
SHARDTAB_DEVFN int cg_exact_bit(const int64_t *digits, int p)
{
    return (int)((digits[p >> 5] >> (p & 31)) & 1);
}

/* whether any of bits 0 .. p-1 is set */
SHARDTAB_DEVFN int cg_exact_any_below(const int64_t *digits, int p)
{
    for (int k = 0; k < (p >> 5); k++)
        if (digits[k] != 0)
            return 1;
    return (digits[p >> 5] & ((INT64_C(1) << (p & 31)) - 1)) != 0;
}

/* the 64 bits from bit p up */
SHARDTAB_DEVFN uint64_t cg_exact_window(const int64_t *digits, int p)
{
    const int k = p >> 5, shift = p & 31;
    const uint64_t next = k + 1 < CG_EXACT_DIGITS ? (uint64_t)digits[k + 1] : 0;
    const uint64_t after = k + 2 < CG_EXACT_DIGITS ? (uint64_t)digits[k + 2] : 0;
    const uint64_t low = (uint64_t)digits[k] | next << 32;

    return shift == 0 ? low : low >> shift | after << (64 - shift);
}

/* The exact value rounded to nearest, ties to even: subnormals exact, +-inf past
 * the double range, +0.0 for an exact 0, NaN if an inf or nan was added. Takes a
 * normalized or non-normalized accumulator (it normalizes a copy). */
CG_EXACT_COLD double cg_exact_round(const int64_t *limbs)
{
    const uint64_t inf_bits = UINT64_C(0x7ff0000000000000);
    int64_t d[CG_EXACT_DIGITS];
    uint64_t sign = 0;

    if (limbs[CG_EXACT_NONFINITE] != 0)
        return shardtab_detail_bits_double(UINT64_C(0x7ff8000000000000));
    for (int k = 0; k < CG_EXACT_DIGITS; k++)
        d[k] = limbs[k];
    cg_exact_normalize(d);

    /* A top of -1 is a negative value above -2^1024: work on its magnitude. Any
     * other nonzero top is a magnitude of 2^1024 or more. */
    if (d[CG_EXACT_TOP] == -1) {
        sign = UINT64_C(1) << 63;
        for (int k = 0; k < CG_EXACT_DIGITS; k++)
            d[k] = -d[k];
        cg_exact_normalize(d);
    }
    if (d[CG_EXACT_TOP] != 0)
        return shardtab_detail_bits_double((d[CG_EXACT_TOP] < 0 ? UINT64_C(1) << 63 : sign) |
                                           inf_bits);

    int k = CG_EXACT_TOP - 1;
    while (k >= 0 && d[k] == 0)
        k--;
    if (k < 0)
        return 0.0;
    int lead = 32 * k + 31; /* the leading bit's position */
    while (!cg_exact_bit(d, lead))
        lead--;

    /* The result's last bit: 52 below the leading one, or 2^-1074's for subnormals
     * (bit 14, so the rounding bit below it exists). */
    int quantum = lead - CG_EXACT_POINT - 52;
    if (quantum < -1074)
        quantum = -1074;
    const int last = quantum + CG_EXACT_POINT;
    uint64_t m = cg_exact_window(d, last); /* bits last .. lead: below 2^53 */
    const uint64_t half = (uint64_t)cg_exact_bit(d, last - 1);
    const uint64_t sticky = (uint64_t)cg_exact_any_below(d, last - 1);
    m += half & (sticky | (m & 1));

    /* The value is m * 2^quantum, and its bits are exactly this sum: m's hidden bit
     * adds 1 to the exponent field (hence quantum + 1074 = biased exponent - 1), a
     * subnormal has no hidden bit and quantum + 1074 = 0, and a round up to m = 2^53
     * carries into the exponent, from DBL_MAX's up to inf's. */
    return shardtab_detail_bits_double(sign | (((uint64_t)(quantum + 1074) << 52) + m));
}

/* ---- the expansion in front of it ---------------------------------------------------- */

typedef struct cg_expansion {
    double a[CG_EXPANSION];
} cg_expansion_t;

/* Knuth's TwoSum, branch-free: s = RN(a + b) and *err = a + b - s exactly while s
 * is finite. */
SHARDTAB_DEVFN double cg_exact_two_sum(double a, double b, double *err)
{
    const double s = cg_exact_dadd(a, b);
    const double b_virtual = cg_exact_dsub(s, a);
    const double a_virtual = cg_exact_dsub(s, b_virtual);

    *err = cg_exact_dadd(cg_exact_dsub(a, a_virtual), cg_exact_dsub(b, b_virtual));
    return s;
}

SHARDTAB_DEVFN void cg_expansion_init(cg_expansion_t *e)
{
    for (int i = 0; i < CG_EXPANSION; i++)
        e->a[i] = 0.0;
}

/* Adds x: it cascades down the levels, a[i] keeping the sum and x becoming its
 * error; an error left after the last level, or an operand whose sum would
 * overflow, goes to the limbs. Always, a[0] + ... + a[N-1] plus what the limbs
 * received is the exact sum of everything added. Lanes that keep copies of
 * one expansion (every lane of a chunk, cg_body.h) pass limbs NULL but one:
 * their expansions stay alike, and the overflow is added once. */
SHARDTAB_DEVFN void cg_expansion_add(cg_expansion_t *e, int64_t *limbs, double x)
{
    for (int i = 0; i < CG_EXPANSION; i++) {
        double err;
        const double s = cg_exact_two_sum(e->a[i], x, &err);
        if (!(fabs(s) <= DBL_MAX)) { /* inf, or nan from an inf or nan x */
            if (limbs)
                cg_exact_add(limbs, x);
            return;
        }
        e->a[i] = s;
        x = err;
    }
    if (x != 0.0 && limbs)
        cg_exact_add(limbs, x);
}

/* Adds u*v: both parts of TwoProduct. Exact when |u*v| >= 2^-968 (the error
 * term's last bit is then at or above 2^-1074), and whenever u's and v's last
 * set bits weigh 2^-1074 or more together; otherwise off by at most 2^-1075. */
SHARDTAB_DEVFN void cg_expansion_add_product(cg_expansion_t *e, int64_t *limbs, double u, double v)
{
    const double p = cg_exact_dmul(u, v);
    const double err = fma(u, v, -p);

    cg_expansion_add(e, limbs, p);
    cg_expansion_add(e, limbs, err);
}

/* Adds every level to the limbs and zeroes the expansion. */
SHARDTAB_DEVFN void cg_expansion_flush(cg_expansion_t *e, int64_t *limbs)
{
    for (int i = 0; i < CG_EXPANSION; i++) {
        cg_exact_add(limbs, e->a[i]);
        e->a[i] = 0.0;
    }
}

#endif /* CG_EXACT_H */
