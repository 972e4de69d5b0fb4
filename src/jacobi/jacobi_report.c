/* jacobi_report.c - the jacobi program's output: '#' lines for metadata, the
 * norm history as fixed-width rows, the anchors' summary line, the verdict
 * last, and the same results as JSON. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "jacobi_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "jacobi_op.h"
#include "mpi_gpu.h"

#ifndef JACOBI_GIT_COMMIT
#  define JACOBI_GIT_COMMIT "unknown"
#endif

shardtab_status_t jacobi_print_header(const jacobi_job_t *j, jacobi_rank_line_t **lines_out)
{
    shardtab_device_info_t info;
    jacobi_rank_line_t mine, *lines = NULL;
    shardtab_status_t status = shardtab_device_info(&info);
    char mpi_line[256];

    memset(&mine, 0, sizeof mine);
    mine.rank = j->rank;
    mine.node_id = shardtab_node_id(j->table);
    mine.node_rank = shardtab_node_rank(j->table);
    mine.device = info.device;
    mine.start = j->rows.start;
    mine.rows = j->rows.count;
    {
        char name[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        MPI_Get_processor_name(name, &len);
        snprintf(mine.host, sizeof mine.host, "%.63s", name);
    }
    snprintf(mine.device_name, sizeof mine.device_name, "%s", info.name);
    snprintf(mine.pci_bus_id, sizeof mine.pci_bus_id, "%s", info.pci_bus_id);
    snprintf(mine.top_via, sizeof mine.top_via, "%s", j->host_top ? "mpi" : "table");
    snprintf(mine.bottom_via, sizeof mine.bottom_via, "%s", j->host_bottom ? "mpi" : "table");
    if (j->rank == 0) {
        lines = malloc((size_t)j->size * sizeof *lines);
        if (lines == NULL)
            status = jacobi_no_memory("the rank lines", (size_t)j->size * sizeof *lines);
    }
    status = app_agree(MPI_COMM_WORLD, status, "the agreement before the header", 0);
    if (status != SHARDTAB_SUCCESS) {
        free(lines);
        return status;
    }
    app_gather(&mine, (int)sizeof mine, MPI_BYTE, lines, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD, "the gather of the rank lines");
    app_mpi_gpu_support(mpi_line, sizeof mpi_line);
    if (j->rank == 0) {
        const jacobi_options_t *o = &j->opts;
        char init[48];
        printf("# jacobi %d.%d.%d: 2D Jacobi, 5-point stencil, ghost rows through one table per "
               "node\n",
               SHARDTAB_VERSION_MAJOR, SHARDTAB_VERSION_MINOR, SHARDTAB_VERSION_PATCH);
        const int nodes = shardtab_node_count(j->table);
        printf("# backend %s, %d rank%s, %d node%s, variant %s, grid %d x %d, at most %d "
               "iterations, norm every %d, tol %g, init %s, %d timed solve(s) after a warm-up\n",
               shardtab_backend_name(shardtab_backend()), j->size, app_s(j->size), nodes,
               app_s(nodes), jacobi_variant_name(o->variant), o->nx, o->ny, o->niter, o->nccheck,
               JACOBI_TOL, jacobi_init_name(&o->init, init, sizeof init), o->repeat);
        printf("# launch: the run %s%s (asked: %s), %s; the 1-%s reference %s, on rank 0 "
               "alone\n",
               jacobi_launch_name(j->launch),
               j->host_loop ? " from a host loop, one launch per step" : "",
               jacobi_launch_name(o->launch), jacobi_launch_mode(j->launch)->how, app_devices(1),
               jacobi_launch_name(j->ref_launch));
        if (j->launch_note[0])
            printf("# launch note: %s\n", j->launch_note);
        printf("# tuning:");
        for (int v = 0; v < JACOBI_TUNING_COUNT; v++) {
            char text[64];
            printf("%s %s", v ? "," : "",
                   jacobi_tuning_describe(o, (jacobi_tuning_var_t)v, text, sizeof text));
        }
        printf("%s\n", shardtab_backend() == SHARDTAB_BACKEND_HOST
                           ? "; the host backend's loops use only JACOBI_TEMPORAL_DEPTH"
                           : "");
        printf(
            "# host memory: about %.2f GiB for this node's %d rank%s (rank 0: %.2f GiB), %.2f GiB "
            "available when checked\n",
            j->memory_node / 1073741824.0, j->node_size, app_s(j->node_size),
            j->memory_rank / 1073741824.0, j->memory_available / 1073741824.0);
        printf("# MPI: %s; ghost rows by MPI go %s\n", mpi_line,
               j->mpi_direct ? "straight from device memory" : "through host buffers");
        for (int r = 0; r < j->size; r++) {
            const jacobi_rank_line_t *l = &lines[r];
            printf("# Rank %3d on %-16s node %3d node-rank %3d device %2d %-14s [%s] rows [%d, "
                   "%d) %d rows, above via %s, below via %s\n",
                   l->rank, l->host, l->node_id, l->node_rank, l->device, l->device_name,
                   l->pci_bus_id, l->start, l->start + l->rows, l->rows, l->top_via, l->bottom_via);
        }
        fflush(stdout);
    }
    *lines_out = lines;
    return SHARDTAB_SUCCESS;
}

void jacobi_print_norms(const jacobi_job_t *j, const jacobi_outcome_t *ref,
                        const jacobi_outcome_t *run)
{
    int shown = (int)(run->iterations > ref->iterations ? run->iterations : ref->iterations);

    if (j->rank != 0)
        return;
    char one[16], all[16];
    snprintf(one, sizeof one, "1 %s", app_devices(1));
    snprintf(all, sizeof all, "%d %s", j->size, app_devices(j->size));
    printf("#  iter   norm (%s)%*snorm (%s)\n", one, (int)(14 - strlen(one)), "", all);
    /* every 100th iteration that had a norm decided, as the anchors print */
    for (int it = 0; it < shown - 1; it += 100) {
        int slot = jacobi_history_slot((uint64_t)it, j->opts.nccheck, run->history_len);
        if (slot >= 0)
            printf("%7d   %.15e   %.15e\n", it, ref->history[slot], run->history[slot]);
    }
}

