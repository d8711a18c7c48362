// Tests of tvm/ffi/container/shape.h: ShapeView, the ffi.Shape object (Shape)
// and the "ffi.Shape" global function of the runtime.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/function.h>

#include <catch2/catch_test_macros.hpp>

#include <list>
#include <string>
#include <vector>

#include "tensor_test_util.h"

namespace {

using namespace tvm::ffi;
using tensor_test::StrongCount;

// Takes a view the way tensor APIs do, so braced lists convert as in a call.
std::vector<int64_t> Collect(ShapeView view) {
  return std::vector<int64_t>(view.begin(), view.end());
}

TEST_CASE("ShapeView: construction and element access", "[shape]") {
  ShapeView empty;
  CHECK(empty.size() == 0);
  CHECK(empty.empty());
  CHECK(empty.data() == nullptr);
  CHECK(empty.begin() == empty.end());
  CHECK(empty.Product() == 1);

  std::vector<int64_t> values{2, 3, 4};
  ShapeView view(values);
  CHECK(view.data() == values.data());
  CHECK(view.size() == 3);
  CHECK_FALSE(view.empty());
  CHECK(view[0] == 2);
  CHECK(view[2] == 4);
  CHECK(view.at(1) == 3);
  CHECK(view.front() == 2);
  CHECK(view.back() == 4);
  CHECK(view.Product() == 24);
  CHECK(view.end() - view.begin() == 3);
  int64_t sum = 0;
  for (int64_t v : view) sum += v;
  CHECK(sum == 9);

  ShapeView raw(values.data() + 1, 2);
  CHECK(Collect(raw) == std::vector<int64_t>{3, 4});

  // Braced lists convert when passed to a function taking a ShapeView.
  CHECK(Collect({5, 6, 7}) == std::vector<int64_t>{5, 6, 7});
  CHECK(Collect({}).empty());
  long n = 9;  // the guide's `{max_c_tmp_size}` with a long variable
  CHECK(Collect({n}) == std::vector<int64_t>{9});
  CHECK(Collect({0, 5}).size() == 2);
}

TEST_CASE("ShapeView: at/front/back out of range raise IndexError", "[shape]") {
  std::vector<int64_t> values{2, 3};
  ShapeView view(values);
  REQUIRE_FFI_ERROR(view.at(2), "IndexError", "index 2 is out of range for a shape of size 2");
  ShapeView empty;
  REQUIRE_FFI_ERROR(empty.front(), "IndexError", "out of range for a shape of size 0");
  REQUIRE_FFI_ERROR(empty.back(), "IndexError", "out of range");
}

TEST_CASE("ShapeView: equality, product of zero extent, text", "[shape]") {
  std::vector<int64_t> a{2, 3}, b{2, 3}, c{3, 2}, d{2, 3, 1};
  CHECK(ShapeView(a) == ShapeView(b));
  CHECK(ShapeView(a) != ShapeView(c));
  CHECK(ShapeView(a) != ShapeView(d));
  CHECK(ShapeView() == ShapeView());
  std::vector<int64_t> z{4, 0, 7};
  CHECK(ShapeView(z).Product() == 0);
  CHECK(ShapeView(a).ToString() == "[2, 3]");
  CHECK(ShapeView().ToString() == "[]");
  // Error messages print shapes.
  REQUIRE_FFI_ERROR(TVM_FFI_THROW(ValueError) << "bad shape " << ShapeView(a), "ValueError",
                    "bad shape [2, 3]");
}

TEST_CASE("Shape: construction from every source", "[shape]") {
  Shape from_list{2, 3, 4};
  CHECK(from_list.size() == 3);
  CHECK(from_list[0] == 2);
  CHECK(from_list[2] == 4);
  CHECK(from_list.Product() == 24);

  std::vector<int64_t> vec{5, 6};
  Shape from_vec(vec);
  CHECK(from_vec.size() == 2);
  CHECK(from_vec.data() != vec.data());  // a copy
  vec[0] = 100;
  CHECK(from_vec[0] == 5);

  Shape from_view{ShapeView(from_list)};
  CHECK(from_view == from_list);
  CHECK_FALSE(from_view.same_as(from_list));

  std::list<int> linked{7, 8, 9};
  Shape from_iter(linked.begin(), linked.end());
  CHECK(static_cast<std::vector<int64_t>>(from_iter) == std::vector<int64_t>{7, 8, 9});

  Shape empty;
  CHECK(empty.defined());
  CHECK(empty.size() == 0);
  CHECK(empty.empty());
  CHECK(empty.Product() == 1);

  Shape implicit = std::vector<int64_t>{1, 2};
  CHECK(implicit.size() == 2);
}

TEST_CASE("Shape: object layout (type index 69, cell at offset 24, inline extents)", "[shape]") {
  Shape s{10, 20, 30};
  const ShapeObj* obj = s.get();
  TVMFFIObject* header = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(s);
  CHECK(header->type_index == kTVMFFIShape);
  CHECK(reinterpret_cast<void*>(header) == static_cast<const void*>(obj));
  TVMFFIShapeCell* cell = TVMFFIShapeGetCellPtr(header);
  CHECK(cell->size == 3);
  CHECK(cell->data == s.data());
  CHECK(cell->data[1] == 20);
  // The extents follow the object in the same allocation.
  CHECK(reinterpret_cast<const char*>(cell->data) ==
        reinterpret_cast<const char*>(obj) + sizeof(ShapeObj));
  CHECK(sizeof(ShapeObj) == sizeof(TVMFFIObject) + sizeof(TVMFFIShapeCell));
  CHECK(s.GetTypeKey() == "ffi.Shape");
}

TEST_CASE("Shape: element access, equality, conversions", "[shape]") {
  Shape s{4, 5};
  REQUIRE_FFI_ERROR(s[2], "IndexError", "index 2 is out of range for a shape of size 2");
  REQUIRE_FFI_ERROR(s.at(7), "IndexError", "index 7");
  CHECK(s.front() == 4);
  CHECK(s.back() == 5);
  REQUIRE_FFI_ERROR(Shape().back(), "IndexError", "out of range");

  Shape same{4, 5}, other{5, 4};
  CHECK(s == same);  // by content
  CHECK(s != other);
  CHECK_FALSE(s.same_as(same));
  std::vector<int64_t> v{4, 5};
  CHECK(s == ShapeView(v));
  CHECK(ShapeView(v) == s);
  CHECK(s != ShapeView());

  ShapeView view = s;  // borrows the object's extents
  CHECK(view.data() == s.data());
  std::vector<int64_t> copy(s);
  CHECK(copy == v);
  CHECK(std::vector<int64_t>(s.begin(), s.end()) == v);
  CHECK(s.ToString() == "[4, 5]");

  CHECK(Shape::StridesFromShape(ShapeView(Shape{2, 3, 4})) == Shape{12, 4, 1});
  CHECK(Shape::StridesFromShape(ShapeView()).size() == 0);
  CHECK(Shape::StridesFromShape(ShapeView(Shape{0, 3})) == Shape{3, 1});
}

TEST_CASE("Shape: reference counting and Any round trips", "[shape]") {
  Shape s{1, 2, 3};
  TVMFFIObject* handle = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(s);
  CHECK(StrongCount(handle) == 1);
  {
    Any owned = s;
    CHECK(owned.type_index() == kTVMFFIShape);
    CHECK(StrongCount(handle) == 2);
    Shape back = owned.cast<Shape>();
    CHECK(back.same_as(s));
    CHECK(StrongCount(handle) == 3);
  }
  CHECK(StrongCount(handle) == 1);
  AnyView view = s;
  CHECK(view.type_index() == kTVMFFIShape);
  CHECK(StrongCount(handle) == 1);
  CHECK(view.cast<Shape>() == Shape{1, 2, 3});

  AnyView number = 3;
  REQUIRE_FFI_ERROR(number.cast<Shape>(), "TypeError",
                    "Cannot convert from type `int` to `ffi.Shape`");
  AnyView none;
  CHECK_FALSE(none.try_cast<Shape>().has_value());  // Shape is never null
}

TEST_CASE("Shape: an Array of ints converts, other arrays do not", "[shape]") {
  Array<int64_t> ints{3, 4, 5};
  AnyView view = ints;
  Shape s = view.cast<Shape>();
  CHECK(s == Shape{3, 4, 5});
  CHECK(s.GetTypeKey() == "ffi.Shape");
  CHECK_FALSE(view.as<Shape>().has_value());  // not exact: a conversion
  CHECK(AnyView(Array<int64_t>{}).cast<Shape>().empty());
  Array<Any> mixed{Any(1), Any(2.5)};
  CHECK_FALSE(AnyView(mixed).try_cast<Shape>().has_value());
  Function rank =
      Function::FromTyped([](Shape shape) { return static_cast<int64_t>(shape.size()); });
  CHECK(rank(ints).cast<int64_t>() == 3);
  CHECK(rank(Shape{1}).cast<int64_t>() == 1);
  REQUIRE_FFI_ERROR(rank(mixed), "TypeError", "Expected `ffi.Shape`");
  // And back: a Shape converts to an Array of ints (containers topic).
  CHECK(AnyView(s).cast<Array<int64_t>>().size() == 3);
}

TEST_CASE("ffi.Shape global builds a Shape from ints", "[shape]") {
  Function make = Function::GetGlobalRequired("ffi.Shape");
  Shape s = make(2, 3, 4).cast<Shape>();
  CHECK(s == Shape{2, 3, 4});
  CHECK(s.use_count() == 1);
  CHECK(make().cast<Shape>().size() == 0);
  CHECK(make(int64_t{-1}, int64_t{1} << 40).cast<Shape>() == Shape{-1, int64_t{1} << 40});
  REQUIRE_FFI_ERROR(make(1, "x"), "TypeError", "ffi.Shape: argument #1 must be an int");
  REQUIRE_FFI_ERROR(make(1.5), "TypeError", "argument #0 must be an int, got `float`");

  // The same through the bare C API.
  TVMFFIByteArray name{"ffi.Shape", 9};
  TVMFFIObjectHandle f = nullptr;
  REQUIRE(TVMFFIFunctionGetGlobal(&name, &f) == 0);
  REQUIRE(f != nullptr);
  TVMFFIAny args[2];
  for (int i = 0; i < 2; ++i) {
    args[i].type_index = kTVMFFIInt;
    args[i].zero_padding = 0;
    args[i].v_int64 = 7 + i;
  }
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  REQUIRE(TVMFFIFunctionCall(f, args, 2, &result) == 0);
  REQUIRE(result.type_index == kTVMFFIShape);
  const TVMFFIShapeCell* cell = TVMFFIShapeGetCellPtr(result.v_obj);
  CHECK(cell->size == 2);
  CHECK(cell->data[0] == 7);
  CHECK(cell->data[1] == 8);
  TVMFFIObjectDecRef(result.v_obj);
  TVMFFIObjectDecRef(f);
}

}  // namespace
