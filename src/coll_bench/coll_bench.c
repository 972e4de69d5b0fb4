/* coll_bench.c - the table's collectives timed: the device-side chain (put with signal, all-reduce) and the stream-ordered all-reduce in nccl-tests' convention, beside MPI_Allreduce and the device copy in the same run.
 *
 * PURPOSE  First the device side, timed inside one kernel: the device-side
 *          all-reduce of one double (shardtab_all_reduce_block), calls back
 *          to back; one thread's dependent loads of device memory at each
 *          order the waits use (a poll's floor); and put with signal
 *          between node ranks 0 and 1 block to
 *          block (a ping-pong, 8 B to 64 KiB: half the round trip), then the
 *          same ping-pong with LL puts (shardtab_put_ll_block and
 *          _wait_ll_block: the flag in every word, no fence), every
 *          result and every byte put checked. Then for each size from --min
 *          to --max bytes (x2 steps), float sum in place:
 *          shardtab_all_reduce with the automatic choice, one-block (to
 *          64 KiB), one-shot and two-shot, then SHARDTAB_SUM_EXACT by the
 *          automatic choice and, up to 64 KiB, by one-shot (redop "exact":
 *          its cost beside the plain sum); MPI_Allreduce on a host buffer of
 *          the same size (this machine's MPI may not be GPU-aware); the copy
 *          engine's device-to-device copy of the same bytes on the same GPU;
 *          and, on GPUs, the all-reduce replayed from a captured graph (to
 *          64 KiB). Each result is verified element by element (#wrong).
 *          On GPUs an empty kernel of one block, eager and in a graph, is
 *          timed first the same way: the launch floor of every stream call.
 * USAGE    mpiexec -n <ranks> ./coll_bench [--min B] [--max B] [--repeats R]
 *                 [--device-iters N] [--allow-shared-gpu] [--help] [--version]
 * NOTES    Device side: a warm-up launch, then one launch of --device-iters
 *          calls (round trips); median, p10 and p90 of the per-call times
 *          that the kernel's clock measured on rank 0 (all-reduce: the
 *          slowest rank's median). Stream side: warm-up calls first; then R repeats, each after an
 *          MPI_Barrier, of `iters` calls back to back, the stream drained at
 *          the end; a repeat's time per call is the max over ranks; the
 *          median of the repeats is printed. algbw = size / time; busbw =
 *          algbw * 2 (n - 1) / n, nccl-tests' all-reduce factor; copy GB/s
 *          counts the bytes copied (read once, written once). Inputs are
 *          (rank + 1) + (i % 13) / 4: sums of them are exact in any order, so
 *          #wrong counts elements that differ from the exact sum (the
 *          rank-order bits are tests/shardtab/comm/stream_check's to prove).
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "coll_bench.h"
#include "job.h"
#include "latency.h"
#include "shardtab.h"

#if defined(SHARDTAB_WITH_GPU)
#  include "gpu_runtime.h"
#endif

int main(int argc, char **argv)
{
    shardtab_init_params_t init = {0};
    cb_options_t o;
    cb_ctx_t c;
    int rank, size, code = 0;
    char err[200];
    shardtab_status_t status;

    memset(&c, 0, sizeof c);
    app_job_start(&argc, &argv, "coll_bench", &rank, &size);
    const app_opt_parse_t parsed = cb_options_parse(argc, argv, &o, err, sizeof err);
    if (parsed == APP_OPT_PARSE_ERROR) {
        app_say_error("coll_bench", rank, err);
        return app_job_end(app_exit_status(1));
    }
    if (parsed != APP_OPT_PARSE_OK) { /* --help or --version */
        if (parsed == APP_OPT_PARSE_HELP && rank == 0)
            fputs(app_opt_usage_text(&cb_option_table), stdout);
        if (parsed == APP_OPT_PARSE_VERSION)
            app_say_version("coll_bench", rank);
        return app_job_end(0);
    }
    init.allow_shared_device = o.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &init);
    c.host = malloc(o.max);
    if (status == SHARDTAB_SUCCESS && c.host == NULL)
        status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of %zu bytes failed", o.max);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(o.max, (void **)&c.shard);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(o.max, (void **)&c.copy_dst);
#if defined(SHARDTAB_WITH_GPU)
    if (status == SHARDTAB_SUCCESS &&
        hipStreamCreateWithFlags((hipStream_t *)&c.stream, hipStreamNonBlocking) != hipSuccess)
        status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "hipStreamCreateWithFlags failed");
#endif
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS) {
        shardtab_create_params_t params = {0};
        params.stream = c.stream;
        params.signal_slots = LAT_SLOTS(size);
        status = shardtab_create_with(MPI_COMM_WORLD, c.shard, o.max, &params, &c.table);
    }
    if (status == SHARDTAB_SUCCESS)
        status = cb_device_side(&c, &o, rank, &code);
    if (status == SHARDTAB_SUCCESS && rank == 0) {
        shardtab_device_info_t info;
        (void)shardtab_device_info(&info);
        const int nodes = shardtab_node_count(c.table);
        printf("# coll_bench: %d rank%s, %d node%s, backend %s, device %s; median of %d repeats, "
               "the slowest rank's time per call\n",
               size, app_s(size), nodes, app_s(nodes), shardtab_backend_name(info.backend),
               info.name, o.repeats);
        printf("# %10s %11s %6s %5s %9s %10s %8s %8s %7s %10s %9s\n", "size", "count", "type",
               "redop", "algo", "time(us)", "algbw", "busbw", "#wrong", "mpi(us)", "copy GB/s");
    }
    if (status == SHARDTAB_SUCCESS)
        status = cb_launch_floor(&c, &o, rank);
    for (size_t bytes = o.min; bytes <= o.max && status == SHARDTAB_SUCCESS; bytes *= 2)
        status = cb_stream_size(&c, &o, bytes, rank, size, &code);
    if (status == SHARDTAB_SUCCESS && rank == 0)
        printf("# coll_bench: %s\n",
               code == 0 ? "every result verified" : "WRONG results (see #wrong)");
    {
        shardtab_status_t s = c.table ? shardtab_destroy(&c.table) : SHARDTAB_SUCCESS;
        if (c.shard)
            (void)shardtab_mem_free(c.shard);
        if (c.copy_dst)
            (void)shardtab_mem_free(c.copy_dst);
        s = shardtab_agree(MPI_COMM_WORLD, s);
        if (status == SHARDTAB_SUCCESS)
            status = s;
    }
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("coll_bench", rank, shardtab_last_error());
        code = app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    }
    free(c.host);
#if defined(SHARDTAB_WITH_GPU)
    if (c.stream)
        (void)hipStreamDestroy((hipStream_t)c.stream);
#endif
    shardtab_finalize();
    return app_job_end(code);
}
