/* pads.c - a first-fit allocator of signal pads inside coherent chunks
 * (pads.h). Each chunk keeps its pads sorted by offset; a pad goes into the
 * first gap that holds it, in the first chunk that has one, or a new chunk.
 * The chunk is exported at once, before any pad in it is handed out: on the
 * host backend the first export moves the memory into a memory file, which
 * must not happen under a pad that a peer already maps. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "pads.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

typedef struct pad_range {
    size_t offset, bytes;
} pad_range_t;

typedef struct pad_chunk {
    char *base;
    size_t bytes;
    pad_range_t *used; /* sorted by offset */
    int count, cap;
    struct pad_chunk *next;
} pad_chunk_t;

static pad_chunk_t *chunks;
static pthread_mutex_t pads_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* Offset of the first gap of `bytes` in c, or SIZE_MAX; *at: where it goes. */
static size_t first_fit(const pad_chunk_t *c, size_t bytes, int *at)
{
    size_t start = 0;

    for (int i = 0; i <= c->count; i++) {
        size_t end = i < c->count ? c->used[i].offset : c->bytes;
        if (end - start >= bytes) {
            *at = i;
            return start;
        }
        if (i < c->count)
            start = c->used[i].offset + c->used[i].bytes;
    }
    return SIZE_MAX;
}

/* Chunks with no pad in them. Caller holds pads_lock. */
static int idle_chunks(void)
{
    int n = 0;
    for (const pad_chunk_t *c = chunks; c != NULL; c = c->next)
        n += c->count == 0;
    return n;
}

static shardtab_status_t new_chunk(size_t bytes, pad_chunk_t **out)
{
    size_t size = bytes > ST_PAD_CHUNK_BYTES ? bytes : ST_PAD_CHUNK_BYTES;
    pad_chunk_t *c = calloc(1, sizeof *c);
    shardtab_status_t status;
    st_export_t exported;
    void *base = NULL;

    if (c == NULL || (c->used = malloc(16 * sizeof *c->used)) == NULL) {
        free(c);
        return st_fail(SHARDTAB_ERR_NO_MEMORY, "malloc of a signal pad chunk record failed");
    }
    c->cap = 16;
    status = st_backend()->mem_alloc_coherent(size, 1, &base);
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->ipc_export(base, size, &exported);
    if (status != SHARDTAB_SUCCESS) {
        if (base != NULL)
            st_backend()->mem_free(base);
        free(c->used);
        free(c);
        return status;
    }
    c->base = base;
    c->bytes = size;
    c->next = chunks;
    chunks = c;
    *out = c;
    return SHARDTAB_SUCCESS;
}

shardtab_status_t st_pad_alloc(size_t bytes, void **ptr)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    size_t need = round_up(bytes ? bytes : 1, ST_PAD_ALIGN), offset = SIZE_MAX;
    pad_chunk_t *c;
    int at = 0;

    pthread_mutex_lock(&pads_lock);
    for (c = chunks; c != NULL; c = c->next)
        if ((offset = first_fit(c, need, &at)) != SIZE_MAX)
            break;
    if (c == NULL) {
        status = new_chunk(need, &c);
        offset = 0;
        at = 0;
    }
    if (status == SHARDTAB_SUCCESS && c->count == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        pad_range_t *grown = realloc(c->used, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            status = st_fail(SHARDTAB_ERR_NO_MEMORY, "realloc of the signal pad list failed");
        else
            c->used = grown, c->cap = cap;
    }
    if (status == SHARDTAB_SUCCESS) {
        memmove(c->used + at + 1, c->used + at, (size_t)(c->count - at) * sizeof *c->used);
        c->used[at].offset = offset;
        c->used[at].bytes = need;
        c->count++;
        *ptr = c->base + offset;
    }
    pthread_mutex_unlock(&pads_lock);
    return status;
}

shardtab_status_t st_pad_free(void *ptr)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    pad_chunk_t *c = NULL, **link;
    int i = 0;

    if (ptr == NULL)
        return SHARDTAB_SUCCESS;
    pthread_mutex_lock(&pads_lock);
    for (link = &chunks; *link; link = &(*link)->next) {
        c = *link;
        if ((char *)ptr >= c->base && (char *)ptr < c->base + c->bytes)
            break;
    }
    if (*link != NULL) {
        size_t offset = (size_t)((char *)ptr - c->base);
        for (i = 0; i < c->count && c->used[i].offset != offset; i++)
            ;
    }
    if (*link == NULL || i == c->count) {
        status = st_fail(SHARDTAB_ERR_INVALID_ARG, "no signal pad starts at %p", ptr);
    } else {
        memmove(c->used + i, c->used + i + 1, (size_t)(c->count - i - 1) * sizeof *c->used);
        /* An empty chunk is kept while it is the only empty one: a program that
         * creates and destroys a table in a loop would otherwise make, export
         * (on the host backend: a memory file, reserved and filled) and free a
         * chunk every cycle. st_pad_release_idle frees it at finalize. A chunk
         * made for one large pad is not kept. */
        if (--c->count == 0 && (c->bytes > ST_PAD_CHUNK_BYTES || idle_chunks() > 1)) {
            *link = c->next;
            status = st_backend()->mem_free(c->base);
            free(c->used);
            free(c);
        }
    }
    pthread_mutex_unlock(&pads_lock);
    return status;
}

shardtab_status_t st_pad_release_idle(void)
{
    shardtab_status_t first = SHARDTAB_SUCCESS;

    pthread_mutex_lock(&pads_lock);
    for (pad_chunk_t **link = &chunks; *link;) {
        pad_chunk_t *c = *link;
        if (c->count != 0) {
            link = &c->next;
            continue;
        }
        *link = c->next;
        shardtab_status_t s = st_backend()->mem_free(c->base);
        if (first == SHARDTAB_SUCCESS)
            first = s;
        free(c->used);
        free(c);
    }
    pthread_mutex_unlock(&pads_lock);
    return first;
}
