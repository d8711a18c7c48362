# Cross topic (issue #27): a library built for the other machine of the pair
# x86-64 / aarch64 is refused with a clear message by the loader's ELF
# pre-check and by `tvmffi inspect`. The native side (libraries of this
# machine accepted) is the module topic's, which the aarch64 phase of
# .ci/test.sh runs under qemu-aarch64.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(_tvmffi_foreign_machine x86-64)
  set(_tvmffi_foreign_cc_names x86_64-linux-gnu-gcc)
  set(_tvmffi_native_machine aarch64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_tvmffi_foreign_machine aarch64)
  set(_tvmffi_foreign_cc_names aarch64-linux-gnu-gcc)
  set(_tvmffi_native_machine x86-64)
else()
  return()
endif()
find_program(TVMFFI_FOREIGN_CC NAMES ${_tvmffi_foreign_cc_names}
             DOC "C compiler for the other machine (tests/runtime/cross.cmake)")
if(NOT TVMFFI_FOREIGN_CC)
  message(STATUS "tests/runtime/cross.cmake: no ${_tvmffi_foreign_cc_names}: the "
                 "${_tvmffi_foreign_machine}-library tests report SKIP")
endif()

set(_tvmffi_foreign_lib ${CMAKE_CURRENT_BINARY_DIR}/cross/libtvmffi_foreign_${_tvmffi_foreign_machine}.so)
if(TVMFFI_FOREIGN_CC)
  add_custom_command(OUTPUT ${_tvmffi_foreign_lib}
    COMMAND ${TVMFFI_FOREIGN_CC} -shared -fPIC -O1 -nostdlib
            -o ${_tvmffi_foreign_lib} ${CMAKE_CURRENT_SOURCE_DIR}/cross/foreign_lib.c
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cross/foreign_lib.c
    COMMENT "Building a ${_tvmffi_foreign_machine} library with ${TVMFFI_FOREIGN_CC}"
    VERBATIM)
  add_custom_target(tvmffi_test_foreign_lib ALL DEPENDS ${_tvmffi_foreign_lib})
endif()

# run_expect.cmake (CMD: the command, a list) with a SKIP when the other
# machine's compiler is missing.
function(tvmffi_cross_test name cmd)
  if(TVMFFI_FOREIGN_CC)
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" ${ARGN}
             -P ${_tvmffi_run_expect})
  else()
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo
             "SKIP: no ${_tvmffi_foreign_cc_names} to build a ${_tvmffi_foreign_machine} library")
    set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: ")
  endif()
endfunction()

# The loader (Module::LoadFromFile via the C caller): the ELF pre-check refuses
# it before dlopen, naming both machines.
tvmffi_cross_test(cross_load_foreign
  "$<TARGET_FILE:tvmffi_c_caller>;${_tvmffi_foreign_lib}"
  -DEXPECT_RC=nonzero
  "-DEXPECT_REGEX=\"[^\"]*libtvmffi_foreign_${_tvmffi_foreign_machine}\\.so\" was built for ${_tvmffi_foreign_machine} and cannot be loaded on ${_tvmffi_native_machine}")
if(TARGET tvmffi_cli)
  # `inspect` reads it (machine, exports) and says why it cannot load it.
  tvmffi_cross_test(cross_cli_inspect_foreign
    "$<TARGET_FILE:tvmffi_cli>;inspect;${_tvmffi_foreign_lib}"
    -DEXPECT_RC=nonzero
    "-DEXPECT_REGEX=file: +ELF 64-bit shared object, ${_tvmffi_foreign_machine}.*Functions \\(1\\):.*foreign_add.*is built for ${_tvmffi_foreign_machine} and cannot be loaded on ${_tvmffi_native_machine}")
  set_tests_properties(cross_cli_inspect_foreign PROPERTIES LABELS tools)
endif()
