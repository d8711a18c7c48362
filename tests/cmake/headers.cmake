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
          -P ${CMAKE_CURRENT_LIST_DIR}/check_includes.cmake)

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
          -P ${CMAKE_CURRENT_LIST_DIR}/check_includes.cmake)

# Every public header compiles warning-free when included with -I (pkg-config
# and tvm-ffi-config give -I, not -isystem, so a kernel project's warnings apply
# to our headers too): g++ and clang++, C++17 and C++20, under the strict set
# below; each header alone (it includes what it needs); the C headers as C11;
# nvcc with every warning an error. CUDA's own headers are -isystem: not ours.
set(TVMFFI_HEADER_STRICT_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion)
set(_header_flags
  "-I${PROJECT_SOURCE_DIR}/c_api/include"
  "-I${PROJECT_SOURCE_DIR}/cpp/include")
foreach(_d IN LISTS _dlpack_inc)
  list(APPEND _header_flags "-I${_d}")
endforeach()
if(TVMFFI_CUDA_RUNTIME_INCLUDE)
  list(APPEND _header_flags "-isystem" "${TVMFFI_CUDA_RUNTIME_INCLUDE}" "-DTVMFFI_CHECK_CUDA_GUARD")
endif()
file(GLOB_RECURSE _tvmffi_public_headers RELATIVE "${PROJECT_SOURCE_DIR}/cpp/include"
     CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/cpp/include/tvm/*.h")
file(GLOB_RECURSE _tvmffi_c_headers RELATIVE "${PROJECT_SOURCE_DIR}/c_api/include"
     CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/c_api/include/tvm/*.h")
set(_all_headers_src "")
set(_cxx_headers "")
foreach(_h IN LISTS _tvmffi_c_headers _tvmffi_public_headers)
  if(_h MATCHES "/cuda/" AND NOT TVMFFI_CUDA_RUNTIME_INCLUDE)
    continue()
  endif()
  string(APPEND _all_headers_src "#include <${_h}>\n")
  list(APPEND _cxx_headers "${_h}")
endforeach()
set(_c_headers_src "")
foreach(_h IN LISTS _tvmffi_c_headers)
  string(APPEND _c_headers_src "#include <${_h}>\n")
endforeach()
# The export macros expand warning-free too (a function, a lambda, writes declarations).
string(APPEND _all_headers_src [=[
namespace tvmffi_header_check {
inline int64_t Twice(int64_t x) { return 2 * x; }
}  // namespace tvmffi_header_check
TVM_FFI_DLL_EXPORT_TYPED_FUNC(header_check_twice, tvmffi_header_check::Twice);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(header_check_twice, "2 * x");
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(header_check_twice);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(header_check_fill, [](tvm::ffi::TensorView, int64_t, tvm::ffi::TensorView) {});
TVM_FFI_DLL_EXPORT_WRITES(header_check_fill, 2, 0);
]=])
string(APPEND _all_headers_src "int main() { return 0; }\n")
string(APPEND _c_headers_src "int main(void) { return 0; }\n")
file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/all_public_headers.cc"
     CONTENT "${_all_headers_src}")
file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/all_public_headers.cu"
     CONTENT "${_all_headers_src}")
file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/all_c_headers.c"
     CONTENT "${_c_headers_src}")

set(_strict_cxx "${CMAKE_CXX_COMPILER}")
set(_strict_c "${CMAKE_C_COMPILER}")
find_program(TVMFFI_CLANGXX NAMES clang++)
find_program(TVMFFI_CLANG NAMES clang)
if(TVMFFI_CLANGXX AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  list(APPEND _strict_cxx "${TVMFFI_CLANGXX}")
endif()
if(TVMFFI_CLANG AND NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  list(APPEND _strict_c "${TVMFFI_CLANG}")
endif()
if(NOT CMAKE_CROSSCOMPILING)
  foreach(_cxx IN LISTS _strict_cxx)
    get_filename_component(_name "${_cxx}" NAME)
    string(REPLACE "++" "xx" _name "${_name}")
    string(MAKE_C_IDENTIFIER "${_name}" _name)
    foreach(_std 17 20)
      add_test(NAME test_headers_strict_${_name}_cxx${_std}
        COMMAND ${_cxx} -std=c++${_std} -fsyntax-only ${TVMFFI_HEADER_STRICT_FLAGS}
                -Wold-style-cast -Werror ${_header_flags}
                "${CMAKE_CURRENT_BINARY_DIR}/all_public_headers.cc")
    endforeach()
  endforeach()
  foreach(_cc IN LISTS _strict_c)
    get_filename_component(_name "${_cc}" NAME)
    string(REPLACE "++" "xx" _name "${_name}")
    string(MAKE_C_IDENTIFIER "${_name}" _name)
    add_test(NAME test_headers_strict_${_name}_c11
      COMMAND ${_cc} -std=c11 -fsyntax-only ${TVMFFI_HEADER_STRICT_FLAGS} -Werror ${_header_flags}
              "${CMAKE_CURRENT_BINARY_DIR}/all_c_headers.c")
  endforeach()
  # What upstream's headers bring transitively (endian.h, extra/base.h) comes along here too.
  add_test(NAME test_headers_upstream_transitive
    COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 -fsyntax-only ${TVMFFI_HEADER_STRICT_FLAGS}
            -Wold-style-cast -Werror ${_header_flags}
            "${CMAKE_CURRENT_SOURCE_DIR}/headers/upstream_transitive.cc")
  if(NOT TVMFFI_ANY_SANITIZER)
    add_test(NAME test_headers_alone
      COMMAND ${CMAKE_COMMAND} "-DCXX=${CMAKE_CXX_COMPILER}" "-DHEADERS=${_cxx_headers}"
              "-DFLAGS=-std=c++17;${TVMFFI_HEADER_STRICT_FLAGS};-Wold-style-cast;-Werror;${_header_flags}"
              -P ${CMAKE_CURRENT_LIST_DIR}/check_headers_alone.cmake)
  endif()
  find_program(TVMFFI_NVCC NAMES nvcc HINTS /usr/local/cuda/bin ${CUDAToolkit_BIN_DIR})
  if(TVMFFI_NVCC AND TVMFFI_CUDA_RUNTIME_INCLUDE AND NOT TVMFFI_ANY_SANITIZER)
    add_test(NAME test_headers_nvcc
      COMMAND ${TVMFFI_NVCC} -std=c++17 -Werror all-warnings
              -Xcompiler=-Wall,-Wextra,-Wshadow,-Wconversion,-Wsign-conversion
              ${_header_flags} -c "${CMAKE_CURRENT_BINARY_DIR}/all_public_headers.cu"
              -o "${CMAKE_CURRENT_BINARY_DIR}/all_public_headers_nvcc.o")
  endif()
endif()

# No tracked file names a folder of one machine; the checker itself is shown
# to catch one in a scratch repository.
find_program(TVMFFI_GIT NAMES git)
if(TVMFFI_GIT AND NOT TVMFFI_ANY_SANITIZER AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME test_machine_paths
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_machine_paths.sh ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_machine_paths PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: ")
  set(_scratch "${CMAKE_CURRENT_BINARY_DIR}/machine_paths_scratch")
  add_test(NAME test_machine_paths_catches
    COMMAND bash -c "rm -rf '${_scratch}' && mkdir -p '${_scratch}' && cd '${_scratch}' \
&& git init -q && printf 'data_dir = \"/%s/alice/data\"\\n' home > cfg.py && git add cfg.py \
&& ! bash '${CMAKE_CURRENT_LIST_DIR}/check_machine_paths.sh' . \
&& bash '${CMAKE_CURRENT_LIST_DIR}/check_machine_paths.sh' . | grep -q 'cfg.py:1:'")
endif()
