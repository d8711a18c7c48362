// Tests of tvm/ffi/extra/json.h: json::Parse and json::Stringify (values,
// numbers, strings and escapes, order, indentation, errors with their places,
// bounded nesting) and the globals behind them.
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/function.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "containers_test_util.h"

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;

// The error message Parse reports for `text` ("" when it parses).
std::string ParseError(const std::string& text) {
  String msg("unset");
  Any v = json::Parse(text, &msg);
  if (!msg.empty()) REQUIRE(v == nullptr);
  return std::string(msg);
}

// "Kind: message" of the Error `fn` must throw.
template <typename Fn>
std::string Thrown(Fn fn) {
  auto [kind, message] = containers_test::ErrorOf(fn);
  return kind + ": " + message;
}

bool SameJson(const Any& a, const Any& b) {
  return Array<Any>{a} == Array<Any>{b};
}

std::string Nested(int depth, const char* open, const char* close) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}
}  // namespace

TEST_CASE("Parse reads literals, ints and floats with their types", "[json]") {
  REQUIRE(json::Parse("true").cast<bool>() == true);
  REQUIRE(json::Parse("false").type_index() == TypeIndex::kTVMFFIBool);
  REQUIRE(json::Parse(" null ") == nullptr);
  Any i = json::Parse("-124");
  REQUIRE(i.type_index() == TypeIndex::kTVMFFIInt);
  REQUIRE(i.cast<int64_t>() == -124);
  REQUIRE(json::Parse("9223372036854775807").cast<int64_t>() == INT64_MAX);
  REQUIRE(json::Parse("-9223372036854775808").cast<int64_t>() == INT64_MIN);
  // Beyond int64: a float, as upstream.
  Any big = json::Parse("9223372036854775808");
  REQUIRE(big.type_index() == TypeIndex::kTVMFFIFloat);
  REQUIRE(big.cast<double>() == 9223372036854775808.0);
  for (const char* text : {"0.0", "1.5", "123.456", "1.456e12", "1E+10", "1e-10", "-7.89e-15"}) {
    INFO(text);
    Any f = json::Parse(text);
    REQUIRE(f.type_index() == TypeIndex::kTVMFFIFloat);
    REQUIRE(f.cast<double>() == std::stod(text));
  }
  REQUIRE(std::isnan(json::Parse("NaN").cast<double>()));
  REQUIRE(json::Parse("Infinity").cast<double>() == std::numeric_limits<double>::infinity());
  REQUIRE(json::Parse("-Infinity").cast<double>() == -std::numeric_limits<double>::infinity());
}

TEST_CASE("Parse reads strings, escapes and UTF-8", "[json]") {
  REQUIRE(json::Parse("\"hello\"").cast<String>() == "hello");
  REQUIRE(json::Parse("\"\"").cast<String>() == "");
  REQUIRE(json::Parse(R"("\t\n\/\f\b\r\"\\")").cast<String>() == "\t\n/\f\b\r\"\\");
  REQUIRE(json::Parse(R"("\u0041\u00e9\u4E2D")").cast<String>() == "A\xc3\xa9\xe4\xb8\xad");
  REQUIRE(json::Parse(R"("\u0000")").cast<String>() == String(std::string("\0", 1)));
  // A surrogate pair is one code point (U+1F604), four UTF-8 bytes.
  REQUIRE(json::Parse(R"("\uD83D\uDE04!")").cast<String>() == "\xf0\x9f\x98\x84!");
  // Raw UTF-8 bytes (>= 0x80) are ordinary characters.
  REQUIRE(json::Parse("\"\xe4\xb8\xad\"").cast<String>() == "\xe4\xb8\xad");
}

