/** @file
 * shardtab.h - public API of libshardtab: one table of shard pointers per node,
 * usable from kernels on every GPU of that node.
 *
 * Each MPI rank binds one device (shardtab_init), allocates its shard on it
 * (shardtab_mem_alloc) and joins a collective shardtab_create. The ranks of a
 * node exchange IPC handles over MPI, every rank maps its peers' shards into its
 * own address space and uploads its own replica of the pointer table to its own
 * device. A kernel on any rank of the node can then dereference
 * table[node_rank][i] for every shard of the node. MPI is used only here, at
 * set-up and tear-down; the kernels touch peer memory directly.
 *
 * Conventions: every call that can fail returns a shardtab_status_t (the queries,
 * shardtab_backend, shardtab_version and shardtab_host_memory_available return
 * their value); output arguments come last and are written only on success. Collective calls (marked so) return the
 * same status on every rank of the communicator, and on failure every rank holds
 * the same message in shardtab_last_error(), naming the host, rank, device and
 * call that failed first.
 *
 * Handles: every call that takes a table looks it up among this process's live
 * tables before it reads it. NULL, a table destroyed already and a pointer
 * that never was a table are never dereferenced: a query answers as its
 * comment says (-1, NULL or 0) and records why in shardtab_last_error(), a
 * call that returns a status returns SHARDTAB_ERR_INVALID_ARG with a message
 * naming the call. (A pointer that a later create happens to return again is
 * that new table.)
 *
 * Threads: shardtab_init and shardtab_finalize run once, on one thread. Every
 * other call may come from any thread: each one that touches the device binds
 * this rank's device first (a thread's current device is its own), the error
 * recorder and the host backend's allocation list are guarded, the live-table
 * registry too, and the kernels' launchers keep their caches per thread.
 * Collective calls follow MPI's rules: with MPI_THREAD_SERIALIZED or more, a
 * collective may be made from another thread than the one that made the last.
 * A table belongs to one thread at a time: do not destroy it while another
 * thread uses it.
 *
 * Memory: a shard lies in an allocation of shardtab_mem_alloc on this rank's
 * device. Any number of live tables may lie in one allocation, at any offsets,
 * overlapping or not: each process opens a peer's allocation once, for the
 * first table that needs it, and closes it when the last such table is
 * destroyed. An allocation cannot be freed while any table in it lives
 * (refused with a message). GPU memory that
 * legacy IPC cannot export (stream-ordered pools, virtual memory, managed,
 * pinned or plain host memory, another device's) is refused at create, naming
 * what it is.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_H
#define SHARDTAB_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "shardtab_types.h"
#include "shardtab_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a call returns (docs/errors.md: when each comes, and what to do). The values are
 * part of the ABI: they stay. */
typedef enum shardtab_status {
    SHARDTAB_SUCCESS = 0,         /**< the call did what it says */
    SHARDTAB_ERR_INVALID_ARG = 1, /**< bad argument or environment: the caller's fault */
    SHARDTAB_ERR_NO_MEMORY = 2,   /**< host or device allocation failed */
    SHARDTAB_ERR_NO_DEVICE = 3,   /**< no usable device for this rank */
    SHARDTAB_ERR_DEVICE = 4,      /**< a device or OS runtime call failed */
    SHARDTAB_ERR_IPC = 5,         /**< exporting or opening an IPC handle failed */
    SHARDTAB_ERR_PEER_ACCESS = 6, /**< a device cannot reach a peer's memory */
    SHARDTAB_ERR_DESCRIPTOR = 7,  /**< a peer sent a descriptor that fails validation */
    SHARDTAB_ERR_MPI = 8,         /**< an MPI call failed */
    SHARDTAB_ERR_UNSUPPORTED = 9, /**< not possible with this backend or build */
    SHARDTAB_ERR_VERIFY = 10,     /**< an application-level check failed */
    SHARDTAB_ERR_TIMEOUT = 11,    /**< a wait ran out of time: a device-side one
                                      (shardtab_signal_check), a destroy's or a collective's
                                      across nodes for the other ranks */
    SHARDTAB_ERR_ABORTED = 12,    /**< stopped because another rank failed first: when ranks
                                      agree, any other failure is reported before this one */
    SHARDTAB_STATUS_COUNT         /**< the number of statuses, not a status */
} shardtab_status_t;

