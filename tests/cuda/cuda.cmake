# CUDA kernel library tests (included by tests/CMakeLists.txt).
#   test_cuda_args     argument validation through the FFI ABI; needs the
#                      library (and libcudart) but no GPU, so it runs in CI.
#   test_cuda_kernels  numerics, streams, graphs, devices, allocator; every
#                      test case SKIPs without a GPU (Catch2 exit code 4).
#   test_cuda_emulated the kernel bodies run on CPU threads (index arithmetic,
#                      launch plans, reductions); no GPU needed.
# All are host-only C++ over the CUDA runtime API: no nvcc involved.
# test_cubin_launcher*: see cubin.cmake (nvcc compiles the kernels it loads).
if(TVMFFI_BUILD_CUDA_KERNELS AND TARGET tvmffi_kernels)
  find_package(CUDAToolkit REQUIRED)
  find_package(Threads REQUIRED)

  tvmffi_add_test(test_cuda_args ${CMAKE_CURRENT_LIST_DIR}/test_cuda_args.cc)
  tvmffi_add_test(test_cuda_kernels ${CMAKE_CURRENT_LIST_DIR}/test_cuda_kernels.cc)
  foreach(_t test_cuda_args test_cuda_kernels)
    target_compile_definitions(${_t} PRIVATE
      TVMFFI_CUDA_KERNELS_LIB="$<TARGET_FILE:tvmffi_kernels>")
    # The shared libcudart, as in the library: one CUDA runtime per process.
    target_link_libraries(${_t} PRIVATE CUDA::cudart ${CMAKE_DL_LIBS})
    add_dependencies(${_t} tvmffi_kernels)
  endforeach()

  tvmffi_add_test(test_cuda_emulated ${CMAKE_CURRENT_LIST_DIR}/test_cuda_emulated.cc)
  target_include_directories(test_cuda_emulated PRIVATE ${PROJECT_SOURCE_DIR}/kernels/cuda)
  target_link_libraries(test_cuda_emulated PRIVATE CUDA::cudart Threads::Threads)

  set_tests_properties(test_cuda_args test_cuda_kernels test_cuda_emulated PROPERTIES LABELS cuda)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/cubin.cmake)
