/* registry.c - the live tables of this process, by the allocation each one's
 * shard lies in (registry.h). Many live tables may lie in one allocation; the
 * allocation may not be freed while any of them lives (their peers map it).
 * Below runtime.c and shardtab.c, which both ask it. */
#include "registry.h"

#include <pthread.h>

#include "internal.h"

static st_live_entry_t *live;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static int overlaps(const char *a, size_t a_bytes, const char *b, size_t b_bytes)
{
    return a < b + b_bytes && b < a + a_bytes;
}

void st_live_add(st_live_entry_t *entry)
{
    pthread_mutex_lock(&live_lock);
    entry->next = live;
    live = entry;
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
