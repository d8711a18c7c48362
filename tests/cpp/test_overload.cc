// Tests of tvm/ffi/reflection/overload.h (OverloadObjectDef: one name, several
// signatures) and of overload_cast (registry.h), which picks one function of
// an overload set by a prefix of its parameter types.
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/overload.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <functional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

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

int Scale(int x) {
  return 2 * x;
}
double Scale(double x) {
  return 0.5 * x;
}
int Scale(int x, int by) {
  return x * by;
}

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

// ---- OverloadObjectDef ----

class GaugeObj : public Object {
 public:
  enum class Kind : int64_t { kInt, kFloat, kText };
  Kind kind;
  int64_t i = 0;
  double f = 0;
  String text;

  explicit GaugeObj(int64_t v) : kind(Kind::kInt), i(v) {}
  explicit GaugeObj(double v) : kind(Kind::kFloat), f(v) {}
  GaugeObj(String s, int64_t n) : kind(Kind::kText), i(n), text(std::move(s)) {}

  int64_t Add(int64_t x) const { return i + x; }
  double Add(double x) const { return f + x; }
  int64_t Only() const { return i; }

  static double Half(double x) { return x / 2; }
  static String Half(const String& s) { return String(std::string(s).substr(0, s.size() / 2)); }
  static int64_t Twice(int64_t x) { return 2 * x; }
  static String Twice(const String& s) { return String(std::string(s) + std::string(s)); }

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.overload.Gauge", GaugeObj, Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::OverloadObjectDef<GaugeObj>()
      .def(refl::init<int64_t>(), "from an int")
      .def(refl::init<double>())
      .def(refl::init<String, int64_t>())
      .def_ro("i", &GaugeObj::i)
      .def_ro("f", &GaugeObj::f)
      .def("add", refl::overload_cast<int64_t>(&GaugeObj::Add, refl::const_))
      .def("add", refl::overload_cast<double>(&GaugeObj::Add, refl::const_))
      .def("only", &GaugeObj::Only)
      .def_static("half", refl::overload_cast<double>(&GaugeObj::Half))
      .def_static("half", refl::overload_cast<const String&>(&GaugeObj::Half))
      .def_static("twice", refl::overload_cast<int64_t>(&GaugeObj::Twice))
      .def_static("twice", refl::overload_cast<const String&>(&GaugeObj::Twice));
}

const char* kGauge = "test.overload.Gauge";

std::string TypeErrorOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& err) {
    CHECK(err.kind() == "TypeError");
    return err.message();
  }
  FAIL("no error");
  return "";
}

TEST_CASE("OverloadObjectDef: constructors dispatch on the arguments", "[overload]") {
  Function init = refl::GetMethod(kGauge, "__ffi_init__");
  ObjectRef a_ref = init(int64_t(3)).cast<ObjectRef>();  // keeps the object alive
  const GaugeObj* a = a_ref.as<GaugeObj>();
  REQUIRE(a != nullptr);
  CHECK(a->kind == GaugeObj::Kind::kInt);
  CHECK(a->i == 3);
  ObjectRef b_ref = init(2.5).cast<ObjectRef>();
  CHECK(b_ref.as<GaugeObj>()->kind == GaugeObj::Kind::kFloat);
  CHECK(b_ref.as<GaugeObj>()->f == 2.5);
  ObjectRef c_ref = init(String("ab"), 4).cast<ObjectRef>();
  CHECK(c_ref.as<GaugeObj>()->kind == GaugeObj::Kind::kText);
  CHECK(c_ref.as<GaugeObj>()->text == "ab");
  // The type attribute is the same overloaded function.
  AnyView attr = refl::TypeAttrColumn(refl::type_attr::kInit)[GaugeObj::RuntimeTypeIndex()];
  REQUIRE(attr != nullptr);
  CHECK(attr.cast<Function>().same_as(init));
  CHECK(attr.cast<Function>()(1.0).cast<ObjectRef>().as<GaugeObj>()->kind ==
        GaugeObj::Kind::kFloat);
  // Fields register as with ObjectDef.
  CHECK(refl::FieldGetter(kGauge, "f")(b_ref).cast<double>() == 2.5);
}

