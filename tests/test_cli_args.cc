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
