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
# NOMINSIZE: nanobind builds for size (-Os) by default; the call path is
# hot, and -O3 takes ~10% fewer instructions per call (callgrind).
nanobind_add_module(tvmffi_python_core NB_STATIC NOMINSIZE
  ${CMAKE_CURRENT_LIST_DIR}/../src/core.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/bindings.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/objects.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/errors.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/functions.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/tensors.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/call.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/cells.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/classify.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/dlpack.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/readonly.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/export.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/allocators.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/to_ffi.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/to_python.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/lent.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/reflection.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/autograd.cc
  ${CMAKE_CURRENT_LIST_DIR}/../src/exit_guard.cc)
target_link_libraries(tvmffi_python_core PRIVATE tvmffi::headers ${CMAKE_DL_LIBS})  # dlopen: shape functions
# tvmffi_internal/stack_bounds.h: private and header-only, shared with the runtime.
target_link_libraries(tvmffi_python_core PRIVATE tvmffi::internal)
tvmffi_add_warnings(tvmffi_python_core)
set_target_properties(tvmffi_python_core PROPERTIES OUTPUT_NAME _core)
# Not linked, but shipped next to _core: build it with the extension.
add_dependencies(tvmffi_python_core tvmffi)

# The package's Python sources, and C++ sources compiled at run time (explicit
# list, paths relative to the package).
set(TVMFFI_PYTHON_SOURCES
  __init__.py
  _abi.py
  _cell.py
  _cli.py
  _device_type.py
  _dtype.py
  _dunder.py
  _error.py
  _ffi_api.py
  _ffi_values.py
  _framework.py
  _jax_handler.cc
  _lockfile.py
  _optional_torch_c_dlpack.py
  _pyclass.py
  _reflection.py
  _registry_ext.py
  _runtime.py
  _schema_convert.py
  _type_schema.py
  _typeinfo.py
  _values.py
  access_path.py
  allocator.py
  config.py
  container.py
  core.py
  error.py
  cpp/__init__.py
  cpp/dtype.py
  cpp/extension.py
  cpp/nvrtc.py
  jax.py
  libinfo.py
  module.py
  registry.py
  serialization.py
  stream.py
  structural.py
  stub/__init__.py
  stub/__main__.py
  stub/cli.py
  stub/consts.py
  stub/file_utils.py
  stub/generator.py
  stub/python_generator/__init__.py
  stub/python_generator/codegen.py
  stub/python_generator/consts.py
  stub/python_generator/utils.py
  stub/rust_generator/__init__.py
  stub/rust_generator/codegen.py
  stub/rust_generator/consts.py
  stub/rust_generator/directives.py
  stub/rust_generator/utils.py
  stub/layout.py
  stub/lib_state.py
  stub/utils.py
  testing.py
  shape_function.py
  _jax_shape.py
  torch.py
  dataclasses/__init__.py
  dataclasses/_resolve_fields.py
  dataclasses/c_class.py
  dataclasses/common.py
  dataclasses/enum.py
  dataclasses/field.py
  dataclasses/gen_abi_cpp.py
  dataclasses/py_class.py
  utils/__init__.py
  utils/_build_optional_torch_c_dlpack.py
  utils/embed_cubin.py
  utils/kwargs_wrapper.py
  utils/lockfile.py
  utils/unpack_dataclass.py
  py.typed)
