/** @file
 * shardtab/comm_types.h - what a collective of shardtab_comm.h is: its handle
 * (shardtab_coll_t, made by shardtab_coll), the user slots it takes
 * (SHARDTAB_COLL_SLOTS), the most values a call carries, and the kinds of call.
 * API, documented in shardtab_comm.h, but not included directly: users
 * include shardtab_comm.h. A header of its own so that the steps below the
 * calls (comm_detail.h) are written over it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_COMM_TYPES_H
#define SHARDTAB_COMM_TYPES_H

#include <stdint.h>

/** @cond detail */
#define SHARDTAB_COLL_DEPTH 4 /* deposits kept per rank: two in flight, two being read */
#define SHARDTAB_COLL_STATE 1 /* words of this rank's own state */
/** @endcond */
/** The most values a collective may be made for (shardtab_coll's `values`): one
 * made for more is refused at its first call or hold (SHARDTAB_WAIT_MISUSE). */
#define SHARDTAB_COLL_MAX_VALUES 32767
/** @cond detail */
/* Words of one deposit: the call and its checksum, then each value as two
 * words (shardtab/comm_detail.h: every word carries 32 bits and its epoch). */
#define SHARDTAB_COLL_DEPOSIT_WORDS(values) (2 + 2 * (values))
/** @endcond */
/** User slots a collective of `values` values a call takes, on a node of node_size ranks. */
#define SHARDTAB_COLL_SLOTS(node_size, values)                                                     \
  (SHARDTAB_COLL_STATE + SHARDTAB_COLL_DEPTH * (node_size)*SHARDTAB_COLL_DEPOSIT_WORDS(values))

/** What a call is (shardtab_coll_start_block's `kind`): the descriptor's kind. */
enum {
    SHARDTAB_COLL_GATHER = 0,   /**< every rank's values, in node-rank order */
    SHARDTAB_COLL_REDUCE = 1,   /**< the op of every rank's values, in node-rank order */
    SHARDTAB_COLL_BROADCAST = 2 /**< the root's values */
};

/** A collective's handle, made by shardtab_coll: every thread of the block keeps its own. */
typedef struct shardtab_coll {
    int first;      /**< pad index of its state words */
    int values;     /**< values a call may carry (all-gather: per rank) */
    int held;       /**< 1 while this block holds it (shardtab_coll_hold_block) */
    uint64_t state; /**< while held: the calls started and finished, as kept here;
                       first -1 (made outside the user slots): the slot asked for */
} shardtab_coll_t;

#endif /* SHARDTAB_COMM_TYPES_H */
