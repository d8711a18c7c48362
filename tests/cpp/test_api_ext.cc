// Tests of the small upstream additions to existing headers: Shape from
// Array<int64_t>, Tuple deduction guides, ArrayObj::SetItem, as_or_throw on
// Any and ObjectRef.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/function.h>

#include "api_test_util.h"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <type_traits>

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;

using api_test::ErrorOf;

TEST_CASE("Shape from Array<int64_t>", "[api_ext]") {
  Array<int64_t> arr{2, 3, 4};
  Shape s(arr);
  CHECK(s.size() == 3);
  CHECK(s == Shape({2, 3, 4}));
  CHECK(s.Product() == 24);
  Shape implicit = arr;  // implicit, as upstream
  CHECK(implicit == s);
  CHECK(Shape(Array<int64_t>()).empty());
  // Other arrays do not choose this constructor.
  static_assert(!std::is_convertible_v<Array<int>, Shape>);
  static_assert(!std::is_convertible_v<Array<Any>, Shape>);
  static_assert(std::is_convertible_v<Array<int64_t>, Shape>);
  // A function taking a Shape accepts the array through Any too.
  Function f = Function::FromTyped([](Shape shape) { return shape.Product(); });
  CHECK(f(arr).cast<int64_t>() == 24);
}

TEST_CASE("Tuple deduction guides", "[api_ext]") {
  Tuple t(1, String("a"), 2.5);
  static_assert(std::is_same_v<decltype(t), Tuple<int, String, double>>);
  CHECK(t.get<0>() == 1);
  CHECK(t.get<1>() == "a");
  CHECK(t.get<2>() == 2.5);
  const Array<int> arr{1};
  Tuple u(arr, true);
  static_assert(std::is_same_v<decltype(u), Tuple<Array<int>, bool>>);
  CHECK(u.get<0>().same_as(arr));
  // Copying a tuple keeps its type (the copy constructor, not a one-element tuple).
  Tuple copy(t);
  static_assert(std::is_same_v<decltype(copy), Tuple<int, String, double>>);
  CHECK(copy.same_as(t));
}

TEST_CASE("ArrayObj::SetItem", "[api_ext]") {
  Array<Any> arr{1, 2, 3};
  ArrayObj* obj = arr.CopyOnWrite();
  obj->SetItem(1, String("two"));
  CHECK(arr[1].cast<String>() == "two");
  Array<int> boxed{7};
  obj->SetItem(0, boxed);
  CHECK(boxed.use_count() == 2);
  obj->SetItem(0, nullptr);  // the old value is released
  CHECK(boxed.use_count() == 1);
  Error err = ErrorOf([&] { obj->SetItem(3, 1); });
  CHECK(err.kind() == "IndexError");
  CHECK(ErrorOf([&] { obj->SetItem(-1, 1); }).kind() == "IndexError");
  CHECK(arr.size() == 3);
}

TEST_CASE("Any::as_or_throw does not convert", "[api_ext]") {
  Any i = 5;
  CHECK(i.as_or_throw<int>() == 5);
  CHECK(i.as_or_throw<int64_t>() == 5);
  Error err = ErrorOf([&] { (void)i.as_or_throw<double>(); });  // try_cast would convert
  CHECK(err.kind() == "TypeError");
  CHECK_THAT(err.message(), ContainsSubstring("Cannot treat type `int` as type `float`"));
  Any s = String("a string long enough to be a heap object");
  CHECK(s.as_or_throw<String>() == "a string long enough to be a heap object");
  Any arr = Array<int>{1, 2};
  Array<int> moved = std::move(arr).as_or_throw<Array<int>>();
  CHECK(moved.size() == 2);
  CHECK(arr == nullptr);  // moved out
  Any keep = Array<int>{1};
  CHECK_THROWS_AS(std::move(keep).as_or_throw<Shape>(), Error);
  CHECK(keep != nullptr);  // a failed move-cast leaves it
  CHECK(i.as_or_throw<Any>().same_as(i));
}

TEST_CASE("ObjectRef::as_or_throw", "[api_ext]") {
  ObjectRef ref = Array<int>{1, 2};
  Array<int> arr = ref.as_or_throw<Array<int>>();
  CHECK(arr.same_as(ref));
  Error err = ErrorOf([&] { (void)ref.as_or_throw<Shape>(); });
  CHECK(err.kind() == "TypeError");
  CHECK_THAT(err.message(), ContainsSubstring("Cannot treat type `ffi.Array` as type `ffi.Shape`"));
  ObjectRef null_ref;
  CHECK_FALSE(null_ref.as_or_throw<ObjectRef>().defined());  // nullable target: null is fine
  CHECK_THAT(ErrorOf([&] { (void)null_ref.as_or_throw<Shape>(); }).message(),
             ContainsSubstring("`None`"));
  ObjectRef moving = arr;
  Array<int> taken = std::move(moving).as_or_throw<Array<int>>();
  CHECK_FALSE(moving.defined());
  CHECK(taken.same_as(arr));
}

}  // namespace
