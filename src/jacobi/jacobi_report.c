/* jacobi_report.c - the jacobi program's output: '#' lines for metadata, the
 * norm history as fixed-width rows, the anchors' summary line, the verdict
 * last, and the same results as JSON. */
#include "jacobi_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_gpu.h"

#ifndef JACOBI_GIT_COMMIT
#define JACOBI_GIT_COMMIT "unknown"
#endif

void jacobi_say_error(int rank, const char *message)
{
    if (rank == 0) {
        fprintf(stderr, "jacobi: error: %s\n", message);
        fflush(stderr);
    }
}

int jacobi_exit_code_for(shardtab_status_t status)
{
    return status == SHARDTAB_ERR_INVALID_ARG ? 2 : 1;
}

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
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status != SHARDTAB_SUCCESS) {
        free(lines);
        return status;
    }
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, lines, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    app_mpi_gpu_support(mpi_line, sizeof mpi_line);
    if (j->rank == 0) {
        const jacobi_options_t *o = &j->opts;
        printf("# jacobi %d.%d.%d: 2D Jacobi, 5-point stencil, ghost rows through one table per "
               "node\n",
               SHARDTAB_VERSION_MAJOR, SHARDTAB_VERSION_MINOR, SHARDTAB_VERSION_PATCH);
        printf("# backend %s, %d ranks, %d nodes, variant %s%s, grid %d x %d, at most %d "
               "iterations, norm every %d, tol %g, %d timed solve(s) after a warm-up\n",
               shardtab_backend_name(shardtab_backend()), j->size,
               shardtab_node_count(j->table), jacobi_variant_name(o->variant),
               o->variant == JACOBI_TABLE ? (o->graph ? " (graph launches)" : " (stream launches)")
                                          : "",
               o->nx, o->ny, o->niter, o->nccheck, JACOBI_TOL, o->repeat);
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
    printf("#  iter   norm (1 GPU)          norm (%d GPUs)\n", j->size);
    for (int i = 0; i < j->run.history_len && i * 100 < shown - 1; i++)
        printf("%7d   %.15e   %.15e\n", i * 100, ref->history[i], run->history[i]);
}

void jacobi_print_summary(const jacobi_job_t *j, const jacobi_outcome_t *ref,
                          const jacobi_outcome_t *run, const jacobi_timings_t *t)
{
    if (j->rank != 0)
        return;
    printf("# 1 GPU reference: %" PRIu64 " iterations, %.6f s (median of %d); %d GPUs, "
           "variant %s: %" PRIu64 " iterations, %.6f s (median of %d)\n",
           ref->iterations, t->ref_median, j->opts.repeat, j->size,
           jacobi_variant_name(j->opts.variant), run->iterations, t->run_median, j->opts.repeat);
    /* the anchors' summary line, nx before ny */
    printf("%dx%d: 1 GPU: %8.4f s, %d GPUs: %8.4f s, speedup: %8.2f, efficiency: %8.2f\n",
           j->opts.nx, j->opts.ny, t->ref_median, j->size, t->run_median,
           t->run_median > 0 ? t->ref_median / t->run_median : 0.0,
           t->run_median > 0 ? t->ref_median / (j->size * t->run_median) * 100 : 0.0);
    fflush(stdout);
}

void jacobi_print_verdict(const jacobi_job_t *j, const jacobi_outcome_t *ref,
                          const jacobi_outcome_t *run, const jacobi_verdict_t *v)
{
    const uint64_t nx = (uint64_t)j->opts.nx, points = (uint64_t)(j->opts.ny - 2) * nx;

    if (j->rank != 0)
        return;
    if (!v->cpu_ok)
        printf("# verify jacobi: FAILED (the 1-GPU reference differs from the CPU loop; "
               "%" PRIu64 " of %" PRIu64 " points of the distributed run differ from it)\n",
               v->mismatches, points);
    else if (v->verified)
        printf("# verify jacobi: OK (%" PRIu64 " points bit-exact against the 1-GPU reference, "
               "%" PRIu64 " iterations each, norm %.9e vs %.9e at iteration %" PRIu64
               ", relative difference %.1e <= %.0e)\n",
               points, run->iterations, run->norm, ref->norm, run->norm_iter, v->norm_diff,
               JACOBI_NORM_REL_TOL);
    else if (v->mismatches > 0)
        printf("# verify jacobi: FAILED (%" PRIu64 " of %" PRIu64 " points differ, the first at "
               "row %" PRIu64 " column %" PRIu64 ": %.9g, reference %.9g; %" PRIu64
               " iterations, reference %" PRIu64 ")\n",
               v->mismatches, points, v->first_bad / nx, v->first_bad % nx,
               (double)v->first_pair[0], (double)v->first_pair[1], run->iterations,
               ref->iterations);
    else
        printf("# verify jacobi: FAILED (every point bit-exact, but %" PRIu64 " iterations vs %"
               PRIu64 " of the reference, or the norm %.9e at iteration %" PRIu64 " vs %.9e at %"
               PRIu64 ": relative difference %.1e, tolerance %.0e)\n",
               run->iterations, ref->iterations, run->norm, run->norm_iter, ref->norm,
               ref->norm_iter, v->norm_diff, JACOBI_NORM_REL_TOL);
    fflush(stdout);
}

