/* report.c - multi_scal's output: the header, the result rows, the verify
 * lines, and the JSON rendering of the same structs. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "bounded.h"
#include "report.h"

#include "mpi_gpu.h"
#include "scal.h"
#include "shardtab_git_commit.h" /* generated at build time: SHARDTAB_GIT_COMMIT */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

shardtab_status_t ms_report_open_json(ms_report_t *r, const ms_options_t *opts, int rank)
{
    memset(r, 0, sizeof *r);
    r->opts = opts;
    r->rank = rank;
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    if (rank != 0 || opts->json == NULL)
        return SHARDTAB_SUCCESS;
    {
        char err[APP_MESSAGE_BYTES];
        if (app_outfile_open_named(&r->json, opts->json, "JSON file", err, sizeof err) != 0)
            return shardtab_error_set(SHARDTAB_ERR_INVALID_ARG, "%s", err);
    }
    r->json_open = 1;
    return SHARDTAB_SUCCESS;
}

void ms_report_discard_json(ms_report_t *r)
{
    if (r->json_open)
        app_outfile_discard(&r->json); /* our temporary file only, never FILE itself */
    r->json_open = 0;
    free(r->ranks);
    r->ranks = NULL;
}

static void mode_list(unsigned modes, char *buf, size_t len)
{
    static const unsigned order[] = {MS_MODE_LOCAL, MS_MODE_RING, MS_MODE_GLOBAL};
    size_t used = 0;
    buf[0] = '\0';
    for (int m = 0; m < 3; m++)
        if (modes & order[m])
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "",
                                     ms_mode_name(order[m]));
}

/* Node layout from the gathered lines: counts of nodes, ranks and devices. */
static void summarize_nodes(ms_report_t *r)
{
    r->nodes = 0;
    r->min_per_node = r->size;
    r->max_per_node = 0;
    r->max_devices_per_node = 0;
    for (int i = 0; i < r->size; i++) {
        const ms_rank_info_t *a = &r->ranks[i];
        int devices = 0;
        if (a->node_rank != 0)
            continue;
        r->nodes++;
        if (a->node_size < r->min_per_node)
            r->min_per_node = a->node_size;
        if (a->node_size > r->max_per_node)
            r->max_per_node = a->node_size;
        /* distinct devices among this node's ranks */
        for (int j = 0; j < r->size; j++) {
            const ms_rank_info_t *b = &r->ranks[j];
            int seen = 0;
            if (b->node_id != a->node_id)
                continue;
            for (int k = 0; k < j && !seen; k++)
                seen = r->ranks[k].node_id == a->node_id &&
                       strcmp(r->ranks[k].pci_bus_id, b->pci_bus_id) == 0 &&
                       strcmp(r->ranks[k].host, b->host) == 0 && strcmp(b->pci_bus_id, "-") != 0;
            devices += !seen;
        }
        if (devices > r->max_devices_per_node)
            r->max_devices_per_node = devices;
    }
}

