# C ABI layer: c_api.h and extra/c_env_api.h from strict C11, the frozen
# layouts other binaries read inline, libtvmffi's exported symbols, and a C
# host loading a hand-written C library.

# Every type and function of both C headers, from strict C11.
add_executable(test_c_api ${CMAKE_CURRENT_LIST_DIR}/test_c_api.c)
tvmffi_strict_c(test_c_api ${CMAKE_CURRENT_LIST_DIR}/test_c_api.c)
target_link_libraries(test_c_api PRIVATE tvmffi::tvmffi)
add_test(NAME test_c_api COMMAND test_c_api)

# The BigInt C functions and the kTVMFFIBigInt object layout, from strict C11.
add_executable(test_big_int_c ${CMAKE_CURRENT_LIST_DIR}/test_big_int_c.c)
tvmffi_strict_c(test_big_int_c ${CMAKE_CURRENT_LIST_DIR}/test_big_int_c.c)
target_link_libraries(test_big_int_c PRIVATE tvmffi::tvmffi)
add_test(NAME test_big_int_c COMMAND test_big_int_c)

# ABI sizes/offsets/enumerators: compiling is the test (as C11 and as C++17),
# container object layouts included (test_container_layout.cc).
add_executable(test_layout ${CMAKE_CURRENT_LIST_DIR}/test_layout.c
  ${CMAKE_CURRENT_LIST_DIR}/test_layout_cxx.cc ${CMAKE_CURRENT_LIST_DIR}/test_container_layout.cc)
tvmffi_strict_c(test_layout ${CMAKE_CURRENT_LIST_DIR}/test_layout.c)
target_link_libraries(test_layout PRIVATE tvmffi::headers)
add_test(NAME test_layout COMMAND test_layout)

# Frozen layouts of the C++ records other binaries read inline: compiling is
# the test (the C structs are pinned by test_layout above), plus main()'s
# ModuleObj offsets (its vtable links the runtime).
add_executable(test_abi_layout ${CMAKE_CURRENT_LIST_DIR}/test_abi_layout.cc)
target_link_libraries(test_abi_layout PRIVATE tvmffi::headers tvmffi)
tvmffi_add_warnings(test_abi_layout)
add_test(NAME test_abi_layout COMMAND test_abi_layout)

# Arrays and Maps through the ffi.* globals from strict C11, and Map/Dict/List
# objects read from C by their documented layout alone.
tvmffi_add_test(test_containers_c ${CMAKE_CURRENT_LIST_DIR}/test_containers_c_driver.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_containers_c.c ${CMAKE_CURRENT_LIST_DIR}/test_map_layout_c.c)
tvmffi_strict_c(test_containers_c ${CMAKE_CURRENT_LIST_DIR}/test_containers_c.c
  ${CMAKE_CURRENT_LIST_DIR}/test_map_layout_c.c)

# libtvmffi.so exports TVMFFI* symbols and nothing else, and all the standard ones.
add_test(NAME test_symbols
  COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:tvmffi> -DNM=${CMAKE_NM}
          -DSTANDARD=${PROJECT_SOURCE_DIR}/runtime/standard_symbols.txt
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/check_symbols.cmake)

# The hand-written C library (strict C11) and the C host that loads it.
tvmffi_module_test_lib(tvmffi_test_c_callee ${CMAKE_CURRENT_LIST_DIR}/c_callee.c)
tvmffi_strict_c(tvmffi_test_c_callee ${CMAKE_CURRENT_LIST_DIR}/c_callee.c)
add_executable(tvmffi_c_caller ${CMAKE_CURRENT_LIST_DIR}/c_caller.c)
tvmffi_strict_c(tvmffi_c_caller ${CMAKE_CURRENT_LIST_DIR}/c_caller.c)
target_link_libraries(tvmffi_c_caller PRIVATE tvmffi::tvmffi)
add_dependencies(tvmffi_c_caller tvmffi_test_c_callee)

# The C caller loads the C callee: a working call, a caught TypeError, a
# missing function (None) and a missing file.
add_test(NAME module_c_caller COMMAND ${CMAKE_COMMAND}
  "-DCMD=$<TARGET_FILE:tvmffi_c_caller>;$<TARGET_FILE:tvmffi_test_c_callee>"
  -DEXPECT_RC=0
  "-DEXPECT_REGEX=y = \\[2, 3, 4, 5\\].*raised: TypeError: c_add_one: argument #1 \\(y\\) must be a tensor.*-> None.*load missing file: RuntimeError: .*/nonexistent/libnothing.so.*c_caller: ok"
  -P ${_tvmffi_run_expect})
