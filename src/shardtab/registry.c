/* registry.c - the live tables of this process, by the allocation each one's
 * shard lies in (registry.h). Many live tables may lie in one allocation; the
 * allocation may not be freed while any of them lives (their peers map it).
 * Every entry point that takes a table asks here whether its handle is live
 * before it reads the table, so the handles are also kept in buckets: the
 * answer costs one short chain, however many tables live.
 * Below runtime.c, shardtab.c and every call that takes a table, which ask it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "registry.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"

#define ST_LIVE_BUCKET_BITS 10
#define ST_LIVE_BUCKETS (1u << ST_LIVE_BUCKET_BITS)
/* a message names this many live tables, then counts the rest */
#define ST_LIVE_NAMED 8

static st_live_entry_t *live;
static st_live_entry_t *buckets[ST_LIVE_BUCKETS];
static int live_count;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static int overlaps(const char *a, size_t a_bytes, const char *b, size_t b_bytes)
{
    return a < b + b_bytes && b < a + a_bytes;
}

static unsigned bucket_of(const void *table)
{
    uint64_t key = (uint64_t)(uintptr_t)table >> 4; /* malloc's blocks are 16-byte aligned */
    return (unsigned)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - ST_LIVE_BUCKET_BITS));
}

void st_live_add(st_live_entry_t *entry)
{
    unsigned b = bucket_of(entry->table);

    pthread_mutex_lock(&live_lock);
    entry->next = live;
    live = entry;
    entry->hnext = buckets[b];
    buckets[b] = entry;
    live_count++;
    pthread_mutex_unlock(&live_lock);
}

int st_live_remove(const st_live_entry_t *entry)
{
    int found = 0;

    pthread_mutex_lock(&live_lock);
    for (st_live_entry_t **link = &live; *link; link = &(*link)->next) {
        if (*link == entry) {
            *link = entry->next;
            found = 1;
            break;
        }
    }
    if (found) { /* a live entry: now it may be read */
        for (st_live_entry_t **link = &buckets[bucket_of(entry->table)]; *link;
             link = &(*link)->hnext) {
            if (*link == entry) {
                *link = entry->hnext;
                break;
            }
        }
        live_count--;
    }
    pthread_mutex_unlock(&live_lock);
    return found;
}

int st_live_find(const void *ptr, size_t bytes, st_live_entry_t *found)
{
    int hit = 0;

    pthread_mutex_lock(&live_lock);
    for (const st_live_entry_t *e = live; e && !hit; e = e->next)
        if (e->base && overlaps(e->base, e->bytes, ptr, bytes ? bytes : 1)) {
            *found = *e;
            hit = 1;
        }
    pthread_mutex_unlock(&live_lock);
    return hit;
}

shardtab_status_t st_check_free(const void *ptr)
{
    st_live_entry_t e;

    if (!st_live_find(ptr, 1, &e))
        return SHARDTAB_SUCCESS;
    return st_fail(SHARDTAB_ERR_INVALID_ARG,
                   "shardtab_mem_free(%p): a live table (rank %d of %d, node rank %d) still "
                   "shares this memory and its peers map it: shardtab_destroy the table first",
                   ptr, e.rank, e.size, e.node_rank);
}

int st_live_count(void)
{
    int n;

    pthread_mutex_lock(&live_lock);
    n = live_count;
    pthread_mutex_unlock(&live_lock);
    return n;
}

int st_live_has(const void *table)
{
    int hit = 0;

    if (table == NULL)
        return 0;
    pthread_mutex_lock(&live_lock);
    for (const st_live_entry_t *e = buckets[bucket_of(table)]; e && !hit; e = e->hnext)
        hit = e->table == table;
    pthread_mutex_unlock(&live_lock);
    return hit;
}

void st_live_each(void (*visit)(const void *table, void *arg), void *arg)
{
    pthread_mutex_lock(&live_lock);
    for (const st_live_entry_t *e = live; e; e = e->next)
        visit(e->table, arg);
    pthread_mutex_unlock(&live_lock);
}

shardtab_status_t st_check_table(const void *table, const char *call)
{
    if (table == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: no table (NULL)", call);
    if (!st_live_has(table))
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s(%p): not a live table of this process (destroyed already, or never "
                       "created by shardtab_create)",
                       call, table);
    return SHARDTAB_SUCCESS;
}

shardtab_status_t st_check_none_live(const char *call)
{
    char names[ST_LIVE_NAMED * 160], more[48] = "";
    size_t used = 0;
    int count, named = 0;

    names[0] = '\0';
    pthread_mutex_lock(&live_lock);
    count = live_count;
    for (const st_live_entry_t *e = live; e && named < ST_LIVE_NAMED; e = e->next, named++) {
        int n = snprintf(names + used, sizeof names - used,
                         "%stable %p (rank %d of %d, node rank %d, shard %p of %zu bytes)",
                         named ? ", " : "", e->table, e->rank, e->size, e->node_rank, e->shard,
                         e->shard_bytes);
        if (n < 0 || (size_t)n >= sizeof names - used)
            break;
        used += (size_t)n;
    }
    pthread_mutex_unlock(&live_lock);
    if (count == 0)
        return SHARDTAB_SUCCESS;
    if (count > named)
        snprintf(more, sizeof more, ", and %d more", count - named);
    return st_fail(SHARDTAB_ERR_INVALID_ARG,
                   "%s: %d live table%s of this process: %s%s; shardtab_destroy %s first "
                   "(collective: every rank of a table destroys it). Nothing was released: the "
                   "tables and their memory stay usable",
                   call, count, count == 1 ? "" : "s", names, more, count == 1 ? "it" : "each");
}
