# Header weight: what a kernel includes stays free of heavy std headers and of
# the container implementations (benchmarks/compile_cost.sh measures the time).
find_path(TVMFFI_CUDA_RUNTIME_INCLUDE cuda_runtime.h
  HINTS /usr/local/cuda/include ${CUDAToolkit_INCLUDE_DIRS})
set(_kernel_flags
  "-I${PROJECT_SOURCE_DIR}/c_api/include"
  "-I${PROJECT_SOURCE_DIR}/cpp/include")
get_target_property(_dlpack_inc dlpack::dlpack INTERFACE_INCLUDE_DIRECTORIES)
foreach(_d IN LISTS _dlpack_inc)
  list(APPEND _kernel_flags "-I${_d}")
endforeach()
if(TVMFFI_CUDA_RUNTIME_INCLUDE)
  list(APPEND _kernel_flags "-I${TVMFFI_CUDA_RUNTIME_INCLUDE}" "-DTVMFFI_CHECK_CUDA_GUARD")
endif()
add_test(NAME test_kernel_includes
  COMMAND ${CMAKE_COMMAND} -DCXX=${CMAKE_CXX_COMPILER}
          -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/headers/kernel_includes.cc
          "-DFLAGS=${_kernel_flags}"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/check_includes.cmake)

# The umbrella brings <iostream> and <sstream> for upstream-written code, and
# none of the heavy std headers upstream's brings by accident (README,
# "Header weight"), nor the opt-in conveniences.
# (Not <tuple>: libstdc++ 13's own headers bring it.)
set(_umbrella_forbidden
  map unordered_map variant functional iomanip memory algorithm locale mutex thread regex
  tvm/ffi/extra/stl.h tvm/ffi/extra/module.h tvm/ffi/extra/env.h)
add_test(NAME test_umbrella_includes
  COMMAND ${CMAKE_COMMAND} -DCXX=${CMAKE_CXX_COMPILER}
          -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/headers/umbrella_includes.cc
          "-DFLAGS=${_kernel_flags}"
          "-DFORBIDDEN=${_umbrella_forbidden}"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/check_includes.cmake)

# Every public header compiles warning-free under -Wall -Wextra -Wshadow
# -Werror when included with -I (pkg-config and tvm-ffi-config give -I, not
# -isystem, so a kernel project's warnings apply to our headers too).
file(GLOB_RECURSE _tvmffi_public_headers RELATIVE "${PROJECT_SOURCE_DIR}/cpp/include"
     CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/cpp/include/tvm/*.h")
file(GLOB_RECURSE _tvmffi_c_headers RELATIVE "${PROJECT_SOURCE_DIR}/c_api/include"
     CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/c_api/include/tvm/*.h")
set(_all_headers_src "")
foreach(_h IN LISTS _tvmffi_c_headers _tvmffi_public_headers)
  if(_h MATCHES "/cuda/" AND NOT TVMFFI_CUDA_RUNTIME_INCLUDE)
    continue()
  endif()
  string(APPEND _all_headers_src "#include <${_h}>\n")
endforeach()
string(APPEND _all_headers_src "int main() { return 0; }\n")
file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/all_public_headers.cc"
     CONTENT "${_all_headers_src}")
add_test(NAME test_headers_warnings
  COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 -fsyntax-only -Wall -Wextra -Wshadow -Wpedantic
          -Werror ${_kernel_flags} "${CMAKE_CURRENT_BINARY_DIR}/all_public_headers.cc")
