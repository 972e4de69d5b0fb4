/* jacobi_plan.hip - how the jacobi program's kernels (jacobi_sweep.hip) are
 * launched, host code only, built like them as HIP for AMD and as CUDA for
 * NVIDIA: the tiles cut for the device, a plan per launch mode (a persistent
 * grid sized to be co-resident, an on-chip grid of tiles that fit the
 * multiprocessors (jacobi_onchip.hip), a graph of launches captured, the pacing of
 * graph and stream launches), and the stream and clock helpers. The tuning
 * values come in checked (jacobi_sweep.h, jacobi_tuning_t); nothing here reads
 * the environment.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_runtime.h"
#include "jacobi_onchip.h"
#include "jacobi_sweep.h"

#define JACOBI_CHUNK_STEPS 32 /* steps per graph, and per paced chunk of launches */

static const jacobi_tuning_t default_tuning = JACOBI_TUNING_DEFAULTS;

static hipError_t multiprocessors(int *count)
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
    return err;
}

/* Cuts the rows into tiles for a grid of about `blocks` blocks: blocks_x
 * along x, strips of at least min_rows rows (JACOBI_MIN_STRIP_ROWS: shorter
 * strips cost more in partial sums than they gain). */
static void cut_tiles(jacobi_step_t *s, int blocks, int min_rows)
{
    int strips = blocks / s->blocks_x, per_strip;

    if (strips > (s->rows + min_rows - 1) / min_rows)
        strips = (s->rows + min_rows - 1) / min_rows;
    if (strips < 1)
        strips = 1;
    per_strip = (s->rows + strips - 1) / strips;
    s->rows_per_strip = per_strip;
    s->strips = (s->rows + per_strip - 1) / per_strip;
}

