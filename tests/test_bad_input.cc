#include <catch2/catch_test_macros.hpp>
TEST_CASE("placeholder", "[bad_input]") { REQUIRE(true); }
