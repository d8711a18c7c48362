/*
 * The runtime's part of structural mutation (tvm/ffi/extra/structural_mutate.h):
 *
 *  - the `__s_mutate__` / `__s_maybe_inplace_mutate__` columns, with the
 *    hooks of the built-in types: str and bytes are kept as they are (and a
 *    callback of the globals below that returns an equal str or bytes keeps
 *    the leaf it was given: a language with native strings cannot return it);
 *    Array/List map their items and Map/Dict their values (keys are kept),
 *    copy-on-write (a new container once an item changed) or, for the
 *    in-place entry on a uniquely owned container, item by item in place;
 *  - the reflection of ffi.StructuralMutator;
 *  - upstream's globals, for other languages:
 *      ffi.StructuralMutatorMutate(mutator, value) -> value
 *      ffi.StructuralMutatorDefaultMutate(mutator, value) -> value
 *      ffi.StructuralMutatorVarRemapGet(mutator, var) -> value | None
 *      ffi.StructuralMutatorVarRemapSet(mutator, var, mapped_value) -> None
 *      ffi.StructuralMutatorDefRegionKind(mutator) -> int
 *      ffi.StructuralMutatorWithDefRegionKind(mutator, kind, callback) -> callback()
 *      ffi.StructuralMap(root, callbacks, callbacks_with_def_region_kind, order) -> value
 *          callbacks: (type_index, Function) pairs, called (value) or
 *          (value, def_region_kind), returning a replacement or Unchanged
 *      ffi.StructuralMutate(root, callbacks) -> value
 *          callbacks: (type_index, Function, with_inplace_mode) triples, called
 *          (value, mutator) or (value, mutator, inplace_mode)
 *    where the mutator entries resolve Unchanged to the value they were given.
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/extra/structural_mutate.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "builtin_def.h"
#include "walk_guard.h"

namespace tvm {
namespace ffi {
namespace {

using detail::ExpectedUnsafe;
using MutateResult = Expected<UnchangedOr<Any>>;

TVMFFIAny Raw(MutateResult result) noexcept {
  return ExpectedUnsafe::MoveToTVMFFIAny(std::move(result));
}

TVMFFIAny OutOfMemory() noexcept {
  return Raw(Unexpected(Error("MemoryError", "StructuralMutator: out of memory", "")));
}

bool IsStrIndex(int32_t index) noexcept {
  return index == TypeIndex::kTVMFFIStr || index == TypeIndex::kTVMFFISmallStr;
}
bool IsBytesIndex(int32_t index) noexcept {
  return index == TypeIndex::kTVMFFIBytes || index == TypeIndex::kTVMFFISmallBytes;
}

// Whether a callback handed back the str or bytes leaf it was given, by value: a
// language that turns them into values of its own (Python's str and bytes) cannot
// return the object itself, and an equal copy is no change.
bool IsEqualLeaf(AnyView given, const Any& result) noexcept {
  const int32_t g = given.type_index();
  const int32_t r = result.type_index();
  try {
    if (IsStrIndex(g) && IsStrIndex(r)) return given.cast<String>() == result.cast<String>();
    if (IsBytesIndex(g) && IsBytesIndex(r)) {
      Bytes a = given.cast<Bytes>();
      Bytes b = result.cast<Bytes>();
      return a.size() == b.size() && std::equal(a.data(), a.data() + a.size(), b.data());
    }
  } catch (const std::exception&) {
    // out of memory while comparing: a replacement, as the callback said
  }
  return false;
}

TVMFFIAny KeepLeaf(StructuralMutatorObj*, AnyView) noexcept {
  return Unchanged().CopyToTVMFFIAny();
}

// Array / List. Copy-on-write: the items are read from a snapshot (a List
// may change under a callback, walk_guard.h) and a new container is made once
// one changed. In place (a container only this walk holds, so no callback can
// reach it): the items are read and set where they are, so that a uniquely
// held item is itself changed in place.
template <typename Ref>
TVMFFIAny MutateSeq(StructuralMutatorObj* mutator, AnyView value, InplaceMode mode) noexcept {
  try {
    auto* seq = detail::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck<SeqBaseObj>(value);
    if (mode == InplaceMode::kAllow) {
      for (size_t i = 0; i < seq->size(); ++i) {
        MutateResult r = mutator->MutateExpected((*seq)[static_cast<int64_t>(i)], mode);
        if (r.is_err()) return Raw(std::move(r));
        UnchangedOr<Any> item = std::move(r).value();
        if (i < seq->size() && !item.UnchangedOrSameAs((*seq)[static_cast<int64_t>(i)])) {
          seq->SetItem(static_cast<int64_t>(i), std::move(item).ValueUnchecked());
        }
      }
      return Unchanged().CopyToTVMFFIAny();
    }
    tvmffi::rt::StableItems items(seq);
    std::optional<std::vector<Any>> out;  // the new items, once one changed
    for (size_t i = 0; i < items.size(); ++i) {
      MutateResult r = mutator->MutateExpected(items[i], mode);
      if (r.is_err()) return Raw(std::move(r));
      UnchangedOr<Any> item = std::move(r).value();
      if (item.UnchangedOrSameAs(items[i])) continue;
      if (!out.has_value()) out.emplace(items.begin(), items.end());
      (*out)[i] = std::move(item).ValueUnchecked();
    }
    if (!out.has_value()) return Unchanged().CopyToTVMFFIAny();
    return Raw(UnchangedOr<Any>(Any(Ref(out->begin(), out->end()))));
  } catch (const Error& err) {
    return Raw(Unexpected(err));
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

// Map / Dict: values only (a key is an identity, as in structural equality);
// copy-on-write or in place as MutateSeq.
template <typename MapObjType>
TVMFFIAny MutateMapping(StructuralMutatorObj* mutator, AnyView value, InplaceMode mode) noexcept {
  try {
    auto* map = detail::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck<MapBaseObj>(value);
    if (mode == InplaceMode::kAllow) {
      for (auto it = map->begin(); it != map->end(); ++it) {
        MutateResult r = mutator->MutateExpected(it.value(), mode);
        if (r.is_err()) return Raw(std::move(r));
        UnchangedOr<Any> new_value = std::move(r).value();
        if (!new_value.UnchangedOrSameAs(it.value())) {
          it->second = std::move(new_value).ValueUnchecked();
        }
      }
      return Unchanged().CopyToTVMFFIAny();
    }
    ObjectPtr<MapObjType> out;  // the copy, once a value changed
    for (const auto& [key, old_value] : tvmffi::rt::StableEntries(map)) {
      MutateResult r = mutator->MutateExpected(old_value, mode);
      if (r.is_err()) return Raw(std::move(r));
      UnchangedOr<Any> new_value = std::move(r).value();
      if (new_value.UnchangedOrSameAs(old_value)) continue;
      if (out == nullptr) out = MapBaseObj::CopyOf<MapObjType>(map);
      out->at(key) = std::move(new_value).ValueUnchecked();
    }
    if (out == nullptr) return Unchanged().CopyToTVMFFIAny();
    return Raw(UnchangedOr<Any>(Any(ObjectRef(std::move(out)))));
  } catch (const Error& err) {
    return Raw(Unexpected(err));
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

template <typename Ref>
TVMFFIAny CopySeq(StructuralMutatorObj* m, AnyView v) noexcept {
  return MutateSeq<Ref>(m, v, InplaceMode::kDisallow);
}
template <typename Ref>
TVMFFIAny InplaceSeq(StructuralMutatorObj* m, AnyView v) noexcept {
  return MutateSeq<Ref>(m, v, InplaceMode::kAllow);
}
template <typename MapObjType>
TVMFFIAny CopyMapping(StructuralMutatorObj* m, AnyView v) noexcept {
  return MutateMapping<MapObjType>(m, v, InplaceMode::kDisallow);
}
template <typename MapObjType>
TVMFFIAny InplaceMapping(StructuralMutatorObj* m, AnyView v) noexcept {
  return MutateMapping<MapObjType>(m, v, InplaceMode::kAllow);
}

/*!
 * \brief ffi.StructuralMutate's engine: (type_index, Function, with_inplace_mode)
 *        triples; the first whose type matches is called and owns the value.
 */
