// Standard-library types at the FFI boundary: typed functions taking and
// returning std::vector, std::array, std::tuple, std::map, std::unordered_map,
// std::optional, std::variant, std::string(_view), std::function; element
// errors name the position; conversions work in both directions through Any.
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/extra/stl.h>

#include "containers_test_util.h"

using namespace tvm::ffi;
using containers_test::ErrorOf;

namespace {
// Exported like a kernel-library function (extern "C" __tvm_ffi_<name>).
std::map<std::string, std::vector<int64_t>> GroupByParity(const std::vector<int64_t>& xs) {
  std::map<std::string, std::vector<int64_t>> out;
  for (int64_t x : xs) out[x % 2 == 0 ? "even" : "odd"].push_back(x);
  return out;
}
}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(containers_test_group_by_parity, GroupByParity);

TEST_CASE("std::vector arguments and results", "[stl]") {
  Function sum = Function::FromTyped(
      [](std::vector<int> xs) {
        int s = 0;
        for (int x : xs) s += x;
        return s;
      },
      "sum");
  CHECK(sum(Array<int64_t>{1, 2, 3}).cast<int>() == 6);
  CHECK(sum(Array<Any>{int64_t{1}, true}).cast<int>() == 2);  // bool converts to int
  CHECK(sum(Shape{4, 5}).cast<int>() == 9);                   // a Shape is a list of ints
  auto [kind, message] = ErrorOf([&] { sum(Array<Any>{int64_t{1}, int64_t{2}, String("three")}); });
  CHECK(kind == "TypeError");
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `sum(0: std::vector<int>) -> int`. "
        "Expected `std::vector<int>` but got `Array[index 2: str]`");
  std::tie(kind, message) = ErrorOf([&] { sum(int64_t{1}); });
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `sum(0: std::vector<int>) -> int`. "
        "Expected `std::vector<int>` but got `int`");

  Function words = Function::FromTyped([](int64_t n) {
    std::vector<std::string> out;
    for (int64_t i = 0; i < n; ++i) out.push_back("word" + std::to_string(i));
    return out;
  });
  Any result = words(3);
  CHECK(result.type_index() == kTVMFFIArray);
  Array<String> as_array = result.cast<Array<String>>();
  REQUIRE(as_array.size() == 3);
  CHECK(as_array[2] == "word2");
  CHECK(result.cast<std::vector<std::string>>() ==
        std::vector<std::string>{"word0", "word1", "word2"});

  // Nested, with element conversion (int -> double) on the way in.
  Function total = Function::FromTyped([](const std::vector<std::vector<double>>& rows) {
    double s = 0;
    for (const auto& r : rows) {
      for (double x : r) s += x;
    }
    return s;
  });
  CHECK(total(Array<Array<int64_t>>{{1, 2}, {3}}).cast<double>() == 6.0);
  std::tie(kind, message) = ErrorOf([&] { total(Array<Any>{Array<Any>{1.0, String("x")}}); });
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `(0: std::vector<std::vector<float>>) -> "
        "float`. Expected `std::vector<std::vector<float>>` but got `Array[index 0: Array[index 1: "
        "str]]`");
}

