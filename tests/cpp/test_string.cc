// Tests of tvm/ffi/string.h: small vs heap storage, comparisons, hashing,
// Bytes, and their TVMFFIAny forms.
#include <tvm/ffi/any.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>

#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {
using namespace tvm::ffi;

TVMFFIAny Raw(const String& s) {
  return AnyView(s).CopyToTVMFFIAny();
}
TVMFFIAny Raw(const Bytes& b) {
  return AnyView(b).CopyToTVMFFIAny();
}
uint64_t StrongCount(const TVMFFIAny& v) {
  return __atomic_load_n(&v.v_obj->combined_ref_count, __ATOMIC_RELAXED) & 0xffffffffu;
}
}  // namespace

TEST_CASE("Strings of up to 7 bytes are stored inline", "[string]") {
  for (size_t n = 0; n <= 7; ++n) {
    std::string text(n, 'a' + static_cast<char>(n));
    String s(text);
    TVMFFIAny raw = Raw(s);
    INFO("length " << n);
    REQUIRE(raw.type_index == kTVMFFISmallStr);
    REQUIRE(raw.small_str_len == n);
    REQUIRE(s.size() == n);
    REQUIRE(std::string(s) == text);
    REQUIRE(s.c_str()[n] == '\0');  // NUL-terminated inline too
    REQUIRE(s.data() == reinterpret_cast<const char*>(&s) + 8);
  }
  REQUIRE(String().empty());
  REQUIRE(Raw(String()).type_index == kTVMFFISmallStr);
}

TEST_CASE("String / Bytes from a std::string&& are objects even when short", "[string]") {
  // As upstream's move: a heap object (65 / 66) whatever the size, still made
  // by libtvmffi, and equal (and hashing equal) to the small form.
  for (size_t n : {size_t{0}, size_t{2}, size_t{7}, size_t{8}, size_t{20}}) {
    INFO("length " << n);
    std::string text(n, 'x');
    std::string source = text;
    String s(std::move(source));
    REQUIRE(source.empty());  // NOLINT(bugprone-use-after-move)
    TVMFFIAny raw = Raw(s);
    REQUIRE(raw.type_index == kTVMFFIStr);
    REQUIRE(TVMFFIBytesGetByteArrayPtr(raw.v_obj)->size == n);
    REQUIRE(s.size() == n);
    REQUIRE(s.c_str()[n] == '\0');
    REQUIRE(std::string(s) == text);
    REQUIRE(s == String(text));
    REQUIRE(AnyEqual()(Any(s), Any(String(text))));
    REQUIRE(AnyHash()(Any(s)) == AnyHash()(Any(String(text))));
    Bytes b{std::string(text)};
    REQUIRE(Raw(b).type_index == kTVMFFIBytes);
    REQUIRE(b.size() == n);
    REQUIRE(AnyEqual()(Any(b), Any(Bytes(text))));
    REQUIRE(AnyHash()(Any(b)) == AnyHash()(Any(Bytes(text))));
  }
  String assigned;
  assigned = std::string("ab");
  REQUIRE(Raw(assigned).type_index == kTVMFFIStr);
  REQUIRE(assigned == "ab");
  // A copy of the std::string (an lvalue) keeps the small form.
  std::string lvalue = "ab";
  REQUIRE(Raw(String(lvalue)).type_index == kTVMFFISmallStr);
}

TEST_CASE("Longer strings are String objects made by the runtime and shared on copy", "[string]") {
  String s("eight ch");
  TVMFFIAny raw = Raw(s);
  REQUIRE(raw.type_index == kTVMFFIStr);
  REQUIRE(raw.v_obj->type_index == kTVMFFIStr);
  REQUIRE(StrongCount(raw) == 1);
  REQUIRE(TVMFFIBytesGetByteArrayPtr(raw.v_obj)->size == 8);
  REQUIRE(s.c_str()[8] == '\0');
  {
    String copy = s;
    REQUIRE(copy.data() == s.data());
    REQUIRE(StrongCount(raw) == 2);
    String moved = std::move(copy);
    REQUIRE(StrongCount(raw) == 2);
    REQUIRE(moved == "eight ch");
  }
  REQUIRE(StrongCount(raw) == 1);
  std::string big(100000, 'z');
  String huge(big);
  REQUIRE(huge.size() == big.size());
  REQUIRE(std::memcmp(huge.data(), big.data(), big.size()) == 0);
}

TEST_CASE("String and Bytes from an rvalue std::string empty the source", "[string]") {
  std::string source = "a string of some length";
  String s(std::move(source));
  REQUIRE(s == "a string of some length");
  REQUIRE(source.empty());  // NOLINT(bugprone-use-after-move)
  std::string kept = "kept";
  String copy(kept);
  REQUIRE(kept == "kept");
  std::string raw("x\0y", 3);
  Bytes b(std::move(raw));
  REQUIRE(b.size() == 3);
  REQUIRE(raw.empty());  // NOLINT(bugprone-use-after-move)
}