TEST_CASE("OverloadObjectDef: methods dispatch, first fit wins", "[overload]") {
  Function init = refl::GetMethod(kGauge, "__ffi_init__");
  ObjectRef ints = init(int64_t(5)).cast<ObjectRef>();
  ObjectRef floats = init(1.5).cast<ObjectRef>();
  Function add = refl::GetMethod(kGauge, "add");
  CHECK(add(ints, 2).cast<int64_t>() == 7);
  CHECK(add(floats, 0.25).cast<double>() == 1.75);
  // An int argument fits the int overload, registered first.
  CHECK(add(floats, 1).type_index() == TypeIndex::kTVMFFIInt);

  Function half = refl::GetMethod(kGauge, "half");
  Function twice = refl::GetMethod(kGauge, "twice");
  // An int converts to a float parameter...
  CHECK(half(3).cast<double>() == 1.5);
  CHECK(half(String("abcd")).cast<String>() == "ab");
  // ...a float never to an int one.
  CHECK(twice(String("ab")).cast<String>() == "abab");
  CHECK(twice(21).cast<int64_t>() == 42);
  std::string msg = TypeErrorOf([&] { twice(2.5); });
  CHECK_THAT(msg, Catch::Matchers::StartsWith("No matching overload found when calling: "
                                              "`test.overload.Gauge.twice` with 1 arguments"));
  CHECK_THAT(msg,
             Catch::Matchers::ContainsSubstring("Overload #0: Mismatched type on argument #0"));
  CHECK_THAT(msg,
             Catch::Matchers::ContainsSubstring("Overload #1: Mismatched type on argument #0"));
  CHECK_THAT(msg, Catch::Matchers::ContainsSubstring("but got `float`"));

  std::string count = TypeErrorOf([&] { add(ints); });
  CHECK_THAT(count, Catch::Matchers::ContainsSubstring("Mismatched number of arguments"));
  CHECK_THAT(count, Catch::Matchers::ContainsSubstring("Overload #1"));
}

TEST_CASE("OverloadObjectDef: a name registered once behaves as with ObjectDef", "[overload]") {
  Function init = refl::GetMethod(kGauge, "__ffi_init__");
  Function only = refl::GetMethod(kGauge, "only");
  CHECK(only(init(int64_t(9))).cast<int64_t>() == 9);
  std::string msg = TypeErrorOf([&] { only(1); });
  CHECK_THAT(msg, Catch::Matchers::StartsWith("Mismatched type on argument #0"));
  CHECK_THAT(msg, !Catch::Matchers::ContainsSubstring("No matching overload"));
}

TEST_CASE("OverloadObjectDef: the method table lists every signature", "[overload]") {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(GaugeObj::RuntimeTypeIndex());
  auto entries = [&](const std::string& name) {
    std::vector<const TVMFFIMethodInfo*> out;
    for (int32_t i = 0; i < info->num_methods; ++i) {
      if (std::string(info->methods[i].name.data, info->methods[i].name.size) == name) {
        out.push_back(info->methods + i);
      }
    }
    return out;
  };
  auto schemas_and_function = [&](const std::string& name, size_t count, bool is_static) {
    std::vector<const TVMFFIMethodInfo*> found = entries(name);
    REQUIRE(found.size() == count);
    std::set<std::string> schemas;
    Function first = AnyView::CopyFromTVMFFIAny(found[0]->method).cast<Function>();
    for (const TVMFFIMethodInfo* m : found) {
      std::string metadata(m->metadata.data, m->metadata.size);
      CHECK_THAT(metadata, Catch::Matchers::ContainsSubstring("\"type_schema\""));
      schemas.insert(metadata);
      CHECK(AnyView::CopyFromTVMFFIAny(m->method).cast<Function>().same_as(first));
      CHECK(((m->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod) != 0) == is_static);
    }
    CHECK(schemas.size() == count);  // one signature each
  };
  schemas_and_function("__ffi_init__", 3, true);
  schemas_and_function("add", 2, false);
  schemas_and_function("half", 2, true);
  schemas_and_function("only", 1, false);
  std::vector<const TVMFFIMethodInfo*> init = entries("__ffi_init__");
  CHECK(std::string(init[0]->doc.data, init[0]->doc.size) == "from an int");
}

}  // namespace
