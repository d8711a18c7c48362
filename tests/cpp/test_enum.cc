// Tests of tvm/ffi/enum.h and tvm/ffi/reflection/enum_def.h: registering
// singletons, looking them up by name and by integer, per-singleton
// attributes, passing them through Any and Functions, and libtvmffi's
// treatment of enums (reflection of the base types, ToJSONGraph /
// FromJSONGraph, structural equality, DeepCopy, ReprPrint).
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/enum.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/enum_def.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "containers_test_util.h"

namespace {

using namespace tvm::ffi;
namespace refl = tvm::ffi::reflection;
using Catch::Matchers::ContainsSubstring;

// A plain enum: integers follow registration order.
class ColorObj : public EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_enum.Color", ColorObj, EnumObj);
};
class Color : public Enum {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Color, Enum, ColorObj);
};

// An IntEnum: integers given explicitly.
class LevelObj : public IntEnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_enum.Level", LevelObj, IntEnumObj);
};
class Level : public IntEnum {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Level, IntEnum, LevelObj);
};

// A StrEnum.
class OpObj : public StrEnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_enum.Op", OpObj, StrEnumObj);
};
class Op : public StrEnum {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Op, StrEnum, OpObj);
};

// An enum class with no EnumDef at all.
class EmptyObj : public EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_enum.Empty", EmptyObj, EnumObj);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<ColorObj>(refl::init(false)).def_convert<Color>();
  refl::EnumDef<ColorObj>("Red").set_attr("rgb", int64_t{0xff0000}).set_attr("warm", true);
  refl::EnumDef<ColorObj>("Green").set_attr("rgb", int64_t{0x00ff00});
  refl::EnumDef<ColorObj>("Blue");

  refl::ObjectDef<LevelObj>(refl::init(false)).def_convert<Level>();
  refl::EnumDef<LevelObj>("Low", -5);
  refl::EnumDef<LevelObj>("High", 100);
  refl::EnumDef<LevelObj>("Max", std::numeric_limits<int64_t>::max());

  refl::ObjectDef<OpObj>(refl::init(false));
  refl::TypeAttrDef<OpObj>().def_convert<Op>();
  refl::EnumDef<OpObj>("add");
  refl::EnumDef<OpObj>("mul");

  refl::ObjectDef<EmptyObj>(refl::init(false));
}

Color Red() {
  return EnumObj::_GetByStrIndex<ColorObj>("Red").as_or_throw<Color>();
}

EnumState StateOf(int32_t type_index) {
  return refl::TypeAttrColumn(refl::type_attr::kEnumState)[type_index].cast<EnumState>();
}

std::string Text(const Any& graph) {
  return std::string(json::Stringify(graph));
}

template <typename Fn>
std::string Thrown(Fn fn) {
  auto [kind, message] = containers_test::ErrorOf(fn);
  return kind + ": " + message;
}

TEST_CASE("EnumDef registers singletons with registration-order integers", "[enum]") {
  Enum red = EnumObj::_GetByStrIndex<ColorObj>("Red");
  Enum green = EnumObj::_GetByStrIndex<ColorObj>("Green");
  Enum blue = EnumObj::_GetByStrIndex<ColorObj>("Blue");
  CHECK(red->_int_index == 0);
  CHECK(green->_int_index == 1);
  CHECK(blue->_int_index == 2);
  CHECK(red->_str_index == "Red");
  CHECK(red->GetTypeKey() == "test_enum.Color");
  CHECK(red->IsInstance<ColorObj>());
  // Lookups return the one registered object, by either index.
  CHECK(EnumObj::_GetByIntIndex<ColorObj>(0).same_as(red));
  CHECK(EnumObj::_GetByIntIndex<ColorObj>(2).same_as(blue));
  CHECK(EnumObj::_GetByStrIndex<ColorObj>("Red").same_as(red));
  CHECK(!red.same_as(green));
  CHECK(EnumObj::_GetByIntIndex(ColorObj::RuntimeTypeIndex(), 1).same_as(green));
  CHECK(EnumObj::_GetByStrIndex(ColorObj::RuntimeTypeIndex(), "Blue").same_as(blue));

  EnumState state = StateOf(ColorObj::RuntimeTypeIndex());
  REQUIRE(state->entries.size() == 3);
  CHECK(state->entries[0].same_as(red));
  CHECK(state->entries[1].same_as(green));
  CHECK(state->entries[2].same_as(blue));
  CHECK(state->indexes.size() == 6);
}

