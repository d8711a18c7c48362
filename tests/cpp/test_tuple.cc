// Tuple<Ts...>: an Array of fixed size; get<I>, Set<I> (copy-on-write),
// structured bindings, casts, and multiple results from typed functions.
#include <string>
#include <tuple>

#include "containers_test_util.h"

using namespace tvm::ffi;
using containers_test::ErrorOf;

TEST_CASE("Tuple basics", "[tuple]") {
  Tuple<int64_t, String, double> t(1, "one", 1.5);
  CHECK(t.get<0>() == 1);
  CHECK(t.get<1>() == "one");
  CHECK(t.get<2>() == 1.5);
  static_assert(decltype(t)::size() == 3);

  auto [a, b, c] = t;
  CHECK(a == 1);
  CHECK(b == "one");
  CHECK(c == 1.5);

  // Stored as an Array of three elements.
  Any held = t;
  CHECK(held.type_index() == kTVMFFIArray);
  Array<Any> as_array = held.cast<Array<Any>>();
  REQUIRE(as_array.size() == 3);
  CHECK(as_array[1].cast<String>() == "one");

  // Copy-on-write.
  Tuple<int64_t, String, double> u = t;
  u.Set<0>(2);
  CHECK(t.get<0>() == 1);
  CHECK(u.get<0>() == 2);
  const Object* before = u.get();
  u.Set<1>("two");
  CHECK(u.get() == before);  // unique: in place
  CHECK(u.get<1>() == "two");

  Tuple<int64_t, String> defaults;
  CHECK(defaults.get<0>() == 0);
  CHECK(defaults.get<1>() == "");
  CHECK(Tuple<int64_t, String>(1, "x") == Tuple<int64_t, String>(1, "x"));
  CHECK(Tuple<int64_t, String>(1, "x") != Tuple<int64_t, String>(1, "y"));
}

TEST_CASE("Getting from an rvalue Tuple moves the element out when not shared", "[tuple]") {
  Array<int64_t> arr{1, 2};
  {
    auto t = Tuple<Array<int64_t>, int64_t>(arr, 5);
    REQUIRE(arr.use_count() == 2);
    auto [a, n] = std::move(t);  // the only reference: elements move out
    REQUIRE(arr.use_count() == 2);
    REQUIRE(a.same_as(arr));
    REQUIRE(n == 5);
  }
  REQUIRE(arr.use_count() == 1);
  auto shared = Tuple<Array<int64_t>>(arr);
  auto copy = shared;
  Array<int64_t> got = get<0>(std::move(shared));  // shared storage: a copy
  REQUIRE(arr.use_count() == 3);
  REQUIRE(get<0>(copy).same_as(arr));
  REQUIRE(got.same_as(arr));
}

TEST_CASE("Tuple casts check size and elements", "[tuple]") {
  using T2 = Tuple<int64_t, String>;
  Any good = Array<Any>{int64_t{1}, String("x")};
  T2 t = good.cast<T2>();
  CHECK(t.get<1>() == "x");
  CHECK(t.same_as(good.cast<Array<Any>>()));  // exact: shares the array

  auto [kind, message] = ErrorOf([&] {
    (void)Any(Array<Any>{int64_t{1}, String("x"), int64_t{2}}).cast<T2>();
  });
  CHECK(kind == "TypeError");
  CHECK(message == "Cannot convert from type `Array[size=3]` to `Tuple<int, str>`");
  std::tie(kind, message) = ErrorOf([&] {
    (void)Any(Array<Any>{int64_t{1}, int64_t{2}}).cast<T2>();
  });
  CHECK(message == "Cannot convert from type `Array[index 1: int]` to `Tuple<int, str>`");
  CHECK_FALSE(Any(int64_t{1}).try_cast<T2>().has_value());

  // Elements convert: (bool, int) -> (int, float).
  auto converted = Any(Array<Any>{true, int64_t{2}}).cast<Tuple<int64_t, double>>();
  CHECK(converted.get<0>() == 1);
  CHECK(converted.get<1>() == 2.0);
}

TEST_CASE("Tuple returns several results from a typed function", "[tuple]") {
  Function divmod = Function::FromTyped(
      [](int64_t a, int64_t b) { return Tuple<int64_t, int64_t, String>(a / b, a % b, "divmod"); },
      "divmod");
  Any result = divmod(17, 5);
  CHECK(result.type_index() == kTVMFFIArray);
  auto [q, r, tag] = result.cast<Tuple<int64_t, int64_t, String>>();
  CHECK(q == 3);
  CHECK(r == 2);
  CHECK(tag == "divmod");

  // And a Tuple as an argument.
  Function swap = Function::FromTyped(
      [](Tuple<String, int64_t> p) { return Tuple<int64_t, String>(p.get<1>(), p.get<0>()); },
      "swap");
  auto swapped = swap(Tuple<String, int64_t>("k", 9)).cast<Tuple<int64_t, String>>();
  CHECK(swapped.get<0>() == 9);
  CHECK(swapped.get<1>() == "k");
  auto [kind, message] = ErrorOf([&] { swap(Array<Any>{String("k")}); });
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `swap(0: Tuple<str, int>) -> Tuple<int, "
        "str>`. Expected `Tuple<str, int>` but got `Array[size=1]`");
}

TEST_CASE("get<I>(tuple) is found by argument-dependent lookup", "[tuple]") {
  Tuple<int, String> t(7, String("seven"));
  REQUIRE(get<0>(t) == 7);
  REQUIRE(get<1>(t) == "seven");
  // Elementwise covariance: a tuple holds another whose elements it holds.
  static_assert(type_subsumes_v<Tuple<Any, String>, Tuple<int, String>>);
  static_assert(!type_subsumes_v<Tuple<Any>, Tuple<int, String>>);
  static_assert(!type_subsumes_v<Tuple<int, String>, Tuple<Any, String>>);
  Tuple<Any, String> wide = t;
  REQUIRE(wide.same_as(t));
}
