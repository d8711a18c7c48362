# Core C++ layer tests (object, any, string, error, function, optional, dtype, export).

tvmffi_add_test(test_object test_object.cc)
tvmffi_add_test(test_any test_any.cc)
tvmffi_add_test(test_string test_string.cc)
tvmffi_add_test(test_error test_error.cc)
tvmffi_add_test(test_function test_function.cc)
tvmffi_add_test(test_optional test_optional.cc)
tvmffi_add_test(test_dtype test_dtype.cc)

# A kernel-library-like shared object for the export macro test: hidden
# visibility, so only the __tvm_ffi_* symbols are exported.
add_library(tvmffi_test_export_lib SHARED core/export_lib.cc)
target_link_libraries(tvmffi_test_export_lib PRIVATE tvmffi::tvmffi)
set_target_properties(tvmffi_test_export_lib PROPERTIES
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
tvmffi_add_test(test_export test_export.cc)
target_compile_definitions(test_export PRIVATE
  "TVMFFI_TEST_EXPORT_LIB=\"$<TARGET_FILE:tvmffi_test_export_lib>\"")
target_link_libraries(test_export PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(test_export tvmffi_test_export_lib)

# Frozen layouts of the C++ records other binaries read inline: compiling is
# the test (the C structs are pinned by test_layout in core_c.cmake).
add_executable(test_abi_layout test_abi_layout.cc)
target_link_libraries(test_abi_layout PRIVATE tvmffi::headers)
tvmffi_add_warnings(test_abi_layout)
add_test(NAME test_abi_layout COMMAND test_abi_layout)
