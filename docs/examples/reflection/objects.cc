// A reflected object type: fields and a method by name, structural equality, printing, JSON.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdio>
#include <utility>

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

// The object: the data, a type key, and how structural equality treats it.
class PointObj : public ffi::Object {
 public:
  int64_t x = 0;
  int64_t y = 0;
  ffi::String label;  // ignored by structural equality and hashing (see below)

  int64_t Dot(int64_t a, int64_t b) const { return x * a + y * b; }

  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("example.Point", PointObj, ffi::Object);
};

// The reference type users hold.
class Point : public ffi::ObjectRef {
 public:
  Point(int64_t x, int64_t y, ffi::String label) {
    ffi::ObjectPtr<PointObj> n = ffi::make_object<PointObj>();
    n->x = x;
    n->y = y;
    n->label = std::move(label);
    data_ = std::move(n);
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Point, ffi::ObjectRef, PointObj);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<PointObj>("A point with a label.")
      .def_ro("x", &PointObj::x, "the x coordinate")
      .def_ro("y", &PointObj::y, "the y coordinate")
      .def_ro("label", &PointObj::label, refl::AttachFieldFlag::SEqHashIgnore())
      .def("dot", &PointObj::Dot, "x * a + y * b");  // self is argument 0
}

int main() {
  Point a(1, 2, "a"), b(1, 2, "b");
  std::printf("%s\n", ffi::ReprPrint(a).c_str());  // example.Point(x=1, y=2, label="a")
  std::printf("equal: %d, same hash: %d\n", ffi::StructuralEqual::Equal(a, b),
              ffi::StructuralHash::Hash(a) == ffi::StructuralHash::Hash(b));  // 1, 1

  // Any binary (and any language) reaches fields and methods by name.
  refl::FieldGetter get_y("example.Point", "y");
  ffi::Function dot = refl::GetMethod("example.Point", "dot");
  std::printf("y = %lld, dot(a, 10, 100) = %lld\n",
              static_cast<long long>(get_y(a).cast<int64_t>()),
              static_cast<long long>(dot(a, 10, 100).cast<int64_t>()));  // y = 2, 210

  // A JSON graph keeps sharing: `a` is written once.
  ffi::String text = ffi::json::Stringify(ffi::ToJSONGraph(ffi::Array<Point>{a, a}));
  std::printf("%s\n", text.c_str());
  ffi::Any back = ffi::FromJSONGraph(ffi::json::Parse(text));
  ffi::Array<Point> points = back.cast<ffi::Array<Point>>();
  std::printf("round trip equal: %d, shared: %d\n",
              ffi::StructuralEqual::Equal(back, ffi::Array<Point>{a, a}),
              points[0].same_as(points[1]));  // 1, 1
  return 0;
}
