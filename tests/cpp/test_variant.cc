// Variant<Ts...>: construction, exact access (as), checked access (get), type
// checks when converting from Any, and use in typed functions.
#include <string>
#include <tuple>

#include "containers_test_util.h"

using namespace tvm::ffi;
using containers_test::ErrorOf;

TEST_CASE("Variant holds one alternative", "[variant]") {
  static_assert(sizeof(Variant<int64_t, String>) == sizeof(Any));
  Variant<int64_t, String> v = int64_t{5};
  CHECK(v.is<int64_t>());
  CHECK_FALSE(v.is<String>());
  CHECK(v.as<int64_t>().value() == 5);
  CHECK_FALSE(v.as<String>().has_value());
  CHECK(v.get<int64_t>() == 5);
  CHECK(v.GetTypeKey() == "int");

  v = String("now a string");
  CHECK(v.is<String>());
  CHECK(v.get<String>() == "now a string");
  CHECK(v.GetTypeKey() == "str");
  auto [kind, message] = ErrorOf([&] { (void)v.get<int64_t>(); });
  CHECK(kind == "TypeError");
  CHECK(message == "Cannot convert from type `str` to `int`");

  // A C string selects the String alternative; an int the integer one.
  Variant<int64_t, String> from_literal = "literal";
  CHECK(from_literal.is<String>());
  Variant<double, String> from_int = 3;
  CHECK(from_int.is<double>());
  CHECK(from_int.get<double>() == 3.0);

  // Object alternatives: as<ObjectType>() gives a pointer.
  Variant<String, Array<int64_t>> arr = Array<int64_t>{1, 2};
  CHECK(arr.as<ArrayObj>() != nullptr);
  CHECK(arr.as<ArrayObj>()->size() == 2);
  CHECK(arr.get<Array<int64_t>>()[1] == 2);
  CHECK(Variant<String, Array<int64_t>>(String("s")).as<ArrayObj>() == nullptr);

  Variant<int64_t, String> copy = v;
  CHECK(copy.same_as(v));
}

TEST_CASE("Variant from Any checks the alternatives", "[variant]") {
  using V = Variant<int64_t, String>;
  V from_any = Any(String("abc")).cast<V>();
  CHECK(from_any.get<String>() == "abc");
  auto [kind, message] = ErrorOf([&] { (void)Any(Array<int64_t>{1}).cast<V>(); });
  CHECK(kind == "TypeError");
  CHECK(message == "Cannot convert from type `ffi.Array` to `Variant<int, str>`");
  CHECK_FALSE(Any(2.5).try_cast<V>().has_value());
  CHECK(Any(2.5).as<V>() == std::nullopt);

  // An exact alternative wins; otherwise the first alternative that converts.
  using N = Variant<int64_t, double>;
  CHECK(Any(2.5).cast<N>().is<double>());
  CHECK(Any(int64_t{2}).cast<N>().is<int64_t>());
  N from_bool = Any(true).cast<N>();
  CHECK(from_bool.is<int64_t>());
  CHECK(from_bool.get<int64_t>() == 1);

  // Variants inside containers.
  Array<V> arr = Any(Array<Any>{int64_t{1}, String("two")}).cast<Array<V>>();
  CHECK(arr[0].is<int64_t>());
  CHECK(arr[1].get<String>() == "two");
  std::tie(kind, message) = ErrorOf([&] {
    (void)Any(Array<Any>{int64_t{1}, nullptr}).cast<Array<V>>();
  });
  CHECK(message == "Cannot convert from type `Array[index 1: None]` to `Array<Variant<int, str>>`");
  // Back to Any: the held value itself.
  Any back = V(String("x"));
  CHECK(back.type_index() == kTVMFFISmallStr);
}

TEST_CASE("Variant in typed functions", "[variant]") {
  Function describe = Function::FromTyped(
      [](Variant<int64_t, String, Array<int64_t>> v) -> Variant<int64_t, String> {
        if (v.is<int64_t>()) return v.get<int64_t>() * 2;
        if (v.is<String>()) return String("str:" + std::string(v.get<String>()));
        return static_cast<int64_t>(v.get<Array<int64_t>>().size());
      },
      "describe");
  CHECK(describe(21).cast<int64_t>() == 42);
  CHECK(describe("hi").cast<String>() == "str:hi");
  CHECK(describe(Array<int64_t>{1, 2, 3}).cast<int64_t>() == 3);
  auto [kind, message] = ErrorOf([&] { describe(1.5); });
  CHECK(kind == "TypeError");
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `describe(0: Variant<int, str, Array<int>>) "
        "-> Variant<int, str>`. Expected `Variant<int, str, Array<int>>` but got `float`");
}

TEST_CASE("ObjectPtrHash / ObjectPtrEqual take a Variant of object references", "[variant]") {
  int live = 0;
  containers_test::Counter a(&live);
  Array<int> b{1, 2};
  Variant<containers_test::Counter, Array<int>> va = a;
  Variant<containers_test::Counter, Array<int>> vb = b;
  Variant<containers_test::Counter, Array<int>> va2 = a;
  REQUIRE(ObjectPtrHash()(va) == ObjectPtrHash()(a));
  REQUIRE(ObjectPtrHash()(vb) == ObjectPtrHash()(b));
  REQUIRE(ObjectPtrEqual()(va, va2));  // same object
  REQUIRE_FALSE(ObjectPtrEqual()(va, vb));
  // A Variant holds what one of its alternatives holds.
  static_assert(type_subsumes_v<Variant<int, String>, int>);
  static_assert(!type_subsumes_v<Variant<int, String>, double>);
  static_assert(type_subsumes_v<Variant<int, String, double>, Variant<String, int>>);
  static_assert(type_subsumes_v<Array<Variant<int, double>>, Array<int>>);
  Array<Variant<int, double>> widened = Array<int>{3, 4};  // shares the storage
  REQUIRE(widened[1].get<int>() == 4);
}