void jacobi_write_json(const jacobi_job_t *j, app_outfile_t *out, const jacobi_rank_line_t *lines,
                       const jacobi_outcome_t *ref, const jacobi_outcome_t *run,
                       const jacobi_timings_t *t, const jacobi_verdict_t *v)
{
    FILE *f = out->f;
    const jacobi_options_t *o = &j->opts;

    fprintf(f, "{\n  \"program\": \"jacobi\",\n  \"version\": \"%d.%d.%d\",\n",
            SHARDTAB_VERSION_MAJOR, SHARDTAB_VERSION_MINOR, SHARDTAB_VERSION_PATCH);
    app_json_provenance(f, JACOBI_GIT_COMMIT);
    fprintf(f, "  \"backend\": \"%s\",\n  \"ranks\": %d,\n  \"nodes\": %d,\n",
            shardtab_backend_name(shardtab_backend()), j->size, j->nodes);
    fprintf(f, "  \"variant\": \"%s\",\n  \"launch\": \"%s\",\n", jacobi_variant_name(o->variant),
            o->variant == JACOBI_TABLE && o->graph ? "graph" : "stream");
    fprintf(f, "  \"nx\": %d,\n  \"ny\": %d,\n  \"niter\": %d,\n  \"nccheck\": %d,\n  \"tol\": %g,\n",
            o->nx, o->ny, o->niter, o->nccheck, JACOBI_TOL);
    fprintf(f, "  \"iterations\": %" PRIu64 ",\n  \"iterations_reference\": %" PRIu64 ",\n",
            run->iterations, ref->iterations);
    fprintf(f, "  \"seconds\": %.9f,\n  \"seconds_all\": [", t->run_median);
    for (int i = 0; i < o->repeat; i++)
        fprintf(f, "%s%.9f", i ? ", " : "", t->run[i]);
    fprintf(f, "],\n  \"reference_seconds\": %.9f,\n  \"reference_seconds_all\": [", t->ref_median);
    for (int i = 0; i < o->repeat; i++)
        fprintf(f, "%s%.9f", i ? ", " : "", t->ref[i]);
    fprintf(f, "],\n  \"speedup\": %.6f,\n  \"efficiency_percent\": %.4f,\n",
            t->run_median > 0 ? t->ref_median / t->run_median : 0.0,
            t->run_median > 0 ? t->ref_median / (j->size * t->run_median) * 100 : 0.0);
    fprintf(f, "  \"norm\": %.17g,\n  \"norm_reference\": %.17g,\n  \"norm_iteration\": %" PRIu64
               ",\n  \"norm_relative_difference\": %.6e,\n  \"norm_tolerance\": %g,\n",
            run->norm, ref->norm, run->norm_iter, v->norm_diff, JACOBI_NORM_REL_TOL);
    fprintf(f, "  \"mismatches\": %" PRIu64 ",\n  \"verified\": %s,\n  \"rank_info\": [\n",
            v->mismatches, v->verified ? "true" : "false");
    for (int r = 0; r < j->size; r++) {
        const jacobi_rank_line_t *l = &lines[r];
        fprintf(f, "    {\"rank\": %d, \"host\": ", l->rank);
        app_json_string(f, l->host);
        fprintf(f, ", \"node\": %d, \"node_rank\": %d, \"device\": %d, \"device_name\": ",
                l->node_id, l->node_rank, l->device);
        app_json_string(f, l->device_name);
        fputs(", \"pci_bus_id\": ", f);
        app_json_string(f, l->pci_bus_id);
        fprintf(f, ", \"row_start\": %d, \"rows\": %d, \"above_via\": \"%s\", \"below_via\": "
                   "\"%s\"}%s\n",
                l->start, l->rows, l->top_via, l->bottom_via, r + 1 < j->size ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}
