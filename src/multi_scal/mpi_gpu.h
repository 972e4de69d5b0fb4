/* mpi_gpu.h - does the MPI library accept GPU buffers? Reported in the header
 * only: multi_scal stages its verification through the host either way. */
#ifndef MS_MPI_GPU_H
#define MS_MPI_GPU_H

#include <stddef.h>

/* One line such as "Open MPI 4.1.6, CUDA-aware: yes (build and run time)". */
void ms_mpi_gpu_support(char *line, size_t bytes);

#endif /* MS_MPI_GPU_H */
