// Tests of tvm/ffi/extra/dataclass.h: DeepCopy (containers rebuilt, objects
// copied through __ffi_shallow_copy__, sharing and cycles kept, refusals),
// ReprPrint / operator<< (upstream's printed forms) and RecursiveEq / Lt / Le
// / Gt / Ge / RecursiveHash (by value, field flags, hooks, errors, cycles).
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
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "reflection_test_util.h"

namespace {

using namespace tvm::ffi;
using namespace reflection_test;

std::string Repr(const Any& v) {
  return std::string(ReprPrint(v));
}

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

TEST_CASE("DeepCopy of an Array in a cycle points back at the copied Array", "[dataclass]") {
  List<Any> inner;
  Array<Any> root{inner, 7};
  inner.push_back(root);  // root -> inner -> root
  Array<Any> copy = DeepCopy(root).cast<Array<Any>>();
  CHECK(!copy.same_as(root));
  List<Any> inner_copy = copy[0].cast<List<Any>>();
  CHECK(!inner_copy.same_as(inner));
  CHECK(inner_copy[0].same_as(copy));
  CHECK(copy[1].cast<int64_t>() == 7);
  inner_copy.clear();  // break both cycles so everything is freed
  inner.clear();
}

TEST_CASE("DeepCopy of a Map in a cycle points back at the copied Map", "[dataclass]") {
  SECTION("through a value, reached twice") {
    List<Any> shared;
    Map<Any, Any> root{{String("a"), shared}, {String("b"), shared}, {String("n"), 5}};
    shared.push_back(root);  // root -> shared -> root
    Map<Any, Any> copy = DeepCopy(root).cast<Map<Any, Any>>();
    CHECK(!copy.same_as(root));
    REQUIRE(copy.size() == 3);
    List<Any> a = copy[String("a")].cast<List<Any>>();
    CHECK(!a.same_as(shared));
    CHECK(copy[String("b")].same_as(a));
    CHECK(a[0].same_as(copy));
    CHECK(copy[String("n")].cast<int64_t>() == 5);
    // The original's order is kept.
    std::vector<std::string> keys;
    for (const auto& kv : copy) keys.push_back(std::string(kv.first.cast<String>()));
    CHECK(keys == std::vector<std::string>{"a", "b", "n"});
    a.clear();
    shared.clear();
  }
  SECTION("through a key") {
    Dict<Any, Any> key;
    Map<Any, Any> root{{key, 1}};
    key.Set(String("self"), root);  // root -> key -> root
    Map<Any, Any> copy = DeepCopy(root).cast<Map<Any, Any>>();
    REQUIRE(copy.size() == 1);
    Dict<Any, Any> key_copy = (*copy.begin()).first.cast<Dict<Any, Any>>();
    CHECK(!key_copy.same_as(key));
    CHECK(key_copy[String("self")].same_as(copy));
    CHECK(copy[key_copy].cast<int64_t>() == 1);
    key_copy.clear();
    key.clear();
  }
  SECTION("the root as a key of a Dict inside it") {
    Dict<Any, Any> inner;
    Map<Any, Any> root{{String("d"), inner}};
    inner.Set(root, 1);
    Map<Any, Any> copy = DeepCopy(root).cast<Map<Any, Any>>();
    Dict<Any, Any> inner_copy = copy[String("d")].cast<Dict<Any, Any>>();
    REQUIRE(inner_copy.size() == 1);
    CHECK((*inner_copy.begin()).first.same_as(copy));
    CHECK(inner_copy[copy].cast<int64_t>() == 1);
    inner_copy.clear();
    inner.clear();
  }
  SECTION("a large map (dense storage) keeps every entry and the cycle") {
    List<Any> back;
    Map<Any, Any> root;
    for (int64_t i = 0; i < 1000; ++i) root.Set(i, i % 7 == 0 ? Any(back) : Any(i * 2));
    back.push_back(root);
    Map<Any, Any> copy = DeepCopy(root).cast<Map<Any, Any>>();
    REQUIRE(copy.size() == 1000);
    List<Any> back_copy = copy[int64_t{0}].cast<List<Any>>();
    CHECK(back_copy[0].same_as(copy));
    for (int64_t i = 0; i < 1000; ++i) {
      if (i % 7 == 0) {
        CHECK(copy[i].same_as(back_copy));
      } else {
        CHECK(copy[i].cast<int64_t>() == i * 2);
      }
    }
    int64_t expect = 0;  // insertion order kept
    for (const auto& kv : copy) CHECK(kv.first.cast<int64_t>() == expect++);
    back_copy.clear();
    back.clear();
  }
  SECTION("a map without cycles is still copy-on-write afterwards") {
    Map<Any, Any> root{{String("x"), List<Any>{1}}};
    Map<Any, Any> copy = DeepCopy(root).cast<Map<Any, Any>>();
    Map<Any, Any> alias = copy;
    alias.Set(String("y"), 2);  // shared: alias gets its own map
    CHECK(copy.size() == 1);
    CHECK(alias.size() == 2);
    CHECK(!alias.same_as(copy));
  }
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
    CHECK(e.kind() == "RuntimeError");  // upstream's kind
    CHECK(std::string(e.message()).find("ffi.Function") != std::string::npos);
    CHECK(std::string(e.message()).find("not copy-constructible") != std::string::npos);
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

TEST_CASE("ReprPrint with TVM_FFI_REPR_WITH_ADDR=1 shows addresses", "[dataclass]") {
  RegisterTestTypes();
  auto addr = [](const ObjectRef& o) {
    std::ostringstream os;
    os << "@0x" << std::hex << reinterpret_cast<uintptr_t>(o.get());
    return os.str();
  };
  Point p(1, 2.5);
  List<Any> l;
  l.push_back(p);
  l.push_back(l);
  Array<int64_t> a{1};
  std::string plain = Repr(l);
  ::setenv("TVM_FFI_REPR_WITH_ADDR", "1", 1);
  std::string with_addr = Repr(l);
  std::string array_text = Repr(a);
  ::setenv("TVM_FFI_REPR_WITH_ADDR", "0", 1);  // only "1" switches it on
  std::string off = Repr(a);
  ::unsetenv("TVM_FFI_REPR_WITH_ADDR");
  CHECK(plain == "[test.refl.Point(x=1, y=2.5, label=\"\", cache=0), ...]");
  CHECK(with_addr == "[test.refl.Point" + addr(p) + "(x=1, y=2.5, label=\"\", cache=0), ..." +
                         addr(l) + "]" + addr(l));
  CHECK(array_text == "(1,)" + addr(a));
  CHECK(off == "(1,)");
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
  *out = detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(v));
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
  return reinterpret_cast<const char*>(&((*obj).*member)) -
         reinterpret_cast<const char*>(obj.get());
}

void RegisterOnce() {
  static bool done = [] {
    const int32_t point = PointObj::RuntimeTypeIndex();
    auto p3 = make_object<Point3Obj>(0, 0);
    ObjectPtr<PointObj> p = p3;
    AddField(point, "x", OffsetIn(p, &PointObj::x), GetInt);
    AddField(point, "label", OffsetIn(p, &PointObj::label), GetString);
    AddField(point, "secret", OffsetIn(p, &PointObj::secret), GetInt,
             kTVMFFIFieldFlagBitMaskReprOff);
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

// RecursiveEq / RecursiveLt / ... / RecursiveHash.
namespace recursive_compare {
using namespace tvm::ffi;
namespace refl = tvm::ffi::reflection;

// key and name compared in that order; note ignored by comparisons and hash;
// tag compared but not hashed.
class PairObj : public Object {
 public:
  int64_t key = 0;
  String name;
  String note;
  int64_t tag = 0;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO("test.rec.Pair", PairObj, Object);
};
class TriObj : public PairObj {
 public:
  int64_t extra = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.rec.Tri", TriObj, PairObj);
};
// One Any field: nesting and cycles through objects.
class BoxObj : public Object {
 public:
  Any item;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.rec.Box", BoxObj, Object);
};
// Hooks: KeyedObj's __ffi_eq__/__ffi_hash__ look at key only; ReversedObj's
// __ffi_compare__ orders by key descending; EqOnlyObj has __ffi_eq__ alone.
class KeyedObj : public Object {
 public:
  int64_t key = 0;
  String label;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.rec.Keyed", KeyedObj, Object);
};
class ReversedObj : public Object {
 public:
  int64_t key = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.rec.Reversed", ReversedObj, Object);
};
class EqOnlyObj : public Object {
 public:
  int64_t key = 0;
  String label;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.rec.EqOnly", EqOnlyObj, Object);
};

void RegisterOnce() {
  static bool done = [] {
    refl::ObjectDef<PairObj>()
        .def_rw("key", &PairObj::key)
        .def_rw("name", &PairObj::name)
        .def_rw("note", &PairObj::note, refl::compare(false))
        .def_rw("tag", &PairObj::tag, refl::hash(false));
    refl::ObjectDef<TriObj>().def_rw("extra", &TriObj::extra);
    refl::ObjectDef<BoxObj>().def_rw("item", &BoxObj::item);
    refl::ObjectDef<KeyedObj>().def_ro("key", &KeyedObj::key).def_ro("label", &KeyedObj::label);
    refl::TypeAttrDef<KeyedObj>()
        .def("__ffi_eq__", [](const KeyedObj* a, const KeyedObj* b,
                              Function eq) { return eq(a->key, b->key).cast<bool>(); })
        .def("__ffi_hash__",
             [](const KeyedObj* a, Function hash) { return hash(a->key).cast<int64_t>(); });
    refl::ObjectDef<ReversedObj>().def_ro("key", &ReversedObj::key);
    refl::TypeAttrDef<ReversedObj>()
        .def("__ffi_compare__", [](const ReversedObj* a, const ReversedObj* b,
                                   Function cmp) { return -cmp(a->key, b->key).cast<int64_t>(); })
        .def("__ffi_hash__",
             [](const ReversedObj* a, Function hash) { return hash(a->key).cast<int64_t>(); });
    refl::ObjectDef<EqOnlyObj>().def_ro("key", &EqOnlyObj::key).def_ro("label", &EqOnlyObj::label);
    refl::TypeAttrDef<EqOnlyObj>().def("__ffi_eq__", [](const EqOnlyObj* a, const EqOnlyObj* b,
                                                        Function) { return a->key == b->key; });
    return true;
  }();
  (void)done;
}

ObjectRef MakePair(int64_t key, String name, String note = "", int64_t tag = 0) {
  auto n = make_object<PairObj>();
  n->key = key;
  n->name = std::move(name);
  n->note = std::move(note);
  n->tag = tag;
  return ObjectRef(n);
}
ObjectRef MakeTri(int64_t key, int64_t extra) {
  auto n = make_object<TriObj>();
  n->key = key;
  n->name = "t";
  n->extra = extra;
  return ObjectRef(n);
}
ObjectPtr<BoxObj> MakeBox(Any item) {
  auto n = make_object<BoxObj>();
  n->item = std::move(item);
  return n;
}
template <typename T>
ObjectRef MakeKeyed(int64_t key, String label = "") {
  auto n = make_object<T>();
  n->key = key;
  if constexpr (!std::is_same_v<T, ReversedObj>) n->label = std::move(label);
  return ObjectRef(n);
}

// Eq both ways, and equal hashes.
void CheckSame(const Any& a, const Any& b) {
  CHECK(RecursiveEq(a, b));
  CHECK(RecursiveEq(b, a));
  CHECK(RecursiveHash(a) == RecursiveHash(b));
}
// Unequal both ways (and, for these inputs, unequal hashes).
void CheckDiffer(const Any& a, const Any& b) {
  CHECK_FALSE(RecursiveEq(a, b));
  CHECK_FALSE(RecursiveEq(b, a));
  CHECK(RecursiveHash(a) != RecursiveHash(b));
}
// a < b, with all four orderings and Eq agreeing.
void CheckLess(const Any& a, const Any& b) {
  CHECK(RecursiveLt(a, b));
  CHECK(RecursiveLe(a, b));
  CHECK_FALSE(RecursiveGt(a, b));
  CHECK_FALSE(RecursiveGe(a, b));
  CHECK(RecursiveGt(b, a));
  CHECK(RecursiveGe(b, a));
  CHECK_FALSE(RecursiveLt(b, a));
  CHECK_FALSE(RecursiveLe(b, a));
  CHECK_FALSE(RecursiveEq(a, b));
}
// Equal under the orderings: Le and Ge, not Lt nor Gt.
void CheckOrderEqual(const Any& a, const Any& b) {
  CHECK(RecursiveLe(a, b));
  CHECK(RecursiveGe(a, b));
  CHECK_FALSE(RecursiveLt(a, b));
  CHECK_FALSE(RecursiveGt(a, b));
}
template <typename F>
void CheckThrows(F&& f, const char* kind, const char* text) {
  try {
    f();
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    CHECK_THAT(std::string(e.message()), Catch::Matchers::ContainsSubstring(text));
  }
}

TEST_CASE("RecursiveEq and RecursiveHash of primitives and strings", "[dataclass][recursive]") {
  CheckSame(42, 42);
  CheckDiffer(1, 2);
  CheckSame(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min());
  CheckSame(nullptr, nullptr);
  CheckDiffer(nullptr, 0);
  CheckSame(true, true);
  CheckDiffer(true, false);
  CheckSame(2.5, 2.5);
  CheckDiffer(1.0, 2.0);
  CheckSame(-0.0, 0.0);
  double nan = std::numeric_limits<double>::quiet_NaN();
  CheckSame(nan, -nan);
  CheckDiffer(nan, 1.0);
  CheckSame(std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity());
  // Values of different types are unequal, however alike.
  CheckDiffer(1, true);
  CheckDiffer(1, 1.0);
  CheckDiffer(0, nullptr);
  CheckDiffer(String("a"), Bytes("a", 1));
  CheckDiffer(1, String("1"));
  // Strings and bytes by content, short (inline) or long (on the heap).
  CheckSame(String("abc"), String(std::string("abc")));
  CheckDiffer(String("abc"), String("abd"));
  std::string long_text(40, 'x');
  CheckSame(String(long_text), String(long_text));
  CheckDiffer(String(long_text), String(long_text + "y"));
  CheckSame(String(std::string("a\0b", 3)), String(std::string("a\0b", 3)));
  CheckDiffer(String(std::string("a\0b", 3)), String(std::string("a\0c", 3)));
  CheckSame(Bytes("\x00\xff", 2), Bytes("\x00\xff", 2));
  CheckDiffer(Bytes("\x00", 1), Bytes("\xff", 1));
  CheckSame(DLDataType{kDLFloat, 32, 1}, DLDataType{kDLFloat, 32, 1});
  CheckDiffer(DLDataType{kDLFloat, 32, 1}, DLDataType{kDLFloat, 16, 1});
  CheckSame(DLDevice{kDLCUDA, 1}, DLDevice{kDLCUDA, 1});
  CheckDiffer(DLDevice{kDLCUDA, 1}, DLDevice{kDLCUDA, 0});
  int x = 0, y = 0;
  CheckSame(static_cast<void*>(&x), static_cast<void*>(&x));
  CheckDiffer(static_cast<void*>(&x), static_cast<void*>(&y));
}

TEST_CASE("RecursiveEq and RecursiveHash of containers", "[dataclass][recursive]") {
  CheckSame(Array<Any>{1, "a", nullptr}, Array<Any>{1, "a", nullptr});
  CheckDiffer(Array<Any>{1, 2}, Array<Any>{1, 3});
  CheckDiffer(Array<Any>{1, 2}, Array<Any>{1, 2, 3});
  CheckSame(Array<Any>{}, Array<Any>{});
  CheckSame(List<Any>{1, 2.5}, List<Any>{1, 2.5});
  CheckDiffer(Array<Any>{1, 2}, List<Any>{1, 2});  // Array and List are different types
  CheckSame(Array<Any>{Array<Any>{1, 2}, List<Any>{3}}, Array<Any>{Array<Any>{1, 2}, List<Any>{3}});
  CheckDiffer(Array<Any>{Array<Any>{1, 2}}, Array<Any>{Array<Any>{1, 2, 3}});
  CheckSame(Shape({2, 3}), Shape({2, 3}));
  CheckDiffer(Shape({2, 3}), Shape({2, 4}));
  // Maps: the same keys with equal values, whatever the insertion order.
  Map<String, Any> m1{{"a", 1}, {"b", Array<Any>{2}}};
  Map<String, Any> m2{{"b", Array<Any>{2}}, {"a", 1}};
  CheckSame(m1, m2);
  CheckDiffer(m1, Map<String, Any>{{"a", 1}, {"b", Array<Any>{3}}});
  CheckDiffer(m1, Map<String, Any>{{"a", 1}, {"c", Array<Any>{2}}});
  CheckDiffer(m1, Map<String, Any>{{"a", 1}});
  CheckDiffer(Map<String, Any>{{"a", 0}, {"b", 1}}, Map<String, Any>{{"a", 1}, {"b", 0}});
  CheckSame(Dict<Any, Any>{{1, "x"}, {2, "y"}}, Dict<Any, Any>{{2, "y"}, {1, "x"}});
  CheckDiffer(Dict<Any, Any>{{1, "x"}}, Map<Any, Any>{{1, "x"}});  // Dict vs Map
  // No cheap collisions between short arrays of small ints.
  CHECK(RecursiveHash(Array<Any>{1, 2}) != RecursiveHash(Array<Any>{2, 61}));
  CHECK(RecursiveHash(Array<Any>{1, 2}) != RecursiveHash(Array<Any>{2, 1}));
}

TEST_CASE("RecursiveEq and RecursiveHash of reflected objects", "[dataclass][recursive]") {
  RegisterOnce();
  CheckSame(MakePair(1, "a"), MakePair(1, "a"));
  CheckDiffer(MakePair(1, "a"), MakePair(2, "a"));
  CheckDiffer(MakePair(1, "a"), MakePair(1, "b"));
  // compare(false): ignored by equality, ordering and hash.
  CheckSame(MakePair(1, "a", "note 1"), MakePair(1, "a", "note 2"));
  CheckOrderEqual(MakePair(1, "a", "note 1"), MakePair(1, "a", "note 2"));
  // hash(false): compared, not hashed.
  CHECK_FALSE(RecursiveEq(MakePair(1, "a", "", 5), MakePair(1, "a", "", 6)));
  CHECK(RecursiveHash(MakePair(1, "a", "", 5)) == RecursiveHash(MakePair(1, "a", "", 6)));
  // Inherited fields count; a subclass differs from its base type.
  CheckSame(MakeTri(1, 2), MakeTri(1, 2));
  CheckDiffer(MakeTri(1, 2), MakeTri(1, 3));
  CheckDiffer(MakeTri(1, 2), MakeTri(0, 2));
  CHECK_FALSE(RecursiveEq(MakePair(1, "t"), MakeTri(1, 0)));
  // Nested: objects in containers in objects.
  auto nest = [](String inner) {
    return ObjectRef(
        MakeBox(Array<Any>{MakePair(1, "x"), Map<String, Any>{{"k", MakePair(2, inner)}}}));
  };
  Any a = nest("y"), b = nest("y"), c = nest("z");
  CheckSame(a, b);
  CheckDiffer(a, c);
  CheckSame(a, a);
  // Shared parts hash as copies do.
  ObjectRef p = MakePair(3, "s");
  CheckSame(Array<Any>{p, p}, Array<Any>{MakePair(3, "s"), MakePair(3, "s")});
  // Objects without fields (functions) are all equal and hash alike.
  CheckSame(Function::FromTyped([]() {}), Function::FromTyped([](int v) { return v; }));
}

TEST_CASE("RecursiveLt/Le/Gt/Ge order values", "[dataclass][recursive]") {
  RegisterOnce();
  CheckLess(1, 2);
  CheckLess(-5, 3);
  CheckLess(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  CheckOrderEqual(7, 7);
  CheckLess(1.5, 2.0);
  CheckLess(-std::numeric_limits<double>::infinity(), -1e300);
  CheckLess(1e300, std::numeric_limits<double>::infinity());
  CheckOrderEqual(-0.0, 0.0);
  CheckLess(false, true);
  CheckLess(nullptr, 0);  // None orders first
  CheckLess(nullptr, String("s"));
  CheckLess(DLDataType{kDLFloat, 16, 1}, DLDataType{kDLFloat, 32, 1});
  CheckLess(DLDevice{kDLCPU, 3}, DLDevice{kDLCUDA, 0});
  CheckLess(DLDevice{kDLCUDA, 0}, DLDevice{kDLCUDA, 1});
  // Strings and bytes: bytewise, a prefix first.
  CheckLess(String("abc"), String("abd"));
  CheckLess(String("abc"), String("abcd"));
  CheckLess(String("1234567"), String("12345678"));  // inline vs heap storage
  CheckLess(String(""), String("a"));
  CheckLess(String(std::string("a\0b", 3)), String(std::string("a\0c", 3)));
  CheckLess(String("\x7f"), String("\x80"));  // unsigned bytes
  CheckLess(Bytes("ab", 2), Bytes("abc", 3));
  CheckOrderEqual(String("same"), String("same"));
  // Sequences: lexicographic, a prefix first.
  CheckLess(Array<Any>{1, 2, 3}, Array<Any>{1, 2, 4});
  CheckLess(Array<Any>{1, 2}, Array<Any>{1, 2, 0});
  CheckLess(Array<Any>{}, Array<Any>{0});
  CheckLess(Array<Any>{1, 9, 9}, Array<Any>{2});
  CheckLess(List<Any>{String("a")}, List<Any>{String("b")});
  CheckLess(Array<Any>{Array<Any>{1, 4}}, Array<Any>{Array<Any>{1, 5}});
  CheckLess(Array<Any>{nullptr, 1}, Array<Any>{nullptr, 2});
  CheckLess(Shape({2, 3}), Shape({2, 3, 1}));
  CheckLess(Shape({1, 9}), Shape({2}));
  CheckOrderEqual(Array<Any>{1, String("x")}, Array<Any>{1, String("x")});
  // Objects: field by field, in declaration order (base fields first).
  CheckLess(MakePair(1, "z"), MakePair(2, "a"));
  CheckLess(MakePair(1, "a"), MakePair(1, "b"));
  CheckLess(MakePair(1, "a", "", 1), MakePair(1, "a", "", 2));
  CheckLess(MakeTri(1, 9), MakeTri(2, 0));
  CheckLess(MakeTri(1, 1), MakeTri(1, 2));
  CheckLess(Array<Any>{MakePair(1, "a")}, Array<Any>{MakePair(1, "b")});
  // Equal maps are Le and Ge.
  CheckOrderEqual(Map<String, Any>{{"a", 1}}, Map<String, Any>{{"a", 1}});
  CheckOrderEqual(Dict<Any, Any>{{1, 2}}, Dict<Any, Any>{{1, 2}});
  // Laws on a small domain: trichotomy, and Le/Ge/Gt derived from Lt and Eq.
  for (int64_t i = -2; i <= 2; ++i) {
    for (int64_t j = -2; j <= 2; ++j) {
      Array<Any> a{i % 2, i}, b{j % 2, j};
      bool lt = RecursiveLt(a, b), eq = RecursiveEq(a, b), gt = RecursiveGt(a, b);
      CHECK(int(lt) + int(eq) + int(gt) == 1);
      CHECK(RecursiveLe(a, b) == (lt || eq));
      CHECK(RecursiveGe(a, b) == (gt || eq));
      CHECK(lt == (std::make_pair(i % 2, i) < std::make_pair(j % 2, j)));
    }
  }
}

TEST_CASE("Ordering incomparable values is a TypeError", "[dataclass][recursive]") {
  RegisterOnce();
  CheckThrows([] { RecursiveLt(1, String("a")); }, "TypeError", "different types: int vs str");
  CheckThrows([] { RecursiveLe(1, 1.0); }, "TypeError", "different types");
  CheckThrows([] { RecursiveGt(1, true); }, "TypeError", "different types");
  CheckThrows([] { RecursiveGe(String("a"), Bytes("a", 1)); }, "TypeError", "str vs bytes");
  CheckThrows([] { RecursiveLt(Array<Any>{1}, List<Any>{1}); }, "TypeError", "different types");
  CheckThrows(
      [] {
        RecursiveLt(Array<Any>{1, 2}, Array<Any>{1, String("x")});
      },
      "TypeError", "different types");
  CheckThrows([] { RecursiveLt(MakePair(1, "a"), MakeTri(1, 0)); }, "TypeError",
              "test.rec.Pair vs test.rec.Tri");
  double nan = std::numeric_limits<double>::quiet_NaN();
  CheckThrows([nan] { RecursiveLt(nan, 1.0); }, "TypeError", "NaN");
  CheckThrows([nan] { RecursiveLe(nan, nan); }, "TypeError", "NaN");
  CheckThrows([nan] { RecursiveLt(Array<Any>{nan}, Array<Any>{nan}); }, "TypeError", "NaN");
  CHECK(RecursiveEq(Array<Any>{nan}, Array<Any>{nan}));
  // Maps have no order: any difference is an error, even one of sizes or keys.
  CheckThrows(
      [] {
        RecursiveLt(Map<String, Any>{{"a", 1}}, Map<String, Any>{{"a", 2}});
      },
      "TypeError", "Map/Dict");
  CheckThrows(
      [] {
        RecursiveGt(Map<String, Any>{{"a", 1}}, Map<String, Any>{{"b", 1}});
      },
      "TypeError", "Map/Dict");
  CheckThrows(
      [] {
        RecursiveLt(Dict<Any, Any>{}, Dict<Any, Any>{{1, 1}});
      },
      "TypeError", "Map/Dict");
  CheckThrows(
      [] {
        RecursiveLt(Array<Any>{Map<String, Any>{{"a", Array<Any>{1}}}},
                    Array<Any>{Map<String, Any>{{"a", Array<Any>{2}}}});
      },
      "TypeError", "Map/Dict");
  int x = 0, y = 0;
  CheckThrows([&] { RecursiveLt(static_cast<void*>(&x), static_cast<void*>(&y)); }, "TypeError",
              "Cannot order");
  // Equality never raises for these.
  CHECK_FALSE(RecursiveEq(Map<String, Any>{{"a", 1}}, Map<String, Any>{{"b", 1}}));
  CHECK_FALSE(RecursiveEq(MakePair(1, "a"), MakeTri(1, 0)));
}

TEST_CASE("Cycles end: equal for RecursiveEq, a ValueError when ordering",
          "[dataclass][recursive]") {
  RegisterOnce();
  List<Any> a, b;
  a.push_back(1);
  a.push_back(a);
  b.push_back(1);
  b.push_back(b);
  CheckSame(a, b);
  CheckSame(a, a);
  CheckOrderEqual(a, a);  // the same object: equal without a walk
  CheckThrows([&] { RecursiveLt(a, b); }, "ValueError", "cyclic reference");
  // Something outside the cycle still differs.
  List<Any> c;
  c.push_back(2);
  c.push_back(c);
  CHECK_FALSE(RecursiveEq(a, c));
  CHECK(RecursiveLt(a, c));  // decided before the cycle closes
  // Through objects and dicts.
  ObjectPtr<BoxObj> x = MakeBox(nullptr), y = MakeBox(nullptr);
  x->item = Array<Any>{ObjectRef(x)};
  y->item = Array<Any>{ObjectRef(y)};
  CheckSame(ObjectRef(x), ObjectRef(y));
  CheckThrows([&] { RecursiveGe(ObjectRef(x), ObjectRef(y)); }, "ValueError", "cyclic reference");
  Dict<Any, Any> d, e;
  d.Set(String("self"), d);
  e.Set(String("self"), e);
  CheckSame(d, e);
  // After an error the comparisons still work (no stale cycle marks).
  CheckSame(ObjectRef(x), ObjectRef(y));
  // Break the cycles so everything is freed.
  a.Set(1, nullptr);
  b.Set(1, nullptr);
  c.Set(1, nullptr);
  x->item = nullptr;
  y->item = nullptr;
  d.clear();
  e.clear();
}

TEST_CASE("Hooks: __ffi_eq__, __ffi_compare__, __ffi_hash__", "[dataclass][recursive]") {
  RegisterOnce();
  // __ffi_eq__ and __ffi_hash__ look at the key alone.
  CheckSame(MakeKeyed<KeyedObj>(1, "alpha"), MakeKeyed<KeyedObj>(1, "beta"));
  CheckDiffer(MakeKeyed<KeyedObj>(1, "same"), MakeKeyed<KeyedObj>(2, "same"));
  CheckSame(Array<Any>{MakeKeyed<KeyedObj>(1, "a")}, Array<Any>{MakeKeyed<KeyedObj>(1, "b")});
  // Without __ffi_compare__, ordering uses the reflected fields.
  CHECK(RecursiveLt(MakeKeyed<KeyedObj>(1, "alpha"), MakeKeyed<KeyedObj>(1, "beta")));
  CHECK(RecursiveGt(MakeKeyed<KeyedObj>(1, "beta"), MakeKeyed<KeyedObj>(1, "alpha")));
  // __ffi_compare__ (here: descending keys) decides ordering and equality.
  CheckLess(MakeKeyed<ReversedObj>(5), MakeKeyed<ReversedObj>(1));
  CheckSame(MakeKeyed<ReversedObj>(3), MakeKeyed<ReversedObj>(3));
  CheckOrderEqual(MakeKeyed<ReversedObj>(3), MakeKeyed<ReversedObj>(3));
  // __ffi_eq__ without __ffi_hash__: equality works, hashing refuses.
  CHECK(RecursiveEq(MakeKeyed<EqOnlyObj>(1, "a"), MakeKeyed<EqOnlyObj>(1, "b")));
  CheckThrows([] { RecursiveHash(MakeKeyed<EqOnlyObj>(1, "a")); }, "ValueError",
              "__ffi_eq__ or __ffi_compare__ but not __ffi_hash__");
  CheckThrows([] { RecursiveHash(Array<Any>{MakeKeyed<EqOnlyObj>(1, "a")}); }, "ValueError",
              "test.rec.EqOnly");
}

TEST_CASE("Deep values compare and hash without recursion limits", "[dataclass][recursive]") {
  Array<Any> a, b;
  for (int i = 0; i < 5000; ++i) {
    a = Array<Any>{a};
    b = Array<Any>{b};
  }
  CheckSame(a, b);
  CheckOrderEqual(a, b);
  Array<Any> c = Array<Any>{1};
  for (int i = 0; i < 5000; ++i) c = Array<Any>{c};
  CHECK_FALSE(RecursiveEq(a, c));
  CHECK(RecursiveLt(a, c));  // the innermost: () < (1,)
}

TEST_CASE("The Recursive* globals have upstream's names", "[dataclass][recursive]") {
  for (const char* name : {"ffi.RecursiveHash", "ffi.RecursiveEq", "ffi.RecursiveLt",
                           "ffi.RecursiveLe", "ffi.RecursiveGt", "ffi.RecursiveGe"}) {
    INFO(name);
    CHECK(Function::GetGlobal(name).has_value());
  }
  CHECK(Function::GetGlobalRequired("ffi.RecursiveLt")(1, 2).cast<bool>());
  CHECK(Function::GetGlobalRequired("ffi.RecursiveHash")(1).cast<int64_t>() == RecursiveHash(1));
}

}  // namespace recursive_compare

// Issue #25: a DAG of shared nodes (each level holds the one below twice:
// 2^64 paths) costs its number of nodes for RecursiveEq / Hash / Lt and
// DeepCopy; ReprPrint, whose text would be 2^64 long, stops with a clear
// error after a bounded amount of work; a chain deeper than the stack is a
// clear error for DeepCopy.
namespace shared_dag {
using namespace tvm::ffi;

Any Dag(int levels, int64_t leaf, bool mutable_nodes = false) {
  Any node = Array<Any>{leaf};
  for (int i = 0; i < levels; ++i) {
    if (mutable_nodes) {
      node = List<Any>{node, node};
    } else if (i % 2 == 0) {
      node = Array<Any>{node, node};
    } else {
      node = Map<Any, Any>{{String("a"), node}, {String("b"), node}};
    }
  }
  return node;
}

template <typename F>
std::string ErrorText(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.kind() + ": " + e.message();
  }
  return "no error";
}

TEST_CASE("Recursive walkers of a DAG of shared nodes take time linear in its nodes",
          "[dataclass][recursive][hostile]") {
  for (bool mutable_nodes : {false, true}) {
    CAPTURE(mutable_nodes);
    Any a = Dag(64, 1, mutable_nodes);
    Any b = Dag(64, 1, mutable_nodes);  // equal, sharing nothing with a
    Any c = Dag(64, 2, mutable_nodes);
    CHECK(RecursiveEq(a, b));
    CHECK_FALSE(RecursiveEq(a, c));
    CHECK(RecursiveHash(a) == RecursiveHash(b));
    // DeepCopy keeps the sharing: one copy per node.
    Any copy = DeepCopy(a);
    CHECK(RecursiveEq(copy, a));
    if (mutable_nodes) {
      List<Any> top = copy.cast<List<Any>>();
      CHECK(top[0].same_as(top[1]));
    } else {
      Map<Any, Any> top = copy.cast<Map<Any, Any>>();
      CHECK(top.at(String("a")).same_as(top.at(String("b"))));
    }
  }
  // Ordering (maps cannot be ordered: arrays only).
  Any a = Array<Any>{1}, c = Array<Any>{2};
  for (int i = 0; i < 64; ++i) {
    a = Array<Any>{a, a};
    c = Array<Any>{c, c};
  }
  CHECK(RecursiveLt(a, c));  // only the leaves differ: 1 < 2
  CHECK_FALSE(RecursiveLt(a, a));
  CHECK(RecursiveLe(a, DeepCopy(a)));
}

TEST_CASE("RecursiveEq memoises only what a cycle does not decide",
          "[dataclass][recursive][hostile]") {
  // Two rings of lists: equal pairs inside a cycle are taken as equal only
  // while the cycle is open; a difference outside still tells.
  List<Any> x{1}, y{1};
  x.push_back(x);
  y.push_back(y);
  Array<Any> shared_x{x, x, 3}, shared_y{y, y, 3}, other_y{y, y, 4};
  CHECK(RecursiveEq(shared_x, shared_y));
  CHECK_FALSE(RecursiveEq(shared_x, other_y));
  x.Set(1, nullptr);  // break the cycles
  y.Set(1, nullptr);
}

TEST_CASE("ReprPrint of a DAG: shared parts in full, within a bound on the text",
          "[dataclass][hostile]") {
  // A small DAG prints in full, each shared part at each use.
  Array<Any> leaf{1};
  Array<Any> mid{leaf, leaf};
  CHECK(std::string(ReprPrint(Array<Any>{mid, mid})) == "(((1,), (1,)), ((1,), (1,)))");
  // 2^64 copies: a ValueError once the text would pass 16 MiB.
  CHECK(ErrorText([] { ReprPrint(Dag(64, 1)); }) ==
        "ValueError: ReprPrint: the text would be longer than 16777216 characters (shared parts "
        "of a value print in full at each use)");
  // Through a type's __ffi_repr__ hook as well (AccessPath prints its steps).
  using reflection::AccessPath;
  AccessPath p = AccessPath::Root()->Attr("x");
  Array<Any> paths{p};
  for (int i = 0; i < 64; ++i) paths = Array<Any>{paths, paths, p};
  CHECK_THAT(ErrorText([&] { ReprPrint(paths); }),
             Catch::Matchers::StartsWith("ValueError: ReprPrint: the text would be longer"));
}

TEST_CASE("DeepCopy of a chain deeper than the stack is a ValueError", "[dataclass][hostile]") {
  Array<Any> deep{1};
  for (int i = 0; i < 200000; ++i) deep = Array<Any>{deep};
  CHECK_THAT(ErrorText([&] { DeepCopy(deep); }),
             Catch::Matchers::StartsWith("ValueError: DeepCopy: the value is nested too deeply "
                                         "for this thread's stack"));
  // RecursiveEq / RecursiveHash keep their own stacks: they answer.
  Array<Any> other{1};
  for (int i = 0; i < 200000; ++i) other = Array<Any>{other};
  CHECK(RecursiveEq(deep, other));
  CHECK(RecursiveHash(deep) == RecursiveHash(other));
  // ReprPrint stops printing at its depth bound.
  CHECK(std::string(ReprPrint(deep)).find("...") != std::string::npos);
}

}  // namespace shared_dag
