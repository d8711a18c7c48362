# Tests of libtvmffi through its C ABI only (runtime topic).

# Every type and function of both C headers, from strict C11.
add_executable(test_c_api test_c_api.c)
tvmffi_strict_c(test_c_api test_c_api.c)
target_link_libraries(test_c_api PRIVATE tvmffi::tvmffi)
add_test(NAME test_c_api COMMAND test_c_api)

# ABI sizes/offsets/enumerators: compiling is the test (as C11 and as C++17),
# container object layouts included (test_container_layout.cc).
add_executable(test_layout test_layout.c test_layout_cxx.cc test_container_layout.cc)
tvmffi_strict_c(test_layout test_layout.c)
target_link_libraries(test_layout PRIVATE tvmffi::headers)
add_test(NAME test_layout COMMAND test_layout)

# The runtime's behaviour, driven from C++ through the C functions only.
tvmffi_add_test(test_runtime
  test_runtime_objects.cc
  test_runtime_errors.cc
  test_runtime_functions.cc
  test_runtime_env.cc
  test_runtime_tensor.cc)

# libtvmffi.so exports TVMFFI* symbols and nothing else, and all the standard ones.
add_test(NAME test_symbols
  COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:tvmffi> -DNM=${CMAKE_NM}
          -DSTANDARD=${PROJECT_SOURCE_DIR}/runtime/standard_symbols.txt
          -P ${CMAKE_CURRENT_SOURCE_DIR}/check_symbols.cmake)

# cmake --install, then a downstream project with find_package(tvmffi) and
# pkg-config. Not under sanitizers: the consumer is an ordinary build.
if(CMAKE_CROSSCOMPILING AND NOT TVMFFI_ANY_SANITIZER)
  # Its consumer projects are configured for the build machine, not the target.
  add_test(NAME test_install COMMAND ${CMAKE_COMMAND} -E echo
           "SKIP: cross build: the downstream consumers would be built for the build machine")
  set_tests_properties(test_install PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: ")
elseif(NOT TVMFFI_ANY_SANITIZER)
  find_program(TVMFFI_READELF NAMES readelf ${CMAKE_READELF} REQUIRED)
  add_test(NAME test_install
    COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
            -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install_check "-DGENERATOR=${CMAKE_GENERATOR}" "-DEXTRA_PREFIX=${CMAKE_PREFIX_PATH}"
            -DREADELF=${TVMFFI_READELF} -DCXX=${CMAKE_CXX_COMPILER}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/install/check_install.cmake)
endif()
