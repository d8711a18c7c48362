# libtvmffi_upstream_cxx: upstream's out-of-line C++ API (runtime/upstream_cxx).

# The exported mangled names are exactly runtime/upstream_cxx/upstream_cxx.symbols.
add_test(NAME test_upstream_cxx_symbols
  COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:tvmffi_upstream_cxx> -DNM=${CMAKE_NM}
          -DLIST=${PROJECT_SOURCE_DIR}/runtime/upstream_cxx/upstream_cxx.symbols
          -P ${CMAKE_CURRENT_LIST_DIR}/check_exports.cmake)

# A stand-in for upstream's libtvm_ffi.so at link time (SONAME libtvm_ffi.so):
# the runtime's C functions plus link_stub.cc's C++ entry points (bodies that
# abort). The host below links against it alone, as an upstream-built host
# links against upstream's library; it is never loaded: the host's run path
# finds our runtime under that name.
# The runtime's module objects are left out (link_stub.cc says why).
add_library(tvmffi_test_upstream_link_stub SHARED ${CMAKE_CURRENT_LIST_DIR}/link_stub.cc
  "$<FILTER:$<TARGET_OBJECTS:tvmffi_runtime_objects>,EXCLUDE,/module[_a-z]*\\.cc\\.o$>")
target_link_libraries(tvmffi_test_upstream_link_stub PRIVATE
  tvmffi::headers ${CMAKE_DL_LIBS} Threads::Threads)
# It exports what upstream's library does, nothing more: a host must not bind
# at link time to C++ runtime symbols that only this stand-in happens to carry
# (toolchains that link libstdc++ into shared libraries), since at run time the
# name resolves to our runtime, which exports TVMFFI* alone.
file(STRINGS ${PROJECT_SOURCE_DIR}/runtime/upstream_cxx/upstream_cxx.symbols
  _tvmffi_stub_names REGEX "^[^#]")
list(JOIN _tvmffi_stub_names ";\n    " _tvmffi_stub_globals)
set(_tvmffi_stub_map ${CMAKE_CURRENT_BINARY_DIR}/upstream_link_stub.map)
file(WRITE ${_tvmffi_stub_map}
  "{\n  global:\n    TVMFFI*;\n    ${_tvmffi_stub_globals};\n  local:\n    *;\n};\n")
target_link_options(tvmffi_test_upstream_link_stub PRIVATE "LINKER:-soname,libtvm_ffi.so"
  "LINKER:--version-script=${_tvmffi_stub_map}")
set_target_properties(tvmffi_test_upstream_link_stub PROPERTIES
  NO_SONAME ON
  OUTPUT_NAME tvm_ffi
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/upstream_link_stub)

# A host declared with upstream's class shapes (upstream_shapes.h), linked
# like an upstream-built host: against `libtvm_ffi.so` only (the stand-in
# above). At run time its DT_NEEDED libtvm_ffi.so resolves to our runtime,
# which brings libtvmffi_upstream_cxx.so; -z now makes a missing symbol fail
# at start-up.
add_executable(test_upstream_cxx ${CMAKE_CURRENT_LIST_DIR}/upstream_host.cc)
target_link_libraries(test_upstream_cxx PRIVATE
  tvmffi::headers tvmffi_test_upstream_link_stub Catch2::Catch2WithMain ${CMAKE_DL_LIBS})
tvmffi_add_warnings(test_upstream_cxx)
set_target_properties(test_upstream_cxx PROPERTIES SKIP_BUILD_RPATH ON)
# --no-as-needed: the C++ runtime must stay a dependency even where the link
# stub happens to satisfy its symbols (toolchains that default to --as-needed).
target_link_options(test_upstream_cxx PRIVATE "LINKER:-z,now" "LINKER:--no-as-needed"
  "LINKER:-rpath,$<TARGET_FILE_DIR:tvmffi>")
target_compile_definitions(test_upstream_cxx PRIVATE
  "TVMFFI_TEST_LIB_A=\"$<TARGET_FILE:tvmffi_test_mod_a>\""
  "TVMFFI_TEST_LIB_B=\"$<TARGET_FILE:tvmffi_test_mod_b>\""
  "TVMFFI_TEST_CPU_KERNELS=\"$<TARGET_FILE:${_tvmffi_cpu_kernels}>\"")
add_dependencies(test_upstream_cxx tvmffi tvmffi_upstream_cxx
  tvmffi_test_mod_a tvmffi_test_mod_b ${_tvmffi_cpu_kernels})
add_test(NAME test_upstream_cxx COMMAND test_upstream_cxx --reporter compact)

# A host built with our <tvm/ffi/extra/module.h> must not export a copy of
# upstream's out-of-line names (Module::LoadFromFile, ...): upstream's runtime
# would bind to it and recurse forever.
add_test(NAME test_upstream_cxx_no_interposition
  COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:test_module> -DNM=${CMAKE_NM} -DFORBID=ON
          -DLIST=${PROJECT_SOURCE_DIR}/runtime/upstream_cxx/upstream_cxx.symbols
          -P ${CMAKE_CURRENT_LIST_DIR}/check_exports.cmake)
