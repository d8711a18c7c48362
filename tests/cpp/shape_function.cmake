# Shape functions (tvm/ffi/extra/shape_function.h, TVM_FFI_DLL_EXPORT_SHAPE):
# the macro in the test itself, and the CPU kernels' scale_alloc through its
# C symbol (the kernel library runtime/module.cmake picked, ${_tvmffi_cpu_kernels}).
tvmffi_add_test(test_shape_function ${CMAKE_CURRENT_LIST_DIR}/test_shape_function.cc)
target_link_libraries(test_shape_function PRIVATE ${CMAKE_DL_LIBS})
target_compile_definitions(test_shape_function PRIVATE
  "TVMFFI_TEST_CPU_KERNELS=\"$<TARGET_FILE:${_tvmffi_cpu_kernels}>\"")
add_dependencies(test_shape_function ${_tvmffi_cpu_kernels})

# `tvmffi inspect` names the shape function under the function it belongs to.
if(TARGET tvmffi_cli)
  add_test(NAME tvmffi_inspect_shape_function
           COMMAND tvmffi_cli inspect $<TARGET_FILE:${_tvmffi_cpu_kernels}>)
  set_tests_properties(tvmffi_inspect_shape_function PROPERTIES
    PASS_REGULAR_EXPRESSION "scale_alloc\\([^\n]*\n[^\n]*\n *result shapes: __tvm_ffi__shape_scale_alloc")
endif()
