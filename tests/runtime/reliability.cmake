# Reliability topic (issue #14): the concurrency stress test (run under
# ThreadSanitizer by CI) and the bad-input catalogue of the C entry points.
# See tests/RELIABILITY.md.

tvmffi_add_test(test_tsan_stress ${CMAKE_CURRENT_LIST_DIR}/test_tsan_stress.cc)
if(TARGET tvmffi_test_mod_a)
  target_compile_definitions(test_tsan_stress PRIVATE
    "TVMFFI_TEST_LIB_A=\"$<TARGET_FILE:tvmffi_test_mod_a>\"")
  add_dependencies(test_tsan_stress tvmffi_test_mod_a)
endif()
# Under TSan every step is several times slower: fewer iterations.
if(TVMFFI_SANITIZE_THREAD)
  set_tests_properties(test_tsan_stress PROPERTIES ENVIRONMENT "TVMFFI_STRESS_ITERS=1000")
endif()

tvmffi_add_test(test_bad_input ${CMAKE_CURRENT_LIST_DIR}/test_bad_input.cc)
# Reads libtvmffi.so's dynamic symbols with the runtime's own ELF reader.
target_include_directories(test_bad_input PRIVATE ${PROJECT_SOURCE_DIR}/tools)
target_compile_definitions(test_bad_input PRIVATE
  "TVMFFI_TEST_LIBTVMFFI=\"$<TARGET_FILE:tvmffi>\"")