TEST_CASE("Strings keep embedded NUL bytes", "[string]") {
  String small("a\0b", 3);
  String large("abc\0defghij", 11);
  REQUIRE(small.size() == 3);
  REQUIRE(large.size() == 11);
  REQUIRE(std::string(large) == std::string("abc\0defghij", 11));
  REQUIRE(small != String("a"));
  REQUIRE(small.compare(String("a\0c", 3)) < 0);
}

TEST_CASE("Comparisons with String, std::string and const char*", "[string]") {
  String a("apple"), b("banana-split");
  std::string sa = "apple";
  REQUIRE(a == "apple");
  REQUIRE("apple" == a);
  REQUIRE(a == sa);
  REQUIRE(sa == a);
  REQUIRE(a == String("apple"));
  REQUIRE(a != b);
  REQUIRE(a < b);
  REQUIRE(b > a);
  REQUIRE(a <= "apple");
  REQUIRE(a >= "apple");
  REQUIRE(a < "applf");
  REQUIRE("app" < a);  // a prefix sorts first
  REQUIRE(a.compare("apple") == 0);
  REQUIRE(a.compare("apples") < 0);
  REQUIRE(a.compare(std::string("appl")) > 0);
  TVMFFIByteArray arr{"apple", 5};
  REQUIRE(a.compare(arr) == 0);
}

TEST_CASE("String operations", "[string]") {
  String s("hello, world");
  REQUIRE(s.length() == 12);
  REQUIRE(s.at(4) == 'o');
  REQUIRE_THROWS_AS(s.at(12), std::out_of_range);
  REQUIRE(s.find("world") == 7);
  REQUIRE(s.find("absent") == String::npos);
  REQUIRE(s.substr(7) == "world");
  REQUIRE(s.substr(0, 5) == "hello");
  REQUIRE_THROWS_AS(s.substr(13), std::out_of_range);
  REQUIRE(s.starts_with("hello"));
  REQUIRE_FALSE(s.starts_with("world"));
  REQUIRE(s.ends_with(String("world")));
  REQUIRE(s + "!" == "hello, world!");
  REQUIRE("<" + s == "<hello, world");
  REQUIRE(String("ab") + String("cd") == "abcd");
  REQUIRE(String("ab") + std::string("cdefghij") == "abcdefghij");
  String assigned;
  assigned = "now a rather long string";
  REQUIRE(assigned == "now a rather long string");
  assigned = std::string("x");
  REQUIRE(assigned == "x");
}

TEST_CASE("std::hash and unordered containers", "[string]") {
  std::unordered_set<String> set;
  set.insert("one");
  set.insert(String("a much longer key"));
  set.insert(std::string("one"));
  REQUIRE(set.size() == 2);
  REQUIRE(set.count(String(std::string("a much ") + "longer key")) == 1);
  REQUIRE(std::hash<String>()(String("abc")) == std::hash<std::string_view>()("abc"));
}

TEST_CASE("Strings print to std::ostream", "[string]") {
  std::ostringstream os;
  os << String("small") << '|' << String("a larger string");
  REQUIRE(os.str() == "small|a larger string");
}

TEST_CASE("Bytes: small and heap forms, embedded zeros", "[string]") {
  Bytes small("\0\1\2", 3);
  Bytes large(std::string(64, '\0'));
  REQUIRE(Raw(small).type_index == kTVMFFISmallBytes);
  REQUIRE(Raw(large).type_index == kTVMFFIBytes);
  REQUIRE(small.size() == 3);
  REQUIRE(large.size() == 64);
  REQUIRE(std::string(large) == std::string(64, '\0'));
  REQUIRE(small == Bytes(std::string("\0\1\2", 3)));
  REQUIRE(small != Bytes("\0\1\3", 3));
  TVMFFIByteArray arr{"bytes from an array", 19};
  REQUIRE(Bytes(arr).size() == 19);
  REQUIRE(Bytes("abcd") == Bytes(std::string("abcd")));  // a C string: up to its NUL
  REQUIRE(Bytes("ab\0cd").size() == 2);
  REQUIRE(Bytes().empty());
  REQUIRE(Bytes::memncmp("ab", "ac", 2, 2) < 0);
  REQUIRE(Bytes::memequal("ab", "ab", 2, 2));
}

TEST_CASE("String and Bytes in Any", "[string]") {
  Any s = String("a string over seven");
  Any b = Bytes("some bytes here", 15);
  REQUIRE(s.cast<String>() == "a string over seven");
  REQUIRE(std::string(b.cast<Bytes>()) == "some bytes here");
  REQUIRE_FALSE(s.try_cast<Bytes>().has_value());
  REQUIRE_FALSE(b.try_cast<String>().has_value());
  // std::string and std::string_view parameters read any str form.
  REQUIRE(AnyView("raw c string").cast<std::string>() == "raw c string");
  REQUIRE(s.cast<std::string_view>() == "a string over seven");
  REQUIRE(std::string(AnyView(std::string("from std")).cast<const char*>()) == "from std");
  Any from_std = std::string("owned from std::string");
  REQUIRE(from_std.type_index() == kTVMFFIStr);
  Any from_view = std::string_view("view!!");
  REQUIRE(from_view.cast<String>() == "view!!");
}

