/* scal.c - what every backend of multi_scal's kernels shares, written once
 * (plain C, compiled into each build's scal_kernels): the variants' names,
 * which --variant parses and the reports print. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stddef.h>

#include "scal.h"

/* unsized: a count other than scal.h's SCAL_VARIANT_COUNT does not compile */
const char *const scal_variant_names[] = {"naive", "vec2", "vec2x4", "vec2x8", "vec2x4s", "chunk"};

const char *scal_variant_name(int variant)
{
    return variant >= 0 && variant < SCAL_VARIANT_COUNT ? scal_variant_names[variant] : NULL;
}
