# Tests of the upstream API additions (expected, rvalue_ref, error extensions,
# small gaps and behaviour alignment).

tvmffi_add_test(test_expected ${CMAKE_CURRENT_LIST_DIR}/test_expected.cc)
tvmffi_add_test(test_rvalue_ref ${CMAKE_CURRENT_LIST_DIR}/test_rvalue_ref.cc)
tvmffi_add_test(test_error_ext ${CMAKE_CURRENT_LIST_DIR}/test_error_ext.cc)
# The same source with debug checks on, whatever the build type.
tvmffi_add_test(test_error_ext_debug ${CMAKE_CURRENT_LIST_DIR}/test_error_ext.cc)
target_compile_options(test_error_ext_debug PRIVATE -UNDEBUG)
tvmffi_add_test(test_overload ${CMAKE_CURRENT_LIST_DIR}/test_overload.cc)
tvmffi_add_test(test_api_ext ${CMAKE_CURRENT_LIST_DIR}/test_api_ext.cc)
tvmffi_add_test(test_upstream_behaviour ${CMAKE_CURRENT_LIST_DIR}/test_upstream_behaviour.cc)
# Upstream names kernel libraries use (.ci/clients.sh): TVM_FFI_LOG_AND_THROW, ...
tvmffi_add_test(test_client_names ${CMAKE_CURRENT_LIST_DIR}/test_client_names.cc)
tvmffi_add_test(test_upstream_names ${CMAKE_CURRENT_LIST_DIR}/test_upstream_names.cc)
