# Core C++ layer tests (object, any, string, error, function, optional, dtype, export).

tvmffi_add_test(test_object ${CMAKE_CURRENT_LIST_DIR}/test_object.cc)
tvmffi_add_test(test_any ${CMAKE_CURRENT_LIST_DIR}/test_any.cc)
tvmffi_add_test(test_big_int ${CMAKE_CURRENT_LIST_DIR}/test_big_int.cc)
tvmffi_add_test(test_string ${CMAKE_CURRENT_LIST_DIR}/test_string.cc)
tvmffi_add_test(test_error ${CMAKE_CURRENT_LIST_DIR}/test_error.cc)
tvmffi_add_test(test_function ${CMAKE_CURRENT_LIST_DIR}/test_function.cc)
tvmffi_add_test(test_optional ${CMAKE_CURRENT_LIST_DIR}/test_optional.cc)
tvmffi_add_test(test_dtype ${CMAKE_CURRENT_LIST_DIR}/test_dtype.cc)

# A kernel-library-like shared object for the export macro test: hidden
# visibility, so only the __tvm_ffi_* symbols are exported.
add_library(tvmffi_test_export_lib SHARED ${CMAKE_CURRENT_SOURCE_DIR}/core/export_lib.cc)
target_link_libraries(tvmffi_test_export_lib PRIVATE tvmffi::tvmffi)
set_target_properties(tvmffi_test_export_lib PROPERTIES
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
tvmffi_add_test(test_export ${CMAKE_CURRENT_LIST_DIR}/test_export.cc)
target_compile_definitions(test_export PRIVATE
  "TVMFFI_TEST_EXPORT_LIB=\"$<TARGET_FILE:tvmffi_test_export_lib>\"")
target_link_libraries(test_export PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(test_export tvmffi_test_export_lib)
