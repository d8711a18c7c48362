// tvm/ffi/extra/structural_visit.h: StructuralVisitor, StructuralWalk,
// VisitInterrupt, def regions, and the runtime's container visits and globals.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/extra/structural_visit.h>
#include <tvm/ffi/extra/visit_error_context.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include "reflection_test_util.h"

namespace {

using namespace tvm::ffi;
using namespace reflection_test;

// Records every non-None value a walk calls back on, with its def region.
struct Trace {
  std::vector<Any> values;
  std::vector<TVMFFIDefRegionKind> kinds;
  auto Callback() {
    return [this](AnyView v, TVMFFIDefRegionKind kind) -> Expected<WalkResult> {
      values.push_back(Any(v));
      kinds.push_back(kind);
      return WalkResult::Advance();
    };
  }
  std::vector<int64_t> Ints() const {
    std::vector<int64_t> out;
    for (const Any& v : values) {
      if (auto i = v.as<int64_t>()) out.push_back(*i);
    }
    return out;
  }
};

TEST_CASE("VisitInterrupt: static type, payload, reflection", "[structural_visit]") {
  VisitInterrupt plain;
  CHECK(plain->type_index() == TypeIndex::kTVMFFIVisitInterrupt);
  CHECK(plain->value == nullptr);
  CHECK(plain->GetTypeKey() == "ffi.VisitInterrupt");
  VisitInterrupt with(Any(7));
  CHECK(with->value.cast<int>() == 7);
  // Other binaries read the payload inline: the Any right after the header.
  const char* base = reinterpret_cast<const char*>(with.get());
  CHECK(reinterpret_cast<const char*>(&with->value) - base ==
        static_cast<std::ptrdiff_t>(sizeof(TVMFFIObject)));
  CHECK(sizeof(VisitInterruptObj) == sizeof(TVMFFIObject) + sizeof(TVMFFIAny));
  // The global makes one too, and the field is reflected.
  Any made = Function::GetGlobalRequired("ffi.VisitInterrupt")(String("stop"));
  REQUIRE(made.type_index() == TypeIndex::kTVMFFIVisitInterrupt);
  CHECK(reflection::FieldGetter("ffi.VisitInterrupt", "value")(made.cast<ObjectRef>())
            .cast<String>() == "stop");
}

TEST_CASE("Walk: pre-order over objects and containers, fields in order", "[structural_visit]") {
  RegisterTestTypes();
  Point p(3, 1.0);
  Array<Any> root{p, Map<String, Any>{{"k", 5}}, List<Any>{6, nullptr}, Dict<Any, Any>{{8, 9}}};
  Trace trace;
  CHECK(!StructuralWalk<WalkOrder::kPreOrder>(root, trace.Callback()).has_value());
  // The root first, then p and its fields (x, y, label; `cache` is ignored),
  // then each container before its items; None is not called back.
  REQUIRE(trace.values.size() >= 5);
  CHECK(trace.values[0].same_as(root));
  CHECK(trace.values[1].same_as(p));
  CHECK(trace.values[2].cast<int64_t>() == 3);
  CHECK(trace.values[3].cast<double>() == 1.0);
  // A Map/Dict's values are visited, its keys (8) not.
  CHECK(trace.Ints() == std::vector<int64_t>{3, 5, 6, 9});
  for (const Any& v : trace.values) CHECK(v != nullptr);
  for (TVMFFIDefRegionKind k : trace.kinds) CHECK(k == kTVMFFIDefRegionKindNone);
}

TEST_CASE("Walk: post-order calls back after the children", "[structural_visit]") {
  Array<Any> inner{1, 2};
  Array<Any> root{inner, 3};
  Trace trace;
  StructuralWalk<WalkOrder::kPostOrder>(root, trace.Callback());
  REQUIRE(trace.values.size() == 5);
  CHECK(trace.values[0].cast<int64_t>() == 1);
  CHECK(trace.values[1].cast<int64_t>() == 2);
  CHECK(trace.values[2].same_as(inner));
  CHECK(trace.values[3].cast<int64_t>() == 3);
  CHECK(trace.values[4].same_as(root));
}

TEST_CASE("Walk: Skip leaves out the children, Interrupt stops with its payload",
          "[structural_visit]") {
  Array<Any> inner{1, 2};
  Array<Any> root{inner, 3};
  std::vector<int64_t> seen;
  auto skip_inner = [&](const Array<Any>& a) -> Expected<WalkResult> {
    return a.same_as(inner) ? WalkResult::Skip() : WalkResult::Advance();
  };
  auto ints = [&](int64_t i) -> Expected<WalkResult> {
    seen.push_back(i);
    return WalkResult::Advance();
  };
  StructuralWalk<WalkOrder::kPreOrder>(root, skip_inner, ints);
  CHECK(seen == std::vector<int64_t>{3});

  seen.clear();
  auto stop_at_2 = [&](int64_t i) -> Expected<WalkResult> {
    seen.push_back(i);
    if (i == 2) return WalkResult::Interrupt(VisitInterrupt(String("found")));
    return WalkResult::Advance();
  };
  Optional<VisitInterrupt> r = StructuralWalk<WalkOrder::kPreOrder>(root, stop_at_2);
  REQUIRE(r.has_value());
  CHECK(r.value()->value.cast<String>() == "found");
  CHECK(seen == std::vector<int64_t>{1, 2});  // 3 never visited
}

TEST_CASE("Walk: the first matching callback runs; typed callbacks by object class",
          "[structural_visit]") {
  RegisterTestTypes();
  Var x("x");
  Point p(1, 2.0);
  Array<Any> root{x, p, 4};
  int vars = 0, points = 0, anys = 0;
  StructuralWalk<WalkOrder::kPreOrder>(
      root,
      [&](const VarObj*) -> Expected<WalkResult> {
        ++vars;
        return WalkResult::Advance();
      },
      [&](const Point&) -> Expected<WalkResult> {
        ++points;
        return WalkResult::Skip();
      },
      [&](AnyView) -> Expected<WalkResult> {
        ++anys;
        return WalkResult::Advance();
      });
  CHECK(vars == 1);
  CHECK(points == 1);
  // root, 4 and x's name are neither Var nor Point (x's name is SEqHashIgnore,
  // p's fields are skipped).
  CHECK(anys == 2);
}

TEST_CASE("Walk: errors come back as the Expected's error, never thrown through",
          "[structural_visit]") {
  Array<Any> root{1, 2};
  Expected<Optional<VisitInterrupt>> r =
      StructuralWalkExpected<WalkOrder::kPreOrder>(root, [](int64_t i) -> Expected<WalkResult> {
        if (i == 2) return Unexpected(Error("ValueError", "two", ""));
        return WalkResult::Advance();
      });
  REQUIRE(r.is_err());
  CHECK(r.error().kind() == "ValueError");
  // A callback that throws: caught and returned the same way.
  Expected<Optional<VisitInterrupt>> thrown = StructuralWalkExpected<WalkOrder::kPostOrder>(
      root, [](int64_t) -> Expected<WalkResult> { TVM_FFI_THROW(TypeError) << "thrown"; });
  REQUIRE(thrown.is_err());
  CHECK(thrown.error().kind() == "TypeError");
  CHECK_THROWS_AS(
      StructuralWalk<WalkOrder::kPreOrder>(
          root,
          [](int64_t) -> Expected<WalkResult> { return Unexpected(Error("ValueError", "x", "")); }),
      Error);
}

TEST_CASE("Walk: an error records the objects it passed through", "[structural_visit]") {
  Array<Any> inner{3};
  Array<Any> mid{2, inner};
  Array<Any> root{1, mid};
  for (bool pre : {true, false}) {
    auto fail_at_inner = [&](const Array<Any>& a) -> Expected<WalkResult> {
      if (a.same_as(inner)) return Unexpected(Error("ValueError", "inner", ""));
      return WalkResult::Advance();
    };
    Expected<Optional<VisitInterrupt>> r =
        pre ? StructuralWalkExpected<WalkOrder::kPreOrder>(root, fail_at_inner)
            : StructuralWalkExpected<WalkOrder::kPostOrder>(root, fail_at_inner);
    REQUIRE(r.is_err());
    Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(r.error());
    REQUIRE(ctx.has_value());
    const List<ObjectRef>& nodes = ctx.value()->reverse_visit_pattern;
    REQUIRE(nodes.size() == 3);
    CHECK(nodes[0].same_as(inner));
    CHECK(nodes[1].same_as(mid));
    CHECK(nodes[2].same_as(root));
    Array<reflection::AccessPath> paths = VisitErrorContext::FindAccessPaths(root, ctx.value());
    REQUIRE(paths.size() == 1);
    CHECK(paths[0]->PathEqual(reflection::AccessPath::Root()->ArrayItem(1)->ArrayItem(1)));
  }
  // An error raised at a non-object value records its object ancestors only.
  Expected<Optional<VisitInterrupt>> r =
      StructuralWalkExpected<WalkOrder::kPreOrder>(root, [](int64_t i) -> Expected<WalkResult> {
        if (i == 3) return Unexpected(Error("ValueError", "three", ""));
        return WalkResult::Advance();
      });
  REQUIRE(r.is_err());
  const List<ObjectRef>& nodes =
      VisitErrorContext::TryGetFromError(r.error()).value()->reverse_visit_pattern;
  REQUIRE(nodes.size() == 3);
  CHECK(nodes[0].same_as(inner));
}

TEST_CASE("Walk: def region kinds follow the field flags", "[structural_visit]") {
  RegisterTestTypes();
  Var n("n"), v("v");
  TypedVar x("x", n);
  // fn(v) { let x: T(n) in x }
  Func f({v}, MakeLet(x, x));
  std::vector<std::pair<ObjectRef, TVMFFIDefRegionKind>> seen;
  auto record = [&](const ObjectRef& o, TVMFFIDefRegionKind kind) -> Expected<WalkResult> {
    seen.emplace_back(o, kind);
    return WalkResult::Advance();
  };
  StructuralWalk<WalkOrder::kPreOrder>(f, record);
  auto kind_of = [&](const ObjectRef& o, size_t nth) {
    size_t k = 0;
    for (auto& [obj, kind] : seen) {
      if (obj.same_as(o) && k++ == nth) return static_cast<int>(kind);
    }
    return -1;
  };
  CHECK(kind_of(f, 0) == kTVMFFIDefRegionKindNone);
  CHECK(kind_of(v, 0) == kTVMFFIDefRegionKindRecursive);     // in params
  CHECK(kind_of(x, 0) == kTVMFFIDefRegionKindNonRecursive);  // let's var
  CHECK(kind_of(n, 0) == kTVMFFIDefRegionKindNone);          // x's annotation: a use
  CHECK(kind_of(x, 1) == kTVMFFIDefRegionKindNone);          // let's body
  // In a recursive let, the annotation stays in the region.
  seen.clear();
  StructuralWalk<WalkOrder::kPreOrder>(MakeLet<RecLetObj>(x, x), record);
  CHECK(kind_of(n, 0) == kTVMFFIDefRegionKindRecursive);
}

// A visitor written directly against the vtable: counts ints, stops at a
// negative one.
class CountingVisitorObj : public StructuralVisitorObj {
 public:
  CountingVisitorObj() : StructuralVisitorObj(&kVTable) {}
  int64_t sum = 0;

