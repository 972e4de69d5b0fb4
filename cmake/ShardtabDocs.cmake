# ShardtabDocs.cmake - the API reference: Doxygen over the public headers
# (docs/Doxyfile.in, main page docs/reference.md), HTML in <build>/docs/html, made by
# target doc and installed to <docdir>/html. SHARDTAB_BUILD_DOCS: auto builds it with
# the library when doxygen (1.9 or later) is found, ON requires it, OFF leaves it out
# of the build (target doc still makes it where doxygen is found). Warnings do not
# fail the build: tests/docs fails on them. Sets SHARDTAB_HAVE_DOCS, SHARDTAB_DOXYFILE
# (for the tests) and SHARDTAB_DOCS_DOXYGEN (for the summary).
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set(SHARDTAB_BUILD_DOCS "auto" CACHE STRING "API reference (Doxygen, HTML): auto, ON or OFF")
set_property(CACHE SHARDTAB_BUILD_DOCS PROPERTY STRINGS auto ON OFF)
if(NOT SHARDTAB_BUILD_DOCS MATCHES "^(auto|ON|OFF)$")
  message(FATAL_ERROR "SHARDTAB_BUILD_DOCS='${SHARDTAB_BUILD_DOCS}': expected auto, ON or OFF")
endif()
# 1.9: WARN_AS_ERROR=FAIL_ON_WARNINGS, which the check needs
find_package(Doxygen 1.9 QUIET)
set(SHARDTAB_HAVE_DOCS OFF)
set(SHARDTAB_DOCS_DOXYGEN "no doxygen 1.9 or later")
if(DOXYGEN_FOUND)
  set(SHARDTAB_DOCS_DOXYGEN "doxygen ${DOXYGEN_VERSION}")
endif()
if(SHARDTAB_BUILD_DOCS STREQUAL "ON" AND NOT DOXYGEN_FOUND)
  message(FATAL_ERROR "SHARDTAB_BUILD_DOCS=ON but no doxygen 1.9 or later was found "
                      "(Debian: apt-get install doxygen), "
                      "or configure with -DSHARDTAB_BUILD_DOCS=OFF")
elseif(SHARDTAB_BUILD_DOCS STREQUAL "auto" AND NOT DOXYGEN_FOUND)
  message(STATUS "doxygen 1.9 or later not found: the API reference is not built "
                 "(Debian: apt-get install doxygen)")
elseif(NOT SHARDTAB_BUILD_DOCS STREQUAL "OFF")
  set(SHARDTAB_HAVE_DOCS ON)
endif()

# configured whatever the option says: tests/docs checks the headers with it
set(SHARDTAB_DOCS_DIR ${CMAKE_BINARY_DIR}/docs)
set(SHARDTAB_DOXYFILE ${SHARDTAB_DOCS_DIR}/Doxyfile)
configure_file(docs/Doxyfile.in ${SHARDTAB_DOXYFILE} @ONLY)
# the build's own run: the same settings, but a warning leaves the pages made (a
# newer doxygen's new warning must not fail a user's build; docs.reference fails on it)
file(WRITE ${SHARDTAB_DOCS_DIR}/Doxyfile.build
     "@INCLUDE = \"${SHARDTAB_DOXYFILE}\"\nWARN_AS_ERROR = NO\n")

if(DOXYGEN_FOUND)
  set(_docs_index ${SHARDTAB_DOCS_DIR}/html/index.html)
  add_custom_command(OUTPUT ${_docs_index}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${SHARDTAB_DOCS_DIR}/html # no page of a header gone
    COMMAND Doxygen::doxygen ${SHARDTAB_DOCS_DIR}/Doxyfile.build
    DEPENDS ${SHARDTAB_DOXYFILE} docs/reference.md include/shardtab.h include/shardtab_device.h
            include/shardtab_comm.h include/shardtab/comm_types.h include/shardtab_types.h
            include/shardtab_halo.h include/shardtab_halo_device.h include/shardtab/halo_types.h
            include/shardtab_faces.h
            ${CMAKE_BINARY_DIR}/include/shardtab_version.h
    WORKING_DIRECTORY ${SHARDTAB_DOCS_DIR}
    COMMENT "API reference (Doxygen): ${SHARDTAB_DOCS_DIR}/html" VERBATIM)
  if(SHARDTAB_HAVE_DOCS)
    add_custom_target(doc ALL DEPENDS ${_docs_index})
    install(DIRECTORY ${SHARDTAB_DOCS_DIR}/html/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/html)
  else()
    add_custom_target(doc DEPENDS ${_docs_index})
  endif()
endif()