/** Where shards live and kernels run; shardtab_backend() gives this build's. */
typedef enum shardtab_backend {
    SHARDTAB_BACKEND_HOST = 0, /**< CPUs; shards in POSIX shared memory */
    SHARDTAB_BACKEND_HIP,      /**< AMD GPUs through the HIP runtime */
    SHARDTAB_BACKEND_CUDA,     /**< NVIDIA GPUs: the same HIP code on the CUDA runtime */
    SHARDTAB_BACKEND_COUNT     /**< the number of backends, not a backend */
} shardtab_backend_t;

/** A table (opaque): made by shardtab_create, ended by shardtab_destroy. */
typedef struct shardtab shardtab_t;
typedef struct shardtab_signals shardtab_signals_t; /**< kernels' handle: shardtab_device.h */

/** A GPU stream (hipStream_t, cudaStream_t) as an opaque pointer, so that this
 * header needs no GPU runtime. NULL is the default stream. The host backend
 * runs everything at once and ignores it. */
typedef void *shardtab_stream_t;

/** shardtab_init's parameters (NULL: all defaults). */
typedef struct shardtab_init_params {
    /** Let several ranks of a node share one device (round robin). Off by default:
     * more node ranks than devices is usually a launch mistake. */
    int allow_shared_device;
} shardtab_init_params_t;

/** This rank's device, as shardtab_device_info reports it. */
typedef struct shardtab_device_info {
    shardtab_backend_t backend; /**< the backend that bound it */
    int device;                 /**< ordinal of the bound device, as this process sees it */
    int visible_devices;        /**< devices this process can see */
    int shared;                 /**< another rank of this node binds the same device */
    char name[64];              /**< e.g.\ "NVIDIA H200", "AMD Instinct MI250X", "cpu" */
    char pci_bus_id[32];        /**< "0000:c1:00.0", or "-" for the host backend */
} shardtab_device_info_t;

/** @name Process set-up: bind this rank's device (collective)
 * @{ */

/** Picks this rank's device from its rank inside its node (never the global rank),
 * checks that no two ranks of the node share a device unless allowed. */
shardtab_status_t shardtab_init(MPI_Comm comm, const shardtab_init_params_t *params);
/** Releases the device binding. Local (no communicator): while any table of
 * this process lives it is refused with SHARDTAB_ERR_INVALID_ARG, the message
 * naming each live table, and nothing is released: the tables and their memory
 * stay usable and destroyable. Destroy every table first (collective), so that
 * every rank of a table refuses alike; then free the memory, then finalize. */
shardtab_status_t shardtab_finalize(void);
/** This rank's device (*info); SHARDTAB_ERR_INVALID_ARG before shardtab_init. */
shardtab_status_t shardtab_device_info(shardtab_device_info_t *info);
/** The backend this library was built for. */
shardtab_backend_t shardtab_backend(void);
/** A backend's name: "host", "hip", "cuda", or "unknown". */
const char *shardtab_backend_name(shardtab_backend_t backend);
/** @} */

/** @name Memory on the bound device (local)
 * @{ */

/** Memory that can be shared through a table. Never write it from the host:
 * copy into it. A zero-byte request returns a valid, unique pointer. */
shardtab_status_t shardtab_mem_alloc(size_t bytes, void **ptr);
/** Frees memory of shardtab_mem_alloc or shardtab_mem_alloc_coherent (NULL: nothing to
 * do). Refused, with a message, while any live table lies in it. */