TEST_CASE("Split gives the pieces between delimiters, empty ones included", "[string]") {
  using Parts = std::vector<std::string_view>;
  REQUIRE(String("a,b,c").Split(',') == Parts{"a", "b", "c"});
  REQUIRE(String("hello").Split(',') == Parts{"hello"});
  REQUIRE(String("").Split(',') == Parts{""});
  REQUIRE(String(",a,,b,").Split(',') == Parts{"", "a", "", "b", ""});
  // Views into the string itself (heap form), NUL bytes are ordinary.
  String heap(std::string("key=value\0=x", 12));
  auto parts = heap.Split('=');
  REQUIRE(parts.size() == 3);
  REQUIRE(parts[0].data() == heap.data());
  REQUIRE(parts[1] == std::string_view("value\0", 6));
}

TEST_CASE("EscapeStringJSON quotes and escapes as RFC 8259", "[string]") {
  REQUIRE(EscapeStringJSON(String("hello")) == "\"hello\"");
  REQUIRE(EscapeStringJSON(String("line1\nline2\ttab\r")) == "\"line1\\nline2\\ttab\\r\"");
  REQUIRE(EscapeStringJSON(String("a\\b\"c/d")) == "\"a\\\\b\\\"c\\/d\"");
  REQUIRE(EscapeStringJSON(String("\b\f")) == "\"\\b\\f\"");
  REQUIRE(EscapeStringJSON(String(std::string("a\x01\x1f\x7f z\0", 7))) ==
          "\"a\\u0001\\u001f\\u007f z\\u0000\"");
  // UTF-8 passes through.
  REQUIRE(EscapeStringJSON(String("\xe4\xb8\x96")) == "\"\xe4\xb8\x96\"");
}

TEST_CASE("EscapedStringPy writes Python's str repr in double quotes", "[string]") {
  REQUIRE(EscapedStringPy(String("hello world")) == "\"hello world\"");
  REQUIRE(EscapedStringPy(String("a\nb\tc\r")) == "\"a\\nb\\tc\\r\"");
  REQUIRE(EscapedStringPy(String("a\\b\"c'")) == "\"a\\\\b\\\"c'\"");
  REQUIRE(EscapedStringPy(String(std::string("\x01\x02\x7f\0", 4))) == "\"\\x01\\x02\\x7f\\x00\"");
  // ANSI colour sequences stay readable; a bare ESC is a control byte.
  REQUIRE(EscapedStringPy(String("\x1b[31mred\x1b[0m")) == "\"\\x1b[31mred\\x1b[0m\"");
  REQUIRE(EscapedStringPy(String("\x1b[K")) == "\"\\x1b[K\"");
  REQUIRE(EscapedStringPy(String("\x1b[3")) == "\"\\x1b[3\"");
  // UTF-8: code points; malformed bytes: \xNN each.
  REQUIRE(EscapedStringPy(String("\xc3\xa9")) == "\"\\u00e9\"");
  REQUIRE(EscapedStringPy(String("\xe4\xb8\x96")) == "\"\\u4e16\"");
  REQUIRE(EscapedStringPy(String("\xf0\x9f\x98\x80")) == "\"\\U0001f600\"");
  REQUIRE(EscapedStringPy(String("\x80")) == "\"\\x80\"");
  REQUIRE(EscapedStringPy(String("\xc3\x20")) == "\"\\xc3 \"");
  REQUIRE(EscapedStringPy(String("\xe4\xb8\x20")) == "\"\\xe4\\xb8 \"");
  REQUIRE(EscapedStringPy(String("\xc3")) == "\"\\xc3\"");
  REQUIRE(EscapedStringPy(String("\xf0\x9f\x98")) == "\"\\xf0\\x9f\\x98\"");
}

TEST_CASE("Stable hashes: upstream's names, any alignment, the Map key hash", "[string]") {
  int64_t words[10];
  for (int i = 0; i < 10; ++i) words[i] = i * 0x0101010101LL;
  alignas(8) char shifted[8 * 11];
  for (size_t off = 1; off < 8; ++off) {
    std::memcpy(shifted + off, words, sizeof(words));
    for (size_t n : {size_t(0), size_t(3), size_t(8), size_t(13), sizeof(words)}) {
      INFO("offset " << off << " size " << n);
      REQUIRE(detail::StableHashBytes(shifted + off, n) == detail::StableHashBytes(words, n));
    }
  }
  REQUIRE(detail::StableHashBytes(words, 80) != detail::StableHashBytes(words, 72));
  // The key hash of Map is built on them: a string hashes as (kind, bytes).
  String s("a longer heap string");
  REQUIRE(AnyHash()(Any(s)) ==
          detail::StableHashCombine(TypeIndex::kTVMFFIStr,
                                    detail::StableHashBytes(s.data(), s.size())));
  REQUIRE(detail::StableHashCombine(1, 2) != detail::StableHashCombine(2, 1));
}
