# Module topic: tvm/ffi/extra/module.h, runtime/module.cc and the export
# metadata, with the kernel-style libraries of tests/module/ (the C
# callee/caller are c_abi's, the `tvmffi` tool's tests tools').

tvmffi_module_test_lib(tvmffi_test_mod_a ${CMAKE_CURRENT_SOURCE_DIR}/module/lib_a.cc)
tvmffi_module_test_lib(tvmffi_test_mod_b ${CMAKE_CURRENT_SOURCE_DIR}/module/lib_b.cc)
tvmffi_module_test_lib(tvmffi_test_mod_nometa ${CMAKE_CURRENT_SOURCE_DIR}/module/lib_nometa.cc)
# Imports a tvmffi extension (TVMFFIErrorKindRegister): not portable.
tvmffi_module_test_lib(tvmffi_test_mod_ext ${CMAKE_CURRENT_SOURCE_DIR}/module/lib_ext.c)
tvmffi_strict_c(tvmffi_test_mod_ext ${CMAKE_CURRENT_SOURCE_DIR}/module/lib_ext.c)
# `__tvm_ffi__library_ctx` that cannot take a pointer (const, 1 byte, a
# function, RELRO): the loader refuses each (issue #25).
set(_tvmffi_bad_ctx_libs)
foreach(_v 1 2 3 4)
  tvmffi_module_test_lib(tvmffi_test_mod_bad_ctx${_v} ${CMAKE_CURRENT_SOURCE_DIR}/module/lib_bad_ctx.c)
  target_compile_definitions(tvmffi_test_mod_bad_ctx${_v} PRIVATE TVMFFI_BAD_CTX=${_v})
  target_link_options(tvmffi_test_mod_bad_ctx${_v} PRIVATE "LINKER:-z,relro" "LINKER:-z,now")
  list(APPEND _tvmffi_bad_ctx_libs tvmffi_test_mod_bad_ctx${_v})
endforeach()
# An embedded `__tvm_ffi__library_bin` (TVM's export_library): rebuilt and
# imported by the loader; an unregistered kind, a truncated blob: refused.
set(_tvmffi_bin_libs)
foreach(_v 1 2 3)
  tvmffi_module_test_lib(tvmffi_test_mod_bin${_v} ${CMAKE_CURRENT_SOURCE_DIR}/module/lib_bin.c)
  target_compile_definitions(tvmffi_test_mod_bin${_v} PRIVATE TVMFFI_BIN=${_v})
  list(APPEND _tvmffi_bin_libs tvmffi_test_mod_bin${_v})
endforeach()
# No TVM-FFI symbols at all (and no libtvmffi dependency).
add_library(tvmffi_test_mod_noexport SHARED ${CMAKE_CURRENT_SOURCE_DIR}/module/lib_noexport.c)
set_target_properties(tvmffi_test_mod_noexport PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/module_libs)
# A static archive: "not a shared library".
add_library(tvmffi_test_mod_static STATIC ${CMAKE_CURRENT_SOURCE_DIR}/module/lib_noexport.c)
set_target_properties(tvmffi_test_mod_static PROPERTIES
  ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/module_libs)

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
tvmffi_find_nlohmann_json()
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

tvmffi_add_test(test_module_bin ${CMAKE_CURRENT_LIST_DIR}/test_module_bin.cc)
target_compile_definitions(test_module_bin PRIVATE
  "TVMFFI_TEST_LIB_BIN1=\"$<TARGET_FILE:tvmffi_test_mod_bin1>\""
  "TVMFFI_TEST_LIB_BIN2=\"$<TARGET_FILE:tvmffi_test_mod_bin2>\""
  "TVMFFI_TEST_LIB_BIN3=\"$<TARGET_FILE:tvmffi_test_mod_bin3>\"")
add_dependencies(test_module_bin ${_tvmffi_bin_libs})

if(TARGET tvmffi_demo)
  add_test(NAME module_demo COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:tvmffi_demo>"
    -DEXPECT_RC=0
    "-DEXPECT_REGEX=demo.mul\\(6, 7\\) through the C ABI = 42.*raised TypeError.*y = \\[2, 3, 4, 5\\].*add_one\\(x, 42\\) raised TypeError: .*scale_alloc\\(x, 2.5\\) = \\[2.5, 5, 7.5, 10\\]"
    -P ${_tvmffi_run_expect})
endif()