 private:
  static TVMFFIAny VisitFn(StructuralVisitorObj* self, AnyView value) noexcept {
    auto* me = static_cast<CountingVisitorObj*>(self);
    if (auto i = value.as<int64_t>()) {
      if (*i < 0) {
        return detail::ExpectedUnsafe::MoveToTVMFFIAny(
            Expected<Optional<VisitInterrupt>>(VisitInterrupt(Any(*i))));
      }
      me->sum += *i;
    }
    return detail::ExpectedUnsafe::MoveToTVMFFIAny(me->DefaultVisitExpected(value));
  }
  static inline const StructuralVisitorVTable kVTable{&CountingVisitorObj::VisitFn};
};

TEST_CASE("A hand-written visitor; the ffi.StructuralVisitor* globals", "[structural_visit]") {
  auto obj = make_object<CountingVisitorObj>();
  StructuralVisitor visitor(obj);
  CHECK(!visitor->Visit(Array<Any>{1, Map<Any, Any>{{2, 3}}, List<Any>{4}}).has_value());
  CHECK(obj->sum == 8);  // 1 + 3 + 4: the Map's key 2 is not visited
  Optional<VisitInterrupt> stop = visitor->Visit(Array<Any>{1, -5, 100});
  REQUIRE(stop.has_value());
  CHECK(stop.value()->value.cast<int64_t>() == -5);
  CHECK(obj->sum == 9);
  // Through the globals, as other languages call it.
  Function visit = Function::GetGlobalRequired("ffi.StructuralVisitorVisit");
  CHECK(visit(visitor, Array<Any>{7}) == nullptr);
  CHECK(obj->sum == 16);
  Function kind = Function::GetGlobalRequired("ffi.StructuralVisitorDefRegionKind");
  Function with = Function::GetGlobalRequired("ffi.StructuralVisitorWithDefRegionKind");
  CHECK(kind(visitor).cast<int>() == kTVMFFIDefRegionKindNone);
  Any inside = with(visitor, 2, Function::FromTyped([&]() { return kind(visitor); }));
  CHECK(inside.cast<int>() == kTVMFFIDefRegionKindNonRecursive);
  CHECK(kind(visitor).cast<int>() == kTVMFFIDefRegionKindNone);  // restored
  CHECK_THROWS_AS(with(visitor, 7, Function::FromTyped([]() {})), Error);
}

TEST_CASE("A type's __s_visit__ Function replaces its reflected fields", "[structural_visit]") {
  RegisterTestTypes();
  // Point3 visits only its payload (not x, y, label, z).
  static bool registered = [] {
    reflection::TypeAttrDef<Point3Obj>().def(
        reflection::type_attr::kStructuralVisit,
        [](StructuralVisitor visitor, const Point3Obj* self) -> Optional<VisitInterrupt> {
          return visitor->Visit(self->payload);
        });
    return true;
  }();
  (void)registered;
  ObjectPtr<Point3Obj> p = make_object<Point3Obj>();
  p->x = 100;
  p->payload = Array<Any>{41, 42};
  Trace trace;
  StructuralWalk<WalkOrder::kPreOrder>(ObjectRef(p), trace.Callback());
  CHECK(trace.Ints() == std::vector<int64_t>{41, 42});
}

TEST_CASE("ffi.StructuralWalk: callbacks by type index, with or without the region kind",
          "[structural_visit]") {
  RegisterTestTypes();
  Function walk = Function::GetGlobalRequired("ffi.StructuralWalk");
  Var v("v");
  Func f({v}, Array<Any>{1, String("s"), v});
  std::vector<int64_t> ints;
  std::vector<int> var_kinds;
  Array<Tuple<int32_t, Function>> plain{
      Tuple<int32_t, Function>(TypeIndex::kTVMFFIInt, Function::FromTyped([&](int64_t i) {
                                 ints.push_back(i);
                                 return 0;
                               }))};
  Array<Tuple<int32_t, Function>> with_kind{Tuple<int32_t, Function>(
      VarObj::RuntimeTypeIndex(), Function::FromTyped([&](ObjectRef, int kind) -> Any {
        var_kinds.push_back(kind);
        return nullptr;
      }))};
  CHECK(walk(f, plain, with_kind, 0) == nullptr);
  CHECK(ints == std::vector<int64_t>{1});
  CHECK(var_kinds == std::vector<int>{kTVMFFIDefRegionKindRecursive, kTVMFFIDefRegionKindNone});
  // Object matches every object; an interrupt comes back as the result.
  Array<Tuple<int32_t, Function>> stop{Tuple<int32_t, Function>(
      TypeIndex::kTVMFFIObject, Function::FromTyped([](ObjectRef o) -> Any {
        if (o->IsInstance<VarObj>()) return VisitInterrupt(o);
        return 0;
      }))};
  Any r = walk(f, stop, Array<Tuple<int32_t, Function>>{}, 1);
  REQUIRE(r.type_index() == TypeIndex::kTVMFFIVisitInterrupt);
  CHECK(r.cast<VisitInterrupt>()->value.same_as(v));
  CHECK_THROWS_AS(walk(f, stop, Array<Tuple<int32_t, Function>>{}, 5), Error);
}

// A visitor layer with state: counts the standard visits it makes and hands
// the count (and a fixed tag) to each engine callback.
struct DefaultCount {
  int value = 0;
};
struct Tag {
  int value = 42;
};
class CountingLayerObj : public StructuralVisitorObj {
 public:
  using VisitorObjType = CountingLayerObj;
  using StateTupleType = std::tuple<const DefaultCount&, const Tag&>;
  explicit CountingLayerObj(const StructuralVisitorVTable* vtable) : StructuralVisitorObj(vtable) {}
  Expected<Optional<VisitInterrupt>> DefaultVisitExpected(AnyView value) noexcept {
    ++count_.value;
    return StructuralVisitorObj::DefaultVisitExpected(value);
  }
  int tag() const { return tag_.value; }

