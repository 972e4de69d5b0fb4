/* jacobi_plan.hip - the GPU hooks of the jacobi program's plans (jacobi_hooks.h),
 * host code only, built like the kernels as HIP for AMD and as CUDA for
 * NVIDIA: the tiles cut for the device, what every plan holds (its pacing
 * events, the device's "stopped" flag), the persistent grid sized to be
 * co-resident and its cooperative launch, a graph of launches captured, a
 * chunk of step launches, and the stream and clock helpers. The plan's
 * neutral code is jacobi_plan.c; the tuning values come in checked
 * (jacobi_tuning_t), and nothing here reads the environment. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>

#include "gpu_runtime.h"
#include "jacobi_cut.h"
#include "jacobi_hooks.h"

static const jacobi_tuning_t default_tuning = JACOBI_TUNING_DEFAULTS;

extern "C" int jacobi_multiprocessors(int *count)
{
    static thread_local int cached_device = -1, cached = 0;
    int device;
    hipError_t err = hipGetDevice(&device);

    if (err == hipSuccess && device != cached_device) {
        err = hipDeviceGetAttribute(&cached, hipDeviceAttributeMultiprocessorCount, device);
        if (err == hipSuccess)
            cached_device = device;
    }
    *count = cached;
    return (int)err;
}

extern "C" int jacobi_step_shape(jacobi_step_t *s, const jacobi_tuning_t *tuning,
                                 uint64_t *partials)
{
    const jacobi_tuning_t *t = tuning ? tuning : &default_tuning;
    int sms = 0;
    int err = jacobi_multiprocessors(&sms);

    if (err != 0)
        return err;
    /* four columns a thread, boundaries included, when every row starts 16-byte aligned */
    s->columns_per_thread = s->nx % 4 == 0 && t->vec4 ? 4 : 1;
    if (s->columns_per_thread == 4)
        s->blocks_x = (s->nx / 4 + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    else
        s->blocks_x = (s->nx - 2 + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    /* enough tiles to fill the GPU once (the resident blocks per multiprocessor
     * the step kernel is built for, or the tuning's); a persistent plan cuts its own */
    jacobi_step_cut(s,
                    sms * (t->blocks_per_sm > 0
                               ? t->blocks_per_sm
                               : jacobi_step_kernel_blocks_per_sm(s->columns_per_thread)),
                    t->min_strip_rows);
    /* room for the partial sums of any cut, by parity */
    uint64_t most = (uint64_t)sms * JACOBI_MAX_BLOCKS_PER_SM + (uint64_t)s->blocks_x;
    uint64_t tiles = (uint64_t)s->blocks_x * (uint64_t)s->strips;
    *partials = 2 * (tiles > most ? tiles : most);
    return 0;
}

/* ---- what every plan holds: its pacing events and the "stopped" flag -------------- */

extern "C" int jacobi_backend_open(jacobi_plan_t *plan)
{
    void *done_device = NULL;
    /* the device tells the host "stopped" through mapped host memory, read
     * only after a later event: coherent at kernel boundaries is enough */
    hipError_t err =
        hipHostMalloc((void **)&plan->done_host, sizeof *plan->done_host, hipHostMallocMapped);

    if (err == hipSuccess)
        err = hipHostGetDevicePointer(&done_device, plan->done_host, 0);
    for (int i = 0; i < 2 && err == hipSuccess; i++) {
        hipEvent_t event;
        err = hipEventCreateWithFlags(&event, hipEventDisableTiming);
        if (err == hipSuccess)
            plan->chunk_done[i] = (void *)event;
    }
    if (err == hipSuccess) {
        *plan->done_host = 0;
        plan->step.done = (volatile uint64_t *)done_device;
    }
    return (int)err;
}

extern "C" void jacobi_backend_close(jacobi_plan_t *plan)
{
    for (int i = 0; i < 2; i++)
        if (plan->chunk_done[i])
            (void)hipEventDestroy((hipEvent_t)plan->chunk_done[i]);
    if (plan->done_host)
        (void)hipHostFree(plan->done_host);
}

extern "C" int jacobi_backend_wait(jacobi_plan_t *plan, int slot, int *stopped)
{
    hipError_t err = hipEventSynchronize((hipEvent_t)plan->chunk_done[slot]);

    if (err == hipSuccess)
        *stopped = *(volatile uint64_t *)plan->done_host != 0;
    return (int)err;
}

extern "C" int jacobi_backend_mark(jacobi_plan_t *plan, int slot)
{
    return (int)hipEventRecord((hipEvent_t)plan->chunk_done[slot], (hipStream_t)plan->stream);
}

extern "C" int jacobi_backend_no_memory(void)
{
    return (int)hipErrorOutOfMemory;
}

extern "C" const char *jacobi_backend_error_string(int code)
{
    return hipGetErrorString((hipError_t)code);
}

/* ---- persistent launches ------------------------------------------------------------- */

/* A persistent grid: as many tiles as can be co-resident, every block looping
 * over its share, and block 0 kept for the norm (JACOBI_NORM_BLOCK=0 gives it
 * tiles too, for the measurements). Fails with JACOBI_PLAN_NOT_RESIDENT when
 * not even one block per multiprocessor fits, more ranks share the device
 * than it has multiprocessors (jacobi_share_of_device), or the device has no
 * cooperative launch. */
extern "C" int jacobi_persistent_size(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    int device, cooperative = 0, per_sm = 0, sms = 0;
    hipError_t err = hipGetDevice(&device);

    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, device);
    if (err == hipSuccess)
        err = (hipError_t)jacobi_multiprocessors(&sms);
    if (err == hipSuccess)
        err = hipOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm,
            (const void *)jacobi_persistent_kernel_for(&plan->step, plan->tuning.rows_in_flight),
            JACOBI_BLOCK, 0);
    if (err != hipSuccess)
        return (int)err;
    if (!cooperative) {
        snprintf(why, why_bytes, "device %d has no cooperative launch", device);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    if (per_sm < 1) {
        snprintf(why, why_bytes,
                 "no block of the persistent kernel fits a multiprocessor of device %d", device);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    /* the tiles cut for what is resident (a row wider than that: a tile loop),
     * of this rank's share of the device where ranks share it */
    const int own = jacobi_share_of_device(sms, plan->tuning.device_share);
    if (own < 1) {
        snprintf(why, why_bytes,
                 "%d ranks share device %d of %d multiprocessors: their persistent grids cannot "
                 "all be resident at once",
                 plan->tuning.device_share, device, sms);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    int resident = per_sm * own;
    plan->step.norm_block = resident > 1 && plan->tuning.norm_block;
    resident -= plan->step.norm_block;
    jacobi_step_cut(&plan->step, resident, plan->tuning.min_strip_rows);
    int tiles = plan->step.blocks_x * plan->step.strips;
    plan->blocks = (tiles < resident ? tiles : resident) + plan->step.norm_block;
    return 0;
}

extern "C" int jacobi_cooperative_run(jacobi_plan_t *plan, jacobi_persistent_kernel_t kernel,
                                      int threads, int count)
{
    uint64_t steps = (uint64_t)count;
    void *args[] = {(void *)&plan->step, (void *)&steps};
    hipError_t err =
        hipLaunchCooperativeKernel((const void *)kernel, dim3((unsigned)plan->blocks),
                                   dim3((unsigned)threads), args, 0, (hipStream_t)plan->stream);

    if (err == hipSuccess)
        err = hipGetLastError();
    return (int)err;
}

extern "C" int jacobi_persistent_run(jacobi_plan_t *plan, int count)
{
    return jacobi_cooperative_run(
        plan, jacobi_persistent_kernel_for(&plan->step, plan->tuning.rows_in_flight), JACOBI_BLOCK,
        count);
}

/* ---- graph and stream launches ------------------------------------------------------- */

static hipError_t launch_steps(const jacobi_plan_t *plan, int count)
{
    jacobi_step_kernel_t kernel = jacobi_step_kernel_for(&plan->step, plan->tuning.rows_in_flight);
    unsigned tiles = (unsigned)(plan->step.blocks_x * plan->step.strips);

    for (int i = 0; i < count; i++) {
        kernel<<<tiles, JACOBI_BLOCK, 0, (hipStream_t)plan->stream>>>(plan->step);
        hipError_t err = hipGetLastError();
        if (err != hipSuccess)
            return err;
    }
    return hipSuccess;
}

/* One graph of JACOBI_CHUNK_STEPS launches, captured once: every launch reads
 * its iteration from the device, so the same graph serves every chunk. */
extern "C" int jacobi_graph_size(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    hipStream_t stream = (hipStream_t)plan->stream;
    hipGraph_t graph;
    hipGraphExec_t exec;
    hipError_t err = hipStreamBeginCapture(stream, hipStreamCaptureModeThreadLocal), end;

    (void)why, (void)why_bytes; /* a capture is never refused, only failed */
    if (err != hipSuccess)
        return (int)err;
    err = launch_steps(plan, JACOBI_CHUNK_STEPS);
    end = hipStreamEndCapture(stream, &graph);
    if (err == hipSuccess)
        err = end;
    if (err != hipSuccess)
        return (int)err;
    err = hipGraphInstantiateWithFlags(&exec, graph, 0);
    (void)hipGraphDestroy(graph);
    if (err == hipSuccess)
        plan->graph = (void *)exec;
    return (int)err;
}

extern "C" void jacobi_graph_release(jacobi_plan_t *plan)
{
    if (plan->graph)
        (void)hipGraphExecDestroy((hipGraphExec_t)plan->graph);
    plan->graph = NULL;
}

/* A chunk of steps: the graph where there is one and the chunk is whole, else
 * a launch per step. */
extern "C" int jacobi_steps_enqueue(jacobi_plan_t *plan, int steps)
{
    if (plan->graph && steps == JACOBI_CHUNK_STEPS)
        return (int)hipGraphLaunch((hipGraphExec_t)plan->graph, (hipStream_t)plan->stream);
    return (int)launch_steps(plan, steps);
}

/* ---- the program's stream and clock helpers ----------------------------------------- */

extern "C" int jacobi_stream_create(void **stream)
{
    hipStream_t s;
    hipError_t err = hipStreamCreateWithFlags(&s, hipStreamNonBlocking);

    if (err == hipSuccess)
        *stream = (void *)s;
    return (int)err;
}

extern "C" void jacobi_stream_destroy(void *stream)
{
    if (stream)
        (void)hipStreamDestroy((hipStream_t)stream);
}

extern "C" double jacobi_clock_hz(void)
{
    int device = 0;
    hipDeviceProp_t props;

    if (hipGetDevice(&device) != hipSuccess ||
        hipGetDeviceProperties(&props, device) != hipSuccess) {
        (void)hipGetLastError();
        return 1e9;
    }
    return gpu_wall_clock_hz(device, &props);
}
