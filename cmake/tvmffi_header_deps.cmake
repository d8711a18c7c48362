# Header-only dependencies (DLPack, nlohmann-json) in any build, cross builds
# included. A cross toolchain's sysroot (CMAKE_FIND_ROOT_PATH) rarely has them,
# yet headers that are the same for every target need not come from it: when
# one is not found for the target, the build machine's copy is copied into the
# build tree (<build>/host-headers) and used from there. Only those files are
# taken, never the build machine's whole /usr/include (its C library is
# another machine's).

# tvmffi_host_header(OUT HEADER [FOLDER]): OUT is set to an include folder
# holding HEADER (e.g. dlpack/dlpack.h), copied from the build machine, or to
# "" when the build machine has none. FOLDER: copy this folder (relative to
# the include folder) whole, for a library of many headers.
function(tvmffi_host_header out header)
  set(${out} "" PARENT_SCOPE)
  find_path(_tvmffi_host_dir ${header} NO_CMAKE_FIND_ROOT_PATH NO_CACHE)
  if(NOT _tvmffi_host_dir)
    return()
  endif()
  set(_dest "${PROJECT_BINARY_DIR}/host-headers")
  if(ARGC GREATER 2)
    file(COPY "${_tvmffi_host_dir}/${ARGV2}" DESTINATION "${_dest}")
  else()
    get_filename_component(_sub "${header}" DIRECTORY)
    file(COPY "${_tvmffi_host_dir}/${header}" DESTINATION "${_dest}/${_sub}")
  endif()
  message(STATUS "Cross build: ${header} not found for the target; using the build "
                 "machine's (header-only, from ${_tvmffi_host_dir}, copied to ${_dest})")
  set(${out} "${_dest}" PARENT_SCOPE)
endfunction()

# tvmffi_find_nlohmann_json(): the target nlohmann_json::nlohmann_json, from
# find_package or, in a cross build without it, the build machine's headers.
function(tvmffi_find_nlohmann_json)
  if(TARGET nlohmann_json::nlohmann_json)
    return()
  endif()
  find_package(nlohmann_json 3 QUIET)
  if(TARGET nlohmann_json::nlohmann_json)
    return()
  endif()
  if(CMAKE_CROSSCOMPILING)
    tvmffi_host_header(_dir nlohmann/json.hpp nlohmann)
    if(_dir)
      add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED GLOBAL)
      target_include_directories(nlohmann_json::nlohmann_json INTERFACE "${_dir}")
      return()
    endif()
  endif()
  message(FATAL_ERROR "nlohmann-json 3 not found: install it (Debian: nlohmann-json3-dev), "
    "or configure with -DTVMFFI_BUILD_TOOLS=OFF (the `tvmffi` tool needs it)")
endfunction()