 protected:
  StateTupleType StateTuple() const noexcept { return std::tie(count_, tag_); }

 private:
  DefaultCount count_;
  Tag tag_;
};

TEST_CASE("StructuralWalkEngine: a layer's state reaches the callbacks", "[structural_visit]") {
  Array<Any> inner{1, 2};
  Array<Any> root{inner, 3};
  std::vector<int> counts;
  std::vector<int64_t> ints;
  auto on_array = [&](const Array<Any>& a, const DefaultCount& count,
                      const Tag& tag) -> Expected<WalkResult> {
    counts.push_back(count.value);
    CHECK(tag.value == 42);
    return a.same_as(inner) ? WalkResult::Skip() : WalkResult::Advance();
  };
  auto on_int = [&](int64_t i, const DefaultCount&, const Tag&,
                    TVMFFIDefRegionKind kind) -> Expected<WalkResult> {
    CHECK(kind == kTVMFFIDefRegionKindNone);
    ints.push_back(i);
    if (i == 3) return WalkResult::Interrupt(VisitInterrupt(String("three")));
    return WalkResult::Advance();
  };
  using Pre = StructuralWalkEngine<CountingLayerObj, WalkOrder::kPreOrder, decltype(on_array),
                                   decltype(on_int)>;
  StructuralVisitor pre(make_object<Pre>(on_array, on_int));
  Optional<VisitInterrupt> stop = pre->Visit(root);
  REQUIRE(stop.has_value());
  CHECK(stop.value()->value.cast<String>() == "three");
  // root before any standard visit, inner after root's; inner skipped (1, 2 unseen).
  CHECK(counts == std::vector<int>{0, 1});
  CHECK(ints == std::vector<int64_t>{3});

  // Post-order: each callback after the value's standard visit.
  counts.clear();
  auto any_value = [&](AnyView, const DefaultCount& count, const Tag&) -> Expected<WalkResult> {
    counts.push_back(count.value);
    return WalkResult::Advance();
  };
  using Post = StructuralWalkEngine<CountingLayerObj, WalkOrder::kPostOrder, decltype(any_value)>;
  StructuralVisitor post(make_object<Post>(any_value));
  CHECK(!post->Visit(Array<Any>{Array<Any>{1}}).has_value());
  CHECK(counts == std::vector<int>{3, 3, 3});  // 1, the inner array, the root

  // A callback's error (returned or thrown) comes back as the Expected's error.
  auto fails = [](int64_t i, const DefaultCount&, const Tag&) -> Expected<WalkResult> {
    if (i == 2) TVM_FFI_THROW(ValueError) << "no twos";
    return WalkResult::Advance();
  };
  using Failing = StructuralWalkEngine<CountingLayerObj, WalkOrder::kPreOrder, decltype(fails)>;
  StructuralVisitor failing(make_object<Failing>(fails));
  Expected<Optional<VisitInterrupt>> err = failing->VisitExpected(root);
  REQUIRE(err.is_err());
  CHECK(err.error().kind() == "ValueError");
}

TEST_CASE("StructuralVisit: a matching callback replaces the standard descent",
          "[structural_visit]") {
  Array<Any> first{1, 2};
  Array<Any> root{first, Array<Any>{3, 4}};
  std::vector<int64_t> seen;
  // Arrays: only the first item is visited; ints are recorded.
  Expected<Optional<VisitInterrupt>> r = StructuralVisitExpected(
      root,
      [](const Array<Any>& a, StructuralVisitorObj* v) -> Expected<Optional<VisitInterrupt>> {
        TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(v->VisitExpected(a[0]));
        return Optional<VisitInterrupt>(std::nullopt);
      },
      [&](int64_t i, StructuralVisitorObj*) -> Optional<VisitInterrupt> {
        seen.push_back(i);
        return std::nullopt;
      });
  REQUIRE(r.is_ok());
  CHECK(!r.value().has_value());
  CHECK(seen == std::vector<int64_t>{1});

  // Unmatched values get the standard visit; an interrupt stops the visit.
  seen.clear();
  Optional<VisitInterrupt> stop =
      StructuralVisit(root, [&](int64_t i, StructuralVisitorObj*) -> Optional<VisitInterrupt> {
        seen.push_back(i);
        if (i == 3) return VisitInterrupt(Any(i));
        return std::nullopt;
      });
  REQUIRE(stop.has_value());
  CHECK(stop.value()->value.cast<int64_t>() == 3);
  CHECK(seen == std::vector<int64_t>{1, 2, 3});

  // A thrown error comes back as the error; StructuralVisit throws it.
  auto throws = [](int64_t i, StructuralVisitorObj*) -> Optional<VisitInterrupt> {
    if (i == 2) TVM_FFI_THROW(TypeError) << "two";
    return std::nullopt;
  };
  Expected<Optional<VisitInterrupt>> err = StructuralVisitExpected(root, throws);
  REQUIRE(err.is_err());
  CHECK(err.error().kind() == "TypeError");
  CHECK_THROWS_AS(StructuralVisit(root, throws), Error);

  // Over a stateful layer, callbacks get the layer's visitor type.
  int tags = 0;
  auto on_int = [&](int64_t, CountingLayerObj* v) -> Optional<VisitInterrupt> {
    tags += v->tag();
    return std::nullopt;
  };
  using Engine = StructuralVisitEngine<CountingLayerObj, decltype(on_int)>;
  StructuralVisitor layered(make_object<Engine>(on_int));
  CHECK(!layered->Visit(root).has_value());
  CHECK(tags == 4 * 42);
}

}  // namespace
