# find_package(tvm_ffi) for recipes written for apache/tvm-ffi (its
# `tvm-ffi-config --cmakedir` and `python -m tvm_ffi.config --cmakedir` point
# here, <libdir>/cmake/tvm_ffi): the tvmffi package of the folder beside this
# one, also under upstream's target names tvm_ffi::header and tvm_ffi::shared,
# and the helpers of tvm_ffi_utils.cmake (tvm_ffi_configure_target, ...).
include("${CMAKE_CURRENT_LIST_DIR}/../tvmffi/tvmffiConfig.cmake")
if(NOT tvmffi_FOUND AND DEFINED tvmffi_FOUND)
  set(tvm_ffi_FOUND FALSE)
  set(tvm_ffi_NOT_FOUND_MESSAGE "${tvmffi_NOT_FOUND_MESSAGE}")
  return()
endif()
if(NOT TARGET tvm_ffi::header)
  add_library(tvm_ffi::header INTERFACE IMPORTED)
  target_link_libraries(tvm_ffi::header INTERFACE tvmffi::headers)
endif()
if(NOT TARGET tvm_ffi::shared)
  add_library(tvm_ffi::shared INTERFACE IMPORTED)
  target_link_libraries(tvm_ffi::shared INTERFACE tvmffi::tvmffi)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/tvm_ffi_utils.cmake")