# The list is explicit, and must be whole: the wheel ships the folder as it is
# (wheel.packages), the build tree only what is listed here.
file(GLOB_RECURSE _tvmffi_py_found RELATIVE "${CMAKE_CURRENT_LIST_DIR}/../tvmffi"
     CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/../tvmffi/*.py"
     "${CMAKE_CURRENT_LIST_DIR}/../tvmffi/*.cc"  # sources compiled at run time (tvmffi.jax)
     "${CMAKE_CURRENT_LIST_DIR}/../tvmffi/py.typed")
set(_tvmffi_py_listed ${TVMFFI_PYTHON_SOURCES})
list(SORT _tvmffi_py_found)
list(SORT _tvmffi_py_listed)
if(NOT _tvmffi_py_found STREQUAL _tvmffi_py_listed)
  message(FATAL_ERROR "TVMFFI_PYTHON_SOURCES (python/cmake/tvmffi_python.cmake) differs from "
                      "the files of python/tvmffi:\n listed: ${_tvmffi_py_listed}\n found:  "
                      "${_tvmffi_py_found}")
endif()

# tvmffi._torch_exchange (optional): the DLPack C exchange API for a torch that
# has none (torch < 2.10), built against that torch's C++ headers (Debian:
# libtorch-dev). AUTO builds it when torch lacks the API and the headers exist.
set(TVMFFI_TORCH_EXCHANGE AUTO CACHE STRING "Build tvmffi._torch_exchange: AUTO, ON or OFF")
set(TVMFFI_TORCH_EXCHANGE_TARGET "")
set(TVMFFI_TORCH_EXCHANGE_FOR "")
if(NOT TVMFFI_TORCH_EXCHANGE STREQUAL "OFF")
  execute_process(COMMAND "${Python_EXECUTABLE}" -c
    "import os, torch; d = os.path.dirname(torch.__file__); print(';'.join([torch.__version__, str(int(hasattr(torch.Tensor, '__dlpack_c_exchange_api__'))), str(int(torch._C._GLIBCXX_USE_CXX11_ABI)), os.path.join(d, 'include'), os.path.join(d, 'lib')]))"
    OUTPUT_VARIABLE _torch_info RESULT_VARIABLE _torch_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(_torch_ok FALSE)
  if(_torch_rc EQUAL 0)
    list(GET _torch_info 0 _torch_version)
    list(GET _torch_info 1 _torch_has_api)
    list(GET _torch_info 2 _torch_abi)
    list(GET _torch_info 3 _torch_inc)
    list(GET _torch_info 4 _torch_lib)
    if(_torch_has_api EQUAL 0 AND EXISTS "${_torch_inc}/ATen/DLConvertor.h")
      set(_torch_ok TRUE)
    endif()
  endif()
  if(_torch_ok)
    message(STATUS "tvmffi Python: tvmffi._torch_exchange for torch ${_torch_version}")
    Python_add_library(tvmffi_torch_exchange MODULE WITH_SOABI
      ${CMAKE_CURRENT_LIST_DIR}/../src/torch_exchange.cc)
    target_include_directories(tvmffi_torch_exchange SYSTEM PRIVATE "${_torch_inc}")
  # tvmffi::headers brings the DLPack header (dlpack::dlpack is not visible from python/).
  target_link_libraries(tvmffi_torch_exchange PRIVATE tvmffi::headers
      "${_torch_lib}/libtorch_python.so" "${_torch_lib}/libtorch_cpu.so" "${_torch_lib}/libc10.so")
    target_compile_definitions(tvmffi_torch_exchange PRIVATE
      TVMFFI_TORCH_VERSION="${_torch_version}" _GLIBCXX_USE_CXX11_ABI=${_torch_abi})
    tvmffi_add_warnings(tvmffi_torch_exchange)
    set_target_properties(tvmffi_torch_exchange PROPERTIES OUTPUT_NAME _torch_exchange
      CXX_VISIBILITY_PRESET hidden)
    set(TVMFFI_TORCH_EXCHANGE_TARGET tvmffi_torch_exchange)
    # The torch it is for, readable without loading it: loading it beside
    # another torch's libraries may abort the process.
    set(TVMFFI_TORCH_EXCHANGE_FOR "${CMAKE_CURRENT_BINARY_DIR}/_torch_exchange_for.py")
    file(WRITE "${TVMFFI_TORCH_EXCHANGE_FOR}"
      "\"\"\"The torch tvmffi._torch_exchange was built for (written by CMake).\"\"\"\n\n"
      "TORCH_VERSION = \"${_torch_version}\"\n")
  elseif(TVMFFI_TORCH_EXCHANGE STREQUAL "ON")
    message(FATAL_ERROR "TVMFFI_TORCH_EXCHANGE=ON: needs a torch without __dlpack_c_exchange_api__ "
                        "and its C++ headers (ATen/DLConvertor.h)")
  else()
    message(STATUS "tvmffi Python: no tvmffi._torch_exchange (torch has the exchange API, or no "
                   "torch / C++ headers)")
  endif()
endif()
