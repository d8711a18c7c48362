# Tests of the upstream API additions (expected, rvalue_ref, error extensions,
# small gaps and behaviour alignment).

tvmffi_add_test(test_expected test_expected.cc)
tvmffi_add_test(test_rvalue_ref test_rvalue_ref.cc)
