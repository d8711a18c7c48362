// Tests of tvm/ffi/extra/structural_hash.h: structurally equal values hash
// the same (strings in any form, maps in any order, alpha-equivalent
// functions); different values hash differently in the cases tested; the
// flags mean what they mean for StructuralEqual.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "reflection_test_util.h"

namespace {

using namespace tvm::ffi;
using namespace reflection_test;

uint64_t H(const Any& v) {
  return StructuralHash::Hash(v);
}

struct CPUAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(GetDataSize(*t)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

Tensor IntTensor(std::initializer_list<int32_t> values) {
  Tensor t = Tensor::FromNDAlloc(CPUAlloc(), {static_cast<int64_t>(values.size())},
                                 DLDataType{kDLInt, 32, 1}, DLDevice{kDLCPU, 0});
  std::memcpy(t->data, values.begin(), values.size() * sizeof(int32_t));
  return t;
}

TEST_CASE("POD and strings", "[structural_hash]") {
  CHECK(H(1) == H(1));
  CHECK(H(1) != H(2));
  CHECK(H(1) != H(1.0));
  CHECK(H(std::nan("")) == H(-std::nan("")));
  std::string long_text(100, 'z');
  CHECK(H(String(long_text)) == H(String(long_text)));
  CHECK(H(String("ab")) == H(String("ab")));
  CHECK(H(String("ab")) != H(String("ba")));
}

TEST_CASE("Containers", "[structural_hash]") {
  CHECK(H(Array<int64_t>{1, 2}) == H(Array<int64_t>{1, 2}));
  CHECK(H(Array<int64_t>{1, 2}) != H(Array<int64_t>{2, 1}));
  CHECK(H(Array<int64_t>{1, 2}) != H(List<int64_t>{1, 2}));
  CHECK(H(List<int64_t>{1, 2}) == H(List<int64_t>{1, 2}));
  // Maps: order independent.
  Map<String, int64_t> a{{"x", 1}, {"y", 2}, {"z", 3}, {"w", 4}, {"v", 5}};
  Map<String, int64_t> b{{"v", 5}, {"w", 4}, {"z", 3}, {"y", 2}, {"x", 1}};
  CHECK(H(a) == H(b));
  CHECK(H(a) != H(Map<String, int64_t>{{"x", 1}, {"y", 2}}));
  CHECK(H(Map<String, int64_t>{{"x", 1}}) != H(Map<String, int64_t>{{"x", 2}}));
  CHECK(H(Dict<String, int64_t>{{"x", 1}, {"y", 2}}) ==
        H(Dict<String, int64_t>{{"y", 2}, {"x", 1}}));
  String long_key(std::string(40, 'k'));
  CHECK(H(Map<String, int64_t>{{long_key, 1}, {"a", 2}}) ==
        H(Map<String, int64_t>{{"a", 2}, {long_key, 1}}));
  CHECK(H(Map<String, int64_t>{{long_key, 1}}) != H(Map<String, int64_t>{{long_key, 2}}));
  CHECK(H(Shape({2, 3})) == H(Shape({2, 3})));
  CHECK(H(Shape({2, 3})) != H(Shape({3, 2})));
}

TEST_CASE("Tensors hash their content unless skipped", "[structural_hash]") {
  CHECK(H(IntTensor({1, 2, 3})) == H(IntTensor({1, 2, 3})));
  CHECK(H(IntTensor({1, 2, 3})) != H(IntTensor({1, 2, 4})));
  CHECK(StructuralHash::Hash(IntTensor({1, 2, 3}), false, true) ==
        StructuralHash::Hash(IntTensor({7, 8, 9}), false, true));
}

TEST_CASE("Objects: equal objects hash the same; ignored fields do not count",
          "[structural_hash]") {
  RegisterTestTypes();
  Point a(1, 2.0);
  Point b(1, 2.0);
  b->cache = 42;
  CHECK(StructuralEqual::Equal(a, b));
  CHECK(H(a) == H(b));
  b->x = 7;
  CHECK(H(a) != H(b));
}

TEST_CASE("Alpha-equivalent functions hash the same", "[structural_hash]") {
  RegisterTestTypes();
  Var x("x"), y("y"), z("z");
  Func f1({x}, Array<Any>{x, 1});
  Func f2({y}, Array<Any>{y, 1});
  REQUIRE(StructuralEqual::Equal(f1, f2));
  CHECK(H(f1) == H(f2));
  CHECK(H(Func({x, y}, Array<Any>{x, y})) != H(Func({x, y}, Array<Any>{y, x})));
  // A free variable outside a def field hashes by identity...
  CHECK(H(x) != H(y));
  CHECK(H(x) == H(x));
  // ...or by binding order with map_free_vars.
  CHECK(StructuralHash::Hash(x, true) == StructuralHash::Hash(y, true));
  CHECK(StructuralHash::Hash(Array<Any>{x, x}, true) ==
        StructuralHash::Hash(Array<Any>{y, y}, true));
  CHECK(StructuralHash::Hash(Array<Any>{x, x}, true) !=
        StructuralHash::Hash(Array<Any>{y, z}, true));
}

TEST_CASE("Non-recursive def regions: the annotation of a bound variable hashes as a use",
          "[structural_hash]") {
  RegisterTestTypes();
  Var n("n"), m("m");
  TypedVar x("x", n), y("y", m);
  // Recursive: n and m are bound along with x and y, so the hashes agree.
  REQUIRE(StructuralEqual::Equal(MakeLet<RecLetObj>(x, x), MakeLet<RecLetObj>(y, y)));
  CHECK(H(MakeLet<RecLetObj>(x, x)) == H(MakeLet<RecLetObj>(y, y)));
  // Non-recursive: n and m stay free (identity), so the hashes differ...
  CHECK(H(MakeLet(x, x)) != H(MakeLet(y, y)));
  // ...unless an outer region binds them.
  REQUIRE(StructuralEqual::Equal(Func({n}, MakeLet(x, x)), Func({m}, MakeLet(y, y))));
  CHECK(H(Func({n}, MakeLet(x, x))) == H(Func({m}, MakeLet(y, y))));
  // The same annotation object: equal and the same hash.
  TypedVar x2("x2", n);
  CHECK(H(MakeLet(x, x)) == H(MakeLet(x2, x2)));
}

TEST_CASE("Usable as the hash of an unordered_map keyed by structure", "[structural_hash]") {
  std::unordered_map<Any, int, StructuralHash, StructuralEqual> table;
  table[Array<int64_t>{1, 2}] = 1;
  table[Array<int64_t>{1, 2}] = 2;
  table[Array<int64_t>{2, 1}] = 3;
  CHECK(table.size() == 2);
  CHECK(table.at(Array<int64_t>{1, 2}) == 2);
}

TEST_CASE("Types without a structural kind are refused", "[structural_hash]") {
  RegisterTestTypes();
  CHECK_THROWS_AS(H(ObjectRef(make_object<OpaqueObj>())), Error);
}

TEST_CASE("The global returns the same value", "[structural_hash]") {
  Function global = Function::GetGlobalRequired("ffi.StructuralHash");
  Array<int64_t> v{4, 5};
  CHECK(static_cast<uint64_t>(global(v, false, false).cast<int64_t>()) == H(v));
}

}  // namespace
