# ShardtabHip.cmake - enables CMake's HIP language for AMD GPUs, on a ROCm
# install (/opt/rocm) or on Debian's packaged ROCm (hip-lang under the multiarch
# cmake folder, which CMake 3.25 does not look in).
#   out: SHARDTAB_GPU_HOST_LIBS, SHARDTAB_GPU_DEFINES, CMAKE_HIP_ARCHITECTURES,
#        SHARDTAB_HIP_MI300
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
if(NOT DEFINED CMAKE_HIP_COMPILER AND "$ENV{HIPCXX}" STREQUAL "")
  # CMake drives clang directly; it refuses the hipcc wrapper.
  find_program(SHARDTAB_HIP_COMPILER NAMES amdclang++ clang++-15 clang++-16 clang++-17 clang++
               HINTS $ENV{ROCM_PATH}/llvm/bin /opt/rocm/llvm/bin)
  if(NOT SHARDTAB_HIP_COMPILER)
    message(FATAL_ERROR "SHARDTAB_BACKEND=hip: no HIP-capable clang++ found "
                        "(Debian: apt-get install hipcc libamdhip64-dev rocm-device-libs)")
  endif()
  set(CMAKE_HIP_COMPILER "${SHARDTAB_HIP_COMPILER}" CACHE FILEPATH "HIP compiler")
endif()

if(NOT DEFINED CMAKE_HIP_COMPILER_ROCM_ROOT)
  find_path(SHARDTAB_HIP_LANG_DIR hip-lang-config.cmake
            PATHS $ENV{ROCM_PATH} /opt/rocm /usr
            PATH_SUFFIXES lib/cmake/hip-lang lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/hip-lang
                          lib/x86_64-linux-gnu/cmake/hip-lang
            NO_DEFAULT_PATH)
  if(NOT SHARDTAB_HIP_LANG_DIR)
    message(FATAL_ERROR "SHARDTAB_BACKEND=hip: hip-lang-config.cmake not found "
                        "(install ROCm, or Debian's libamdhip64-dev)")
  endif()
  get_filename_component(_cmake_dir "${SHARDTAB_HIP_LANG_DIR}" DIRECTORY)
  get_filename_component(_lib_dir "${_cmake_dir}" DIRECTORY)
  if(_lib_dir MATCHES "/lib$")
    get_filename_component(_rocm_root "${_lib_dir}" DIRECTORY)
  else()
    # Multiarch layout: give CMake a root whose lib/cmake links to every package.
    set(_rocm_root "${CMAKE_BINARY_DIR}/rocm-root")
    file(MAKE_DIRECTORY "${_rocm_root}/lib/cmake")
    file(GLOB _packages LIST_DIRECTORIES true "${_cmake_dir}/*")
    foreach(_package IN LISTS _packages)
      get_filename_component(_name "${_package}" NAME)
      if(IS_DIRECTORY "${_package}" AND NOT EXISTS "${_rocm_root}/lib/cmake/${_name}")
        file(CREATE_LINK "${_package}" "${_rocm_root}/lib/cmake/${_name}" SYMBOLIC)
      endif()
    endforeach()
  endif()
  set(CMAKE_HIP_COMPILER_ROCM_ROOT "${_rocm_root}" CACHE PATH "ROCm root as CMake's HIP support sees it")
endif()
# hip-lang's config looks for amd_comgr inside CMake's own try_compile projects,
# which inherit only the environment. (An environment list is ':'-separated.)
set(ENV{CMAKE_PREFIX_PATH} "${CMAKE_HIP_COMPILER_ROCM_ROOT}:$ENV{CMAKE_PREFIX_PATH}")

if(NOT DEFINED CMAKE_HIP_FLAGS AND "$ENV{HIPFLAGS}" STREQUAL "" AND NOT EXISTS /opt/rocm)
  find_path(SHARDTAB_ROCM_BITCODE ockl.bc
            PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode
                  /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /usr/lib/amdgcn/bitcode
            NO_DEFAULT_PATH)
  set(CMAKE_HIP_FLAGS_INIT "--rocm-path=/usr --rocm-device-lib-path=${SHARDTAB_ROCM_BITCODE}")
endif()

# gfx90a is the MI250X (Frontier), gfx908 the MI100, gfx942 the MI300X/MI300A.
# gfx940 code objects do not load on MI300X/MI300A, so it is never a stand-in:
# gfx942 is built where the compiler knows it (clang >= 17, ROCm >= 5.7), else
# the configuration says MI300 is not built. Override at will.
#   out: SHARDTAB_HIP_MI300 (a line for the summary)
function(shardtab_hip_knows_target target out)
  file(WRITE "${CMAKE_BINARY_DIR}/shardtab-target-probe.c" "int probe(void) { return 0; }\n")
  execute_process(COMMAND "${CMAKE_HIP_COMPILER}" --target=amdgcn-amd-amdhsa -nogpulib
                          -mcpu=${target} -x c -c "${CMAKE_BINARY_DIR}/shardtab-target-probe.c"
                          -o "${CMAKE_BINARY_DIR}/shardtab-target-probe.o"
                  RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
  if(_rc EQUAL 0)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()
if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)
  shardtab_hip_knows_target(gfx942 _knows_gfx942)
  if(_knows_gfx942)
    set(_archs "gfx90a;gfx908;gfx942")
    set(SHARDTAB_HIP_MI300 "built (gfx942)")
  else()
    set(_archs "gfx90a;gfx908")
    set(SHARDTAB_HIP_MI300 "NOT built: ${CMAKE_HIP_COMPILER} does not know gfx942 (clang >= 17 does)")
    message(STATUS "shardtab: MI300 (gfx942) is not built: ${CMAKE_HIP_COMPILER} does not know that target")
  endif()
  set(CMAKE_HIP_ARCHITECTURES "${_archs}" CACHE STRING "AMD GPU targets")
elseif(CMAKE_HIP_ARCHITECTURES MATCHES "gfx942")
  set(SHARDTAB_HIP_MI300 "built (gfx942, asked)")
else()
  set(SHARDTAB_HIP_MI300 "not asked for (CMAKE_HIP_ARCHITECTURES)")
endif()

enable_language(CXX)
enable_language(HIP)
find_package(hip REQUIRED CONFIG)   # hip::host: __HIP_PLATFORM_AMD__ and libamdhip64
set(SHARDTAB_GPU_HOST_LIBS hip::host)
set(SHARDTAB_GPU_DEFINES SHARDTAB_GPU_IS_HIP)
