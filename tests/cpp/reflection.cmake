# Tests of the reflection headers (registry, accessor, creator, access paths)
# and the structural operations built on them.

tvmffi_add_test(test_registry ${CMAKE_CURRENT_LIST_DIR}/test_registry.cc)
tvmffi_add_test(test_accessor ${CMAKE_CURRENT_LIST_DIR}/test_accessor.cc)
tvmffi_add_test(test_access_path ${CMAKE_CURRENT_LIST_DIR}/test_access_path.cc)
tvmffi_add_test(test_structural_equal ${CMAKE_CURRENT_LIST_DIR}/test_structural_equal.cc)
tvmffi_add_test(test_structural_hash ${CMAKE_CURRENT_LIST_DIR}/test_structural_hash.cc)
tvmffi_add_test(test_dataclass ${CMAKE_CURRENT_LIST_DIR}/test_dataclass.cc)
tvmffi_add_test(test_structural_key ${CMAKE_CURRENT_LIST_DIR}/test_structural_key.cc)
tvmffi_add_test(test_structural_visit ${CMAKE_CURRENT_LIST_DIR}/test_structural_visit.cc)
tvmffi_add_test(test_structural_mutate ${CMAKE_CURRENT_LIST_DIR}/test_structural_mutate.cc)
tvmffi_add_test(test_native_function ${CMAKE_CURRENT_LIST_DIR}/test_native_function.cc)
tvmffi_add_test(test_enum ${CMAKE_CURRENT_LIST_DIR}/test_enum.cc)
tvmffi_add_test(test_visit_error_context ${CMAKE_CURRENT_LIST_DIR}/test_visit_error_context.cc)

# The inline wrappers share mangled names with upstream's exported functions
# (runtime/upstream_cxx/upstream_cxx.symbols): a library built with our
# headers must not export them (it would interpose upstream's runtime).
add_library(tvmffi_test_reflection_lib SHARED ${CMAKE_CURRENT_LIST_DIR}/reflection_lib.cc)
target_link_libraries(tvmffi_test_reflection_lib PRIVATE tvmffi::tvmffi)
add_test(NAME test_reflection_no_interposition
  COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:tvmffi_test_reflection_lib> -DNM=${CMAKE_NM}
          -DFORBID=ON -DLIST=${PROJECT_SOURCE_DIR}/runtime/upstream_cxx/upstream_cxx.symbols
          -P ${CMAKE_CURRENT_SOURCE_DIR}/upstream_cxx/check_exports.cmake)