extern "C" int jacobi_step_shape(jacobi_step_t *s, const jacobi_tuning_t *tuning,
                                 uint64_t *partials)
{
    const jacobi_tuning_t *t = tuning ? tuning : &default_tuning;
    int sms = 0;
    hipError_t err = multiprocessors(&sms);

    if (err != hipSuccess)
        return (int)err;
    /* four columns a thread, boundaries included, when every row starts 16-byte aligned */
    s->columns_per_thread = s->nx % 4 == 0 && t->vec4 ? 4 : 1;
    if (s->columns_per_thread == 4)
        s->blocks_x = (s->nx / 4 + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    else
        s->blocks_x = (s->nx - 2 + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    /* enough tiles to fill the GPU once (the resident blocks per multiprocessor
     * the step kernel is built for, or the tuning's); a persistent plan cuts its own */
    cut_tiles(s,
              sms * (t->blocks_per_sm > 0 ? t->blocks_per_sm
                                          : jacobi_step_kernel_blocks_per_sm(s->columns_per_thread)),
              t->min_strip_rows);
    /* room for the partial sums of any cut, by parity */
    uint64_t most = (uint64_t)sms * JACOBI_MAX_BLOCKS_PER_SM + (uint64_t)s->blocks_x;
    uint64_t tiles = (uint64_t)s->blocks_x * (uint64_t)s->strips;
    *partials = 2 * (tiles > most ? tiles : most);
    return 0;
}

/* ---- plans: how the steps are launched --------------------------------------------- */

struct jacobi_plan {
    jacobi_step_t step;       /* the plan's copy, its done flag set */
    jacobi_tuning_t tuning;   /* the plan's copy */
    jacobi_launch_t launch;
    hipStream_t stream;
    int blocks;               /* persistent and on chip: the grid; else one block per tile */
    int threads;              /* on chip: threads a block (a row's columns, four a thread) */
    int onchip_rows;          /* on chip: the kernel's most rows a tile */
    int onchip_tmax;          /* on chip: the kernel's most threads a block */
    hipGraphExec_t exec;      /* graph */
    bool has_exec;
    hipEvent_t chunk_done[2]; /* pacing */
    uint64_t *done_host;      /* mapped host memory the device sets when it stops */
};

static hipError_t launch_steps(const jacobi_plan_t *plan, int count)
{
    jacobi_step_kernel_t kernel = jacobi_step_kernel_for(&plan->step, plan->tuning.rows_in_flight);
    unsigned tiles = (unsigned)(plan->step.blocks_x * plan->step.strips);

    for (int i = 0; i < count; i++) {
        kernel<<<tiles, JACOBI_BLOCK, 0, plan->stream>>>(plan->step);
        hipError_t err = hipGetLastError();
        if (err != hipSuccess)
            return err;
    }
    return hipSuccess;
}

/* A persistent grid: as many tiles as can be co-resident, every block looping
 * over its share, and block 0 kept for the norm (JACOBI_NORM_BLOCK=0 gives it
 * tiles too, for the measurements). Fails with JACOBI_PLAN_NOT_RESIDENT when
 * not even one block per multiprocessor fits, more ranks share the device
 * than it has multiprocessors (jacobi_share_of_device), or the device has no
 * cooperative launch. */
static int size_persistent(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    int device, cooperative = 0, per_sm = 0, sms = 0;
    hipError_t err = hipGetDevice(&device);

    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, device);
    if (err == hipSuccess)
        err = multiprocessors(&sms);
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
        snprintf(why, why_bytes, "no block of the persistent kernel fits a multiprocessor of device %d",
                 device);
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
    cut_tiles(&plan->step, resident, plan->tuning.min_strip_rows);
    int tiles = plan->step.blocks_x * plan->step.strips;
    plan->blocks = (tiles < resident ? tiles : resident) + plan->step.norm_block;
    return 0;
}

/* The on-chip grid: a block a tile of whole rows, four columns a thread, and
 * the norm block, every one resident at once (a cooperative launch). Rows a
 * tile: the tuning's, or the fewest of 2, 4, 8 and 16 for which every tile
 * and the norm block have a multiprocessor of their own (of this rank's
 * share of the device): the most parallel cut, each tile's loads and stores
 * its own multiprocessor's. Fails with JACOBI_PLAN_NOT_RESIDENT, and why,
 * where the rows do not fit. */
static int size_onchip(jacobi_plan_t *plan, char *why, size_t why_bytes)
{
    static const int choices[] = {2, 4, 8, 16};
    jacobi_step_t *s = &plan->step;
    int device, cooperative = 0, sms = 0, warp = 0;
    hipError_t err = hipGetDevice(&device);

    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, device);
    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device);
    if (err == hipSuccess)
        err = multiprocessors(&sms);
    if (err != hipSuccess)
        return (int)err;
    if (jacobi_onchip_unfit(s, why, why_bytes))
        return JACOBI_PLAN_NOT_RESIDENT;
    if (!cooperative) {
        snprintf(why, why_bytes, "device %d has no cooperative launch", device);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    if (s->nx % 4 != 0 || s->nx / 4 > 1024) {
        snprintf(why, why_bytes,
                 "a tile holds whole rows, four columns a thread of one block: -nx must be a "
                 "multiple of 4 and at most 4096 (it is %d)",
                 s->nx);
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    const int threads = (s->nx / 4 + warp - 1) / warp * warp;
    const int tmax = threads <= 256 ? 256 : threads <= 512 ? 512 : 1024;
    const int own = jacobi_share_of_device(sms, plan->tuning.device_share);
    int rows = 0, tiles = 0;
    for (size_t c = 0; c < sizeof choices / sizeof choices[0] && rows == 0; c++) {
        const int r = choices[c], n = (s->rows + r - 1) / r;
        jacobi_persistent_kernel_t kernel = jacobi_onchip_kernel_for(s, r, tmax);
        int per_sm = 0;
        if (kernel == NULL || (plan->tuning.onchip_rows && plan->tuning.onchip_rows != r))
            continue;
        err = hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)kernel, threads, 0);
        if (err != hipSuccess)
            return (int)err;
        /* asked for: as many tiles as are resident; chosen: one a multiprocessor */
        if (per_sm > 0 && n + 1 <= (plan->tuning.onchip_rows ? per_sm * own : own)) {
            rows = r;
            tiles = n;
        }
    }
    if (rows == 0) {
        snprintf(why, why_bytes,
                 "%d rows of %d columns do not fit on chip: %s tiles of %d rows, a block each, "
                 "and the norm block fit %d multiprocessors%s",
                 s->rows, s->nx, plan->tuning.onchip_rows ? "the" : "up to",
                 plan->tuning.onchip_rows ? plan->tuning.onchip_rows : 16, own,
                 own < sms ? " (this rank's share of the device)" : "");
        return JACOBI_PLAN_NOT_RESIDENT;
    }
    s->tiles = tiles;
    s->tile_rows = rows;
    s->tile_warps = threads / warp;
    s->blocks_x = 1; /* a rank's edge is one tile's: it signals alone */
    s->strips = tiles;
    s->rows_per_strip = rows;
    /* twice the pads' limit: a wait on a neighbour rank, upstream, is the one to report */
    s->wait_ticks = 2 * (s->sig.mine ? s->sig.timeout_ticks : (uint64_t)(10.0 * jacobi_clock_hz()));
    const size_t edges = (size_t)4 * (size_t)tiles * (size_t)s->nx * sizeof(uint64_t);
    const size_t partials = (size_t)4 * (size_t)tiles * (size_t)s->tile_warps * sizeof(uint64_t);
    err = hipMalloc((void **)&s->edges, edges);
    if (err == hipSuccess)
        err = hipMalloc((void **)&s->tile_partials, partials);
    if (err == hipSuccess)
        err = hipMemset(s->edges, 0, edges);
    if (err == hipSuccess)
        err = hipMemset(s->tile_partials, 0, partials);
    if (err == hipSuccess)
        err = hipDeviceSynchronize();
    if (err != hipSuccess)
        return (int)err;
    plan->blocks = tiles + 1;
    plan->threads = threads;
    plan->onchip_rows = rows;
    plan->onchip_tmax = tmax;
    return 0;
}

