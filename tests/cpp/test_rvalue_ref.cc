// Tests of tvm/ffi/rvalue_ref.h: objects moved into typed functions through
// kTVMFFIObjectRValueRef, and the fallbacks for plain and convertible values.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/rvalue_ref.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;

class BoxObj : public Object {
 public:
  explicit BoxObj(int v) : value(v) {}
  int value;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.rvalue_ref.Box", BoxObj, Object);
};
class Box : public ObjectRef {
 public:
  explicit Box(int v) : Box(make_object<BoxObj>(v)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Box, ObjectRef, BoxObj);
};

TEST_CASE("RValueRef moves the caller's reference into the callee", "[rvalue_ref]") {
  const void* seen = nullptr;
  int seen_count = 0;
  Function f = Function::FromTyped([&](RValueRef<Array<int>> ref) {
    Array<int> arr = *std::move(ref);
    seen = arr.get();
    seen_count = arr.use_count();
    arr.push_back(4);  // unique: in place
    return arr;
  });
  Array<int> arr{1, 2, 3};
  const void* original = arr.get();
  Array<int> out = f(RValueRef(std::move(arr))).cast<Array<int>>();
  CHECK(seen == original);
  CHECK(seen_count == 1);      // the callee held the only reference
  CHECK_FALSE(arr.defined());  // the caller's reference was taken
  CHECK(out[0] == 1);
  CHECK(out.size() == 4);
}

TEST_CASE("RValueRef parameters accept plain values without moving them", "[rvalue_ref]") {
  Function f = Function::FromTyped([](RValueRef<Array<int>> ref) {
    Array<int> arr = *std::move(ref);
    return static_cast<int64_t>(arr.use_count());
  });
  Array<int> arr{1, 2};
  CHECK(f(arr).cast<int64_t>() >= 2);  // caller and callee both hold it
  CHECK(arr.defined());
  CHECK(arr.size() == 2);
}

TEST_CASE("RValueRef type errors name the object behind the reference", "[rvalue_ref]") {
  Function f = Function::FromTyped(
      [](RValueRef<Array<int>> ref) { return (*std::move(ref)).size(); }, "take");
  Box s(5);
  const void* box = s.get();
  RValueRef<Box> ref(std::move(s));
  try {
    (void)f(ref);
    FAIL("no TypeError");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
    CHECK_THAT(e.message(), ContainsSubstring("RValueRef<"));
    CHECK_THAT(e.message(), ContainsSubstring("test.rvalue_ref.Box"));
  }
  // A failed conversion leaves the caller's object in the RValueRef.
  Box kept = *std::move(ref);
  CHECK(kept.get() == box);
  CHECK_THROWS_AS(f(1), Error);
}

TEST_CASE("an RValueRef of a convertible type gives a converted copy", "[rvalue_ref]") {
  Function f =
      Function::FromTyped([](RValueRef<Shape> ref) { return (*std::move(ref)).Product(); });
  Array<int64_t> arr{2, 3};
  const void* original = arr.get();
  RValueRef<Array<int64_t>> ref(std::move(arr));
  CHECK(f(ref).cast<int64_t>() == 6);
  // The array was converted, not taken: the caller's reference is intact.
  Array<int64_t> kept = *std::move(ref);
  CHECK(kept.get() == original);
  CHECK(kept.use_count() == 1);
}

TEST_CASE("an RValueRef viewed into an Any is taken over", "[rvalue_ref]") {
  Array<int> arr{7};
  RValueRef<Array<int>> ref(std::move(arr));
  AnyView view(ref);
  CHECK(view.type_index() == TypeIndex::kTVMFFIObjectRValueRef);
  Any owned(view);
  CHECK(owned.cast<Array<int>>()[0] == 7);
  // Now empty: a second take gives None.
  Any again(AnyView{ref});
  CHECK(again == nullptr);
  CHECK(TypeTraits<RValueRef<Array<int>>>::TypeStr() == "RValueRef<Array<int>>");
}

}  // namespace
