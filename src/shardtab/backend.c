/* backend.c - which backend this process speaks to: the backends this build
 * has, their names, and st_backend, the one accessor every file of the
 * library asks (backend.h). Below runtime.c, which chooses at shardtab_init. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "backend.h"

/* Every backend this build knows, indexed by kind; a hole means "not built in". */
static const st_backend_ops_t *const backends[SHARDTAB_BACKEND_COUNT] = {
    [SHARDTAB_BACKEND_HOST] = &st_backend_host_ops,
#if defined(SHARDTAB_WITH_GPU) && defined(SHARDTAB_GPU_IS_HIP)
    [SHARDTAB_BACKEND_HIP] = &st_backend_gpu_ops,
#elif defined(SHARDTAB_WITH_GPU)
    [SHARDTAB_BACKEND_CUDA] = &st_backend_gpu_ops,
#endif
};

#if defined(SHARDTAB_WITH_GPU) && defined(SHARDTAB_GPU_IS_HIP)
#  define ST_BUILD_BACKEND SHARDTAB_BACKEND_HIP
#elif defined(SHARDTAB_WITH_GPU)
#  define ST_BUILD_BACKEND SHARDTAB_BACKEND_CUDA
#else
#  define ST_BUILD_BACKEND SHARDTAB_BACKEND_HOST
#endif

static const char *const backend_names[SHARDTAB_BACKEND_COUNT] = {
    [SHARDTAB_BACKEND_HOST] = "host",
    [SHARDTAB_BACKEND_HIP] = "hip",
    [SHARDTAB_BACKEND_CUDA] = "cuda",
};

/* The ops st_backend answers: NULL until shardtab_init chooses. */
static const st_backend_ops_t *in_use;

const char *shardtab_backend_name(shardtab_backend_t backend)
{
    return (unsigned)backend < SHARDTAB_BACKEND_COUNT ? backend_names[backend] : "unknown";
}

shardtab_backend_t shardtab_backend(void)
{
    return ST_BUILD_BACKEND;
}

const st_backend_ops_t *st_backend_of(shardtab_backend_t kind)
{
    return (unsigned)kind < SHARDTAB_BACKEND_COUNT ? backends[kind] : NULL;
}

void st_backend_use(const st_backend_ops_t *ops)
{
    in_use = ops;
}

const st_backend_ops_t *st_backend(void)
{
    return in_use;
}
