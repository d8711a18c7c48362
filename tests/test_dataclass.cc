// Tests of tvm/ffi/extra/dataclass.h: DeepCopy (containers rebuilt, objects
// copied through __ffi_shallow_copy__, sharing and cycles kept, refusals)
// and ReprPrint / operator<< (upstream's printed forms).
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/reflection/access_path.h>

#include <catch2/catch_test_macros.hpp>

#include <cstdlib>
#include <sstream>
#include <string>

#include "reflection_test_util.h"

namespace {

using namespace tvm::ffi;
using namespace reflection_test;

std::string Repr(const Any& v) { return std::string(ReprPrint(v)); }

TEST_CASE("DeepCopy returns immutable leaves as they are", "[dataclass]") {
  CHECK(DeepCopy(1).cast<int>() == 1);
  CHECK(DeepCopy(nullptr) == nullptr);
  String long_text(std::string(50, 'q'));
  CHECK(DeepCopy(long_text).same_as(long_text));
  Shape s({2, 3});
  CHECK(DeepCopy(s).same_as(s));
}

TEST_CASE("DeepCopy rebuilds containers and copies objects", "[dataclass]") {
  RegisterTestTypes();
  Point p(1, 2.0);
  List<Any> list{p, Array<int64_t>{1, 2}, Map<String, Any>{{"k", p}}};
  List<Any> copy = DeepCopy(list).cast<List<Any>>();
  CHECK(!copy.same_as(list));
  CHECK(StructuralEqual::Equal(copy, list));
  Point p2 = copy[0].cast<Point>();
  CHECK(!p2.same_as(p));
  CHECK(p2->x == 1);
  // Mutating the copy leaves the original alone.
  p2->x = 10;
  CHECK(p->x == 1);
  CHECK(!copy[1].same_as(list[1]));
  // Sharing is kept: the Point in the map is the same copied Point.
  CHECK(copy[2].cast<Map<String, Any>>()["k"].same_as(p2));
}

TEST_CASE("DeepCopy reproduces cycles through mutable nodes", "[dataclass]") {
  List<Any> outer;
  outer.push_back(1);
  outer.push_back(outer);  // outer contains itself
  List<Any> copy = DeepCopy(outer).cast<List<Any>>();
  CHECK(!copy.same_as(outer));
  CHECK(copy[1].same_as(copy));
  // Break the cycles so both lists are freed.
  copy.Set(1, nullptr);
  outer.Set(1, nullptr);
}

TEST_CASE("DeepCopy copies inherited and Any fields", "[dataclass]") {
  RegisterTestTypes();
  ObjectPtr<Point3Obj> n = make_object<Point3Obj>();
  n->x = 3;
  n->payload = Dict<String, Any>{{"a", 1}};
  ObjectRef copy = DeepCopy(ObjectRef(n)).cast<ObjectRef>();
  const auto* c = copy.as<Point3Obj>();
  REQUIRE(c != nullptr);
  CHECK(c->x == 3);
  CHECK(!c->payload.same_as(n->payload));
  CHECK(StructuralEqual::Equal(c->payload, n->payload));
}

TEST_CASE("DeepCopy refuses objects it cannot copy", "[dataclass]") {
  Function f = Function::FromTyped([]() {});
  try {
    DeepCopy(Array<Any>{f});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
    CHECK(std::string(e.message()).find("ffi.Function") != std::string::npos);
  }
}

TEST_CASE("ReprPrint of values and containers", "[dataclass]") {
  CHECK(Repr(nullptr) == "None");
  CHECK(Repr(true) == "True");
  CHECK(Repr(-42) == "-42");
  CHECK(Repr(2.5) == "2.5");
  CHECK(Repr(String("a\"b\n")) == "\"a\\\"b\\n\"");
  CHECK(Repr(Bytes("a\x01", 2)) == "b\"a\\x01\"");
  CHECK(Repr(DLDevice{kDLCUDA, 1}) == "cuda:1");
  CHECK(Repr(DLDataType{kDLFloat, 32, 1}) == "float32");
  CHECK(Repr(Array<int64_t>{1, 2}) == "(1, 2)");
  CHECK(Repr(Array<int64_t>{1}) == "(1,)");
  CHECK(Repr(List<int64_t>{1, 2}) == "[1, 2]");
  CHECK(Repr(Map<String, int64_t>{{"a", 1}}) == "{\"a\": 1}");
  CHECK(Repr(Dict<int64_t, Any>{{1, nullptr}}) == "{1: None}");
  CHECK(Repr(Shape({2, 3})) == "Shape(2, 3)");
}

TEST_CASE("ReprPrint of tensors", "[dataclass]") {
  struct Alloc {
    void AllocData(DLTensor* t) { t->data = std::malloc(GetDataSize(*t)); }
    void FreeData(DLTensor* t) { std::free(t->data); }
  };
  Tensor t = Tensor::FromNDAlloc(Alloc(), {2, 3}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  CHECK(Repr(t) == "float32[2, 3]@cpu:0");
}

TEST_CASE("ReprPrint of reflected objects", "[dataclass]") {
  RegisterTestTypes();
  Point p(1, 2.5);
  CHECK(Repr(p) == "test.refl.Point(x=1, y=2.5, label=\"\", cache=0)");
  CHECK(Repr(Array<Any>{p, p}) ==
        "(test.refl.Point(x=1, y=2.5, label=\"\", cache=0), "
        "test.refl.Point(x=1, y=2.5, label=\"\", cache=0))");
  // Objects without reflected fields print their type key.
  CHECK(Repr(Function::FromTyped([]() {})) == "ffi.Function");
}

TEST_CASE("ReprPrint marks a cycle with ...", "[dataclass]") {
  List<Any> l;
  l.push_back(1);
  l.push_back(l);
  CHECK(Repr(l) == "[1, ...]");
  l.Set(1, nullptr);
}

TEST_CASE("ReprPrint of access paths (the __ffi_repr__ libtvmffi registers)", "[dataclass]") {
  using reflection::AccessPath;
  AccessPath p = AccessPath::Root()
                     ->Attr("config")
                     ->ArrayItem(0)
                     ->MapItem(String("name"))
                     ->AttrMissing("weights")
                     ->ArrayItemMissing(3)
                     ->MapItemMissing(String("bias"));
  CHECK(Repr(p) ==
        "<root>.config[0][\"name\"][<missing:\"weights\">][<missing:3>][<missing:\"bias\">]");
  CHECK(Repr(AccessPath::Root()) == "<root>");
}

TEST_CASE("operator<< prints ReprPrint's text", "[dataclass]") {
  std::ostringstream os;
  os << Any(Array<int64_t>{1, 2}) << " " << ObjectRef(List<int64_t>{3}) << " "
     << Optional<Array<int64_t>>() << " " << Variant<int64_t, String>(String("s"));
  CHECK(os.str() == "(1, 2) [3] None \"s\"");
}

}  // namespace

// Fields registered through the C functions only (no ObjectDef), as a
// library built against another runtime registers them.
namespace repr_from_c_fields {
using namespace tvm::ffi;

// Reflected test types, their fields registered through the C ABI.
class PointObj : public Object {
 public:
  PointObj(int64_t x, String label, int64_t secret) : x(x), label(label), secret(secret) {}
  int64_t x;
  String label;
  int64_t secret;
  TVM_FFI_DECLARE_OBJECT_INFO("test.repr.Point", PointObj, Object);
};
class Point3Obj : public PointObj {
 public:
  Point3Obj(int64_t x, int64_t z) : PointObj(x, "p3", 0), z(z) {}
  int64_t z;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.repr.Point3", Point3Obj, PointObj);
};
class Point : public ObjectRef {
 public:
  Point(int64_t x, String label) : Point(make_object<PointObj>(x, label, 99)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Point, ObjectRef, PointObj);
};
class BareObj : public Object {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.repr.Bare", BareObj, Object);
};
class HookedObj : public Object {
 public:
  Any inner;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.repr.Hooked", HookedObj, Object);
};

int GetInt(void* field, TVMFFIAny* out) {
  out->type_index = kTVMFFIInt;
  out->zero_padding = 0;
  out->v_int64 = *static_cast<int64_t*>(field);
  return 0;
}
int GetString(void* field, TVMFFIAny* out) {
  Any v(*static_cast<String*>(field));
  *out = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(v));
  return 0;
}

void AddField(int32_t type_index, const char* name, int64_t offset, TVMFFIFieldGetter getter,
              int64_t flags = 0) {
  TVMFFIFieldInfo info{};
  info.name = TVMFFIByteArray{name, std::char_traits<char>::length(name)};
  info.flags = flags;
  info.size = 8;
  info.alignment = 8;
  info.offset = offset;
  info.getter = getter;
  info.field_static_type_index = kTVMFFIAny;
  REQUIRE(TVMFFITypeRegisterField(type_index, &info) == 0);
}

// Byte offset of a member from the object's start (its TVMFFIObject header).
template <typename C, typename F>
int64_t OffsetIn(const ObjectPtr<C>& obj, F C::*member) {
  return reinterpret_cast<const char*>(&((*obj).*member)) - reinterpret_cast<const char*>(obj.get());
}

void RegisterOnce() {
  static bool done = [] {
    const int32_t point = PointObj::RuntimeTypeIndex();
    auto p3 = make_object<Point3Obj>(0, 0);
    ObjectPtr<PointObj> p = p3;
    AddField(point, "x", OffsetIn(p, &PointObj::x), GetInt);
    AddField(point, "label", OffsetIn(p, &PointObj::label), GetString);
    AddField(point, "secret", OffsetIn(p, &PointObj::secret), GetInt, kTVMFFIFieldFlagBitMaskReprOff);
    AddField(Point3Obj::RuntimeTypeIndex(), "z", OffsetIn(p3, &Point3Obj::z), GetInt);
    // A hook: <inner> via the printer's own recursion.
    Function hook = Function::FromTyped([](const HookedObj* self, Function repr) -> String {
      return String("<" + repr(self->inner).cast<std::string>() + ">");
    });
    TVMFFIAny value = AnyView(hook).CopyToTVMFFIAny();
    TVMFFIByteArray attr{"__ffi_repr__", 12};
    REQUIRE(TVMFFITypeRegisterAttr(HookedObj::RuntimeTypeIndex(), &attr, &value) == 0);
    return true;
  }();
  (void)done;
}

template <typename T>
std::string Streamed(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

TEST_CASE("ReprPrint of plain values", "[dataclass]") {
  REQUIRE(ReprPrint(Any(nullptr)) == "None");
  REQUIRE(ReprPrint(Any(true)) == "True");
  REQUIRE(ReprPrint(Any(false)) == "False");
  REQUIRE(ReprPrint(Any(-42)) == "-42");
  REQUIRE(ReprPrint(Any(3.14)) == "3.14");
  REQUIRE(ReprPrint(Any(1.0 / 3)) == "0.333333");
  REQUIRE(ReprPrint(Any(1e20)) == "1e+20");
  REQUIRE(ReprPrint(Any(String("hi \"x\"\n"))) == "\"hi \\\"x\\\"\\n\"");
  REQUIRE(ReprPrint(Any(String("a long heap string"))) == "\"a long heap string\"");
  REQUIRE(ReprPrint(Any(Bytes(std::string("a\0\"\\", 4)))) == "b\"a\\x00\\\"\\\\\"");
  REQUIRE(ReprPrint(Any(DLDataType{kDLFloat, 32, 1})) == "float32");
  REQUIRE(ReprPrint(Any(DLDevice{kDLCUDA, 3})) == "cuda:3");
}

TEST_CASE("ReprPrint of containers", "[dataclass]") {
  REQUIRE(ReprPrint(Any(Array<Any>{1, "a", nullptr})) == "(1, \"a\", None)");
  REQUIRE(ReprPrint(Any(Array<int>{7})) == "(7,)");
  REQUIRE(ReprPrint(Any(Array<int>{})) == "()");
  REQUIRE(ReprPrint(Any(List<Any>{1, 2.5})) == "[1, 2.5]");
  REQUIRE(ReprPrint(Any(Map<String, Any>{{"k", 1}, {"j", Array<int>{1, 2}}})) ==
          "{\"k\": 1, \"j\": (1, 2)}");
  REQUIRE(ReprPrint(Any(Dict<Any, Any>{{1, true}})) == "{1: True}");
  REQUIRE(ReprPrint(Any(Shape({2, 3}))) == "Shape(2, 3)");
}

TEST_CASE("ReprPrint of reflected objects: fields, inheritance, ReprOff, hooks", "[dataclass]") {
  RegisterOnce();
  REQUIRE(ReprPrint(Any(Point(5, "a"))) == "test.repr.Point(x=5, label=\"a\")");
  Any p3 = ObjectRef(make_object<Point3Obj>(1, 2));
  REQUIRE(ReprPrint(p3) == "test.repr.Point3(x=1, label=\"p3\", z=2)");
  REQUIRE(ReprPrint(Any(ObjectRef(make_object<BareObj>()))) == "test.repr.Bare");
  auto hooked = make_object<HookedObj>();
  hooked->inner = Array<Any>{Point(1, "in")};
  REQUIRE(ReprPrint(Any(ObjectRef(hooked))) == "<(test.repr.Point(x=1, label=\"in\"),)>");
  REQUIRE(ReprPrint(Any(Function::FromTyped([]() {}))) == "ffi.Function");
}

TEST_CASE("ReprPrint never loops or overflows: cycles, shared parts, deep values", "[dataclass]") {
  List<Any> list{1};
  list.push_back(list);
  REQUIRE(ReprPrint(Any(list)) == "[1, ...]");
  list.pop_back();  // break the cycle so the list is freed

  Array<Any> shared{1, 2};
  REQUIRE(ReprPrint(Any(Array<Any>{shared, shared})) == "((1, 2), (1, 2))");

  Array<Any> deep;
  for (int i = 0; i < 3000; ++i) deep = Array<Any>{deep};
  std::string text(ReprPrint(Any(deep)));
  REQUIRE(text.find("...") != std::string::npos);
  REQUIRE(text.size() < 3000 * 2 + 10);
}

TEST_CASE("operator<< writes ReprPrint; String and Shape keep their own", "[dataclass]") {
  RegisterOnce();
  REQUIRE(Streamed(Any(42)) == "42");
  REQUIRE(Streamed(Any(String("hello"))) == "\"hello\"");
  Point p(7, "q");
  const ObjectRef& base = p;
  REQUIRE(Streamed(base) == "test.repr.Point(x=7, label=\"q\")");
  REQUIRE(Streamed(Point()) == "None");
  REQUIRE(Streamed(String("abc")) == "abc");
  REQUIRE(Streamed(Shape({1, 2, 3})) == "[1, 2, 3]");
  REQUIRE(Streamed(Variant<int64_t, String, Point>(int64_t{42})) == "42");
  REQUIRE(Streamed(Variant<int64_t, String, Point>(String("hi"))) == "\"hi\"");
  REQUIRE(Streamed(Variant<int64_t, String, Point>(p)) == "test.repr.Point(x=7, label=\"q\")");
  REQUIRE(Streamed(Optional<int64_t>(int64_t{3})) == "3");
  REQUIRE(Streamed(Optional<int64_t>()) == "None");
  REQUIRE(Streamed(Optional<String>(String("x"))) == "\"x\"");
  REQUIRE(Streamed(Optional<Point>()) == "None");
  REQUIRE(Streamed(Optional<Point>(p)) == "test.repr.Point(x=7, label=\"q\")");
}

}  // namespace repr_from_c_fields
