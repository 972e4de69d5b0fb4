# ShardtabInstall.cmake - what `cmake --install` puts in place for other MPI+HIP
# programs: libshardtab, its public header, a CMake package (find_package(shardtab),
# target shardtab::shardtab) and a pkg-config file.
include(CMakePackageConfigHelpers)

set(SHARDTAB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/shardtab)
install(TARGETS shardtab EXPORT shardtabTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/shardtab.h include/shardtab_device.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS multi_scal RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
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
