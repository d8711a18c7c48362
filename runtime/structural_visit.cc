/*
 * The runtime's part of structural visiting (tvm/ffi/extra/structural_visit.h):
 *
 *  - the `__s_visit__` column, with the visits of Array/List (items in
 *    order) and Map/Dict (each key, then its value), as opaque
 *    FStructuralVisit pointers;
 *  - the reflection of ffi.VisitInterrupt (field `value`) and
 *    ffi.StructuralVisitor;
 *  - upstream's globals, for other languages:
 *      ffi.VisitInterrupt(value) -> VisitInterrupt
 *      ffi.StructuralVisitorVisit(visitor, value) -> None | VisitInterrupt
 *      ffi.StructuralVisitorDefRegionKind(visitor) -> int
 *      ffi.StructuralVisitorWithDefRegionKind(visitor, kind, callback) -> callback()
 *      ffi.StructuralWalk(root, callbacks, callbacks_with_def_region_kind, order)
 *          -> None | VisitInterrupt
 *    where each callback list holds (type_index, Function) pairs: the first
 *    pair whose type matches the value runs, called with (value) or
 *    (value, def_region_kind), returning None / 0 (advance), 1 (skip) or a
 *    VisitInterrupt.
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/extra/structural_visit.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdio>
#include <exception>
#include <new>
#include <utility>

#include "builtin_def.h"
#include "walk_guard.h"

namespace tvm {
namespace ffi {
namespace {

// The walkers' rule (walk_guard.h): each level checks the stack (a cycle or a
// value too deep is a ValueError), and a List or Dict is visited from a
// snapshot, as a callback may change it under the walk.
TVMFFIAny TooDeep() noexcept {
  try {
    tvmffi::rt::ThrowNestedTooDeep("StructuralVisitor");
  } catch (const Error& err) {
    return details::ExpectedUnsafe::MoveToTVMFFIAny(Expected<Optional<VisitInterrupt>>(err));
  } catch (...) {
    return details::ExpectedUnsafe::MoveToTVMFFIAny(Expected<Optional<VisitInterrupt>>(
        Error("MemoryError", "StructuralVisitor: out of memory", "")));
  }
}

TVMFFIAny VisitSeq(StructuralVisitorObj* visitor, AnyView value) noexcept {
  if (tvmffi::rt::StackNearlyExhausted()) return TooDeep();
  const auto* seq = static_cast<const SeqBaseObj*>(value.cast<const Object*>());
  try {
    for (const Any& item : tvmffi::rt::StableItems(seq)) {
      TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(visitor->VisitExpected(item));
    }
  } catch (const std::bad_alloc&) {
    return details::ExpectedUnsafe::MoveToTVMFFIAny(Expected<Optional<VisitInterrupt>>(
        Error("MemoryError", "StructuralVisitor: out of memory", "")));
  }
  return details::VisitContinueRaw();
}

TVMFFIAny VisitMapping(StructuralVisitorObj* visitor, AnyView value) noexcept {
  if (tvmffi::rt::StackNearlyExhausted()) return TooDeep();
  const auto* map = static_cast<const MapBaseObj*>(value.cast<const Object*>());
  try {
    for (const auto& [key, val] : tvmffi::rt::StableEntries(map)) {
      TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(visitor->VisitExpected(key));
      TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(visitor->VisitExpected(val));
    }
  } catch (const std::bad_alloc&) {
    return details::ExpectedUnsafe::MoveToTVMFFIAny(Expected<Optional<VisitInterrupt>>(
        Error("MemoryError", "StructuralVisitor: out of memory", "")));
  }
  return details::VisitContinueRaw();
}

// Whether a value of type `actual` is handled by a callback registered for
// `target` (upstream's matching: Any matches all, str/bytes their small forms,
// Object every object, otherwise the type or a subclass of it).
bool TypeIndexMatches(int32_t actual, int32_t target) {
  if (actual == target || target == TypeIndex::kTVMFFIAny) return true;
  if (target == TypeIndex::kTVMFFIStr) return actual == TypeIndex::kTVMFFISmallStr;
  if (target == TypeIndex::kTVMFFIBytes) return actual == TypeIndex::kTVMFFISmallBytes;
  if (actual < TypeIndex::kTVMFFIStaticObjectBegin ||
      target < TypeIndex::kTVMFFIStaticObjectBegin) {
    return false;
  }
  if (target == TypeIndex::kTVMFFIObject) return true;
  const TVMFFITypeInfo* a = TVMFFIGetTypeInfo(actual);
  const TVMFFITypeInfo* t = TVMFFIGetTypeInfo(target);
  return a != nullptr && t != nullptr && t->type_depth < a->type_depth &&
         a->type_ancestors[t->type_depth]->type_index == target;
}

using CallbackList = Array<Tuple<int32_t, Function>>;

Optional<VisitInterrupt> WalkGlobal(AnyView root, const CallbackList& callbacks,
                                    const CallbackList& callbacks_with_kind, int32_t order) {
  auto dispatch = [callbacks, callbacks_with_kind](
                      AnyView x, TVMFFIDefRegionKind kind) -> Expected<WalkResult> {
    for (const auto& entry : callbacks) {
      if (TypeIndexMatches(x.type_index(), entry.get<0>())) {
        return entry.get<1>().CallExpected<WalkResult>(x);
      }
    }
    for (const auto& entry : callbacks_with_kind) {
      if (TypeIndexMatches(x.type_index(), entry.get<0>())) {
        return entry.get<1>().CallExpected<WalkResult>(x, static_cast<int32_t>(kind));
      }
    }
    return WalkResult::Advance();
  };
  if (order == static_cast<int32_t>(WalkOrder::kPreOrder)) {
    using Visitor =
        details::StructuralWalkCallbackVisitorObj<WalkOrder::kPreOrder, decltype(dispatch)>;
    return StructuralVisitor(make_object<Visitor>(std::move(dispatch)))->Visit(root);
  }
  if (order == static_cast<int32_t>(WalkOrder::kPostOrder)) {
    using Visitor =
        details::StructuralWalkCallbackVisitorObj<WalkOrder::kPostOrder, decltype(dispatch)>;
    return StructuralVisitor(make_object<Visitor>(std::move(dispatch)))->Visit(root);
  }
  TVM_FFI_THROW(ValueError) << "ffi.StructuralWalk: order must be 0 (pre-order) or 1 (post-order), "
                               "not "
                            << order;
}

TVMFFIDefRegionKind RegionKindArg(int32_t kind) {
  if (kind < kTVMFFIDefRegionKindNone || kind > kTVMFFIDefRegionKindNonRecursive) {
    TVM_FFI_THROW(ValueError) << "def region kind must be 0, 1 or 2, not " << kind;
  }
  return static_cast<TVMFFIDefRegionKind>(kind);
}

void RegisterStructuralVisit() noexcept {
  try {
    namespace refl = reflection;
    refl::EnsureTypeAttrColumn(refl::type_attr::kStructuralVisit);
    void* seq = reinterpret_cast<void*>(static_cast<FStructuralVisitABI>(&VisitSeq));
    void* mapping = reinterpret_cast<void*>(static_cast<FStructuralVisitABI>(&VisitMapping));
    for (int32_t index : {TypeIndex::kTVMFFIArray, TypeIndex::kTVMFFIList}) {
      refl::details::RegisterTypeAttr(index, refl::type_attr::kStructuralVisit, seq);
    }
    for (int32_t index : {TypeIndex::kTVMFFIMap, TypeIndex::kTVMFFIDict}) {
      refl::details::RegisterTypeAttr(index, refl::type_attr::kStructuralVisit, mapping);
    }
    refl::ObjectDef<VisitInterruptObj>().def_ro("value", &VisitInterruptObj::value,
                                                refl::DefaultValue(nullptr),
                                                "The payload the walk returns with");
    // No ObjectDef: a copy of a visitor would lose its concrete class.
    StructuralVisitorObj::_GetOrAllocRuntimeTypeIndex();
  } catch (const std::exception& e) {
    char what[512];
    std::snprintf(what, sizeof(what), "cannot register structural visiting: %s", e.what());
    tvmffi::rt::RecordLoadFailure(what);
  }
}

[[maybe_unused]] const bool kStructuralVisitRegistered = [] {
  RegisterStructuralVisit();
  tvmffi::rt::BuiltinDef()
      .def("ffi.VisitInterrupt", [](Any value) { return VisitInterrupt(std::move(value)); })
      .def("ffi.StructuralVisitorVisit",
           [](StructuralVisitor visitor, AnyView value) { return visitor->Visit(value); })
      .def("ffi.StructuralVisitorDefRegionKind",
           [](StructuralVisitor visitor) {
             return static_cast<int32_t>(visitor->def_region_kind());
           })
      .def("ffi.StructuralVisitorWithDefRegionKind",
           [](StructuralVisitor visitor, int32_t kind, Function callback) -> Any {
             return visitor->WithDefRegionKind(RegionKindArg(kind), [&] { return callback(); });
           })
      .def("ffi.StructuralWalk", WalkGlobal);
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm
