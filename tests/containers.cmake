# Container tests (Array, Map, Tuple, Variant, std:: bridges, C callers).
tvmffi_add_test(test_array test_array.cc)
tvmffi_add_test(test_map test_map.cc)
tvmffi_add_test(test_dict test_dict.cc)
tvmffi_add_test(test_list test_list.cc)
tvmffi_add_test(test_variant test_variant.cc)
tvmffi_add_test(test_tuple test_tuple.cc)
tvmffi_add_test(test_stl test_stl.cc)

# Arrays and Maps through the ffi.* globals from strict C11, and Map/Dict/List
# objects read from C by their documented layout alone.
tvmffi_add_test(test_containers_c test_containers_c_driver.cc test_containers_c.c
  test_map_layout_c.c)
tvmffi_strict_c(test_containers_c test_containers_c.c test_map_layout_c.c)
