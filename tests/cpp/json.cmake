# JSON (tvm/ffi/extra/json.h; parser and writer in runtime/json.cc) and object
# graphs (tvm/ffi/extra/serialization.h; runtime/serialization_{write,read}.cc). ReprPrint
# (extra/dataclass.h) is tested in reflection.cmake.
tvmffi_add_test(test_json ${CMAKE_CURRENT_LIST_DIR}/test_json.cc)
tvmffi_add_test(test_serialization ${CMAKE_CURRENT_LIST_DIR}/test_serialization.cc)
tvmffi_add_test(test_big_int_extra ${CMAKE_CURRENT_LIST_DIR}/test_big_int_extra.cc)

# A library built with our json.h must not export upstream's out-of-line names
# (json::Parse, json::Stringify, ReprPrint): an upstream runtime would bind to its copy.
add_library(tvmffi_test_json_user SHARED ${CMAKE_CURRENT_SOURCE_DIR}/json/user_lib.cc)
target_link_libraries(tvmffi_test_json_user PRIVATE tvmffi::tvmffi)
add_test(NAME test_json_no_interposition
  COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:tvmffi_test_json_user> -DNM=${CMAKE_NM} -DFORBID=ON
          -DLIST=${PROJECT_SOURCE_DIR}/runtime/upstream_cxx/upstream_cxx.symbols
          -P ${CMAKE_CURRENT_SOURCE_DIR}/upstream_cxx/check_exports.cmake)
