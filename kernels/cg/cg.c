/* cg.c - what every backend's cg launchers share (cg.h): the phases of a
 * stream iteration, where the node barrier goes between them, and across
 * nodes where the host's reductions and the decisions after them go. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cg.h"

int cg_stream_phases(int variant)
{
    return variant == CG_PIPELINED ? 2 : 3;
}

int cg_barrier_before(int variant, int phase)
{
    /* before each product: standard's phase 1, pipelined's phase 0 */
    return variant == CG_PIPELINED ? phase == 0 : phase == 1;
}

int cg_reduce_after(int variant, int phase)
{
    /* where a last block's reduction starts on one node */
    if (variant == CG_PIPELINED)
        return phase == -1 || phase == 1 ? 2 : 0;
    return phase == -1 || phase == 1 || phase == 2 ? 1 : 0;
}

int cg_decide_after(int variant, int phase)
{
    /* where it is decided on one node: the pipelined reduction's finish
     * comes after the product */
    if (variant == CG_PIPELINED)
        return phase == 0 ? CG_DECIDE_GAMMA_DELTA : CG_DECIDE_NONE;
    return phase == 1 ? CG_DECIDE_PQ : phase == -1 || phase == 2 ? CG_DECIDE_RR : CG_DECIDE_NONE;
}

int cg_split_words(int repro, int dots, shardtab_type_t *type)
{
    /* a dot product's exact sum (repro) in int64 limbs, or a double */
    *type = repro ? SHARDTAB_INT64 : SHARDTAB_DOUBLE;
    return repro ? dots * CG_EXACT_WORDS : dots;
}
