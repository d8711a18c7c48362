# Interop topic (README "Interoperability"): one TVM-FFI runtime per process,
# a second runtime stays harmless, libraries built with our headers are portable.
set(_interop_out ${CMAKE_CURRENT_BINARY_DIR}/interop)
set(_interop_src ${CMAKE_CURRENT_LIST_DIR})
set(_run_expect ${_tvmffi_run_expect})

# Copies of the runtime, linked from the same objects as libtvmffi.so:
#  - foreign: stands in for another implementation's runtime (same SONAME
#    libtvm_ffi.so, its own folder);
#  - twin: a distinct runtime (another SONAME and path);
#  - dup: its built-ins include a conflicting registration (dup_builtin.cc).
function(tvmffi_interop_runtime target soname dir)
  add_library(${target} SHARED ${ARGN})
  tvmffi_link_runtime(${target} ${soname})
  string(REGEX REPLACE "^lib(.*)\\.so$" "\\1" name "${soname}")
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${name}
    LIBRARY_OUTPUT_DIRECTORY ${_interop_out}/${dir})
endfunction()
tvmffi_interop_runtime(tvmffi_interop_foreign libtvm_ffi.so foreign)
tvmffi_interop_runtime(tvmffi_interop_twin libtvmffi_twin.so twin)
tvmffi_interop_runtime(tvmffi_interop_dup libtvmffi_dup.so dup ${_interop_src}/dup_builtin.cc)
target_include_directories(tvmffi_interop_dup PRIVATE ${PROJECT_SOURCE_DIR}/runtime)

# Libraries built with our headers and tvmffi::tvmffi (DT_NEEDED libtvm_ffi.so).
function(tvmffi_interop_library target source)
  add_library(${target} SHARED ${source})
  target_link_libraries(${target} PRIVATE tvmffi::tvmffi)
  tvmffi_add_warnings(${target})
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${_interop_out}/libs)
endfunction()
tvmffi_interop_library(tvmffi_interop_kernel ${_interop_src}/kernel.cc)
tvmffi_interop_library(tvmffi_interop_dup_global ${_interop_src}/dup_global_lib.cc)

# The host links no runtime: it loads them with dlopen.
add_executable(test_interop ${_interop_src}/interop_host.cc)
target_link_libraries(test_interop PRIVATE tvmffi::headers ${CMAKE_DL_LIBS})
tvmffi_add_warnings(test_interop)
add_dependencies(test_interop tvmffi tvmffi_interop_foreign tvmffi_interop_twin tvmffi_interop_dup
                 tvmffi_interop_kernel tvmffi_interop_dup_global)

add_test(NAME interop_standin COMMAND test_interop standin
  $<TARGET_FILE:tvmffi_interop_foreign> $<TARGET_FILE:tvmffi_interop_kernel> $<TARGET_FILE:tvmffi>)
add_test(NAME interop_two_runtimes COMMAND test_interop two_runtimes
  $<TARGET_FILE:tvmffi> $<TARGET_FILE:tvmffi_interop_twin>)
# Both failures reach stderr (stdout comes first in the output) as well as ffi.LoadFailures.
add_test(NAME interop_load_failures COMMAND ${CMAKE_COMMAND}
  "-DCMD=$<TARGET_FILE:test_interop>;load_failures;$<TARGET_FILE:tvmffi_interop_dup>;$<TARGET_FILE:tvmffi>;$<TARGET_FILE:tvmffi_interop_dup_global>"
  -DEXPECT_RC=0
  "-DEXPECT_REGEX=test_interop load_failures: [0-9]+ checks, 0 failed.*tvmffi: cannot register built-in global `interop.dup`: [^\n]*already registered.*tvmffi: static initialisation at [^\n]*dup_global_lib.cc:[0-9]+ failed: RuntimeError: Global function `ffi.String` is already registered"
  -P ${_run_expect})
if(TVMFFI_SANITIZE)
  # See lsan_two_runtimes.supp: LSan's TLS scan crashes in this process.
  set_tests_properties(interop_load_failures PROPERTIES ENVIRONMENT
    "LSAN_OPTIONS=use_tls=0:suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan_two_runtimes.supp")
endif()

# Portable by default: what our headers put into a kernel library imports only
# the standard TVM-FFI 0.1 C symbols (runtime/standard_symbols.txt).
set(_portable_libs tvmffi_interop_kernel tvmffi_interop_dup_global)
if(TARGET tvmffi_cpu_kernels)
  list(APPEND _portable_libs tvmffi_cpu_kernels)
endif()
if(TARGET tvmffi_kernels)
  list(APPEND _portable_libs tvmffi_kernels)
endif()
foreach(lib IN LISTS _portable_libs)
  add_test(NAME interop_portable_${lib} COMMAND ${CMAKE_COMMAND}
    -DLIB=$<TARGET_FILE:${lib}> -DNM=${CMAKE_NM}
    -DSTANDARD=${PROJECT_SOURCE_DIR}/runtime/standard_symbols.txt
    -P ${_interop_src}/check_portable.cmake)
endforeach()
# The check itself catches an extension: test_c_api calls TVMFFIErrorKindRegister.
# CMake wraps FATAL_ERROR text at a width that depends on the path's length, so
# the words of the verdict may be split by a newline and indentation.
add_test(NAME interop_portable_detects_extensions COMMAND ${CMAKE_COMMAND}
  "-DCMD=${CMAKE_COMMAND};-DLIB=$<TARGET_FILE:test_c_api>;-DNM=${CMAKE_NM};-DSTANDARD=${PROJECT_SOURCE_DIR}/runtime/standard_symbols.txt;-P;${_interop_src}/check_portable.cmake"
  -DEXPECT_RC=nonzero
  "-DEXPECT_REGEX=is[ \n]+not[ \n]+portable:[ \n]+it[ \n]+imports.*TVMFFIErrorKindRegister"
  -P ${_run_expect})
