// Tests of tvm/ffi/reflection/accessor.h and creator.h: field getters and
// setters, method and field lookup, field order with inheritance, defaults,
// type attribute columns, ObjectCreator.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/creator.h>

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

#include "reflection_test_util.h"

namespace {

using namespace tvm::ffi;
using namespace reflection_test;
namespace refl = tvm::ffi::reflection;

TEST_CASE("FieldGetter and FieldSetter read and write through the C getters", "[accessor]") {
  RegisterTestTypes();
  Point p(3, 4.5);
  refl::FieldGetter get_x("test.refl.Point", "x");
  refl::FieldSetter set_x("test.refl.Point", "x");
  CHECK(get_x(p).cast<int64_t>() == 3);
  set_x(p, 11);
  CHECK(p->x == 11);
  CHECK(get_x(p).cast<int64_t>() == 11);
  // A value of the wrong type is refused and leaves the field alone.
  CHECK_THROWS_AS(set_x(p, "not an int"), Error);
  CHECK(p->x == 11);
  // String fields.
  refl::FieldSetter("test.refl.Point", "label")(p, "north");
  CHECK(p->label == "north");
  CHECK(refl::FieldGetter("test.refl.Point", "label")(p).cast<String>() == "north");
}

TEST_CASE("Inherited fields are found through the subclass", "[accessor]") {
  RegisterTestTypes();
  ObjectPtr<Point3Obj> n = make_object<Point3Obj>();
  n->x = 5;
  n->z = 9;
  CHECK(refl::FieldGetter("test.refl.Point3", "x")(n).cast<int64_t>() == 5);
  CHECK(refl::FieldGetter("test.refl.Point3", "z")(n).cast<int64_t>() == 9);
  std::vector<std::string> names;
  refl::ForEachFieldInfo(
      TVMFFIGetTypeInfo(Point3Obj::RuntimeTypeIndex()),
      [&](const TVMFFIFieldInfo* f) { names.emplace_back(f->name.data, f->name.size); });
  CHECK(names == std::vector<std::string>{"x", "y", "label", "cache", "z", "payload"});
  int seen = 0;
  bool stopped = refl::ForEachFieldInfoWithEarlyStop(
      TVMFFIGetTypeInfo(Point3Obj::RuntimeTypeIndex()), [&](const TVMFFIFieldInfo* f) {
        ++seen;
        return std::string(f->name.data, f->name.size) == "cache";
      });
  CHECK(stopped);
  CHECK(seen == 4);
}

TEST_CASE("Unknown fields, methods and types are errors that name them", "[accessor]") {
  RegisterTestTypes();
  try {
    refl::GetFieldInfo("test.refl.Point", "w");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == "RuntimeError");
    CHECK(std::string(e.message()).find("`w`") != std::string::npos);
    CHECK(std::string(e.message()).find("test.refl.Point") != std::string::npos);
  }
  CHECK_THROWS_AS(refl::GetMethod("test.refl.Point", "nope"), Error);
  CHECK_THROWS_AS(refl::GetFieldInfo("test.refl.NoSuchType", "x"), Error);
}

TEST_CASE("SetFieldToDefault uses the value or calls the factory", "[accessor]") {
  RegisterTestTypes();
  ObjectPtr<Point3Obj> n = make_object<Point3Obj>();
  const TVMFFIFieldInfo* y = refl::GetFieldInfo("test.refl.Point3", "y");
  refl::SetFieldToDefault(y, reinterpret_cast<char*>(n.get()) + y->offset);
  CHECK(n->y == 2.5);
  const TVMFFIFieldInfo* payload = refl::GetFieldInfo("test.refl.Point3", "payload");
  refl::SetFieldToDefault(payload, reinterpret_cast<char*>(n.get()) + payload->offset);
  Array<int64_t> first = n->payload.cast<Array<int64_t>>();
  CHECK(first.size() == 2);
  refl::SetFieldToDefault(payload, reinterpret_cast<char*>(n.get()) + payload->offset);
  // A fresh value each time.
  CHECK(!n->payload.cast<Array<int64_t>>().same_as(first));
}

TEST_CASE("ObjectCreator fills given fields and defaults", "[creator]") {
  RegisterTestTypes();
  refl::ObjectCreator make("test.refl.Point");
  Point p = make(Map<String, Any>{{"x", 4}}).cast<Point>();
  CHECK(p->x == 4);
  CHECK(p->y == 2.5);
  CHECK(p->label == "none");
  Point q = make(Map<String, Any>{{"x", 1}, {"y", 0.25}, {"label", "q"}}).cast<Point>();
  CHECK(q->y == 0.25);
  CHECK(q->label == "q");
}

TEST_CASE("ObjectCreator reports missing and unknown fields", "[creator]") {
  RegisterTestTypes();
  refl::ObjectCreator make("test.refl.Point");
  try {
    make(Map<String, Any>{{"y", 1.0}});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
    CHECK(std::string(e.message()).find("`x`") != std::string::npos);
  }
  try {
    make(Map<String, Any>{{"x", 1}, {"w", 2}});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
    CHECK(std::string(e.message()).find("`w`") != std::string::npos);
  }
  CHECK_THROWS_AS(make(Map<String, Any>{{"x", "bad"}}), Error);
}

TEST_CASE("ObjectCreator needs a creator", "[creator]") {
  RegisterTestTypes();
  // Built-in container types have no reflection creator.
  CHECK_THROWS_AS(refl::ObjectCreator(TVMFFIGetTypeInfo(kTVMFFIArray)), Error);
}

}  // namespace
