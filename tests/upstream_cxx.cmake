# libtvmffi_upstream_cxx: upstream's out-of-line C++ API (runtime/upstream_cxx).

# The exported mangled names are exactly runtime/upstream_cxx/upstream_cxx.symbols.
add_test(NAME test_upstream_cxx_symbols
  COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:tvmffi_upstream_cxx> -DNM=${CMAKE_NM}
          -DLIST=${PROJECT_SOURCE_DIR}/runtime/upstream_cxx/upstream_cxx.symbols
          -P ${CMAKE_CURRENT_LIST_DIR}/upstream_cxx/check_exports.cmake)

# A stand-in for upstream's libtvm_ffi.so, used only to link the host below;
# kept out of the host's run path, where our runtime answers to that name.
add_library(tvmffi_test_upstream_link_stub SHARED
  ${CMAKE_CURRENT_LIST_DIR}/upstream_cxx/link_stub.cc)
target_link_libraries(tvmffi_test_upstream_link_stub PRIVATE tvmffi::headers)
set_target_properties(tvmffi_test_upstream_link_stub PROPERTIES
  OUTPUT_NAME tvm_ffi
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/upstream_link_stub)

# A host declared with upstream's class shapes (upstream_shapes.h): its
# DT_NEEDED libtvm_ffi.so must resolve to our runtime, which brings
# libtvmffi_upstream_cxx.so and the C++ symbols (-z now: all at start-up).
tvmffi_add_test(test_upstream_cxx ${CMAKE_CURRENT_LIST_DIR}/upstream_cxx/upstream_host.cc)
target_link_libraries(test_upstream_cxx PRIVATE tvmffi_test_upstream_link_stub ${CMAKE_DL_LIBS})
set_target_properties(test_upstream_cxx PROPERTIES SKIP_BUILD_RPATH ON)
target_link_options(test_upstream_cxx PRIVATE
  "LINKER:-z,now" "LINKER:-rpath,$<TARGET_FILE_DIR:tvmffi>")
target_compile_definitions(test_upstream_cxx PRIVATE
  "TVMFFI_TEST_LIB_A=\"$<TARGET_FILE:tvmffi_test_mod_a>\""
  "TVMFFI_TEST_LIB_B=\"$<TARGET_FILE:tvmffi_test_mod_b>\""
  "TVMFFI_TEST_CPU_KERNELS=\"$<TARGET_FILE:${_tvmffi_cpu_kernels}>\"")
add_dependencies(test_upstream_cxx tvmffi_test_mod_a tvmffi_test_mod_b ${_tvmffi_cpu_kernels})
