# ShardtabInstall.cmake - what `cmake --install` puts in place for other MPI+HIP
# programs: libshardtab.so.1 and libshardtab.a, their public headers, a CMake package
# (find_package(shardtab): shardtab::shardtab the shared library, shardtab::static the
# static one, shardtab::fortran with the module), pkg-config files (shardtab,
# shardtab-fortran: the shared library, --static the static one), the license and the
# changelog. The API reference: cmake/ShardtabDocs.cmake; the Python package:
# cmake/ShardtabPython.cmake.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
include(CMakePackageConfigHelpers)

set(SHARDTAB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/shardtab)
if(SHARDTAB_BUILD_STATIC)
  install(TARGETS shardtab EXPORT shardtabTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(SHARDTAB_BUILD_SHARED)
  # it keeps the paths it was linked against (MPI, the GPU runtime)
  set_target_properties(shardtab_shared PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
  install(TARGETS shardtab_shared EXPORT shardtabTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development)
endif()
install(FILES ${CMAKE_BINARY_DIR}/include/shardtab_version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES LICENSE CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
if(SHARDTAB_HAVE_FORTRAN)
  # libshardtab_fortran (shardtab::fortran) and its module file
  install(TARGETS shardtab_fortran EXPORT shardtabTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${CMAKE_BINARY_DIR}/fortran-modules/shardtab.mod
          DESTINATION ${SHARDTAB_FORTRAN_MODDIR})
endif()
install(FILES include/shardtab.h include/shardtab_device.h include/shardtab_comm.h
              include/shardtab_types.h include/shardtab_halo.h include/shardtab_halo_device.h
              include/shardtab_faces.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# what the public headers include (the per-architecture primitives, the
# collectives' handle and steps): users' kernels compile them, though they
# include only the headers above
install(FILES include/shardtab/arch_cuda.h include/shardtab/arch_hip.h
              include/shardtab/arch_gpu.h include/shardtab/arch_host.h include/shardtab/bits.h
              include/shardtab/comm_types.h include/shardtab/comm_detail.h
              include/shardtab/comm_steps.h include/shardtab/exact.h
              include/shardtab/halo_types.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/shardtab)
install(TARGETS multi_scal jacobi cg coll_bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT shardtabTargets NAMESPACE shardtab:: DESTINATION ${SHARDTAB_CMAKE_DIR})

configure_package_config_file(cmake/shardtabConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/shardtabConfig.cmake INSTALL_DESTINATION ${SHARDTAB_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/shardtabConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/shardtabConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/shardtabConfigVersion.cmake
        DESTINATION ${SHARDTAB_CMAKE_DIR})

# pkg-config: the GPU runtime a static libshardtab needs at link time
set(SHARDTAB_PC_LIBS "")
if(SHARDTAB_RESOLVED_BACKEND STREQUAL "hip")
  set(SHARDTAB_PC_LIBS "-lamdhip64")
elseif(SHARDTAB_RESOLVED_BACKEND STREQUAL "cuda")
  set(SHARDTAB_PC_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lcudart")
endif()
# relative to the .pc file, so that `cmake --install --prefix` elsewhere works
file(RELATIVE_PATH SHARDTAB_PC_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
configure_file(cmake/shardtab.pc.in ${CMAKE_CURRENT_BINARY_DIR}/shardtab.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/shardtab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(SHARDTAB_HAVE_FORTRAN)
  configure_file(cmake/shardtab-fortran.pc.in ${CMAKE_CURRENT_BINARY_DIR}/shardtab-fortran.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/shardtab-fortran.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