TEST_CASE("Parse builds Array and Map, keys in document order", "[json]") {
  Any v = json::Parse("{\"c\": 1, \"a\": [1, 2.5, \"x\", null, {}], \"b\": {\"z\": true}}");
  json::Object obj = v.cast<json::Object>();
  std::string keys;
  for (const auto& kv : obj) keys += kv.first.cast<std::string>();
  REQUIRE(keys == "cab");
  json::Array a = obj["a"].cast<json::Array>();
  REQUIRE(a.size() == 5);
  REQUIRE(a[0].type_index() == TypeIndex::kTVMFFIInt);
  REQUIRE(a[1].cast<double>() == 2.5);
  REQUIRE(a[3] == nullptr);
  REQUIRE(a[4].cast<json::Object>().empty());
  REQUIRE(SameJson(obj["b"], json::Object{{"z", true}}));
  REQUIRE(SameJson(json::Parse(" [ ] "), json::Array{}));
  // A repeated key keeps its first place and takes the last value (Python's dict).
  json::Object dup = json::Parse(R"({"k": 1, "j": 2, "k": 3})").cast<json::Object>();
  REQUIRE(dup.size() == 2);
  REQUIRE((*dup.begin()).first.cast<String>() == "k");
  REQUIRE(dup["k"].cast<int64_t>() == 3);
}