TEST_CASE("std types through Any, both directions", "[stl]") {
  Any v = std::vector<int64_t>{3, 4, 5};
  CHECK(v.type_index() == kTVMFFIArray);
  CHECK(v.cast<Array<int64_t>>() == Array<int64_t>{3, 4, 5});
  CHECK(v.cast<std::vector<int64_t>>() == std::vector<int64_t>{3, 4, 5});
  CHECK(v.cast<std::vector<double>>() == std::vector<double>{3.0, 4.0, 5.0});
  CHECK(v.as<std::vector<int64_t>>().has_value());
  CHECK_FALSE(v.as<std::vector<double>>().has_value());
  CHECK_FALSE(v.try_cast<std::vector<std::string>>().has_value());
  auto [kind, message] = ErrorOf([&] { (void)v.cast<std::vector<std::string>>(); });
  CHECK(kind == "TypeError");
  CHECK(message == "Cannot convert from type `Array[index 0: int]` to `std::vector<str>`");

  Any m = std::map<std::string, int64_t>{{"b", 2}, {"a", 1}};
  CHECK(m.type_index() == kTVMFFIMap);
  Map<String, int64_t> as_map = m.cast<Map<String, int64_t>>();
  CHECK(as_map.at("a") == 1);
  CHECK(m.cast<std::map<std::string, int64_t>>() ==
        std::map<std::string, int64_t>{{"a", 1}, {"b", 2}});
  CHECK(m.cast<std::unordered_map<std::string, double>>().at("b") == 2.0);
  std::tie(kind, message) = ErrorOf([&] { (void)m.cast<std::map<std::string, std::string>>(); });
  CHECK(message == "Cannot convert from type `Map[K, some value is int]` to `std::map<str, str>`");

  Any t = std::tuple<int64_t, std::string, double>(1, "x", 2.5);
  CHECK(t.type_index() == kTVMFFIArray);
  CHECK(t.cast<Tuple<int64_t, String, double>>().get<1>() == "x");
  CHECK(t.cast<std::tuple<int64_t, std::string, double>>() ==
        std::make_tuple(int64_t{1}, std::string("x"), 2.5));
  std::tie(kind, message) = ErrorOf([&] { (void)t.cast<std::tuple<int64_t, int64_t>>(); });
  CHECK(message == "Cannot convert from type `Array[size=3]` to `std::tuple<int, int>`");
  // Elements convert left to right; one that does not makes the whole cast fail.
  CHECK(t.cast<std::tuple<double, std::string, double>>() ==
        std::make_tuple(1.0, std::string("x"), 2.5));
  CHECK_FALSE((t.try_cast<std::tuple<double, std::string, int64_t>>().has_value()));
  CHECK_FALSE((t.try_cast<Tuple<double, int64_t, double>>().has_value()));
  CHECK(t.cast<Tuple<double, String, double>>().get<0>() == 1.0);

  Any arr = std::array<int64_t, 2>{7, 8};
  CHECK((arr.cast<std::array<int64_t, 2>>() == std::array<int64_t, 2>{7, 8}));
  CHECK_FALSE((arr.try_cast<std::array<int64_t, 3>>().has_value()));

  Any var = std::variant<int64_t, std::string>(std::string("text"));
  CHECK(var.type_index() == kTVMFFISmallStr);
  CHECK(std::get<std::string>(var.cast<std::variant<int64_t, std::string>>()) == "text");
  CHECK(std::get<int64_t>(Any(int64_t{3}).cast<std::variant<std::string, int64_t>>()) == 3);
  CHECK(Any(nullptr).cast<std::variant<std::monostate, int64_t>>().index() == 0);
  std::tie(kind, message) =
      ErrorOf([&] { (void)Any(2.5).cast<std::variant<int64_t, std::string>>(); });
  CHECK(message == "Cannot convert from type `float` to `std::variant<int, str>`");
}

TEST_CASE("std types in typed functions", "[stl]") {
  Function lengths = Function::FromTyped(
      [](std::unordered_map<std::string, std::vector<int64_t>> m,
         std::string_view prefix) -> std::map<std::string, int64_t> {
        std::map<std::string, int64_t> out;
        for (const auto& kv : m) out[std::string(prefix) + kv.first] = kv.second.size();
        return out;
      },
      "lengths");
  Map<String, Array<int64_t>> input = {{"a", {1, 2}}, {"b", {}}};
  auto out = lengths(input, "k_").cast<std::map<std::string, int64_t>>();
  CHECK(out == std::map<std::string, int64_t>{{"k_a", 2}, {"k_b", 0}});

  Function pick = Function::FromTyped(
      [](std::optional<std::vector<int64_t>> xs,
         std::variant<int64_t, std::string> which) -> std::tuple<bool, std::string> {
        std::string tag = std::holds_alternative<int64_t>(which)
                              ? "int:" + std::to_string(std::get<int64_t>(which))
                              : "str:" + std::get<std::string>(which);
        return {xs.has_value(), tag};
      },
      "pick");
  auto [has, tag] = pick(nullptr, 4).cast<std::tuple<bool, std::string>>();
  CHECK_FALSE(has);
  CHECK(tag == "int:4");
  std::tie(has, tag) = pick(Array<int64_t>{1}, "s").cast<std::tuple<bool, std::string>>();
  CHECK(has);
  CHECK(tag == "str:s");
  auto [kind, message] = ErrorOf([&] { pick(Array<Any>{String("x")}, 1); });
  CHECK(kind == "TypeError");
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `pick(0: Optional<std::vector<int>>, 1: "
        "std::variant<int, str>) -> std::tuple<bool, str>`. Expected "
        "`Optional<std::vector<int>>` but got `Array[index 0: str]`");

  Function fixed =
      Function::FromTyped([](std::array<int64_t, 3> a) { return a[0] + a[1] + a[2]; }, "fixed");
  CHECK(fixed(Array<int64_t>{1, 2, 3}).cast<int64_t>() == 6);
  std::tie(kind, message) = ErrorOf([&] { fixed(Array<int64_t>{1, 2}); });
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `fixed(0: std::array<int, 3>) -> int`. "
        "Expected `std::array<int, 3>` but got `Array[size=2]`");
}

