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

/* one cast: its name, the type it returns, the type it takes */
#define SHARDTAB_DETAIL_BIT_CAST(name, To, From)                                                   \
  SHARDTAB_DEVFN To name(From from)                                                                \
  {                                                                                                \
    To to;                                                                                         \
    memcpy(&to, &from, sizeof to);                                                                 \
    return to;                                                                                     \
  }
SHARDTAB_DETAIL_BIT_CAST(shardtab_detail_float_bits, uint32_t, float)
SHARDTAB_DETAIL_BIT_CAST(shardtab_detail_bits_float, float, uint32_t)
SHARDTAB_DETAIL_BIT_CAST(shardtab_detail_double_bits, uint64_t, double)
SHARDTAB_DETAIL_BIT_CAST(shardtab_detail_bits_double, double, uint64_t)
#undef SHARDTAB_DETAIL_BIT_CAST

#endif
