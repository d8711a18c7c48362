# Install tvmffi into a scratch prefix, then build and run a consumer with
# find_package(tvmffi), and with pkg-config; both must record DT_NEEDED
# libtvm_ffi.so (the runtime's SONAME) and run against the installed runtime.
# -D BUILD_DIR, SOURCE_DIR, WORK_DIR, GENERATOR, EXTRA_PREFIX (where DLPack may live),
#    READELF, CXX (for the pkg-config consumer)
set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/tvm/ffi/c_api.h include/tvm/ffi/extra/c_env_api.h include/tvm/ffi/tvm_ffi.h
          lib/libtvmffi.so lib/libtvm_ffi.so lib/cmake/tvmffi/tvmffiConfig.cmake
          lib/pkgconfig/tvmffi.pc)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# `readelf -d` of `file` must show `pattern`.
function(expect_dynamic file pattern)
  run(${READELF} -d "${file}")
  if(NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "${file}: no `${pattern}` in readelf -d:\n${out}")
  endif()
endfunction()
expect_dynamic("${prefix}/lib/libtvmffi.so" "Library soname: \\[libtvm_ffi\\.so\\]")
# The search path goes through the environment (':'-separated): a ';' list
# would be split into separate arguments on its way to execute_process.
string(REPLACE ";" ":" extra "${EXTRA_PREFIX}")
set(ENV{CMAKE_PREFIX_PATH} "${prefix}:${extra}")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer" -B "${WORK_DIR}/consumer"
    -G "${GENERATOR}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
run("${WORK_DIR}/consumer/consumer")
message(STATUS "${out}")
expect_dynamic("${WORK_DIR}/consumer/consumer" "NEEDED.*Shared library: \\[libtvm_ffi\\.so\\]")
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
  run(${PKG_CONFIG} --libs tvmffi)
  if(NOT out MATCHES "-L${prefix}/lib/pkgconfig/../../lib -ltvmffi")
    message(FATAL_ERROR "unexpected pkg-config --libs: ${out}")
  endif()
  # The same consumer, built with nothing but the pkg-config flags.
  run(${PKG_CONFIG} --cflags --libs tvmffi)
  separate_arguments(pc_flags UNIX_COMMAND "${out}")
  set(pc_consumer "${WORK_DIR}/pc_consumer")
  run(${CXX} -std=c++17 "${SOURCE_DIR}/tests/install/consumer/main.cc" ${pc_flags}
      "-Wl,-rpath,${prefix}/lib" -o "${pc_consumer}")
  run("${pc_consumer}")
  expect_dynamic("${pc_consumer}" "NEEDED.*Shared library: \\[libtvm_ffi\\.so\\]")
endif()
