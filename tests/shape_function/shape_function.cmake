# Shape functions (tvm/ffi/extra/shape_function.h, TVM_FFI_DLL_EXPORT_SHAPE):
# the macro in the test itself, and the CPU kernels' scale_alloc through its
# C symbol (the kernel library module.cmake picked, ${_tvmffi_cpu_kernels}).
tvmffi_add_test(test_shape_function ${CMAKE_CURRENT_LIST_DIR}/test_shape_function.cc)
target_link_libraries(test_shape_function PRIVATE ${CMAKE_DL_LIBS})
target_compile_definitions(test_shape_function PRIVATE
  "TVMFFI_TEST_CPU_KERNELS=\"$<TARGET_FILE:${_tvmffi_cpu_kernels}>\"")
add_dependencies(test_shape_function ${_tvmffi_cpu_kernels})