shardtab_status_t ms_report_header(ms_report_t *r, const ms_options_t *opts,
                                   const shardtab_t *table, ms_shard_t mine)
{
    shardtab_device_info_t dev;
    ms_rank_info_t me;
    double times[3], max_times[3];
    shardtab_status_t status = SHARDTAB_SUCCESS;
    char buf[64], modes[64];

    memset(&me, 0, sizeof me);
    shardtab_device_info(&dev);
    me.rank = r->rank;
    me.node_id = shardtab_node_id(table);
    me.node_rank = shardtab_node_rank(table);
    me.node_size = shardtab_node_size(table);
    me.device = dev.device;
    me.start = mine.start;
    me.length = mine.length;
    {
        char name[MPI_MAX_PROCESSOR_NAME];
        MPI_Get_processor_name(name, &(int){0});
        snprintf(me.host, sizeof me.host, "%.63s", name); /* long FQDNs: the first 63 */
    }
    snprintf(me.device_name, sizeof me.device_name, "%s", dev.name);
    snprintf(me.pci_bus_id, sizeof me.pci_bus_id, "%s", dev.pci_bus_id);
    times[0] = shardtab_create_ms(table);
    times[1] = shardtab_open_ms(table);
    times[2] = r->second_create_ms;
    app_reduce(times, max_times, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD,
               "the reduce in ms_report_header() (report.c)");
    {
        int opened = r->second_opened;
        app_reduce(&opened, &r->second_opened, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD,
                   "the reduce in ms_report_header() (report.c)");
    }

    if (r->rank == 0) {
        r->ranks = calloc((size_t)r->size, sizeof *r->ranks);
        if (r->ranks == NULL)
            status = shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "calloc of %d rank lines failed",
                                        r->size);
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement in ms_report_header() (report.c)", 0);
    if (status != SHARDTAB_SUCCESS)
        return status;
    app_gather(&me, (int)sizeof me, MPI_BYTE, r->ranks, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD,
               "the gather in ms_report_header() (report.c)");
    if (r->rank != 0)
        return SHARDTAB_SUCCESS;

    r->create_ms = max_times[0];
    r->open_ms = max_times[1];
    r->second_create_ms = max_times[2];
    summarize_nodes(r);
    mode_list(opts->modes, modes, sizeof modes);
    printf("# multi_scal %d.%d.%d: one pointer table per node, every shard reachable from every "
           "kernel of the node\n",
           SHARDTAB_VERSION_MAJOR, SHARDTAB_VERSION_MINOR, SHARDTAB_VERSION_PATCH);
    {
        char per_node[32];
        if (r->min_per_node == r->max_per_node)
            snprintf(per_node, sizeof per_node, "%d", r->max_per_node);
        else
            snprintf(per_node, sizeof per_node, "%d to %d", r->min_per_node, r->max_per_node);
        printf("# backend %s, %d rank%s, %d node%s, %s rank%s per node, %d device%s per node\n",
               shardtab_backend_name(shardtab_backend()), r->size, app_s(r->size), r->nodes,
               app_s(r->nodes), per_node, app_s(r->max_per_node), r->max_devices_per_node,
               app_s(r->max_devices_per_node));
    }
    printf("# n %" PRIu64 " doubles (%s), alpha %.17g, iters %d, modes %s, kernel %s\n", opts->n,
           ms_human_bytes((double)opts->n * sizeof(double), buf, sizeof buf), opts->alpha,
           opts->iters, modes,
           scal_kernel_label(opts->variant >= 0 ? opts->variant : SCAL_VARIANT_DEFAULT));
    if (opts->bench || opts->bench_pairs) {
        const ms_bench_fit_t *fit = &r->fit;
        char top[32], asked[32], have[32];
        ms_human_bytes((double)fit->top, top, sizeof top);
        if (opts->bench)
            printf("# bench sizes %s to %s per shard, x4 steps",
                   ms_human_bytes((double)opts->bench_min, buf, sizeof buf), top);
        else
            printf("# bench-pairs size %s per shard", top);
        if (fit->capped)
            printf(", capped from the default %s to fit host memory: %d ranks per node x %d "
                   "buffers of a shard in %s available (--bench-max sets it)",
                   ms_human_bytes((double)fit->asked, asked, sizeof asked), fit->ranks_on_node,
                   fit->buffers, ms_human_bytes((double)fit->available, have, sizeof have));
        printf("\n");
    }
    {
        char mpi_line[256];
        app_mpi_gpu_support(mpi_line, sizeof mpi_line);
        printf("# MPI: %s (verification is host-staged, so either way works)\n", mpi_line);
    }
    for (int i = 0; i < r->size; i++) {
        const ms_rank_info_t *a = &r->ranks[i];
        printf("# Rank %3d on %-16s node %3d node-rank %3d device %2d %-14s [%s] shard [%" PRIu64
               ", %" PRIu64 ") %" PRIu64 " elements\n",
               a->rank, a->host, a->node_id, a->node_rank, a->device, a->device_name, a->pci_bus_id,
               a->start, a->start + a->length, a->length);
    }
    printf("# table created in %.3f ms (max over ranks), IPC opens %.3f ms; a second table over "
           "the same shards %.3f ms (median of 5, max over ranks), opening %d peer allocations\n",
           r->create_ms, r->open_ms, r->second_create_ms, r->second_opened);
    if (!opts->check_peers && !opts->bench && !opts->bench_pairs)
        printf("#\n# total_GB/s = bytes read + written by %s %d rank%s together over time_s "
               "(the slowest rank's)\n# %6s %6s %12s %12s\n",
               r->size == 1 ? "the" : "all", r->size, app_s(r->size), "mode", "iters", "time_s",
               "total_GB/s");
    fflush(stdout);
    return SHARDTAB_SUCCESS;
}

void ms_report_mode(ms_report_t *r, const ms_mode_result_t *res)
{
    if (r->rank != 0)
        return;
    if (r->nresults < 3)
        r->results[r->nresults++] = *res;
    printf("  %6s %6d %12.4e %12.3f\n", ms_mode_name(res->mode), res->iters, res->seconds,
           res->gbps);
    if (res->mismatches == 0)
        printf("# verify %s: OK (%" PRIu64 " elements, %d shards)\n", ms_mode_name(res->mode),
               r->opts->n, r->size);
    else
        printf("# verify %s: FAILED (%" PRIu64 " mismatches, first at global index %" PRIu64
               ": got %.17g, want %.17g)\n",
               ms_mode_name(res->mode), res->mismatches, res->first_bad, res->got, res->want);
    fflush(stdout);
}