class StructuralMutateDynEngine : public StructuralMapEngineBase {
 public:
  explicit StructuralMutateDynEngine(Array<Tuple<int32_t, Function, bool>> callbacks)
      : StructuralMapEngineBase(VTable()), callbacks_(std::move(callbacks)) {}

 private:
  static const StructuralMutatorVTable* VTable() {
    static const StructuralMutatorVTable vtable{&Dispatch<InplaceMode::kDisallow>,
                                                &Dispatch<InplaceMode::kAllow>,
                                                &DispatchVarRemapGet, &DispatchVarRemapSet};
    return &vtable;
  }

  template <InplaceMode kMode>
  static TVMFFIAny Dispatch(StructuralMutatorObj* mutator, AnyView value) noexcept {
    auto* self = static_cast<StructuralMutateDynEngine*>(mutator);
    for (const Tuple<int32_t, Function, bool>& entry : self->callbacks_) {
      if (!detail::RuntimeTypeIndexMatch(value.type_index(), entry.get<0>())) continue;
      Expected<Any> result = entry.get<2>() ? entry.get<1>().CallExpected<Any>(
                                                  value, mutator, static_cast<int32_t>(kMode))
                                            : entry.get<1>().CallExpected<Any>(value, mutator);
      if (result.is_err()) {
        UpdateVisitErrorContext(result, value);
      } else if (IsEqualLeaf(value, ExpectedUnsafe::GetData(result))) {
        return Unchanged().CopyToTVMFFIAny();
      }
      return ExpectedUnsafe::MoveToTVMFFIAny(std::move(result));
    }
    return kMode == InplaceMode::kAllow ? self->DefaultMaybeInplaceMutateRaw(value)
                                        : self->DefaultMutateRaw(value);
  }

