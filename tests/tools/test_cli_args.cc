// The argument language of `tvmffi call` (tools/arg_parser.h).
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>
#include <vector>

#include "arg_parser.h"

namespace ffi = tvm::ffi;
using Catch::Matchers::ContainsSubstring;
using tvmffi::cli::ParseArg;
using tvmffi::cli::ParseTensorLiteral;

namespace {

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// The error for `text`, or "" when it parses.
std::string LiteralError(const std::string& text) {
  std::vector<int64_t> shape;
  std::vector<std::string> values;
  std::string err;
  if (ParseTensorLiteral(text, &shape, &values, &err)) return "";
  REQUIRE_FALSE(err.empty());
  return err;
}

}  // namespace

TEST_CASE("Rectangular tensor literals give their shape and elements", "[cli]") {
  struct Case {
    std::string text;
    std::vector<int64_t> shape;
    std::vector<std::string> values;
  };
  const std::vector<Case> cases = {
      {"[1,2,3]", {3}, {"1", "2", "3"}},
      {"[ [1, 2] , [3,4] ]", {2, 2}, {"1", "2", "3", "4"}},
      {"[[[1],[2]],[[3],[4]]]", {2, 2, 1}, {"1", "2", "3", "4"}},
      {"[]", {0}, {}},
      {"[[],[]]", {2, 0}, {}},
      {"[[[]]]", {1, 1, 0}, {}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    std::vector<int64_t> shape;
    std::vector<std::string> values;
    std::string err;
    REQUIRE(ParseTensorLiteral(c.text, &shape, &values, &err));
    REQUIRE(shape == c.shape);
    REQUIRE(values == c.values);
  }
}

TEST_CASE("Ragged tensor literals are refused (#14)", "[cli]") {
  // The reported case: 100 elements in one row, 100 empty lists in the other.
  // It used to parse as shape (2, 100, 0) -- 0 elements -- with 100 values.
  std::string ones = Repeat("1,", 99) + "1";
  std::string empties = Repeat("[],", 99) + "[]";
  REQUIRE_THAT(LiteralError("[[" + ones + "],[" + empties + "]]"), ContainsSubstring("ragged"));
  REQUIRE_THAT(LiteralError("[[" + empties + "],[" + ones + "]]"), ContainsSubstring("ragged"));
  REQUIRE_THAT(LiteralError("[[1,2],[3]]"), ContainsSubstring("rows of different lengths"));
  REQUIRE_THAT(LiteralError("[[1],[[2]]]"), ContainsSubstring("ragged"));
  REQUIRE_THAT(LiteralError("[[[1]],[2]]"), ContainsSubstring("ragged"));
  REQUIRE_THAT(LiteralError("[[],[[]]]"), ContainsSubstring("ragged"));
  REQUIRE_THAT(LiteralError("[1,[2]]"), ContainsSubstring("ragged"));
  REQUIRE_THAT(LiteralError("[[1,2],3]"), ContainsSubstring("expected '['"));
}

TEST_CASE("Malformed tensor literals are refused with a reason", "[cli]") {
  REQUIRE_THAT(LiteralError("[1,2"), ContainsSubstring("expected ',' or ']'"));
  REQUIRE_THAT(LiteralError("[1,,2]"), ContainsSubstring("empty element"));
  REQUIRE_THAT(LiteralError("[1] x"), ContainsSubstring("unexpected text"));
  REQUIRE_THAT(LiteralError("1"), ContainsSubstring("expected '['"));
  REQUIRE_THAT(LiteralError(std::string("[1,\0,2]", 7)), ContainsSubstring("empty element"));
  REQUIRE_THAT(LiteralError(std::string("[1,2\0]", 6)), ContainsSubstring("expected ',' or ']'"));
  // Nesting is bounded: no deep recursion on hostile input.
  REQUIRE_THAT(LiteralError(Repeat("[", 100000) + Repeat("]", 100000)),
               ContainsSubstring("too many dimensions"));
  REQUIRE(LiteralError(Repeat("[", 32) + "1" + Repeat("]", 32)) == "");
}

TEST_CASE("ParseArg builds tensors, scalars and strings", "[cli]") {
  ffi::Any v;
  std::string err;
  REQUIRE(ParseArg("i32[[1,2,3],[4,5,6]]", &v, &err));
  ffi::Tensor t = v.cast<ffi::Tensor>();
  REQUIRE(t.ndim() == 2);
  REQUIRE(t.shape()[0] == 2);
  REQUIRE(t.shape()[1] == 3);
  const int32_t* data = static_cast<const int32_t*>(t.data_ptr());
  for (int i = 0; i < 6; ++i) REQUIRE(data[i] == i + 1);

  REQUIRE(ParseArg("42", &v, &err));
  REQUIRE(v.cast<int64_t>() == 42);
  REQUIRE(ParseArg("2.5", &v, &err));
  REQUIRE(v.cast<double>() == 2.5);
  REQUIRE(ParseArg("str:42", &v, &err));
  REQUIRE(v.cast<ffi::String>() == "42");

  REQUIRE_FALSE(ParseArg("f32[[1,2],[[],[]]]", &v, &err));
  REQUIRE_THAT(err, ContainsSubstring("bad tensor") && ContainsSubstring("ragged"));
  REQUIRE_FALSE(ParseArg("q7[1]", &v, &err));
  REQUIRE_THAT(err, ContainsSubstring("unknown tensor dtype `q7`"));
  REQUIRE_FALSE(ParseArg("i8[1,x]", &v, &err));
  REQUIRE_THAT(err, ContainsSubstring("`x` is not an integer"));
}

// Issue #25: an integer literal out of range is refused, never wrapped (nor
// read as a float).
TEST_CASE("Out-of-range integer literals are refused", "[cli][hostile]") {
  ffi::Any v;
  std::string err;
  REQUIRE_FALSE(ParseArg("99999999999999999999", &v, &err));
  CHECK(err ==
        "integer `99999999999999999999` is out of range for int64 (write it as a float, e.g. "
        "`99999999999999999999.0`, to pass a float)");
  REQUIRE_FALSE(ParseArg("-9223372036854775809", &v, &err));
  CHECK_THAT(err, ContainsSubstring("out of range for int64"));
  REQUIRE(ParseArg("-9223372036854775808", &v, &err));
  CHECK(v.cast<int64_t>() == INT64_MIN);
  REQUIRE(ParseArg("99999999999999999999.0", &v, &err));
  CHECK(v.cast<double>() == 1e20);

  const std::pair<const char*, const char*> refused[] = {
      {"i8[127,128]", "`128` is out of range for i8 (-128 to 127)"},
      {"i8[-129]", "`-129` is out of range for i8 (-128 to 127)"},
      {"i16[40000]", "`40000` is out of range for i16 (-32768 to 32767)"},
      {"i32[2147483648]", "`2147483648` is out of range for i32 (-2147483648 to 2147483647)"},
      {"i64[9223372036854775808]",
       "`9223372036854775808` is out of range for i64 (-9223372036854775808 to "
       "9223372036854775807)"},
      {"u8[256]", "`256` is out of range for u8 (0 to 255)"},
      {"u8[-1]", "`-1` is out of range for u8 (it is negative)"},
      {"u32[4294967296]", "`4294967296` is out of range for u32 (0 to 4294967295)"},
      {"u64[18446744073709551616]",
       "`18446744073709551616` is out of range for u64 (0 to "
       "18446744073709551615)"},
      {"bool[2]", "`2` is out of range for bool (0 to 1)"},
      {"f32[1e39]", "`1e39` is out of range for f32"},
  };
  for (const auto& [tok, why] : refused) {
    INFO(tok);
    REQUIRE_FALSE(ParseArg(tok, &v, &err));
    CHECK(err == why);
  }
  // The edges themselves fit.
  REQUIRE(ParseArg("u64[18446744073709551615]", &v, &err));
  CHECK(static_cast<const uint64_t*>(v.cast<ffi::Tensor>().data_ptr())[0] == UINT64_MAX);
  REQUIRE(ParseArg("i8[-128,127]", &v, &err));
  const int8_t* i8 = static_cast<const int8_t*>(v.cast<ffi::Tensor>().data_ptr());
  CHECK((i8[0] == -128 && i8[1] == 127));
  REQUIRE(ParseArg("bool[true,0,1]", &v, &err));
}
