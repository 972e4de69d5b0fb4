#!/bin/bash
# build.sh - builds multi_scal, jacobi and cg for Frontier (MI250X, gfx90a) with the Cray compiler wrappers and GPU-aware Cray MPICH.
#
# Usage: jobs/frontier/build.sh [BUILD_DIR]     (default: <repo>/build-frontier)
#   Run on a login node. The batch scripts look for BUILD_DIR/multi_scal, BUILD_DIR/jacobi and BUILD_DIR/cg.
#
# Environment (all optional):
#   SHARDTAB_PRGENV       programming environment module (default PrgEnv-cray; PrgEnv-amd also works)
#   SHARDTAB_ROCM_MODULE  ROCm module, with a version if you need one (default rocm, e.g. rocm/6.2.4)
#   SHARDTAB_HIP_ARCH     GPU target (default gfx90a: the MI250X GCD)
#   SHARDTAB_BUILD_TYPE   CMake build type (default Release)
#
# Notes:
#   - craype-accel-amd-gfx90a makes the wrappers GPU-aware; the GTL library
#     (libmpi_gtl_hsa) is added to the link explicitly as well, since without it
#     Cray MPICH aborts at MPI_Init when MPICH_GPU_SUPPORT_ENABLED=1.
#   - MPICH_GPU_SUPPORT_ENABLED=1 is a run-time setting: the batch scripts export
#     it. multi_scal passes no GPU buffers to MPI (verification is host-staged),
#     so it is set for the GPU-awareness line of the output, not for correctness.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${1:-$repo/build-frontier}
prgenv=${SHARDTAB_PRGENV:-PrgEnv-cray}
rocm_module=${SHARDTAB_ROCM_MODULE:-rocm}
hip_arch=${SHARDTAB_HIP_ARCH:-gfx90a}
build_type=${SHARDTAB_BUILD_TYPE:-Release}

if ! command -v module >/dev/null 2>&1; then
  echo "build.sh: no 'module' command: run this on a Frontier login node (a login shell sets up Lmod)" >&2
  exit 1
fi

# ---- environment: the modules the OLCF user guide names for HIP + MPI ----------
module load "$prgenv"
module load craype-accel-amd-gfx90a
module load "$rocm_module"
module load cmake
export MPICH_GPU_SUPPORT_ENABLED=1

# The GTL variables come from the cray-mpich module; fail early if it is missing.
gtl_dir=${PE_MPICH_GTL_DIR_amd_gfx90a:-}
gtl_libs=${PE_MPICH_GTL_LIBS_amd_gfx90a:-}
if [[ -z $gtl_dir || -z $gtl_libs ]]; then
  echo "build.sh: PE_MPICH_GTL_DIR_amd_gfx90a / PE_MPICH_GTL_LIBS_amd_gfx90a are unset:" \
       "is cray-mpich loaded (module list)?" >&2
  exit 1
fi

# ---- configure and build ------------------------------------------------------
# CC=cc: the Cray wrapper brings MPI without flags; CMake's FindMPI accepts it.
# The HIP kernels are compiled by ROCm's clang (cmake/ShardtabHip.cmake finds it
# through ROCM_PATH, which the rocm module sets).
CC=cc cmake -S "$repo" -B "$build_dir" \
  -DSHARDTAB_BACKEND=hip \
  -DCMAKE_HIP_ARCHITECTURES="$hip_arch" \
  -DCMAKE_BUILD_TYPE="$build_type" \
  -DSHARDTAB_BUILD_TESTS=OFF -DSHARDTAB_TEST_HOOKS=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="$gtl_dir $gtl_libs"
cmake --build "$build_dir" -j 8

echo "build.sh: built $build_dir/multi_scal, $build_dir/jacobi and $build_dir/cg"
echo "build.sh: next: sbatch -A <project> jobs/frontier/single-node.sbatch   (from $repo)"
