// Tests of tvm/ffi/extra/structural_equal.h: equality of POD values, strings,
// containers, shapes, tensors and reflected objects (tree, DAG, free
// variables, unique instances, ignored fields), with the first mismatch
// reported as a pair of access paths.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "reflection_test_util.h"

namespace {

using namespace tvm::ffi;
using namespace reflection_test;
using reflection::AccessPath;
using reflection::AccessPathPair;

bool Eq(const Any& a, const Any& b) {
  return StructuralEqual::Equal(a, b);
}

// The mismatch, checked against expected paths on both sides.
void CheckMismatch(const Any& a, const Any& b, const AccessPath& lhs, const AccessPath& rhs) {
  Optional<AccessPathPair> m = StructuralEqual::GetFirstMismatch(a, b);
  REQUIRE(m.has_value());
  CHECK(m.value().get<0>()->PathEqual(lhs));
  CHECK(m.value().get<1>()->PathEqual(rhs));
}

struct CPUAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(GetDataSize(*t)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

Tensor FloatTensor(std::initializer_list<float> values) {
  Tensor t = Tensor::FromNDAlloc(CPUAlloc(), {static_cast<int64_t>(values.size())},
                                 DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  std::memcpy(t->data, values.begin(), values.size() * sizeof(float));
  return t;
}

TEST_CASE("POD values: same type and bits; NaN equals NaN", "[structural_equal]") {
  CHECK(Eq(1, 1));
  CHECK(!Eq(1, 2));
  CHECK(!Eq(1, 1.0));  // int vs float: different types
  CHECK(Eq(2.5, 2.5));
  CHECK(Eq(std::nan(""), -std::numeric_limits<double>::quiet_NaN()));
  CHECK(!Eq(std::nan(""), 1.0));
  CHECK(Eq(true, true));
  CHECK(!Eq(true, 1));
  CHECK(Eq(nullptr, nullptr));
  CHECK(!Eq(nullptr, 0));
  CHECK(Eq(DLDevice{kDLCPU, 0}, DLDevice{kDLCPU, 0}));
  CHECK(!Eq(DLDevice{kDLCPU, 0}, DLDevice{kDLCPU, 1}));
}

TEST_CASE("Strings and bytes: by content, whatever their form", "[structural_equal]") {
  std::string long_text(200, 'a');
  CHECK(Eq(String("ab"), String("ab")));
  CHECK(Eq(String(long_text), String(long_text)));
  CHECK(!Eq(String("ab"), String("ac")));
  CHECK(!Eq(String(long_text), String(long_text + "b")));
  CHECK(Eq(Bytes("xy", 2), Bytes("xy", 2)));
  CHECK(!Eq(String("xy"), Bytes("xy", 2)));
}

TEST_CASE("Arrays and Lists: element-wise, first difference reported", "[structural_equal]") {
  CHECK(Eq(Array<int64_t>{1, 2, 3}, Array<int64_t>{1, 2, 3}));
  CHECK(!Eq(Array<int64_t>{1, 2, 3}, Array<int64_t>{1, 2, 4}));
  CHECK(!Eq(Array<int64_t>{1, 2}, List<int64_t>{1, 2}));  // different container types
  CHECK(Eq(List<Any>{1, String("a")}, List<Any>{1, String("a")}));
  CheckMismatch(Array<int64_t>{1, 2, 3}, Array<int64_t>{1, 5, 3}, AccessPath::Root()->ArrayItem(1),
                AccessPath::Root()->ArrayItem(1));
  // Length differences name the first missing index.
  CheckMismatch(Array<int64_t>{1, 2, 3}, Array<int64_t>{1, 2}, AccessPath::Root()->ArrayItem(2),
                AccessPath::Root()->ArrayItemMissing(2));
  CheckMismatch(List<int64_t>{1}, List<int64_t>{1, 2, 3}, AccessPath::Root()->ArrayItemMissing(1),
                AccessPath::Root()->ArrayItem(1));
  // Nested.
  CheckMismatch(Array<Any>{Array<int64_t>{1, 2}}, Array<Any>{Array<int64_t>{1, 3}},
                AccessPath::Root()->ArrayItem(0)->ArrayItem(1),
                AccessPath::Root()->ArrayItem(0)->ArrayItem(1));
  CHECK(!StructuralEqual::GetFirstMismatch(Array<int64_t>{1}, Array<int64_t>{1}).has_value());
}

TEST_CASE("Maps and Dicts: by key, whatever the insertion order", "[structural_equal]") {
  Map<String, int64_t> a{{"x", 1}, {"y", 2}};
  Map<String, int64_t> b{{"y", 2}, {"x", 1}};
  CHECK(Eq(a, b));
  CHECK(!Eq(a, Map<String, int64_t>{{"x", 1}, {"y", 3}}));
  CheckMismatch(a, Map<String, int64_t>{{"x", 1}, {"y", 3}},
                AccessPath::Root()->MapItem(String("y")), AccessPath::Root()->MapItem(String("y")));
  // A key only on the left.
  CheckMismatch(a, Map<String, int64_t>{{"x", 1}}, AccessPath::Root()->MapItem(String("y")),
                AccessPath::Root()->MapItemMissing(String("y")));
  // A key only on the right.
  CheckMismatch(Map<String, int64_t>{{"x", 1}}, a, AccessPath::Root()->MapItemMissing(String("y")),
                AccessPath::Root()->MapItem(String("y")));
  Dict<String, Any> d1{{"k", Array<int64_t>{1}}};
  Dict<String, Any> d2{{"k", Array<int64_t>{1}}};
  CHECK(Eq(d1, d2));
  d2.Set("k", Array<int64_t>{2});
  CheckMismatch(d1, d2, AccessPath::Root()->MapItem(String("k"))->ArrayItem(0),
                AccessPath::Root()->MapItem(String("k"))->ArrayItem(0));
  CHECK(!Eq(Map<String, int64_t>{{"x", 1}}, Dict<String, int64_t>{{"x", 1}}));
  // Keys held as heap strings.
  String long_key(std::string(40, 'k'));
  CHECK(Eq(Map<String, int64_t>{{long_key, 1}}, Map<String, int64_t>{{long_key, 1}}));
  CheckMismatch(Map<String, int64_t>{{long_key, 1}}, Map<String, int64_t>{{long_key, 2}},
                AccessPath::Root()->MapItem(long_key), AccessPath::Root()->MapItem(long_key));
}

TEST_CASE("Shapes by extents; tensors by shape, dtype and bytes", "[structural_equal]") {
  CHECK(Eq(Shape({2, 3}), Shape({2, 3})));
  CHECK(!Eq(Shape({2, 3}), Shape({3, 2})));
  CHECK(!Eq(Shape({2, 3}), Shape({2, 3, 1})));
  Tensor t1 = FloatTensor({1, 2, 3});
  Tensor t2 = FloatTensor({1, 2, 3});
  Tensor t3 = FloatTensor({1, 2, 4});
  CHECK(Eq(t1, t1));
  CHECK(Eq(t1, t2));
  CHECK(!Eq(t1, t3));
  CHECK(StructuralEqual::Equal(t1, t3, false, /*skip_tensor_content=*/true));
  CHECK(!StructuralEqual::Equal(t1, FloatTensor({1, 2}), false, true));
}

TEST_CASE("Objects: field by field, the differing field named", "[structural_equal]") {
  RegisterTestTypes();
  Point a(1, 2.0);
  Point b(1, 2.0);
  CHECK(Eq(a, b));
  b->y = 3.0;
  CHECK(!Eq(a, b));
  CheckMismatch(a, b, AccessPath::Root()->Attr("y"), AccessPath::Root()->Attr("y"));
  // Fields flagged SEqHashIgnore do not count.
  b->y = 2.0;
  b->cache = 99;
  CHECK(Eq(a, b));
  // Nested in containers.
  Array<Any> xs{Point(0, 0.0), a};
  Array<Any> ys{Point(0, 0.0), Point(1, 2.0)};
  CHECK(Eq(xs, ys));
  Point c(1, 2.0);
  c->label = "changed";
  CheckMismatch(Array<Any>{Point(0, 0.0), a}, Array<Any>{Point(0, 0.0), c},
                AccessPath::Root()->ArrayItem(1)->Attr("label"),
                AccessPath::Root()->ArrayItem(1)->Attr("label"));
  // Different types.
  CHECK(!Eq(a, Var("a")));
}

TEST_CASE("Inherited fields are compared too", "[structural_equal]") {
  RegisterTestTypes();
  ObjectPtr<Point3Obj> p = make_object<Point3Obj>();
  ObjectPtr<Point3Obj> q = make_object<Point3Obj>();
  p->x = q->x = 1;
  p->z = q->z = 2;
  CHECK(Eq(ObjectRef(p), ObjectRef(q)));
  q->x = 5;
  CheckMismatch(ObjectRef(p), ObjectRef(q), AccessPath::Root()->Attr("x"),
                AccessPath::Root()->Attr("x"));
}

TEST_CASE("Free variables bind in SEqHashDef fields (alpha equivalence)", "[structural_equal]") {
  RegisterTestTypes();
  Var x("x"), y("y"), z("z");
  // fn(x) { x } == fn(y) { y }: params define the variables.
  CHECK(Eq(Func({x}, x), Func({y}, y)));
  // fn(x) { x } != fn(y) { z }: the body uses another variable.
  CHECK(!Eq(Func({x}, x), Func({y}, z)));
  CheckMismatch(Func({x}, x), Func({y}, z), AccessPath::Root()->Attr("body"),
                AccessPath::Root()->Attr("body"));
  // Two parameters must pair up consistently.
  Var a("a"), b("b");
  CHECK(Eq(Func({x, y}, Array<Any>{x, y}), Func({a, b}, Array<Any>{a, b})));
  CHECK(!Eq(Func({x, y}, Array<Any>{x, y}), Func({a, b}, Array<Any>{b, a})));
  // The comment is ignored.
  CHECK(Eq(Func({x}, x, "one"), Func({y}, y, "two")));
  // Outside a def field, a free variable equals only itself...
  CHECK(Eq(x, x));
  CHECK(!Eq(x, y));
  CHECK(!Eq(Array<Any>{x}, Array<Any>{y}));
  // ...unless map_free_vars is set.
  CHECK(StructuralEqual::Equal(x, y, /*map_free_vars=*/true));
  CHECK(StructuralEqual::Equal(Array<Any>{x, x}, Array<Any>{y, y}, true));
  CHECK(!StructuralEqual::Equal(Array<Any>{x, x}, Array<Any>{y, z}, true));
  CHECK(!StructuralEqual::Equal(Array<Any>{x, y}, Array<Any>{z, z}, true));
}

TEST_CASE("Non-recursive def regions bind the variable, not what its fields use",
          "[structural_equal]") {
  RegisterTestTypes();
  Var n("n"), m("m");
  TypedVar x("x", n), y("y", m);
  // let x: T(n) in x  vs  let y: T(m) in y, n and m unbound: the annotation is
  // a use, so n and m must already be bound, and they are not.
  CHECK(!Eq(MakeLet(x, x), MakeLet(y, y)));
  CheckMismatch(MakeLet(x, x), MakeLet(y, y), AccessPath::Root()->Attr("var")->Attr("annotation"),
                AccessPath::Root()->Attr("var")->Attr("annotation"));
  // The same with a recursive region binds n and m together with x and y.
  CHECK(Eq(MakeLet<RecLetObj>(x, x), MakeLet<RecLetObj>(y, y)));
  // Bound by an enclosing def region, the annotation matches.
  CHECK(Eq(Func({n}, MakeLet(x, x)), Func({m}, MakeLet(y, y))));
  // ...and must match the binding.
  TypedVar y_n("y", n);
  CHECK(!Eq(Func({n}, MakeLet(x, x)), Func({m}, MakeLet(y_n, y_n))));
  // Same annotation object on both sides: the variables still bind.
  TypedVar x2("x2", n);
  CHECK(Eq(MakeLet(x, x), MakeLet(x2, x2)));
  CHECK(!Eq(MakeLet(x, x), MakeLet(x2, x)));
  // map_free_vars binds everywhere, non-recursive region or not.
  CHECK(StructuralEqual::Equal(MakeLet(x, x), MakeLet(y, y), /*map_free_vars=*/true));
}

TEST_CASE("Free variables as map keys are translated", "[structural_equal]") {
  RegisterTestTypes();
  Var x("x"), y("y");
  Map<Any, Any> mx{{x, 1}};
  Map<Any, Any> my{{y, 1}};
  CHECK(Eq(Func({x}, mx), Func({y}, my)));
  CHECK(!Eq(Func({x}, mx), Func({y}, Map<Any, Any>{{y, 2}})));
}

TEST_CASE("Unique instances compare by pointer", "[structural_equal]") {
  RegisterTestTypes();
  ObjectPtr<HandleObj> h1 = make_object<HandleObj>();
  ObjectPtr<HandleObj> h2 = make_object<HandleObj>();
  CHECK(Eq(ObjectRef(h1), ObjectRef(h1)));
  CHECK(!Eq(ObjectRef(h1), ObjectRef(h2)));
}

TEST_CASE("Types without a structural kind are refused", "[structural_equal]") {
  RegisterTestTypes();
  ObjectPtr<OpaqueObj> o = make_object<OpaqueObj>();
  try {
    Eq(ObjectRef(o), ObjectRef(make_object<OpaqueObj>()));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
    CHECK(std::string(e.message()).find("test.refl.Opaque") != std::string::npos);
  }
  // Functions have no reflection metadata.
  Function f = Function::FromTyped([]() {});
  CHECK_THROWS_AS(Eq(f, f), Error);
}

TEST_CASE("The functor form and the global agree", "[structural_equal]") {
  CHECK(StructuralEqual()(Array<int64_t>{1}, Array<int64_t>{1}));
  Function global = Function::GetGlobalRequired("ffi.StructuralEqual");
  CHECK(global(Array<int64_t>{1}, Array<int64_t>{2}, false, false).cast<bool>() == false);
}

// Issue #25: a DAG of shared nodes (each level holds the one below twice:
// 2^64 paths) costs its number of nodes for every walker, and a chain deeper
// than the stack is a clear error, not a crash.
Any SharedDag(int levels, int64_t leaf, int kind) {
  Any node = Array<Any>{leaf};
  for (int i = 0; i < levels; ++i) {
    switch (kind) {
      case 0:
        node = Array<Any>{node, node};
        break;
      case 1:
        node = Map<Any, Any>{{String("a"), node}, {String("b"), node}};
        break;
      default:
        node = MakeLet(node, node);  // a reflected TreeNode
        break;
    }
  }
  return node;
}

TEST_CASE("StructuralEqual / Hash of a DAG of shared nodes take time linear in its nodes",
          "[structural_equal][structural_hash][hostile]") {
  RegisterTestTypes();
  for (int kind = 0; kind < 3; ++kind) {
    CAPTURE(kind);
    Any lhs = SharedDag(64, 1, kind);
    Any rhs = SharedDag(64, 1, kind);  // equal, sharing nothing with lhs
    Any other = SharedDag(64, 2, kind);
    CHECK(Eq(lhs, rhs));
    CHECK_FALSE(Eq(lhs, other));
    CHECK(StructuralHash::Hash(lhs) == StructuralHash::Hash(rhs));
    // (Map entries combine by a sum, which a one-bit change at the leaf can
    // leave alone: compared for the other kinds only.)
    if (kind != 1) CHECK(StructuralHash::Hash(lhs) != StructuralHash::Hash(other));
    Optional<AccessPathPair> m = StructuralEqual::GetFirstMismatch(lhs, other);
    REQUIRE(m.has_value());
    CHECK(m.value().get<0>()->depth == 65);  // 64 levels, then the leaf array's item
    CHECK_FALSE(StructuralEqual::GetFirstMismatch(lhs, rhs).has_value());
  }
}

TEST_CASE("StructuralEqual / Hash of a chain deeper than the stack is a ValueError",
          "[structural_equal][structural_hash][hostile]") {
  Array<Any> a{1}, b{1};
  for (int i = 0; i < 200000; ++i) {
    a = Array<Any>{a};
    b = Array<Any>{b};
  }
  auto error = [](auto fn) -> std::string {
    try {
      fn();
    } catch (const Error& e) {
      return e.kind() + ": " + e.message();
    }
    return "no error";
  };
  const std::string eq = error([&] { Eq(a, b); });
  CHECK(eq.rfind("ValueError: StructuralEqual: the value is nested too deeply for this thread's "
                 "stack",
                 0) == 0);
  const std::string hash = error([&] { StructuralHash::Hash(a); });
  CHECK(hash.rfind("ValueError: StructuralHash: the value is nested too deeply for this "
                   "thread's stack",
                   0) == 0);
  // Shallower than the stack allows: the answer, as before.
  Array<Any> c{1}, d{1};
  for (int i = 0; i < 2000; ++i) {
    c = Array<Any>{c};
    d = Array<Any>{d};
  }
  CHECK(Eq(c, d));
  CHECK(StructuralHash::Hash(c) == StructuralHash::Hash(d));
}

}  // namespace
