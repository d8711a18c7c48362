# TVMFFI_BUILD_PYTHON: the package in the build tree, <build>/python/tvmffi
# (PYTHONPATH=<build>/python), with _core, the Python sources and a copy of
# libtvmffi.so, the file the package loads.
include(${CMAKE_CURRENT_LIST_DIR}/tvmffi_python.cmake)

set(_pkg "${CMAKE_BINARY_DIR}/python/tvmffi")
set_target_properties(tvmffi_python_core ${TVMFFI_TORCH_EXCHANGE_TARGET}
  PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${_pkg}")

set(_outputs "${_pkg}/libtvmffi.so")
add_custom_command(OUTPUT "${_pkg}/libtvmffi.so"
  COMMAND ${CMAKE_COMMAND} -E copy "$<TARGET_FILE:tvmffi>" "${_pkg}/libtvmffi.so"
  DEPENDS tvmffi "$<TARGET_FILE:tvmffi>" VERBATIM)
foreach(_src IN LISTS TVMFFI_PYTHON_SOURCE_PATHS)
  get_filename_component(_name "${_src}" NAME)
  add_custom_command(OUTPUT "${_pkg}/${_name}"
    COMMAND ${CMAKE_COMMAND} -E copy "${_src}" "${_pkg}/${_name}"
    DEPENDS "${_src}" VERBATIM)
  list(APPEND _outputs "${_pkg}/${_name}")
endforeach()
add_custom_target(tvmffi_python ALL DEPENDS ${_outputs} tvmffi_python_core
                  ${TVMFFI_TORCH_EXCHANGE_TARGET})
