// Tests of tvm/ffi/reflection/registry.h: ObjectDef (fields, methods, static
// methods, constructors, metadata), TypeAttrDef, GlobalDef::def_method, all
// read back through the C registry.
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/creator.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <functional>
#include <string>
#include <string_view>

#include "reflection_test_util.h"

namespace {

using namespace tvm::ffi;
using namespace reflection_test;
namespace refl = tvm::ffi::reflection;

std::string_view View(const TVMFFIByteArray& b) {
  return std::string_view(b.data, b.size);
}

template <typename T, typename M>
int64_t OffsetIn(const T* obj, const M* member) {
  return reinterpret_cast<const char*>(member) - reinterpret_cast<const char*>(obj);
}

const TVMFFITypeInfo* InfoOf(const char* key) {
  RegisterTestTypes();
  return TVMFFIGetTypeInfo(TypeKeyToIndex(key));
}

TEST_CASE("ObjectDef registers fields with offsets, flags, docs and metadata", "[registry]") {
  const TVMFFITypeInfo* info = InfoOf("test.refl.Point");
  REQUIRE(info->num_fields == 4);
  const TVMFFIFieldInfo& x = info->fields[0];
  CHECK(View(x.name) == "x");
  CHECK(View(x.doc) == "the x coordinate");
  Point p(1, 2.0);
  CHECK(x.offset == OffsetIn(p.get(), &p->x));
  CHECK(x.size == 8);
  CHECK((x.flags & kTVMFFIFieldFlagBitMaskWritable) != 0);
  CHECK((x.flags & kTVMFFIFieldFlagBitMaskHasDefault) == 0);
  CHECK(x.field_static_type_index == kTVMFFIInt);
  CHECK(View(x.metadata).find("\"type_schema\":") != std::string_view::npos);

  const TVMFFIFieldInfo& y = info->fields[1];
  CHECK((y.flags & kTVMFFIFieldFlagBitMaskHasDefault) != 0);
  CHECK(y.default_value_or_factory.type_index == kTVMFFIFloat);
  CHECK(y.default_value_or_factory.v_float64 == 2.5);

  const TVMFFIFieldInfo& label = info->fields[2];
  CHECK(View(label.metadata).find("\"unit\":\"m\"") != std::string_view::npos);
  CHECK(View(label.metadata).find("\"order\":3") != std::string_view::npos);
  CHECK((info->fields[3].flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) != 0);

  REQUIRE(info->metadata != nullptr);
  CHECK(View(info->metadata->doc) == "A 2-D point.");
  CHECK(info->metadata->total_size == static_cast<int32_t>(sizeof(PointObj)));
  CHECK(info->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindTreeNode);
  CHECK(info->metadata->creator != nullptr);
}

TEST_CASE("ObjectDef: subclass fields are measured from the object header", "[registry]") {
  const TVMFFITypeInfo* info = InfoOf("test.refl.Point3");
  REQUIRE(info->num_fields == 2);
  ObjectPtr<Point3Obj> n = make_object<Point3Obj>();
  CHECK(info->fields[0].offset == OffsetIn(n.get(), &n->z));
  CHECK(info->fields[0].offset > 0);
  CHECK(info->fields[1].field_static_type_index == kTVMFFIAny);
  CHECK((info->fields[1].flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory) != 0);
}

TEST_CASE("ObjectDef: read-only fields are not writable", "[registry]") {
  const TVMFFITypeInfo* info = InfoOf("test.refl.Var");
  REQUIRE(info->num_fields == 1);
  CHECK((info->fields[0].flags & kTVMFFIFieldFlagBitMaskWritable) == 0);
}

TEST_CASE("ObjectDef registers methods, static methods and the constructor", "[registry]") {
  RegisterTestTypes();
  Point p(3, 4.0);
  Function sum = refl::GetMethod("test.refl.Point", "sum");
  CHECK(sum(p, 10).cast<int64_t>() == 17);
  const TVMFFIMethodInfo* sum_info = refl::GetMethodInfo("test.refl.Point", "sum");
  CHECK((sum_info->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod) == 0);
  CHECK(View(sum_info->doc) == "x + y + extra");
  CHECK(View(sum_info->metadata).find("ffi.Function") != std::string_view::npos);
  // The method's schema in upstream 0.1.15's form: the object is parameter 0.
  CHECK(View(sum_info->metadata)
            .find(R"(\"named_args\":{\"return\":[{\"type\":\"int\"}],)"
                  R"(\"params\":[{\"type\":\"test.refl.Point\"},)") != std::string_view::npos);

  const TVMFFIMethodInfo* origin = refl::GetMethodInfo("test.refl.Point", "origin");
  CHECK((origin->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod) != 0);
  Point o = refl::GetMethod("test.refl.Point", "origin")().cast<Point>();
  CHECK(o->x == 0);

  Point made = refl::GetMethod("test.refl.Point", "__ffi_init__")(7, 1.5).cast<Point>();
  CHECK(made->x == 7);
  CHECK(made->y == 1.5);
  // The same constructor as the __ffi_init__ type attribute.
  Function init =
      refl::TypeAttrColumn(refl::type_attr::kInit)[PointObj::RuntimeTypeIndex()].cast<Function>();
  CHECK(init(2, 0.5).cast<Point>()->x == 2);
  // Wrong argument types are a TypeError from the typed wrapper.
  CHECK_THROWS_AS(refl::GetMethod("test.refl.Point", "__ffi_init__")("a", 1.0), Error);
}

TEST_CASE("ObjectDef publishes __ffi_type_final__; ffi.Module is final", "[registry]") {
  RegisterTestTypes();
  refl::TypeAttrColumn final_attr(refl::type_attr::kTypeFinal);
  CHECK(final_attr[PointObj::RuntimeTypeIndex()].cast<bool>() == false);
  CHECK(final_attr[Point3Obj::RuntimeTypeIndex()].cast<bool>() == true);
  CHECK(final_attr[TypeKeyToIndex("ffi.Module")].cast<bool>() == true);
  // A class defined twice keeps its one value (no "already set" error).
  refl::ObjectDef<Point3Obj>();
  CHECK(final_attr[Point3Obj::RuntimeTypeIndex()].cast<bool>() == true);
}

TEST_CASE("The registered creator makes a default object", "[registry]") {
  const TVMFFITypeInfo* info = InfoOf("test.refl.Point");
  TVMFFIObjectHandle handle = nullptr;
  REQUIRE(info->metadata->creator(&handle) == 0);
  ObjectRef obj = detail::ObjectUnsafe::ObjectRefFromObjectPtr<ObjectRef>(
      detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(static_cast<TVMFFIObject*>(handle)));
  CHECK(obj->type_index() == PointObj::RuntimeTypeIndex());
}

// Constructible only from UnsafeInit (or with arguments): the creator uses UnsafeInit.
class OnlyUnsafeObj : public Object {
 public:
  int64_t v;
  explicit OnlyUnsafeObj(UnsafeInit) : v(-1) {}
  explicit OnlyUnsafeObj(int64_t v) : v(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.OnlyUnsafe", OnlyUnsafeObj, Object);
};

TEST_CASE("ObjectDef: a class made from UnsafeInit still gets a creator", "[registry]") {
  static_assert(!std::is_default_constructible_v<OnlyUnsafeObj>);
  refl::ObjectDef<OnlyUnsafeObj>().def_ro("v", &OnlyUnsafeObj::v);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(OnlyUnsafeObj::RuntimeTypeIndex());
  REQUIRE(info->metadata != nullptr);
  CHECK(info->metadata->creator != nullptr);
  ObjectRef made =
      refl::ObjectCreator("test.refl.OnlyUnsafe")(Map<String, Any>{{"v", 3}}).cast<ObjectRef>();
  CHECK(made.as<OnlyUnsafeObj>()->v == 3);
}

TEST_CASE("GetFieldByteOffsetToObject deduces the class from the member", "[registry]") {
  Point p(1, 2.0);
  CHECK(refl::GetFieldByteOffsetToObject(&PointObj::y) == OffsetIn(p.get(), &p->y));
  // A base member measured within a subclass.
  ObjectPtr<Point3Obj> n = make_object<Point3Obj>();
  CHECK(refl::GetFieldByteOffsetToObject<Point3Obj, int64_t>(&PointObj::x) ==
        OffsetIn(n.get(), &n->x));
}

TEST_CASE("Field flag helpers set the ABI bits", "[registry]") {
  TVMFFIFieldInfo info{};
  refl::AttachFieldFlag::SEqHashDefRecursive().Apply(&info);
  CHECK(info.flags == kTVMFFIFieldFlagBitMaskSEqHashDef);
  refl::repr(false).Apply(&info);
  CHECK((info.flags & kTVMFFIFieldFlagBitMaskReprOff) != 0);
  TVMFFIFieldInfo shown{};
  refl::repr(true).Apply(&shown);
  CHECK(shown.flags == 0);
  // Each option sets its own bit when off (kw_only: when on), nothing otherwise.
  struct Case {
    TVMFFIFieldInfo on, off;
    int64_t bit;
  };
  Case cases[4] = {};
  refl::compare(true).Apply(&cases[0].on);
  refl::compare(false).Apply(&cases[0].off);
  cases[0].bit = kTVMFFIFieldFlagBitMaskCompareOff;
  refl::hash(true).Apply(&cases[1].on);
  refl::hash(false).Apply(&cases[1].off);
  cases[1].bit = kTVMFFIFieldFlagBitMaskHashOff;
  refl::init(true).Apply(&cases[2].on);
  refl::init(false).Apply(&cases[2].off);
  cases[2].bit = kTVMFFIFieldFlagBitMaskInitOff;
  refl::kw_only(false).Apply(&cases[3].on);
  refl::kw_only(true).Apply(&cases[3].off);
  cases[3].bit = kTVMFFIFieldFlagBitMaskKwOnly;
  for (const Case& c : cases) {
    CHECK(c.on.flags == 0);
    CHECK(c.off.flags == c.bit);
  }
  TVMFFIFieldInfo let{};
  refl::AttachFieldFlag::SEqHashDefNonRecursive().Apply(&let);
  CHECK(let.flags == kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive);
}

TEST_CASE("Field options reach the registered field info", "[registry]") {
  RegisterTestTypes();
  const TVMFFIFieldInfo* var = refl::GetFieldInfo("test.refl.Let", "var");
  CHECK((var->flags & kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive) != 0);
  CHECK((var->flags & kTVMFFIFieldFlagBitMaskSEqHashDefRecursive) == 0);
  const TVMFFIFieldInfo* rec = refl::GetFieldInfo("test.refl.RecLet", "var");
  CHECK((rec->flags & kTVMFFIFieldFlagBitMaskSEqHashDefRecursive) != 0);
}

TEST_CASE("Registering the same field twice is an error", "[registry]") {
  RegisterTestTypes();
  CHECK_THROWS_AS(refl::ObjectDef<HandleObj>().def_ro("id", &HandleObj::id), Error);
}

TEST_CASE("TypeAttrDef sets values and functions per type", "[registry]") {
  RegisterTestTypes();
  refl::TypeAttrDef<HandleObj>()
      .def("test.refl.attr_value", 42)
      .def("test.refl.attr_func", [](int64_t a) { return a * 2; })
      .attr("test.refl.attr_str", String("hello"));
  int32_t tindex = HandleObj::RuntimeTypeIndex();
  CHECK(refl::TypeAttrColumn("test.refl.attr_value")[tindex].cast<int64_t>() == 42);
  CHECK(refl::TypeAttrColumn("test.refl.attr_func")[tindex].cast<Function>()(21).cast<int>() == 42);
  CHECK(refl::TypeAttrColumn("test.refl.attr_str")[tindex].cast<String>() == "hello");
  // Another type reads None from the same column.
  CHECK(refl::TypeAttrColumn("test.refl.attr_value")[VarObj::RuntimeTypeIndex()] == nullptr);
  // Setting it again for the same type is refused.
  CHECK_THROWS_AS(refl::TypeAttrDef<HandleObj>().def("test.refl.attr_value", 1), Error);
  // EnsureTypeAttrColumn makes an empty column readable.
  CHECK_THROWS_AS(refl::TypeAttrColumn("test.refl.never_set"), Error);
  refl::EnsureTypeAttrColumn("test.refl.never_set");
  CHECK(refl::TypeAttrColumn("test.refl.never_set")[tindex] == nullptr);
}

TEST_CASE("ObjectDef::def_type_attr sets values and functions", "[registry]") {
  refl::ObjectDef<OnlyUnsafeObj>()
      .def_type_attr("test.refl.od_attr_text", "literal")
      .def_type_attr("test.refl.od_attr_int", int64_t{7})
      .def_type_attr("test.refl.od_attr_fn", [](const OnlyUnsafeObj* self) { return self->v * 2; });
  int32_t tindex = OnlyUnsafeObj::RuntimeTypeIndex();
  CHECK(refl::TypeAttrColumn("test.refl.od_attr_text")[tindex].cast<String>() == "literal");
  CHECK(refl::TypeAttrColumn("test.refl.od_attr_int")[tindex].cast<int64_t>() == 7);
  ObjectRef obj(make_object<OnlyUnsafeObj>(int64_t{21}));
  CHECK(
      refl::TypeAttrColumn("test.refl.od_attr_fn")[tindex].cast<Function>()(obj).cast<int64_t>() ==
      42);
}

TEST_CASE("GlobalDef::def_method passes the object first", "[registry]") {
  RegisterTestTypes();
  refl::GlobalDef()
      .def_method("test.refl.Point.sum", &PointObj::Sum, "doc of sum")
      .def_method("test.refl.free", [](int64_t a) { return a + 1; })
      .def(
          "test.refl.meta", [](int64_t a) { return a; }, refl::Metadata{{"pure", true}});
  Function f = Function::GetGlobalRequired("test.refl.Point.sum");
  CHECK(f(Point(1, 2.0), 3).cast<int64_t>() == 6);
  CHECK(Function::GetGlobalRequired("test.refl.free")(1).cast<int64_t>() == 2);
  // Metadata entries land in the function's metadata text as JSON values.
  refl::GlobalDef().def(
      "test.refl.meta_kinds", [](int64_t a) { return a; },
      refl::Metadata{{"pure", true}, {"lazy", false}, {"n", 3}, {"w", 0.5}, {"s", "x\"y"}});
  Function metadata_of = Function::GetGlobalRequired("ffi.GetGlobalFuncMetadata");
  std::string meta = metadata_of("test.refl.meta_kinds").cast<String>();
  CHECK_THAT(meta, Catch::Matchers::EndsWith(
                       ",\"pure\":true,\"lazy\":false,\"n\":3,\"w\":0.500000,\"s\":\"x\\\"y\"}"));
  // Metadata values must be int, bool, float or str.
  CHECK_THROWS_AS(refl::GlobalDef().def(
                      "test.refl.bad_meta", [](int64_t a) { return a; },
                      refl::Metadata{{"k", Array<int64_t>{1}}}),
                  Error);
}

// For the generated __ffi_init__: required, defaulted, init(false) and
// keyword-only fields.
class InitCaseObj : public Object {
 public:
  int64_t a = 0;
  String b;
  int64_t c = -1;
  int64_t hidden = 99;
  int64_t kw = 0;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.InitCase", InitCaseObj, Object);
};

// Asks for no generated __ffi_init__.
class NoInitObj : public Object {
 public:
  int64_t a = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.NoInit", NoInitObj, Object);
};

void RegisterInitTypes() {
  static bool done = [] {
    refl::ObjectDef<InitCaseObj>()
        .def_ro("a", &InitCaseObj::a)
        .def_ro("c", &InitCaseObj::c, refl::DefaultValue(7))
        .def_ro("b", &InitCaseObj::b)
        .def_ro("hidden", &InitCaseObj::hidden, refl::init(false))
        .def_ro("kw", &InitCaseObj::kw, refl::kw_only(true), refl::DefaultValue(3));
    refl::ObjectDef<NoInitObj>(refl::init(false)).def_ro("a", &NoInitObj::a);
    return true;
  }();
  (void)done;
}

Function InitOf(int32_t type_index) {
  return refl::TypeAttrColumn(refl::type_attr::kInit)[type_index].cast<Function>();
}

void CheckTypeError(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
    INFO(e.message());
    CHECK(std::string(e.message()).find(part) != std::string::npos);
  }
}

TEST_CASE("ObjectDef generates __ffi_init__ from the fields", "[registry]") {
  RegisterInitTypes();
  Function init = InitOf(InitCaseObj::RuntimeTypeIndex());
  // Positional: required fields first (a, b), then defaulted (c); hidden and
  // kw are not positional.
  auto obj = init(1, String("x")).cast<ObjectRef>();
  const auto* p = obj.as<InitCaseObj>();
  REQUIRE(p != nullptr);
  CHECK(p->a == 1);
  CHECK(p->b == "x");
  CHECK(p->c == 7);
  CHECK(p->hidden == 99);  // init(false), no default: what the creator left
  CHECK(p->kw == 3);
  ObjectRef with_c = init(1, String("x"), 5).cast<ObjectRef>();
  CHECK(with_c.as<InitCaseObj>()->c == 5);
  // Keywords after the marker, in any order; kw_only only this way.
  Any kwargs = Function::GetGlobalRequired("ffi.GetKwargsObject")();
  CHECK(kwargs.same_as(Function::GetGlobalRequired("ffi.GetKwargsObject")()));
  ObjectRef k = init(2, kwargs, String("kw"), 30, String("b"), String("y")).cast<ObjectRef>();
  p = k.as<InitCaseObj>();
  CHECK(p->a == 2);
  CHECK(p->b == "y");
  CHECK(p->c == 7);
  CHECK(p->kw == 30);
  // Errors: TypeError naming the type and the argument.
  CheckTypeError([&] { init(1); }, "missing required argument: 'b'");
  CheckTypeError([&] { init(1, String("x"), 5, 6); }, "takes at most 3 positional");
  CheckTypeError(
      [&] { init(kwargs, String("a"), 1, String("b"), String("x"), String("hidden"), 1); },
      "unexpected keyword argument 'hidden'");
  CheckTypeError([&] { init(1, kwargs, String("a"), 2, String("b"), String("x")); },
                 "multiple values for argument 'a'");
  CheckTypeError([&] { init(1, String("x"), kwargs, String("kw")); }, "pairs");
  CheckTypeError([&] { init(String("not an int"), String("x")); }, "field 'a'");
  CheckTypeError([&] { init(1, String("x"), kwargs, 5, 6); }, "must be strings");
}

TEST_CASE("init(false), def(init<...>) and an existing __ffi_init__ suppress the generated one",
          "[registry]") {
  RegisterInitTypes();
  RegisterTestTypes();
  CHECK(refl::TypeAttrColumn(refl::type_attr::kInit)[NoInitObj::RuntimeTypeIndex()] == nullptr);
  // Point's explicit init<int64_t, double> stays (no label argument).
  Function point = InitOf(PointObj::RuntimeTypeIndex());
  CHECK(point(4, 1.5).cast<Point>()->x == 4);
  CHECK_THROWS_AS(point(4, 1.5, String("label")), Error);
  // A type with a generated init: Var(name).
  Function var = InitOf(VarObj::RuntimeTypeIndex());
  CHECK(var(String("v")).cast<Var>()->name == "v");
}

TEST_CASE("CallFieldSetter calls a Function setter (SetterIsFunctionObj)", "[registry]") {
  int64_t field = 0;
  Function setter = Function::FromTyped([](void* addr, int64_t value) {
    if (value < 0) TVM_FFI_THROW(ValueError) << "negative";
    *static_cast<int64_t*>(addr) = value * 2;
  });
  TVMFFIFieldInfo info{};
  info.flags = kTVMFFIFieldFlagBitSetterIsFunctionObj;
  info.setter = reinterpret_cast<TVMFFIFieldSetter>(
      detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(setter));
  TVMFFIAny value = AnyView(21).CopyToTVMFFIAny();
  CHECK(refl::CallFieldSetter(&info, &field, &value) == 0);
  CHECK(field == 42);
  value = AnyView(-1).CopyToTVMFFIAny();
  CHECK(refl::CallFieldSetter(&info, &field, &value) != 0);
  CHECK(detail::MoveFromSafeCallRaised().kind() == "ValueError");
  CHECK(field == 42);
}

class BrokenDefObj : public Object {
 public:
  int64_t a = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.BrokenDef", BrokenDefObj, Object);
};

TEST_CASE("A registration chain that fails generates no __ffi_init__", "[registry]") {
  RegisterInitTypes();  // makes sure the __ffi_init__ column exists
  CHECK_THROWS_AS(
      refl::ObjectDef<BrokenDefObj>().def_ro("a", &BrokenDefObj::a).def_ro("a", &BrokenDefObj::a),
      Error);
  CHECK(refl::TypeAttrColumn(refl::type_attr::kInit)[BrokenDefObj::RuntimeTypeIndex()] == nullptr);
}

}  // namespace