shardtab_status_t shardtab_mem_free(void *ptr);
/** Copies bytes from the host to the device. Both copies return once the bytes are in
 * place (to_device waits for the default stream, since a copy from pageable memory may
 * return before it lands), so work on any stream, and any peer told afterwards, sees
 * them. */
shardtab_status_t shardtab_memcpy_to_device(void *dst, const void *src, size_t bytes);
/** Copies bytes from the device to the host; returns once they are in place (see
 * shardtab_memcpy_to_device). */
shardtab_status_t shardtab_memcpy_to_host(void *dst, const void *src, size_t bytes);
/** Waits for all work on this rank's device. */
shardtab_status_t shardtab_device_synchronize(void);
/** Memory that node peers may write while this device's kernels run, and whose
 * writes a system-scope acquire (shardtab_device.h) makes visible: halo rows,
 * flags. AMD: fine-grained (hipExtMallocWithFlags), because plain hipMalloc
 * memory is coherent only at kernel boundaries and downgrades system-scope
 * atomics to device scope; NVIDIA: ordinary device memory; host: the same as
 * shardtab_mem_alloc. Free it with shardtab_mem_free. */
shardtab_status_t shardtab_mem_alloc_coherent(size_t bytes, void **ptr);
/** Host memory this process may still take, in bytes: MemAvailable, capped by
 * what its cgroup has left below a limit (v2 memory.max minus memory.current,
 * v1 memory.limit_in_bytes minus memory.usage_in_bytes; 1 at the limit); 0
 * when unknown. Needs no shardtab_init. The host backend refuses a shard above it,
 * and the programs size their defaults with it, rather than meet the OOM killer. */
uint64_t shardtab_host_memory_available(void);
/** Stream-ordered copy, either direction, either side a peer's mapping. */
shardtab_status_t shardtab_memcpy_async(void *dst, const void *src, size_t bytes,
                                        shardtab_stream_t stream);
/** Waits for one stream only: never stalls other libraries' streams. */
shardtab_status_t shardtab_stream_synchronize(shardtab_stream_t stream);
/** @} */

/** @name The table (collective over comm)
 * @{ */

/** Makes the table of every rank's shard, with the default parameters
 * (shardtab_create_with). shard may point inside a larger allocation from
 * shardtab_mem_alloc; shard may be NULL only with bytes == 0. A shard of 0
 * bytes is empty, whatever pointer comes with it: every rank's entry for it is
 * NULL (shardtab_peer and the device table), and the table holds none of its
 * memory.
 * SHARDTAB_RANKS_PER_NODE=R in the environment splits each real node into groups
 * of R consecutive ranks, to test multi-node logic on one machine. */
shardtab_status_t shardtab_create(MPI_Comm comm, void *shard, size_t bytes, shardtab_t **table);
/** @} */

/** User slots of each rank's signal pad where shardtab_create_params_t.signal_slots is 0. */
#define SHARDTAB_SIGNAL_SLOTS_DEFAULT 64
/** Seconds a device-side wait may take where neither shardtab_create_params_t.wait_timeout_s
 * nor $SHARDTAB_WAIT_TIMEOUT says. */
#define SHARDTAB_WAIT_TIMEOUT_DEFAULT_S 10.0

/** shardtab_create_with's parameters: a field left 0 (NULL) takes its default; params NULL,
 * every one. */