TEST_CASE("std types through an exported typed function", "[stl]") {
  Any grouped = Function::InvokeExternC(nullptr, __tvm_ffi_containers_test_group_by_parity,
                                        Array<int64_t>{1, 2, 3, 4, 5});
  CHECK(grouped.type_index() == kTVMFFIMap);
  auto m = grouped.cast<Map<String, Array<int64_t>>>();
  CHECK(m.at("odd") == Array<int64_t>{1, 3, 5});
  CHECK(m.at("even") == Array<int64_t>{2, 4});
  // The export rejects a bad element with the function's name and the position.
  auto [kind, message] = ErrorOf([&] {
    Function::InvokeExternC(nullptr, __tvm_ffi_containers_test_group_by_parity,
                            Array<Any>{int64_t{1}, 2.5});
  });
  CHECK(kind == "TypeError");
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `containers_test_group_by_parity(0: "
        "std::vector<int>) -> std::map<str, std::vector<int>>`. Expected `std::vector<int>` but "
        "got `Array[index 1: float]`");
}

TEST_CASE("std::function arguments and results", "[stl]") {
  // A Function argument arrives as a std::function; a std::function result
  // leaves as a Function (upstream's tests/python/cpp_src/test_stl.cc).
  Function add_one = Function::FromTyped(
      [](std::function<int64_t(int64_t)> f) -> std::function<int64_t(int64_t)> {
        return [fn = std::move(f)](int64_t x) { return fn(x) + 1; };
      },
      "add_one");
  Function twice = Function::FromTyped([](int64_t x) { return 2 * x; });
  Any wrapped = add_one(twice);
  REQUIRE(wrapped.type_index() == kTVMFFIFunction);
  Function f = wrapped.cast<Function>();
  CHECK(f(5).cast<int64_t>() == 11);
  CHECK(f(true).cast<int64_t>() == 3);  // bool converts to int, as in any typed function

  // The result checks its arguments as Function::FromTyped does.
  auto [kind, message] = ErrorOf([&] { f(); });
  CHECK(kind == "TypeError");
  CHECK(message ==
        "Mismatched number of arguments when calling: `(0: int) -> int`. Expected 1 but got 0 "
        "arguments");
  std::tie(kind, message) = ErrorOf([&] { f(String("x")); });
  CHECK(kind == "TypeError");
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `(0: int) -> int`. Expected `int` but got "
        "`str`");
  // A parameter that is not a function; the signature names the std::function type.
  std::tie(kind, message) = ErrorOf([&] { add_one(int64_t{1}); });
  CHECK(kind == "TypeError");
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `add_one(0: std::function<int(int)>) -> "
        "std::function<int(int)>`. Expected `std::function<int(int)>` but got `int`");
  // The wrapped function's result must convert to R when the std::function is called.
  Function text = Function::FromTyped([](int64_t) { return String("no"); });
  std::tie(kind, message) = ErrorOf([&] { add_one(text).cast<Function>()(1); });
  CHECK(kind == "TypeError");
  CHECK(message == "Cannot convert from type `str` to `int`");

  // A void result, and a callback seeing the caller's state.
  int64_t seen = 0;
  Function call_with_three = Function::FromTyped([](std::function<void(int64_t)> g) { g(3); });
  call_with_three(Function::FromTyped([&seen](int64_t x) { seen = x; }));
  CHECK(seen == 3);

  // Through Any, both ways; an empty std::function is None.
  Any any_fn = std::function<int64_t()>([] { return int64_t{7}; });
  CHECK(any_fn.type_index() == kTVMFFIFunction);
  CHECK(any_fn.cast<Function>()().cast<int64_t>() == 7);
  CHECK(any_fn.cast<std::function<int64_t()>>()() == 7);
  CHECK(any_fn.cast<std::function<double()>>()() == 7.0);  // the result converts to R
  CHECK(Any(std::function<void()>()).type_index() == kTVMFFINone);
  CHECK_FALSE(Any(int64_t{1}).try_cast<std::function<void()>>().has_value());
  std::tie(kind, message) = ErrorOf([&] { (void)Any(nullptr).cast<std::function<void()>>(); });
  CHECK(message == "Cannot convert from type `None` to `std::function<None()>`");
}
