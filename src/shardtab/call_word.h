/* call_word.h - a stream-ordered collective's call as one 64-bit word: what
 * the sync phase carries for every rank of the node to match (collectives.c
 * packs it), and what the message of a refused sync spells out (failure.c
 * unpacks it). One layout, written once:
 *
 *   bits  0-3   kind (ST_STREAM_*: collective_body.h)
 *   bits  4-7   op (SHARDTAB_SUM, _MIN, _MAX)
 *   bits  8-11  type (SHARDTAB_FLOAT, _DOUBLE, _INT64)
 *   bits 12-23  root (a broadcast's comm rank, at most ST_CALL_ROOT_MAX)
 *   bits 24-25  algorithm (ST_ALGO_*; 0: none, the call is no all-reduce)
 *   bits 26-63  count (elements: 38 bits, so below ST_COUNT_MAX; a call of
 *               ST_COUNT_MAX itself, which no shard of less than 1 TiB holds,
 *               would wrap to 0) */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef ST_CALL_WORD_H
#define ST_CALL_WORD_H

#include <stddef.h>
#include <stdint.h>

enum { ST_ALGO_ONE_SHOT = 1, ST_ALGO_TWO_SHOT = 2, ST_ALGO_ONE_BLOCK = 3 };

#define ST_COUNT_MAX ((size_t)1 << 38) /* the most elements a call may carry (collectives.c) */
#define ST_CALL_ROOT_MAX 4095          /* the largest root the word's 12 root bits hold */

/* The fields of a call word. */
typedef struct st_call_word {
    unsigned kind, op, type, root, algo;
    uint64_t count;
} st_call_word_t;

/* Each field keeps its low bits (count: its low 38). */
static inline uint64_t st_call_word_pack(int kind, int op, int type, int root, int algo,
                                         uint64_t count)
{
    return (uint64_t)(kind & 15) | (uint64_t)(op & 15) << 4 | (uint64_t)(type & 15) << 8 |
           (uint64_t)(root & 4095) << 12 | (uint64_t)(algo & 3) << 24 | count << 26;
}

static inline st_call_word_t st_call_word_unpack(uint64_t word)
{
    st_call_word_t w;

    w.kind = (unsigned)(word & 15);
    w.op = (unsigned)(word >> 4 & 15);
    w.type = (unsigned)(word >> 8 & 15);
    w.root = (unsigned)(word >> 12 & 4095);
    w.algo = (unsigned)(word >> 24 & 3);
    w.count = word >> 26;
    return w;
}

/* The public name of a call's kind, "?" for none. */
static inline const char *st_call_kind_name(uint64_t kind)
{
    static const char *const kinds[] = {"?", "shardtab_all_reduce", "shardtab_broadcast",
                                        "shardtab_all_gather", "shardtab_halo_exchange"};
    return kind < 5 ? kinds[kind] : "?";
}

/* An all-reduce's algorithm in words. */
static inline const char *st_call_algo_name(uint64_t algo)
{
    return algo == ST_ALGO_ONE_SHOT    ? "one-shot"
           : algo == ST_ALGO_TWO_SHOT  ? "two-shot"
           : algo == ST_ALGO_ONE_BLOCK ? "one-block"
                                       : "no algorithm";
}

#endif /* ST_CALL_WORD_H */
