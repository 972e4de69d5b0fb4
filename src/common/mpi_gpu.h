/* mpi_gpu.h - does the MPI library accept GPU buffers? Asked through the query
 * each implementation offers; shared by the project's programs. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef APP_MPI_GPU_H
#define APP_MPI_GPU_H

#include <stddef.h>

/* One line such as "Open MPI v4.1.6; CUDA-aware: no (built yes)". */
void app_mpi_gpu_support(char *line, size_t bytes);
/* 1 when the MPI library says at run time that it takes device buffers of the
 * given backend ("cuda" or "hip"), else 0. */
int app_mpi_gpu_aware(const char *backend);

#endif /* APP_MPI_GPU_H */
