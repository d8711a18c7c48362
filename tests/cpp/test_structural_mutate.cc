// tvm/ffi/extra/structural_mutate.h: Unchanged / UnchangedOr, StructuralMap,
// StructuralMutate, var remapping, errors, and the runtime's container hooks
// and ffi.StructuralMap / ffi.StructuralMutate globals.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/extra/structural_mutate.h>
#include <tvm/ffi/extra/visit_error_context.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/native_function.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <utility>

#include "reflection_test_util.h"

namespace {

using namespace tvm::ffi;
using namespace reflection_test;

Expected<Any> PlusOne(int64_t x) {
  return Any(x + 1);
}

TEST_CASE("Unchanged: a marker with its own type index", "[structural_mutate]") {
  Any marker = Unchanged();
  CHECK(marker.type_index() == TypeIndex::kTVMFFIUnchanged);
  CHECK(marker.GetTypeKey() == "ffi.Unchanged");
  // It crosses a packed call as a plain value.
  Function echo = Function::FromTyped([](Any x) { return x; });
  CHECK(echo(marker).type_index() == TypeIndex::kTVMFFIUnchanged);
}

TEST_CASE("UnchangedOr: replacement or original, moved out once", "[structural_mutate]") {
  Point original(1, 2.0);
  UnchangedOr<Point> kept = Unchanged();
  CHECK(kept.IsUnchanged());
  CHECK(kept.UnchangedOrSameAs(original));
  CHECK(std::move(kept).ValueOrUnchanged(original).same_as(original));

  UnchangedOr<Point> replaced = Point(3, 4.0);
  CHECK_FALSE(replaced.IsUnchanged());
  CHECK_FALSE(replaced.UnchangedOrSameAs(original));
  CHECK(std::move(replaced).ValueOrUnchanged(original)->x == 3);

  // Conversions: a Point result is an Any result as is; int widens to double.
  UnchangedOr<Any> erased = UnchangedOr<Point>(original);
  CHECK(std::move(erased).ValueUnchecked().same_as(original));
  UnchangedOr<double> widened = UnchangedOr<int>(2);
  CHECK(std::move(widened).ValueUnchecked() == 2.0);
  CHECK(UnchangedOr<double>(UnchangedOr<int>(Unchanged())).IsUnchanged());

  // Through Any: the marker reads back as Unchanged; a mismatched type does not pass.
  Any stored = UnchangedOr<Point>(Unchanged());
  CHECK(stored.as<UnchangedOr<Point>>().value().IsUnchanged());
  Any number = UnchangedOr<Any>(Any(7));
  CHECK_FALSE(number.as<UnchangedOr<Point>>().has_value());
  CHECK(number.as<UnchangedOr<Any>>().value().as_or_throw<int64_t>() == 7);
}

Expected<int64_t> DeclaredInt(Expected<UnchangedOr<Any>> input) noexcept {
  TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN(UnchangedOr<int64_t>, value, std::move(input));
  return std::move(value).ValueOrUnchanged(int64_t{-1});
}

TEST_CASE("TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN: errors and the declared type",
          "[structural_mutate]") {
  CHECK(DeclaredInt(UnchangedOr<Any>(Any(5))).value() == 5);
  CHECK(DeclaredInt(UnchangedOr<Any>(Unchanged())).value() == -1);
  Expected<int64_t> wrong = DeclaredInt(UnchangedOr<Any>(Any(String("five"))));
  REQUIRE(wrong.is_err());
  CHECK(wrong.error().kind() == "TypeError");
  Expected<int64_t> failed = DeclaredInt(Error("ValueError", "child failed", ""));
  REQUIRE(failed.is_err());
  CHECK(failed.error().kind() == "ValueError");
}

TEST_CASE("Expected: converting constructors and the RET_CHECK macros", "[structural_mutate]") {
  Point p(1, 1.0);
  Expected<ObjectRef> base = Expected<Point>(p);  // a Point is an ObjectRef: storage reused
  CHECK(base.value().same_as(p));
  Expected<double> widened = Expected<int>(3);
  CHECK(widened.value() == 3.0);
  Expected<double> error_kept = Expected<int>(Error("IndexError", "gone", ""));
  CHECK(error_kept.error().kind() == "IndexError");
  static_assert(type_subsumes_v<Expected<Any>, Expected<void>>);
  static_assert(!type_subsumes_v<Expected<Point>, Expected<ObjectRef>>);

  auto positive = [](int x) noexcept -> Expected<int> {
    TVM_FFI_RET_CHECK(x > 0, ValueError) << "got " << x;
    TVM_FFI_RET_ICHECK_LT(x, 100);
    return x;
  };
  CHECK(positive(5).value() == 5);
  CHECK(positive(-2).error().kind() == "ValueError");
  CHECK(positive(200).error().kind() == "InternalError");
  Expected<void> built = TVM_FFI_UNEXPECTED(KeyError) << "missing " << 3;
  CHECK(built.error().kind() == "KeyError");
  CHECK(built.error().message() == "missing 3");
}

TEST_CASE("StructuralMap: containers, copy-on-write and in place", "[structural_mutate]") {
  Array<Any> shared{int64_t{1}, String("s"), Array<Any>{int64_t{2}}};
  Array<Any> mapped = StructuralMap<WalkOrder::kPostOrder>(shared, PlusOne).cast<Array<Any>>();
  CHECK(mapped[0].cast<int64_t>() == 2);
  CHECK(mapped[1].cast<String>() == "s");
  CHECK(mapped[2].cast<Array<Any>>()[0].cast<int64_t>() == 3);
  // The caller still holds `shared`: it is left as it was.
  CHECK(shared[0].cast<int64_t>() == 1);
  CHECK(shared[2].cast<Array<Any>>()[0].cast<int64_t>() == 2);

  // A root handed over (unique) is changed in place: same object back.
  Array<Any> unique{int64_t{5}};
  const Object* before = unique.get();
  Array<Any> in_place =
      StructuralMap<WalkOrder::kPostOrder>(std::move(unique), PlusOne).cast<Array<Any>>();
  CHECK(in_place.get() == before);
  CHECK(in_place[0].cast<int64_t>() == 6);

  // Map / Dict: values mapped, keys kept; List items.
  Map<Any, Any> map{{String("k"), int64_t{1}}};
  Dict<Any, Any> dict{{int64_t{7}, List<Any>{int64_t{1}}}};
  Map<Any, Any> new_map = StructuralMap<WalkOrder::kPreOrder>(map, PlusOne).cast<Map<Any, Any>>();
  CHECK(new_map.at(String("k")).cast<int64_t>() == 2);
  CHECK(map.at(String("k")).cast<int64_t>() == 1);
  Dict<Any, Any> new_dict =
      StructuralMap<WalkOrder::kPostOrder>(dict, PlusOne).cast<Dict<Any, Any>>();
  CHECK(new_dict.at(int64_t{7}).cast<List<Any>>()[0].cast<int64_t>() == 2);

  // Nothing matched, or Unchanged: the root itself comes back.
  CHECK(StructuralMap<WalkOrder::kPostOrder>(shared, [](const Point&) -> Expected<Any> {
          return Any(nullptr);
        }).same_as(shared));
  CHECK(StructuralMap<WalkOrder::kPreOrder>(shared, [](int64_t) -> Expected<Any> {
          return Unchanged();
        }).same_as(shared));
}

TEST_CASE("StructuralMap: objects through reflected fields", "[structural_mutate]") {
  RegisterTestTypes();
  Point p(1, 2.0);
  Array<Any> root{p, p};
  Array<Any> out = StructuralMap<WalkOrder::kPostOrder>(root, PlusOne).cast<Array<Any>>();
  Point q = out[0].cast<Point>();
  CHECK(q->x == 2);
  CHECK(q->y == 2.0);  // a float: not an int callback's
  CHECK_FALSE(q.same_as(p));
  CHECK(p->x == 1);  // copy-on-write
  // Pre-order: the callback's result is itself mapped.
  Any pre = StructuralMap<WalkOrder::kPreOrder>(
      Any(p), [](const Point& point) -> Expected<Any> { return Point(point->x * 10, 0.5); },
      PlusOne);
  CHECK(pre.cast<Point>()->x == 11);
}

TEST_CASE("StructuralMap: a free variable maps the same everywhere", "[structural_mutate]") {
  RegisterTestTypes();
  Var x("x");
  Func f(Array<Var>{x}, Array<Any>{x, x});
  int calls = 0;
  Var y("y");
  Func g = StructuralMap<WalkOrder::kPreOrder>(f, [&](const Var& v) -> Expected<Any> {
             ++calls;
             return v.same_as(x) ? Any(y) : Any(v);
           }).cast<Func>();
  CHECK(calls == 3);  // the definition and both uses
  CHECK(g->params[0].same_as(y));
  Array<Any> body = g->body.cast<Array<Any>>();
  CHECK(body[0].same_as(y));
  CHECK(body[1].same_as(y));
}

TEST_CASE("StructuralMutate: callbacks own the values they match", "[structural_mutate]") {
  Array<Any> root{int64_t{1}, Array<Any>{int64_t{2}, int64_t{3}}};
  // The inner array is replaced whole (its items are not mapped); ints elsewhere +1.
  Array<Any> out =
      StructuralMutate(
          root,
          [](const Array<Any>& a, StructuralMutatorObj* m, InplaceMode mode) -> Expected<Any> {
            if (a.size() == 2 && a[0].as<int64_t>() == 2) return Any(String("inner"));
            return m->DefaultMutateExpected(a, mode).value().ValueOrUnchanged(Any(a));
          },
          [](int64_t x, StructuralMutatorObj*) -> Expected<Any> { return Any(x + 1); })
          .cast<Array<Any>>();
  CHECK(out[0].cast<int64_t>() == 2);
  CHECK(out[1].cast<String>() == "inner");

  Expected<Any> thrown =
      StructuralMutateExpected(root, [](int64_t, StructuralMutatorObj*) -> Expected<Any> {
        TVM_FFI_THROW(ValueError) << "no ints";
      });
  REQUIRE(thrown.is_err());
  CHECK(thrown.error().kind() == "ValueError");
}

TEST_CASE("StructuralMap: errors come back with the nodes they passed", "[structural_mutate]") {
  Array<Any> inner{int64_t{1}};
  Array<Any> root{inner};
  Expected<Any> r = StructuralMapExpected<WalkOrder::kPostOrder>(
      root, [](int64_t) -> Expected<Any> { return Unexpected(Error("ValueError", "bad", "")); });
  REQUIRE(r.is_err());
  Error err = r.error();
  CHECK(err.kind() == "ValueError");
  std::optional<ObjectRef> ctx = err.extra_context();
  REQUIRE(ctx.has_value());
  REQUIRE(ctx->as<VisitErrorContext>().has_value());
  CHECK(ctx->as<VisitErrorContext>().value()->reverse_visit_pattern.size() >= 2);
}

TEST_CASE("StructuralMutator: a cycle is a ValueError, not a crash", "[structural_mutate]") {
  List<Any> cycle;
  cycle.push_back(int64_t{1});
  cycle.push_back(cycle);
  Expected<Any> r = StructuralMapExpected<WalkOrder::kPostOrder>(cycle, PlusOne);
  REQUIRE(r.is_err());
  CHECK(r.error().kind() == "ValueError");
  cycle.Set(1, Any());  // break the cycle: free it
}

// A node whose mutation is its own native hooks (copy-on-write and in place).
class BoxObj : public Object {
 public:
  Any value;
  explicit BoxObj(Any v) : value(std::move(v)) {}
  static inline int copies = 0;
  static inline int in_place = 0;