typedef struct shardtab_create_params {
    /** The stream the table's kernels run on: create uploads the table on it and
     * destroy waits for it alone (never the whole device). NULL: default stream. */
    shardtab_stream_t stream;
    /** User slots of each rank's signal pad; the same on every rank of a node.
     * 0: SHARDTAB_SIGNAL_SLOTS_DEFAULT. */
    int signal_slots;
    /** Seconds any device-side wait may take before it gives up (shardtab_device.h),
     * in [0.001, 1e6] (below 1 ms, ranks that arrive together would miss each
     * other). 0: $SHARDTAB_WAIT_TIMEOUT (the same range, else bad usage), else
     * SHARDTAB_WAIT_TIMEOUT_DEFAULT_S. */
    double wait_timeout_s;
    /** The shard pointer must be a multiple of this (a power of two; 0: any):
     * give the alignment the kernels' widest access needs, so that a shard that
     * would fault on the device is refused at create instead. */
    size_t alignment;
    /** A name for the table, or NULL. Creates are collective and pair by order,
     * as MPI's collectives do: every rank creates (and destroys) its tables in
     * the same order. The label checks it: a rank whose label differs from
     * rank 0's fails the create on every rank, the message naming both (a
     * rank that creates B where the others create A would otherwise be paired
     * with their A). Up to SHARDTAB_LABEL_MAX - 1 bytes are compared and
     * named; messages of destroy name it too. */
    const char *label;
} shardtab_create_params_t;
/** The bytes of a label that count: up to SHARDTAB_LABEL_MAX - 1 are compared and named. */
#define SHARDTAB_LABEL_MAX 64

/** @name The table with parameters, and its end (collective over comm)
 * @{ */

/** shardtab_create with parameters (params may be NULL: all defaults). */
shardtab_status_t shardtab_create_with(MPI_Comm comm, void *shard, size_t bytes,
                                       const shardtab_create_params_t *params, shardtab_t **table);
/** Waits for the table's stream, lets every importer unmap, then releases. Sets
 * *table to NULL. Kernels on other streams that use the table must be finished
 * by the caller. The shards themselves stay allocated: free them afterwards.
 * The wait for the other ranks is bounded (6 x the table's wait_timeout_s, at
 * least 1 s; 60 s by default): a rank that never destroys this table (it destroys another, or
 * none) makes it SHARDTAB_ERR_TIMEOUT, the message naming the table and the
 * rule; the table is then gone on this rank, its resources held until the
 * process ends, and the job should end (MPI_Abort). A rank that comes after
 * the others gave up is bounded alike (its second agreement times out). After
 * such a timeout every other live table of this process over the same ranks
 * (a congruent communicator) is out of step: its destroy and its
 * stream-ordered collectives fail at once, locally, with SHARDTAB_ERR_TIMEOUT
 * naming both tables (the destroy drops the table as above).
 * A table that is not live (NULL, destroyed already): a local
 * SHARDTAB_ERR_INVALID_ARG, no collective, *table left as it is. */
shardtab_status_t shardtab_destroy(shardtab_t **table);
/** @} */

/** @name The queries (local)
 * "Not live": NULL, destroyed, or never created (see Handles at the top); each
 * then records why in shardtab_last_error().
 * @{ */

/** Ranks in this node's table; -1 for a table that is not live. */
int shardtab_node_size(const shardtab_t *table);
/** This rank's index in it; -1 for a table that is not live. */
int shardtab_node_rank(const shardtab_t *table);
/** This node's index, in [0, node_count); -1 for a table that is not live. */
int shardtab_node_id(const shardtab_t *table);
/** Nodes of the table; -1 for a table that is not live. */
int shardtab_node_count(const shardtab_t *table);
/** Device-resident array of node_size pointers, indexed by node rank; hand it
 * to kernels as (T *const *). Each rank's replica lives on its own device.
 * NULL for a table that is not live. */
void *const *shardtab_device_table(const shardtab_t *table);
/** Communicator rank of the member with node rank node_rank, or -1 (also for a
 * table that is not live). */
int shardtab_member(const shardtab_t *table, int node_rank);
/** Node rank of a communicator rank, or -1 when it is on another node (also for
 * a table that is not live). */
int shardtab_node_rank_of(const shardtab_t *table, int comm_rank);
/** A peer's shard as mapped in this process (host copy of the table). *base is
 * NULL and *bytes 0 for a rank on another node, or an empty shard. A table
 * that is not live: SHARDTAB_ERR_INVALID_ARG, nothing written. */
