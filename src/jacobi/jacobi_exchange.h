/* jacobi_exchange.h - the host's part of a host-driven step: the ghost rows
 * that go by MPI, the norm by MPI, and host-sync's barrier. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_EXCHANGE_H
#define JACOBI_EXCHANGE_H

#include <stdint.h>

#include "jacobi_job.h"

/* The loop state of one host-driven solve. */
typedef struct jacobi_host_loop {
    uint64_t base;  /* the iteration the solve started at */
    double pending; /* the norm computed last, decided on after the next step */
    int stop;       /* the norm fell: the step just done was the last */
    int failed;     /* some rank failed: every rank leaves at the same step */
} jacobi_host_loop_t;

void jacobi_host_loop_init(jacobi_host_loop_t *loop, uint64_t base);

/* After step k: send the edge rows that go by MPI, receive the ghost rows of
 * k + 1 into the halo; then the norm, if the host owns it, with the device's
 * rules (the norm of k is computed now and decided on after k + 1, which is
 * then the last step when it is <= tol: loop->stop). A rank that failed
 * (local) still takes part in the MPI calls, and its failure travels with the
 * norms (or, for host-sync, in the allreduce that is its barrier), so every
 * rank learns of it at the same step (loop->failed) and nobody waits alone.
 * Returns local, or the first failure of this step. */
shardtab_status_t jacobi_host_step(jacobi_job_t *j, jacobi_host_loop_t *loop, uint64_t k,
                                   jacobi_outcome_t *out, shardtab_status_t local);

#endif /* JACOBI_EXCHANGE_H */
