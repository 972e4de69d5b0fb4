/* test_hooks.h - the test hooks: environment variables that plant a fault or
 * stand in for the machine, so that a test can prove a check fails. They are
 * read only in a build configured with SHARDTAB_TEST_HOOKS=ON (the test build,
 * the default where the tests are built); any other build refuses each one
 * that is set, with a message, rather than ignoring it.
 *
 * Every hook, in this one place:
 *   SHARDTAB_FAULT=<step>:<rank>     the library: a failure at a step of create
 *                                    or destroy (alloc, export, exchange, open,
 *                                    upload, close, free) or of the direct faces
 *                                    (faces-staging, faces-post) on that world
 *                                    rank, or
 *                                    that rank stopped (SIGSTOP) at a step of a
 *                                    stream-ordered collective (coll-enter,
 *                                    coll-phase, coll-args, coll-node,
 *                                    coll-leaders, coll-result, coll-end)
 *   MULTI_SCAL_TEST_CORRUPT=<index>  multi_scal: that element nudged by one ulp
 *                                    after the kernels (the verifier must see it)
 *   MULTI_SCAL_TEST_MEMORY=<bytes>   multi_scal: the host memory available
 *   JACOBI_TEST_FAULT=<solve>:<kind>:<row>:<col>:<iteration>
 *                                    jacobi: a planted bug (jacobi_options.h)
 *   JACOBI_TEST_CORRUPT=<spec>       jacobi: a result point changed before the
 *                                    checks (jacobi_verify.c)
 *   JACOBI_TEST_SKIP_SIGNAL=<rank>   jacobi: that rank never signals its neighbours
 *   JACOBI_TEST_SLOW_RANK=<rank>     jacobi: that rank's temporal passes start late
 *                                    (host backend)
 *   JACOBI_TEST_STALL=<rank>         jacobi: that rank stops before its solve
 *   CG_TEST_STALL=<rank>[:<iteration>]
 *                                    cg: that rank stops (SIGSTOP) as its first
 *                                    solve starts, or (stream launches) as it
 *                                    enqueues that iteration: its peers must end
 *                                    the job
 */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SHARDTAB_TEST_HOOKS_H
#define SHARDTAB_TEST_HOOKS_H

#include <stdio.h>
#include <stdlib.h>

#ifdef SHARDTAB_TEST_HOOKS
#  define SHARDTAB_HAVE_TEST_HOOKS 1
#else
#  define SHARDTAB_HAVE_TEST_HOOKS 0
#endif

/* Hook `name`'s text into *text: NULL where it is unset or empty. Returns 0;
 * or, in a build without test hooks where it is set, -1 with a message in err
 * (the caller refuses the run as bad usage). */
static inline int test_hook_read(const char *name, const char **text, char *err, size_t err_bytes)
{
    const char *value = getenv(name);

    *text = NULL;
    if (value == NULL || *value == '\0')
        return 0;
    if (!SHARDTAB_HAVE_TEST_HOOKS) {
        snprintf(err, err_bytes,
                 "%s is set, but it is a test hook and this build has none: unset it (a test "
                 "build, configured with -DSHARDTAB_TEST_HOOKS=ON, reads it)",
                 name);
        return -1;
    }
    *text = value;
    return 0;
}

/* A hook's "<rank>[:<n>]", strictly (N13: a malformed one was ignored, and the run
 * passed as if no hook were set): the rank a decimal in [0, ranks), n (where `n_max`
 * >= 0 allows one) a decimal in [0, n_max]; *n is -1 where none is given. Returns 0, or
 * -1 with the reason in err (the caller refuses the run, exit 2). */
static inline int test_hook_rank_and(const char *name, const char *text, int ranks, long n_max,
                                     int *rank, long *n, char *err, size_t err_bytes)
{
    const char *p = text;
    char *end;
    long r, v = -1;

    if (*p < '0' || *p > '9')
        goto bad;
    r = strtol(p, &end, 10);
    if (*end == ':' && n_max >= 0 && end[1] >= '0' && end[1] <= '9') {
        v = strtol(end + 1, &end, 10);
        if (v > n_max)
            goto bad;
    }
    if (*end != '\0')
        goto bad;
    if (r >= ranks) {
        snprintf(err, err_bytes, "%s='%s' names rank %ld, and the job has %d ranks (0 to %d)", name,
                 text, r, ranks, ranks - 1);
        return -1;
    }
    *rank = (int)r;
    *n = v;
    return 0;
bad:
    if (n_max >= 0)
        snprintf(err, err_bytes,
                 "%s='%s' is not <rank>[:<iteration>]: decimal numbers, the iteration 0 to %ld",
                 name, text, n_max);
    else
        snprintf(err, err_bytes, "%s='%s' is not a rank: a decimal number", name, text);
    return -1;
}

#endif /* SHARDTAB_TEST_HOOKS_H */
