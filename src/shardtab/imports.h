/* imports.h - the peer allocations this process has mapped, each opened once
 * and shared by every table that lies in it: GPU runtimes open an IPC handle
 * once per process, and a second table over memory already open opens nothing.
 * Below regions.c and accessors.c; it asks only the backend. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_IMPORTS_H
#define SHARDTAB_IMPORTS_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* What names a peer allocation, whatever handle bytes a runtime hands out for
 * it (ROCm need not return the same bytes twice): the exporting device, the
 * exporting process, and the allocation's address and size there. An
 * exporter cannot free an allocation while a table in it lives, so the key
 * stays unique while any importer holds it. */
typedef struct st_import_key {
    char device[32]; /* the exporter's PCI bus id, as its descriptor gives it */
    int32_t pid;
    uint64_t base;
    size_t bytes;
} st_import_key_t;

/* Maps the peer allocation of key, opening handle, or finds it mapped
 * already, and counts one more user. *opened is 1 when this call opened it. */
shardtab_status_t st_import_open(const st_import_key_t *key, const st_ipc_handle_t *handle,
                                 void **base, int *opened);
/* One user fewer of the mapping at base; the last one closes it (and the
 * record goes, even when the close fails: its status is returned). */
shardtab_status_t st_import_close(void *base);
/* How many peer allocations this process has mapped now. */
int st_import_count(void);

#endif /* SHARDTAB_IMPORTS_H */
