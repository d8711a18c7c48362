# Module topic: tvm/ffi/extra/module.h, runtime/module.cc, the export
# metadata, the C callee/caller and the `tvmffi` tool.

# Kernel-style libraries that test_module loads with dlopen (never linked):
# hidden visibility, so only what the export macros mark is exported.
function(tvmffi_module_test_lib name)
  add_library(${name} SHARED ${ARGN})
  target_link_libraries(${name} PRIVATE tvmffi::tvmffi)
  set_target_properties(${name} PROPERTIES
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/module_libs)
endfunction()

tvmffi_module_test_lib(tvmffi_test_mod_a ${CMAKE_CURRENT_LIST_DIR}/module/lib_a.cc)
tvmffi_module_test_lib(tvmffi_test_mod_b ${CMAKE_CURRENT_LIST_DIR}/module/lib_b.cc)
tvmffi_module_test_lib(tvmffi_test_mod_nometa ${CMAKE_CURRENT_LIST_DIR}/module/lib_nometa.cc)
# Imports a tvmffi extension (TVMFFIErrorKindRegister): not portable.
tvmffi_module_test_lib(tvmffi_test_mod_ext ${CMAKE_CURRENT_LIST_DIR}/module/lib_ext.c)
tvmffi_strict_c(tvmffi_test_mod_ext ${CMAKE_CURRENT_LIST_DIR}/module/lib_ext.c)
# `__tvm_ffi__library_ctx` that cannot take a pointer (const, 1 byte, a
# function, RELRO): the loader refuses each (issue #25).
set(_tvmffi_bad_ctx_libs)
foreach(_v 1 2 3 4)
  tvmffi_module_test_lib(tvmffi_test_mod_bad_ctx${_v} ${CMAKE_CURRENT_LIST_DIR}/module/lib_bad_ctx.c)
  target_compile_definitions(tvmffi_test_mod_bad_ctx${_v} PRIVATE TVMFFI_BAD_CTX=${_v})
  target_link_options(tvmffi_test_mod_bad_ctx${_v} PRIVATE "LINKER:-z,relro" "LINKER:-z,now")
  list(APPEND _tvmffi_bad_ctx_libs tvmffi_test_mod_bad_ctx${_v})
endforeach()
# No TVM-FFI symbols at all (and no libtvmffi dependency).
add_library(tvmffi_test_mod_noexport SHARED ${CMAKE_CURRENT_LIST_DIR}/module/lib_noexport.c)
set_target_properties(tvmffi_test_mod_noexport PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/module_libs)
# A static archive: "not a shared library".
add_library(tvmffi_test_mod_static STATIC ${CMAKE_CURRENT_LIST_DIR}/module/lib_noexport.c)
set_target_properties(tvmffi_test_mod_static PROPERTIES
  ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/module_libs)

# The hand-written C library (strict C11) and the C host that loads it.
tvmffi_module_test_lib(tvmffi_test_c_callee ${CMAKE_CURRENT_LIST_DIR}/c_callee.c)
tvmffi_strict_c(tvmffi_test_c_callee ${CMAKE_CURRENT_LIST_DIR}/c_callee.c)
add_executable(tvmffi_c_caller ${CMAKE_CURRENT_LIST_DIR}/c_caller.c)
tvmffi_strict_c(tvmffi_c_caller ${CMAKE_CURRENT_LIST_DIR}/c_caller.c)
target_link_libraries(tvmffi_c_caller PRIVATE tvmffi::tvmffi)
add_dependencies(tvmffi_c_caller tvmffi_test_c_callee)

# The CPU kernel library: the one from kernels/ when it is built, else a test copy.
if(TARGET tvmffi_cpu_kernels)
  set(_tvmffi_cpu_kernels tvmffi_cpu_kernels)
else()
  tvmffi_module_test_lib(tvmffi_test_cpu_kernels ${PROJECT_SOURCE_DIR}/kernels/cpu/cpu_kernels.cc)
  set(_tvmffi_cpu_kernels tvmffi_test_cpu_kernels)
endif()

set(_tvmffi_module_libs tvmffi_test_mod_a tvmffi_test_mod_b tvmffi_test_mod_nometa tvmffi_test_mod_ext
    tvmffi_test_mod_noexport tvmffi_test_mod_static tvmffi_test_c_callee ${_tvmffi_cpu_kernels}
    ${_tvmffi_bad_ctx_libs})

