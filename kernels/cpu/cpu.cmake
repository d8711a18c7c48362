# The CPU kernel library and the demo host
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
tvmffi_add_warnings(tvmffi_cpu_kernels)

# `tvmffi_demo` (build/<dir>/tvmffi_demo): a C++ host. It loads the kernel
# library by absolute path; building it also builds the library.
add_executable(tvmffi_demo ${CMAKE_CURRENT_LIST_DIR}/demo.cc)
target_link_libraries(tvmffi_demo PRIVATE tvmffi::tvmffi)
tvmffi_add_warnings(tvmffi_demo)
target_compile_definitions(tvmffi_demo PRIVATE
  TVMFFI_DEMO_KERNELS_PATH="$<TARGET_FILE:tvmffi_cpu_kernels>")
set_target_properties(tvmffi_demo PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
add_dependencies(tvmffi_demo tvmffi_cpu_kernels)