  static Expected<UnchangedOr<Any>> Mutate(StructuralMutatorObj* m, AnyView v) noexcept {
    const BoxObj* self = detail::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck<const BoxObj>(v);
    TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN(UnchangedOr<Any>, inner, m->MutateExpected(self->value));
    if (inner.UnchangedOrSameAs(self->value)) return Unchanged();
    ++copies;
    return Any(ObjectRef(make_object<BoxObj>(std::move(inner).ValueUnchecked())));
  }
  static Expected<UnchangedOr<Any>> MutateInPlace(StructuralMutatorObj* m, AnyView v) noexcept {
    BoxObj* self = detail::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck<BoxObj>(v);
    TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN(UnchangedOr<Any>, inner,
                                      m->MutateExpected(self->value, InplaceMode::kAllow));
    ++in_place;
    self->value = std::move(inner).ValueOrUnchanged(std::move(self->value));
    return Unchanged();
  }

  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.mutate.Box", BoxObj, Object);
};

void RegisterBox() {
  static bool done = [] {
    namespace refl = reflection;
    refl::ObjectDef<BoxObj>().def_rw("value", &BoxObj::value);
    refl::TypeAttrDef<BoxObj>()
        .native_fn_attr<&BoxObj::Mutate>(type_attr::kStructuralMutate)
        .native_fn_attr<&BoxObj::MutateInPlace>(type_attr::kStructuralMaybeInplaceMutate);
    return true;
  }();
  (void)done;
}

TEST_CASE("StructuralMutator: native hooks, copy-on-write and in place", "[structural_mutate]") {
  RegisterBox();
  ObjectRef box(make_object<BoxObj>(Any(int64_t{1})));
  Array<Any> shared{box};
  Array<Any> out = StructuralMap<WalkOrder::kPostOrder>(shared, PlusOne).cast<Array<Any>>();
  CHECK(BoxObj::copies == 1);
  CHECK(out[0].as<BoxObj>()->value.cast<int64_t>() == 2);
  CHECK(box.as<BoxObj>()->value.cast<int64_t>() == 1);  // shared: copied, not changed

  // Handed over and held by nothing else: the in-place hook runs, same box back.
  shared = Array<Any>();
  const Object* address = box.get();
  Any root(std::move(box));
  Any same = StructuralMap<WalkOrder::kPostOrder>(std::move(root), PlusOne);
  CHECK(BoxObj::in_place == 1);
  CHECK(same.cast<ObjectRef>().get() == address);
  CHECK(same.as<BoxObj>()->value.cast<int64_t>() == 2);

  // A hook's error comes back naming the box.
  Expected<Any> failed = StructuralMapExpected<WalkOrder::kPostOrder>(
      Array<Any>{ObjectRef(make_object<BoxObj>(Any(int64_t{5})))},
      [](int64_t) -> Expected<Any> { return Unexpected(Error("IndexError", "five", "")); });
  REQUIRE(failed.is_err());
  CHECK(failed.error().kind() == "IndexError");
}

TEST_CASE("StructuralMutator: a Function hook and the packed globals", "[structural_mutate]") {
  RegisterTestTypes();
  // HandleObj: identity-compared; its hook replaces it by its id.
  reflection::detail::RegisterTypeAttr(
      HandleObj::RuntimeTypeIndex(), type_attr::kStructuralMutate.name,
      Function::FromTyped([](StructuralMutatorObj*, AnyView v) -> Any {
        return Any(v.cast<const HandleObj*>()->id);
      }));
  ObjectPtr<HandleObj> h = make_object<HandleObj>();
  h->id = 41;
  Array<Any> root{ObjectRef(h)};

  Function map = Function::GetGlobalRequired("ffi.StructuralMap");
  Array<Tuple<int32_t, Function>> callbacks{
      Tuple<int32_t, Function>(TypeIndex::kTVMFFIInt, Function::FromTyped(PlusOne))};
  Array<Any> out = map(root, callbacks, Array<Tuple<int32_t, Function>>(),
                       static_cast<int32_t>(WalkOrder::kPostOrder))
                       .cast<Array<Any>>();
  CHECK(out[0].cast<int64_t>() == 42);
  CHECK_THROWS(map(root, callbacks, Array<Tuple<int32_t, Function>>(), 7));

  Function mutate = Function::GetGlobalRequired("ffi.StructuralMutate");
  Function mutator_mutate = Function::GetGlobalRequired("ffi.StructuralMutatorMutate");
  Function as_string = Function::FromTyped([&](Array<Any> a, StructuralMutator m) -> Any {
    return String(std::to_string(mutator_mutate(m, a[0]).cast<int64_t>()));
  });
  Array<Tuple<int32_t, Function, bool>> mutate_callbacks{
      Tuple<int32_t, Function, bool>(TypeIndex::kTVMFFIArray, as_string, false)};
  CHECK(mutate(root, mutate_callbacks).cast<String>() == "41");
}

}  // namespace
