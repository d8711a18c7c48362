# Tools layer: the `tvmffi` tool (tools/, with TVMFFI_BUILD_TOOLS) on the
# libraries of tests/module/ and the CPU kernels (runtime/module.cmake).
if(TARGET tvmffi_cli)
  # Its argument language, linked directly.
  tvmffi_add_test(test_cli_args ${CMAKE_CURRENT_LIST_DIR}/test_cli_args.cc)
  target_link_libraries(test_cli_args PRIVATE tvmffi_cli_args)

  set(_cli $<TARGET_FILE:tvmffi_cli>)
  set(_kern $<TARGET_FILE:${_tvmffi_cpu_kernels}>)
  add_test(NAME module_cli_inspect COMMAND ${CMAKE_COMMAND} "-DCMD=${_cli};inspect;${_kern}"
    -DEXPECT_RC=0
    "-DEXPECT_REGEX=Functions \\(12\\):.*add\\(DLTensor\\*, DLTensor\\*, Optional<DLTensor\\*>\\) -> None.*add_one\\(DLTensor\\*, DLTensor\\*\\) -> None.*greet\\(str\\) -> str.*TVM-FFI C functions \\([0-9]+\\): .*TVMFFIErrorSetRaised.*all provided by this libtvmffi.*portable: yes, imports only standard TVM-FFI 0.1 symbols.*C\\+\\+ runtime: yes"
    -P ${_tvmffi_run_expect})
  # TVM_FFI_DLL_EXPORT_WRITES, under each function's signature.
  add_test(NAME module_cli_inspect_writes COMMAND ${CMAKE_COMMAND} "-DCMD=${_cli};inspect;${_kern}"
    -DEXPECT_RC=0
    "-DEXPECT_REGEX=\n  add_one\\(DLTensor\\*, DLTensor\\*\\) -> None\n      writes argument 1\n.*\n  sum\\(DLTensor\\*\\) -> float\n      writes none of its arguments\n"
    -P ${_tvmffi_run_expect})
  add_test(NAME module_cli_inspect_c COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};inspect;$<TARGET_FILE:tvmffi_test_c_callee>"
    -DEXPECT_RC=0
    "-DEXPECT_REGEX=c_add_one  \\(no metadata\\).*C\\+\\+ runtime: none"
    -P ${_tvmffi_run_expect})
  add_test(NAME module_cli_inspect_extension COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};inspect;$<TARGET_FILE:tvmffi_test_mod_ext>"
    -DEXPECT_RC=0
    "-DEXPECT_REGEX=ext_kind_code.*portable: no, needs extensions beyond the standard TVM-FFI 0.1 symbols: TVMFFIErrorKindRegister\n"
    -P ${_tvmffi_run_expect})
  add_test(NAME module_cli_inspect_missing COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};inspect;/nonexistent/libnothing.so"
    -DEXPECT_RC=nonzero
    "-DEXPECT_REGEX=tvmffi inspect: error: cannot open \"/nonexistent/libnothing.so\": no such file"
    -P ${_tvmffi_run_expect})
  add_test(NAME module_cli_inspect_foreign COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};inspect;${_tvmffi_run_expect}"
    -DEXPECT_RC=nonzero
    "-DEXPECT_REGEX=is not a shared library \\(no ELF header; it looks like a text file\\)"
    -P ${_tvmffi_run_expect})
  add_test(NAME module_cli_inspect_noexport COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};inspect;$<TARGET_FILE:tvmffi_test_mod_noexport>"
    -DEXPECT_RC=nonzero
    "-DEXPECT_REGEX=Functions \\(0\\):.*exports no TVM-FFI functions"
    "-DEXPECT_NOT_REGEX=portable: yes"
    -P ${_tvmffi_run_expect})
  add_test(NAME module_cli_call COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};call;${_kern};scale_alloc;f32[[1,2],[3,4]];2.5"
    -DEXPECT_RC=0
    "-DEXPECT_REGEX=^f32\\[\\[2.5, 5\\], \\[7.5, 10\\]\\]\n  arg 0: f32\\[\\[1, 2\\], \\[3, 4\\]\\]"
    -P ${_tvmffi_run_expect})
  # A ragged literal (#14): refused, never a 0-element tensor written with 100 values.
  string(REPEAT "1," 99 _ones)
  string(REPEAT "[]," 99 _empties)
  add_test(NAME module_cli_call_ragged COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};call;${_kern};sum;f32[[${_ones}1],[${_empties}[]]]"
    -DEXPECT_RC=2
    "-DEXPECT_REGEX=tvmffi call: error: argument 0: bad tensor `f32.*`: ragged nesting"
    -P ${_tvmffi_run_expect})
  add_test(NAME module_cli_call_scalars COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};call;${_kern};add_int;40;2"
    -DEXPECT_RC=0 "-DEXPECT_REGEX=^42\n" -P ${_tvmffi_run_expect})
  add_test(NAME module_cli_call_error COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};call;${_kern};add_one;f32[1,2];7"
    -DEXPECT_RC=nonzero
    "-DEXPECT_REGEX=tvmffi call: error: TypeError: Mismatched type on argument #1 when calling: `add_one"
    -P ${_tvmffi_run_expect})
  add_test(NAME module_cli_call_missing_function COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cli};call;${_kern};nope"
    -DEXPECT_RC=nonzero
    "-DEXPECT_REGEX=AttributeError: Module `.*` has no function `nope`"
    -P ${_tvmffi_run_expect})
endif()
