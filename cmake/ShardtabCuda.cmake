# ShardtabCuda.cmake - compiles the HIP sources as CUDA for NVIDIA GPUs, with
# src/platform/gpu_runtime.h mapping the HIP names they use onto the CUDA runtime
# (HIP's own NVIDIA headers do not compile against CUDA 13).
#   out: SHARDTAB_GPU_HOST_LIBS, SHARDTAB_GPU_DEFINES
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
if(NOT DEFINED CMAKE_CUDA_COMPILER AND "$ENV{CUDACXX}" STREQUAL "")
  find_program(SHARDTAB_NVCC nvcc HINTS $ENV{CUDA_PATH}/bin $ENV{CUDA_HOME}/bin /usr/local/cuda/bin)
  if(NOT SHARDTAB_NVCC)
    message(FATAL_ERROR "SHARDTAB_BACKEND=cuda: nvcc not found (set CUDACXX or put it on PATH)")
  endif()
  set(CMAKE_CUDA_COMPILER "${SHARDTAB_NVCC}" CACHE FILEPATH "CUDA compiler")
endif()
# sm_90: H100/H200, the validation machine. Override at will.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "NVIDIA GPU targets")
endif()
# One CUDA runtime in the process: the library binds the device with
# cudaSetDevice, and the kernels must launch through that same runtime state.
set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
enable_language(CXX)
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
set(SHARDTAB_GPU_HOST_LIBS CUDA::cudart)
set(SHARDTAB_GPU_DEFINES GPU_BACKEND_CUDA)