  Array<Tuple<int32_t, Function, bool>> callbacks_;
};

using CallbackList = Array<Tuple<int32_t, Function>>;

// The callbacks that may be given a str or bytes leaf, made to return the leaf
// itself for an equal result (IsEqualLeaf), so that it counts as unchanged.
CallbackList KeepEqualLeaves(const CallbackList& callbacks) {
  std::vector<Tuple<int32_t, Function>> out;
  out.reserve(callbacks.size());
  for (const Tuple<int32_t, Function>& entry : callbacks) {
    const int32_t target = entry.get<0>();
    if (!detail::RuntimeTypeIndexMatch(TypeIndex::kTVMFFIStr, target) &&
        !detail::RuntimeTypeIndexMatch(TypeIndex::kTVMFFIBytes, target)) {
      out.push_back(entry);
      continue;
    }
    Function fn = entry.get<1>();
    out.emplace_back(target, Function::FromPacked([fn](PackedArgs args, Any* rv) {
                       fn.CallPacked(args, rv);
                       if (args.size() > 0 && IsEqualLeaf(args[0], *rv)) *rv = args[0];
                     }));
  }
  return CallbackList(out.begin(), out.end());
}

Any MapGlobal(Any root, const CallbackList& given, const CallbackList& given_with_kind,
              int32_t order) {
  const CallbackList callbacks = KeepEqualLeaves(given);
  const CallbackList callbacks_with_kind = KeepEqualLeaves(given_with_kind);
  if (order == static_cast<int32_t>(WalkOrder::kPreOrder)) {
    using Engine = StructuralMapDynEngine<StructuralMapEngineBase, WalkOrder::kPreOrder>;
    return detail::RunStructuralMutator(
               StructuralMutator(make_object<Engine>(callbacks, callbacks_with_kind)),
               std::move(root))
        .value();
  }
  if (order == static_cast<int32_t>(WalkOrder::kPostOrder)) {
    using Engine = StructuralMapDynEngine<StructuralMapEngineBase, WalkOrder::kPostOrder>;
    return detail::RunStructuralMutator(
               StructuralMutator(make_object<Engine>(callbacks, callbacks_with_kind)),
               std::move(root))
        .value();
  }
  TVM_FFI_THROW(ValueError) << "ffi.StructuralMap: order must be 0 (pre-order) or 1 (post-order), "
                               "not "
                            << order;
}