/* One graph of JACOBI_CHUNK_STEPS launches, captured once: every launch reads
 * its iteration from the device, so the same graph serves every chunk. */
static hipError_t capture_graph(jacobi_plan_t *plan)
{
    hipGraph_t graph;
    hipError_t err = hipStreamBeginCapture(plan->stream, hipStreamCaptureModeThreadLocal), end;

    if (err != hipSuccess)
        return err;
    err = launch_steps(plan, JACOBI_CHUNK_STEPS);
    end = hipStreamEndCapture(plan->stream, &graph);
    if (err == hipSuccess)
        err = end;
    if (err != hipSuccess)
        return err;
    err = hipGraphInstantiateWithFlags(&plan->exec, graph, 0);
    (void)hipGraphDestroy(graph);
    if (err == hipSuccess)
        plan->has_exec = true;
    return err;
}

extern "C" int jacobi_plan_tiles(const jacobi_plan_t *plan)
{
    return plan && plan->launch == JACOBI_LAUNCH_ONCHIP ? plan->step.tiles : 0;
}

extern "C" int jacobi_plan_tile_rows(const jacobi_plan_t *plan)
{
    return plan && plan->launch == JACOBI_LAUNCH_ONCHIP ? plan->step.tile_rows : 0;
}

extern "C" int jacobi_plan_temporal_cut(const jacobi_plan_t *plan, int *cols, int *rows)
{
    if (!plan || plan->launch != JACOBI_LAUNCH_TEMPORAL)
        return 0;
    *cols = plan->step.temporal_cols;
    *rows = plan->step.temporal_rows;
    return plan->step.temporal_tiles_x * plan->step.temporal_tiles_y;
}

extern "C" void jacobi_plan_destroy(jacobi_plan_t *plan)
{
    if (plan == NULL)
        return;
    if (plan->has_exec)
        (void)hipGraphExecDestroy(plan->exec);
    for (int i = 0; i < 2; i++)
        if (plan->chunk_done[i])
            (void)hipEventDestroy(plan->chunk_done[i]);
    if (plan->done_host)
        (void)hipHostFree(plan->done_host);
    if (plan->step.edges)
        (void)hipFree(plan->step.edges);
    if (plan->step.tile_partials)
        (void)hipFree(plan->step.tile_partials);
    jacobi_temporal_release(&plan->step);
    free(plan);
}

extern "C" int jacobi_plan_create(const jacobi_step_t *step, const jacobi_tuning_t *tuning,
                                  jacobi_launch_t launch, void *stream, jacobi_plan_t **plan_out,
                                  char *why, size_t why_bytes)
{
    jacobi_plan_t *plan = (jacobi_plan_t *)calloc(1, sizeof *plan);
    hipError_t err = hipSuccess;
    int rc = 0;
    void *done_device = NULL;

    if (why_bytes)
        why[0] = '\0';
    if (plan == NULL)
        return (int)hipErrorOutOfMemory;
    plan->step = *step;
    plan->tuning = tuning ? *tuning : default_tuning;
    plan->launch = launch;
    plan->stream = (hipStream_t)stream;
    plan->blocks = step->blocks_x * step->strips;
    /* the device tells the host "stopped" through mapped host memory, read
     * only after a later event: coherent at kernel boundaries is enough */
    err = hipHostMalloc((void **)&plan->done_host, sizeof *plan->done_host, hipHostMallocMapped);
    if (err == hipSuccess)
        err = hipHostGetDevicePointer(&done_device, plan->done_host, 0);
    for (int i = 0; i < 2 && err == hipSuccess; i++)
        err = hipEventCreateWithFlags(&plan->chunk_done[i], hipEventDisableTiming);
    if (err == hipSuccess) {
        *plan->done_host = 0;
        plan->step.done = (volatile uint64_t *)done_device;
        if (launch == JACOBI_LAUNCH_PERSISTENT)
            rc = size_persistent(plan, why, why_bytes);
        else if (launch == JACOBI_LAUNCH_ONCHIP)
            rc = size_onchip(plan, why, why_bytes);
        else if (launch == JACOBI_LAUNCH_TEMPORAL)
            rc = jacobi_temporal_size(&plan->step, plan->tuning.temporal_depth, plan->tuning.temporal_rows, why,
                                      why_bytes);
        else if (launch == JACOBI_LAUNCH_GRAPH)
            err = capture_graph(plan);
    }
    if (err != hipSuccess)
        rc = (int)err;
    if (rc != 0) {
        jacobi_plan_destroy(plan);
        return rc;
    }
    *plan_out = plan;
    return 0;
}

