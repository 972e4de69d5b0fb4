/* cg_launch.h - the cg program's launch modes as one table: one entry a mode
 * (auto included) with its name, its help phrase, whether it fits the job,
 * where auto goes when it does not, and how it runs the solve after its
 * start; and the choice of the mode that runs, made once over the table
 * (cg_launch.c). The program passes its steps between launches in
 * (cg_launch_host_t); every name it reads or writes (--launch, the reports)
 * is the table's. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef CG_LAUNCH_H
#define CG_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "cg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a solve runs, as the choice sees it. */
typedef struct cg_launch_where {
    const cg_args_t *args; /* the rows and the variant: what cg_grid sizes */
    int rank;              /* this rank, for a refusal of its own */
    int ranks, nodes;      /* the job's */
    int ranks_on_device;   /* ranks sharing this rank's device */
} cg_launch_where_t;

/* The program's steps between a run's launches (src/cg/cg_solver.c). Each
 * returns 0 or a status (shardtab_status_t) that the run returns as is. */
typedef struct cg_launch_host {
    void *ctx;
    /* a runtime code of a launch (what: the launch) into a status */
    int (*check)(void *ctx, int code, const char *what);
    /* before the product of a stream iteration's phase: across nodes the
     * operand x's values other nodes read, then the node's barrier */
    int (*before_product)(void *ctx, const double *x);
    /* across nodes, after a stream phase: the host's sum of the dot
     * products, the decision after it; *stop: the device decided to stop */
    int (*after_phase)(void *ctx, int phase, int *stop);
    /* the enqueued iterations done; *stop: the device decided to stop */
    int (*look)(void *ctx, int *stop);
    /* a test's hook as iteration `iteration` is enqueued (NULL: none) */
    void (*enqueue)(void *ctx, int64_t iteration);
} cg_launch_host_t;

typedef struct cg_launch_mode {
    const char *name;     /* --launch's word, and the reports' */
    const char *help;     /* --launch's phrase for it: what its launches are */
    const char *chosen;   /* auto's note where it takes this mode at once */
    cg_launch_t fallback; /* where auto goes when this mode does not fit; AUTO: nowhere */
    int resident;         /* 1: every block of its grid resident at once (cg_grid) */
    /* 0, or 1 where the job cannot run so (the same on every rank): why for
     * the refusal of --launch <name>, note for auto's account; by_auto: auto
     * asks, which also leaves a mode whose wait on a peer may not end */
    int (*fits)(const cg_launch_where_t *where, int by_auto, char *why, size_t why_bytes,
                char *note, size_t note_bytes);
    /* the solve after its start (cg_start): 0 or the host's status; NULL for auto */
    int (*run)(const cg_args_t *args, void *stream, const cg_launch_host_t *host);
} cg_launch_mode_t;

/* Stream launches: iterations enqueued between looks at the stop. */
#define CG_STREAM_CHUNK 32

/* The entry of a mode, or NULL past the table. */
const cg_launch_mode_t *cg_launch_mode(cg_launch_t launch);
/* Its help phrase, or "?" past the table. */
const char *cg_launch_help(cg_launch_t launch);

/* The mode that runs where asked: asked itself, or (auto) the first mode on
 * from auto's fallback that fits and whose grid is resident, with auto's
 * account of it in note ("auto: ..."). 0 with *launch, *blocks, *most
 * (cg_grid); CG_LAUNCH_REFUSED with the message in why (the mode asked
 * cannot run here); or a runtime code, what was being done in why. */
#define CG_LAUNCH_REFUSED (-3)
int cg_launch_choose(const cg_launch_where_t *where, cg_launch_t asked, cg_launch_t *launch,
                     int *blocks, int *most, char *note, size_t note_bytes, char *why,
                     size_t why_bytes);

#ifdef __cplusplus
}
#endif

#endif /* CG_LAUNCH_H */