shardtab_status_t shardtab_peer(const shardtab_t *table, int comm_rank, void **base, size_t *bytes);
/** What the runtime reported at create about the device of node rank `from`
 * reaching the memory of node rank `to`: 1 yes, 0 no, -1 unknown (the GPU of
 * `to` is invisible to `from`, as with one visible GPU per rank). Reported is
 * not proven: multi_scal --check-peers writes and verifies every pair. 0 for a
 * node rank outside the node, and for a table that is not live. */
int shardtab_peer_access(const shardtab_t *table, int from, int to);
/** The table's time limit of every device-side wait, in seconds; -1.0 for a
 * table that is not live. */
double shardtab_wait_timeout(const shardtab_t *table);
/** @} */

/** @name Signals between the ranks of a node (kernels: shardtab_device.h)
 * @{ */

/** The by-value handle a kernel takes to signal, wait and join barriers. A table
 * that is not live: SHARDTAB_ERR_INVALID_ARG, nothing written. */
shardtab_status_t shardtab_signals(const shardtab_t *table, shardtab_signals_t *signals);
/** Enqueues a node-wide barrier on stream (one thread of one block joins it, like
 * nvshmemx_barrier_all_on_stream): work enqueued after it on any rank runs after
 * the work enqueued before it on every rank of the node. Calls on different
 * streams are ordered among themselves (each waits for the table's previous
 * barrier), since two barriers of one rank may not run at once; the table
 * remembers the last, and shardtab_signal_check and shardtab_destroy wait for
 * it. Host backend: now. A table that is not live: SHARDTAB_ERR_INVALID_ARG,
 * locally, nothing enqueued. */
shardtab_status_t shardtab_barrier_on_stream(shardtab_t *table, shardtab_stream_t stream);
/** Local, after the table's stream has drained: did a device wait of this rank
 * give up? SHARDTAB_ERR_TIMEOUT with the rank, slot, value and time it waited,
 * SHARDTAB_ERR_ABORTED when another rank gave up first, else SHARDTAB_SUCCESS.
 * Pass the result to shardtab_agree: every rank then reports the first cause.
 * A stopped table keeps the first cause this rank knew, and every later call
 * returns it again, status and message: on a rank whose own checks refused a
 * stream-ordered collective, that refusal (so the agreement carries it).
 * A table that is not live: SHARDTAB_ERR_INVALID_ARG. */
shardtab_status_t shardtab_signal_check(const shardtab_t *table);
/** @} */

