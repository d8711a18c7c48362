# Tests of the reflection headers (registry, accessor, creator, access paths)
# and the structural operations built on them.

tvmffi_add_test(test_registry test_registry.cc)
tvmffi_add_test(test_accessor test_accessor.cc)
tvmffi_add_test(test_access_path test_access_path.cc)
tvmffi_add_test(test_structural_equal test_structural_equal.cc)
tvmffi_add_test(test_structural_hash test_structural_hash.cc)
tvmffi_add_test(test_dataclass test_dataclass.cc)