void jacobi_print_summary(const jacobi_job_t *j, const jacobi_outcome_t *ref,
                          const jacobi_outcome_t *run, const jacobi_timings_t *t)
{
    if (j->rank != 0)
        return;
    printf("# 1 %s reference (%s launches): %" PRIu64 " iterations, %.6f s (median of %d); "
           "%d %s, variant %s (%s launches): %" PRIu64 " iterations, %.6f s (median of %d)\n",
           app_devices(1), jacobi_launch_name(j->ref_launch), ref->iterations, t->ref_median,
           j->opts.repeat, j->size, app_devices(j->size), jacobi_variant_name(j->opts.variant),
           jacobi_launch_name(j->launch), run->iterations, t->run_median, j->opts.repeat);
    /* the anchors' summary line, nx before ny, with the efficiency's unit */
    printf("%dx%d: 1 %s: %8.4f s, %d %s: %8.4f s, speedup: %8.2f, efficiency: %8.2f %%\n",
           j->opts.nx, j->opts.ny, app_devices(1), t->ref_median, j->size, app_devices(j->size),
           t->run_median, t->run_median > 0 ? t->ref_median / t->run_median : 0.0,
           t->run_median > 0 ? t->ref_median / (j->size * t->run_median) * 100 : 0.0);
    fflush(stdout);
}

static void print_check(const char *name, const char *subject, const char *object,
                        const jacobi_check_t *c, int nx)
{
    char text[512];

    if (!c->ran) {
        printf("# check %s: %s\n", name, c->note);
        return;
    }
    jacobi_check_describe(c, nx, text, sizeof text);
    printf("# check %s: %s %s %s (%s)\n", name, subject, c->ok ? "equals" : "DIFFERS FROM", object,
           text);
}

