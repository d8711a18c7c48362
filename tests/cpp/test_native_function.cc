// tvm/ffi/reflection/native_function.h: NativeFunctionView / NativeFunction,
// their binary form in a type attribute column (shared with upstream), and
// the native hooks the runtime and headers call: __any_hash__ /
// __any_equal__ (AnyHash, AnyEqual, Map) and __s_visit__ (StructuralVisitor).
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/extra/structural_visit.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/native_function.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace tvm::ffi;
using reflection::NativeFunction;
using reflection::NativeFunctionView;
namespace refl = tvm::ffi::reflection;

Expected<int> AddOne(int x) noexcept {
  return x + 1;
}
int Triple(int x) {
  return 3 * x;
}
int ThrowsStd(int) {
  throw std::length_error("too long");
}
int ThrowsFFI(int) {
  TVM_FFI_THROW(IndexError) << "no such index";
}

TEST_CASE("A native hook is an opaque pointer to TVMFFIAny(Args...) noexcept", "[native_fn]") {
  auto view = NativeFunctionView<int(int)>::FromNative<&Triple>();
  AnyView cell = view;
  REQUIRE(cell.type_index() == TypeIndex::kTVMFFIOpaquePtr);
  // What a caller built against either side's headers does with the cell.
  auto adapter = reinterpret_cast<TVMFFIAny (*)(int) noexcept>(cell.cast<void*>());
  TVMFFIAny raw = adapter(5);
  CHECK(raw.type_index == TypeIndex::kTVMFFIInt);
  CHECK(raw.v_int64 == 15);
  CHECK(view(4) == 12);
  CHECK(NativeFunctionView<int(int)>::FromNative<&AddOne>().CallExpected(1).value() == 2);
}

TEST_CASE("A native hook's exception becomes its Error", "[native_fn]") {
  auto std_error = NativeFunctionView<int(int)>::FromNative<&ThrowsStd>().CallExpected(0);
  REQUIRE(std_error.is_err());
  CHECK(std_error.error().kind() == "InternalError");
  CHECK(std_error.error().message() == "too long");
  auto ffi_error = NativeFunctionView<int(int)>::FromNative<&ThrowsFFI>();
  CHECK(ffi_error.CallExpected(0).error().kind() == "IndexError");
  CHECK_THROWS_AS(ffi_error(0), Error);
}

TEST_CASE("A packed hook: borrowed by the view, owned by NativeFunction", "[native_fn]") {
  TypedFunction<int(int)> packed(Function::FromTyped([](int x) { return x - 1; }));
  const Object* obj = packed.packed().get();
  int before = obj->use_count();
  NativeFunctionView<int(int)> view = packed;
  CHECK(obj->use_count() == before);
  CHECK(AnyView(view).type_index() == TypeIndex::kTVMFFIFunction);
  CHECK(view(10) == 9);
  std::optional<NativeFunction<int(int)>> owned;
  owned.emplace(view);
  CHECK(obj->use_count() == before + 1);
  owned.reset();
  CHECK(obj->use_count() == before);
  // A packed hook that returns the wrong type is a TypeError, not a crash.
  TypedFunction<int(int)> wrong(Function::FromTyped([](int) { return String("x"); }));
  auto bad = NativeFunctionView<int(int)>(wrong).CallExpected(0);
  REQUIRE(bad.is_err());
  CHECK(bad.error().kind() == "TypeError");
  // Null and non-hook values are no hook.
  TypedFunction<int(int)> empty;
  CHECK_THROWS_AS(NativeFunctionView<int(int)>(empty), Error);
  CHECK_FALSE(Any(3).try_cast<NativeFunctionView<int(int)>>().has_value());
  CHECK_FALSE(Any(static_cast<void*>(nullptr)).try_cast<NativeFunction<int(int)>>().has_value());
}

