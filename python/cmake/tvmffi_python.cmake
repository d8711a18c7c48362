# Defines tvmffi_python_core: the nanobind extension tvmffi._core.
#
# nanobind comes from, in order:
#   -DTVMFFI_NANOBIND_DIR=<dir>   a copy of nanobind's sources with its cmake/ folder (and
#                                 ext/robin_map/include), e.g. the one .ci/prepare-carry.sh
#                                 puts in .carry/nanobind for machines without nanobind;
#   `<python> -m nanobind --cmake_dir`, then Debian's /usr/share/nanobind/cmake.
# The interpreter is Python_EXECUTABLE; outside scikit-build-core it defaults to
# Debian's /usr/bin/python3 (the one Debian's nanobind, numpy and torch serve),
# not whichever python3 comes first on PATH.
set(TVMFFI_NANOBIND_DIR "" CACHE PATH "A nanobind source tree to build with (its cmake/ dir or root)")

if(NOT DEFINED SKBUILD AND NOT Python_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter for tvmffi._core")
endif()
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)

if(TVMFFI_NANOBIND_DIR)
  find_package(nanobind CONFIG REQUIRED PATHS "${TVMFFI_NANOBIND_DIR}" NO_DEFAULT_PATH)
else()
  execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
    OUTPUT_VARIABLE _tvmffi_nb_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  find_package(nanobind CONFIG REQUIRED HINTS "${_tvmffi_nb_dir}" /usr/share/nanobind/cmake)
endif()
message(STATUS "tvmffi Python: ${Python_EXECUTABLE} (${Python_VERSION}), nanobind ${nanobind_VERSION} in ${nanobind_DIR}")

# The extension does not link libtvmffi: tvmffi/__init__.py loads the runtime
# (by its path in the package) with RTLD_GLOBAL before importing _core.
nanobind_add_module(tvmffi_python_core NB_STATIC
  ${CMAKE_CURRENT_LIST_DIR}/../src/core.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/call.cc)
target_link_libraries(tvmffi_python_core PRIVATE tvmffi::headers)
set_target_properties(tvmffi_python_core PROPERTIES OUTPUT_NAME _core)

# The package's Python sources (explicit list).
set(TVMFFI_PYTHON_SOURCES
  __init__.py
  _dtype.py
  _error.py
  _framework.py
  container.py
  module.py
  registry.py
  stream.py
  py.typed)
list(TRANSFORM TVMFFI_PYTHON_SOURCES PREPEND "${CMAKE_CURRENT_LIST_DIR}/../tvmffi/"
     OUTPUT_VARIABLE TVMFFI_PYTHON_SOURCE_PATHS)
