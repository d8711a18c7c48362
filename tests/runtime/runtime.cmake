# Runtime layer: libtvmffi's behaviour, driven from C++ through the C
# functions only. The module loader, reliability and cross-machine checks are
# in module.cmake, reliability.cmake and cross.cmake beside this file.
tvmffi_add_test(test_runtime
  ${CMAKE_CURRENT_LIST_DIR}/test_runtime_objects.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_runtime_errors.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_runtime_functions.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_runtime_env.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_runtime_tensor.cc)

# The ffi.* globals added for apache/tvm-ffi 0.1.15 (issue #39).
tvmffi_add_test(test_upstream_globals ${CMAKE_CURRENT_LIST_DIR}/test_upstream_globals.cc)
