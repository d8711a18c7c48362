/*
 * The runtime's part of structural visiting (tvm/ffi/extra/structural_visit.h):
 *
 *  - the `__s_visit__` column, with the visits of Array/List (items in
 *    order) and Map/Dict (each value: keys are anchors and not visited, as
 *    upstream 0.1.15), as native hooks
 *    (opaque FStructuralVisitABI pointers);
 *  - the reflection of ffi.VisitInterrupt (field `value`) and
 *    ffi.StructuralVisitor;
 *  - upstream's globals, for other languages:
 *      ffi.VisitInterrupt(value) -> VisitInterrupt
 *      ffi.StructuralVisitorVisit(visitor, value) -> None | VisitInterrupt
 *      ffi.StructuralVisitorDefaultVisit(visitor, value) -> None | VisitInterrupt
 *          (the value's own children: its __s_visit__, else its fields)
 *      ffi.StructuralVisitorDefRegionKind(visitor) -> int
 *      ffi.StructuralVisitorWithDefRegionKind(visitor, kind, callback) -> callback()
 *      ffi.StructuralWalk(root, callbacks, callbacks_with_def_region_kind, order)
 *          -> None | VisitInterrupt
 *    where each callback list holds (type_index, Function) pairs: the first
 *    pair whose type matches the value runs, called with (value) or
 *    (value, def_region_kind), returning None / 0 (advance), 1 (skip) or a
 *    VisitInterrupt;
 *      ffi.StructuralVisit(root, callbacks) -> None | VisitInterrupt
 *    where the first (type_index, Function) pair matching a non-None value is
 *    called with (value, visitor) and owns its descent (it calls the
 *    visitor's visit / default visit for the children it wants; its None or
 *    VisitInterrupt is final); a value no pair matches gets the default visit.
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
    return detail::ExpectedUnsafe::MoveToTVMFFIAny(Expected<Optional<VisitInterrupt>>(err));
  } catch (...) {
    return detail::ExpectedUnsafe::MoveToTVMFFIAny(Expected<Optional<VisitInterrupt>>(
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
    return detail::ExpectedUnsafe::MoveToTVMFFIAny(Expected<Optional<VisitInterrupt>>(
        Error("MemoryError", "StructuralVisitor: out of memory", "")));
  }
  return detail::VisitContinueRaw();
}

TVMFFIAny VisitMapping(StructuralVisitorObj* visitor, AnyView value) noexcept {
  if (tvmffi::rt::StackNearlyExhausted()) return TooDeep();
  const auto* map = static_cast<const MapBaseObj*>(value.cast<const Object*>());
  try {
    for (const auto& entry : tvmffi::rt::StableEntries(map)) {
      TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(visitor->VisitExpected(entry.second));
    }
  } catch (const std::bad_alloc&) {
    return detail::ExpectedUnsafe::MoveToTVMFFIAny(Expected<Optional<VisitInterrupt>>(
        Error("MemoryError", "StructuralVisitor: out of memory", "")));
  }
  return detail::VisitContinueRaw();
}

using CallbackList = Array<Tuple<int32_t, Function>>;

Optional<VisitInterrupt> WalkGlobal(AnyView root, const CallbackList& callbacks,
                                    const CallbackList& callbacks_with_kind, int32_t order) {
  auto dispatch = [callbacks, callbacks_with_kind](
                      AnyView x, TVMFFIDefRegionKind kind) -> Expected<WalkResult> {
    for (const auto& entry : callbacks) {
      if (detail::RuntimeTypeIndexMatch(x.type_index(), entry.get<0>())) {
        return entry.get<1>().CallExpected<WalkResult>(x);
      }
    }
    for (const auto& entry : callbacks_with_kind) {
      if (detail::RuntimeTypeIndexMatch(x.type_index(), entry.get<0>())) {
        return entry.get<1>().CallExpected<WalkResult>(x, static_cast<int32_t>(kind));
      }
    }
    return WalkResult::Advance();
  };
  if (order == static_cast<int32_t>(WalkOrder::kPreOrder)) {
    using Visitor =
        detail::StructuralWalkCallbackVisitorObj<WalkOrder::kPreOrder, decltype(dispatch)>;
    return StructuralVisitor(make_object<Visitor>(std::move(dispatch)))->Visit(root);
  }
  if (order == static_cast<int32_t>(WalkOrder::kPostOrder)) {
    using Visitor =
        detail::StructuralWalkCallbackVisitorObj<WalkOrder::kPostOrder, decltype(dispatch)>;
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
      refl::detail::RegisterTypeAttr(index, refl::type_attr::kStructuralVisit, seq);
    }
    for (int32_t index : {TypeIndex::kTVMFFIMap, TypeIndex::kTVMFFIDict}) {
      refl::detail::RegisterTypeAttr(index, refl::type_attr::kStructuralVisit, mapping);
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

// The visitor behind ffi.StructuralVisit (see the top of this file).
class CallbackVisitorObj : public StructuralVisitorObj {
 public:
  explicit CallbackVisitorObj(CallbackList callbacks)
      : StructuralVisitorObj(VTable()), callbacks_(std::move(callbacks)) {}

 private:
  static const StructuralVisitorVTable* VTable() {
    static const StructuralVisitorVTable vtable{&CallbackVisitorObj::Trampoline};
    return &vtable;
  }
  static TVMFFIAny Trampoline(StructuralVisitorObj* self, AnyView value) noexcept {
    return detail::ExpectedUnsafe::MoveToTVMFFIAny(
        static_cast<CallbackVisitorObj*>(self)->VisitOne(value));
  }
  Expected<Optional<VisitInterrupt>> VisitOne(AnyView value) noexcept {
    if (value.type_index() == TypeIndex::kTVMFFINone) return Optional<VisitInterrupt>(std::nullopt);
    Expected<Optional<VisitInterrupt>> result = Optional<VisitInterrupt>(std::nullopt);
    bool matched = false;
    try {
      for (const auto& entry : callbacks_) {
        if (!detail::RuntimeTypeIndexMatch(value.type_index(), entry.get<0>())) continue;
        matched = true;
        result = entry.get<1>().CallExpected<Optional<VisitInterrupt>>(
            value, StructuralVisitor(GetObjectPtr<StructuralVisitorObj>(this)));
        break;
      }
    } catch (const Error& err) {
      result = Unexpected(err);
    } catch (const std::bad_alloc&) {
      result = Unexpected(Error("MemoryError", "StructuralVisit: out of memory", ""));
    }
    if (!matched) result = DefaultVisitExpected(value);
    if (result.type_index() == TypeIndex::kTVMFFIError) {
      detail::UpdateVisitErrorContextNoThrow(result, value);
    }
    return result;
  }

  CallbackList callbacks_;
};

Optional<VisitInterrupt> VisitGlobal(AnyView root, CallbackList callbacks) {
  return StructuralVisitor(make_object<CallbackVisitorObj>(std::move(callbacks)))->Visit(root);
}

[[maybe_unused]] const bool kStructuralVisitRegistered = [] {
  RegisterStructuralVisit();
  tvmffi::rt::BuiltinDef()
      .def("ffi.VisitInterrupt", [](Any value) { return VisitInterrupt(std::move(value)); })
      .def("ffi.StructuralVisitorVisit",
           [](StructuralVisitor visitor, AnyView value) { return visitor->Visit(value); })
      .def("ffi.StructuralVisitorDefaultVisit",
           [](StructuralVisitor visitor, AnyView value) {
             return visitor->DefaultVisitExpected(value).value();
           })
      .def("ffi.StructuralVisitorDefRegionKind",
           [](StructuralVisitor visitor) {
             return static_cast<int32_t>(visitor->def_region_kind());
           })
      .def("ffi.StructuralVisitorWithDefRegionKind",
           [](StructuralVisitor visitor, int32_t kind, Function callback) -> Any {
             return visitor->WithDefRegionKind(RegionKindArg(kind), [&] { return callback(); });
           })
      .def("ffi.StructuralWalk", WalkGlobal)
      .def("ffi.StructuralVisit", VisitGlobal);
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm
