# libtvmffi_kernels.so: the CUDA kernel library (included by kernels/CMakeLists.txt
# only when TVMFFI_BUILD_CUDA_KERNELS is ON).
#
# CUDA is enabled here rather than in the top-level project so that CPU-only
# builds never look for nvcc. The tests and the benchmark (tests/cuda,
# benchmarks/cuda.cmake) are host-only C++ over the CUDA runtime and need only
# CUDAToolkit, not the CUDA language.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
  # Hopper (H100/H200) by default; override with -DCMAKE_CUDA_ARCHITECTURES=...
  set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures to build for")
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

if(NOT DEFINED CMAKE_CUDA_STANDARD)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
endif()

add_library(tvmffi_kernels SHARED
  ${CMAKE_CURRENT_LIST_DIR}/elementwise.cu
  ${CMAKE_CURRENT_LIST_DIR}/rowwise.cu)
target_link_libraries(tvmffi_kernels PRIVATE tvmffi::tvmffi CUDA::cudart)
set_target_properties(tvmffi_kernels PROPERTIES
  OUTPUT_NAME tvmffi_kernels
  # One libcudart.so per process, shared with the tests and benchmarks that
  # pass cudaMalloc'd pointers and streams in (a static copy per library
  # would keep its own error state).
  CUDA_RUNTIME_LIBRARY Shared
  CUDA_VISIBILITY_PRESET hidden
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
# Export only the FFI symbols and the C launchers (no template instantiations).
target_link_options(tvmffi_kernels PRIVATE
  "LINKER:--version-script=${CMAKE_CURRENT_LIST_DIR}/tvmffi_kernels.map")
set_property(TARGET tvmffi_kernels APPEND PROPERTY LINK_DEPENDS
  "${CMAKE_CURRENT_LIST_DIR}/tvmffi_kernels.map")
# Host-side code of the .cu files is built with the same warnings as C++.
tvmffi_add_warnings(tvmffi_kernels)
