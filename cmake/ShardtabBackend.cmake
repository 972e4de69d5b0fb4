# ShardtabBackend.cmake - resolves SHARDTAB_BACKEND=auto to the backend this
# machine can run, and says why: a GPU backend when a GPU and its compiler are
# both here, else the host backend.
#   out: SHARDTAB_RESOLVED_BACKEND (hip | cuda | host), SHARDTAB_BACKEND_REASON
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
if(NOT SHARDTAB_BACKEND STREQUAL "auto")
  set(SHARDTAB_RESOLVED_BACKEND "${SHARDTAB_BACKEND}")
  set(SHARDTAB_BACKEND_REASON "chosen with -DSHARDTAB_BACKEND=${SHARDTAB_BACKEND}")
  return()
endif()

find_program(SHARDTAB_NVIDIA_SMI nvidia-smi)
find_program(SHARDTAB_NVCC nvcc HINTS $ENV{CUDA_PATH}/bin $ENV{CUDA_HOME}/bin /usr/local/cuda/bin)
find_program(SHARDTAB_ROCMINFO rocminfo HINTS $ENV{ROCM_PATH}/bin /opt/rocm/bin)
find_program(SHARDTAB_HIP_CLANG NAMES amdclang++ clang++-15 clang++-16 clang++-17
             HINTS $ENV{ROCM_PATH}/llvm/bin /opt/rocm/llvm/bin)

set(_nvidia_gpu FALSE)
if(SHARDTAB_NVIDIA_SMI)
  execute_process(COMMAND ${SHARDTAB_NVIDIA_SMI} -L OUTPUT_VARIABLE _smi RESULT_VARIABLE _rc
                  ERROR_QUIET TIMEOUT 20)
  if(_rc EQUAL 0 AND _smi MATCHES "GPU 0")
    set(_nvidia_gpu TRUE)
  endif()
endif()
set(_amd_gpu FALSE)
if(SHARDTAB_ROCMINFO AND EXISTS /dev/kfd)
  execute_process(COMMAND ${SHARDTAB_ROCMINFO} OUTPUT_VARIABLE _rocm RESULT_VARIABLE _rc
                  ERROR_QUIET TIMEOUT 20)
  if(_rc EQUAL 0 AND _rocm MATCHES "gfx[0-9a-f]+")
    set(_amd_gpu TRUE)
  endif()
endif()

if(_amd_gpu AND SHARDTAB_HIP_CLANG)
  set(SHARDTAB_RESOLVED_BACKEND hip)
  set(SHARDTAB_BACKEND_REASON "auto: an AMD GPU answers rocminfo and ${SHARDTAB_HIP_CLANG} compiles HIP")
elseif(_nvidia_gpu AND SHARDTAB_NVCC)
  set(SHARDTAB_RESOLVED_BACKEND cuda)
  set(SHARDTAB_BACKEND_REASON "auto: an NVIDIA GPU answers nvidia-smi and ${SHARDTAB_NVCC} compiles CUDA")
elseif(_amd_gpu OR _nvidia_gpu)
  set(SHARDTAB_RESOLVED_BACKEND host)
  set(SHARDTAB_BACKEND_REASON "auto: a GPU is here but no compiler for it (install ROCm's clang or CUDA's nvcc)")
else()
  set(SHARDTAB_RESOLVED_BACKEND host)
  set(SHARDTAB_BACKEND_REASON "auto: no GPU answers nvidia-smi or rocminfo on this machine")
endif()
