/* shardtab/bits.h - a float's or a double's bits as an integer, and back: the
 * one place the device code and the host backend reinterpret a value. memcpy is
 * the cast C defines; nvcc, clang and gcc make it a register move.
 *
 * Not included directly: each arch header includes it once it has defined
 * SHARDTAB_DEVFN, so these are device functions on GPUs and inline functions
 * on the host backend. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_BITS_H
#define SHARDTAB_BITS_H

#include <stdint.h>
#include <string.h>

SHARDTAB_DEVFN uint32_t shardtab_detail_float_bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}
SHARDTAB_DEVFN float shardtab_detail_bits_float(uint32_t b)
{
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}
SHARDTAB_DEVFN uint64_t shardtab_detail_double_bits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}
SHARDTAB_DEVFN double shardtab_detail_bits_double(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

#endif
