# The cubin launcher (tvm/ffi/extra/cuda/cubin_launcher.h; included by
# tests/cuda/cuda.cmake): cubin_kernels.cu compiled by nvcc to a fatbin
# (sm_80 and sm_90 code, compute_90 PTX: H100 and H200 run it) and to an sm_90
# cubin with the CMake helpers of our tvm_ffi package, the fatbin embedded
# into the test by tvm_ffi_embed_bin_into.
#   test_cubin_launcher_embed          [embed]: no GPU needed (the embedded
#                                      bytes, launch configurations, errors)
#   test_cubin_launcher_nodevice       [nodevice]: the load error without a GPU
#                                      (skips where there is one)
#   test_cubin_launcher                [gpu]: loads and launches, runtime API
#   test_cubin_launcher_driver         [gpu], driver API; skips where
#                                      libcuda.so.1 (the NVIDIA driver) is missing
#   test_cubin_launcher_driver_embed   [embed] under the driver API (same skip)
# The [gpu] cases skip themselves without a GPU (Catch2 exit code 4).
if(TVMFFI_BUILD_CUDA_KERNELS)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  include(${PROJECT_SOURCE_DIR}/runtime/cmake/tvm_ffi_utils.cmake)

  add_tvm_ffi_fatbin(tvmffi_test_cubin_fatbin CUDA ${CMAKE_CURRENT_LIST_DIR}/cubin_kernels.cu)
  set_target_properties(tvmffi_test_cubin_fatbin PROPERTIES CUDA_ARCHITECTURES "80-real;90")
  add_tvm_ffi_cubin(tvmffi_test_cubin_sm90 CUDA ${CMAKE_CURRENT_LIST_DIR}/cubin_kernels.cu)
  set_target_properties(tvmffi_test_cubin_sm90 PROPERTIES CUDA_ARCHITECTURES "90-real")

  foreach(_api runtime driver)
    # One executable per API, run by tag below (so not through tvmffi_add_test).
    set(_t test_cubin_launcher_${_api}_exe)
    add_executable(${_t} ${CMAKE_CURRENT_LIST_DIR}/test_cubin_launcher.cc)
    target_link_libraries(${_t} PRIVATE tvmffi::tvmffi Catch2::Catch2WithMain Threads::Threads)
    tvmffi_add_warnings(${_t})
    tvm_ffi_embed_bin_into(${_t} SYMBOL tvmffi_test_kernels
                           BIN "$<TARGET_OBJECTS:tvmffi_test_cubin_fatbin>")
    target_compile_definitions(${_t} PRIVATE
      "TVMFFI_TEST_FATBIN_PATH=\"$<TARGET_OBJECTS:tvmffi_test_cubin_fatbin>\""
      "TVMFFI_TEST_CUBIN_PATH=\"$<TARGET_OBJECTS:tvmffi_test_cubin_sm90>\"")
    add_dependencies(${_t} tvmffi_test_cubin_sm90)
    target_link_libraries(${_t} PRIVATE CUDA::cudart)
  endforeach()
  target_compile_definitions(test_cubin_launcher_driver_exe PRIVATE
    TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=1)
  target_link_libraries(test_cubin_launcher_driver_exe PRIVATE CUDA::cuda_driver)

  set(_rt $<TARGET_FILE:test_cubin_launcher_runtime_exe>)
  add_test(NAME test_cubin_launcher_embed COMMAND ${_rt} --reporter compact "[embed]")
  add_test(NAME test_cubin_launcher_nodevice COMMAND ${_rt} --reporter compact "[nodevice]")
  add_test(NAME test_cubin_launcher COMMAND ${_rt} --reporter compact "[gpu]")
  # Linked against libcuda.so.1, which only a machine with the NVIDIA driver has:
  # elsewhere the executable cannot start, and the test says SKIP instead.
  foreach(_tag gpu embed)
    set(_name test_cubin_launcher_driver)
    if(_tag STREQUAL "embed")
      set(_name test_cubin_launcher_driver_embed)
    endif()
    add_test(NAME ${_name}
      COMMAND bash -c "if ldd \"$0\" | grep -q 'libcuda.so.1 => not found'; then \
echo 'SKIP: libcuda.so.1 (the NVIDIA driver) is not installed'; exit 4; fi; \
exec \"$0\" --reporter compact \"$1\""
              $<TARGET_FILE:test_cubin_launcher_driver_exe> "[${_tag}]")
  endforeach()
  set_tests_properties(test_cubin_launcher_embed test_cubin_launcher_nodevice test_cubin_launcher
                       test_cubin_launcher_driver test_cubin_launcher_driver_embed
                       PROPERTIES LABELS cuda SKIP_RETURN_CODE 4)
endif()