// Keys that hash and compare by value through native hooks.
class ValueKeyObj : public Object {
 public:
  int64_t value = 0;
  explicit ValueKeyObj(int64_t v) : value(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.native_fn.ValueKey", ValueKeyObj, Object);
};
int64_t ValueKeyHash(const Any& key) {
  int64_t v = key.as<ValueKeyObj>()->value;
  if (v < 0) TVM_FFI_THROW(ValueError) << "negative key";
  return v;
}
bool ValueKeyEqual(const Any& a, const Any& b) {
  return a.as<ValueKeyObj>()->value == b.as<ValueKeyObj>()->value;
}

// A key type whose hooks are raw adapters written by hand, as a library built
// against upstream's headers registers them (no NativeFunctionView involved).
class RawKeyObj : public Object {
 public:
  int64_t value = 0;
  explicit RawKeyObj(int64_t v) : value(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.native_fn.RawKey", RawKeyObj, Object);
};
TVMFFIAny RawKeyHash(const Any& key) noexcept {
  TVMFFIAny out{};
  out.type_index = TypeIndex::kTVMFFIInt;
  out.v_int64 = key.as<RawKeyObj>()->value % 3;
  return out;
}
TVMFFIAny RawKeyEqual(const Any& a, const Any& b) noexcept {
  TVMFFIAny out{};
  out.type_index = TypeIndex::kTVMFFIBool;
  out.v_int64 = a.as<RawKeyObj>()->value == b.as<RawKeyObj>()->value;
  return out;
}

void RegisterKeys() {
  static const bool once = [] {
    refl::TypeAttrDef<ValueKeyObj>()
        .native_fn_attr<&ValueKeyHash>(type_attr::kAnyHash)
        .native_fn_attr<&ValueKeyEqual>(type_attr::kAnyEqual);
    refl::TypeAttrDef<RawKeyObj>()
        .attr(type_attr::kAnyHash.name, reinterpret_cast<void*>(&RawKeyHash))
        .attr(type_attr::kAnyEqual.name, reinterpret_cast<void*>(&RawKeyEqual));
    return true;
  }();
  (void)once;
}

TEST_CASE("AnyHash, AnyEqual and Map call native __any_hash__ / __any_equal__ hooks",
          "[native_fn]") {
  RegisterKeys();
  Any a = ObjectRef(make_object<ValueKeyObj>(7)), b = ObjectRef(make_object<ValueKeyObj>(7));
  CHECK(AnyHash()(a) == detail::StableHashCombine(a.type_index(), uint64_t{7}));
  CHECK(AnyEqual()(a, b));
  CHECK_FALSE(AnyEqual()(a, Any(ObjectRef(make_object<ValueKeyObj>(8)))));
  Any r1 = ObjectRef(make_object<RawKeyObj>(4)), r2 = ObjectRef(make_object<RawKeyObj>(4));
  CHECK(AnyHash()(r1) == detail::StableHashCombine(r1.type_index(), uint64_t{1}));
  CHECK(AnyEqual()(r1, r2));
  Map<Any, int> map{{a, 1}, {r1, 2}};
  CHECK(map.at(b) == 1);
  CHECK(map.at(r2) == 2);
  // A hook's Error comes out of the lookup as that Error.
  Any negative = ObjectRef(make_object<ValueKeyObj>(-1));
  try {
    AnyHash()(negative);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == "ValueError");
  }
}

// A node whose native __s_visit__ hook visits its `kept` field only.
class HookNodeObj : public Object {
 public:
  Any kept;
  Any hidden;
  HookNodeObj(Any k, Any h) : kept(std::move(k)), hidden(std::move(h)) {}
  // Upstream's form of a hook: Expected in, Expected out, stopping early on
  // an error or interrupt (TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN).
  static Expected<Optional<VisitInterrupt>> Visit(StructuralVisitorObj* visitor,
                                                  AnyView value) noexcept {
    TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(
        visitor->VisitExpected(value.cast<const HookNodeObj*>()->kept));
    return Optional<VisitInterrupt>(std::nullopt);
  }
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.native_fn.HookNode", HookNodeObj, Object);
};
// The same, through a Function hook borrowed by an FStructuralVisit.
class FuncHookNodeObj : public Object {
 public:
  Any kept;
  Any hidden;
  FuncHookNodeObj(Any k, Any h) : kept(std::move(k)), hidden(std::move(h)) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.native_fn.FuncHookNode", FuncHookNodeObj, Object);
};

void RegisterVisitHooks() {
  static const bool once = [] {
    refl::ObjectDef<HookNodeObj>()
        .def_ro("kept", &HookNodeObj::kept)
        .def_ro("hidden", &HookNodeObj::hidden);
    refl::ObjectDef<FuncHookNodeObj>()
        .def_ro("kept", &FuncHookNodeObj::kept)
        .def_ro("hidden", &FuncHookNodeObj::hidden);
    refl::EnsureTypeAttrColumn(type_attr::kStructuralVisit);
    refl::TypeAttrDef<HookNodeObj>().native_fn_attr<&HookNodeObj::Visit>(
        type_attr::kStructuralVisit);
    // The column keeps the Function alive once this TypedFunction is gone.
    TypedFunction<Optional<VisitInterrupt>(StructuralVisitorObj*, AnyView)> hook =
        [](StructuralVisitorObj* visitor, AnyView value) {
          return visitor->Visit(value.cast<const FuncHookNodeObj*>()->kept);
        };
    refl::TypeAttrDef<FuncHookNodeObj>().attr(type_attr::kStructuralVisit, FStructuralVisit(hook));
    return true;
  }();
  (void)once;
}

std::vector<int64_t> WalkInts(const ObjectRef& root) {
  std::vector<int64_t> ints;
  StructuralWalk<WalkOrder::kPreOrder>(root, [&](int64_t v) -> Expected<WalkResult> {
    ints.push_back(v);
    return WalkResult::Advance();
  });
  return ints;
}

TEST_CASE("StructuralVisitor calls a type's native or Function __s_visit__ hook", "[native_fn]") {
  RegisterVisitHooks();
  AnyView cell = refl::TypeAttrColumn(type_attr::kStructuralVisit)[HookNodeObj::RuntimeTypeIndex()];
  CHECK(cell.type_index() == TypeIndex::kTVMFFIOpaquePtr);
  ObjectRef native(make_object<HookNodeObj>(Array<Any>{1, 2}, 99));
  CHECK(WalkInts(native) == std::vector<int64_t>{1, 2});
  ObjectRef packed(make_object<FuncHookNodeObj>(Array<Any>{3}, 98));
  CHECK(WalkInts(packed) == std::vector<int64_t>{3});
  // The runtime's own container hooks are native too.
  AnyView array_cell = refl::TypeAttrColumn(type_attr::kStructuralVisit)[TypeIndex::kTVMFFIArray];
  CHECK(array_cell.type_index() == TypeIndex::kTVMFFIOpaquePtr);
  CHECK(array_cell.try_cast<FStructuralVisit>().has_value());
}

}  // namespace
