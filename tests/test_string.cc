// Tests of tvm/ffi/string.h: small vs heap storage, comparisons, hashing,
// Bytes, and their TVMFFIAny forms.
#include <tvm/ffi/any.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>

#include <cstring>
#include <sstream>
#include <string>
#include <unordered_set>

namespace {
using namespace tvm::ffi;

TVMFFIAny Raw(const String& s) { return AnyView(s).CopyToTVMFFIAny(); }
TVMFFIAny Raw(const Bytes& b) { return AnyView(b).CopyToTVMFFIAny(); }
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