Any MutateGlobal(Any root, Array<Tuple<int32_t, Function, bool>> callbacks) {
  return detail::RunStructuralMutator(
             StructuralMutator(make_object<StructuralMutateDynEngine>(std::move(callbacks))),
             std::move(root))
      .value();
}

TVMFFIDefRegionKind RegionKindArg(int32_t kind) {
  if (kind < kTVMFFIDefRegionKindNone || kind > kTVMFFIDefRegionKindSimple) {
    TVM_FFI_THROW(ValueError) << "def region kind must be 0, 1 or 2, not " << kind;
  }
  return static_cast<TVMFFIDefRegionKind>(kind);
}

void RegisterStructuralMutate() noexcept {
  try {
    namespace refl = reflection;
    refl::EnsureTypeAttrColumn(type_attr::kStructuralMutate);
    refl::EnsureTypeAttrColumn(type_attr::kStructuralMaybeInplaceMutate);
    auto set = [](int32_t index, FStructuralMutateABI copy, FStructuralMutateABI inplace) {
      refl::detail::RegisterTypeAttr(index, type_attr::kStructuralMutate.name,
                                     reinterpret_cast<void*>(copy));
      refl::detail::RegisterTypeAttr(index, type_attr::kStructuralMaybeInplaceMutate.name,
                                     reinterpret_cast<void*>(inplace));
    };
    // Immutable leaves, as upstream 0.1.15 (BigInt has no copy, so no __ffi_shallow_copy__).
    for (int32_t leaf : {TypeIndex::kTVMFFIStr, TypeIndex::kTVMFFIBytes, TypeIndex::kTVMFFIShape,
                         TypeIndex::kTVMFFIBigInt}) {
      set(leaf, &KeepLeaf, &KeepLeaf);
    }
    set(TypeIndex::kTVMFFIArray, &CopySeq<Array<Any>>, &InplaceSeq<Array<Any>>);
    set(TypeIndex::kTVMFFIList, &CopySeq<List<Any>>, &InplaceSeq<List<Any>>);
    set(TypeIndex::kTVMFFIMap, &CopyMapping<MapObj>, &InplaceMapping<MapObj>);
    set(TypeIndex::kTVMFFIDict, &CopyMapping<DictObj>, &InplaceMapping<DictObj>);
    // No ObjectDef: a copy of a mutator would lose its concrete class.
    StructuralMutatorObj::_GetOrAllocRuntimeTypeIndex();
  } catch (const std::exception& e) {
    char what[512];
    std::snprintf(what, sizeof(what), "cannot register structural mutation: %s", e.what());
    tvmffi::rt::RecordLoadFailure(what);
  }
}

[[maybe_unused]] const bool kStructuralMutateRegistered = [] {
  RegisterStructuralMutate();
  tvmffi::rt::BuiltinDef()
      .def("ffi.StructuralMutatorMutate",
           [](StructuralMutator mutator, AnyView value) -> Any {
             return mutator->Mutate(value, InplaceMode::kDisallow).ValueOrUnchanged(value);
           })
      .def("ffi.StructuralMutatorDefaultMutate",
           [](StructuralMutator mutator, AnyView value) -> Any {
             return mutator->DefaultMutateExpected(value, InplaceMode::kDisallow)
                 .value()
                 .ValueOrUnchanged(value);
           })
      .def("ffi.StructuralMutatorVarRemapGet",
           [](StructuralMutator mutator, AnyView var) -> Any {
             return mutator->VarRemapGetExpected(var).value();
           })
      .def("ffi.StructuralMutatorVarRemapSet",
           [](StructuralMutator mutator, AnyView var, AnyView mapped_value) {
             mutator->VarRemapSetExpected(var, mapped_value).value();
           })
      .def("ffi.StructuralMutatorDefRegionKind",
           [](StructuralMutator mutator) {
             return static_cast<int32_t>(mutator->def_region_kind());
           })
      .def("ffi.StructuralMutatorWithDefRegionKind",
           [](StructuralMutator mutator, int32_t kind, Function callback) -> Any {
             return mutator->WithDefRegionKind(RegionKindArg(kind), [&] { return callback(); });
           })
      .def("ffi.StructuralMap", MapGlobal)
      .def("ffi.StructuralMutate", MutateGlobal);
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm
