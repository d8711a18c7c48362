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

# docs/building.md's aarch64 cross build configures as typed there, with no
# target sysroot for the header-only dependencies (needs Debian's
# g++-aarch64-linux-gnu; SKIP without it).
if(NOT CMAKE_CROSSCOMPILING AND NOT TVMFFI_ANY_SANITIZER)
  find_program(TVMFFI_AARCH64_CXX aarch64-linux-gnu-g++)
  if(TVMFFI_AARCH64_CXX)
    add_test(NAME test_cross_configure
      COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
              -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/cross_configure_check
              "-DGENERATOR=${CMAKE_GENERATOR}"
              -P ${CMAKE_CURRENT_LIST_DIR}/check_cross_configure.cmake)
  else()
    add_test(NAME test_cross_configure COMMAND ${CMAKE_COMMAND} -E echo
             "SKIP: no aarch64-linux-gnu-g++ (Debian: g++-aarch64-linux-gnu)")
    set_tests_properties(test_cross_configure PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: ")
  endif()
endif()