extern "C" int jacobi_plan_run(jacobi_plan_t *plan, int count)
{
    hipError_t err = hipSuccess;

    if (count <= 0)
        return 0;
    *plan->done_host = 0;
    if (plan->launch == JACOBI_LAUNCH_TEMPORAL) {
        /* chunks of passes, paced as the steps below: none is enqueued once the
         * device has stopped the solve (a pass with nothing left would still
         * start its grid) */
        int passes = jacobi_temporal_passes(&plan->step, count);
        for (int chunk = 0; passes > 0 && err == hipSuccess; chunk++) {
            int n = passes < JACOBI_CHUNK_STEPS ? passes : JACOBI_CHUNK_STEPS;
            if (chunk >= 2) {
                err = hipEventSynchronize(plan->chunk_done[chunk & 1]);
                if (err != hipSuccess || *(volatile uint64_t *)plan->done_host)
                    break;
            }
            err = (hipError_t)jacobi_temporal_enqueue(&plan->step, chunk == 0, count, n, plan->stream);
            if (err == hipSuccess)
                err = hipEventRecord(plan->chunk_done[chunk & 1], plan->stream);
            passes -= n;
        }
        return (int)err;
    }
    if (plan->launch == JACOBI_LAUNCH_ONCHIP) {
        uint64_t steps = (uint64_t)count;
        void *args[] = {(void *)&plan->step, (void *)&steps};
        err = hipLaunchCooperativeKernel(
            (const void *)jacobi_onchip_kernel_for(&plan->step, plan->onchip_rows, plan->onchip_tmax),
            dim3((unsigned)plan->blocks), dim3((unsigned)plan->threads), args, 0, plan->stream);
        if (err == hipSuccess)
            err = hipGetLastError();
        return (int)err;
    }
    if (plan->launch == JACOBI_LAUNCH_PERSISTENT) {
        uint64_t steps = (uint64_t)count;
        void *args[] = {(void *)&plan->step, (void *)&steps};
        err = hipLaunchCooperativeKernel(
            (const void *)jacobi_persistent_kernel_for(&plan->step, plan->tuning.rows_in_flight),
            dim3((unsigned)plan->blocks), dim3(JACOBI_BLOCK), args, 0, plan->stream);
        if (err == hipSuccess)
            err = hipGetLastError();
        return (int)err;
    }
    /* chunks of steps, at most two queued: before a third, wait for the first
     * and stop if the device has decided the solve is over */
    for (int chunk = 0; count > 0 && err == hipSuccess; chunk++) {
        int steps = count < JACOBI_CHUNK_STEPS ? count : JACOBI_CHUNK_STEPS;
        if (chunk >= 2) {
            err = hipEventSynchronize(plan->chunk_done[chunk & 1]);
            if (err != hipSuccess || *(volatile uint64_t *)plan->done_host)
                break;
        }
        if (plan->has_exec && steps == JACOBI_CHUNK_STEPS)
            err = hipGraphLaunch(plan->exec, plan->stream);
        else
            err = launch_steps(plan, steps);
        if (err == hipSuccess)
            err = hipEventRecord(plan->chunk_done[chunk & 1], plan->stream);
        count -= steps;
    }
    return (int)err;
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

    if (hipGetDevice(&device) != hipSuccess || hipGetDeviceProperties(&props, device) != hipSuccess) {
        (void)hipGetLastError();
        return 1e9;
    }
    return gpu_wall_clock_hz(device, &props);
}

extern "C" const char *jacobi_error_string(int code)
{
    if (code == JACOBI_PLAN_NOT_RESIDENT)
        return "the persistent or on-chip grid cannot run here";
    return hipGetErrorString((hipError_t)code);
}
