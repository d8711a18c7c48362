// Tests of tvm/ffi/reflection/overload.h: overload_cast picks one function of
// an overload set by a prefix of its parameter types.
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <type_traits>

namespace {
namespace refl = tvm::ffi::reflection;
using namespace tvm::ffi;

struct Cat {};
struct Dog {};

struct Pet {
  int Set(int) { return 1; }
  int Set(const std::string&) { return 2; }
  int Feed(const Cat*, int amount) { return 10 + amount; }
  int Feed(const Dog*, int amount) { return 20 + amount; }
  int Get(int x) { return x; }
  int Get(int x) const { return -x; }
  int Pair(int, int) { return 3; }
  int Pair(int, double) { return 4; }
};

int Scale(int x) { return 2 * x; }
double Scale(double x) { return 0.5 * x; }
int Scale(int x, int by) { return x * by; }

template <auto F>
struct AsTemplateArg {
  static constexpr auto value = F;
};

TEST_CASE("overload_cast picks member functions", "[overload]") {
  Pet pet;
  const Pet& cpet = pet;
  auto set_int = refl::overload_cast<int>(&Pet::Set);
  static_assert(std::is_same_v<decltype(set_int), int (Pet::*)(int)>);
  CHECK((pet.*set_int)(0) == 1);
  auto set_str = refl::overload_cast<const std::string&>(&Pet::Set);
  CHECK((pet.*set_str)("x") == 2);
  // A prefix is enough; the trailing int is deduced.
  auto feed_cat = refl::overload_cast<const Cat*>(&Pet::Feed);
  static_assert(std::is_same_v<decltype(feed_cat), int (Pet::*)(const Cat*, int)>);
  CHECK((pet.*feed_cat)(nullptr, 1) == 11);
  CHECK((pet.*refl::overload_cast<const Dog*>(&Pet::Feed))(nullptr, 2) == 22);
  // Shared prefixes need the full list.
  CHECK((pet.*refl::overload_cast<int, double>(&Pet::Pair))(1, 1.0) == 4);
  CHECK((pet.*refl::overload_cast<int, int>(&Pet::Pair))(1, 1) == 3);
  // const members only with const_.
  auto get_mut = refl::overload_cast<int>(&Pet::Get);
  auto get_const = refl::overload_cast<int>(&Pet::Get, refl::const_);
  static_assert(std::is_same_v<decltype(get_const), int (Pet::*)(int) const>);
  CHECK((pet.*get_mut)(3) == 3);
  CHECK((cpet.*get_const)(3) == -3);
}

TEST_CASE("overload_cast picks free functions, at compile time", "[overload]") {
  // The full list beats the longer overload with the same prefix.
  auto by_int = refl::overload_cast<int>(&Scale);
  static_assert(std::is_same_v<decltype(by_int), int (*)(int)>);
  CHECK(by_int(3) == 6);
  CHECK(refl::overload_cast<double>(&Scale)(3.0) == 1.5);
  CHECK(refl::overload_cast<int, int>(&Scale)(3, 4) == 12);
  CHECK(AsTemplateArg<refl::overload_cast<int, int>(&Scale)>::value(2, 5) == 10);
  // The picked overload becomes a typed FFI function.
  Function f = Function::FromTyped(refl::overload_cast<double>(&Scale));
  CHECK(f(4.0).cast<double>() == 2.0);
}

}  // namespace