/** @name Collectives on a stream, over the table's shards (collective)
 * Like SymmetricMemory's: the buffer is a region of every rank's shard, from
 * byte `offset`, the same on every rank; `count` elements of `type`. Every
 * rank of the table's communicator calls, in the same order, with the same
 * arguments (broadcast: the same root). Enqueued on stream (the host backend
 * runs them now), after the table's last barrier or collective on any stream.
 *
 * Inside a node the ranks read one another's shards through the table; every
 * result is combined in node-rank order (v[0] op v[1] op ... op v[n - 1]),
 * so every rank gets the same bits, every run, whatever the algorithm: the
 * one-block all-reduce (one kernel: a node barrier, every rank reads every
 * peer's region into a scratch buffer, a barrier, the copy back; up to 8
 * bytes, one sync whose words carry the values, each rank combining them
 * into its own region, no rank reading another's) up to 64 KiB (16 KiB for
 * SHARDTAB_SUM_EXACT), the one-shot
 * (the same in four kernels, a grid each) up to the cut-over, the two-shot
 * (each rank reduces its chunk in place, a barrier, each copies every other
 * chunk from its owner, a barrier) above, with 16-byte accesses where every
 * rank's region starts 16-byte aligned.
 * SHARDTAB_ALL_REDUCE_ALGO=one-block|one-shot|two-shot|auto and
 * SHARDTAB_ALL_REDUCE_CUTOVER=\<bytes> choose (the default cut-over was
 * measured: docs/performance.md). NCCL promises no such order.
 * SHARDTAB_SUM_EXACT (floats and doubles) needs none: each element is the
 * exact sum of every rank's value rounded once, the same bits at any rank
 * count and layout (shardtab_types.h); across nodes every rank's values are
 * gathered by MPI and summed exactly, no node result rounded first.
 *
 * Across nodes: the table inside each node, then MPI between the node
 * leaders, staged through the host (a gather of every node's result, reduced
 * in node order, so the bits are still the same everywhere), then MPI inside
 * each node; host-synchronous: the call returns once the result is in place.
 *
 * Arguments are checked without a host collective on one node: each rank's
 * first barrier carries what it was called with, and a rank whose call
 * differs, or whose own checks failed, stops the node: the failing rank
 * returns its error at once, the others learn it from shardtab_signal_check
 * (then shardtab_agree: one message everywhere). Across nodes they are agreed
 * by MPI before anything moves, an agreement bounded by 6 x the table's wait
 * limit (at least 1 s): a rank that never comes leaves the others
 * SHARDTAB_ERR_TIMEOUT, the agreement pending, and every table over those
 * ranks out of step (its calls refused at once): end the job. As with the
 * signals, a stopped node's table must be destroyed. Once this rank knows its
 * table stopped (its own call was refused, or shardtab_signal_check said so),
 * every later call of these three fails at once, SHARDTAB_ERR_ABORTED,
 * "<call>: refused: this table stopped at an earlier call; destroy it. It
 * stopped because: <the first cause this rank knew>"; nothing is enqueued
 * (across nodes the refusal is agreed first, as any other). A table that is
 * not live is refused at once, locally (SHARDTAB_ERR_INVALID_ARG naming the
 * call), before any of that; so is one out of step after a destroy gave up
 * (SHARDTAB_ERR_TIMEOUT, see shardtab_destroy).
 * @{ */

/** In place: every rank's region = the op of every rank's region, element by
 * element. */
shardtab_status_t shardtab_all_reduce(shardtab_t *table, shardtab_op_t op, shardtab_type_t type,
                                      size_t offset, size_t count, shardtab_stream_t stream);
/** Every rank's region = the region of comm rank `root`. */
shardtab_status_t shardtab_broadcast(shardtab_t *table, int root, shardtab_type_t type,
                                     size_t offset, size_t count, shardtab_stream_t stream);
/** In place: the region holds size * count elements, comm rank r's own at
 * element r * count; afterwards every rank's holds every rank's. */
shardtab_status_t shardtab_all_gather(shardtab_t *table, shardtab_type_t type, size_t offset,
                                      size_t count, shardtab_stream_t stream);
/** @} */

/** @name What a create cost, and the mappings (local)
 * @{ */

/** Milliseconds this rank spent in shardtab_create; -1.0 for a table that is not live. */
double shardtab_create_ms(const shardtab_t *table);
/** Milliseconds this rank's shardtab_create spent in its IPC opens; -1.0 for a table that
 * is not live. */
double shardtab_open_ms(const shardtab_t *table);
/** Peer allocations (shards and signal pads) this rank's create opened; -1 for a table
 * that is not live. */
int shardtab_peers_opened(const shardtab_t *table);
/** Peer allocations this rank's create found open already for another live table and
 * only counted; -1 for a table that is not live. */
int shardtab_peers_reused(const shardtab_t *table);
/** Peer allocations this process has mapped now, each once however many live
 * tables use it; 0 once every table is destroyed. */
int shardtab_peer_mappings(void);
/** @} */

/** @name Version
 * @{ */

/** The version of the library this program runs with, "MAJOR.MINOR.PATCH" (the
 * headers' own: SHARDTAB_VERSION_STRING, shardtab_version.h). */