void ms_report_bench(ms_report_t *r, const ms_bench_row_t *rows, int nrows, int verified)
{
    if (r->rank != 0)
        return;
    r->bench = rows;
    r->nbench = nrows;
    printf("# bench: GPU_GB/s = bytes read + written per GPU over the median of the repeats "
           "(each the max over ranks), [min, max] beside it;\n"
           "# link = bytes per link direction; ratio = link (remote, ring) or GB/s (local) "
           "over the baseline measured at the same size\n");
    printf("# %10s %-15s %5s %10s %10s %10s %10s %7s %-15s %9s\n", "shard_MiB", "operation", "reps",
           "GPU_GB/s", "min", "max", "link_GB/s", "ratio", "baseline", "create_ms");
    for (int i = 0; i < nrows; i++) {
        const ms_bench_row_t *b = &rows[i];
        char link[16] = "-", ratio[16] = "-";
        if (b->link_gbps > 0)
            snprintf(link, sizeof link, "%.1f", b->link_gbps);
        if (b->baseline >= 0)
            snprintf(ratio, sizeof ratio, "%.3f", b->ratio);
        printf("  %10.2f %-15s %5d %10.1f %10.1f %10.1f %10s %7s %-15s %9.2f\n",
               (double)b->shard_bytes / (1 << 20), ms_bench_op_name(b->op), b->reps, b->gbps_median,
               b->gbps_min, b->gbps_max, link, ratio,
               b->baseline >= 0 ? ms_bench_op_name(b->baseline) : "-", b->create_ms);
    }
    printf("# bench verify: %s (every table mode, host-staged and MPI update left every "
           "element exact)\n",
           verified ? "OK" : "FAILED");
    fflush(stdout);
}

void ms_report_matrix_head(int n, int width)
{
    printf("#   %-14s", "writer\\owner");
    for (int o = 0; o < n; o++)
        printf(" %*d", width, o);
    printf("\n");
}

void ms_report_pairs(ms_report_t *r, const double *gbps, int n, int verified)
{
    char size[32];

    if (r->rank != 0)
        return;
    r->pair_gbps = gbps;
    r->pair_n = n;
    printf("# bench-pairs: GB/s (bytes read + written) when node rank <row> alone scales the "
           "shard of node rank <column> through the table, %s per shard,\n# median of 8 after "
           "2 warm-ups; each repeat timed by the slowest node\n",
           ms_human_bytes((double)r->opts->bench_max, size, sizeof size));
    ms_report_matrix_head(n, 9);
    for (int w = 0; w < n; w++) {
        printf("    %-14d", w);
        for (int o = 0; o < n; o++)
            printf(" %9.1f", gbps[w * n + o]);
        printf("\n");
    }
    printf("# bench-pairs verify: %s (every shard back to its initial values)\n",
           verified ? "OK" : "FAILED");
    fflush(stdout);
}