TEST_CASE("IntEnum and StrEnum singletons", "[enum]") {
  Enum low = EnumObj::_GetByIntIndex<LevelObj>(-5);
  Enum max = EnumObj::_GetByIntIndex<LevelObj>(std::numeric_limits<int64_t>::max());
  CHECK(low->_str_index == "Low");
  CHECK(EnumObj::_GetByStrIndex<LevelObj>("Low").same_as(low));
  CHECK(EnumObj::_GetByStrIndex<LevelObj>("Max").same_as(max));
  CHECK(low.as<IntEnum>().has_value());
  CHECK(!low.as<StrEnum>().has_value());

  Enum add = EnumObj::_GetByStrIndex<OpObj>("add");
  Enum mul = EnumObj::_GetByStrIndex<OpObj>("mul");
  CHECK(add->_int_index == 0);
  CHECK(mul->_int_index == 1);
  CHECK(EnumObj::_GetByIntIndex<OpObj>(1).same_as(mul));
  CHECK(add.as<StrEnum>().has_value());

  // libtvmffi reflects `value`: the integer of an IntEnum, the name of a StrEnum.
  CHECK(refl::FieldGetter("ffi.IntEnum", "value")(low).cast<int64_t>() == -5);
  CHECK(refl::FieldGetter("ffi.StrEnum", "value")(mul).cast<String>() == "mul");
  CHECK(refl::FieldGetter("ffi.Enum", "_str_index")(low).cast<String>() == "Low");
  CHECK(refl::FieldGetter("ffi.Enum", "_int_index")(mul).cast<int64_t>() == 1);
}

TEST_CASE("Unknown names and integers are ValueErrors", "[enum]") {
  CHECK_THAT(Thrown([] { EnumObj::_GetByStrIndex<ColorObj>("Purple"); }),
             ContainsSubstring("ValueError") && ContainsSubstring("test_enum.Color") &&
                 ContainsSubstring("Purple"));
  CHECK_THAT(Thrown([] { EnumObj::_GetByIntIndex<ColorObj>(3); }),
             ContainsSubstring("ValueError") && ContainsSubstring("index 3"));
  CHECK_THAT(Thrown([] { EnumObj::_GetByIntIndex<LevelObj>(0); }),
             ContainsSubstring("ValueError: Enum `test_enum.Level`"));
  // Names are case-sensitive, and integers do not match names.
  CHECK_THAT(Thrown([] { EnumObj::_GetByStrIndex<ColorObj>("red"); }),
             ContainsSubstring("ValueError"));
  CHECK_THAT(Thrown([] { EnumObj::_GetByStrIndex<LevelObj>("100"); }),
             ContainsSubstring("ValueError"));
  // A class without singletons.
  CHECK_THAT(Thrown([] { EnumObj::_GetByStrIndex<EmptyObj>("Any"); }),
             ContainsSubstring("ValueError: Enum `test_enum.Empty` has no instance"));
}

TEST_CASE("EnumDef::IsDefined asks for a name without creating anything", "[enum]") {
  CHECK(refl::EnumDef<ColorObj>::IsDefined("Red"));
  CHECK_FALSE(refl::EnumDef<ColorObj>::IsDefined("red"));  // case-sensitive
  CHECK_FALSE(refl::EnumDef<ColorObj>::IsDefined("0"));    // a name, not an integer
  CHECK_FALSE(refl::EnumDef<LevelObj>::IsDefined("Purple"));
  // A class without singletons stays without state.
  CHECK_FALSE(refl::EnumDef<EmptyObj>::IsDefined("Any"));
  CHECK(refl::TypeAttrColumn(refl::type_attr::kEnumState)[EmptyObj::RuntimeTypeIndex()] == nullptr);
}

TEST_CASE("Registering a name or an integer twice is a ValueError", "[enum]") {
  CHECK_THAT(Thrown([] { refl::EnumDef<ColorObj>("Green"); }),
             ContainsSubstring("ValueError") && ContainsSubstring("test_enum.Color"));
  CHECK_THAT(Thrown([] { refl::EnumDef<LevelObj>("Other", 100); }),
             ContainsSubstring("ValueError"));
  CHECK_THAT(Thrown([] { refl::EnumDef<LevelObj>("High", 7); }), ContainsSubstring("ValueError"));
  // Nothing was added by the failed registrations.
  CHECK(StateOf(ColorObj::RuntimeTypeIndex())->entries.size() == 3);
  CHECK(StateOf(LevelObj::RuntimeTypeIndex())->entries.size() == 3);
}

