# find_package(tvm_ffi) for recipes written for apache/tvm-ffi (its
# `tvm-ffi-config --cmakedir` points here): the tvmffi package, also under
# upstream's target names tvm_ffi::header and tvm_ffi::shared.
include("${CMAKE_CURRENT_LIST_DIR}/tvmffiConfig.cmake")
if(NOT TARGET tvm_ffi::header)
  add_library(tvm_ffi::header INTERFACE IMPORTED)
  target_link_libraries(tvm_ffi::header INTERFACE tvmffi::headers)
endif()
if(NOT TARGET tvm_ffi::shared)
  add_library(tvm_ffi::shared INTERFACE IMPORTED)
  target_link_libraries(tvm_ffi::shared INTERFACE tvmffi::tvmffi)
endif()
