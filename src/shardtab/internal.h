/* internal.h - what the library's files share and the public header hides:
 * error recording with context, node identity, the process runtime state and
 * fault injection. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_INTERNAL_H
#define SHARDTAB_INTERNAL_H

#include <limits.h>
#include <stdint.h>
#include "shardtab.h"

#define ST_HOST_NAME_BYTES 64
#define ST_BOOT_ID_BYTES 40
#define ST_ERROR_BYTES (4096 + 512) /* a message may quote a whole path (PATH_MAX on Linux) */

/* Where this process runs: filled once by shardtab_init. */
typedef struct st_runtime {
    int initialized;
    int world_rank;
    char host[ST_HOST_NAME_BYTES];
    char boot_id[ST_BOOT_ID_BYTES];
    uint64_t ipc_ns;
    shardtab_device_info_t device;
} st_runtime_t;

extern st_runtime_t st_rt;

/* Record a failure in this thread's last-error buffer, prefixed with host, rank
 * and device: "<host> rank <r> device <d>: <message>". Returns status, so a
 * caller can write `return st_fail(...)`. The library's own name for the
 * public shardtab_error_set. */
#define st_fail(...) shardtab_error_set(__VA_ARGS__)
/* Bytes of the host/rank/device prefix at the start of this thread's last
 * error, so that a caller can quote the message without repeating it. */
size_t st_error_prefix_bytes(void);
/* Who the messages say speaks, "<host> rank <r> device <d> [<bus>]: " (runtime.c
 * sets it when the rank is bound; NULL: the host and MPI rank alone). */
void st_error_identity(const char *prefix);
/* This thread's own last message (shardtab_last_error is the process's). */
const char *st_thread_last_error(void);
/* The library's own name for the public shardtab_mpi_check. */
#define st_mpi_check(rc, call) shardtab_mpi_check(rc, call)
/* shardtab_agree, bounded, that never ends the job: a rank that has waited
 * `seconds` for the others sets *gave_up and returns SHARDTAB_ERR_TIMEOUT with
 * a message, the agreement left pending on comm (no collective on comm may
 * follow it); else *gave_up is 0 and it returns what shardtab_agree would. */
shardtab_status_t st_agree_bounded(MPI_Comm comm, shardtab_status_t local, double seconds,
                                   int *gave_up);
/* The two halves of shardtab_agree, for a step that agrees on more than the
 * status in the same reduction (mpi_steps.c): the key a rank's status
 * reduces to by MPI_MIN (INT_MAX: success; a cause before a consequence, a
 * lower rank first), and, once every rank holds the minimum, the verdict:
 * success, or the failing rank's status and message broadcast to every rank
 * (a collective every rank enters). rank and size: this rank's and comm's. */
int st_agree_key(shardtab_status_t local, int rank, int size);
shardtab_status_t st_agree_verdict(MPI_Comm comm, shardtab_status_t local, int min_key, int rank,
                                   int size);
/* How a rank paces a wait on MPI that has gone on `waited` seconds, between
 * two tests: back to back for the first ST_WAIT_SPIN_S (ranks that arrive
 * together, the common case, cost no pause); then napping 50 us a test up to
 * ST_WAIT_SHORT_S, so that a collective of many rounds advances every few
 * tens of microseconds while a peer sharing the core runs; then 1 ms a test,
 * so that a rank late by seconds costs no core. */
#define ST_WAIT_SPIN_S 1e-3
#define ST_WAIT_SHORT_S 50e-3
void st_wait_pace(double waited);
/* A started request (a non-blocking collective) waited for at most `seconds`:
 * 0 when it completed, -1 when it did not (left pending: its buffers stay). */
int st_wait_bounded(MPI_Request *request, double seconds);
/* MPI is initialized and not yet finalized: MPI may be called. */
int st_mpi_usable(void);

/* Fills host name and boot id; the boot id and the IPC namespace (below)
 * identify a running node as IPC sees it. */
void st_node_identity(char host[ST_HOST_NAME_BYTES], char boot_id[ST_BOOT_ID_BYTES]);
/* Inode of this process's IPC namespace, 0 when /proc cannot tell. */
uint64_t st_ipc_namespace(void);
/* shardtab_host_memory_available, from the given files: MemAvailable in
 * meminfo, capped by what each cgroup of self_cgroup (v2, and v1's memory
 * controller, under cgroup_root) has left below its limit (1 for a cgroup at
 * its limit); 0 when unknown. */
uint64_t st_memory_left(const char *meminfo, const char *self_cgroup, const char *cgroup_root);

/* Steps at which SHARDTAB_FAULT=<step>:<rank> injects a failure (create and
 * destroy; the direct faces' create and exchange), or stops that rank
 * (SIGSTOP, from within) on its way through a stream-ordered collective (the
 * coll-* steps): the tests of the bounds on every wait, a rank stopped at
 * several points inside a call. */
typedef enum st_fault_step {
    ST_FAULT_ALLOC,
    ST_FAULT_EXPORT,
    ST_FAULT_EXCHANGE,
    ST_FAULT_OPEN,
    ST_FAULT_UPLOAD,
    ST_FAULT_CLOSE,
    ST_FAULT_FREE,
    ST_FAULT_COLL_ENTER,    /* entering a call (one node: before its first phase) */
    ST_FAULT_COLL_PHASE,    /* one node: between a call's phases */
    ST_FAULT_COLL_ARGS,     /* across nodes: before the first agreement, which compares the calls */
    ST_FAULT_COLL_NODE,     /* across nodes: after the node's phases */
    ST_FAULT_COLL_LEADERS,  /* across nodes, a node's leader: before the leaders' all-gather */
    ST_FAULT_COLL_RESULT,   /* across nodes: before the node's broadcast of the result */
    ST_FAULT_COLL_END,      /* across nodes: before the call's last agreement */
    ST_FAULT_FACES_STAGING, /* shardtab_faces_create: the staging's allocation */
    ST_FAULT_FACES_POST,    /* shardtab_faces_exchange: the receives' and sends' posts */
    ST_FAULT_STEP_COUNT
} st_fault_step_t;

/* SHARDTAB_SUCCESS, or when the environment asks this rank to fail at this step
 * the status that step's real failure would give (st_fault_status), with a message
 * naming the fault. A malformed variable is reported as SHARDTAB_ERR_INVALID_ARG at
 * every step. */
shardtab_status_t st_fault_check(st_fault_step_t step);
/* The status of a real failure at a step: NO_MEMORY, IPC, MPI or DEVICE. */
shardtab_status_t st_fault_status(st_fault_step_t step);
/* A coll-* step: this rank stops (SIGSTOP) there when the environment names
 * it (and is stopped for good: its peers must end the job). */
void st_fault_stall(st_fault_step_t step);
const char *st_fault_step_name(st_fault_step_t step);
/* Parse "<step>:<rank>"; returns 0 and fills both on success. */
int st_fault_parse(const char *text, st_fault_step_t *step, int *rank);

/* Parse SHARDTAB_RANKS_PER_NODE-style text: a positive decimal integer that
 * fits an int. Returns 0 and sets *value on success. */
int st_parse_positive_int(const char *text, int *value);

#endif /* SHARDTAB_INTERNAL_H */
