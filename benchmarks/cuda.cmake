# bench_kernels: bandwidth of the CUDA kernels against a device-to-device copy,
# and host-side cost of an FFI call against a direct launch. Prints
# "no CUDA device; skipping" (exit 0) without a GPU. Host-only C++ over the
# CUDA runtime API; the direct launch goes through the library's C launcher.
if(TVMFFI_BUILD_CUDA_KERNELS AND TARGET tvmffi_kernels)
  find_package(CUDAToolkit REQUIRED)
  tvmffi_add_bench(bench_kernels ${CMAKE_CURRENT_LIST_DIR}/bench_kernels.cc)
  target_compile_definitions(bench_kernels PRIVATE
    TVMFFI_CUDA_KERNELS_LIB="$<TARGET_FILE:tvmffi_kernels>")
  target_link_libraries(bench_kernels PRIVATE CUDA::cudart ${CMAKE_DL_LIBS})
  add_dependencies(bench_kernels tvmffi_kernels)
endif()
