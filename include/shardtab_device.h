/* shardtab_device.h - signals and a barrier between the ranks of a node, for
 * the code that runs on the device: HIP kernels (AMD), the same source compiled
 * as CUDA (NVIDIA), and the host backend's C loops (POSIX shared memory).
 *
 * Every table has a signal pad per rank: 64-bit slots in that rank's own
 * memory, exported through the same IPC exchange as the shards. A kernel may
 *   - set or add to a slot of any node peer's pad (release, system scope);
 *   - wait until a slot of its own pad is == or >= a value (acquire, system scope);
 *   - fence at system scope;
 *   - join a node-wide barrier (one thread, or a whole block, of each rank).
 * Beside them, the primitives below also come at device scope (a rank's own
 * words, touched by its own device alone: a collective's state in
 * shardtab_comm.h), and as one-way fences (a release fence before flags,
 * relaxed stores that it publishes; an acquire fence after relaxed polls of
 * several slots, shardtab_poll_index): each names its order and scope.
 * The pad lives in memory that stays coherent while kernels run: uncached or
 * fine-grained on AMD (hipExtMallocWithFlags), ordinary device memory on NVIDIA,
 * the shared-memory segment on the host backend. docs/design.md gives the
 * memory-model reasoning per GPU.
 *
 * Every wait has a time limit (shardtab_create_params_t.wait_timeout_s, or
 * SHARDTAB_WAIT_TIMEOUT seconds; 10 s by default). A wait that runs out records
 * what it waited for in its own pad, tells every peer to stop (their waits
 * return SHARDTAB_WAIT_ABORTED), and returns SHARDTAB_WAIT_TIMED_OUT: the kernel
 * then returns, and the host learns which rank, slot and value from
 * shardtab_signal_check(). Nothing traps, so the context survives to report.
 * The stop is for good: every later wait on that table returns ABORTED, so
 * destroy it (and make a new one) to go on. A barrier waits for each peer in
 * turn, each wait with the whole limit.
 *
 * Usage in a kernel (the handle is passed by value): every thread of the block
 * stores its part into the next rank's shard, the block signals "round done"
 * once all of its stores are visible there, then waits for its predecessor's
 * signal before any thread reads what the predecessor wrote into its own shard:
 *
 *     __global__ void round(shardtab_signals_t sig, double *const *table, int next,
 *                           uint64_t round, size_t n) {
 *         for (size_t i = threadIdx.x; i < n; i += blockDim.x)
 *             table[next][i] = value(round, i);
 *         shardtab_signal_set_block(&sig, next, 0, round + 1);   // every thread calls it
 *         if (shardtab_signal_wait_block(&sig, 0, SHARDTAB_CMP_GE, round + 1))
 *             return;                  // timed out or aborted: stop, the host reports
 *         ... every thread may now read table[sig.node_rank] ...
 *     }
 *
 * The block helpers do what a thread-0-only signal gets wrong: no thread
 * signals before every thread's stores are visible to the peer, and no thread
 * reads before the wait has ended (tests/shardtab/signals/ runs this example on every
 * backend). Signals from one thread (shardtab_signal_set) are for code whose
 * stores that thread made alone.
 *
 * A slot should have one writer (one peer, one block) unless it is only ever
 * added to; values should grow (an iteration count), so that no reset races a
 * late reader (the NVSHMEM neighbour-sync idiom). One barrier at a time per
 * rank and table: a second one entered while the first waits is refused (its
 * wait returns SHARDTAB_WAIT_CONCURRENT and the node stops, reported by
 * shardtab_signal_check); shardtab_barrier_on_stream orders its calls itself,
 * whatever streams they are on.
 */
#ifndef SHARDTAB_DEVICE_H
#define SHARDTAB_DEVICE_H

#include <stdint.h>

/* ---- which compiler sees this ---------------------------------------------- */
#if defined(__CUDACC__)
#define SHARDTAB_DEVICE_CUDA 1
#define SHARDTAB_DEVFN __device__ static inline
#include <cuda/atomic>
#elif defined(__HIP__) || defined(__HIPCC__)
#define SHARDTAB_DEVICE_HIP 1
#define SHARDTAB_DEVFN __device__ static inline
#include <hip/hip_runtime.h>
#else
#define SHARDTAB_DEVICE_HOST 1
#define SHARDTAB_DEVFN static inline
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
_Static_assert(sizeof(_Atomic uint64_t) == sizeof(uint64_t) && ATOMIC_LLONG_LOCK_FREE == 2,
               "the host backend's signals need lock-free 64-bit atomics laid out as uint64_t");
