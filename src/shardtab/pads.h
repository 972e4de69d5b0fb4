/* pads.h - the signal pads of this process's tables, carved out of a few
 * coherent chunks: a chunk is exported when it is made and each peer maps it
 * once (imports.h), so a table created while another lives opens no new pad.
 * Below shardtab.c and regions.c; it asks only the backend. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_PADS_H
#define SHARDTAB_PADS_H

#include <stddef.h>

#include "shardtab.h"

/* bytes of coherent memory, aligned to ST_PAD_ALIGN, not zeroed */
shardtab_status_t st_pad_alloc(size_t bytes, void **ptr);
/* Gives the range back; a chunk with no pad left is freed, unless it is the
 * only such chunk: that one is kept for the next table. */
shardtab_status_t st_pad_free(void *ptr);
/* Frees the chunks with no pad left (shardtab_finalize). */
shardtab_status_t st_pad_release_idle(void);

#define ST_PAD_ALIGN 256              /* a pad never shares a cache line */
#define ST_PAD_CHUNK_BYTES (1u << 20) /* or one pad's size, when larger */

#endif /* SHARDTAB_PADS_H */
