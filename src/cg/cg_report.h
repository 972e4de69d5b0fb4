/* cg_report.h - the cg program's output: the header lines, the results and
 * the verdict (rank 0's '#' lines), the JSON, the trace's CSV, and the
 * memory's floor that --floor sets beside the solve. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_REPORT_H
#define CG_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "app.h"
#include "cg_options.h"
#include "cg_solver.h"
#include "cg_verify.h"
#include "sparse_csr.h"

/* What a run found, as the report renders it. */
typedef struct cg_results {
    cg_outcome_t run; /* the last timed solve */
    double *times;    /* each timed solve's seconds, opts->repeat of them */
    double median;    /* of times */
    double floor_s;   /* --floor: seconds of one iteration's bytes copied */
    int64_t floor_bytes;
    cg_verdict_t verdict;
} cg_results_t;

/* Rank 0: the matrix, the ranks, the device, the variant and launch chosen. */
void cg_report_header(int size, const cg_options_t *opts, const sparse_csr_t *a,
                      const cg_solver_t *s);
/* Rank 0: the iterations, the times, the floor, the fingerprints, the verdict. */
void cg_report_results(const cg_options_t *opts, const cg_results_t *r);
/* The results as JSON. */
void cg_report_json(FILE *f, const cg_options_t *opts, const sparse_csr_t *a, const cg_solver_t *s,
                    const cg_results_t *r, int exit_code);
/* One iteration's phases on every rank, as CSV rows: rank, phase, its
 * microseconds since the iteration began (the traced solve's). */
void cg_report_trace(FILE *f, const uint64_t *all, int size, int64_t iteration);
/* Rank 0 writes the JSON and commits the files; a file that cannot be saved
 * turns exit status 0 into 1 on every rank. Returns the exit status. Collective. */
int cg_report_save(int rank, const cg_options_t *opts, const sparse_csr_t *a, const cg_solver_t *s,
                   const cg_results_t *r, app_outfile_t *json, app_outfile_t *trace, int exit_code);
/* The median of n times. */
double cg_report_median(const double *times, int n);

/* Seconds of one iteration's bytes moved by a device copy (reading and
 * writing half of them each), the slowest rank's, median of rounds after a
 * warm-up: every rank copies at once, as every rank solves at once. */
shardtab_status_t cg_report_floor(const cg_options_t *opts, const cg_solver_t *s, double *seconds,
                                  int64_t *bytes);

#endif /* CG_REPORT_H */