TEST_CASE("set_attr stores per-singleton attributes in the state", "[enum]") {
  EnumState state = StateOf(ColorObj::RuntimeTypeIndex());
  Dict<ObjectRef, Any> rgb = state->attrs.at("rgb");
  CHECK(rgb.size() == 2);
  CHECK(rgb.at(Red()).cast<int64_t>() == 0xff0000);
  CHECK(rgb.at(EnumObj::_GetByStrIndex<ColorObj>("Green")).cast<int64_t>() == 0x00ff00);
  CHECK(rgb.count(EnumObj::_GetByStrIndex<ColorObj>("Blue")) == 0);
  CHECK(state->attrs.at("warm").at(Red()).cast<bool>());
  CHECK(state->attrs.size() == 2);
}

TEST_CASE("Enums pass through Any and Functions as the same object", "[enum]") {
  Color red = Red();
  Any any = red;
  CHECK(any.GetTypeKey() == "test_enum.Color");
  CHECK(any.cast<Color>().same_as(red));
  CHECK(any.cast<Enum>().same_as(red));
  CHECK(any.as<EnumObj>() == red.get());
  CHECK(!any.as<Level>().has_value());
  CHECK_THAT(Thrown([&] { any.cast<Level>(); }), ContainsSubstring("TypeError"));

  Function echo = Function::FromTyped([](Enum e) { return e; });
  CHECK(echo(red).cast<Color>().same_as(red));
  Function name = Function::FromTyped([](const Color& c) { return c->_str_index; });
  CHECK(name(red).cast<String>() == "Red");

  // def_convert's `__ffi_convert__`: AnyView -> Color, else a TypeError.
  refl::TypeAttrColumn convert(refl::type_attr::kConvert);
  Function to_color = convert[ColorObj::RuntimeTypeIndex()].cast<Function>();
  CHECK(to_color(red).cast<Color>().same_as(red));
  CHECK_THAT(Thrown([&] { to_color(EnumObj::_GetByStrIndex<OpObj>("add")); }),
             ContainsSubstring("TypeError"));
  CHECK(convert[OpObj::RuntimeTypeIndex()]
            .cast<Function>()(EnumObj::_GetByStrIndex<OpObj>("mul"))
            .cast<Op>()
            ->_str_index == "mul");
  CHECK(convert[LevelObj::RuntimeTypeIndex()] != nullptr);
  CHECK(convert[EmptyObj::RuntimeTypeIndex()] == nullptr);
}

TEST_CASE("ToJSONGraph writes an enum as its name or integer; FromJSONGraph returns the singleton",
          "[enum]") {
  Color red = Red();
  CHECK(Text(ToJSONGraph(red)) ==
        R"({"root_index":0,"nodes":[{"type":"test_enum.Color","data":"Red"}]})");
  CHECK(FromJSONGraph(ToJSONGraph(red)).cast<Color>().same_as(red));

  Enum high = EnumObj::_GetByStrIndex<LevelObj>("High");
  CHECK(Text(ToJSONGraph(high)) ==
        R"({"root_index":0,"nodes":[{"type":"test_enum.Level","data":100}]})");
  CHECK(FromJSONGraph(ToJSONGraph(high)).cast<Enum>().same_as(high));

  Enum mul = EnumObj::_GetByStrIndex<OpObj>("mul");
  CHECK(Text(ToJSONGraph(mul)) ==
        R"({"root_index":0,"nodes":[{"type":"test_enum.Op","data":"mul"}]})");

  // In a container, a singleton met twice is one node; it reads back as itself.
  Array<Any> items{red, high, red, mul};
  json::Value graph = ToJSONGraph(items);
  CHECK(graph.cast<json::Object>().at("nodes").cast<json::Array>().size() == 4);
  Array<Any> back = FromJSONGraph(json::Parse(json::Stringify(graph))).cast<Array<Any>>();
  REQUIRE(back.size() == 4);
  CHECK(back[0].cast<Color>().same_as(red));
  CHECK(back[1].cast<Enum>().same_as(high));
  CHECK(back[2].cast<Color>().same_as(red));
  CHECK(back[3].cast<Enum>().same_as(mul));
}