void jacobi_print_verdict(const jacobi_job_t *j, const jacobi_outcome_t *run,
                          const jacobi_verdict_t *v)
{
    const int nx = j->opts.nx;
    char subject[96], text[512], init[48];
    const jacobi_check_t *failed = NULL;
    const char *failed_name = "";

    if (j->rank != 0)
        return;
    print_check("cpu", "the plain reference", "a CPU loop", &v->cpu, nx);
    if (v->cpu.ran && v->cpu.threads > 0)
        printf("#   (a CPU loop on %d thread(s) of rank 0, the same update and stop rule)\n",
               v->cpu.threads);
    snprintf(subject, sizeof subject, "the 1-%s reference (%s launches)", app_devices(1),
             jacobi_launch_name(j->ref_launch));
    print_check("reference", subject, "the plain reference", &v->reference, nx);
    snprintf(subject, sizeof subject, "the %d-rank run (%s launches)", j->size,
             jacobi_launch_name(j->launch));
    print_check("run", subject, "the plain reference", &v->run, nx);
    jacobi_init_name(&j->opts.init, init, sizeof init);
    if (v->verified) {
        /* the points compared: every interior row, each whole (its boundary columns too) */
        printf("# verify jacobi: OK (init %s: %" PRIu64 " points (%" PRIu64 " interior rows x %d "
               "columns, boundary columns included) bit-exact against the plain reference, %" PRIu64
               " iterations each, %d norms within %.1e <= %.0e; the 1-%s reference likewise%s)\n",
               init, v->run.points, v->run.points / (uint64_t)nx, nx, run->iterations, v->run.norms,
               v->run.norm_diff, JACOBI_NORM_REL_TOL, app_devices(1),
               v->cpu.ran ? ", and the plain reference equals a CPU loop" : "");
        fflush(stdout);
        return;
    }
    /* the plain reference itself first: if it is wrong, so is every comparison with it */
    if (v->cpu.ran && !v->cpu.ok)
        failed = &v->cpu, failed_name = "the plain reference against the CPU loop";
    else if (!v->run.ok)
        failed = &v->run, failed_name = "the run";
    else
        failed = &v->reference, failed_name = shardtab_backend() == SHARDTAB_BACKEND_HOST
                                                  ? "the 1-rank reference"
                                                  : "the 1-GPU reference";
    jacobi_check_describe(failed, nx, text, sizeof text);
    printf("# verify jacobi: FAILED (init %s, %s: %s)\n", init, failed_name, text);
    fflush(stdout);
}

static void json_check(FILE *f, const char *name, const jacobi_check_t *c, int last)
{
    fprintf(f, "    \"%s\": {\"ran\": %s", name, c->ran ? "true" : "false");
    if (c->ran) {
        fprintf(f,
                ", \"ok\": %s, \"points\": %" PRIu64 ", \"mismatches\": %" PRIu64
                ", \"iterations\": %" PRIu64 ", \"iterations_expected\": %" PRIu64
                ", \"norms_compared\": %d, \"norm_max_relative_difference\": %.6e",
                c->ok ? "true" : "false", c->points, c->mismatches, c->iterations_max,
                c->iterations_want, c->norms, c->norm_diff);
        if (c->threads > 0)
            fprintf(f, ", \"threads\": %d", c->threads);
    } else {
        fputs(", \"note\": ", f);
        app_json_string(f, c->note);
    }
    fprintf(f, "}%s\n", last ? "" : ",");
}

static void json_norm(FILE *f, const char *name, const jacobi_outcome_t *o)
{
    if (o->norm_decided)
        fprintf(f, "  \"%s\": %.17g,\n  \"%s_iteration\": %" PRIu64 ",\n", name, o->norm, name,
                o->norm_iter);
    else
        fprintf(f, "  \"%s\": null,\n  \"%s_iteration\": null,\n", name, name);
}

