# Out-of-memory injection (issue #14, item 3; tests/RELIABILITY.md): built only
# with -DTVMFFI_FAULT_INJECTION=ON, whose libtvmffi exports TVMFFIFaultInjectionSet.

# A real library for the module-load scenario (the one test_module loads first).
add_library(tvmffi_oom_mod SHARED ${PROJECT_SOURCE_DIR}/tests/module/lib_a.cc)
target_link_libraries(tvmffi_oom_mod PRIVATE tvmffi::tvmffi)
set_target_properties(tvmffi_oom_mod PROPERTIES
  C_VISIBILITY_PRESET hidden
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)

tvmffi_add_test(test_oom ${CMAKE_CURRENT_LIST_DIR}/test_oom.cc)
# The hooks' declarations live with the runtime (runtime/fault_injection.h).
target_include_directories(test_oom PRIVATE ${PROJECT_SOURCE_DIR}/runtime)
target_compile_definitions(test_oom PRIVATE
  "TVMFFI_TEST_LIB_A=\"$<TARGET_FILE:tvmffi_oom_mod>\"")
add_dependencies(test_oom tvmffi_oom_mod)

# Loads libtvmffi with an allocation of its static initialisers failing.
add_executable(tvmffi_oom_load_probe ${CMAKE_CURRENT_LIST_DIR}/load_probe.cc)
target_link_libraries(tvmffi_oom_load_probe PRIVATE tvmffi::tvmffi)
target_include_directories(tvmffi_oom_load_probe PRIVATE ${PROJECT_SOURCE_DIR}/runtime)
tvmffi_add_warnings(tvmffi_oom_load_probe)
target_compile_definitions(test_oom PRIVATE
  "TVMFFI_TEST_LOAD_PROBE=\"$<TARGET_FILE:tvmffi_oom_load_probe>\"")
add_dependencies(test_oom tvmffi_oom_load_probe)