#endif

/* ---- the pad ----------------------------------------------------------------- *
 * [0, SHARDTAB_PAD_HEADER)                  this rank's status and error record
 * [HEADER, HEADER + node_size)              barrier arrivals, one slot per node rank
 * [HEADER + node_size, ... + slots)         the user's slots 0 .. slots-1
 * [lib_first, ...)                          the library's collective (shardtab_comm.h) */
enum {
    SHARDTAB_PAD_STATUS = 0,    /* 0, or the SHARDTAB_WAIT_* this rank gave up with */
    SHARDTAB_PAD_ERR_SLOT = 1,  /* pad index it waited on */
    SHARDTAB_PAD_ERR_CMP = 2,   /* SHARDTAB_CMP_* */
    SHARDTAB_PAD_ERR_WANT = 3,  /* the value it waited for */
    SHARDTAB_PAD_ERR_SEEN = 4,  /* the value the slot held when it gave up */
    SHARDTAB_PAD_ERR_TICKS = 5, /* clock ticks it waited */
    SHARDTAB_PAD_ABORT = 6,     /* 0, or 1 + node rank of a rank that gave up (written by it) */
    SHARDTAB_PAD_EPOCH = 7,     /* barriers this rank has entered; only it writes */
    SHARDTAB_PAD_BUSY = 8,      /* 1 while a barrier of this rank runs */
    SHARDTAB_PAD_HEADER = 16
};

enum { SHARDTAB_CMP_EQ = 0, SHARDTAB_CMP_GE = 1 };
enum {
    SHARDTAB_WAIT_OK = 0,
    SHARDTAB_WAIT_TIMED_OUT = 1,
    SHARDTAB_WAIT_ABORTED = 2,
    SHARDTAB_WAIT_CONCURRENT = 3, /* a barrier, or one collective, entered twice at once */
    SHARDTAB_WAIT_MISMATCH = 4,   /* a peer's collective call differs from this rank's */
    SHARDTAB_WAIT_CORRUPT = 5,    /* a peer's deposit fails its checksum */
    SHARDTAB_WAIT_MISUSE = 6      /* this rank called a collective wrongly (shardtab_comm.h) */
};

/* The handle a kernel needs, by value (shardtab_signals() fills it). */
typedef struct shardtab_signals {
    uint64_t *const *pads;  /* device-resident [node_size]: every pad as this rank maps it */
    uint64_t *mine;         /* this rank's own pad */
    int node_rank, node_size;
    int slots;              /* user slots per pad */
    int lib_first;          /* pad index of the library's own collective (shardtab_comm.h) */
    uint64_t timeout_ticks; /* of shardtab_clock() */
} shardtab_signals_t;

