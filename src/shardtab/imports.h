/* imports.h - the peer allocations this process has mapped, each opened once
 * and shared by every table that lies in it: GPU runtimes open an IPC handle
 * once per process, and a second table over memory already open opens nothing.
 * Below shardtab.c; it asks only the backend. */
#ifndef SHARDTAB_IMPORTS_H
#define SHARDTAB_IMPORTS_H

#include <stddef.h>

#include "backend.h"

/* Maps the peer allocation that handle names, or finds it mapped already, and
 * counts one more user. The key is the exporting device (its PCI bus id, as
 * the peer's descriptor gives it), the handle and the allocation's size.
 * *opened is 1 when this call opened it, 0 when it was open. */
shardtab_status_t st_import_open(const char *peer_bus_id, const st_ipc_handle_t *handle,
                                 size_t alloc_bytes, void **base, int *opened);
/* One user fewer of the mapping at base; the last one closes it. */
shardtab_status_t st_import_close(void *base);
/* How many peer allocations this process has mapped now. */
int st_import_count(void);

#endif /* SHARDTAB_IMPORTS_H */
