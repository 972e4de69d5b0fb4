/* registry.h - the tables this process holds, by the allocation each one's
 * shard lies in: so that a free of memory a table shares, and a destroy of a
 * table that is not live, can be refused with a message. It knows a table
 * only by its entry. */
#ifndef SHARDTAB_REGISTRY_H
#define SHARDTAB_REGISTRY_H

#include <stddef.h>

#include "shardtab.h"

/* One live table, as the registry keeps it (inside the table itself). */
typedef struct st_live_entry {
    const char *base; /* the shard's whole allocation, or NULL (an empty shard) */
    size_t bytes;
    int rank, size, node_rank; /* for the messages */
    struct st_live_entry *next;
} st_live_entry_t;

void st_live_add(st_live_entry_t *entry);
/* Removes entry; returns whether it was live. */
int st_live_remove(const st_live_entry_t *entry);
/* Whether a live table's allocation overlaps [ptr, ptr + bytes); *found gets a
 * copy of its entry. */
int st_live_find(const void *ptr, size_t bytes, st_live_entry_t *found);
/* SHARDTAB_SUCCESS, or an error naming the live table that shares ptr's memory. */
shardtab_status_t st_check_free(const void *ptr);

#endif /* SHARDTAB_REGISTRY_H */
