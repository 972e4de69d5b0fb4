/** @file
 * shardtab_types.h - the element types and reduction operations of the
 * collectives, shared by the host API (shardtab.h) and the device code
 * (shardtab_comm.h), which must not need MPI's or a GPU runtime's headers. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_TYPES_H
#define SHARDTAB_TYPES_H

/** An element type of the collectives. */
typedef enum shardtab_type {
    SHARDTAB_FLOAT = 0,  /**< IEEE binary32 */
    SHARDTAB_DOUBLE = 1, /**< IEEE binary64 */
    SHARDTAB_INT64 = 2,  /**< two's complement; sums wrap */
    SHARDTAB_TYPE_COUNT  /**< the number of types, not a type */
} shardtab_type_t;

/** A reduction operation of the collectives.
 *
 * SUM combines in node-rank order inside a node, then in node order: a NaN
 * result's bits are those of the adds that made it, the device's inside a node
 * (an NVIDIA GPU's float adds give 0x7fffffff), the host CPU's between nodes
 * (x86: 0x7fc00000 or 0xffc00000); the same on every rank of one job. MIN and
 * MAX of floats and doubles depend on no order or grouping (commutative and
 * associative on the bits, so the node layout never changes them): a NaN wins
 * over any number, wherever it is; of several NaNs, the one with the greatest
 * unsigned bit pattern; among numbers the least (greatest), with -0.0 below
 * +0.0 and denormals as they are (never flushed). Integers: the signed min and
 * max.
 *
 * SUM_EXACT (SHARDTAB_FLOAT and SHARDTAB_DOUBLE only) is the exact sum of
 * every rank's value rounded once, to nearest with ties to even, to the type:
 * the same bits whatever the rank count, the node layout, the order, the
 * algorithm or the backend. Subnormals are exact and a sum past the type's
 * range is +-inf. An exact zero is +0.0, or -0.0 where every value is -0.0.
 * Infinities and NaNs, by a rule that depends on no order: a NaN among the
 * values gives the NaN of the greatest unsigned bit pattern (as MIN and MAX);
 * else +inf and -inf together give the default NaN (0x7ff8000000000000, a
 * float's 0x7fc00000), one sign of inf that inf. So one rank's result is its
 * own value. SHARDTAB_INT64's SUM is exact already: SUM_EXACT of it is
 * refused. */
typedef enum shardtab_op {
    SHARDTAB_SUM = 0,       /**< the sum */
    SHARDTAB_MIN = 1,       /**< the least */
    SHARDTAB_MAX = 2,       /**< the greatest */
    SHARDTAB_SUM_EXACT = 3, /**< the exact sum, rounded once (floats and doubles) */
    SHARDTAB_OP_COUNT       /**< the number of operations, not an operation */
} shardtab_op_t;

#endif /* SHARDTAB_TYPES_H */