int ms_report_finish(ms_report_t *r, int exit_code)
{
    FILE *f = r->json_open ? r->json.f : NULL;
    int json_failed = 0;

    if (r->rank == 0 && f != NULL) {
        fprintf(f, "{\n  \"program\": \"multi_scal\",\n  \"version\": \"%d.%d.%d\",\n",
                SHARDTAB_VERSION_MAJOR, SHARDTAB_VERSION_MINOR, SHARDTAB_VERSION_PATCH);
        fprintf(f, "  \"backend\": \"%s\",\n", shardtab_backend_name(shardtab_backend()));
        app_json_provenance(f, SHARDTAB_GIT_COMMIT); /* commit, time, Slurm job */
        fprintf(f,
                "  \"ranks\": %d,\n  \"nodes\": %d,\n  \"ranks_per_node_min\": %d,\n"
                "  \"ranks_per_node_max\": %d,\n  \"devices_per_node\": %d,\n",
                r->size, r->nodes, r->min_per_node, r->max_per_node, r->max_devices_per_node);
        fprintf(f, "  \"n\": %" PRIu64 ",\n  \"alpha\": %.17g,\n  \"iters\": %d,\n", r->opts->n,
                r->opts->alpha, r->opts->iters);
        fprintf(f, "  \"table_create_ms\": %.6f,\n  \"ipc_open_ms\": %.6f,\n", r->create_ms,
                r->open_ms);
        fprintf(f, "  \"second_table_create_ms\": %.6f,\n  \"second_table_opened\": %d,\n",
                r->second_create_ms, r->second_opened);
        fprintf(f, "  \"rank_info\": [\n");
        for (int i = 0; i < r->size; i++) {
            const ms_rank_info_t *a = &r->ranks[i];
            fprintf(f, "    {\"rank\": %d, \"host\": ", a->rank);
            app_json_string(f, a->host);
            fprintf(f, ", \"node\": %d, \"node_rank\": %d, \"device\": %d, \"device_name\": ",
                    a->node_id, a->node_rank, a->device);
            app_json_string(f, a->device_name);
            fprintf(f, ", \"pci_bus_id\": ");
            app_json_string(f, a->pci_bus_id);
            fprintf(f, ", \"shard_start\": %" PRIu64 ", \"shard_length\": %" PRIu64 "}%s\n",
                    a->start, a->length, i + 1 < r->size ? "," : "");
        }
        fprintf(f, "  ],\n  \"results\": [\n");
        for (int i = 0; i < r->nresults; i++) {
            const ms_mode_result_t *m = &r->results[i];
            fprintf(
                f,
                "    {\"mode\": \"%s\", \"iters\": %d, \"time_s\": %.9e, \"gbps\": %.6f, "
                "\"gbps_scope\": \"all_ranks\", \"verified\": %s, \"mismatches\": %" PRIu64 "}%s\n",
                ms_mode_name(m->mode), m->iters, m->seconds, m->gbps,
                m->mismatches ? "false" : "true", m->mismatches, i + 1 < r->nresults ? "," : "");
        }
        fprintf(f, "  ],\n  \"check_peers\": [\n");
        for (int i = 0; i < r->npairs; i++) {
            const ms_peer_pair_t *p = &r->pairs[i];
            fprintf(f,
                    "    {\"node\": %d, \"writer\": %d, \"owner\": %d, \"writer_rank\": %d, "
                    "\"owner_rank\": %d, \"reported\": %d, \"verified\": %s, \"empty\": %s}%s\n",
                    p->node, p->writer, p->owner, p->writer_rank, p->owner_rank, p->reported,
                    p->verified ? "true" : "false", p->empty ? "true" : "false",
                    i + 1 < r->npairs ? "," : "");
        }
        fprintf(f, "  ],\n  \"bench_top_bytes\": %" PRIu64 ",\n  \"bench_top_capped\": %s,\n",
                r->opts->bench || r->opts->bench_pairs ? r->fit.top : 0,
                r->fit.capped ? "true" : "false");
        fprintf(f,
                "  \"pairs_shard_bytes\": %" PRIu64 ",\n  \"pairs_gbps_scope\": \"per_gpu\",\n"
                "  \"pairs_gbps\": [",
                r->pair_n ? r->opts->bench_max : 0);
        for (int w = 0; w < r->pair_n; w++) {
            fprintf(f, "%s\n    [", w ? "," : "");
            for (int o = 0; o < r->pair_n; o++)
                fprintf(f, "%s%.3f", o ? ", " : "", r->pair_gbps[w * r->pair_n + o]);
            fprintf(f, "]");
        }
        fprintf(f, "%s],\n  \"bench\": [\n", r->pair_n ? "\n  " : "");
        for (int i = 0; i < r->nbench; i++) {
            const ms_bench_row_t *b = &r->bench[i];
            fprintf(f,
                    "    {\"shard_bytes\": %" PRIu64 ", \"operation\": \"%s\", \"reps\": %d, "
                    "\"gbps_scope\": \"per_gpu\", \"gbps_median\": %.3f, \"gbps_min\": %.3f, "
                    "\"gbps_max\": %.3f, \"link_gbps\": %.3f, \"ratio\": %.4f, "
                    "\"baseline\": \"%s\", \"create_ms\": %.3f}%s\n",
                    b->shard_bytes, ms_bench_op_name(b->op), b->reps, b->gbps_median, b->gbps_min,
                    b->gbps_max, b->link_gbps, b->ratio,
                    b->baseline >= 0 ? ms_bench_op_name(b->baseline) : "", b->create_ms,
                    i + 1 < r->nbench ? "," : "");
        }
        fprintf(f, "  ],\n  \"kernel\": \"%s\",\n  \"exit_status\": %d\n}\n",
                scal_kernel_label(r->opts->variant >= 0 ? r->opts->variant : SCAL_VARIANT_DEFAULT),
                exit_code);
        {
            char err[APP_MESSAGE_BYTES];
            if (app_outfile_commit(&r->json, err, sizeof err) != 0) {
                fprintf(stderr, "multi_scal: error: %s; the results above are not saved\n", err);
                fflush(stderr);
                json_failed = 1;
            }
        }
        r->json_open = 0;
    }
    /* every rank exits with the same status, rank 0's file included */
    app_bcast(&json_failed, 1, MPI_INT, 0, MPI_COMM_WORLD,
              "the broadcast in ms_report_finish() (report.c)");
    free(r->ranks);
    r->ranks = NULL;
    return json_failed && exit_code == 0 ? 1 : exit_code;
}