/* ---- the primitives, one per target; each names its order and scope ---------- */
#if defined(SHARDTAB_DEVICE_CUDA)
SHARDTAB_DEVFN void shardtab_store_release_system(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_release);
}
SHARDTAB_DEVFN uint64_t shardtab_load_acquire_system(uint64_t *p)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).load(cuda::memory_order_acquire);
}
SHARDTAB_DEVFN uint64_t shardtab_load_relaxed_system(uint64_t *p)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).load(cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_add_release_system(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).fetch_add(v, cuda::memory_order_release);
}
SHARDTAB_DEVFN int shardtab_cas_relaxed_system(uint64_t *p, uint64_t expected, uint64_t desired)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).compare_exchange_strong(
        expected, desired, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_store_relaxed_system(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN uint64_t shardtab_fetch_add_relaxed_system(uint64_t *p, uint64_t v)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).fetch_add(v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_min_relaxed_system(uint64_t *p, uint64_t v)
{
    (void)cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).fetch_min(v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_max_relaxed_system(uint64_t *p, uint64_t v)
{
    (void)cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).fetch_max(v, cuda::memory_order_relaxed);
}
/* the block's threads, numbered 0 .. shardtab_block_threads() - 1 */
SHARDTAB_DEVFN int shardtab_block_thread(void)
{
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
SHARDTAB_DEVFN int shardtab_block_threads(void)
{
    return (int)(blockDim.x * blockDim.y * blockDim.z);
}
/* one 16-byte load and one 16-byte store (both 16-byte aligned) */
SHARDTAB_DEVFN void shardtab_copy16(void *dst, const void *src)
{
    *(int4 *)dst = *(const int4 *)src;
}
SHARDTAB_DEVFN void shardtab_fence(void)
{
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
}
SHARDTAB_DEVFN void shardtab_fence_acquire(void)
{
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
}
SHARDTAB_DEVFN void shardtab_block_sync(void)
{
    __syncthreads();
}
SHARDTAB_DEVFN int shardtab_block_leader(void)
{
    return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}
/* Before one thread releases for its block: nothing per thread. bar.sync then
 * orders every thread's stores before the leader's system-scope release, and
 * that release is cumulative (PTX ISA, memory consistency model). */
SHARDTAB_DEVFN void shardtab_fence_before_block_release(void)
{
}
/* After the block's barrier, before any thread reads what the leader
 * acquired for the block: nothing per thread. The leader's system-scope
 * acquire pattern, then bar.sync, orders the peers' writes before every
 * thread's later reads (PTX ISA, memory consistency model: bar.sync
 * synchronizes, and base causality order is transitive). */
SHARDTAB_DEVFN void shardtab_fence_after_block_acquire(void)
{
}
/* Device scope (thread_scope_device, PTX .gpu: every thread of this GPU):
 * for words that only this rank's own device touches (a collective's
 * STARTED, FINISHED and BUSY words, shardtab_comm.h). */
SHARDTAB_DEVFN uint64_t shardtab_load_relaxed_device(uint64_t *p)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).load(cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_store_relaxed_device(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_store_release_device(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_release);
}
/* acquire when it swaps, relaxed when it does not (atom.cas.acquire.gpu) */
SHARDTAB_DEVFN int shardtab_cas_acquire_device(uint64_t *p, uint64_t expected, uint64_t desired)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).compare_exchange_strong(
        expected, desired, cuda::memory_order_acquire, cuda::memory_order_relaxed);
}
/* A flag: a relaxed store that a release fence before it (in this thread's
 * order) makes a release: the fence-then-flag idiom (PTX release pattern
 * "fence.release; st.relaxed [M]"). Its own name, so that
 * scripts/check-gfx90a-order.sh can check the fence before it. */
SHARDTAB_DEVFN void shardtab_flag_relaxed_system(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_flag_relaxed_device(uint64_t *p, uint64_t v)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_relaxed);
}
/* One-way fences. From PTX ISA 8.6 on sm_90 (CUDA 12.8 and later) PTX has
 * fence.release and fence.acquire, each the fence of its pattern (a release
 * fence then a strong write; a strong read then an acquire fence); before
 * that, libcu++'s mapping, fence.acq_rel, which is both. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#define SHARDTAB_PTX_ONE_WAY_FENCES 1
#endif
SHARDTAB_DEVFN void shardtab_fence_release_system(void)
{
#if defined(SHARDTAB_PTX_ONE_WAY_FENCES)
    asm volatile("fence.release.sys;" ::: "memory");
#else
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
#endif
}
SHARDTAB_DEVFN void shardtab_fence_acquire_system(void)
{
#if defined(SHARDTAB_PTX_ONE_WAY_FENCES)
    asm volatile("fence.acquire.sys;" ::: "memory");
#else
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
#endif
}
SHARDTAB_DEVFN void shardtab_fence_release_device(void)
{
#if defined(SHARDTAB_PTX_ONE_WAY_FENCES)
    asm volatile("fence.release.gpu;" ::: "memory");
#else
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
#endif
}
SHARDTAB_DEVFN void shardtab_fence_acquire_device(void)
{
#if defined(SHARDTAB_PTX_ONE_WAY_FENCES)
    asm volatile("fence.acquire.gpu;" ::: "memory");
#else
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
#endif
}
/* The release and acquire of what the node's ranks exchange through their
 * pads: system scope, or device scope where the node is this rank alone
 * (node_size 1: every pad access stays on this device). */
