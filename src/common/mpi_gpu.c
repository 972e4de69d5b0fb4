/* mpi_gpu.c - asks the MPI library whether it is GPU-aware, through the query
 * each implementation offers where it exists: Open MPI's MPIX_Query_cuda_support
 * and MPIX_Query_rocm_support (mpi-ext.h), MPICH's MPIX_GPU_query_support.
 * Shared by multi_scal (its header line) and jacobi (which passes device
 * buffers to MPI only when the library says it takes them). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "mpi_gpu.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#  include <mpi-ext.h>
#endif

static const char *yes_no(int v)
{
    return v ? "yes" : "no";
}

void app_mpi_gpu_support(char *line, size_t bytes)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    size_t used;
    int len = 0;

    MPI_Get_library_version(version, &len);
    version[strcspn(version, ",\n")] = '\0';
    used = (size_t)snprintf(line, bytes, "%s;", version);
    if (used >= bytes)
        return;
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    used += (size_t)snprintf(line + used, bytes - used, " CUDA-aware: %s (built %s)",
                             yes_no(MPIX_Query_cuda_support()), yes_no(MPIX_CUDA_AWARE_SUPPORT));
#endif
#if defined(MPIX_ROCM_AWARE_SUPPORT)
    used += (size_t)snprintf(line + used, bytes - used, " ROCm-aware: %s (built %s)",
                             yes_no(MPIX_Query_rocm_support()), yes_no(MPIX_ROCM_AWARE_SUPPORT));
#endif
#if defined(MPIX_GPU_SUPPORT_CUDA) && defined(MPIX_GPU_SUPPORT_HIP)
    {
        int cuda = 0, hip = 0;
        MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &cuda);
        MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &hip);
        used += (size_t)snprintf(line + used, bytes - used, " GPU support: CUDA %s, HIP %s",
                                 yes_no(cuda), yes_no(hip));
    }
#endif
    if (used < bytes && line[used - 1] == ';')
        snprintf(line + used, bytes - used, " GPU-awareness: no query available");
    (void)yes_no;
}

int app_mpi_gpu_aware(const char *backend)
{
    int aware = 0;

    (void)backend;
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    if (strcmp(backend, "cuda") == 0)
        aware = MPIX_Query_cuda_support();
#endif
#if defined(MPIX_ROCM_AWARE_SUPPORT)
    if (strcmp(backend, "hip") == 0)
        aware = MPIX_Query_rocm_support();
#endif
#if defined(MPIX_GPU_SUPPORT_CUDA) && defined(MPIX_GPU_SUPPORT_HIP)
    MPIX_GPU_query_support(
        strcmp(backend, "hip") == 0 ? MPIX_GPU_SUPPORT_HIP : MPIX_GPU_SUPPORT_CUDA, &aware);
#endif
    return aware != 0;
}
