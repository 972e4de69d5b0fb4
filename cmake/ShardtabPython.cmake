# ShardtabPython.cmake - the Python front (src/python/shardtab): installed into
# SHARDTAB_PYTHON_DIR under the prefix, where the prefix's python3 finds it:
# lib/python3.X/dist-packages on Debian and Ubuntu (what their python3 searches under
# /usr/local), lib/python3.X/site-packages elsewhere; it loads the prefix's
# libshardtab.so.1 (_installed.py, made here, says where, relative to the package). Sets SHARDTAB_HAVE_PYTHON (an interpreter was found: the tests run)
# and SHARDTAB_PYTHON_TEST_EXECUTABLE. Installed by pip instead: src/python/setup.py
# (the same package, libshardtab.so built by CMake inside it).
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
find_package(Python3 COMPONENTS Interpreter)
set(SHARDTAB_HAVE_PYTHON ${Python3_Interpreter_FOUND})

# The interpreter that matters: the first python3 that has mpi4py and NumPy
# (the one found, else the system's: a pyenv or venv python3 earlier on PATH
# may lack Debian's python3-mpi4py). The tests run it and the install
# directory is its own; without one the tests fail, saying so.
set(SHARDTAB_PYTHON_TEST_EXECUTABLE "")
foreach(_py ${Python3_EXECUTABLE} /usr/bin/python3)
  if(EXISTS "${_py}" AND SHARDTAB_PYTHON_TEST_EXECUTABLE STREQUAL "")
    execute_process(COMMAND ${_py} -c "import mpi4py, numpy" RESULT_VARIABLE _py_rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(_py_rc EQUAL 0)
      set(SHARDTAB_PYTHON_TEST_EXECUTABLE ${_py})
    endif()
  endif()
endforeach()
if(SHARDTAB_PYTHON_TEST_EXECUTABLE STREQUAL "" AND Python3_Interpreter_FOUND)
  set(SHARDTAB_PYTHON_TEST_EXECUTABLE ${Python3_EXECUTABLE})
  message(STATUS "no python3 here has mpi4py and NumPy: the Python tests will fail saying so "
                 "(apt install python3-mpi4py python3-numpy)")
endif()

set(_py_default ${CMAKE_INSTALL_LIBDIR}/python3/site-packages)
if(NOT SHARDTAB_PYTHON_TEST_EXECUTABLE STREQUAL "")
  execute_process(
    COMMAND ${SHARDTAB_PYTHON_TEST_EXECUTABLE} -c
      "import sys; v = '%d.%d' % sys.version_info[:2]; d = 'dist-packages' if any(p.endswith('dist-packages') for p in sys.path) else 'site-packages'; print('python' + v + '/' + d)"
    OUTPUT_VARIABLE _py_leaf OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _py_rc)
  if(_py_rc EQUAL 0)
    set(_py_default ${CMAKE_INSTALL_LIBDIR}/${_py_leaf})
  endif()
endif()
set(SHARDTAB_PYTHON_DIR "${_py_default}" CACHE STRING
    "Where the Python package goes, relative to the install prefix")

if(NOT SHARDTAB_BUILD_SHARED)
  set(SHARDTAB_HAVE_PYTHON OFF)
  message(STATUS "SHARDTAB_BUILD_SHARED=OFF: no Python front (it loads libshardtab.so)")
  return()
endif()
install(DIRECTORY src/python/shardtab DESTINATION ${SHARDTAB_PYTHON_DIR}
        FILES_MATCHING PATTERN "*.py")
# where the installed package finds the prefix's library: relative to itself, so that a
# prefix moved whole still works
file(RELATIVE_PATH _py_to_lib "/root/${SHARDTAB_PYTHON_DIR}/shardtab" "/root/${CMAKE_INSTALL_LIBDIR}")
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/python-installed/_installed.py CONTENT
  "\"\"\"_installed.py - made by cmake --install's project: where the prefix's libshardtab is,
relative to this package.\"\"\"\nLIBRARY = \"${_py_to_lib}/libshardtab.so.${PROJECT_VERSION_MAJOR}\"\n")
install(FILES ${CMAKE_BINARY_DIR}/python-installed/_installed.py
        DESTINATION ${SHARDTAB_PYTHON_DIR}/shardtab)