SHARDTAB_DEVFN void shardtab_fence_release_node(const shardtab_signals_t *s)
{
    if (s->node_size == 1)
        shardtab_fence_release_device();
    else
        shardtab_fence_release_system();
}
SHARDTAB_DEVFN void shardtab_fence_acquire_node(const shardtab_signals_t *s)
{
    if (s->node_size == 1)
        shardtab_fence_acquire_device();
    else
        shardtab_fence_acquire_system();
}
/* nanoseconds of the GPU's global timer */
SHARDTAB_DEVFN uint64_t shardtab_clock(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
SHARDTAB_DEVFN void shardtab_pause(void)
{
    __nanosleep(32);
}
#elif defined(SHARDTAB_DEVICE_HIP)
SHARDTAB_DEVFN void shardtab_store_release_system(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN uint64_t shardtab_load_acquire_system(uint64_t *p)
{
    return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN uint64_t shardtab_load_relaxed_system(uint64_t *p)
{
    return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_add_release_system(uint64_t *p, uint64_t v)
{
    (void)__hip_atomic_fetch_add(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN int shardtab_cas_relaxed_system(uint64_t *p, uint64_t expected, uint64_t desired)
{
    return __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_store_relaxed_system(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN uint64_t shardtab_fetch_add_relaxed_system(uint64_t *p, uint64_t v)
{
    return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_min_relaxed_system(uint64_t *p, uint64_t v)
{
    (void)__hip_atomic_fetch_min(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_max_relaxed_system(uint64_t *p, uint64_t v)
{
    (void)__hip_atomic_fetch_max(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
/* the block's threads, numbered 0 .. shardtab_block_threads() - 1 */
SHARDTAB_DEVFN int shardtab_block_thread(void)
{
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
SHARDTAB_DEVFN int shardtab_block_threads(void)
{
    return (int)(blockDim.x * blockDim.y * blockDim.z);
}
/* one 16-byte load and one 16-byte store (both 16-byte aligned) */
SHARDTAB_DEVFN void shardtab_copy16(void *dst, const void *src)
{
    *(int4 *)dst = *(const int4 *)src;
}
/* clang also parses device functions in its host pass, where the GPU's own
 * builtins may not exist (ROCm 5.2 declares wall_clock64 for the device pass
 * only): those bodies are never run on the host. */
SHARDTAB_DEVFN void shardtab_fence(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); /* "": the system scope */
#endif
}
SHARDTAB_DEVFN void shardtab_fence_acquire(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "");
#endif
}
SHARDTAB_DEVFN void shardtab_block_sync(void)
{
    __syncthreads();
}
SHARDTAB_DEVFN int shardtab_block_leader(void)
{
    return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}
/* Before one thread releases for its block: every wave releases its own
 * stores. On gfx90a without tgsplit, LLVM's workgroup-scope release (inside
 * __syncthreads) emits no wait for other waves' global stores, so the leader's
 * system-scope release would cover its own wave's stores only (the gap LLVM
 * closed for GFX10+ in PRs 160501 and 161638). */
SHARDTAB_DEVFN void shardtab_fence_before_block_release(void)
{
    shardtab_fence();
}
/* After the block's barrier, before any thread reads what the leader
 * acquired for the block: every wave acquires for itself (system scope), so
 * that no wave reads through a line of the CU's L1 that one of its own loads
 * from before the barrier brought in (the leader's buffer_wbinvl1_vol is the
 * leader's wave's, ordered with the leader's loads only). */
SHARDTAB_DEVFN void shardtab_fence_after_block_acquire(void)
{
    shardtab_fence_acquire();
}
/* Device scope (__HIP_MEMORY_SCOPE_AGENT: every thread of this GPU): for
 * words that only this rank's own device touches (a collective's STARTED,
 * FINISHED and BUSY words, shardtab_comm.h). On gfx90a agent scope needs no
 * L2 writeback or invalidate (AMDGPUUsage, GFX90A: buffer_wbl2 and
 * buffer_invl2 are for system scope only). */
SHARDTAB_DEVFN uint64_t shardtab_load_relaxed_device(uint64_t *p)
{
    return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
SHARDTAB_DEVFN void shardtab_store_relaxed_device(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
SHARDTAB_DEVFN void shardtab_store_release_device(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}
/* acquire when it swaps, relaxed when it does not */
SHARDTAB_DEVFN int shardtab_cas_acquire_device(uint64_t *p, uint64_t expected, uint64_t desired)
{
    return __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_ACQUIRE,
                                                __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
/* A flag: a relaxed store that a release fence before it (in this thread's
 * order) makes a release: the fence-then-flag idiom. Its own name, so that
 * scripts/check-gfx90a-order.sh can check the fence before it. */
SHARDTAB_DEVFN void shardtab_flag_relaxed_system(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
SHARDTAB_DEVFN void shardtab_flag_relaxed_device(uint64_t *p, uint64_t v)
{
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
/* One-way fences. gfx90a, as LLVM 15 emits them (AMDGPUUsage, "Memory Model
 * GFX90A"): release, system: buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0);
 * acquire, system: s_waitcnt vmcnt(0) lgkmcnt(0); buffer_invl2;
 * buffer_wbinvl1_vol (clang 15 also writes back first, buffer_wbl2);
 * release, agent: s_waitcnt vmcnt(0) lgkmcnt(0); acquire, agent: the same,
 * then buffer_wbinvl1_vol. */
SHARDTAB_DEVFN void shardtab_fence_release_system(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "");
#endif
}
SHARDTAB_DEVFN void shardtab_fence_acquire_system(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "");
#endif
}
SHARDTAB_DEVFN void shardtab_fence_release_device(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
#endif
}
SHARDTAB_DEVFN void shardtab_fence_acquire_device(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
#endif
}
/* The release and acquire of what the node's ranks exchange through their
 * pads: system scope, also where the node is this rank alone. A scope chosen
 * at run time is a branch around two fences, and LLVM's structurizer may join
 * the two paths again before either fence (flow blocks): one fence, the same
 * on every path, is what scripts/check-gfx90a-order.sh can verify on every
 * path, and what AMD gets. */
SHARDTAB_DEVFN void shardtab_fence_release_node(const shardtab_signals_t *s)
{
    (void)s;
    shardtab_fence_release_system();
}
SHARDTAB_DEVFN void shardtab_fence_acquire_node(const shardtab_signals_t *s)
{
    (void)s;
    shardtab_fence_acquire_system();
}
/* ticks of the constant-rate real-time counter (s_memrealtime) */
SHARDTAB_DEVFN uint64_t shardtab_clock(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    return (uint64_t)wall_clock64();
#else
    return 0;
#endif
}
SHARDTAB_DEVFN void shardtab_pause(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_s_sleep(1);
#endif
}
#else /* the host backend: C11 atomics on the shared-memory segment */
SHARDTAB_DEVFN void shardtab_store_release_system(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_release);
}
SHARDTAB_DEVFN uint64_t shardtab_load_acquire_system(uint64_t *p)
{
    return atomic_load_explicit((_Atomic uint64_t *)p, memory_order_acquire);
}
SHARDTAB_DEVFN uint64_t shardtab_load_relaxed_system(uint64_t *p)
{
    return atomic_load_explicit((_Atomic uint64_t *)p, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_add_release_system(uint64_t *p, uint64_t v)
{
    (void)atomic_fetch_add_explicit((_Atomic uint64_t *)p, v, memory_order_release);
}
SHARDTAB_DEVFN int shardtab_cas_relaxed_system(uint64_t *p, uint64_t expected, uint64_t desired)
{
    return atomic_compare_exchange_strong_explicit((_Atomic uint64_t *)p, &expected, desired,
                                                   memory_order_relaxed, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_store_relaxed_system(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN uint64_t shardtab_fetch_add_relaxed_system(uint64_t *p, uint64_t v)
{
    return atomic_fetch_add_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_min_relaxed_system(uint64_t *p, uint64_t v)
{
    uint64_t old = atomic_load_explicit((_Atomic uint64_t *)p, memory_order_relaxed);
    while (v < old && !atomic_compare_exchange_weak_explicit((_Atomic uint64_t *)p, &old, v,
                                                             memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}
SHARDTAB_DEVFN void shardtab_max_relaxed_system(uint64_t *p, uint64_t v)
{
    uint64_t old = atomic_load_explicit((_Atomic uint64_t *)p, memory_order_relaxed);
    while (v > old && !atomic_compare_exchange_weak_explicit((_Atomic uint64_t *)p, &old, v,
                                                             memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}
/* the host backend's block is one thread */
SHARDTAB_DEVFN int shardtab_block_thread(void)
{
    return 0;
}
SHARDTAB_DEVFN int shardtab_block_threads(void)
{
    return 1;
}
SHARDTAB_DEVFN void shardtab_copy16(void *dst, const void *src)
{
    memcpy(dst, src, 16);
}
SHARDTAB_DEVFN void shardtab_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}
SHARDTAB_DEVFN void shardtab_fence_acquire(void)
{
    atomic_thread_fence(memory_order_acquire);
}
/* The host backend's "block" is the calling thread. */
SHARDTAB_DEVFN void shardtab_block_sync(void)
{
}
SHARDTAB_DEVFN int shardtab_block_leader(void)
{
    return 1;
}
SHARDTAB_DEVFN void shardtab_fence_before_block_release(void)
{
}
SHARDTAB_DEVFN void shardtab_fence_after_block_acquire(void)
{
}
/* "Device" scope: the words only this process touches. C11 atomics have no
 * scopes; these name the scope the GPU targets use, with the same orders. */
SHARDTAB_DEVFN uint64_t shardtab_load_relaxed_device(uint64_t *p)
{
    return atomic_load_explicit((_Atomic uint64_t *)p, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_store_relaxed_device(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_store_release_device(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_release);
}
/* acquire when it swaps, relaxed when it does not */
SHARDTAB_DEVFN int shardtab_cas_acquire_device(uint64_t *p, uint64_t expected, uint64_t desired)
{
    return atomic_compare_exchange_strong_explicit((_Atomic uint64_t *)p, &expected, desired,
                                                   memory_order_acquire, memory_order_relaxed);
}
/* A flag: a relaxed store that a release fence before it makes a release
 * (C11 7.17.4: a release fence synchronizes with an acquire fence after a
 * relaxed load that reads a relaxed store sequenced after the release fence). */
SHARDTAB_DEVFN void shardtab_flag_relaxed_system(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_flag_relaxed_device(uint64_t *p, uint64_t v)
{
    atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}
SHARDTAB_DEVFN void shardtab_fence_release_system(void)
{
    atomic_thread_fence(memory_order_release);
}
SHARDTAB_DEVFN void shardtab_fence_acquire_system(void)
{
    atomic_thread_fence(memory_order_acquire);
}
SHARDTAB_DEVFN void shardtab_fence_release_device(void)
{
    atomic_thread_fence(memory_order_release);
}
SHARDTAB_DEVFN void shardtab_fence_acquire_device(void)
{
    atomic_thread_fence(memory_order_acquire);
}
/* The release and acquire of what the node's ranks exchange through their
 * pads (C11 fences have no scope) */
SHARDTAB_DEVFN void shardtab_fence_release_node(const shardtab_signals_t *s)
{
    (void)s;
    atomic_thread_fence(memory_order_release);
}
SHARDTAB_DEVFN void shardtab_fence_acquire_node(const shardtab_signals_t *s)
{
    (void)s;
    atomic_thread_fence(memory_order_acquire);
}
/* nanoseconds of CLOCK_MONOTONIC */
SHARDTAB_DEVFN uint64_t shardtab_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* ranks may outnumber cores (CI runs 4 on 2): a waiter must let the writer run */
SHARDTAB_DEVFN void shardtab_pause(void)
{
    sched_yield();
}
#endif

/* ---- signals ----------------------------------------------------------------- */

/* Pad index of user slot `slot`. */
SHARDTAB_DEVFN int shardtab_slot_index(const shardtab_signals_t *s, int slot)
{
    return SHARDTAB_PAD_HEADER + s->node_size + slot;
}

/* pad[slot] of node rank `peer` = value, after every earlier store of this thread
 * (and those it has observed) is visible to the peer: release, system scope. */
SHARDTAB_DEVFN void shardtab_signal_set(const shardtab_signals_t *s, int peer, int slot,
                                        uint64_t value)
{
    shardtab_store_release_system(s->pads[peer] + shardtab_slot_index(s, slot), value);
}

/* pad[slot] of node rank `peer` += value, atomically; release, system scope. */
SHARDTAB_DEVFN void shardtab_signal_add(const shardtab_signals_t *s, int peer, int slot,
                                        uint64_t value)
{
    shardtab_add_release_system(s->pads[peer] + shardtab_slot_index(s, slot), value);
}

/* This rank's own slot, acquire: later loads see what its writer released. */
SHARDTAB_DEVFN uint64_t shardtab_signal_read(const shardtab_signals_t *s, int slot)
{
    return shardtab_load_acquire_system(s->mine + shardtab_slot_index(s, slot));
}

/* Has any rank of the node given up a wait? */
SHARDTAB_DEVFN int shardtab_aborted(const shardtab_signals_t *s)
{
    return shardtab_load_relaxed_system(s->mine + SHARDTAB_PAD_ABORT) != 0;
}

/* Give up with `why` (a SHARDTAB_WAIT_* status): record the wait in this
 * rank's pad (the first one to give up wins), then tell every peer, and this
 * rank's own other waiters, to stop. */
SHARDTAB_DEVFN void shardtab_give_up_as(const shardtab_signals_t *s, int why, int index, int cmp,
                                        uint64_t want, uint64_t seen, uint64_t ticks)
{
    if (shardtab_cas_relaxed_system(s->mine + SHARDTAB_PAD_STATUS, 0, (uint64_t)why)) {
        s->mine[SHARDTAB_PAD_ERR_SLOT] = (uint64_t)index;
        s->mine[SHARDTAB_PAD_ERR_CMP] = (uint64_t)cmp;
        s->mine[SHARDTAB_PAD_ERR_WANT] = want;
        s->mine[SHARDTAB_PAD_ERR_SEEN] = seen;
        s->mine[SHARDTAB_PAD_ERR_TICKS] = ticks;
    }
    for (int q = 0; q < s->node_size; q++)
        shardtab_store_release_system(s->pads[q] + SHARDTAB_PAD_ABORT, 1 + (uint64_t)s->node_rank);
}

/* A wait that ran out of time. */
SHARDTAB_DEVFN void shardtab_give_up(const shardtab_signals_t *s, int index, int cmp,
                                     uint64_t want, uint64_t seen, uint64_t ticks)
{
    shardtab_give_up_as(s, SHARDTAB_WAIT_TIMED_OUT, index, cmp, want, seen, ticks);
}

/* Poll this rank's pad[index] until it compares to value, with relaxed loads
 * and pauses, bounded by the table's time limit; no acquire and no give-up of
 * its own, so that a caller may poll several slots, then acquire them all
 * with one fence (a relaxed load that reads a release pattern's flag, then an
 * acquire fence, synchronizes with it: the fence covers every load before it,
 * PTX "strong read then acquire fence", C11 7.17.4), and decide when to give
 * up (shardtab_give_up with *seen and *waited). Returns SHARDTAB_WAIT_OK
 * (*seen: the value read), _ABORTED (another rank gave up first) or
 * _TIMED_OUT (*seen: the last value read, *waited: the ticks waited). */
SHARDTAB_DEVFN int shardtab_poll_index(const shardtab_signals_t *s, int index, int cmp,
                                       uint64_t value, uint64_t *seen, uint64_t *waited)
{
    uint64_t *slot = s->mine + index, start = shardtab_clock();

    for (;;) {
        *seen = shardtab_load_relaxed_system(slot);
        if (cmp == SHARDTAB_CMP_GE ? *seen >= value : *seen == value)
            return SHARDTAB_WAIT_OK;
        if (shardtab_aborted(s))
            return SHARDTAB_WAIT_ABORTED;
        *waited = shardtab_clock() - start;
        if (*waited > s->timeout_ticks)
            return SHARDTAB_WAIT_TIMED_OUT;
        shardtab_pause();
    }
}

/* Wait until this rank's pad[index] compares to value (acquire, system scope).
 * Returns SHARDTAB_WAIT_OK, _TIMED_OUT (recorded, peers told) or _ABORTED
 * (another rank gave up first). It polls with relaxed loads and pauses, and
 * acquires once, by a fence, when the value is there: an acquire load per
 * poll would invalidate this CU's L1 on every spin on AMD (gfx90a: buffer_invl2,
 * buffer_wbinvl1_vol), under whatever else runs there. A relaxed load that
 * reads a release, then an acquire fence, synchronizes with that release.
 * (shardtab_poll_index's loop, written out, and acquiring on success only:
 * as a call of it, or with one fence after the loop for every way out, the
 * jacobi kernels' hooked instantiations spill on sm_90.) */
SHARDTAB_DEVFN int shardtab_wait_index(const shardtab_signals_t *s, int index, int cmp,
                                       uint64_t value)
{
    uint64_t *slot = s->mine + index, start = shardtab_clock(), seen;

    for (;;) {
        seen = shardtab_load_relaxed_system(slot);
        if (cmp == SHARDTAB_CMP_GE ? seen >= value : seen == value) {
            shardtab_fence_acquire();
            return SHARDTAB_WAIT_OK;
        }
        if (shardtab_aborted(s))
            return SHARDTAB_WAIT_ABORTED;
        uint64_t waited = shardtab_clock() - start;
        if (waited > s->timeout_ticks) {
            shardtab_give_up(s, index, cmp, value, seen, waited);
            return SHARDTAB_WAIT_TIMED_OUT;
        }
        shardtab_pause();
    }
}

/* Wait on a user slot of this rank's own pad. */
SHARDTAB_DEVFN int shardtab_signal_wait_until(const shardtab_signals_t *s, int slot, int cmp,
                                              uint64_t value)
{
    return shardtab_wait_index(s, shardtab_slot_index(s, slot), cmp, value);
}

/* ---- the block: every thread calls these --------------------------------------- *
 * A GPU thread block, or on the host backend the calling thread alone. */

/* After the block's stores for node rank `peer`: pad[slot] of `peer` = value
 * once every thread's stores are visible to that peer (release, system scope,
 * for the whole block). */
SHARDTAB_DEVFN void shardtab_signal_set_block(const shardtab_signals_t *s, int peer, int slot,
                                              uint64_t value)
{
    shardtab_fence_before_block_release();
    shardtab_block_sync();
    if (shardtab_block_leader())
        shardtab_signal_set(s, peer, slot, value);
}

/* ---- barrier ------------------------------------------------------------------ *
 * One thread of each rank of the node calls it. Each arrival is a growing count
 * (this rank's barrier number) stored into a slot of every peer that only this
 * rank writes: no reset, no race with a late reader. Everything each rank wrote
 * before it (release) is visible to every rank after it (acquire). One barrier
 * at a time per rank: a second one, entered while the first still runs (two
 * streams, two blocks), would share its number; it is refused instead. */
SHARDTAB_DEVFN int shardtab_barrier(const shardtab_signals_t *s)
{
    int status = SHARDTAB_WAIT_OK;

    if (!shardtab_cas_relaxed_system(s->mine + SHARDTAB_PAD_BUSY, 0, 1)) {
        shardtab_give_up_as(s, SHARDTAB_WAIT_CONCURRENT, SHARDTAB_PAD_BUSY, SHARDTAB_CMP_EQ, 0, 1, 0);
        return SHARDTAB_WAIT_CONCURRENT;
    }
    shardtab_fence_acquire(); /* the last barrier's number, released with its end */
    uint64_t epoch = s->mine[SHARDTAB_PAD_EPOCH] + 1;
    s->mine[SHARDTAB_PAD_EPOCH] = epoch;
    for (int q = 0; q < s->node_size; q++)
        if (q != s->node_rank)
            shardtab_store_release_system(s->pads[q] + SHARDTAB_PAD_HEADER + s->node_rank, epoch);
    for (int q = 0; q < s->node_size && status == SHARDTAB_WAIT_OK; q++)
        if (q != s->node_rank)
            status = shardtab_wait_index(s, SHARDTAB_PAD_HEADER + q, SHARDTAB_CMP_GE, epoch);
    shardtab_store_release_system(s->mine + SHARDTAB_PAD_BUSY, 0);
    return status;
}

/* The whole block calls it: every thread's stores are released (as
 * shardtab_signal_set_block), one thread joins the barrier for the block, and
 * every thread gets its status and may then read what the peers released. */
SHARDTAB_DEVFN int shardtab_barrier_block(const shardtab_signals_t *s)
{
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
    __shared__ int status;
#else
    int status = SHARDTAB_WAIT_OK;
#endif

    shardtab_fence_before_block_release();
    shardtab_block_sync();
    if (shardtab_block_leader())
        status = shardtab_barrier(s);
    shardtab_block_sync();
    shardtab_fence_acquire();
    return status;
}

/* The whole block calls it: one thread waits on this rank's pad[slot] for the
 * block; every thread gets the status, and once it is SHARDTAB_WAIT_OK may read
 * what the slot's writer released. */
SHARDTAB_DEVFN int shardtab_signal_wait_block(const shardtab_signals_t *s, int slot, int cmp,
                                              uint64_t value)
{
#if defined(SHARDTAB_DEVICE_CUDA) || defined(SHARDTAB_DEVICE_HIP)
    __shared__ int status;
#else
    int status = SHARDTAB_WAIT_OK;
#endif

    shardtab_block_sync(); /* status is free: every thread has read the last one */
    if (shardtab_block_leader())
        status = shardtab_signal_wait_until(s, slot, cmp, value);
    shardtab_block_sync();
    shardtab_fence_acquire();
    return status;
}

#endif /* SHARDTAB_DEVICE_H */
