// Tests of tvm/ffi/extra/dataclass.h: ReprPrint (ffi.ReprPrint, runtime/repr.cc)
// and the std::ostream overloads for Any, ObjectRef, Variant and Optional.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/extra/dataclass.h>

#include <catch2/catch_test_macros.hpp>

#include <sstream>
#include <string>

namespace {
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
}  // namespace

TEST_CASE("ReprPrint of plain values", "[dataclass]") {
  REQUIRE(ReprPrint(Any(nullptr)) == "None");
  REQUIRE(ReprPrint(Any(true)) == "True");
  REQUIRE(ReprPrint(Any(false)) == "False");
  REQUIRE(ReprPrint(Any(-42)) == "-42");
  REQUIRE(ReprPrint(Any(3.14)) == "3.14");
  REQUIRE(ReprPrint(Any(1.0 / 3)) == "0.333333");
  REQUIRE(ReprPrint(Any(1e20)) == "1e+20");
  REQUIRE(ReprPrint(Any(String("hi \"x\"\n"))) == "\"hi \\\"x\\\"\\n\"");
  REQUIRE(ReprPrint(Any(String("a long heap string \xc3\xa9"))) ==
          "\"a long heap string \\u00e9\"");
  REQUIRE(ReprPrint(Any(Bytes(std::string("a\0\"\\", 4)))) == "b\"a\\x00\\x22\\x5c\"");
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