const char *shardtab_version(void);
/** @} */

/** @name Errors
 * @{ */

/** A status in words ("invalid argument"), or "unknown status". */
const char *shardtab_status_string(shardtab_status_t status);
/** The message of the latest failure of this process, met on any of its threads
 * ("" when none): a failure in an OpenMP region is reported on every thread. The
 * string is this thread's own copy, valid until its next call of this function. */
const char *shardtab_last_error(void);
/** Record an application error, so that shardtab_agree can share it. */
shardtab_status_t shardtab_error_set(shardtab_status_t status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** The same with the message as it is: for callers that cannot call a variadic
 * function (Fortran's bind(C), ctypes on some platforms). */
shardtab_status_t shardtab_error_set_message(shardtab_status_t status, const char *message);
/** SHARDTAB_SUCCESS for MPI_SUCCESS; else SHARDTAB_ERR_MPI, recorded as above
 * with "CALL failed: " and MPI's words for rc. For calls on a communicator
 * that returns errors (MPI_ERRORS_RETURN): the library's own and the
 * programs' checks alike. */
shardtab_status_t shardtab_mpi_check(int rc, const char *call);
/** Collective: every rank passes its local status and gets back the status of
 * the lowest failing rank (SHARDTAB_SUCCESS when none failed); that rank's
 * message becomes everybody's shardtab_last_error(). A failure that is only a
 * consequence of another rank's (SHARDTAB_ERR_ABORTED) loses to any other, so
 * the cause is what every rank reports. Nobody is left waiting. */
shardtab_status_t shardtab_agree(MPI_Comm comm, shardtab_status_t local);
/** The same, bounded: a rank that has waited `seconds` for the others (one is
 * stopped, stuck or gone) prints one line, "<program>: error: ...", and ends the
 * job with MPI_Abort, instead of waiting for the job's time limit. Every rank
 * of comm must call this form (not shardtab_agree) at that point. */
shardtab_status_t shardtab_agree_within(MPI_Comm comm, shardtab_status_t local, double seconds);
/** Collective over the table's communicator: shardtab_agree_within, bounded as
 * the table's own steps across nodes are (6 x its wait limit, at least 1 s).
 * For code that agrees around the table's calls (the Python front does, before
 * each collective): a rank that never comes ends the job with one line instead
 * of holding the others. A table that is not live: SHARDTAB_ERR_INVALID_ARG,
 * at once, on that rank; one out of step after a bounded step gave up:
 * SHARDTAB_ERR_TIMEOUT, at once (an agreement now could pair with the pending
 * one). */
shardtab_status_t shardtab_table_agree(const shardtab_t *table, shardtab_status_t local);
/** @} */

/** @name The same collective calls for a Fortran communicator handle
 * For the Fortran module (comm, or comm%MPI_VAL with mpi_f08) and Python
 * (mpi4py's comm.py2f()): MPI_Comm_f2c gives the communicator. MPI_COMM_NULL's
 * handle, and with Open MPI any handle it does not know (its MPI_Comm_f2c
 * gives NULL: 12345, -1, a freed communicator's), is a local
 * SHARDTAB_ERR_INVALID_ARG; MPICH checks its handles itself. A freed handle
 * that MPI has given to a new communicator since is that communicator.
 * @{ */

/** shardtab_init, allow_shared_device as in shardtab_init_params_t. */
shardtab_status_t shardtab_init_f(MPI_Fint comm, int allow_shared_device);
/** shardtab_create_with. */
shardtab_status_t shardtab_create_f(MPI_Fint comm, void *shard, size_t bytes,
                                    const shardtab_create_params_t *params, shardtab_t **table);
/** shardtab_agree. */
shardtab_status_t shardtab_agree_f(MPI_Fint comm, shardtab_status_t local);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SHARDTAB_H */