TEST_CASE("FromJSONGraph rejects unknown enum names and wrong data", "[enum]") {
  auto graph = [](const char* type, Any data) {
    return json::Object{{"root_index", 0},
                        {"nodes", json::Array{json::Object{{"type", type}, {"data", data}}}}};
  };
  CHECK_THAT(Thrown([&] { FromJSONGraph(graph("test_enum.Color", String("Purple"))); }),
             ContainsSubstring("ValueError") && ContainsSubstring("Purple"));
  CHECK_THAT(Thrown([&] { FromJSONGraph(graph("test_enum.Level", int64_t{3})); }),
             ContainsSubstring("ValueError") && ContainsSubstring("index 3"));
  // A plain enum is read by name, an IntEnum by integer.
  CHECK_THAT(Thrown([&] { FromJSONGraph(graph("test_enum.Color", int64_t{0})); }),
             ContainsSubstring("ValueError") && ContainsSubstring("a string"));
  CHECK_THAT(Thrown([&] { FromJSONGraph(graph("test_enum.Level", String("High"))); }),
             ContainsSubstring("ValueError") && ContainsSubstring("an int"));
  CHECK_THAT(
      Thrown([] {
        FromJSONGraph(json::Object{
            {"root_index", 0}, {"nodes", json::Array{json::Object{{"type", "test_enum.Color"}}}}});
      }),
      ContainsSubstring("ValueError") && ContainsSubstring("missing `data`"));
}

TEST_CASE("Enums are equal only to themselves; DeepCopy keeps them; ReprPrint names them",
          "[enum]") {
  Color red = Red();
  Enum green = EnumObj::_GetByStrIndex<ColorObj>("Green");
  CHECK(StructuralEqual::Equal(red, red));
  CHECK(!StructuralEqual::Equal(red, green));
  // Another object with red's indices is not red.
  ObjectPtr<ColorObj> fake = make_object<ColorObj>();
  fake->_int_index = red->_int_index;
  fake->_str_index = red->_str_index;
  CHECK(!StructuralEqual::Equal(red, Color(fake)));

  Array<Any> items{red, green};
  Array<Any> copy = DeepCopy(items).cast<Array<Any>>();
  CHECK(!copy.same_as(items));
  CHECK(copy[0].cast<Color>().same_as(red));
  CHECK(copy[1].cast<Enum>().same_as(green));
  CHECK(DeepCopy(red).cast<Color>().same_as(red));

  CHECK(ReprPrint(red) == "test_enum.Color.Red");
  CHECK(ReprPrint(EnumObj::_GetByIntIndex<LevelObj>(-5)) == "test_enum.Level.Low");
  CHECK(ReprPrint(Array<Any>{red, green}) == "(test_enum.Color.Red, test_enum.Color.Green)");
}

TEST_CASE("libtvmffi registers the enum base types and the state column", "[enum]") {
  for (const char* key : {"ffi.Enum", "ffi.IntEnum", "ffi.StrEnum", "ffi.EnumState"}) {
    TVMFFIByteArray bytes{key, std::char_traits<char>::length(key)};
    int32_t index = -1;
    CHECK(TVMFFITypeKeyToIndex(&bytes, &index) == 0);
    CHECK(index >= TypeIndex::kTVMFFIDynObjectBegin);
  }
  CHECK(EnumObj::RuntimeTypeIndex() != IntEnumObj::RuntimeTypeIndex());
  CHECK(detail::IsObjectInstance<EnumObj>(LevelObj::RuntimeTypeIndex()));
  CHECK(detail::IsObjectInstance<IntEnumObj>(LevelObj::RuntimeTypeIndex()));
  CHECK(!detail::IsObjectInstance<IntEnumObj>(OpObj::RuntimeTypeIndex()));
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(EnumObj::RuntimeTypeIndex());
  REQUIRE(info->metadata != nullptr);
  CHECK(info->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindUniqueInstance);
  // The column exists for every type; a non-enum reads as None.
  CHECK(refl::TypeAttrColumn(refl::type_attr::kEnumState)[TypeIndex::kTVMFFIArray] == nullptr);
  // An EnumState can be made through its reflected constructor.
  Any state = refl::GetMethod("ffi.EnumState", "__ffi_init__")();
  CHECK(state.cast<EnumState>()->entries.size() == 0);
}

}  // namespace
