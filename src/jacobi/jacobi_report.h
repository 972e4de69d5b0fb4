/* jacobi_report.h - what the jacobi program tells: the header (every rank's
 * line, printed by rank 0 in rank order), the norm history, the summary and
 * verdict lines, the JSON, and errors. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_REPORT_H
#define JACOBI_REPORT_H

#include "app.h"
#include "jacobi_job.h"
#include "jacobi_verify.h"

typedef struct jacobi_rank_line {
    int rank, node_id, node_rank, device, start, rows;
    char host[64], device_name[64], pci_bus_id[32], top_via[8], bottom_via[8];
} jacobi_rank_line_t;

/* The timings of the job: every timed solve, and the medians reported. */
typedef struct jacobi_timings {
    double *ref, *run; /* [repeat] */
    double ref_median, run_median;
} jacobi_timings_t;

/* Collective: every rank's line, printed by rank 0 in rank order; rank 0 keeps
 * them (*lines_out) for the JSON. */
shardtab_status_t jacobi_print_header(const jacobi_job_t *j, jacobi_rank_line_t **lines_out);
void jacobi_print_norms(const jacobi_job_t *j, const jacobi_outcome_t *ref,
                        const jacobi_outcome_t *run);
/* The time line and the anchors' summary line (rank 0). */
void jacobi_print_summary(const jacobi_job_t *j, const jacobi_outcome_t *ref,
                          const jacobi_outcome_t *run, const jacobi_timings_t *t);
/* The checks' lines, then the run's last line: the verdict (rank 0). */
void jacobi_print_verdict(const jacobi_job_t *j, const jacobi_outcome_t *run,
                          const jacobi_verdict_t *v);
void jacobi_write_json(const jacobi_job_t *j, app_outfile_t *out, const jacobi_rank_line_t *lines,
                       const jacobi_outcome_t *ref, const jacobi_outcome_t *run,
                       const jacobi_outcome_t *plain, const jacobi_timings_t *t,
                       const jacobi_verdict_t *v, int exit_status);

#endif /* JACOBI_REPORT_H */
