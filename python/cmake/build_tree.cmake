# TVMFFI_BUILD_PYTHON: the package in the build tree, <build>/python/tvmffi
# (PYTHONPATH=<build>/python), laid out as the wheel is: _core and the Python
# sources, and under lib/ copies of the runtime (as libtvm_ffi.so, its SONAME:
# the file the package loads) and of libtvmffi_upstream_cxx.so.
include(${CMAKE_CURRENT_LIST_DIR}/tvmffi_python.cmake)

set(_pkg "${CMAKE_BINARY_DIR}/python/tvmffi")
set_target_properties(tvmffi_python_core ${TVMFFI_TORCH_EXCHANGE_TARGET}
  PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${_pkg}")

set(_outputs "${_pkg}/lib/libtvm_ffi.so" "${_pkg}/lib/libtvmffi_upstream_cxx.so")
add_custom_command(OUTPUT ${_outputs}
  COMMAND ${CMAKE_COMMAND} -E make_directory "${_pkg}/lib"
  COMMAND ${CMAKE_COMMAND} -E copy "$<TARGET_FILE:tvmffi>" "${_pkg}/lib/libtvm_ffi.so"
  COMMAND ${CMAKE_COMMAND} -E copy "$<TARGET_FILE:tvmffi_upstream_cxx>"
          "${_pkg}/lib/libtvmffi_upstream_cxx.so"
  DEPENDS tvmffi tvmffi_upstream_cxx "$<TARGET_FILE:tvmffi>"
          "$<TARGET_FILE:tvmffi_upstream_cxx>" VERBATIM)
foreach(_name IN LISTS TVMFFI_PYTHON_SOURCES)  # may name subpackages' files
  set(_src "${CMAKE_CURRENT_LIST_DIR}/../tvmffi/${_name}")
  add_custom_command(OUTPUT "${_pkg}/${_name}"
    COMMAND ${CMAKE_COMMAND} -E copy "${_src}" "${_pkg}/${_name}"
    DEPENDS "${_src}" VERBATIM)
  list(APPEND _outputs "${_pkg}/${_name}")
endforeach()
if(TVMFFI_TORCH_EXCHANGE_FOR)
  add_custom_command(OUTPUT "${_pkg}/_torch_exchange_for.py"
    COMMAND ${CMAKE_COMMAND} -E copy "${TVMFFI_TORCH_EXCHANGE_FOR}" "${_pkg}/_torch_exchange_for.py"
    DEPENDS "${TVMFFI_TORCH_EXCHANGE_FOR}" VERBATIM)
  list(APPEND _outputs "${_pkg}/_torch_exchange_for.py")
endif()
add_custom_target(tvmffi_python ALL DEPENDS ${_outputs} tvmffi_python_core
                  ${TVMFFI_TORCH_EXCHANGE_TARGET})
