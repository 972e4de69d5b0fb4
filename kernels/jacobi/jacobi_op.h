/* jacobi_op.h - the per-point work of the jacobi program and its norm-and-stop
 * rule, each written once and compiled for the CPU (host backend, the plain
 * reference, the CPU check, the host's loops) and for GPUs (HIP and CUDA
 * kernels), so that every backend and every rank count computes the same bits
 * and stops at the same iteration. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_OP_H
#define JACOBI_OP_H

#include "jacobi_sweep.h"

#if defined(__HIPCC__) || defined(__CUDACC__)
#  define JACOBI_HD __host__ __device__
#else
#  define JACOBI_HD
#endif

/* The 5-point update in the anchors' order: right + left + below + above, then
 * times 0.25 (exact: a power of two). Plain IEEE single adds, no fused
 * multiply-add possible, so the CPU and every GPU agree bit for bit. */
static JACOBI_HD inline jacobi_real_t jacobi_value(jacobi_real_t left, jacobi_real_t right,
                                                   jacobi_real_t up, jacobi_real_t down)
{
    return (jacobi_real_t)0.25 * (right + left + down + up);
}

/* A residue's share of the squared L2 norm, summed in double. */
static JACOBI_HD inline double jacobi_residue2(jacobi_real_t next, jacobi_real_t current)
{
    double r = (double)(next - current);
    return r * r;
}

/* Is iteration k (absolute) one whose norm is computed? Is it one at whose end
 * the norm of k - 1 decides whether to go on (the anchors' one-iteration lag)? */
static JACOBI_HD inline int jacobi_norm_iteration(uint64_t base, int nccheck, uint64_t k)
{
    return (k - base) % (uint64_t)nccheck == 0;
}

static JACOBI_HD inline int jacobi_decision_iteration(uint64_t base, int nccheck, uint64_t k)
{
    return k > base && (k - 1 - base) % (uint64_t)nccheck == 0;
}

/* The rule, for a loop that has just finished iteration k and holds `pending`,
 * the norm of the last norm iteration: does it stop after k? */
static JACOBI_HD inline int jacobi_stops_after(uint64_t base, int nccheck, uint64_t k,
                                               double pending, double tol)
{
    return jacobi_decision_iteration(base, nccheck, k) && pending <= tol;
}

/* The norm history keeps every decided norm (the norm of iteration `done`,
 * counted from the solve's start, a multiple of nccheck) in slot done /
 * nccheck, as long as there is one: every check compares them all. */
static JACOBI_HD inline int jacobi_history_len(int niter, int nccheck)
{
    int len = niter / nccheck + 1;
    return len < JACOBI_HISTORY_MAX ? len : JACOBI_HISTORY_MAX;
}

static JACOBI_HD inline int jacobi_history_slot(uint64_t done, int nccheck, int history_len)
{
    return done % (uint64_t)nccheck == 0 && done / (uint64_t)nccheck < (uint64_t)history_len
               ? (int)(done / (uint64_t)nccheck)
               : -1;
}

#endif /* JACOBI_OP_H */
