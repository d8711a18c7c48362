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
