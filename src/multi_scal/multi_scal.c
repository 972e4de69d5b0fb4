/* multi_scal.c - the program: scale a distributed vector through one table of
 * shard pointers per node, and verify every element.
 *
 * PURPOSE  Show that one pointer table works from kernels launched on every GPU
 *          of a node (the AMDGPU.jl bug this project grew out of), and measure it.
 * USAGE    mpirun -np <ranks> ./multi_scal [--n N] [--alpha A] [--mode M]
 *                 [--iters K] [--json FILE] [--allow-shared-gpu] [--check-peers]
 *                 [--bench [--bench-min B] [--bench-max B]] [--variant V]
 * NOTES    One rank per GPU. Each mode reaches memory only through the table, never
 *          through the local pointer: local (own shard), ring (the next node rank's
 *          shard), global (a shard-sized stretch of the node's index space that
 *          straddles two shards). After each mode every rank checks its own shard
 *          exactly against the same multiplications done on the host. MPI carries
 *          set-up, timing and verification only.
 *
 * The rooms: options.c (the command line), setup.c (the start, the shard and
 * tables, the teardown), modes.c (one mode, verified), check_peers.c,
 * bench.c (the alternatives to the modes), report.c (the output); this file
 * is the flow.
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bench.h"
#include "bounded.h"
#include "check_peers.h"
#include "cli.h"
#include "job.h"
#include "report.h"
#include "run.h"
#include "scal.h"
#include "shardtab.h"

int main(int argc, char **argv)
{
    static const unsigned mode_order[] = {MS_MODE_LOCAL, MS_MODE_RING, MS_MODE_GLOBAL};
    shardtab_init_params_t params = {0};
    shardtab_status_t status;
    ms_run_t run;
    ms_bench_row_t *bench_rows = NULL;
    ms_peer_pair_t *peer_pairs = NULL;
    double *pair_gbps = NULL;
    int exit_code = 0, failed = 0;

    memset(&run, 0, sizeof run);
    app_job_start(&argc, &argv, "multi_scal", &run.rank, &run.size);

    /* ---- options, tuning variables, test hooks, host memory, the JSON file ---- */
    exit_code = ms_setup_start(&run, argc, argv);
    if (exit_code >= 0)
        return app_job_end(exit_code);
    exit_code = 0;

    /* ---- device, shard, table ---- */
    params.allow_shared_device = run.opts.allow_shared_gpu;
    status = shardtab_init(MPI_COMM_WORLD, &params);
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("multi_scal", run.rank, shardtab_last_error());
        ms_report_discard_json(&run.report);
        return app_job_end(app_exit_status(status == SHARDTAB_ERR_INVALID_ARG));
    }
    status = ms_setup_device(&run);

    /* ---- --check-peers: every pair written and verified, instead of the modes ---- */
    if (status == SHARDTAB_SUCCESS && run.opts.check_peers) {
        ms_check_peers_args_t check = {run.table, run.shard, run.staging, run.offsets_host};
        int all_ok = 0;
        status = ms_check_peers(&check, &all_ok, &peer_pairs, &run.report.npairs);
        run.report.pairs = peer_pairs;
        failed |= !all_ok;
    }

    /* ---- --bench (the sweep) or --bench-pairs (the pairwise matrix), instead of the modes ---- */
    if (status == SHARDTAB_SUCCESS && (run.opts.bench || run.opts.bench_pairs)) {
        int verified = 0, n = 0;
        status = run.opts.bench ? ms_bench_run(&run.opts, &bench_rows, &n, &verified)
                                : ms_bench_pairs(&run.opts, &pair_gbps, &n, &verified);
        if (status == SHARDTAB_SUCCESS && run.opts.bench)
            ms_report_bench(&run.report, bench_rows, n, verified);
        else if (status == SHARDTAB_SUCCESS)
            ms_report_pairs(&run.report, pair_gbps, n, verified);
        failed |= !verified;
    }

    /* ---- the modes, each verified ---- */
    for (size_t m = 0; m < 3 && status == SHARDTAB_SUCCESS && !run.opts.check_peers &&
                       !run.opts.bench && !run.opts.bench_pairs;
         m++) {
        ms_mode_result_t res;
        if (!(run.opts.modes & mode_order[m]))
            continue;
        status = ms_mode_run(&run, mode_order[m], &res);
        if (status == SHARDTAB_SUCCESS) {
            ms_report_mode(&run.report, &res);
            failed |= res.mismatches > 0;
        }
    }

    /* Teardown failures count too: a leaked mapping is a failed run. */
    {
        shardtab_status_t released = app_agree(MPI_COMM_WORLD, ms_setup_release(&run),
                                               "the agreement after the teardown", 0);
        if (status == SHARDTAB_SUCCESS)
            status = released;
    }
    if (status != SHARDTAB_SUCCESS) {
        app_say_error("multi_scal", run.rank, shardtab_last_error());
        exit_code = app_exit_status(status == SHARDTAB_ERR_INVALID_ARG);
    } else if (failed) {
        exit_code = 1;
    }
    shardtab_finalize();
    if (status == SHARDTAB_SUCCESS)
        exit_code = ms_report_finish(&run.report, exit_code);
    else
        ms_report_discard_json(&run.report);
    free(bench_rows);
    free(peer_pairs);
    free(pair_gbps);
    return app_job_end(exit_code);
}
