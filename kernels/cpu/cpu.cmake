# The CPU kernel library, the `tvmffi` command-line tool and the demo host
# (included by kernels/CMakeLists.txt; only with TVMFFI_BUILD_KERNELS).
if(NOT TVMFFI_BUILD_KERNELS)
  return()
endif()

# libtvmffi_cpu_kernels.so (in build/<dir>/kernels/): exports __tvm_ffi_<name>
# symbols and their metadata; needs only the TVMFFI* C symbols of libtvmffi.
add_library(tvmffi_cpu_kernels SHARED ${CMAKE_CURRENT_LIST_DIR}/cpu_kernels.cc)
target_link_libraries(tvmffi_cpu_kernels PRIVATE tvmffi::tvmffi)
set_target_properties(tvmffi_cpu_kernels PROPERTIES
  OUTPUT_NAME tvmffi_cpu_kernels
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_compile_options(tvmffi_cpu_kernels PRIVATE -Wall -Wextra)

# `tvmffi` (build/<dir>/tvmffi): inspect and call kernel libraries. The target
# is tvmffi_cli because `tvmffi` names the runtime library target.
add_executable(tvmffi_cli ${PROJECT_SOURCE_DIR}/runtime/tools/tvmffi_cli.cc)
target_link_libraries(tvmffi_cli PRIVATE tvmffi::tvmffi)
target_include_directories(tvmffi_cli PRIVATE ${PROJECT_SOURCE_DIR}/runtime)
target_compile_options(tvmffi_cli PRIVATE -Wall -Wextra)
set_target_properties(tvmffi_cli PROPERTIES
  OUTPUT_NAME tvmffi
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

# `tvmffi_demo` (build/<dir>/tvmffi_demo): a C++ host. It loads the kernel
# library by absolute path; building it also builds the library and the CLI
# (what .ci/demo.sh runs next to it).
add_executable(tvmffi_demo ${CMAKE_CURRENT_LIST_DIR}/demo.cc)
target_link_libraries(tvmffi_demo PRIVATE tvmffi::tvmffi)
target_compile_options(tvmffi_demo PRIVATE -Wall -Wextra)
target_compile_definitions(tvmffi_demo PRIVATE
  TVMFFI_DEMO_KERNELS_PATH="$<TARGET_FILE:tvmffi_cpu_kernels>")
set_target_properties(tvmffi_demo PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
add_dependencies(tvmffi_demo tvmffi_cpu_kernels tvmffi_cli)
