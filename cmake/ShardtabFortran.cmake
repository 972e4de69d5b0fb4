# ShardtabFortran.cmake - the Fortran front (src/fortran/shardtab.f90): module
# shardtab in libshardtab_fortran, target shardtab::fortran. SHARDTAB_FORTRAN:
# auto builds it when a Fortran compiler is found, on requires one, off skips it.
# Sets SHARDTAB_HAVE_FORTRAN, and SHARDTAB_HAVE_FORTRAN_MPI when MPI's Fortran
# bindings are found too (the example and its tests need them; the module does not).
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set(SHARDTAB_FORTRAN "auto" CACHE STRING "Fortran module: auto, on or off")
set_property(CACHE SHARDTAB_FORTRAN PROPERTY STRINGS auto on off)
set(SHARDTAB_HAVE_FORTRAN OFF)
set(SHARDTAB_HAVE_FORTRAN_MPI OFF)
if(NOT SHARDTAB_FORTRAN MATCHES "^(auto|on|off)$")
  message(FATAL_ERROR "SHARDTAB_FORTRAN='${SHARDTAB_FORTRAN}': expected auto, on or off")
endif()
if(NOT SHARDTAB_FORTRAN STREQUAL "off")
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER)
    enable_language(Fortran)
    set(SHARDTAB_HAVE_FORTRAN ON)
  elseif(SHARDTAB_FORTRAN STREQUAL "on")
    message(FATAL_ERROR "SHARDTAB_FORTRAN=on but no Fortran compiler was found (apt install gfortran)")
  endif()
endif()

if(SHARDTAB_HAVE_FORTRAN)
  # .mod files are the compiler's own format: installed per compiler version
  set(SHARDTAB_FORTRAN_MODDIR
      ${CMAKE_INSTALL_INCLUDEDIR}/shardtab/fortran/${CMAKE_Fortran_COMPILER_ID}-${CMAKE_Fortran_COMPILER_VERSION})
  # libshardtab_fortran.so.1 over libshardtab.so.1 (SHARDTAB_BUILD_SHARED), else a
  # static library over libshardtab.a
  if(SHARDTAB_BUILD_SHARED)
    add_library(shardtab_fortran SHARED src/fortran/shardtab.f90)
    # $ORIGIN: libshardtab.so.1 lies beside it, wherever the prefix is
    set_target_properties(shardtab_fortran PROPERTIES VERSION ${PROJECT_VERSION}
                          SOVERSION ${PROJECT_VERSION_MAJOR} INSTALL_RPATH "$ORIGIN"
                          INSTALL_RPATH_USE_LINK_PATH TRUE)
    set(_fortran_c shardtab_shared)
  else()
    add_library(shardtab_fortran STATIC src/fortran/shardtab.f90)
    set(_fortran_c shardtab)
  endif()
  add_library(shardtab::fortran ALIAS shardtab_fortran)
  set_target_properties(shardtab_fortran PROPERTIES
    Fortran_MODULE_DIRECTORY ${CMAKE_BINARY_DIR}/fortran-modules
    POSITION_INDEPENDENT_CODE ON EXPORT_NAME fortran)
  target_include_directories(shardtab_fortran PUBLIC
    $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/fortran-modules>
    $<INSTALL_INTERFACE:${SHARDTAB_FORTRAN_MODDIR}>)
  target_compile_options(shardtab_fortran PRIVATE
    $<$<Fortran_COMPILER_ID:GNU>:-Wall -Wextra -std=f2018 -pedantic>)
  target_link_libraries(shardtab_fortran PUBLIC ${_fortran_c})
  # here, not in tests/: the install test needs the wrapper's path too
  find_package(MPI COMPONENTS Fortran)
  if(MPI_Fortran_FOUND)
    set(SHARDTAB_HAVE_FORTRAN_MPI ON)
  else()
    message(STATUS "MPI's Fortran bindings were not found: the Fortran example and its tests are not built")
  endif()
endif()