void jacobi_write_json(const jacobi_job_t *j, app_outfile_t *out, const jacobi_rank_line_t *lines,
                       const jacobi_outcome_t *ref, const jacobi_outcome_t *run,
                       const jacobi_outcome_t *plain, const jacobi_timings_t *t,
                       const jacobi_verdict_t *v, int exit_status)
{
    FILE *f = out->f;
    const jacobi_options_t *o = &j->opts;
    char init[48];

    fprintf(f, "{\n  \"program\": \"jacobi\",\n  \"version\": \"%d.%d.%d\",\n",
            SHARDTAB_VERSION_MAJOR, SHARDTAB_VERSION_MINOR, SHARDTAB_VERSION_PATCH);
    app_json_provenance(f, JACOBI_GIT_COMMIT);
    fprintf(f, "  \"backend\": \"%s\",\n  \"ranks\": %d,\n  \"nodes\": %d,\n",
            shardtab_backend_name(shardtab_backend()), j->size, j->nodes);
    fprintf(f,
            "  \"variant\": \"%s\",\n  \"launch\": \"%s\",\n  \"launch_requested\": \"%s\",\n"
            "  \"host_loop\": %s,\n  \"launch_note\": ",
            jacobi_variant_name(o->variant), jacobi_launch_name(j->launch),
            jacobi_launch_name(o->launch), j->host_loop ? "true" : "false");
    if (j->launch_note[0])
        app_json_string(f, j->launch_note);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"reference_launch\": \"%s\",\n", jacobi_launch_name(j->ref_launch));
    /* each tuning variable: its value ("auto": each kernel's own) and whether it was set */
    fputs("  \"tuning\": {", f);
    for (int t_var = 0; t_var < JACOBI_TUNING_COUNT; t_var++) {
        jacobi_tuning_var_t var = (jacobi_tuning_var_t)t_var;
        fprintf(f, "%s\n    \"%s\": {\"value\": ", t_var ? "," : "", jacobi_tuning_name(var));
        if (jacobi_tuning_is_auto(&o->tuning, var))
            fputs("\"auto\"", f);
        else
            fprintf(f, "%d", jacobi_tuning_value(&o->tuning, var));
        fprintf(f, ", \"set\": %s}", o->tuning_set >> t_var & 1u ? "true" : "false");
    }
    fputs("\n  },\n", f);
    fprintf(f,
            "  \"nx\": %d,\n  \"ny\": %d,\n  \"niter\": %d,\n  \"nccheck\": %d,\n  \"tol\": %g,\n"
            "  \"init\": \"%s\",\n",
            o->nx, o->ny, o->niter, o->nccheck, JACOBI_TOL,
            jacobi_init_name(&o->init, init, sizeof init));
    fprintf(f,
            "  \"iterations\": %" PRIu64 ",\n  \"iterations_reference\": %" PRIu64
            ",\n  \"iterations_plain\": %" PRIu64 ",\n",
            run->iterations, ref->iterations, plain->iterations);
    fprintf(f, "  \"seconds\": %.9f,\n  \"seconds_all\": [", t->run_median);
    for (int i = 0; i < o->repeat; i++)
        fprintf(f, "%s%.9f", i ? ", " : "", t->run[i]);
    fprintf(f, "],\n  \"reference_seconds\": %.9f,\n  \"reference_seconds_all\": [", t->ref_median);
    for (int i = 0; i < o->repeat; i++)
        fprintf(f, "%s%.9f", i ? ", " : "", t->ref[i]);
    fprintf(f, "],\n  \"speedup\": %.6f,\n  \"efficiency_percent\": %.4f,\n",
            t->run_median > 0 ? t->ref_median / t->run_median : 0.0,
            t->run_median > 0 ? t->ref_median / (j->size * t->run_median) * 100 : 0.0);
    json_norm(f, "norm", run);
    json_norm(f, "norm_reference", ref);
    json_norm(f, "norm_plain", plain);
    fprintf(f, "  \"norm_relative_difference\": %.6e,\n  \"norm_tolerance\": %g,\n",
            v->run.norm_diff, JACOBI_NORM_REL_TOL);
    fprintf(f, "  \"mismatches\": %" PRIu64 ",\n  \"checks\": {\n", v->run.mismatches);
    json_check(f, "cpu", &v->cpu, 0);
    json_check(f, "reference", &v->reference, 0);
    json_check(f, "run", &v->run, 1);
    fprintf(f, "  },\n  \"verified\": %s,\n  \"rank_info\": [\n", v->verified ? "true" : "false");
    for (int r = 0; r < j->size; r++) {
        const jacobi_rank_line_t *l = &lines[r];
        fprintf(f, "    {\"rank\": %d, \"host\": ", l->rank);
        app_json_string(f, l->host);
        fprintf(f,
                ", \"node\": %d, \"node_rank\": %d, \"device\": %d, \"device_name\": ", l->node_id,
                l->node_rank, l->device);
        app_json_string(f, l->device_name);
        fputs(", \"pci_bus_id\": ", f);
        app_json_string(f, l->pci_bus_id);
        fprintf(f,
                ", \"row_start\": %d, \"rows\": %d, \"above_via\": \"%s\", \"below_via\": "
                "\"%s\"}%s\n",
                l->start, l->rows, l->top_via, l->bottom_via, r + 1 < j->size ? "," : "");
    }
    fprintf(f, "  ],\n  \"exit_status\": %d\n}\n", exit_status);
}
