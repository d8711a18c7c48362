# Hostile-input tests of issue #43 (tests/RELIABILITY.md, "Hostile classes"):
# thread cancellation, recursion and re-entrancy of the walkers, producers at
# the runtime boundary, malformed Any values, and the sweep of every global.

tvmffi_add_test(test_cancel ${CMAKE_CURRENT_LIST_DIR}/test_cancel.cc)
tvmffi_add_test(test_walkers ${CMAKE_CURRENT_LIST_DIR}/test_walkers.cc)
tvmffi_add_test(test_sweep ${CMAKE_CURRENT_LIST_DIR}/test_sweep.cc)
# The CPU kernel library is the one module.cmake picked (the shipped one, or a
# copy built for the tests).
if(DEFINED _tvmffi_cpu_kernels)
  tvmffi_add_test(test_producers ${CMAKE_CURRENT_LIST_DIR}/test_producers.cc)
  if(TARGET test_producers)
    target_compile_definitions(test_producers PRIVATE
      "TVMFFI_TEST_CPU_KERNELS=\"$<TARGET_FILE:${_tvmffi_cpu_kernels}>\""
      "TVMFFI_TEST_LIB_A=\"$<TARGET_FILE:tvmffi_test_mod_a>\""
      "TVMFFI_TEST_LIB_B=\"$<TARGET_FILE:tvmffi_test_mod_b>\"")
    add_dependencies(test_producers ${_tvmffi_cpu_kernels} tvmffi_test_mod_a tvmffi_test_mod_b)
  endif()
endif()
