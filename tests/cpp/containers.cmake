# Container tests (Array, Map, Tuple, Variant, std:: bridges); the C callers are c_abi's.
tvmffi_add_test(test_array ${CMAKE_CURRENT_LIST_DIR}/test_array.cc)
tvmffi_add_test(test_map ${CMAKE_CURRENT_LIST_DIR}/test_map.cc)
tvmffi_add_test(test_dict ${CMAKE_CURRENT_LIST_DIR}/test_dict.cc)
tvmffi_add_test(test_list ${CMAKE_CURRENT_LIST_DIR}/test_list.cc)
tvmffi_add_test(test_variant ${CMAKE_CURRENT_LIST_DIR}/test_variant.cc)
tvmffi_add_test(test_tuple ${CMAKE_CURRENT_LIST_DIR}/test_tuple.cc)
tvmffi_add_test(test_stl ${CMAKE_CURRENT_LIST_DIR}/test_stl.cc)
