/* jacobi_launch.h - the jacobi program's launch modes as one table: one enum
 * (auto included), and one entry a mode with its name, its line of --launch's
 * usage, what the program says of it, where it falls back to when refused,
 * and the plan's hooks that fit, size, run and release it. jacobi_plan.c
 * holds the table, chooses among its entries and calls the hooks
 * (jacobi_plan.h); every name the program reads or writes (--launch, its
 * usage, the reports) is the table's. A new mode is a value here, a row of
 * the table, and its pair of files (jacobi_<mode>.hip, jacobi_<mode>_host.c,
 * their stem in CMakeLists.txt's jacobi_kernels) with their hooks
 * (jacobi_hooks.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_LAUNCH_H
#define JACOBI_LAUNCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jacobi_launch {
    JACOBI_LAUNCH_AUTO = 0,   /* --launch auto: the program picks one by measurement */
    JACOBI_LAUNCH_PERSISTENT, /* one cooperative launch runs the whole solve */
    JACOBI_LAUNCH_GRAPH,      /* captured graphs of launches, replayed */
    JACOBI_LAUNCH_STREAM,     /* one launch call per iteration */
    JACOBI_LAUNCH_ONCHIP,     /* one launch, each tile's rows kept on chip */
    JACOBI_LAUNCH_TEMPORAL,   /* a launch a pass of several iterations (temporal blocking) */
    JACOBI_LAUNCH_COUNT
} jacobi_launch_t;

typedef struct jacobi_plan jacobi_plan_t;

/* A plan's answer where its mode cannot run here (a hook's size, or the
 * mode's fits): jacobi_plan_create returns it, the reason in why. */
#define JACOBI_PLAN_NOT_RESIDENT (-2)

/* The plan's hooks of a mode, each NULL where the mode has nothing to do.
 * fits: 0, or 1 with why (this rank's problem cannot run so, whatever the
 * device); size: the plan sized for the device and allocated (0,
 * JACOBI_PLAN_NOT_RESIDENT with why, or a runtime code); run: up to count
 * steps enqueued; release: what size allocated, freed (also after a size
 * that failed half way). */
typedef struct jacobi_launch_hooks {
    int (*fits)(const jacobi_plan_t *plan, char *why, size_t why_bytes);
    int (*size)(jacobi_plan_t *plan, char *why, size_t why_bytes);
    int (*run)(jacobi_plan_t *plan, int count);
    void (*release)(jacobi_plan_t *plan);
} jacobi_launch_hooks_t;

/* Where a mode's plan is refused: the mode that runs instead (AUTO:
 * nothing), and the launch note's words for that, "<refused> (why):
 * <instead> instead". */
typedef struct jacobi_launch_fallback {
    jacobi_launch_t to;
    const char *refused;
    const char *instead;
} jacobi_launch_fallback_t;

typedef struct jacobi_launch_mode {
    const char *name;  /* --launch's word, and the reports' */
    const char *help;  /* its line of --launch's usage */
    const char *how;   /* the header's account of its launches */
    int device_driven; /* 1: it needs a solve the device drives alone */
    int tiled;         /* 1: on-chip tiles or temporal passes (JACOBI_TEST_FAULT edge, lag) */
    jacobi_launch_fallback_t fallback; /* to, refused, instead */
    jacobi_launch_hooks_t plan;        /* fits, size, run, release */
} jacobi_launch_mode_t;

/* The entry of a mode, or NULL past the table. */
const jacobi_launch_mode_t *jacobi_launch_mode(jacobi_launch_t launch);
/* Its name, or "?" past the table. */
const char *jacobi_launch_name(jacobi_launch_t launch);
/* Its line of --launch's usage, or "?" past the table. */
const char *jacobi_launch_help(jacobi_launch_t launch);

#ifdef __cplusplus
}
#endif

#endif /* JACOBI_LAUNCH_H */
