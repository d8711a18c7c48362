// Tests of tvm/ffi/big_int.h: the canonical representation, exact arithmetic
// checked against an independent oracle (__int128, and decimal figures that
// Python's int computed), errors, conversions, and BigInt crossing Any,
// functions and Map keys.
#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>

namespace {

using namespace tvm::ffi;
using i128 = __int128;
using U = detail::BigIntUnsafe;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// The oracle's values as BigInts: built from the two words, not by arithmetic.
BigInt FromI128(i128 v) {
  int64_t words[2] = {static_cast<int64_t>(static_cast<uint64_t>(v)),
                      static_cast<int64_t>(static_cast<unsigned __int128>(v) >> 64)};
  TVMFFIByteArray bytes{reinterpret_cast<const char*>(words), sizeof(words)};
  TVMFFIAny out;
  REQUIRE(TVMFFIBigIntFromByteArray(&bytes, &out) == 0);
  return detail::AnyUnsafe::MoveTVMFFIAnyRawToAny(out).cast<BigInt>();
}

std::string I128Text(i128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 m =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  for (; m != 0; m /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  return neg ? "-" + s : s;
}

std::string Text(const BigInt& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

BigInt Parse(const std::string& text) {
  std::istringstream is(text);
  BigInt v;
  is >> v;
  REQUIRE(!is.fail());
  return v;
}

bool Inline(const BigInt& v) {
  return U::CheckInt64(v);
}

TEST_CASE("BigInt: values that fit int64 are always inline", "[big_int]") {
  CHECK(Inline(BigInt()));
  CHECK(Inline(BigInt(kMin)));
  CHECK(Inline(BigInt(kMax) + 1 - 1));
  CHECK_FALSE(Inline(BigInt(kMax) + 1));
  CHECK_FALSE(Inline(BigInt(kMin) - 1));
  CHECK(Inline(-(BigInt(kMax) + 1)));  // -2^63
  CHECK_FALSE(Inline(BigInt(std::numeric_limits<uint64_t>::max())));
  BigInt big = BigInt(1) << 200;
  CHECK(Inline(big - big));
  CHECK(Inline((big + 5) % big));
  CHECK(U::GetArrayView(big).size() == 4);
  // 2^191 needs a sign guard word above its top bit; -2^191 does not.
  CHECK(U::GetArrayView(BigInt(1) << 191).size() == 4);
  CHECK(U::GetArrayView(-(BigInt(1) << 191)).size() == 3);
}

TEST_CASE("BigInt: arithmetic agrees with __int128", "[big_int]") {
  std::mt19937_64 rng(20261207);
  auto draw = [&]() -> i128 {
    // Mostly near the int64 boundary and the 128-bit range, so both forms meet.
    int bits = static_cast<int>(rng() % 126) + 1;
    i128 v = static_cast<i128>((static_cast<unsigned __int128>(rng()) << 64) | rng());
    v >>= (127 - bits);
    return (rng() & 1) ? v : -v;
  };
  for (int iter = 0; iter < 4000; ++iter) {
    i128 a = draw() >> 1, b = draw() >> 1;  // 126 bits: sums and differences fit
    BigInt x = FromI128(a), y = FromI128(b);
    INFO(I128Text(a) << " and " << I128Text(b));
    CHECK(Text(x) == I128Text(a));
    CHECK(x + y == FromI128(a + b));
    CHECK(x - y == FromI128(a - b));
    CHECK((x & y) == FromI128(a & b));
    CHECK((x | y) == FromI128(a | b));
    CHECK((x ^ y) == FromI128(a ^ b));
    CHECK(~x == FromI128(~a));
    CHECK((x < y) == (a < b));
    CHECK((x == y) == (a == b));
    CHECK(min(x, y) == FromI128(a < b ? a : b));
    i128 small = a >> 64;  // 62 bits: products fit
    CHECK(FromI128(small) * FromI128(b >> 64) == FromI128(small * (b >> 64)));
    if (b != 0) {
      CHECK(x / y == FromI128(a / b));
      CHECK(x % y == FromI128(a % b));
      i128 q = a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
      CHECK(floordiv(x, y) == FromI128(q));
      CHECK(floormod(x, y) == FromI128(a - q * b));
    }
    int s = static_cast<int>(rng() % 130);
    CHECK((x >> s) == FromI128(s > 127 ? (a < 0 ? -1 : 0) : a >> s));
    if (s < 2) CHECK((x << s) == FromI128(a * (i128{1} << s)));
    CHECK(static_cast<double>(x) == static_cast<double>(a));
  }
}

TEST_CASE("BigInt: wide figures computed by Python", "[big_int]") {
  BigInt a = Parse("-340282366920938463463374607431768211457123456789");
  BigInt b = Parse("98765432109876543210987654321");
  CHECK(Text(a * b) ==
        "-33608135008318047382302060365363056573138317256243624996897196041018112635269");
  CHECK(Text(floordiv(a, b)) == "-3445358964686899060");
  CHECK(Text(floormod(a, b)) == "98703064924099273411576381471");
  CHECK(Text(a / b) == "-3445358964686899059");
  CHECK(Text(a % b) == "-62367185777269799411272850");
  CHECK(Text(a >> 70) == "-288230376151711744000000001");
  CHECK(Text(BigInt(1) << 200) == "1606938044258990275541962092341162602522202993782792835301376");
  CHECK(Parse(Text(a)) == a);
}

TEST_CASE("BigInt: errors", "[big_int]") {
  BigInt big = BigInt(1) << 100;
  CHECK_THROWS_AS(big / 0, Error);
  CHECK_THROWS_AS(floormod(big, BigInt(0)), Error);
  CHECK_THROWS_AS(BigInt(3) % 0, Error);
  CHECK_THROWS_AS(big << -1, Error);
  CHECK_THROWS_AS(BigInt(1) >> BigInt(-1), Error);
  CHECK_THROWS_AS(big << big, Error);
  CHECK_THROWS_AS(BigInt(1) << (BigInt(1) << 40), Error);  // over kMaxBits: no allocation tried
  CHECK_THROWS_AS(static_cast<int64_t>(big), Error);
  CHECK_THROWS_AS(static_cast<double>(BigInt(1) << 1024), Error);
  CHECK_THROWS_AS(BigInt(std::nan("")), Error);
  CHECK_THROWS_AS(BigInt(-HUGE_VAL), Error);
  try {
    (void)(big / 0);
  } catch (const Error& e) {
    CHECK(e.kind() == "ZeroDivisionError");
  }
  try {
    (void)(big << -3);
  } catch (const Error& e) {
    CHECK(e.kind() == "ValueError");
  }
  CHECK((BigInt(0) << big) == 0);
  CHECK((big >> big) == 0);
  CHECK((-big >> big) == -1);
}

TEST_CASE("BigInt: conversions", "[big_int]") {
  CHECK(BigInt(std::ldexp(1.0, 80)) == BigInt(1) << 80);
  CHECK(BigInt(-std::ldexp(3.0, 70)) == -(BigInt(3) << 70));
  CHECK(BigInt(-2.9) == -2);
  // Ties to even: 2^80 + 2^27 lies halfway between two doubles.
  CHECK(static_cast<double>((BigInt(1) << 80) + (BigInt(1) << 27)) == std::ldexp(1.0, 80));
  CHECK(static_cast<double>((BigInt(1) << 80) + (BigInt(3) << 27)) ==
        std::ldexp(1.0, 80) + std::ldexp(1.0, 29));
  CHECK(BigInt(std::numeric_limits<uint64_t>::max()).as<uint64_t>() ==
        std::numeric_limits<uint64_t>::max());
  CHECK_FALSE(BigInt(-1).as<uint32_t>().has_value());
  CHECK(BigInt(-5).as<int16_t>() == int16_t{-5});
  std::istringstream junk("12ab");
  BigInt v = 9;
  junk >> v;
  CHECK(v == 12);
  std::istringstream none("+");
  none >> v;
  CHECK(none.fail());
  CHECK(v == 12);
}

TEST_CASE("BigInt: crosses Any, functions and Map keys", "[big_int]") {
  BigInt big = (BigInt(1) << 130) + 3;
  Any a = big;
  CHECK(a.type_index() == TypeIndex::kTVMFFIBigInt);
  CHECK(a.GetTypeKey() == "ffi.BigInt");
  CHECK(Any(BigInt(5)).type_index() == TypeIndex::kTVMFFIInt);
  CHECK(Any(5).cast<BigInt>() == 5);
  CHECK(Any(true).cast<BigInt>() == 1);
  CHECK_FALSE(Any(1.0).try_cast<BigInt>().has_value());
  CHECK_THROWS_AS(a.cast<int64_t>(), Error);
  Function twice = Function::FromTyped([](BigInt v) { return v * 2; });
  CHECK(twice(big).cast<BigInt>() == big + big);
  CHECK(twice(kMax).cast<BigInt>() == BigInt(kMax) * 2);
  // Map keys compare by value, whatever the object.
  BigInt same = (BigInt(1) << 130) + 3;
  CHECK_FALSE(Any(same).same_as(a));
  CHECK(AnyEqual()(same, a));
  CHECK(AnyHash()(same) == AnyHash()(a));
  Map<Any, Any> m{{big, 1}, {-big, 2}};
  CHECK(m.at(same).cast<int>() == 1);
  CHECK(m.at(-same).cast<int>() == 2);
  CHECK(m.count(big + 1) == 0);
}

}  // namespace
