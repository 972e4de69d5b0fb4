/* jacobi_hooks.h - the hooks each backend implements for the jacobi
 * program's plans, for kernels/jacobi alone: the plan they fill (one struct
 * for every backend), what every plan holds, and each launch mode's size,
 * run and release; for HIP and CUDA in jacobi_plan.hip, jacobi_onchip.hip and
 * jacobi_temporal.hip, for CPUs in their _host.c twins. The neutral plan code
 * (jacobi_plan.c) calls them through the modes' table; they cut the rows with
 * jacobi_cut.h. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_HOOKS_H
#define JACOBI_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "jacobi_launch.h"
#include "jacobi_sweep.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JACOBI_CHUNK_STEPS 32 /* steps per graph, and per paced chunk of launches */

struct jacobi_plan {
    jacobi_step_t step;     /* the plan's copy, its done flag set (GPUs) */
    jacobi_tuning_t tuning; /* the plan's copy */
    jacobi_launch_t launch;
    void *stream;        /* GPUs: the stream it enqueues on */
    int blocks;          /* persistent and on chip: the grid; else one block per tile */
    int threads;         /* on chip: threads a block (a row's columns, four a thread) */
    int onchip_rows;     /* on chip: the kernel's most rows a tile */
    int onchip_tmax;     /* on chip: the kernel's most threads a block */
    void *graph;         /* graph, GPUs: the instantiated graph, or NULL */
    void *chunk_done[2]; /* pacing, GPUs: the event of each chunk in flight */
    uint64_t *done_host; /* set when the solve stops: GPUs, mapped host memory the device sets */
};

/* ---- every backend's hooks: the plan's (jacobi_plan.hip, jacobi_plan_host.c) ---- */

/* What every plan holds, made before its mode is sized and freed after it is
 * released: 0 or a runtime code. */
int jacobi_backend_open(jacobi_plan_t *plan);
void jacobi_backend_close(jacobi_plan_t *plan);
/* The pacing of chunked runs (jacobi_plan.c): waits for the chunk marked in
 * `slot` (0 or 1) to finish, *stopped: nothing more need be enqueued (the
 * device has stopped the solve); and the mark after a chunk enqueued. */
int jacobi_backend_wait(jacobi_plan_t *plan, int slot, int *stopped);
int jacobi_backend_mark(jacobi_plan_t *plan, int slot);
/* The runtime code of a failed host allocation, and any code's text. */
int jacobi_backend_no_memory(void);
const char *jacobi_backend_error_string(int code);

/* Persistent, graph and stream launches (the table's hooks). steps_enqueue:
 * `steps` steps of a stream or graph run, one chunk of the pacing. */
int jacobi_persistent_size(jacobi_plan_t *plan, char *why, size_t why_bytes);
int jacobi_persistent_run(jacobi_plan_t *plan, int count);
int jacobi_graph_size(jacobi_plan_t *plan, char *why, size_t why_bytes);
void jacobi_graph_release(jacobi_plan_t *plan);
int jacobi_steps_enqueue(jacobi_plan_t *plan, int steps);

/* ---- every backend's hooks: on chip (jacobi_onchip.hip, jacobi_onchip_host.c) ---- */
int jacobi_onchip_size(jacobi_plan_t *plan, char *why, size_t why_bytes);
int jacobi_onchip_run(jacobi_plan_t *plan, int count);
void jacobi_onchip_release(jacobi_plan_t *plan);

/* ---- every backend's hooks: temporal (jacobi_temporal.hip, jacobi_temporal_host.c) ---- */
/* size and release as the table's; a run is start (its end at count
 * iterations from here), then chunks of enqueue (`passes` passes), paced. */
int jacobi_temporal_size(jacobi_plan_t *plan, char *why, size_t why_bytes);
int jacobi_temporal_start(jacobi_plan_t *plan, int count);
int jacobi_temporal_enqueue(jacobi_plan_t *plan, int passes);
void jacobi_temporal_release(jacobi_plan_t *plan);

#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__)
/* ---- GPUs: between the kernels and the hooks that launch them ----------------------- */

/* The block size, and the kernel that runs a step. rows_in_flight is the
 * tuning's (0: the kernel's own); a trace or a planted bug picks the kernels
 * built with their hooks (jacobi_sweep.hip). */
#  define JACOBI_BLOCK 256 /* threads per block, all along x */
typedef void (*jacobi_step_kernel_t)(jacobi_step_t);
typedef void (*jacobi_persistent_kernel_t)(jacobi_step_t, uint64_t);
extern "C" jacobi_step_kernel_t jacobi_step_kernel_for(const jacobi_step_t *step,
                                                       int rows_in_flight);
extern "C" jacobi_persistent_kernel_t jacobi_persistent_kernel_for(const jacobi_step_t *step,
                                                                   int rows_in_flight);
/* The resident blocks a multiprocessor the step kernel is built for, by columns a thread. */
extern "C" int jacobi_step_kernel_blocks_per_sm(int columns_per_thread);
/* The on-chip kernel for tiles of up to `rows` rows (2, 4, 8 or 16) and
 * blocks of up to max_threads threads (256, 512 or 1024), or NULL where none
 * is built (16 rows at 1024 threads: no registers left) (jacobi_onchip.hip). */
extern "C" jacobi_persistent_kernel_t jacobi_onchip_kernel_for(const jacobi_step_t *step, int rows,
                                                               int max_threads);
/* One cooperative launch of kernel over plan->blocks blocks of `threads`
 * threads, for up to count steps (persistent and on chip; jacobi_plan.hip). */
extern "C" int jacobi_cooperative_run(jacobi_plan_t *plan, jacobi_persistent_kernel_t kernel,
                                      int threads, int count);
/* The multiprocessors of the current device (jacobi_plan.hip). */
extern "C" int jacobi_multiprocessors(int *count);
#else
/* ---- the host backend: between its loops and the hooks that call them -------------- */

/* One step, as one launch of the GPU's step kernel; the whole solve, as its
 * persistent kernel (jacobi_sweep_host.c). */
void jacobi_sweep_step_host(const jacobi_step_t *s);
void jacobi_sweep_persistent_host(const jacobi_step_t *s, uint64_t count);
/* A sizing hook's answer once it has allocated what its mode needs: 0, or
 * where allocated is 0, JACOBI_PLAN_NOT_RESIDENT with why "no memory for
 * <what>" (the mode's release then frees what was allocated;
 * jacobi_plan_host.c). */
int jacobi_host_alloc_check(int allocated, const char *what, char *why, size_t why_bytes);
#endif

#endif /* JACOBI_HOOKS_H */
