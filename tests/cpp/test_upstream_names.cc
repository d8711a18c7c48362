// Upstream 0.1.15 names that its testing library (src/ffi/testing) uses:
// typed attribute keys (reflection::AttrKey and the tvm::ffi::type_attr hook
// keys), the Pattern / Simple names of the def-region field flags,
// AnyView::as_or_throw, and `os << std::endl` next to dataclass.h.
#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/enum.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/enum_def.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "containers_test_util.h"

namespace {

using namespace tvm::ffi;
namespace refl = tvm::ffi::reflection;

constexpr refl::AttrKey<int64_t> kWeight{"test_upstream_names.weight"};
constexpr refl::AttrKey<String> kUnsetColumn{"test_upstream_names.unset"};

class WeightedObj : public Object {
 public:
  int64_t key = 0;
  int64_t pattern = 0;
  int64_t simple = 0;
  String label;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_upstream_names.Weighted", WeightedObj, Object);
};

class PlainObj : public Object {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_upstream_names.Plain", PlainObj, Object);
};

class ShadeObj : public EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_upstream_names.Shade", ShadeObj, EnumObj);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<WeightedObj>()
      .def_ro("key", &WeightedObj::key)
      .def_ro("pattern", &WeightedObj::pattern, refl::AttachFieldFlag::SEqHashDefPattern())
      .def_ro("simple", &WeightedObj::simple, refl::AttachFieldFlag::SEqHashDefSimple())
      .def_ro("label", &WeightedObj::label);
  // A double converts to the key's declared type (int64_t) before it is stored.
  refl::TypeAttrDef<WeightedObj>().attr(kWeight, 7.0);
  refl::TypeAttrDef<PlainObj>().attr("test_upstream_names.weight", String("not an int"));
  // The typed hash hook: only `key` counts.
  refl::TypeAttrDef<WeightedObj>().attr(
      type_attr::kHash, [](const Object* self, const TypedFunction<int64_t(AnyView)>& hash) {
        return hash(static_cast<const WeightedObj*>(self)->key);
      });
  refl::EnsureTypeAttrColumn(kUnsetColumn);
  refl::ObjectDef<ShadeObj>(refl::init(false));
  refl::EnumDef<ShadeObj>("Dark").set_attr(kWeight, 3.0);
}

const TVMFFIFieldInfo& FieldOf(const TVMFFITypeInfo* info, std::string_view name) {
  for (int32_t i = 0; i < info->num_fields; ++i) {
    if (std::string_view(info->fields[i].name.data, info->fields[i].name.size) == name) {
      return info->fields[i];
    }
  }
  FAIL("no field " << name);
  return info->fields[0];
}

ObjectRef MakeWeighted(int64_t key, String label) {
  auto n = make_object<WeightedObj>();
  n->key = key;
  n->label = std::move(label);
  return ObjectRef(n);
}

TEST_CASE("AttrKey stores and reads a type attribute of its declared type", "[upstream_names]") {
  refl::TypeAttrColumn column(kWeight);
  std::optional<int64_t> weight = kWeight.ValueFrom(column[WeightedObj::RuntimeTypeIndex()]);
  REQUIRE(weight.has_value());
  CHECK(*weight == 7);
  CHECK(column[WeightedObj::RuntimeTypeIndex()].type_index() == kTVMFFIInt);
  // A type without the attribute reads as no value.
  CHECK_FALSE(kWeight.ValueFrom(column[ShadeObj::RuntimeTypeIndex()]).has_value());
  // A value of another type is a TypeError: ValueFrom converts nothing.
  AnyView wrong = column[PlainObj::RuntimeTypeIndex()];
  CHECK(containers_test::ErrorOf([&] { (void)kWeight.ValueFrom(wrong); }).first == "TypeError");
}

TEST_CASE("EnsureTypeAttrColumn(AttrKey) creates an empty column", "[upstream_names]") {
  refl::TypeAttrColumn column(kUnsetColumn);
  CHECK_FALSE(kUnsetColumn.ValueFrom(column[WeightedObj::RuntimeTypeIndex()]).has_value());
  CHECK(containers_test::ErrorOf([] { refl::TypeAttrColumn("test_upstream_names.never"); }).first ==
        "RuntimeError");
}

TEST_CASE("EnumDef::set_attr takes an AttrKey", "[upstream_names]") {
  EnumState state = refl::TypeAttrColumn(refl::type_attr::kEnumState)[ShadeObj::RuntimeTypeIndex()]
                        .cast<EnumState>();
  Any value = state->attrs.at(kWeight.name).at(EnumObj::_GetByStrIndex<ShadeObj>("Dark"));
  CHECK(value.type_index() == kTVMFFIInt);
  CHECK(value.cast<int64_t>() == 3);
}

TEST_CASE("type_attr::kHash registers a typed hash hook", "[upstream_names]") {
  CHECK(std::string_view(type_attr::kHash.name) == "__ffi_hash__");
  CHECK(std::string_view(type_attr::kEq.name) == "__ffi_eq__");
  CHECK(std::string_view(type_attr::kCompare.name) == "__ffi_compare__");
  CHECK(std::string_view(type_attr::kRepr.name) == "__ffi_repr__");
  // The hook ignores `label`: equal keys hash alike, other keys (almost surely) not.
  CHECK(RecursiveHash(MakeWeighted(1, "a")) == RecursiveHash(MakeWeighted(1, "b")));
  CHECK(RecursiveHash(MakeWeighted(1, "a")) != RecursiveHash(MakeWeighted(2, "a")));
}

TEST_CASE("SEqHashDefPattern / SEqHashDefSimple set the def-region bits", "[upstream_names]") {
  static_assert(kTVMFFIFieldFlagBitMaskSEqHashDefPattern ==
                kTVMFFIFieldFlagBitMaskSEqHashDefRecursive);
  static_assert(kTVMFFIFieldFlagBitMaskSEqHashDefSimple ==
                kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive);
  static_assert(kTVMFFIDefRegionKindPattern == kTVMFFIDefRegionKindRecursive);
  static_assert(kTVMFFIDefRegionKindSimple == kTVMFFIDefRegionKindNonRecursive);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(WeightedObj::RuntimeTypeIndex());
  int32_t both = kTVMFFIFieldFlagBitMaskSEqHashDefPattern | kTVMFFIFieldFlagBitMaskSEqHashDefSimple;
  CHECK((FieldOf(info, "pattern").flags & both) == kTVMFFIFieldFlagBitMaskSEqHashDefPattern);
  CHECK((FieldOf(info, "simple").flags & both) == kTVMFFIFieldFlagBitMaskSEqHashDefSimple);
  CHECK((FieldOf(info, "key").flags & both) == 0);
}

TEST_CASE("AnyView::as_or_throw gives the stored type or a TypeError", "[upstream_names]") {
  ObjectRef obj = MakeWeighted(5, "x");
  AnyView view(obj);
  CHECK(view.as_or_throw<const WeightedObj*>()->key == 5);
  CHECK(AnyView(int64_t{4}).as_or_throw<int64_t>() == 4);
  // No conversion: an int is not a float here, nor an object of another type.
  CHECK(containers_test::ErrorOf([] { (void)AnyView(int64_t{4}).as_or_throw<double>(); }).first ==
        "TypeError");
  CHECK(containers_test::ErrorOf([&] { (void)view.as_or_throw<const PlainObj*>(); }).first ==
        "TypeError");
}

TEST_CASE("os << std::endl compiles and works next to dataclass.h", "[upstream_names]") {
  std::ostringstream os;
  os << "a" << std::endl;
  CHECK(os.str() == "a\n");
}

}  // namespace