find_package(Threads REQUIRED)
# Metadata JSON is read back with a well-kept parser, as the tool reads it.
find_package(nlohmann_json 3 REQUIRED)
tvmffi_add_test(test_module ${CMAKE_CURRENT_LIST_DIR}/test_module.cc)
target_link_libraries(test_module PRIVATE Threads::Threads)
target_link_libraries(test_module PRIVATE nlohmann_json::nlohmann_json)
target_compile_definitions(test_module PRIVATE
  "TVMFFI_TEST_LIB_A=\"$<TARGET_FILE:tvmffi_test_mod_a>\""
  "TVMFFI_TEST_LIB_B=\"$<TARGET_FILE:tvmffi_test_mod_b>\""
  "TVMFFI_TEST_LIB_NOMETA=\"$<TARGET_FILE:tvmffi_test_mod_nometa>\""
  "TVMFFI_TEST_LIB_NOEXPORT=\"$<TARGET_FILE:tvmffi_test_mod_noexport>\""
  "TVMFFI_TEST_LIB_STATIC=\"$<TARGET_FILE:tvmffi_test_mod_static>\""
  "TVMFFI_TEST_C_CALLEE=\"$<TARGET_FILE:tvmffi_test_c_callee>\""
  "TVMFFI_TEST_CPU_KERNELS=\"$<TARGET_FILE:${_tvmffi_cpu_kernels}>\""
  "TVMFFI_TEST_BAD_CTX_DIR=\"$<TARGET_FILE_DIR:tvmffi_test_mod_bad_ctx1>\"")
add_dependencies(test_module ${_tvmffi_module_libs})

# The C caller loads the C callee: a working call, a caught TypeError, a
# missing function (None) and a missing file.
set(_tvmffi_run_expect ${CMAKE_CURRENT_LIST_DIR}/run_expect.cmake)
add_test(NAME module_c_caller COMMAND ${CMAKE_COMMAND}
  "-DCMD=$<TARGET_FILE:tvmffi_c_caller>;$<TARGET_FILE:tvmffi_test_c_callee>"
  -DEXPECT_RC=0
  "-DEXPECT_REGEX=y = \\[2, 3, 4, 5\\].*raised: TypeError: c_add_one: argument #1 \\(y\\) must be a tensor.*-> None.*load missing file: RuntimeError: .*/nonexistent/libnothing.so.*c_caller: ok"
  -P ${_tvmffi_run_expect})

# The `tvmffi` tool (tools/, with TVMFFI_BUILD_TOOLS).
if(TARGET tvmffi_cli)
  # Its argument language, linked directly.
  tvmffi_add_test(test_cli_args ${CMAKE_CURRENT_LIST_DIR}/test_cli_args.cc)
  target_link_libraries(test_cli_args PRIVATE tvmffi_cli_args)

  set(_cli $<TARGET_FILE:tvmffi_cli>)
  set(_kern $<TARGET_FILE:${_tvmffi_cpu_kernels}>)
  add_test(NAME module_cli_inspect COMMAND ${CMAKE_COMMAND} "-DCMD=${_cli};inspect;${_kern}"
    -DEXPECT_RC=0
    "-DEXPECT_REGEX=Functions \\(12\\):.*add\\(DLTensor\\*, DLTensor\\*, Optional\\[DLTensor\\*\\]\\) -> None.*add_one\\(DLTensor\\*, DLTensor\\*\\) -> None.*greet\\(str\\) -> str.*TVM-FFI C functions \\([0-9]+\\): .*TVMFFIErrorSetRaised.*all provided by this libtvmffi.*portable: yes, imports only standard TVM-FFI 0.1 symbols.*C\\+\\+ runtime: yes"
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

if(TARGET tvmffi_demo)
  add_test(NAME module_demo COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:tvmffi_demo>"
    -DEXPECT_RC=0
    "-DEXPECT_REGEX=demo.mul\\(6, 7\\) through the C ABI = 42.*raised TypeError.*y = \\[2, 3, 4, 5\\].*add_one\\(x, 42\\) raised TypeError: .*scale_alloc\\(x, 2.5\\) = \\[2.5, 5, 7.5, 10\\]"
    -P ${_tvmffi_run_expect})
endif()