TEST_CASE("Parse errors say what and where, as Python's json module", "[json]") {
  REQUIRE(ParseError("[1, 2]").empty());
  REQUIRE(ParseError("") == "Expecting value: line 1 column 1 (char 0)");
  REQUIRE(ParseError("   \t\n    ") == "Expecting value: line 2 column 5 (char 9)");
  REQUIRE(ParseError("nul") == "Expecting value: line 1 column 1 (char 0)");
  REQUIRE(ParseError("\n\nfx") == "Expecting value: line 3 column 1 (char 2)");
  REQUIRE(ParseError("-") == "Expecting value: line 1 column 1 (char 0)");
  REQUIRE(ParseError("123.456.789") == "Expecting value: line 1 column 1 (char 0)");
  REQUIRE(ParseError("123e+") == "Expecting value: line 1 column 1 (char 0)");
  REQUIRE(ParseError("01") == "Expecting value: line 1 column 1 (char 0)");
  REQUIRE(ParseError(".5") == "Expecting value: line 1 column 1 (char 0)");
  REQUIRE(ParseError("+1") == "Expecting value: line 1 column 1 (char 0)");
  REQUIRE(ParseError("1e400") == "Number out of range: line 1 column 1 (char 0)");
  REQUIRE(ParseError("]") == "Expecting value: line 1 column 1 (char 0)");
  REQUIRE(ParseError("[1,]") == "Expecting value: line 1 column 4 (char 3)");
  REQUIRE(ParseError("[") == "Expecting value: line 1 column 2 (char 1)");
  REQUIRE(ParseError("[1a") == "Expecting ',' delimiter: line 1 column 3 (char 2)");
  REQUIRE(ParseError("[1,2,3") == "Expecting ',' delimiter: line 1 column 7 (char 6)");
  REQUIRE(ParseError("[1]  a") == "Extra data: line 1 column 6 (char 5)");
  REQUIRE(ParseError("truee") == "Extra data: line 1 column 5 (char 4)");
  REQUIRE(ParseError("{} []") == "Extra data: line 1 column 4 (char 3)");
  REQUIRE(ParseError("{") ==
          "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
  REQUIRE(ParseError("{1: 2}") ==
          "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
  REQUIRE(ParseError("{\"a\":") == "Expecting value: line 1 column 6 (char 5)");
  REQUIRE(ParseError("{\"incomplete\"") == "Expecting ':' delimiter: line 1 column 14 (char 13)");
  REQUIRE(ParseError("{\"a\":\n\n[1]") == "Expecting ',' delimiter: line 3 column 4 (char 10)");
  REQUIRE(ParseError("{\"a\":\n\n[abc]}") == "Expecting value: line 3 column 2 (char 8)");
}

TEST_CASE("Parse errors inside strings", "[json]") {
  REQUIRE(ParseError("\"hello") == "Unterminated string starting at: line 1 column 1 (char 0)");
  REQUIRE(ParseError("[\"ab\\") == "Unterminated string starting at: line 1 column 2 (char 1)");
  REQUIRE(ParseError("\"hello\x01\"") == "Invalid control character at: line 1 column 7 (char 6)");
  REQUIRE(ParseError("\"a\nb\"") == "Invalid control character at: line 1 column 3 (char 2)");
  REQUIRE(ParseError("\"hello\\a\"") == "Invalid \\escape: line 1 column 8 (char 7)");
  REQUIRE(ParseError("\"hello\\uxx\"") == "Invalid \\uXXXX escape: line 1 column 8 (char 7)");
  REQUIRE(ParseError("\"\\u12") == "Invalid \\uXXXX escape: line 1 column 3 (char 2)");
  REQUIRE(ParseError("\"hello\\uDC00\\uDE04\"") ==
          "Invalid surrogate pair of \\uXXXX escapes: line 1 column 8 (char 7)");
  REQUIRE(ParseError("\"hello\\uD800\"") ==
          "Invalid surrogate pair of \\uXXXX escapes: line 1 column 8 (char 7)");
  REQUIRE(ParseError("\"hello\\uD800\\uxx\"") ==
          "Invalid \\uXXXX escape: line 1 column 15 (char 14)");
  REQUIRE(ParseError("\"\\uD800\\u0041\"") ==
          "Invalid surrogate pair of \\uXXXX escapes: line 1 column 10 (char 9)");
}

TEST_CASE("Parse without error_msg throws ValueError; with it, clears it on success", "[json]") {
  REQUIRE(Thrown([] { json::Parse("[1,"); }) ==
          "ValueError: Expecting value: line 1 column 4 (char 3)");
  String msg("stale");
  REQUIRE(json::Parse("7", &msg).cast<int64_t>() == 7);
  REQUIRE(msg.empty());
  // Through the global, as other languages call it.
  Function parse = Function::GetGlobalRequired("ffi.json.Parse");
  REQUIRE(parse(String("[true]")).cast<json::Array>()[0].cast<bool>());
  REQUIRE_THAT(Thrown([&] { parse(42); }), ContainsSubstring("TypeError"));
}

TEST_CASE("Nesting is bounded at 1000 levels in both directions", "[json]") {
  REQUIRE(ParseError(Nested(1000, "[", "]")).empty());
  REQUIRE(ParseError(Nested(500, "{\"k\":", "}").replace(500 * 5, 0, "1")).empty());
  REQUIRE(ParseError(Nested(1001, "[", "]")) ==
          "Nesting deeper than 1000 levels: line 1 column 1001 (char 1000)");
  // Far deeper input is refused the same way, never a stack overflow.
  REQUIRE_THAT(ParseError(std::string(1000000, '[')), ContainsSubstring("Nesting deeper"));
  REQUIRE_THAT(ParseError(Nested(200000, "{\"a\":", "}")), ContainsSubstring("Nesting deeper"));

  json::Array deep;
  for (int i = 0; i < 1001; ++i) deep = json::Array{deep};
  REQUIRE_THAT(Thrown([&] { json::Stringify(deep); }),
               ContainsSubstring("ValueError: json::Stringify: nesting deeper than 1000 levels"));
}

TEST_CASE("Stringify writes values compactly by default", "[json]") {
  REQUIRE(json::Stringify(Any(true)) == "true");
  REQUIRE(json::Stringify(Any(nullptr)) == "null");
  REQUIRE(json::Stringify(Any(INT64_MIN)) == "-9223372036854775808");
  REQUIRE(json::Stringify(Any(42)) == "42");
  REQUIRE(json::Stringify(json::Array{1, "hello", true, json::Array{}, json::Object{}}) ==
          "[1,\"hello\",true,[],{}]");
  json::Object obj{{"zebra", "last"}, {"alpha", 1}, {"mid", json::Array{1, 2}}};
  REQUIRE(json::Stringify(obj) == "{\"zebra\":\"last\",\"alpha\":1,\"mid\":[1,2]}");
  REQUIRE(json::Stringify(obj, 0) == json::Stringify(obj));
}

TEST_CASE("Stringify writes floats that read back as the same floats", "[json]") {
  REQUIRE(json::Stringify(Any(2.5)) == "2.5");
  REQUIRE(json::Stringify(Any(5.0)) == "5.0");
  REQUIRE(json::Stringify(Any(-10.0)) == "-10.0");
  REQUIRE(json::Stringify(Any(0.0)) == "0.0");
  REQUIRE(json::Stringify(Any(-0.0)) == "-0.0");
  REQUIRE(json::Stringify(Any(0.1)) == "0.1");
  REQUIRE(json::Stringify(Any(-7.89e-15)) == "-7.89e-15");
  REQUIRE(json::Stringify(Any(2e-8)) == "2e-08");
  REQUIRE(json::Stringify(Any(1e300)) == "1e+300");
  REQUIRE(json::Stringify(Any(std::numeric_limits<double>::quiet_NaN())) == "NaN");
  REQUIRE(json::Stringify(Any(std::numeric_limits<double>::infinity())) == "Infinity");
  REQUIRE(json::Stringify(Any(-std::numeric_limits<double>::infinity())) == "-Infinity");
  for (double d : {0.1 + 0.2, 1.0 / 3, 12345678901234567.0, 5e-324, 1.7976931348623157e308,
                   -123.456e-7, 9007199254740993.0}) {
    String text = json::Stringify(Any(d));
    INFO(std::string(text));
    Any back = json::Parse(text);
    REQUIRE(back.type_index() == TypeIndex::kTVMFFIFloat);
    REQUIRE(back.cast<double>() == d);
  }
}

TEST_CASE("Stringify escapes strings with EscapeStringJSON", "[json]") {
  REQUIRE(json::Stringify(String("a\"b\\c/d\n\t\r")) == R"("a\"b\\c\/d\n\t\r")");
  REQUIRE(json::Stringify(String(std::string("\x01"
                                             "x\x7f",
                                             3))) == R"("\u0001x\u007f")");
  REQUIRE(json::Stringify(String("\xc3\xa9")) == "\"\xc3\xa9\"");
  // Keys too.
  REQUIRE(json::Stringify(json::Object{{"a\"", 1}}) == R"({"a\"":1})");
}

TEST_CASE("Stringify with an indent puts every element on its own line", "[json]") {
  REQUIRE(json::Stringify(json::Array{1, 2}, 2) == "[\n  1,\n  2\n]");
  REQUIRE(json::Stringify(json::Object{{"key", "value"}}, 2) == "{\n  \"key\": \"value\"\n}");
  json::Object nested{{"a", json::Object{{"z", 1}, {"b", json::Array{}}}},
                      {"m", json::Array{json::Array{3.5}, nullptr}}};
  REQUIRE(json::Stringify(nested, 4) ==
          "{\n"
          "    \"a\": {\n"
          "        \"z\": 1,\n"
          "        \"b\": []\n"
          "    },\n"
          "    \"m\": [\n"
          "        [\n"
          "            3.5\n"
          "        ],\n"
          "        null\n"
          "    ]\n"
          "}");
  REQUIRE_THAT(Thrown([] { json::Stringify(json::Array{}, -1); }),
               ContainsSubstring("ValueError: json::Stringify: `indent` must be >= 0, got -1"));
}

TEST_CASE("Parse and Stringify round-trip", "[json]") {
  const char* docs[] = {
      R"({"name":"relu","shape":[2,3],"scale":0.5,"tags":["a","b\n"],"x":null,"ok":false})",
      R"([1,-2,3.25,1e-05,"\u0001",{"":{}},[[[]]],NaN,-Infinity])",
  };
  for (const char* doc : docs) {
    INFO(doc);
    Any v = json::Parse(doc);
    String compact = json::Stringify(v);
    REQUIRE(compact == doc);
    REQUIRE(json::Stringify(json::Parse(json::Stringify(v, 3))) == compact);
  }
}

TEST_CASE("Stringify refuses what JSON cannot hold", "[json]") {
  REQUIRE(Thrown([] { json::Stringify(Any(Function::FromTyped([]() {}))); }) ==
          "ValueError: json::Stringify: unsupported type: `ffi.Function` (JSON holds None, bool, "
          "int, float, str, Array, List, Map and Dict)");
  REQUIRE_THAT(Thrown([] { json::Stringify(Any(Bytes("ab", 2))); }),
               ContainsSubstring("unsupported type: `"));
  REQUIRE(Thrown([] {
            json::Stringify(Map<Any, Any>{{1, 2}});
          }) == "ValueError: json::Stringify: object keys must be strings, got `int`");
}

TEST_CASE("Stringify writes List and Dict, and refuses a cycle", "[json]") {
  List<Any> list{1, "two"};
  Dict<Any, Any> dict{{"l", list}};
  REQUIRE(json::Stringify(dict) == R"({"l":[1,"two"]})");
  list.push_back(dict);
  REQUIRE(Thrown([&] { json::Stringify(list); }) ==
          "ValueError: json::Stringify: cycle detected: a List contains itself");
  // Break the cycle so both are freed.
  list.pop_back();
  // The same List twice, not nested: no cycle.
  REQUIRE(json::Stringify(json::Array{list, list}) == R"([[1,"two"],[1,"two"]])");
}
