/* imports.c - the importer-side cache of peer allocations (imports.h): a list
 * of mappings, each with the key it was opened by and the number of tables
 * that use it. Opens and closes happen under the lock, so two threads that
 * create tables over one peer allocation at once still open it once. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "imports.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct st_import {
    st_import_key_t key;
    void *base; /* where this process mapped it */
    int users;  /* tables (regions) that use the mapping */
    struct st_import *next;
} st_import_t;

static st_import_t *imports;
static pthread_mutex_t imports_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_key(const st_import_key_t *a, const st_import_key_t *b)
{
    return a->pid == b->pid && a->base == b->base && a->bytes == b->bytes &&
           strncmp(a->device, b->device, sizeof a->device) == 0;
}

shardtab_status_t st_import_open(const st_import_key_t *key, const st_ipc_handle_t *handle,
                                 void **base, int *opened)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    st_import_t *e;

    *opened = 0;
    pthread_mutex_lock(&imports_lock);
    for (e = imports; e != NULL; e = e->next)
        if (same_key(&e->key, key))
            break;
    if (e == NULL) {
        e = calloc(1, sizeof *e);
        if (e == NULL)
            status = st_fail(SHARDTAB_ERR_NO_MEMORY, "calloc of an import record failed");
        if (status == SHARDTAB_SUCCESS)
            status = st_backend()->ipc_open(handle, key->bytes, &e->base);
        if (status != SHARDTAB_SUCCESS) {
            free(e);
            pthread_mutex_unlock(&imports_lock);
            return status;
        }
        e->key = *key;
        e->next = imports;
        imports = e;
        *opened = 1;
    }
    e->users++;
    *base = e->base;
    pthread_mutex_unlock(&imports_lock);
    return SHARDTAB_SUCCESS;
}

shardtab_status_t st_import_close(void *base)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;
    st_import_t *e = NULL;

    pthread_mutex_lock(&imports_lock);
    for (st_import_t **link = &imports; *link; link = &(*link)->next) {
        if ((*link)->base == base) {
            e = *link;
            if (--e->users == 0)
                *link = e->next;
            break;
        }
    }
    if (e == NULL)
        status = st_fail(SHARDTAB_ERR_INVALID_ARG, "no peer allocation is mapped at %p", base);
    else if (e->users == 0) {
        /* gone from the list whatever the backend says: a mapping that would
         * not close is not one to hand the next table */
        status = st_backend()->ipc_close(e->base, e->key.bytes);
        free(e);
    }
    pthread_mutex_unlock(&imports_lock);
    return status;
}

int st_import_count(void)
{
    int n = 0;

    pthread_mutex_lock(&imports_lock);
    for (const st_import_t *e = imports; e != NULL; e = e->next)
        n++;
    pthread_mutex_unlock(&imports_lock);
    return n;
}
