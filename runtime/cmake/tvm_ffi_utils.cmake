# Helpers for kernel-library projects, under the names apache/tvm-ffi's CMake
# package gives them, so its recipes build unchanged (find_package(tvm_ffi)
# includes this file).
include_guard(GLOBAL)

# tvm_ffi_configure_target(<target> [LINK_SHARED ON|OFF] [LINK_HEADER ON|OFF]
#                          [DEBUG_SYMBOL ON|OFF] [MSVC_FLAGS ON|OFF]
#                          [STUB_INIT ON|OFF] [STUB_DIR <dir>] [STUB_PKG <pkg>]
#                          [STUB_PREFIX <prefix>])
# Links <target> to the runtime (LINK_SHARED, default ON) and the headers
# (LINK_HEADER, default ON), builds it as C++17 with hidden visibility, and
# keeps debug symbols' source paths relative (DEBUG_SYMBOL, default ON).
# The STUB_* options ask upstream's Python stub generator, which tvmffi does
# not ship: they are checked as upstream checks them, and a STUB_DIR is
# reported as not generated (the project's committed stubs are used as they are).
function(tvm_ffi_configure_target target)
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "tvm_ffi_configure_target: '${target}' is not an existing CMake target")
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 _arg ""
    "LINK_SHARED;LINK_HEADER;DEBUG_SYMBOL;MSVC_FLAGS;STUB_INIT;STUB_DIR;STUB_PKG;STUB_PREFIX" "")
  if(_arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tvm_ffi_configure_target(${target}): unknown arguments "
                        "${_arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(_opt LINK_SHARED LINK_HEADER DEBUG_SYMBOL MSVC_FLAGS)
    if(NOT DEFINED _arg_${_opt})
      set(_arg_${_opt} ON)
    endif()
  endforeach()
  if((DEFINED _arg_STUB_PKG OR DEFINED _arg_STUB_PREFIX) AND
     (NOT _arg_STUB_DIR OR NOT _arg_STUB_INIT))
    message(FATAL_ERROR "tvm_ffi_configure_target(${target}): STUB_PKG and STUB_PREFIX need "
                        "STUB_DIR and STUB_INIT ON")
  endif()
  if(_arg_LINK_SHARED)
    target_link_libraries(${target} PRIVATE tvm_ffi::shared)
  endif()
  if(_arg_LINK_HEADER)
    target_link_libraries(${target} PRIVATE tvm_ffi::header)
  endif()
  target_compile_features(${target} PRIVATE cxx_std_17)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(_arg_DEBUG_SYMBOL AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE "-ffile-prefix-map=${CMAKE_SOURCE_DIR}/=")
  endif()
  if(_arg_STUB_DIR)
    message(STATUS "tvm_ffi_configure_target(${target}): STUB_DIR ${_arg_STUB_DIR}: tvmffi "
                   "generates no Python stubs; the files there are used as they are")
  endif()
endfunction()

# tvm_ffi_install(<target> [DESTINATION <dir>]): what upstream installs beside
# a kernel library besides the library itself. On Linux that is nothing (the
# debug symbols are inside the .so); the arguments are checked all the same.
function(tvm_ffi_install target)
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "tvm_ffi_install: '${target}' is not an existing CMake target")
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 _arg "" "DESTINATION" "")
  if(_arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tvm_ffi_install(${target}): unknown arguments ${_arg_UNPARSED_ARGUMENTS}")
  endif()
endfunction()
