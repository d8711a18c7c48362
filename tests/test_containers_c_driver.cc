// Runs the strict-C11 container checks of test_containers_c.c under Catch2.
#include <catch2/catch_test_macros.hpp>

extern "C" int tvmffi_containers_c_array(void);
extern "C" int tvmffi_containers_c_map(void);

TEST_CASE("Array built and read from C", "[containers_c][array]") {
  CHECK(tvmffi_containers_c_array() == 0);
}

TEST_CASE("Map built and read from C", "[containers_c][map]") {
  CHECK(tvmffi_containers_c_map() == 0);
}
