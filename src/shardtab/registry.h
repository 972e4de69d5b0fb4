/* registry.h - the tables this process holds, by the allocation each one's
 * shard lies in: so that a free of memory a table shares, a destroy of a
 * table that is not live, any other call given a handle that is not a live
 * table, and a finalize while tables live can be refused with a message. It
 * knows a table only by its entry, and by the handle the entry names. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_REGISTRY_H
#define SHARDTAB_REGISTRY_H

#include <stddef.h>

#include "shardtab.h"

/* One live table, as the registry keeps it (inside the table itself). */
typedef struct st_live_entry {
    const void *table; /* the handle its caller holds (the shardtab_t *) */
    const char *base;  /* the shard's whole allocation, or NULL (an empty shard) */
    size_t bytes;
    const void *shard; /* the shard itself, and its bytes: for the messages */
    size_t shard_bytes;
    int rank, size, node_rank;   /* for the messages */
    struct st_live_entry *next;  /* every live entry, newest first */
    struct st_live_entry *hnext; /* the next in its bucket of handles */
} st_live_entry_t;

/* entry->table must be set; the entry stays the registry's until removed. */
void st_live_add(st_live_entry_t *entry);
/* Removes entry; returns whether it was live. entry need not be live: it is
 * compared, never read, unless it is. */
int st_live_remove(const st_live_entry_t *entry);
/* Whether a live table's allocation overlaps [ptr, ptr + bytes); *found gets a
 * copy of its entry. */
int st_live_find(const void *ptr, size_t bytes, st_live_entry_t *found);
/* SHARDTAB_SUCCESS, or an error naming the live table that shares ptr's memory. */
shardtab_status_t st_check_free(const void *ptr);
/* How many tables of this process live. */
int st_live_count(void);
/* Whether table is the handle of a live table of this process; table is
 * compared, never read. A handle that a later create happens to return again
 * is that table's. */
int st_live_has(const void *table);
/* Calls visit(table, arg) for every live table's handle, the registry held:
 * visit must not call the registry. */
void st_live_each(void (*visit)(const void *table, void *arg), void *arg);
/* SHARDTAB_SUCCESS for a live table, else SHARDTAB_ERR_INVALID_ARG with a
 * message naming call and why (NULL; not live: destroyed, or never created). */
shardtab_status_t st_check_table(const void *table, const char *call);
/* SHARDTAB_SUCCESS when no table of this process lives, else
 * SHARDTAB_ERR_INVALID_ARG with a message for call naming the live tables. */
shardtab_status_t st_check_none_live(const char *call);

#endif /* SHARDTAB_REGISTRY_H */
