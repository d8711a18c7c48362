# Tests of the upstream API additions (expected, rvalue_ref, error extensions,
# small gaps and behaviour alignment).

tvmffi_add_test(test_expected test_expected.cc)
tvmffi_add_test(test_rvalue_ref test_rvalue_ref.cc)
tvmffi_add_test(test_error_ext test_error_ext.cc)
# The same source with debug checks on, whatever the build type.
tvmffi_add_test(test_error_ext_debug test_error_ext.cc)
target_compile_options(test_error_ext_debug PRIVATE -UNDEBUG)
tvmffi_add_test(test_overload test_overload.cc)
tvmffi_add_test(test_api_ext test_api_ext.cc)
tvmffi_add_test(test_upstream_behaviour test_upstream_behaviour.cc)
# Upstream names kernel libraries use (.ci/clients.sh): TVM_FFI_LOG_AND_THROW, ...
tvmffi_add_test(test_client_names test_client_names.cc)
